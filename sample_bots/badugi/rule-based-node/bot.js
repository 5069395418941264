// Badugi rule-based bot in Node: the same rules as rule-based-python (a test
// checks that the two make the same decisions).
//   Draw: keep the played hand and throw the rest; with a three-card hand
//   topped by a ten or higher, also throw the top card while two draws remain.
//   Stand pat on any badugi.
//   Bet: a badugi 9-high or better raises (or bets) whenever it may; any other
//   badugi bets when checked to and calls; a three-card hand 8-high or better,
//   before the last draw, checks and calls one bet; everything else checks,
//   calls only the blind in round 1, and otherwise folds.
"use strict";
const readline = require("readline");

const RANKS = "A23456789TJQK";
const rank = (card) => RANKS.indexOf(card[0]) + 1;

function* combinations(size, start = 0, chosen = []) {
  if (chosen.length === size) {
    yield chosen;
    return;
  }
  for (let i = start; i < 4; i++) yield* combinations(size, i + 1, [...chosen, i]);
}

function lower(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

// Indices of the played hand: most cards of distinct ranks and suits, then
// the lowest ranks compared from the top.
function played(cards) {
  for (const size of [4, 3, 2, 1]) {
    let best = null;
    for (const subset of combinations(size)) {
      const ranks = new Set(subset.map((i) => cards[i][0]));
      const suits = new Set(subset.map((i) => cards[i][1]));
      if (ranks.size !== size || suits.size !== size) continue;
      const key = subset.map((i) => rank(cards[i])).sort((x, y) => y - x);
      if (best === null || lower(key, best.key)) best = { key, subset };
    }
    if (best !== null) return best.subset;
  }
  return [];
}

function discard(cards, draw) {
  const keep = [...played(cards)];
  if (keep.length === 3 && draw < 3) {
    const top = keep.reduce((a, b) => (rank(cards[b]) > rank(cards[a]) ? b : a));
    if (rank(cards[top]) >= 10) keep.splice(keep.indexOf(top), 1);
  }
  return [0, 1, 2, 3].filter((i) => !keep.includes(i));
}

function firstLegal(legal, ...wanted) {
  return wanted.find((action) => legal.includes(action)) ?? legal[0];
}

function act(request) {
  const { cards, legal } = request;
  const keep = played(cards);
  const high = Math.max(...keep.map((i) => rank(cards[i])));
  if (keep.length === 4 && high <= 9) return firstLegal(legal, "raise", "bet", "call", "check");
  if (keep.length === 4) return firstLegal(legal, "bet", "call", "check");
  if (keep.length === 3 && high <= 8 && request.round < 4) {
    if (request.to_call <= request.bet_size) return firstLegal(legal, "check", "call");
    return firstLegal(legal, "check", "fold");
  }
  if (request.round === 1 && request.bets === 1) return firstLegal(legal, "check", "call");
  return firstLegal(legal, "check", "fold");
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  let action = null;
  if (message.type === "badugi_act") action = act(message);
  else if (message.type === "badugi_draw") action = discard(message.cards, message.draw);
  else if (message.type === "quit") process.exit(0);
  if ("id" in message) process.stdout.write(JSON.stringify({ id: message.id, action }) + "\n");
});
input.on("close", () => process.exit(0));
