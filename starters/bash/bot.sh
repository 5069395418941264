#!/usr/bin/env bash
# An Arena starter bot: it answers every request with a legal action.
#
# Arena writes one JSON object per line to the bot's stdin. A message with an
# "id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
# Every other message is a notice: never answer it. Exit on "quit" (or when the
# input closes). stdout is for answers only: write debugging output to stderr.
#
# Arena writes compact JSON (no spaces), so this bot finds the keys it needs by
# their text; for more, parse the line (jq is not in the sandbox).

# The action for the request on $line: make it play better here.
choose() {
  case $line in
    # game: rps-poker
    *'"type":"draft_pick"'*) action=0 ;; # "cards": the two offered; answer 0 or 1, the one to keep
    *'"type":"main_play"'*) action=0 ;; # "hand", "base", "score"; answer an index into "hand"
    # end game
    # game: gops
    *'"type":"gops_bid"'*) # "prize", "hand" (ascending), "opponent_hand"; bid a card in "hand"
      action=${line#*\"hand\":\[}
      action=${action%%[],]*} ;;
    # end game
    # game: card-jitsu
    *'"type":"jitsu_play"'*) action=0 ;; # "hand" (5 cards), "your_pile", "opponent_pile"; an index into "hand"
    # end game
    # game: six-card-poker
    *'"type":"poker_set"'*) # "hand": 6 cards, low to high; answer indices into it, each once
      action='{"high":[3,4,5],"middle":[1,2],"low":[0]}' ;;
    # end game
    # game: badugi
    *'"type":"badugi_act"'*) # "cards", "legal", "to_call", "pot"...; answer one of "legal"
      action=${line#*\"legal\":\[\"} # the first is "fold" when facing a bet: try "call"
      action="\"${action%%\"*}\"" ;;
    *'"type":"badugi_draw"'*) action='[]' ;; # "cards"; the indices of the cards to discard ([]: stand pat)
    # end game
    *) echo "this bot has no answer for: $line" >&2; exit 1 ;;
  esac
}

while IFS= read -r line; do
  case $line in
    *'"id":'*) # a request: exactly one answer, with the same id
      id=${line#*\"id\":}
      choose
      echo "{\"id\":${id%%[,\}]*},\"action\":$action}" ;;
    *'"type":"match_start"'*) echo "new match: ${line:0:120}" >&2 ;; # a notice: reset what you keep per match
    *'"type":"quit"'*) exit 0 ;;
  esac
done
