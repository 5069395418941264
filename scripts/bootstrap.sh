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

# pip warns of every index or folder this machine's own pip configuration names but does not have (dozens of
# "WARNING: Location '...' is ignored" lines on a machine whose pip.conf lists a missing local index): those
# say nothing of Arena, so they are counted in one line; every other line of pip's is shown as it was.
MACHINE_WARNING="^WARNING: Location '.*' is ignored"
pip_install() {
  local said status=0 ignored
  said="$(mktemp)"
  .venv/bin/python -m pip install -q --disable-pip-version-check "$@" 2>"$said" || status=$?
  grep -v -E "$MACHINE_WARNING" "$said" >&2 || true
  ignored="$(grep -c -E "$MACHINE_WARNING" "$said" || true)"
  if [ "${ignored:-0}" -gt 0 ]; then
    echo "bootstrap: pip warned $ignored times of a package index or folder that this machine's pip configuration" \
      "names and does not have (\`.venv/bin/python -m pip config list\` shows where): not Arena's, left out" >&2
  fi
  rm -f "$said"
  return "$status"
}

extra=""
[ "${1:-}" = "--test" ] && extra="[test]"
stamp=".venv/.arena-installed$extra"
want="$(cat pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "bootstrap: installing Arena and its dependencies into .venv ..." >&2
  pip_install --upgrade pip >/dev/null
  pip_install -e ".$extra"
  echo "$want" > "$stamp"
fi
