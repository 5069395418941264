/* An Arena starter bot: it answers every request with a legal action.
 *
 * Arena writes one JSON object per line to the bot's stdin. A message with an
 * "id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
 * Every other message is a notice: never answer it. Exit on "quit" (or when the
 * input closes). stdout is for answers only: write debugging output to stderr.
 *
 * Arena writes compact JSON (no spaces), so this bot finds the keys it needs by
 * their text; for more, parse the line with a JSON library of your choice.
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text just after `key` in `line` (such as "\"hand\":["), or "" when it is not there. */
static const char *after(const char *line, const char *key) {
    const char *found = strstr(line, key);
    return found ? found + strlen(key) : "";
}

/* Whether `line` is a message of type `type`. */
static int is_type(const char *line, const char *type) {
    const char *value = after(line, "\"type\":\"");
    size_t n = strlen(type);
    return strncmp(value, type, n) == 0 && value[n] == '"';
}

/* Writes the action for the request on `line` into `action` (JSON text); 0 when it has none.
 * Make it play better here. */
static int choose(const char *line, char *action, size_t size) {
    // game: rps-poker
    if (is_type(line, "draft_pick") || is_type(line, "main_play")) {
        /* draft_pick: "cards", the two offered; answer 0 or 1, the one to keep.
         * main_play: "hand", "base", "score"; answer an index into "hand". */
        snprintf(action, size, "0");
        return 1;
    }
    // end game
    // game: gops
    if (is_type(line, "gops_bid")) { /* "prize", "hand" (ascending), "opponent_hand"; bid a card in "hand" */
        snprintf(action, size, "%ld", strtol(after(line, "\"hand\":["), NULL, 10));
        return 1;
    }
    // end game
    // game: card-jitsu
    if (is_type(line, "jitsu_play")) { /* "hand" (5 cards), "your_pile", "opponent_pile"; an index into "hand" */
        snprintf(action, size, "0");
        return 1;
    }
    // end game
    // game: six-card-poker
    if (is_type(line, "poker_set")) { /* "hand": 6 cards, low to high; answer indices into it, each once */
        snprintf(action, size, "{\"high\":[3,4,5],\"middle\":[1,2],\"low\":[0]}");
        return 1;
    }
    // end game
    // game: badugi
    if (is_type(line, "badugi_act")) { /* "cards", "legal", "to_call", "pot"...; answer one of "legal" */
        const char *legal = after(line, "\"legal\":[\""); /* the first is "fold" when facing a bet: try "call" */
        snprintf(action, size, "\"%.*s\"", (int)strcspn(legal, "\""), legal);
        return 1;
    }
    if (is_type(line, "badugi_draw")) { /* "cards"; answer the indices of the cards to discard */
        snprintf(action, size, "[]"); /* stand pat */
        return 1;
    }
    // end game
    return 0;
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    char action[256];
    while (getline(&line, &capacity, stdin) != -1) {
        if (strstr(line, "\"id\":")) { /* a request: exactly one answer, with the same id */
            if (!choose(line, action, sizeof action)) {
                fprintf(stderr, "this bot has no answer for: %s", line);
                return 1;
            }
            printf("{\"id\":%ld,\"action\":%s}\n", strtol(after(line, "\"id\":"), NULL, 10), action);
            fflush(stdout); /* an answer left in the buffer is not sent */
        } else if (is_type(line, "match_start")) { /* a notice: reset what you keep per match */
            line[strcspn(line, "\n")] = '\0';
            fprintf(stderr, "new match: %.120s\n", line); /* a line of its own, however long the notice */
        } else if (is_type(line, "quit")) {
            break;
        }
    }
    free(line);
    return 0;
}
