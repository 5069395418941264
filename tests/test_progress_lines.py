"""``--progress lines``: a line per finished match or deal pair, and running standings, for logs and CI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.competition.progress import LinesProgress
from arena.competition.store import FaultRow, PlayedMatch

from .conftest import SAMPLE_BOTS


def leg(deal: str, leg: int, a: str, b: str, points: tuple[float, float], **kw: object) -> PlayedMatch:
    winner = None if points[0] == points[1] else "A" if points[0] > points[1] else "B"
    fields: dict[str, object] = {"winner": winner, **kw}
    return PlayedMatch(key=f"{deal}-{'ab'[leg]}", cycle=1, deal=deal, leg=leg, bot_a=a, bot_b=b, seed=1,
                       points=points, **fields)  # type: ignore[arg-type]  # fmt: skip


def test_a_pair_prints_once_both_legs_are_in_from_the_first_bot_s_side() -> None:
    out: list[str] = []
    progress = LinesProgress(out.append, every=3, points_name="turns won")
    progress.start(total=6, done=0)
    matches = [
        leg("c1-x-vs-y", 1, "y", "x", (3, 7)),  # second leg first: x wins 7:3 in seat B
        leg("c1-x-vs-z", 0, "x", "z", (5, 5)),
        leg("c1-x-vs-y", 0, "x", "y", (6, 4)),
        leg("c1-x-vs-z", 1, "z", "x", (10, 0), forfeit=("B",), faults=(FaultRow("B", "x", "timeout", "slow"),)),
        leg("c1-y-vs-z", 0, "y", "z", (2, 8)),
    ]
    for done, match in enumerate(matches, start=1):
        progress.finished(match, done, 6)
    progress.stop()
    assert out[0] == "[3/6] c1-x-vs-y: x 2 : 0 y (W 6:4, W 7:3)"
    assert out[1].startswith("Standings after 3 of 6 matches: rating, W-D-L, turns won per match")
    first = out[2].split()
    assert first[:2] == ["1", "x"] and first[3:] == ["2-1-0", "6.00"] and first[2].startswith("+")
    assert "[4/6] c1-x-vs-z: x 0.5 : 1.5 z (D 5:5, L 0:10 timeout)" in out
    assert out[-1] == "[-] c1-y-vs-z-a: y 2 : 8 z (z wins) (its other leg was not played)"


def test_without_duplicate_deals_every_match_is_a_line() -> None:
    out: list[str] = []
    progress = LinesProgress(out.append, every=0, pairs=False)
    progress.start(total=12, done=10)
    progress.finished(leg("c3-x-vs-y", 0, "x", "y", (-930, 930)), 11, 12)
    progress.finished(leg("c3-x-vs-z", 0, "\x1b[2Jx", "z", (1, 1)), 12, 12)
    assert out == [
        "[11/12] c3-x-vs-y-a: x -930 : 930 y (y wins)",
        "[12/12] c3-x-vs-z-a: \\x1b[2Jx 1 : 1 z (draw)",
    ]


@pytest.mark.slow
def test_arena_tournament_progress_lines(tmp_path: Path) -> None:
    bots = [str(SAMPLE_BOTS / "rps-poker" / name) for name in ("minimal-python", "random-python", "simple-py")]
    run = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "rps-poker", *bots, "--seed", "4", "--no-log",
         "--progress", "lines", "--standings-every", "4", "--db", str(tmp_path / "r.sqlite")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    pair_lines = [line for line in lines if line.startswith("[") and " : " in line]
    assert len(pair_lines) == 3, "three pairs of bots, one deal pair each"
    counts = [int(line.split()[0][1:].split("/")[0]) for line in pair_lines]
    # A pair's line comes when its second leg ends: after at least two matches, the last at the end (which
    # legs end first depends on the machine's speed when two matches run at once).
    assert counts == sorted(counts) and len(set(counts)) == 3 and counts[0] >= 2 and counts[-1] == 6, pair_lines
    assert sum(line.startswith("Standings after 4 of 6 matches") for line in lines) == 1
    assert any(line.startswith("Leaderboard (6 matches of 6)") for line in lines)
