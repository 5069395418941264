#!/usr/bin/env bash
# Creates ./.venv with Arena installed in it (with the test tools when given --test).
# Safe to run again: it reinstalls only when pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null; then
  echo "bootstrap: $python not found; install Python 3.11 or newer" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "bootstrap: Arena needs Python 3.11 or newer; $python is $("$python" -V 2>&1)" >&2
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  if ! "$python" -m venv .venv >/dev/null 2>&1; then
    rm -rf .venv
    # Debian splits venv out of python3; install it when we may.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
      "$python" -m venv .venv
    else
      echo "bootstrap: '$python -m venv' failed; install it: sudo apt-get install python3-venv" >&2
      exit 1
    fi
  fi
fi

extra=""
[ "${1:-}" = "--test" ] && extra="[test]"
stamp=".venv/.arena-installed$extra"
want="$(cat pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "bootstrap: installing Arena and its dependencies into .venv ..." >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".$extra"
  echo "$want" > "$stamp"
fi
