"""``arena results --matches``: every match with its result and log, replayable by its key.

Tournaments run as a reader runs them, ``arena`` in a process of its own; ``results`` and ``replay``, which only read
the database and the logs, run in this one (``arena.cli.main``, as the process would): each process of theirs cost
0.25 to 0.45 s of CPU to start, and this file ran about 25 of them.
"""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.supervisor.matchlog import read_log

from .conftest import SAMPLE_BOTS
from .inprocess import arena_here

RPS = SAMPLE_BOTS / "rps-poker"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in ``cwd``: a tournament in a process of its own; ``results`` and ``replay`` in this one."""
    if args[0] == "tournament":
        return subprocess.run(
            [sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
        )
    assert args[0] in ("results", "replay"), args
    return arena_here(*args, cwd=cwd)


@pytest.mark.slow
def test_results_lists_every_match_with_its_log_and_each_replays(tmp_path: Path) -> None:
    bots = [str(RPS / name) for name in ("minimal-python", "random-python", "minimal-bash")]
    run = arena("tournament", "rps-poker", *bots, "--seed", "5", "--jobs", "2", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    db = "arena-runs/results.sqlite"
    listed = arena("results", db, "--matches", "--format", "csv", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = list(csv.DictReader(io.StringIO(listed.stdout)))
    assert len(rows) == 6, "three pairs, each deal played twice with seats swapped"
    assert [row["n"] for row in rows] == ["1", "2", "3", "4", "5", "6"]
    for row in rows:
        a, b = float(row["points_a"]), float(row["points_b"])
        assert a + b == 10
        assert row["winner"] in (row["a"], row["b"], "") and row["winner_seat"] in ("A", "B", "")
        assert (row["winner"] == "") == (a == b)
        assert (tmp_path / row["log"]).is_file()
        verified = arena("replay", "--db", db, row["key"], "--verify", cwd=tmp_path)
        assert verified.returncode == 0 and "verified" in verified.stdout, verified.stdout + verified.stderr
    as_json = json.loads(arena("results", db, "--matches", "--format", "json", cwd=tmp_path).stdout)
    assert [r["key"] for r in as_json["matches"]] == [r["key"] for r in rows]
    tournament = as_json["tournament"]
    assert (tournament["id"], tournament["game"], tournament["seed"]) == (1, "rps-poker/1", "5")
    assert tournament["params"] == {} or isinstance(tournament["params"], dict)
    assert set(as_json["bots"]) == {"minimal-python", "random-python", "minimal-bash"}
    assert all(len(bot["digest"]) == 64 for bot in as_json["bots"].values())
    table = arena("results", db, "--matches", cwd=tmp_path).stdout.splitlines()
    assert table[0].split("\t")[:5] == ["#", "match", "A", "B", "points A : B"] and len(table) == 7
    assert all(" : " in line.split("\t")[4] for line in table[1:])
    missing = arena("replay", "--db", db, "no-such-match", cwd=tmp_path)
    assert missing.returncode == 2 and f"arena results {db} --matches" in missing.stderr


def test_negative_points_print_with_a_separator_that_is_not_a_minus() -> None:
    from arena.competition.render import render_matches

    report = {
        "matches": [
            {"n": 1, "key": "c1-x-vs-y-a", "cycle": 1, "deal": "c1-x-vs-y", "leg": 0, "a": "x", "b": "y",
             "points_a": -930.0, "points_b": 930.0, "winner": "y", "winner_seat": "B", "seed": str(2**63 - 1),
             "forfeit": [], "faults": [], "duration_s": 1.0, "log": None},
        ]
    }  # fmt: skip
    line = render_matches(report, "table").splitlines()[1]
    assert "\t-930 : 930\t" in line and "-930-930" not in line
    row = next(csv.DictReader(io.StringIO(render_matches(report, "csv"))))
    assert (row["points_a"], row["points_b"], row["winner"], row["seed"]) == ("-930", "930", "y", str(2**63 - 1))


@pytest.mark.slow
def test_json_outputs_give_seeds_as_exact_strings(tmp_path: Path) -> None:
    # 2**53 + 1: a JavaScript number would read it as 2**53, so the seed must travel as a string.
    seed = 2**53 + 1
    bots = [str(RPS / name) for name in ("minimal-python", "minimal-bash")]
    run = arena("tournament", "rps-poker", *bots, "--seed", str(seed), "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    db = "arena-runs/results.sqlite"
    board = json.loads(arena("results", db, "--format", "json", cwd=tmp_path).stdout)
    assert board["seed"] == str(seed)
    report = json.loads(arena("results", db, "--matches", "--format", "json", cwd=tmp_path).stdout)
    assert report["tournament"]["seed"] == str(seed)
    matches = report["matches"]
    assert matches and all(isinstance(m["seed"], str) for m in matches)
    logged = {read_log(tmp_path / m["log"])[0]["seed"] for m in matches}
    assert {int(m["seed"]) for m in matches} == logged
    assert any(int(m["seed"]) > 2**53 for m in matches), "derived match seeds use all 64 bits"


@pytest.mark.slow
def test_replay_results_and_report_address_the_same_match_of_the_chosen_competition(tmp_path: Path) -> None:
    # The repro: a GOPS tournament, then an RPS Poker one, in one database.
    gops = [str(SAMPLE_BOTS / "gops" / name) for name in ("random-python", "planner-python")]
    rps = [str(RPS / name) for name in ("minimal-python", "random-python")]
    db = "arena-runs/results.sqlite"
    for game, bots, name in (("gops", gops, "first"), ("rps-poker", rps, "second")):
        run = arena("tournament", game, *bots, "--seed", "3", "--name", name, "--quiet", "--db", db, cwd=tmp_path)
        assert run.returncode == 0, run.stderr

    def listed(*choose: str) -> list[dict[str, str]]:
        shown = arena("results", db, "--matches", "--format", "csv", *choose, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        return list(csv.DictReader(io.StringIO(shown.stdout)))

    latest, first = listed(), listed("--name", "first")
    board = arena("results", db, cwd=tmp_path).stdout
    assert board.startswith("Competition 'second', tournament 2: rps-poker/1\nLeaderboard (2 matches of 2)"), board
    assert listed("--tournament", "1") == first and listed("--name", "second") == latest
    for rows, choose, game in ((latest, (), "rps-poker/1"), (first, ("--name", "first"), "gops/1")):
        for row in rows:
            # replay --db DB N replays the match that results --matches numbers N, of the same competition.
            verified = arena("replay", "--db", db, row["n"], "--verify", *choose, cwd=tmp_path)
            assert verified.returncode == 0, verified.stdout + verified.stderr
            assert f"verified: {row['log']} ({game}, seed {row['seed']})" in verified.stdout
    # The report numbers them so too: its match N links the replay page of results' match N.
    report = arena("results", db, "--html", "first.html", "--name", "first", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "first.html").read_text()
    assert "first: gops/1" in page
    for row in first:
        assert f'href="first-replays/{row["n"]}.html"' in page
        assert row["seed"] in (tmp_path / "first-replays" / f"{row['n']}.html").read_text()
    missing = arena("replay", "--db", db, str(len(latest) + 1), cwd=tmp_path)
    assert missing.returncode == 2 and "no match" in missing.stderr and "'second'" in missing.stderr
    both = arena("replay", "--db", db, "1", "--name", "first", "--tournament", "2", cwd=tmp_path)
    assert both.returncode == 2 and "not allowed with" in both.stderr
