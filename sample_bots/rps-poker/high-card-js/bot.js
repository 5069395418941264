// A challenge-format RPS Poker bot: the object the 2021 challenge's controller
// called, run unchanged by Arena's node host (arena/js/host.js).
//
// Strategy "high card": in the draft keep the higher number; in play pair the
// base if possible, else play the highest card unless the opponent is known
// (from the draft) to hold a pair for this base, then throw away the lowest.
({
  name: 'HighCard',
  given: new Set(),
  draftPick(cards) {
    if (this.rounds === undefined || this.rounds === 5) { this.given.clear(); this.rounds = 0; }
    this.rounds += 1;
    const keep = cards[1][1] > cards[0][1] ? 1 : 0;
    this.given.add(cards[1 - keep]);
    return keep;
  },
  draftReceive(card) {},
  mainPlay(cards, base) {
    const pair = cards.findIndex(card => card[1] === base[1]);
    if (pair >= 0) return pair;
    const numbers = cards.map(card => +card[1]);
    const theyPair = [...this.given].some(card => card[1] === base[1]);
    return numbers.indexOf(theyPair ? Math.min(...numbers) : Math.max(...numbers));
  },
  mainPostprocess(card) { this.given.delete(card); },
})
