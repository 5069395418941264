"""Regenerate the golden transcripts in tests/golden/ (run on purpose, then review the diff).

    .venv/bin/python scripts/regen_golden.py

A golden transcript is a seeded match's whole log, times and local paths
removed. tests/test_golden.py replays the same match and diffs it against the
file, so any change to the rules, the messages or the log shows up in review.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena import play_match, resolve  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.supervisor.matchlog import read_log, strip_times  # noqa: E402
from protocol import Limits  # noqa: E402

GOLDEN = REPO / "tests" / "golden"
CASES = {
    # file name: (game, seed, bot A folder, bot B folder), folders under sample_bots/
    "rps-poker-seed7.jsonl": ("rps-poker", 7, "rps-poker/random-python", "rps-poker/minimal-python"),
}


def transcript(game: str, seed: int, bot_a: str, bot_b: str) -> str:
    """The match's log as canonical text: one record per line, without times or local paths."""
    specs = (resolve(str(REPO / "sample_bots" / bot_a)), resolve(str(REPO / "sample_bots" / bot_b)))
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(lambda: play_match(get_game(game), specs, seed=seed, limits=Limits(), log_dir=Path(tmp)))
        records = strip_times(read_log(next(Path(tmp).glob("*.jsonl"))))
    records[0].pop("sandbox", None)  # what isolates bots differs by machine
    for bot in records[0]["bots"]:
        for local in ("cwd", "stderr_log", "digest"):
            bot.pop(local, None)
    return "".join(json.dumps(record, sort_keys=True) + "\n" for record in records)


def main() -> None:
    for name, case in CASES.items():
        (GOLDEN / name).write_text(transcript(*case), encoding="utf-8")
        print(f"wrote tests/golden/{name}")


if __name__ == "__main__":
    main()
