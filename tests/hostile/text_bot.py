"""A hostile gops-text bot: bids 1 in round 1, then answers round 2 with the hex-encoded bytes of its argument."""

import os
import sys
import time

payload = bytes.fromhex(sys.argv[1])
prizes = 0
for line in sys.stdin:
    if not line.startswith("Competition card:"):
        continue
    prizes += 1
    if prizes == 1:
        os.write(1, b"1\n")
    else:
        os.write(1, payload)
        time.sleep(3600)
