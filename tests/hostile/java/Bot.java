// A well-behaved JVM bot: answers every request with action 0 (run as `java Bot.java`).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Bot {
    public static void main(String[] args) throws Exception {
        Pattern id = Pattern.compile("\"id\":(\\d+)");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            Matcher m = id.matcher(line);
            if (m.find()) {
                System.out.println("{\"id\":" + m.group(1) + ",\"action\":0}");
                System.out.flush();
            } else if (line.contains("\"type\":\"quit\"")) {
                break;
            }
        }
    }
}
