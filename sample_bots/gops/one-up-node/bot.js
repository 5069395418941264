// GOPS bot over JSON, in Node: bid one above the prize when that card is
// still in hand (it beats a mimic by one), else the lowest card in hand.
"use strict";
const readline = require("readline");

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "gops_bid") {
    const hand = message.hand;
    const bid = hand.includes(message.prize + 1) ? message.prize + 1 : Math.min(...hand);
    process.stdout.write(JSON.stringify({ id: message.id, action: bid }) + "\n");
  } else if (message.type === "quit") {
    input.close();
  }
});
input.on("close", () => process.exit(0));
