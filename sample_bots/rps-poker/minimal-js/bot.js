// The smallest RPS Poker bot in JavaScript (node), speaking Arena's protocol
// directly: answer every request with index 0; exit on quit or end of input.
const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', line => {
  const message = JSON.parse(line);
  if (message.type === 'quit') process.exit(0);
  if ('id' in message) process.stdout.write(JSON.stringify({ id: message.id, action: 0 }) + '\n');
});
