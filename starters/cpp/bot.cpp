// An Arena starter bot: it answers every request with a legal action.
//
// Arena writes one JSON object per line to the bot's stdin. A message with an
// "id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
// Every other message is a notice: never answer it. Exit on "quit" (or when the
// input closes). stdout is for answers only: write debugging output to stderr.
//
// Arena writes compact JSON (no spaces), so this bot finds the keys it needs by
// their text; for more, parse the line with a JSON library of your choice.
#include <iostream>
#include <optional>
#include <string>

// The text just after `key` in `line` (such as "\"hand\":["), or "" when it is not there.
static std::string after(const std::string &line, const std::string &key) {
    auto found = line.find(key);
    return found == std::string::npos ? "" : line.substr(found + key.size());
}

// The message's type, such as "gops_bid".
static std::string type_of(const std::string &line) {
    std::string value = after(line, "\"type\":\"");
    return value.substr(0, value.find('"'));
}

// The action for the request on `line` (JSON text), if it knows one: make it play better here.
static std::optional<std::string> choose(const std::string &line) {
    const std::string type = type_of(line);
    // game: rps-poker
    if (type == "draft_pick") return "0";  // "cards": the two offered; answer 0 or 1, the one to keep
    if (type == "main_play") return "0";   // "hand", "base", "score"; answer an index into "hand"
    // end game
    // game: gops
    if (type == "gops_bid") {  // "prize", "hand" (ascending), "opponent_hand"; bid a card in "hand"
        return std::to_string(std::stol(after(line, "\"hand\":[")));
    }
    // end game
    // game: card-jitsu
    if (type == "jitsu_play") return "0";  // "hand" (5 cards), "your_pile", "opponent_pile"; an index into "hand"
    // end game
    // game: six-card-poker
    if (type == "poker_set") {  // "hand": 6 cards, low to high; answer indices into it, each once
        return R"({"high":[3,4,5],"middle":[1,2],"low":[0]})";
    }
    // end game
    // game: badugi
    if (type == "badugi_act") {  // "cards", "legal", "to_call", "pot"...; answer one of "legal"
        std::string legal = after(line, "\"legal\":[\"");  // the first is "fold" when facing a bet: try "call"
        return "\"" + legal.substr(0, legal.find('"')) + "\"";
    }
    if (type == "badugi_draw") return "[]";  // "cards"; the indices of the cards to discard ([]: stand pat)
    // end game
    return std::nullopt;
}

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find("\"id\":") != std::string::npos) {  // a request: exactly one answer, with the same id
            auto action = choose(line);
            if (!action) {
                std::cerr << "this bot has no answer for: " << line << std::endl;
                return 1;
            }
            // std::endl flushes: an answer left in the buffer is not sent
            std::cout << "{\"id\":" << std::stol(after(line, "\"id\":")) << ",\"action\":" << *action << "}"
                      << std::endl;
        } else if (type_of(line) == "match_start") {  // a notice: reset what you keep per match
            std::cerr << "new match: " << line.substr(0, 120) << std::endl;
        } else if (type_of(line) == "quit") {
            break;
        }
    }
    return 0;
}
