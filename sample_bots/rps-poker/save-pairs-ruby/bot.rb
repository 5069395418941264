# RPS Poker bot in Ruby: "save pairs".
#
# Draft: keep the higher number. Play: pair the base when a card does;
# otherwise, when ahead or level, throw away the lowest card and keep the
# high ones for later turns; when behind, play the highest card.
require "json"

$stdout.sync = true # every answer must leave at once

def draft_pick(cards)
  cards[1][1] > cards[0][1] ? 1 : 0
end

def main_play(hand, base, score)
  pair = hand.index { |card| card[1] == base[1] }
  return pair if pair
  numbers = hand.map { |card| card[1].to_i }
  score[0] >= score[1] ? numbers.index(numbers.min) : numbers.index(numbers.max)
end

$stdin.each_line do |line|
  message = JSON.parse(line)
  case message["type"]
  when "draft_pick"
    puts JSON.generate({ id: message["id"], action: draft_pick(message["cards"]) })
  when "main_play"
    puts JSON.generate({ id: message["id"], action: main_play(message["hand"], message["base"], message["score"]) })
  when "quit"
    break
  else
    puts JSON.generate({ id: message["id"], action: 0 }) if message.key?("id")
  end
end
