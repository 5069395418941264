// An Arena starter bot: it answers every request with a legal action.
//
// Arena writes one JSON object per line to the bot's stdin. A message with an
// "id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
// Every other message is a notice: never answer it. Exit on "quit" (or when the
// input closes). stdout is for answers only: write debugging output to stderr.
"use strict";
const readline = require("readline");

// The action for one request: make it play better here.
function choose(request) {
  switch (request.type) {
    // game: rps-poker
    case "draft_pick": // "cards": the two offered; answer 0 or 1, the one to keep
      return 0;
    case "main_play": // "hand", "base", "score"; answer an index into "hand"
      return 0;
    // end game
    // game: gops
    case "gops_bid": // "prize", "hand" (ascending), "opponent_hand", "prizes_left"; bid a card in "hand"
      return request.hand[0];
    // end game
    // game: card-jitsu
    case "jitsu_play": // "hand" (5 cards), "your_pile", "opponent_pile"; answer an index into "hand"
      return 0;
    // end game
    // game: six-card-poker
    case "poker_set": // "hand": 6 cards, low to high; answer indices into it, each once
      return { high: [3, 4, 5], middle: [1, 2], low: [0] };
    // end game
    // game: badugi
    case "badugi_act": // "cards", "legal", "to_call", "pot"...; answer one of "legal"
      return request.legal[0]; // the first is "fold" when facing a bet: try "call"
    case "badugi_draw": // "cards"; answer the indices of the cards to discard
      return []; // stand pat
    // end game
  }
  throw new Error(`this bot has no answer for a ${request.type} request`);
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if ("id" in message) {
    // a request: exactly one answer, with the same id
    process.stdout.write(JSON.stringify({ id: message.id, action: choose(message) }) + "\n");
  } else if (message.type === "match_start") {
    // a notice: reset what you keep per match
    console.error(`${message.match_id}: seat ${message.seat} against ${message.opponent}`);
  } else if (message.type === "quit") {
    process.exit(0);
  }
});
input.on("close", () => process.exit(0));
