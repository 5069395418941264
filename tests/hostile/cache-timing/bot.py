"""Two processes of one bot, one after the other, pass bits through the page cache of a read-only file.

The sandbox denies the page cache's probes (``fadvise``, ``RWF_NOWAIT``,
``mincore``, ``readahead``, ``cachestat``), but not the clock: a page read
from the disk takes tens of microseconds or more, one in the cache a few.
``plan.json`` beside it names a file every jail reads and some of its pages
(cold when the test began). A sender (``"send"`` set) reads the pages of its
1 bits; a receiver times one byte of each page and prints the times, in
microseconds, as one JSON line. On the server, the first leg of a deal can
send what it saw (the base cards) and the second leg read it at its start.
"""

import json
import os
import sys
import time

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "plan.json")) as file:
    plan = json.load(file)
fd = os.open(plan["path"], os.O_RDONLY)
times = []
for index, offset in enumerate(plan["offsets"]):
    if plan.get("send") is not None and not plan["send"] >> index & 1:
        continue
    start = time.perf_counter()
    os.pread(fd, 1, offset)
    times.append((time.perf_counter() - start) * 1e6)
os.close(fd)
print(json.dumps({"times": times}), flush=True)
sys.stdin.readline()
