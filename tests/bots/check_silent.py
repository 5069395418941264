"""Broken on purpose (arena check's tests): reads everything, never answers."""

import sys

for line in sys.stdin:
    if '"type":"quit"' in line:
        break
