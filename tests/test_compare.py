"""``arena compare``: its schedule, how pairs are scored and followed, and the SPRT's verdict on real bots."""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest
import trio

from arena._errors import ConfigError
from arena.cli import main
from arena.competition.compare import (
    Comparison,
    Roles,
    board_score,
    check_roles,
    iter_compare_schedule,
    rounds_for,
)
from arena.competition.compare_cli import _unfinished
from arena.competition.config import BotEntry, TournamentConfig
from arena.competition.plan import Plan, open_competition, prepare
from arena.competition.runner import Summary, run_tournament
from arena.competition.schedule import Entrant, Scheduled, make_schedule
from arena.competition.sprt import NELO_PER_T, Sprt
from arena.competition.store import FaultRow, PlayedMatch, Store
from arena.sandbox import started_by
from arena.supervisor._pool import BotPool

from .conftest import REPO, SAMPLE_BOTS, recorded
from .inprocess import arena_here

H2H = Roles.named("new", "base")
FIELD = Roles.named("new", "base", "x", "y")


def played(s: Scheduled, winner: str | None, *faulty: str) -> PlayedMatch:
    """``s`` played, won by seat ``winner`` (``None``: a draw), with a fault of each bot in ``faulty``."""
    points = (5.0, 5.0) if winner is None else (7.0, 3.0) if winner == "A" else (3.0, 7.0)
    faults = tuple(FaultRow("A" if s.bot_a == bot else "B", bot, "timeout", "too slow") for bot in faulty)
    return PlayedMatch(key=s.key, cycle=s.cycle, deal=s.deal, leg=s.leg, bot_a=s.bot_a, bot_b=s.bot_b,
                       seed=s.seed, points=points, winner=winner, faults=faults)  # fmt: skip


def won_by(s: Scheduled, bot: str | None, *faulty: str) -> PlayedMatch:
    """``s`` played, won by ``bot`` (``None``: a draw)."""
    return played(s, None if bot is None else "A" if s.bot_a == bot else "B", *faulty)


# The schedule --------------------------------------------------------------------------
def test_head_to_head_plays_each_deal_twice_with_the_seats_swapped() -> None:
    schedule = list(iter_compare_schedule(H2H, seed=5, rounds=3))
    assert len(schedule) == 3 * H2H.matches_per_round == 6
    assert len({m.key for m in schedule}) == 6
    for first, second in zip(schedule[::2], schedule[1::2], strict=True):
        assert first.deal == second.deal and first.seed == second.seed
        assert (first.bot_a, first.bot_b, first.leg) == ("new", "base", 0)
        assert (second.bot_a, second.bot_b, second.leg) == ("base", "new", 1)
        assert (first.last_of_deal, second.last_of_deal) == (False, True)
    assert len({m.seed for m in schedule}) == 3
    # the deals a tournament of the same two slots plays, cycle by cycle
    tournament = make_schedule(["new", "base"], seed=5, cycles=3, duplicate=True)
    assert [(m.key, m.seed) for m in schedule] == [(m.key, m.seed) for m in tournament]


def test_against_a_field_new_and_base_meet_each_opponent_on_the_same_deal_in_the_same_seats() -> None:
    schedule = list(iter_compare_schedule(FIELD, seed=5, rounds=2))
    assert len(schedule) == 2 * FIELD.matches_per_round == 16
    by_deal: dict[str, list[Scheduled]] = {}
    for match in schedule:
        by_deal.setdefault(match.deal, []).append(match)
    assert len(by_deal) == 4
    for matches in by_deal.values():
        assert len({m.seed for m in matches}) == 1
        # no process may forget the deal before BASE's second board: the opponent played it against NEW
        assert [m.last_of_deal for m in matches] == [False, False, False, True]
        new = [m for m in matches if "new" in (m.bot_a, m.bot_b)]
        base = [m for m in matches if "base" in (m.bot_a, m.bot_b)]
        for n, b in zip(new, base, strict=True):
            assert n.leg == b.leg
            assert (n.bot_a == "new") == (b.bot_a == "base") == (n.leg == 0)
            assert {n.bot_a, n.bot_b} - {"new"} == {b.bot_a, b.bot_b} - {"base"}
    assert len({m.seed for m in schedule}) == 4


def test_deals_follow_places_so_a_new_version_replays_its_deals_and_base_s_matches_stay() -> None:
    before = list(iter_compare_schedule(FIELD, seed=5, rounds=2))
    v2 = Roles(Entrant("new", 0, version=2, version_id=7), FIELD.base, FIELD.opponents)
    after = list(iter_compare_schedule(v2, seed=5, rounds=2))
    assert [m.seed for m in before] == [m.seed for m in after]
    kept = {m.key for m in before} & {m.key for m in after}
    assert kept == {m.key for m in before if "base" in (m.bot_a, m.bot_b)}
    assert all(m.versions[m.leg] == 7 for m in after if m.bot(("A", "B")[m.leg]) == "new")
    renamed = Roles.named("newer", "older", "xx", "yy")
    assert [m.seed for m in iter_compare_schedule(renamed, seed=5, rounds=2)] == [m.seed for m in before]


def test_the_schedule_size_follows_max_matches_and_names_must_not_clash() -> None:
    assert rounds_for(H2H, 100) == 50 and rounds_for(FIELD, 100) == 12 and rounds_for(FIELD, 3) == 1
    with pytest.raises(ConfigError, match="different bots"):
        check_roles(Roles.named("a", "a"))
    with pytest.raises(ConfigError, match="same match key"):
        check_roles(Roles.named("n", "n-vs-x", "x", "x-vs-x"))  # c1-n-vs-x-vs-x-a: n against x-vs-x, and n-vs-x's


# Scoring pairs ---------------------------------------------------------------------
def test_a_board_goes_to_the_better_result() -> None:
    assert [board_score(n, b) for n, b in [("W", "D"), ("W", "W"), ("D", "L"), ("L", "D"), ("L", "L")]] == [
        1.0, 0.5, 1.0, 0.0, 0.5,
    ]  # fmt: skip


def test_head_to_head_pairs_count_new_s_two_results() -> None:
    comparison = Comparison(H2H, Sprt(elo0=0, elo1=50), rounds=4, seed=1)
    schedule = list(iter_compare_schedule(H2H, seed=1, rounds=4))
    winners = ["new", "new", "new", None, "base", "new", None, None]  # pairs: WW, WD, LW, DD
    lines = [line for s, w in zip(schedule, winners, strict=True) for line in comparison.add(won_by(s, w))]
    c = comparison.counts
    assert (c.ww, c.wd, c.wl, c.dd, c.ld, c.ll) == (1, 1, 1, 1, 0, 0)
    assert (c.wins, c.draws, c.losses) == (4, 3, 1)
    assert lines[0] == "Pair 1 of 4 (c1-new-vs-base): new W W against base: 2 of 2"
    assert lines[2] == "Pair 3 of 4 (c3-new-vs-base): new L W against base: 1 of 2"
    assert "Games 8: W-D-L 4-3-1  Ptnml(0-2) [0, 0, 2, 1, 1] (WL 1, DD 1)" in lines[-2]
    assert "Elo n too small (4 pairs)" in lines[-1] and "LLR" in lines[-1] and "(-2.94, 2.94) [0, 50] nElo" in lines[-1]
    assert comparison.finished and comparison.verdict is None and comparison.exit_code == 2


def test_against_a_field_each_seating_is_a_board_between_new_and_base() -> None:
    comparison = Comparison(FIELD, Sprt(elo0=0, elo1=50), rounds=1, seed=1)
    schedule = list(iter_compare_schedule(FIELD, seed=1, rounds=1))
    # against x: NEW wins in seat A, draws in seat B; BASE loses in seat A, draws in seat B -> boards W D
    # against y: NEW loses both; BASE wins in seat A, loses in seat B -> boards L D
    winners = ["new", None, "x", None, "y", "y", "base", "y"]
    lines = [line for s, w in zip(schedule, winners, strict=True) for line in comparison.add(won_by(s, w))]
    c = comparison.counts
    assert (c.wd, c.ld, c.pairs) == (1, 1, 2)
    assert lines[0] == "Pair 1 of 2 (c1-vs-x): new W D, base L D against x: new 1.5 of 2"
    assert lines[1] == "Pair 2 of 2 (c1-vs-y): new L L, base W L against y: new 0.5 of 2"
    assert "Boards 4: W-D-L 1-2-1" in lines[2]


def test_pairs_are_followed_in_schedule_order_whatever_order_matches_finish_in() -> None:
    rng = random.Random(3)
    schedule = list(iter_compare_schedule(FIELD, seed=9, rounds=6))
    results = [
        won_by(s, rng.choice(["new", "base", "x", "y", None]), *(["x"] if rng.random() < 0.1 else [])) for s in schedule
    ]
    in_order = Comparison(FIELD, Sprt(elo0=0, elo1=30), rounds=6, seed=9, every=3, max_faults=2)
    expected = [line for r in results for line in in_order.add(r)]
    assert in_order.banned and in_order.pairs_skipped  # x faulted three times: disqualified part of the way
    for _ in range(5):
        shuffled = results[:]
        rng.shuffle(shuffled)
        out_of_order = Comparison(FIELD, Sprt(elo0=0, elo1=30), rounds=6, seed=9, every=3, max_faults=2)
        assert [line for r in shuffled for line in out_of_order.add(r)] == expected
        assert out_of_order.llr == in_order.llr and out_of_order.counts == in_order.counts


def test_a_clearly_better_new_version_is_accepted_and_a_copy_rejected() -> None:
    test = Sprt(elo0=0, elo1=100)
    better = Comparison(H2H, test, rounds=500, seed=2)
    for s in iter_compare_schedule(H2H, seed=2, rounds=500):
        better.add(won_by(s, "new"))
        if better.finished:
            break
    assert better.verdict == "H1" and better.exit_code == 0 and better.pairs_done < 20
    assert better.verdict_line().startswith("H1 accepted after")
    # A deterministic copy: every pair splits, each seat winning once.
    copy = Comparison(H2H, test, rounds=500, seed=2)
    for s in iter_compare_schedule(H2H, seed=2, rounds=500):
        copy.add(played(s, "A" if s.seed % 2 else "B"))
        if copy.finished:
            break
    assert copy.verdict == "H0" and copy.exit_code == 1
    assert copy.counts.wl == copy.pairs_done
    assert copy.verdict_line().startswith("H0 accepted after")


def test_the_verdict_says_how_many_recorded_matches_it_did_not_count() -> None:
    comparison = Comparison(H2H, Sprt(elo0=0, elo1=100), rounds=500, seed=2)
    schedule = list(iter_compare_schedule(H2H, seed=2, rounds=500))
    for s in schedule:
        comparison.add(won_by(s, "new"))
        if comparison.finished:
            break
    counted = comparison.matches_counted
    assert comparison.verdict_line().startswith(f"H1 accepted after {counted // 2} pairs ({counted} matches):")
    comparison.recorded = counted + 3  # a pair and a leg past the verdict were in play, and recorded
    assert comparison.verdict_line().startswith(
        f"H1 accepted after {counted // 2} pairs ({counted} matches; 3 more recorded, in pairs it did not count):"
    )


def test_faults_disqualify_in_schedule_order_an_opponent_s_pairs_are_skipped_a_compared_bot_ends_the_test() -> None:
    schedule = list(iter_compare_schedule(FIELD, seed=1, rounds=2))
    comparison = Comparison(FIELD, Sprt(elo0=0, elo1=50), rounds=2, seed=1, max_faults=1)
    lines: list[str] = []
    for s in schedule:
        if "x" in (s.bot_a, s.bot_b) and s.cycle == 2:
            continue  # the runner no longer plays a disqualified bot
        lines += comparison.add(won_by(s, "new", *(["x"] if s.bot_a == "x" else [])))
    # x faults in seat A of NEW's and BASE's second boards: the second fault (pair 1's last match) is one too many
    assert comparison.banned == {"x": "2 faults, more than the 1 allowed (timeout x2)"}
    assert comparison.pairs_skipped == 2 and comparison.pairs_done == 2
    assert lines[0] == (
        "x was disqualified (2 faults, more than the 1 allowed (timeout x2)): its pairs from pair 1 on are not counted"
    )
    assert [line.split(":")[0] for line in lines[1:] if not line.startswith(" ")] == [
        "Pair 2 of 4 (c1-vs-y)",
        "Pair 4 of 4 (c2-vs-y)",
    ]
    alone = Comparison(Roles.named("new", "base", "x"), Sprt(), rounds=50, seed=1, max_faults=0)
    assert alone.add(won_by(next(iter_compare_schedule(alone.roles, seed=1, rounds=50)), "new", "x")) == [
        "x was disqualified (1 fault, more than the 0 allowed (timeout x1)): its pairs from pair 1 on are not counted"
    ]
    assert (
        alone.finished
        and "No verdict after 0 pairs (0 matches): every opponent was disqualified" in alone.verdict_line()
    )
    stopped = Comparison(FIELD, Sprt(elo0=0, elo1=50), rounds=2, seed=1, max_faults=0)
    assert stopped.add(won_by(schedule[1], "x", "new")) == [] and not stopped.finished  # not yet in order
    stopped.add(won_by(schedule[0], "new"))
    assert stopped.finished and stopped.exit_code == 2
    assert "No verdict after 0 pairs (0 matches): new was disqualified: 1 fault," in stopped.verdict_line()


# The command, with real bots -------------------------------------------------------
RPS = SAMPLE_BOTS / "rps-poker"


def compare(tmp_path: Path, *args: str, db: str = "c.sqlite", jobs: int = 2) -> subprocess.CompletedProcess[str]:
    """``arena compare rps-poker ARGS`` in this process (tests/inprocess.py); the run killed below is a process."""
    return arena_here(
        "compare", "rps-poker", *args, "--db", str(tmp_path / db), "--no-log", "--jobs", str(jobs), "--seed", "11",
        cwd=tmp_path,
    )  # fmt: skip


def wald_pairs(nelo: float, test: Sprt) -> float:
    """Wald's average number of pairs for a true normalized Elo ``nelo``: the bound over the LLR's drift per pair."""
    t, t0, t1 = (e * math.sqrt(2) / NELO_PER_T for e in (nelo, test.elo0, test.elo1))
    drift = (t1 - t0) * (t - (t0 + t1) / 2)
    return (test.upper if drift > 0 else test.lower) / drift


def pairs_played(out: str) -> int:
    return int(re.search(r"accepted after (\d+) pairs", out).group(1))  # type: ignore[union-attr]


@pytest.mark.slow
def test_a_better_bot_is_accepted_and_a_copy_rejected_within_the_expected_number_of_pairs(tmp_path: Path) -> None:
    test = Sprt(elo0=0, elo1=100)
    better = compare(tmp_path, str(RPS / "simple-py"), str(RPS / "random-python"), "--elo1", "100")
    assert better.returncode == 0, better.stdout + better.stderr
    assert "H1 accepted after" in better.stdout and "simple-py is better than random-python" in better.stdout
    # simple-py against random-python: some +350 nElo (a long run of this comparison measured it)
    assert pairs_played(better.stdout) <= 3 * wald_pairs(350, test)
    copy = compare(tmp_path, str(RPS / "simple-py"), str(RPS / "simple-py"), "--elo1", "100", db="copy.sqlite")
    assert copy.returncode == 1, copy.stdout + copy.stderr
    assert "H0 accepted after" in copy.stdout and "simple-py is not better than simple-py#2" in copy.stdout
    assert pairs_played(copy.stdout) <= 1.5 * wald_pairs(0, test)
    lines = copy.stdout.splitlines()
    assert lines[0].startswith("Compare simple-py (new) with simple-py#2 (base) on rps-poker")
    assert lines[lines.index(next(line for line in lines if line.startswith("SPRT: "))) + 1].startswith("Pair 1 of ")
    assert any(line.lstrip().startswith("Games ") for line in lines)


@pytest.mark.slow
def test_a_comparison_against_a_field_resumes_after_kill_9_and_ends_as_an_unbroken_run(tmp_path: Path) -> None:
    args = [str(RPS / "simple-py"), str(RPS / "minimal-python"), str(RPS / "random-python"), "--elo1", "100"]
    clean = compare(tmp_path, *args, db="clean.sqlite", jobs=1)
    assert clean.returncode in (0, 1), clean.stdout + clean.stderr
    db = tmp_path / "killed.sqlite"
    command = [sys.executable, "-m", "arena", "compare", "rps-poker", *args, "--db", str(db), "--no-log",
               "--jobs", "2", "--seed", "11"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while recorded(db) < 5:
            assert process.poll() is None, "the comparison ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    for proc in started_by(process.pid):
        with contextlib.suppress(psutil.Error):
            proc.kill()
    resumed = compare(tmp_path, *args, db="killed.sqlite", jobs=3)
    assert resumed.returncode == clean.returncode, resumed.stdout + resumed.stderr
    assert "Resuming: " in resumed.stdout
    # one match at a time, or two then killed then three: the same verdict after the same pairs, the same report
    # (matches of later pairs that were in play at three at once are recorded, and the verdict says how many)
    verdict = clean.stdout.splitlines()[-4:-1]

    def uncounted_left_out(lines: list[str]) -> list[str]:  # (how many more were recorded depends on timing)
        return [re.sub(r"; \d+ more recorded, in pairs it did not count\)", ")", line) for line in lines]

    ended = uncounted_left_out(resumed.stdout.splitlines())
    assert "accepted after" in verdict[-1] and ended[-4:-1] == verdict
    with Store.open(db) as store:
        (tournament,) = store.tournaments()
        keys = [m.key for m in store.matches(tournament.id)]
        assert tournament.config["format"] == "compare"
    assert len(keys) == len(set(keys))
    shown = subprocess.run(
        [sys.executable, "-m", "arena", "results", str(db), "--format", "json"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    board = json.loads(shown.stdout)
    assert f"arena compare: {verdict[-1]}" in uncounted_left_out(board["notes"])
    assert board["matches"] == board["scheduled"]
    assert {row["bot"] for row in board["standings"]} == {
        "simple-py", "minimal-python", "random-python",
    }  # fmt: skip


REMEMBERS = REPO / "tests" / "hostile" / "remembers-deals"


@pytest.mark.parametrize("jobs", [1, 3])
@pytest.mark.slow
def test_an_opponent_s_reused_process_never_meets_new_s_deal_again_against_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: int
) -> None:
    # remembers-deals exits with status 5 (a crash) when it is handed a deal it has played: against
    # NEW and then BASE on the same deal, a reused process that played NEW's board would know the cards.
    db = tmp_path / "r.sqlite"
    args = [str(RPS / "simple-py"), str(RPS / "random-python"), str(REMEMBERS), "--max-matches", "24"]
    status = main(["compare", "rps-poker", *args, "--db", str(db), "--no-log", "--seed", "4", "--jobs", str(jobs)])
    out = capsys.readouterr().out
    assert status == 2 and "No verdict after 6 pairs (24 matches)" in out, out
    with Store.open(db) as store:
        matches = store.matches(store.tournaments()[0].id)
    assert len(matches) == 24 and [f for m in matches for f in m.faults] == []


def bot_copy(tmp_path: Path, name: str) -> Path:
    copy = tmp_path / name
    shutil.copytree(RPS / name, copy)
    return copy


@pytest.mark.slow
def test_a_changed_new_is_tested_again_on_the_same_deals_and_base_s_matches_are_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = bot_copy(tmp_path, "simple-py")
    args = [str(new), str(RPS / "random-python"), str(RPS / "minimal-python"), "--max-matches", "8", "--jobs", "2"]
    args += ["--db", str(tmp_path / "r.sqlite"), "--no-log", "--seed", "6"]
    main(["compare", "rps-poker", *args])
    first = capsys.readouterr().out
    assert "new competition 'compare simple-py with random-python against minimal-python' (seed 6)" in first
    with (new / "bot.py").open("a") as handle:
        handle.write("# a change\n")
    main(["compare", "rps-poker", *args])
    again = capsys.readouterr().out
    assert re.search(r"simple-py changed \(sha \w{8}\.\. -> \w{8}\.\.\): its 4 matches will be played again", again)
    assert "Resuming: 0 pairs (4 matches) already played" in again  # BASE's, on the same deals: kept
    with Store.open(tmp_path / "r.sqlite") as store:
        (competition,) = store.tournaments()
        assert len(store.matches(competition.id)) == 12 and len(store.matches(competition.id, current=True)) == 8
    pairs = [line.split(": ", 1)[1] for line in first.splitlines() if line.startswith("Pair ")]
    pairs_again = [line.split(": ", 1)[1] for line in again.splitlines() if line.startswith("Pair ")]
    assert pairs == pairs_again  # the same bot, the same deals: the same boards


def test_persistent_bots_and_a_missing_base_are_refused_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", str(tmp_path / "r.sqlite")]
    for bots in ([RPS / "tsh-py", RPS / "simple-py"], [RPS / "simple-py", RPS / "random-python", RPS / "tsh-py"]):
        assert main(["compare", "rps-poker", *map(str, bots), *db]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("arena: error: tsh-py keeps state from match to match")
        assert "whose bot.toml says reuse = true" in err
    assert not (tmp_path / "r.sqlite").exists()
    with pytest.raises(SystemExit) as exit_:
        main(["compare", "rps-poker", str(RPS / "simple-py")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith("error: the following arguments are required: BASE\n")  # not the optional OPPONENT
    with pytest.raises(SystemExit):
        main(["tournament"])
    assert capsys.readouterr().err.endswith("required: CONFIG.toml|GAME\n")  # nor arena tournament's optional BOT


def test_a_new_version_that_crashes_is_disqualified_and_the_test_ends_without_a_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crashing = f"{sys.executable} {REPO / 'tests' / 'faulty' / 'bot.py'} exit_mid"
    args = [crashing, str(RPS / "random-python"), "--max-faults", "2", "--db", str(tmp_path / "r.sqlite"), "--no-log"]
    # Two at once in one process: which matches are under way when the bot is disqualified (and finish) depends
    # on how many are in flight; over two processes, each holds one more waiting its turn.
    assert main(["compare", "rps-poker", *args, "--seed", "3", "--jobs", "2", "--processes", "1"]) == 2
    out = capsys.readouterr().out
    # (the matches that finished after the third fault are recorded, and the verdict says how many it did not count)
    # (so are the matches of pairs whose first leg waited: one pair counted, or none when deal 1's first leg ended
    # after the third fault; see the test above)
    counted = r"(1 pair \(2 matches|0 pairs \(0 matches)(; \d+ more recorded, in pairs it did not count)?\)"
    assert re.search(rf"No verdict after {counted}: \S+ was disqualified: 3 faults, more than the 2", out), out


def test_a_run_that_disqualifies_a_compared_bot_before_its_first_pair_is_whole_ends_the_test_with_why() -> None:
    # At two at once the legs of one deal are not played together: deal 1's first leg was slow, both legs of deal 2
    # and deal 3's first ended before it, each with new's fault, and the run disqualified new at the third.
    schedule = list(iter_compare_schedule(H2H, seed=1, rounds=10))
    comparison = Comparison(H2H, Sprt(), rounds=10, seed=1, max_faults=2)
    for s in (schedule[2], schedule[3], schedule[4], schedule[0]):
        assert comparison.add(won_by(s, "base", "new")) == []  # pair 1 lacks its second leg: nothing counted
    assert not comparison.finished
    why = "3 faults, more than the 2 allowed (timeout x3)"
    summary = Summary(tournament_id=1, seed=1, scheduled=20, already_done=0, disqualified={"new": why})
    assert _unfinished(comparison, summary) == []
    assert comparison.finished and comparison.stopped == f"new was disqualified: {why}"
    comparison.recorded = 4
    assert comparison.verdict_line() == (
        "No verdict after 0 pairs (0 matches; 4 more recorded, in pairs it did not count):"
        f" new was disqualified: {why}."
    )
    # (with no compared bot disqualified, a pair left unplayed is one another arena on the database may yet play)
    other = Comparison(H2H, Sprt(), rounds=10, seed=1)
    other.add(won_by(schedule[0], "new"))
    _unfinished(other, Summary(tournament_id=1, seed=1, scheduled=20, already_done=0, left_to_others=1))
    assert other.stopped.startswith("a pair is incomplete (1 match left to another arena on this database)")
    # Against a field, an opponent the run disqualified before pair 1's last leg: its pairs are skipped, the
    # test goes on with the others' (a next run, starting from the faults recorded, would not play that leg).
    field = list(iter_compare_schedule(FIELD, seed=1, rounds=1))
    against = Comparison(FIELD, Sprt(), rounds=1, seed=1, max_faults=2)
    assert {field[0].bot_a, field[0].bot_b} & {"x"} and {field[4].bot_a, field[4].bot_b} & {"y"}
    for s in (*field[4:8], *field[0:2]):
        assert against.add(won_by(s, "new")) == []  # pair 1 (against x) lacks its last two legs
    summary = Summary(tournament_id=1, seed=1, scheduled=8, already_done=0, disqualified={"x": why})
    lines = _unfinished(against, summary)
    assert lines[0] == f"x was disqualified ({why}): its pairs from pair 1 on are not counted"
    assert lines[1].startswith("Pair 2 of 2 (c1-vs-y):")
    assert against.finished and not against.stopped and (against.pairs_done, against.pairs_skipped) == (1, 1)


def test_processes_forget_a_deal_only_when_every_match_on_it_has_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Legs finish in any order: when the second leg ends first, the first may still be taking its processes,
    # and one released by the second leg (which played the deal) must not look new to it.
    events: list[tuple[str, int]] = []
    monkeypatch.setattr(BotPool, "forget", lambda self, deal: events.append(("forget", deal)))

    class Executor:
        slots = 2

        async def __call__(self, scheduled: Scheduled, log_path: Path | None) -> PlayedMatch:
            await trio.sleep(0.3 if scheduled.leg == 0 else 0)  # the second leg ends first
            events.append(("end", scheduled.seed))
            return played(scheduled, "A")

    @contextlib.asynccontextmanager
    async def executor(plan: Plan, tid: int) -> AsyncIterator[Executor]:
        yield Executor()

    config = TournamentConfig(
        game="rps-poker",
        bots=[BotEntry(text=str(RPS / "minimal-python")), BotEntry(text=str(RPS / "random-python"))],
        cycles=3,
        seed=2,
        db=tmp_path / "r.sqlite",
        logs=False,
    )
    plan = prepare(config)
    with Store.open(config.db) as store:
        competition = open_competition(plan, store)
        trio.run(lambda: run_tournament(plan, store, competition, jobs=2, executor=executor))
    deals = {seed for _, seed in events}
    assert len(deals) == 3 and len(events) == 9
    for deal in deals:
        mine = [kind for kind, seed in events if seed == deal]
        assert mine == ["end", "end", "forget"], events
