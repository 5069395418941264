/* RPS Poker bot in C: "pair or high".
 *
 * Draft: keep the card with the higher number (on a tie, the one that wins at
 * rock-paper-scissors). Play: a card that pairs the base if there is one,
 * else the highest card.
 *
 * Arena's protocol is one JSON object per line; this bot needs only a few
 * keys, so it finds them by text instead of parsing JSON. It flushes after
 * every answer, and exits on "quit" or when its input closes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CARDS 8

/* Copies the cards of the JSON array at `key` ("hand", "cards") into `out`. */
static int read_cards(const char *line, const char *key, char out[][3]) {
    char pattern[32];
    snprintf(pattern, sizeof pattern, "\"%s\":[", key);
    const char *p = strstr(line, pattern);
    int n = 0;
    if (!p) return 0;
    for (p += strlen(pattern); *p && *p != ']' && n < MAX_CARDS; p++) {
        if (*p == '"') {
            out[n][0] = p[1];
            out[n][1] = p[2];
            out[n][2] = '\0';
            n++;
            p += 3; /* the closing quote */
        }
    }
    return n;
}

static long read_id(const char *line) {
    const char *p = strstr(line, "\"id\":");
    return p ? strtol(p + 5, NULL, 10) : -1;
}

static int beats(char a, char b) { /* rock > scissors > paper > rock */
    return (a == 'R' && b == 'S') || (a == 'S' && b == 'P') || (a == 'P' && b == 'R');
}

static int draft_pick(char cards[][3]) {
    if (cards[0][1] != cards[1][1]) return cards[1][1] > cards[0][1];
    return !beats(cards[0][0], cards[1][0]);
}

static int main_play(char hand[][3], int n, const char *base) {
    int best = 0;
    for (int i = 0; i < n; i++)
        if (hand[i][1] == base[1]) return i;
    for (int i = 1; i < n; i++)
        if (hand[i][1] > hand[best][1]) best = i;
    return best;
}

int main(void) {
    static char line[1 << 16];
    char cards[MAX_CARDS][3];
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"quit\"")) break;
        if (strstr(line, "\"type\":\"draft_pick\"")) {
            read_cards(line, "cards", cards);
            printf("{\"id\":%ld,\"action\":%d}\n", read_id(line), draft_pick(cards));
        } else if (strstr(line, "\"type\":\"main_play\"")) {
            int n = read_cards(line, "hand", cards);
            const char *base = strstr(line, "\"base\":\"");
            printf("{\"id\":%ld,\"action\":%d}\n", read_id(line), main_play(cards, n, base ? base + 7 : "\"??"));
        } else if (strstr(line, "\"id\":")) {
            printf("{\"id\":%ld,\"action\":0}\n", read_id(line));
        }
        fflush(stdout);
    }
    return 0;
}
