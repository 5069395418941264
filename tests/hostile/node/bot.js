// A well-behaved Node bot: answers every request with action 0.
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if ("id" in message) {
    process.stdout.write(JSON.stringify({ id: message.id, action: 0 }) + "\n");
  } else if (message.type === "quit") {
    lines.close();
  }
});
