"""Living competitions: a field that changes between runs, bots not admitted, persistent bots, several arenas."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import trio

from arena.cli import main
from arena.competition.config import BotEntry, TournamentConfig
from arena.competition.plan import open_competition, prepare
from arena.competition.runner import run_tournament
from arena.competition.store import Store
from arena.supervisor.matchlog import read_log
from protocol import Limits

from .conftest import SAMPLE_BOTS

RPS = SAMPLE_BOTS / "rps-poker"
FAST = Limits(startup_s=10.0, move_s=1.0, time_bank_s=2.0, move_wall_s=5.0)


def bots_in(tmp_path: Path, *names: str) -> dict[str, Path]:
    """Copies of sample bots the test may change."""
    out = {}
    for name in names:
        out[name] = tmp_path / "bots" / name
        shutil.copytree(RPS / name, out[name])
    return out


def tournament(db: Path, *bots: Path, extra: tuple[str, ...] = ()) -> list[str]:
    return [
        "tournament", "rps-poker", *map(str, bots), "--db", str(db), "--log-dir", str(db.parent / "logs"),
        "--jobs", "2", "--quiet", "--move-time", "1", *extra,
    ]  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], args: list[str], status: int = 0) -> str:
    assert main(args) == status, capsys.readouterr()
    captured = capsys.readouterr()
    return captured.out + captured.err


def played(out: str) -> int:
    found = re.search(r"Played (\d+) matches", out)
    assert found, out
    return int(found.group(1))


def results(db: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(run(capsys, ["results", str(db), "--format", "json", *extra]))
    return data


@pytest.mark.slow
def test_adding_changing_and_removing_bots_plays_only_the_matches_that_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = bots_in(tmp_path, "minimal-python", "random-python", "simple-py")
    db = tmp_path / "r.sqlite"
    a, b, c = bots["minimal-python"], bots["random-python"], bots["simple-py"]

    out = run(capsys, tournament(db, a, b, extra=("--seed", "9")))
    assert "new competition 'rps-poker round-robin' (seed 9)" in out and played(out) == 2

    out = run(capsys, tournament(db, a, b, c))  # a bot joins: only its pairings are played
    assert "added simple-py: 4 new matches\nresuming: 2 of 6 recorded" in out and played(out) == 4

    with (b / "bot.py").open("a") as handle:
        handle.write("# a change\n")
    out = run(capsys, tournament(db, a, b, c))  # a bot changes: its matches are played again
    assert re.search(r"random-python changed \(sha \w{8}\.\. -> \w{8}\.\.\): its 4 matches will be played again", out)
    assert "resuming: 2 of 6 recorded" in out and played(out) == 4
    board = results(db, capsys)
    assert board["matches"] == board["scheduled"] == 6

    out = run(capsys, tournament(db, b, c))  # a bot leaves: retired, nothing to play
    assert "removed minimal-python: retired; its 6 recorded matches stay in the history" in out
    assert "nothing new to play: all 2 matches are recorded" in out and played(out) == 0
    board = results(db, capsys)
    assert sorted(s["bot"] for s in board["standings"]) == ["random-python", "simple-py"]  # type: ignore[attr-defined]
    assert board["matches"] == 2

    out = run(capsys, tournament(db, a, b, c))  # it comes back unchanged: its results against the field stand
    assert "minimal-python is back, unchanged" in out
    assert "nothing new to play: all 6 matches are recorded" in out and played(out) == 0

    history = results(db, capsys, "--history")
    assert sorted(s["bot"] for s in history["standings"]) == [  # type: ignore[attr-defined]
        "minimal-python", "random-python", "random-python.v2", "simple-py",
    ]  # fmt: skip
    assert history["matches"] == 10  # 2 + 4 + 4 played; nothing since
    text = run(capsys, ["results", str(db), "--history"])
    assert "random-python: sha" in text and "retired (changed)" in text and "random-python.v2: sha" in text
    assert "added simple-py: 4 new matches" in text
    keys = run(capsys, ["results", str(db), "--history", "--matches"])
    assert "c1-minimal-python-vs-random-python.v2-a" in keys and "c1-minimal-python-vs-random-python-a" in keys


@pytest.mark.slow
def test_a_change_of_game_parameters_limits_format_or_seed_is_refused_and_fresh_starts_anew(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = bots_in(tmp_path, "minimal-python", "random-python")
    db = tmp_path / "r.sqlite"
    args = tournament(db, *bots.values(), extra=("--seed", "5"))
    assert played(run(capsys, args)) == 2
    for change, said in [
        (["--move-time", "1.5"], "limits.move_s 1.0 -> 1.5"),
        (["--no-duplicate"], "duplicate deals on -> off"),
        (["--seed", "6"], "seed 5 -> 6"),
    ]:
        out = run(capsys, [*args, *change], status=2)
        assert said in out and "--fresh" in out and "--name" in out, out
    out = run(capsys, [*args, "--fresh"])  # --fresh with the same seed: a new competition, played in full
    assert "Competition 'rps-poker round-robin' (tournament 2 " in out and played(out) == 2
    out = run(capsys, [*args, "--move-time", "1.5", "--name", "slower"])  # or another name
    assert "new competition 'slower' (seed 5)" in out and played(out) == 2
    listed = run(capsys, ["results", str(db), "--list"])
    assert len(listed.splitlines()) == 3
    assert results(db, capsys, "--name", "rps-poker round-robin")["matches"] == 2


@pytest.mark.slow
def test_a_bot_that_fails_to_build_is_not_admitted_shown_with_why_and_tried_again_when_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = bots_in(tmp_path, "minimal-python", "random-python")
    bad = tmp_path / "bots" / "bad-build"
    bad.mkdir()
    (bad / "bot.py").write_text((RPS / "minimal-python" / "bot.py").read_text())
    (bad / "bot.toml").write_text(
        'run = "python3 bot.py"\nbuild = "sh -c \'echo compiling...; echo error: no such thing >&2; exit 2\'"\n'
    )
    db = tmp_path / "r.sqlite"
    args = tournament(db, bad, *bots.values())
    out = run(capsys, args)
    assert "not admitted: bad-build: " in out and "build failed with exit status 2" in out
    assert played(out) == 2  # everyone else played
    assert re.search(r"Not admitted \(tried again when their files change\):\n  bad-build: .*exit status 2", out)
    assert "error: no such thing" in out.split("Not admitted", 1)[1]
    board = results(db, capsys)
    assert list(board["not_admitted"]) == ["bad-build"]  # type: ignore[call-overload]
    assert "bad-build" not in {s["bot"] for s in board["standings"]}  # type: ignore[attr-defined]

    out = run(capsys, args)  # unchanged: not built again
    assert "bad-build is not admitted (unchanged since: " in out and "building" not in out and played(out) == 0

    (bad / "bot.toml").write_text('run = "python3 bot.py"\nreuse = true\n')  # fixed
    out = run(capsys, args)
    assert "bad-build changed" in out and "not admitted" not in out and played(out) == 4
    assert results(db, capsys)["not_admitted"] == {}


@pytest.mark.slow
def test_a_bot_that_cannot_answer_its_first_request_is_not_admitted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = bots_in(tmp_path, "minimal-python", "random-python")
    mute = tmp_path / "bots" / "mute"
    mute.mkdir()
    (mute / "bot.py").write_text("import sys\nsys.stderr.write('I only read\\n')\nfor line in sys.stdin:\n    pass\n")
    (mute / "bot.toml").write_text('run = "python3 bot.py"\n')
    db = tmp_path / "r.sqlite"
    out = run(capsys, tournament(db, mute, *bots.values(), extra=("--startup-time", "1")))
    assert "not admitted: mute: did not pass the handshake: timeout" in out and played(out) == 2
    assert "I only read" in out  # the end of its stderr is part of why


@pytest.mark.parametrize("duplicate", [True, False])
@pytest.mark.slow
def test_persistent_bots_give_the_same_results_at_any_jobs(tmp_path: Path, duplicate: bool) -> None:
    folders = [RPS / "tsh-py", RPS / "basic-odds-py", RPS / "simple-py", RPS / "random-python"]

    def play(jobs: int) -> tuple[list[tuple[object, ...]], set[str]]:
        config = TournamentConfig(
            game="rps-poker",
            bots=[BotEntry(text=str(f)) for f in folders],
            cycles=2,
            seed=77,
            duplicate_deals=duplicate,
            limits=FAST,
            db=tmp_path / f"jobs{jobs}.sqlite",
            log_dir=tmp_path / f"logs{jobs}",
        )
        plan = prepare(config)
        assert plan.specs["tsh-py"].persistent and plan.specs["basic-odds-py"].persistent  # as their originals
        with Store.open(config.db) as store:
            competition = open_competition(plan, store)
            trio.run(lambda: run_tournament(plan, store, competition, jobs=jobs))
            matches = store.matches(competition.id)
        rows = sorted((m.key, m.seed, m.points, m.winner, m.forfeit) for m in matches)
        processes = {  # the stderr file of each process that played tsh-py: one per process
            bot["stderr_log"]
            for m in matches
            for bot in read_log(Path(m.log_path or ""))[0]["bots"]
            if bot["name"] == "tsh-py"
        }
        return rows, processes

    one, _ = play(1)
    four, processes = play(4)
    assert len(one) == 6 * 2 * (2 if duplicate else 1)
    assert one == four
    assert len(processes) == 1, processes  # one process played all of tsh-py's matches
    seeds = [(key, seed) for key, seed, *_ in one if "tsh-py" in key]
    assert len({seed for _, seed in seeds}) == len(seeds), "a persistent bot met a deal twice"


@pytest.mark.slow
def test_two_arenas_on_one_database_never_play_a_match_twice(tmp_path: Path) -> None:
    config = TournamentConfig(
        game="rps-poker",
        bots=[BotEntry(text=str(RPS / b)) for b in ("minimal-python", "random-python", "simple-py")],
        cycles=2,
        seed=3,
        limits=FAST,
        db=tmp_path / "shared.sqlite",
        logs=False,
    )
    plan = prepare(config)

    async def both() -> list[int]:
        counts: list[int] = []

        async def arena() -> None:
            with Store.open(config.db) as store:
                competition = open_competition(plan, store)
                summary = await run_tournament(plan, store, competition, jobs=1)
                counts.append(summary.played)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(arena)
            nursery.start_soon(arena)
        return counts

    counts = trio.run(both)
    with Store.open(config.db, readonly=True) as store:
        keys = [m.key for m in store.matches(1)]
        assert len(store.tournaments()) == 1
    assert len(keys) == len(set(keys)) == 12
    assert sum(counts) == 12 and min(counts) > 0, counts


def test_matches_played_in_the_same_second_keep_a_log_each(tmp_path: Path) -> None:
    from arena import play_match, resolve
    from arena.games import get_game

    specs = (resolve(str(RPS / "minimal-python")), resolve(str(RPS / "random-python")))
    paths: list[Path] = []

    async def four() -> None:
        async def one() -> None:
            record = await play_match(get_game("rps-poker"), specs, seed=1, limits=FAST, log_dir=tmp_path)
            assert record.log_path is not None
            paths.append(record.log_path)

        async with trio.open_nursery() as nursery:
            for _ in range(4):
                nursery.start_soon(one)

    trio.run(four)
    assert len(set(paths)) == 4
    for path in paths:
        assert read_log(path)[0]["seed"] == 1 and "minimal-python-vs-random-python-1" in path.name
    assert len(list(tmp_path.glob("*.jsonl"))) == 4 and len(list(tmp_path.glob("*.stderr.log"))) == 8


@pytest.mark.slow
def test_a_deals_file_deals_the_same_cards_to_every_pairing_and_cannot_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deals = tmp_path / "deals.txt"
    deals.write_text("# two fixed deals\n1111\n\n2222  # the second\n")
    bots = [RPS / "minimal-python", RPS / "random-python", RPS / "simple-py"]
    db = tmp_path / "r.sqlite"
    args = tournament(db, *bots, extra=("--deals", str(deals)))
    out = run(capsys, args)
    assert "2 cycle(s)" in out and f"deals from {deals}" in out and played(out) == 3 * 2 * 2
    with Store.open(db, readonly=True) as store:
        seeds = {(m.cycle, m.seed) for m in store.matches(1)}
    assert seeds == {(1, 1111), (2, 2222)}  # every pairing of a cycle on the same deal
    deals.write_text("3333\n")
    out = run(capsys, args, status=2)
    assert "deals file sha " in out and "--fresh" in out
    out = run(capsys, [*tournament(db, RPS / "tsh-py", *bots[:2], extra=("--deals", str(deals), "--fresh"))], 2)
    assert "tsh-py keeps state from match to match" in out and "without --deals" in out
    deals.write_text("12 monkeys\n")
    assert f"{deals}:1: a deal is an integer seed" in run(capsys, [*args, "--fresh"], status=2)


@pytest.mark.slow
def test_recheck_tries_a_bot_that_was_not_admitted_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "needs-tool"
    bad.mkdir()
    (bad / "bot.py").write_text((RPS / "minimal-python" / "bot.py").read_text())
    (bad / "bot.toml").write_text('run = "python3 bot.py"\nbuild = "sh -c \'test -e /nonexistent-tool\'"\n')
    args = tournament(tmp_path / "r.sqlite", bad, RPS / "minimal-python", RPS / "random-python")
    assert "not admitted: needs-tool" in run(capsys, args)
    assert "needs-tool is not admitted (unchanged since" in run(capsys, args)
    out = run(capsys, [*args, "--recheck"])  # built again, and refused again (the tool is still missing)
    assert "not admitted: needs-tool: bot 'needs-tool': build" in out


def test_the_leaderboard_says_a_persistent_bot_lost_its_state_after_a_fault(tmp_path: Path) -> None:
    from arena.competition.render import render
    from arena.competition.results import board_from_store
    from arena.competition.store import FaultRow, PlayedMatch

    with Store.open(tmp_path / "r.sqlite") as store:
        row = store.create_competition(name="c", seed=1, game="rps-poker/1", config={"max_faults": 5})
        ids = []
        for slot, (name, process) in enumerate((("keeper", "persistent"), ("other", "reused"))):
            version = store.add_version(
                row.id, name=name, slot=slot, command=("x",), source=name, digest=name, process=process
            )
            store.set_admission(version.id, "admitted")
            ids.append(version.id)
        fault = FaultRow("A", "keeper", "timeout", "slow")
        store.record_match(
            row.id,
            PlayedMatch(key="k", cycle=1, deal="d", leg=0, bot_a="keeper", bot_b="other", seed=1,
                        points=(0, 10), winner="B", forfeit=("A",), faults=(fault,), versions=(ids[0], ids[1])),
        )  # fmt: skip
        text = render(board_from_store(store), "table")
    assert "keeper keeps its state from match to match (persistent): after each of its faults a fresh" in text
    assert "other keeps" not in text
