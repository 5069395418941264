// Bob's bot: keep the lower card (saving the draft's high cards for the opponent is his theory),
// pair the base card when possible, else get rid of the lowest card.
const rl = require('readline').createInterface({ input: process.stdin });
const answer = (id, action) => process.stdout.write(JSON.stringify({ id, action }) + '\n');
rl.on('line', line => {
  const message = JSON.parse(line);
  if (message.type === 'quit') process.exit(0);
  if (message.type === 'draft_pick') {
    const [first, second] = message.cards;
    answer(message.id, first[1] <= second[1] ? 0 : 1);
  } else if (message.type === 'main_play') {
    const { hand, base } = message;
    const pair = hand.findIndex(card => card[1] === base[1]);
    let lowest = 0;
    hand.forEach((card, i) => { if (card[1] < hand[lowest][1]) lowest = i; });
    answer(message.id, pair >= 0 ? pair : lowest);
  }
});
