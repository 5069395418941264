// Badugi calling station in Node: checks when it can, calls otherwise, and
// stands pat in every draw.
"use strict";
const readline = require("readline");

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  let action = null;
  if (message.type === "badugi_act") {
    action = message.legal.includes("check") ? "check" : "call";
  } else if (message.type === "badugi_draw") {
    action = [];
  } else if (message.type === "quit") {
    process.exit(0);
  }
  if ("id" in message) {
    process.stdout.write(JSON.stringify({ id: message.id, action }) + "\n");
  }
});
input.on("close", () => process.exit(0));
