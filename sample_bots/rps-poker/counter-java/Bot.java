// RPS Poker bot in Java: "counter". It counts the cards it has seen.
//
// Draft: keep the card that beats more of the 30 cards on a plain table
// (higher number, then rock-paper-scissors). Play: the card that beats the
// most cards the opponent may still hold against this turn's base (every card
// not yet seen), breaking ties by keeping high cards for later.
//
// Arena's protocol is one JSON object per line; this bot finds the few keys
// it needs by text. It flushes after every answer and exits on "quit" or
// when its input closes.
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Bot {
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");
    private static final Pattern CARD = Pattern.compile("\"([RPS]\\d)\"");
    private static final List<String> DECK = new ArrayList<>();
    static {
        for (char s : "RPS".toCharArray()) for (int n = 0; n < 10; n++) DECK.add("" + s + n);
    }

    private final Set<String> seen = new HashSet<>();

    static boolean beats(String a, String b, String base) {
        boolean pairA = base != null && a.charAt(1) == base.charAt(1);
        boolean pairB = base != null && b.charAt(1) == base.charAt(1);
        if (pairA != pairB) return pairA;
        if (a.charAt(1) != b.charAt(1)) return a.charAt(1) > b.charAt(1);
        String pair = "" + a.charAt(0) + b.charAt(0);
        return pair.equals("RS") || pair.equals("SP") || pair.equals("PR");
    }

    int wins(String card, String base, boolean unseenOnly) {
        int count = 0;
        for (String other : DECK)
            if (!other.equals(card) && (!unseenOnly || !seen.contains(other)) && beats(card, other, base)) count++;
        return count;
    }

    int draftPick(List<String> cards) {
        seen.addAll(cards);
        return wins(cards.get(1), null, false) > wins(cards.get(0), null, false) ? 1 : 0;
    }

    int mainPlay(List<String> hand, String base) {
        seen.addAll(hand);
        seen.add(base);
        int best = 0;
        for (int i = 1; i < hand.size(); i++) {
            int a = wins(hand.get(i), base, true), b = wins(hand.get(best), base, true);
            if (a > b || (a == b && hand.get(i).charAt(1) < hand.get(best).charAt(1))) best = i;
        }
        return best;
    }

    static List<String> cardsAfter(String line, String key) {
        List<String> cards = new ArrayList<>();
        int start = line.indexOf("\"" + key + "\":");
        if (start < 0) return cards;
        int end = line.indexOf(']', start);
        Matcher m = CARD.matcher(line.substring(start, end < 0 ? line.length() : end));
        while (m.find()) cards.add(m.group(1));
        return cards;
    }

    static String value(String line, String key) {
        List<String> cards = cardsAfter(line, key);
        return cards.isEmpty() ? null : cards.get(0);
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        Bot bot = new Bot();
        String line;
        while ((line = in.readLine()) != null) {
            int action = -1;
            if (line.contains("\"type\":\"quit\"")) break;
            if (line.contains("\"type\":\"match_start\"")) bot.seen.clear();
            else if (line.contains("\"type\":\"draft_pick\"")) action = bot.draftPick(cardsAfter(line, "cards"));
            else if (line.contains("\"type\":\"draft_receive\"")) bot.seen.add(value(line, "card"));
            else if (line.contains("\"type\":\"main_play\"")) action = bot.mainPlay(cardsAfter(line, "hand"), value(line, "base"));
            else if (line.contains("\"type\":\"main_result\"")) bot.seen.add(value(line, "opponent_card"));
            Matcher id = ID.matcher(line);
            if (id.find()) {
                System.out.println("{\"id\":" + id.group(1) + ",\"action\":" + Math.max(action, 0) + "}");
                System.out.flush();
            }
        }
    }
}
