#!/usr/bin/env node
// Arena host for bots written for the 2021 "Turn-based RPS Poker" challenge.
//
//   node host.js BOT_FILE [BOT_NAME]
//
// BOT_FILE is a challenge-format JavaScript file, run unchanged: it may hold
// one bot object literal, an array of them, `const bots = [...]`, or set
// `module.exports`. A bot object has `name`, `draftPick(cards)`,
// `draftReceive(card)`, `mainPlay(cards, base)` and `mainPostprocess(card)`,
// and may read the global `fullDeck` (the 30 cards 'R0'..'S9'). With several
// bots in the file, BOT_NAME picks one by its `name`.
//
// The host speaks Arena's protocol (protocol/README.md) on stdin/stdout and
// calls the bot's methods as the challenge's controller did. One bot object
// plays every match of the process: the bots reset their own state when a new
// draft begins, as they did in the challenge.
//
// Faults are left to the arena to judge, with the details on stderr:
// * a method that throws: the JS error (with its stack) goes to stderr and the
//   host exits with status 1, so the arena records a `crash`;
// * a method that returns something other than a valid index: the value is
//   passed on as the action (`null` when JSON cannot carry it, such as
//   undefined or NaN), so the arena records an `illegal_move`; a note goes to
//   stderr.
// console.log and friends write to stderr: stdout carries only the protocol.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const vm = require('vm');

const FULL_DECK = [];
for (const symbol of 'RPS') for (let n = 0; n < 10; n++) FULL_DECK.push(symbol + n);
const METHODS = ['draftPick', 'draftReceive', 'mainPlay', 'mainPostprocess'];

function fail(message, status = 2) {
  process.stderr.write(`host.js: ${message}\n`);
  process.exit(status);
}

function isBot(value) {
  return value !== null && typeof value === 'object' && typeof value.mainPlay === 'function'
    && typeof value.draftPick === 'function';
}

// Every bot object that `value` holds: itself, an array's items, an object's values.
function botsIn(value) {
  if (isBot(value)) return [value];
  if (Array.isArray(value)) return value.filter(isBot);
  if (value !== null && typeof value === 'object') return Object.values(value).filter(isBot);
  return [];
}

function stderrConsole() {
  const write = (...args) => process.stderr.write(args.map(a => (typeof a === 'string' ? a : require('util').inspect(a))).join(' ') + '\n');
  return { log: write, info: write, warn: write, error: write, debug: write, trace: write };
}

// Run the file in a fresh context and collect the bots it defines.
function loadBots(file) {
  let source;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (error) {
    fail(`cannot read ${file}: ${error.message}`);
  }
  const module = { exports: {} };
  const context = vm.createContext({
    fullDeck: FULL_DECK.slice(),
    module,
    exports: module.exports,
    require,
    console: stderrConsole(),
    __filename: path.resolve(file),
    __dirname: path.dirname(path.resolve(file)),
  });
  let script;
  try {
    script = new vm.Script(source, { filename: file });
  } catch (error) {
    // A bare object literal `{ name: ..., draftPick(cards) {...} }`, as posted
    // to the challenge, is not a valid script: read it as an expression.
    try {
      script = new vm.Script(`(${source}\n)`, { filename: file });
    } catch (_) {
      fail(`cannot parse ${file}:\n${error.stack}`);
    }
  }
  let completion;
  try {
    completion = script.runInContext(context);
  } catch (error) {
    fail(`${file} threw while loading:\n${error && error.stack ? error.stack : error}`, 1);
  }
  const found = [];
  const add = list => list.forEach(bot => { if (!found.includes(bot)) found.push(bot); });
  add(botsIn(module.exports));
  // Top-level `const`/`let` names are not properties of the global object,
  // but a later script in the same context can see them.
  for (const name of ['bots', 'bot', 'Bots', 'Bot']) {
    add(botsIn(new vm.Script(`typeof ${name} === 'undefined' ? undefined : ${name}`).runInContext(context)));
  }
  add(botsIn(completion));
  for (const key of Object.keys(context)) add(botsIn(context[key]));
  return found;
}

function pickBot(bots, wanted, file) {
  if (bots.length === 0) fail(`${file} defines no bot (an object with draftPick and mainPlay methods)`);
  const names = bots.map(bot => String(bot.name));
  if (wanted === undefined) {
    if (bots.length === 1) return bots[0];
    fail(`${file} defines ${bots.length} bots; name one: ${names.join(', ')}`);
  }
  let index = names.indexOf(wanted);
  if (index < 0) index = names.findIndex(name => name.toLowerCase() === wanted.toLowerCase());
  if (index < 0) fail(`${file} has no bot named ${JSON.stringify(wanted)}; it has: ${names.join(', ')}`);
  return bots[index];
}

function send(object) {
  process.stdout.write(JSON.stringify(object) + '\n');
}

function call(bot, method, args) {
  try {
    return bot[method](...args);
  } catch (error) {
    process.stderr.write(`host.js: ${bot.name}.${method} threw:\n${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  }
}

// The action to send for what a bot returned: the value itself, which the
// arena judges; a note on stderr when it cannot be a valid index.
function action(bot, method, value, size) {
  if (!(Number.isInteger(value) && value >= 0 && value < size)) {
    let shown;
    try { shown = typeof value === 'string' ? JSON.stringify(value) : String(value); } catch (_) { shown = typeof value; }
    process.stderr.write(`host.js: ${bot.name}.${method} returned ${shown}, not an index 0..${size - 1}\n`);
  }
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

function main() {
  const [file, wanted] = process.argv.slice(2);
  if (!file) fail('usage: node host.js BOT_FILE [BOT_NAME]');
  const bot = pickBot(loadBots(file), wanted, file);
  for (const method of METHODS) {
    if (typeof bot[method] !== 'function') fail(`bot ${bot.name} has no ${method} method`);
  }
  const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  input.on('line', line => {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      process.stderr.write(`host.js: ignoring a line that is not JSON: ${line.slice(0, 200)}\n`);
      return;
    }
    switch (message.type) {
      case 'draft_pick':
        send({ id: message.id, action: action(bot, 'draftPick', call(bot, 'draftPick', [message.cards.slice()]), 2) });
        break;
      case 'draft_receive':
        call(bot, 'draftReceive', [message.card]);
        break;
      case 'main_play': {
        const hand = message.hand.slice();
        send({ id: message.id, action: action(bot, 'mainPlay', call(bot, 'mainPlay', [hand, message.base]), hand.length) });
        break;
      }
      case 'main_result':
        call(bot, 'mainPostprocess', [message.opponent_card]);
        break;
      case 'quit':
        process.exit(0);
        break;
      default:
        if ('id' in message) fail(`cannot answer a ${message.type} request: challenge bots only play RPS Poker`, 1);
    }
  });
  input.on('close', () => process.exit(0));
}

main();
