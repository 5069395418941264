// An Arena starter bot: it answers every request with a legal action.
//
// Arena writes one JSON object per line to the bot's stdin. A message with an
// "id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
// Every other message is a notice: never answer it. Exit on "quit" (or when the
// input closes). stdout is for answers only: write debugging output to stderr.
//
// Arena writes compact JSON (no spaces), so this bot finds the keys it needs by
// their text (the standard library has no JSON parser, and the sandbox builds offline).
use std::io::{self, BufRead, Write};

/// The text just after `key` in `line` (such as "\"hand\":["), or "" when it is not there.
fn after<'a>(line: &'a str, key: &str) -> &'a str {
    line.find(key).map_or("", |at| &line[at + key.len()..])
}

/// The message's type, such as "gops_bid".
fn type_of(line: &str) -> &str {
    after(line, "\"type\":\"").split('"').next().unwrap_or("")
}

/// The leading integer of `text`, such as 12 in "12,13]".
fn leading_number(text: &str) -> i64 {
    let end = text.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(text.len());
    text[..end].parse().unwrap_or(0)
}

/// The action for the request on `line` (JSON text), if it knows one: make it play better here.
fn choose(line: &str) -> Option<String> {
    let action = match type_of(line) {
        // game: rps-poker
        "draft_pick" => "0".to_string(), // "cards": the two offered; answer 0 or 1, the one to keep
        "main_play" => "0".to_string(),  // "hand", "base", "score"; answer an index into "hand"
        // end game
        // game: gops
        // "prize", "hand" (ascending), "opponent_hand", "prizes_left"; bid a card in "hand"
        "gops_bid" => leading_number(after(line, "\"hand\":[")).to_string(),
        // end game
        // game: card-jitsu
        "jitsu_play" => "0".to_string(), // "hand" (5 cards), "your_pile", "opponent_pile"; an index into "hand"
        // end game
        // game: six-card-poker
        // "hand": 6 cards, low to high; answer indices into it, each once
        "poker_set" => r#"{"high":[3,4,5],"middle":[1,2],"low":[0]}"#.to_string(),
        // end game
        // game: badugi
        "badugi_act" => {
            // "cards", "legal", "to_call", "pot"...; answer one of "legal" (the first is "fold" when facing a bet)
            let legal = after(line, "\"legal\":[\"");
            format!("\"{}\"", legal.split('"').next().unwrap_or(""))
        }
        "badugi_draw" => "[]".to_string(), // "cards"; the indices of the cards to discard ([]: stand pat)
        // end game
        _ => return None,
    };
    Some(action)
}

fn main() {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in io::stdin().lock().lines() {
        let line = line.expect("stdin is not UTF-8");
        if line.contains("\"id\":") {
            // a request: exactly one answer, with the same id
            let action = match choose(&line) {
                Some(action) => action,
                None => {
                    eprintln!("this bot has no answer for: {line}");
                    std::process::exit(1);
                }
            };
            let id = leading_number(after(&line, "\"id\":"));
            writeln!(out, "{{\"id\":{id},\"action\":{action}}}").unwrap();
            out.flush().unwrap(); // an answer left in the buffer is not sent
        } else if type_of(&line) == "match_start" {
            // a notice: reset what you keep per match
            eprintln!("new match: {}", &line[..line.len().min(120)]);
        } else if type_of(&line) == "quit" {
            break;
        }
    }
}
