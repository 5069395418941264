// An Arena starter bot: it answers every request with a legal action.
//
// Arena writes one JSON object per line to the bot's stdin. A message with an
// "id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
// Every other message is a notice: never answer it. Exit on "quit" (or when the
// input closes). stdout is for answers only: write debugging output to stderr.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// A message from the arena: its keys as JSON decodes them.
type message map[string]any

// choose returns the action for one request: make it play better here.
func choose(request message) (any, error) {
	switch request["type"] {
	// game: rps-poker
	case "draft_pick": // "cards": the two offered; answer 0 or 1, the one to keep
		return 0, nil
	case "main_play": // "hand", "base", "score"; answer an index into "hand"
		return 0, nil
	// end game
	// game: gops
	case "gops_bid": // "prize", "hand" (ascending), "opponent_hand", "prizes_left"; bid a card in "hand"
		return request["hand"].([]any)[0], nil
	// end game
	// game: card-jitsu
	case "jitsu_play": // "hand" (5 cards), "your_pile", "opponent_pile"; answer an index into "hand"
		return 0, nil
	// end game
	// game: six-card-poker
	case "poker_set": // "hand": 6 cards, low to high; answer indices into it, each once
		return map[string][]int{"high": {3, 4, 5}, "middle": {1, 2}, "low": {0}}, nil
	// end game
	// game: badugi
	case "badugi_act": // "cards", "legal", "to_call", "pot"...; answer one of "legal"
		return request["legal"].([]any)[0], nil // the first is "fold" when facing a bet: try "call"
	case "badugi_draw": // "cards"; answer the indices of the cards to discard
		return []int{}, nil // stand pat
	// end game
	}
	return nil, fmt.Errorf("this bot has no answer for a %v request", request["type"])
}

func main() {
	input := bufio.NewScanner(os.Stdin)
	input.Buffer(make([]byte, 1<<16), 1<<20) // lines longer than the default 64 KiB
	output := json.NewEncoder(os.Stdout)     // writes straight to stdout: nothing waits in a buffer
	for input.Scan() {
		var msg message
		if err := json.Unmarshal(input.Bytes(), &msg); err != nil {
			fmt.Fprintln(os.Stderr, "not JSON:", err)
			os.Exit(1)
		}
		if id, ok := msg["id"]; ok { // a request: exactly one answer, with the same id
			action, err := choose(msg)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			output.Encode(map[string]any{"id": id, "action": action})
		} else if msg["type"] == "match_start" { // a notice: reset what you keep per match
			fmt.Fprintf(os.Stderr, "%v: seat %v against %v\n", msg["match_id"], msg["seat"], msg["opponent"])
		} else if msg["type"] == "quit" {
			return
		}
	}
}
