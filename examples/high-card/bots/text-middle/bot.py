import sys

# Speaks high-card-text: reads "hand 4 5 7", answers with the middle card (the first when two are left).
for line in sys.stdin:
    words = line.split()
    if words and words[0] == "hand":
        hand = sorted(int(w) for w in words[1:])
        print(hand[(len(hand) - 1) // 2], flush=True)
