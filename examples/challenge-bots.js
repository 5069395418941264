// Two RPS Poker bots in the format of the 2021 "Turn-based RPS Poker" challenge,
// written for Arena's examples: each is an object with `name`, `draftPick(cards)`,
// `draftReceive(card)`, `mainPlay(cards, base)` and `mainPostprocess(card)`, and
// may read the global `fullDeck` (the 30 cards 'R0'..'S9'). Arena runs them
// unchanged with its node host; the second argument picks one by its name:
//
//   arena play rps-poker "node arena/bots/js/host.js examples/challenge-bots.js Odds" sample_bots/rps-poker/simple-py
//
// A card is its symbol then its number: 'P4'. A card pairs the base card when it
// has the base card's number; a pair beats no pair, else the higher number wins,
// else rock beats scissors, scissors beat paper, paper beats rock.
//
// One object plays every match of its process, so each resets what it knows when
// a new draft begins (draftPick is called five times per match, first of all).

// The rules of one turn: does `mine` beat `theirs` against `base`?
function beats(mine, theirs, base) {
  const pairMine = mine[1] === base[1];
  const pairTheirs = theirs[1] === base[1];
  if (pairMine !== pairTheirs) return pairMine;
  if (mine[1] !== theirs[1]) return mine[1] > theirs[1];
  return { R: 'S', S: 'P', P: 'R' }[mine[0]] === theirs[0];
}

const bots = [
  {
    // Plays the card most likely to beat a card the opponent may still hold.
    name: 'Odds',
    picks: 0,
    theirs: [],   // cards the opponent may still hold or draw
    draftPick(cards) {
      if (this.picks % 5 === 0) this.theirs = fullDeck.slice();  // a new match
      this.picks += 1;
      const keep = cards[0][1] >= cards[1][1] ? 0 : 1;  // the higher number; the other goes to them
      this.theirs = this.theirs.filter(card => card !== cards[keep]);
      return keep;
    },
    draftReceive(card) {
      this.theirs = this.theirs.filter(other => other !== card);
    },
    mainPlay(cards, base) {
      this.theirs = this.theirs.filter(card => card !== base);
      const pool = this.theirs;
      const wins = card => pool.filter(other => beats(card, other, base)).length;
      let best = 0;
      cards.forEach((card, index) => { if (wins(card) > wins(cards[best])) best = index; });
      return best;
    },
    mainPostprocess(card) {
      this.theirs = this.theirs.filter(other => other !== card);
    },
  },
  {
    // Pairs the base when it can; otherwise throws away its lowest card,
    // saving its high cards for the last turns.
    name: 'Saver',
    draftPick(cards) {
      return cards[0][1] >= cards[1][1] ? 0 : 1;
    },
    draftReceive(card) {},
    mainPlay(cards, base) {
      const pair = cards.findIndex(card => card[1] === base[1]);
      if (pair >= 0) return pair;
      let lowest = 0;
      cards.forEach((card, index) => { if (card[1] < cards[lowest][1]) lowest = index; });
      return lowest;
    },
    mainPostprocess(card) {},
  },
];
