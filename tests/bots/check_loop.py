"""Broken on purpose (arena check's tests): an endless loop at its first request, so it never answers."""

import sys

for line in sys.stdin:
    if '"id"' in line:
        while True:
            pass
