# An Arena starter bot: it answers every request with a legal action.
#
# Arena writes one JSON object per line to the bot's stdin. A message with an
# "id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
# Every other message is a notice: never answer it. Exit on "quit" (or when the
# input closes). stdout is for answers only: write debugging output to stderr.
require "json"

$stdout.sync = true # every answer must reach the arena at once

# The action for one request: make it play better here.
def choose(request)
  case request["type"]
  # game: rps-poker
  when "draft_pick" then 0 # "cards": the two offered; answer 0 or 1, the one to keep
  when "main_play" then 0 # "hand", "base", "score"; answer an index into "hand"
  # end game
  # game: gops
  when "gops_bid" then request["hand"][0] # "prize", "hand" (ascending), "opponent_hand"; bid a card in "hand"
  # end game
  # game: card-jitsu
  when "jitsu_play" then 0 # "hand" (5 cards), "your_pile", "opponent_pile"; answer an index into "hand"
  # end game
  # game: six-card-poker
  when "poker_set" # "hand": 6 cards, low to high; answer indices into it, each once
    { "high" => [3, 4, 5], "middle" => [1, 2], "low" => [0] }
  # end game
  # game: badugi
  when "badugi_act" # "cards", "legal", "to_call", "pot"...; answer one of "legal"
    request["legal"][0] # the first is "fold" when facing a bet: try "call"
  when "badugi_draw" then [] # "cards"; answer the indices of the cards to discard ([]: stand pat)
  # end game
  else raise "this bot has no answer for a #{request["type"]} request"
  end
end

$stdin.each_line do |line|
  message = JSON.parse(line)
  if message.key?("id") # a request: exactly one answer, with the same id
    puts JSON.generate({ "id" => message["id"], "action" => choose(message) })
  elsif message["type"] == "match_start" # a notice: reset what you keep per match
    warn "#{message["match_id"]}: seat #{message["seat"]} against #{message["opponent"]}"
  elsif message["type"] == "quit"
    exit 0
  end
end
