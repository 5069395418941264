#!/usr/bin/env bash
# Sets up .venv (Arena + test tools) and runs the test suite on every CPU (pytest-xdist).
# Extra arguments go to pytest: `./test.sh -m "not slow"` for the quick subset,
# `./test.sh tests/test_gops.py -n 0` for one file in one process.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/bootstrap.sh --test
status=0
# worksteal: a worker that runs out takes tests queued for the other, so the few long server
# tests do not leave one CPU idle at the end.
.venv/bin/python -m pytest -n auto --dist worksteal "$@" || status=$?
echo
echo "To run arena yourself (every command in the docs is written so): source .venv/bin/activate"
exit "$status"
