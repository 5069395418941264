#!/usr/bin/env bash
# Sets up .venv (Arena + test tools) and runs the test suite on every CPU (pytest-xdist).
# Extra arguments go to pytest: `./test.sh -m "not slow"` for the quick subset,
# `./test.sh tests/test_gops.py -n 0` for one file in one process.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/bootstrap.sh --test
status=0
# One worker more than this process's CPUs: a quarter of the time both workers of a 2-CPU machine wait
# on bots that sleep on purpose (measured: 73% busy at -n 2, 97% at -n 3; 7 min 52 s -> 6 min 55 s).
# worksteal: a worker that runs out takes tests queued for another, so the few long server tests do
# not leave a CPU idle at the end.
workers=$(( $(nproc) + 1 ))
.venv/bin/python -m pytest -n "$workers" --dist worksteal "$@" || status=$?
echo
echo "To run arena yourself (every command in the docs is written so): source .venv/bin/activate"
exit "$status"
