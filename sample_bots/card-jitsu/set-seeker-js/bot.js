// Card-Jitsu bot (Node.js) that plays for the set and against the opponent's.
//
// For each card in hand it weighs, against an opponent card drawn uniformly
// from the 198 kinds:
//   * the chance to win the round with it, times what the card is worth in
//     its own pile: the whole game if it completes a set, else how many more
//     kinds of card would then complete a set;
//   * the chance to lose the round to a card that completes the opponent's set.
// It has no randomness: the same match gives the same choices.

"use strict";
const readline = require("readline");

const ELEMENTS = "FWS";
const COLOURS = "YORBGP";
const BEATS = { F: "S", S: "W", W: "F" };
const ALL = [];
for (const e of ELEMENTS) for (const c of COLOURS) for (let v = 2; v <= 12; v++) ALL.push(e + c + v);

const GAME = 100; // the value of winning (or losing) the game, in "progress" units

// 1 if card a wins the round, -1 if b does, 0 for a tie.
function duel(a, b) {
  if (a[0] !== b[0]) return BEATS[a[0]] === b[0] ? 1 : -1;
  const va = Number(a.slice(2)), vb = Number(b.slice(2));
  return Math.sign(va - vb);
}

// The distinct element+colour kinds in a pile (values never matter for sets).
function kinds(pile) {
  return [...new Set(pile.map((card) => card.slice(0, 2)))];
}

function isSet(a, b, c) {
  const colours = new Set([a[1], b[1], c[1]]);
  const elements = new Set([a[0], b[0], c[0]]);
  return colours.size === 3 && (elements.size === 1 || elements.size === 3);
}

function hasSet(pile) {
  const k = kinds(pile);
  for (let i = 0; i < k.length; i++)
    for (let j = i + 1; j < k.length; j++)
      for (let l = j + 1; l < k.length; l++) if (isSet(k[i], k[j], k[l])) return true;
  return false;
}

// The element+colour kinds that would complete a set in this pile.
function threats(pile) {
  const found = new Set();
  const k = kinds(pile);
  for (const e of ELEMENTS)
    for (const c of COLOURS) {
      const kind = e + c;
      for (let i = 0; i < k.length && !found.has(kind); i++)
        for (let j = i + 1; j < k.length; j++)
          if (isSet(k[i], k[j], kind)) {
            found.add(kind);
            break;
          }
    }
  return found;
}

function score(card, mine, theirs) {
  let win = 0, lose = 0, loseToSet = 0;
  const danger = threats(theirs);
  for (const other of ALL) {
    const d = duel(card, other);
    if (d > 0) win++;
    else if (d < 0) {
      lose++;
      if (danger.has(other.slice(0, 2))) loseToSet++;
    }
  }
  const after = mine.concat([card]);
  const worth = hasSet(after) ? GAME : 1 + threats(after).size - threats(mine).size;
  // A card that wins little is a cheap card to throw away: keep the strong ones.
  return (win / ALL.length) * worth - (loseToSet / ALL.length) * GAME;
}

function choose(request) {
  let best = 0, bestScore = -Infinity;
  request.hand.forEach((card, index) => {
    const s = score(card, request.your_pile, request.opponent_pile);
    if (s > bestScore) {
      best = index;
      bestScore = s;
    }
  });
  return best;
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "jitsu_play") {
    process.stdout.write(JSON.stringify({ id: message.id, action: choose(message) }) + "\n");
  } else if (message.type === "quit") {
    process.exit(0);
  } else if ("id" in message) {
    process.stdout.write(JSON.stringify({ id: message.id, action: 0 }) + "\n");
  }
});
rl.on("close", () => process.exit(0));
