#!/usr/bin/env bash
# Sets up .venv (Arena + test tools) and runs the test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/bootstrap.sh --test
exec .venv/bin/python -m pytest "$@"
