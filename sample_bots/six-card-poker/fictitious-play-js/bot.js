// Six-card poker bot (Node.js): best response to an approximate equilibrium.
//
// At start-up it solves the game approximately by fictitious play over every
// possible six-card hand (64 kinds of hand, up to 60 splits each): starting
// from the naive split (three highest cards high), it repeatedly computes, for
// each hand, the split that scores best against the average of the strategies
// so far, with the opponent's hand weighted by how likely it is given the
// cards we hold (the 10 cards we do not see, 6 of them dealt to it). It then
// plays the best response to the final average. No randomness: the same hand
// always gets the same split.

"use strict";
const readline = require("readline");

const ITERATIONS = 40;

function choose(n, k) {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return r;
}

// Compare two hands: 1 if a wins, -1 if b wins, 0 for a draw.
function cmpHigh(a, b) { return Math.sign(a[0] + a[1] + a[2] - b[0] - b[1] - b[2]); }
function cmpMiddle(a, b) {
  // Cards are sorted high to low; any pair beats any non-pair.
  const ka = [a[0] === a[1] ? 1 : 0, a[0], a[1]], kb = [b[0] === b[1] ? 1 : 0, b[0], b[1]];
  for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return ka[i] > kb[i] ? 1 : -1;
  return 0;
}
function cmpLow(a, b) { return Math.sign(a[0] - b[0]); }

// The deal's points for split a against split b: 1, 0.5 or 0.
function payoff(a, b) {
  const hands = (3 + cmpHigh(a.high, b.high) + cmpMiddle(a.middle, b.middle) + cmpLow(a.low, b.low)) / 2;
  return hands > 1.5 ? 1 : hands < 1.5 ? 0 : 0.5;
}

const desc = (xs) => xs.slice().sort((x, y) => y - x);

// Every distinct split (by card values) of a sorted hand, with the indices that make it.
function splitsOf(hand) {
  const seen = new Map();
  for (let a = 0; a < 6; a++)
    for (let b = a + 1; b < 6; b++)
      for (let c = b + 1; c < 6; c++) {
        const rest = [0, 1, 2, 3, 4, 5].filter((i) => i !== a && i !== b && i !== c);
        for (let m = 0; m < 3; m++)
          for (let n = m + 1; n < 3; n++) {
            const low = rest.filter((_, i) => i !== m && i !== n);
            const split = {
              high: desc([hand[a], hand[b], hand[c]]),
              middle: desc([hand[rest[m]], hand[rest[n]]]),
              low: [hand[low[0]]],
              action: { high: [a, b, c], middle: [rest[m], rest[n]], low },
            };
            const key = `${split.high.join("")}|${split.middle.join("")}|${split.low[0]}`;
            if (!seen.has(key)) seen.set(key, { ...split, key });
          }
      }
  return [...seen.values()];
}

// All kinds of hand: counts of 1s, 2s, 3s and 4s, at most four each, six in all.
const HANDS = [];
for (let a = 0; a <= 4; a++)
  for (let b = 0; b <= 4; b++)
    for (let c = 0; c <= 4; c++) {
      const d = 6 - a - b - c;
      if (d < 0 || d > 4) continue;
      const counts = [a, b, c, d];
      const cards = [];
      counts.forEach((n, v) => { for (let i = 0; i < n; i++) cards.push(v + 1); });
      HANDS.push({ counts, key: cards.join(""), splits: splitsOf(cards) });
    }
const HAND_INDEX = new Map(HANDS.map((h, i) => [h.key, i]));

// Every split signature, and the payoff between any two.
const SIGNATURES = new Map();
for (const h of HANDS) for (const s of h.splits) if (!SIGNATURES.has(s.key)) SIGNATURES.set(s.key, SIGNATURES.size);
const SIG_LIST = [];
for (const h of HANDS) for (const s of h.splits) { s.sig = SIGNATURES.get(s.key); SIG_LIST[s.sig] = s; }
const NSIG = SIG_LIST.length;
const PAYOFF = new Float64Array(NSIG * NSIG);
for (let i = 0; i < NSIG; i++) for (let j = 0; j < NSIG; j++) PAYOFF[i * NSIG + j] = payoff(SIG_LIST[i], SIG_LIST[j]);

// The opponent's possible hands given ours, with their probabilities.
const OPPONENTS = HANDS.map((mine) => {
  const rest = mine.counts.map((n) => 4 - n);
  const list = [];
  HANDS.forEach((theirs, index) => {
    let w = 1;
    for (let v = 0; v < 4; v++) w *= choose(rest[v], theirs.counts[v]);
    if (w > 0) list.push({ index, w: w / choose(10, 6) });
  });
  return list;
});

// Fictitious play: average[h][s] is how often hand h has played split s.
const average = HANDS.map((h) => new Float64Array(h.splits.length));
function bestResponses() {
  return HANDS.map((mine, h) => {
    const against = new Float64Array(NSIG);
    for (const { index, w } of OPPONENTS[h]) {
      const mix = average[index], splits = HANDS[index].splits;
      let total = 0;
      for (let s = 0; s < mix.length; s++) total += mix[s];
      for (let s = 0; s < mix.length; s++) if (mix[s] > 0) against[splits[s].sig] += (w * mix[s]) / total;
    }
    let best = 0, bestValue = -1;
    mine.splits.forEach((split, s) => {
      let value = 0;
      const row = split.sig * NSIG;
      for (let t = 0; t < NSIG; t++) if (against[t] > 0) value += against[t] * PAYOFF[row + t];
      if (value > bestValue + 1e-12) { best = s; bestValue = value; }
    });
    return best;
  });
}
HANDS.forEach((h, i) => {
  const cards = h.key.split("").map(Number);
  const naive = `${desc(cards.slice(3)).join("")}|${desc(cards.slice(1, 3)).join("")}|${cards[0]}`;
  average[i][h.splits.findIndex((s) => s.key === naive)] = 1;
});
for (let t = 0; t < ITERATIONS; t++) bestResponses().forEach((s, h) => { average[h][s] += 1; });
const PLAY = bestResponses();

function decide(hand) {
  const h = HAND_INDEX.get(hand.slice().sort((x, y) => x - y).join(""));
  return HANDS[h].splits[PLAY[h]].action;
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "poker_set") {
    process.stdout.write(JSON.stringify({ id: message.id, action: decide(message.hand) }) + "\n");
  } else if (message.type === "quit") {
    process.exit(0);
  }
});
rl.on("close", () => process.exit(0));
