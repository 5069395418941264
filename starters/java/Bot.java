// An Arena starter bot: it answers every request with a legal action.
//
// Arena writes one JSON object per line to the bot's stdin. A message with an
// "id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
// Every other message is a notice: never answer it. Exit on "quit" (or when the
// input closes). stdout is for answers only: write debugging output to stderr.
//
// Arena writes compact JSON (no spaces), so this bot finds the keys it needs by
// their text; for more, parse the line with a JSON library of your choice.
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

public class Bot {
    /** The text just after {@code key} in {@code line} (such as "\"hand\":["), or "" when it is not there. */
    static String after(String line, String key) {
        int found = line.indexOf(key);
        return found < 0 ? "" : line.substring(found + key.length());
    }

    /** The message's type, such as "gops_bid". */
    static String typeOf(String line) {
        String value = after(line, "\"type\":\"");
        return value.substring(0, Math.max(0, value.indexOf('"')));
    }

    /** The leading integer of {@code text}, such as 12 in "12,13]". */
    static long leadingNumber(String text) {
        int end = 0;
        while (end < text.length() && (Character.isDigit(text.charAt(end)) || text.charAt(end) == '-')) end++;
        return Long.parseLong(text.substring(0, end));
    }

    /** The action for the request on {@code line} (JSON text), or null: make it play better here. */
    static String choose(String line) {
        switch (typeOf(line)) {
            // game: rps-poker
            case "draft_pick": // "cards": the two offered; answer 0 or 1, the one to keep
                return "0";
            case "main_play": // "hand", "base", "score"; answer an index into "hand"
                return "0";
            // end game
            // game: gops
            case "gops_bid": // "prize", "hand" (ascending), "opponent_hand"; bid a card in "hand"
                return Long.toString(leadingNumber(after(line, "\"hand\":[")));
            // end game
            // game: card-jitsu
            case "jitsu_play": // "hand" (5 cards), "your_pile", "opponent_pile"; an index into "hand"
                return "0";
            // end game
            // game: six-card-poker
            case "poker_set": // "hand": 6 cards, low to high; answer indices into it, each once
                return "{\"high\":[3,4,5],\"middle\":[1,2],\"low\":[0]}";
            // end game
            // game: badugi
            case "badugi_act": { // "cards", "legal", "to_call", "pot"...; answer one of "legal"
                String legal = after(line, "\"legal\":[\""); // the first is "fold" when facing a bet: try "call"
                return "\"" + legal.substring(0, legal.indexOf('"')) + "\"";
            }
            case "badugi_draw": // "cards"; the indices of the cards to discard ([]: stand pat)
                return "[]";
            // end game
            default:
                return null;
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"id\":")) { // a request: exactly one answer, with the same id
                String action = choose(line);
                if (action == null) {
                    System.err.println("this bot has no answer for: " + line);
                    System.exit(1);
                }
                System.out.println("{\"id\":" + leadingNumber(after(line, "\"id\":")) + ",\"action\":" + action + "}");
                System.out.flush(); // an answer left in the buffer is not sent
            } else if (typeOf(line).equals("match_start")) { // a notice: reset what you keep per match
                System.err.println("new match: " + line.substring(0, Math.min(120, line.length())));
            } else if (typeOf(line).equals("quit")) {
                return;
            }
        }
    }
}
