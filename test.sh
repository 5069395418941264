#!/usr/bin/env bash
# Sets up .venv (Arena + test tools) and runs the test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/bootstrap.sh --test
status=0
.venv/bin/python -m pytest "$@" || status=$?
echo
echo "To run arena yourself (every command in the docs is written so): source .venv/bin/activate"
exit "$status"
