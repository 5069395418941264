#!/usr/bin/env bash
# Sets up .venv and runs the main job: a round-robin tournament of the sample
# RPS Poker bots (duplicate deals, seed 7, all CPUs), with live progress and a
# leaderboard at the end (the one the docs show, when every runtime is here). Bots whose runtime this machine lacks (node, ruby,
# gcc, javac) are left out, with a note. Extra arguments go to `arena tournament`.
# Run again, it resumes the same competition (interrupted or not: nothing is
# played twice); `./demo.sh --fresh` starts over.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/bootstrap.sh

bots=()
for dir in sample_bots/rps-poker/*/; do
  dir=${dir%/}
  manifest="$dir/bot.toml"
  need=""
  grep -qE '^run = "node ' "$manifest" && need=node
  grep -qE '^run = "ruby ' "$manifest" && need=ruby
  grep -qE '^build = "gcc ' "$manifest" && need=gcc
  grep -qE '^build = "javac ' "$manifest" && need=javac
  if [ -n "$need" ] && ! command -v "$need" >/dev/null; then
    echo "demo: leaving out $dir ($need is not installed)" >&2
    continue
  fi
  bots+=("$dir")
done

if [ -f arena-runs/demo.sqlite ] && [[ " $* " != *" --fresh "* ]]; then
  echo "demo: resuming the demo competition in arena-runs/demo.sqlite (to start over: ./demo.sh --fresh)"
fi
status=0
.venv/bin/arena tournament rps-poker "${bots[@]}" --cycles 2 --seed 7 --name demo \
  --db arena-runs/demo.sqlite --log-dir arena-runs/demo-logs "$@" || status=$?
echo
echo "To run arena yourself (every command in the docs is written so): source .venv/bin/activate"
exit "$status"
