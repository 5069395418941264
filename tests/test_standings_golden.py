"""The standings' outputs on fixed databases, compared with files kept in ``tests/golden/standings``.

Three databases, built here from fixed results (no bot runs): a tournament (five bots, draws, faults, a
disqualification, a persistent bot that faulted, a bot not admitted, a replaced version), a duplicate-deal
comparison (each deal played by two pairings: its board is drawn from the matches) and a server's ladder at two
tables. For each: ``arena results DB`` as a table, JSON, CSV and ``--history``, the HTML report's standings,
crosstable, faults, bots and matches, and for the server ``Competition.board().to_json()`` and ``ratings()``.
Times are replaced by ``<time>``; floats in JSON are rounded to 6 places (boards drawn from pair totals and from
matches agree to 1e-9, not to the last bit). ``ARENA_REGEN_GOLDEN=1`` rewrites the files (on purpose only).
"""

from __future__ import annotations

import json
import os
import random
import re
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.competition.store import FaultRow, PlayedMatch, Store

GOLDEN = Path(__file__).parent / "golden" / "standings"
REGEN = os.environ.get("ARENA_REGEN_GOLDEN") == "1"
_SHA = re.compile(r"sha [0-9a-f]{12}")
"""A house bot's hash (of its sample bot's files)."""
_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?")


def _normal(text: str) -> str:
    return _SHA.sub("sha <sha>", _TIME.sub("<time>", text))


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6) + 0.0
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _json(text: str, *, seed: bool = True) -> str:
    data = _rounded(json.loads(text))
    if not seed:  # (a server's seed is made secret at random)
        data["seed"] = "<seed>"
    return json.dumps(data, indent=1) + "\n"  # (in the order written: the order is output too)


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    text = _normal(text)
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    want = path.read_text(encoding="utf-8")
    assert text == want, f"{name} changed (if on purpose: ARENA_REGEN_GOLDEN=1)"


def _results(db: Path, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    capsys.readouterr()
    assert main(["results", str(db), *options]) == 0
    return capsys.readouterr().out


def _report(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp_path / "report.html"
    _results(db, capsys, "--html", str(out))
    html = out.read_text(encoding="utf-8")
    body = html[html.index('<section class="panel wide"><h2 id="h-standings">') : html.index("<script>")]
    return re.sub(r"<svg.*?</svg>", "<svg/>", body, flags=re.S).replace("><", ">\n<") + "\n"


def _outcome(rng: random.Random) -> tuple[str | None, tuple[float, float]]:
    roll = rng.random()
    if roll < 0.45:
        return "A", (float(rng.randint(3, 9)), float(rng.randint(0, 2)))
    if roll < 0.85:
        return "B", (float(rng.randint(0, 2)), float(rng.randint(3, 9)))
    even = float(rng.randint(0, 4))
    return None, (even, even)


def _match(
    key: str, deal: str, leg: int, a: tuple[str, int], b: tuple[str, int], rng: random.Random, cycle: int = 0
) -> PlayedMatch:
    winner, points = _outcome(rng)
    return PlayedMatch(
        key=key, cycle=cycle, deal=deal, leg=leg, bot_a=a[0], bot_b=b[0], seed=rng.getrandbits(63), points=points,
        winner=winner, duration_s=1.25, versions=(a[1], b[1]),
    )  # fmt: skip


def _faulted(match: PlayedMatch, seats: tuple[str, ...], kind: str) -> PlayedMatch:
    faults = tuple(FaultRow(seat, match.bot(seat), kind, f"{kind} in turn 3") for seat in seats)
    winner = None if len(seats) == 2 else ("B" if seats == ("A",) else "A")
    return PlayedMatch(
        key=match.key, cycle=match.cycle, deal=match.deal, leg=match.leg, bot_a=match.bot_a, bot_b=match.bot_b,
        seed=match.seed, points=(0.0, 0.0), winner=winner, forfeit=seats, faults=faults, duration_s=0.5,
        versions=match.versions,
    )  # fmt: skip


def tournament_db(path: Path) -> Path:
    """Five bots over three cycles of duplicate pairs: draws, faults, a disqualification, a replaced version."""
    rng = random.Random(37)
    with Store.open(path) as store:
        config = {"max_faults": 2, "points_name": "turns", "scheduled": 64, "params": {}}
        tid = store.create_competition(name="cup", seed=7, game="rps-poker/1", config=config).id
        ids: dict[str, int] = {}
        for slot, name in enumerate(("ann", "bob", "cat", "dan", "eve")):
            row = store.add_version(
                tid, name=name, slot=slot, command=("python", f"{name}.py"), source=name, digest=name * 13,
                process="persistent" if name == "cat" else "fresh",
            )  # fmt: skip
            refused = name == "eve"
            store.set_admission(
                row.id, "not_admitted" if refused else "admitted", "build failed\nmake: *** [all]" * refused
            )
            ids[name] = row.id
        playing = ["ann", "bob", "cat", "dan"]
        count = 0
        for cycle in range(3):
            if cycle == 1:  # bob's first version is replaced: its matches stay in the history only
                with store.transaction():
                    store.retire(ids["bob"], "changed")
                    row = store.add_version(
                        tid, name="bob", slot=1, command=("python", "bob.py"), source="bob", digest="b0b" * 13,
                        process="fresh",
                    )  # fmt: skip
                    store.set_admission(row.id, "admitted")
                ids["bob"] = row.id
                store.log_change(tid, "changed", "bob: version 2 (changed)", "bob")
            for a, b in combinations(playing, 2):
                deal = f"c{cycle}-{a}-vs-{b}"
                legs = 1 if (cycle, a, b) == (2, "ann", "dan") else 2
                for leg in range(legs):
                    first, second = (a, b) if leg == 0 else (b, a)
                    count += 1
                    match = _match(f"{deal}-l{leg}", deal, leg, (first, ids[first]), (second, ids[second]), rng, cycle)
                    if first == "dan" and cycle >= 1:
                        match = _faulted(match, ("A",), "crash" if leg else "timeout")
                    elif (cycle, deal, leg) == (0, "c0-cat-vs-dan", 0):
                        match = _faulted(match, ("A", "B"), "timeout")
                    elif (cycle, a, b, leg) == (1, "bob", "cat", 0):
                        match = _faulted(match, ("B",), "illegal")
                    store.record_match(tid, match)
    return path


def duplicate_db(path: Path) -> Path:
    """A comparison's deals: each deal played by NEW and by BASE against one reference bot (two pairings)."""
    rng = random.Random(38)
    with Store.open(path) as store:
        config = {"max_faults": 3, "points_name": "chips", "compare": {"verdict": "H1 accepted: new is stronger"}}
        tid = store.create_competition(name="new-vs-base", seed=11, game="rps-poker/1", config=config).id
        ids: dict[str, int] = {}
        for slot, name in enumerate(("new", "base", "ref1", "ref2")):
            row = store.add_version(
                tid, name=name, slot=slot, command=(name,), source=name, digest=name * 10, process="fresh"
            )
            store.set_admission(row.id, "admitted")
            ids[name] = row.id
        for number in range(9):
            deal = f"d{number}"
            ref = ("ref1", "ref2")[number % 2]
            leg = 0
            for side in ("new", "base"):
                for first, second in ((side, ref), (ref, side)):
                    match = _match(f"{deal}-{leg}", deal, leg, (first, ids[first]), (second, ids[second]), rng)
                    if (number, side, leg) == (4, "base", 2):
                        match = _faulted(match, ("A",), "timeout")
                    store.record_match(tid, match)
                    leg += 1
    return path


def _compare(db: Path, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _check(f"{name}.txt", _results(db, capsys))
    _check(f"{name}-wide.txt", _results(db, capsys, "--pairwise"))
    _check(f"{name}.json", _json(_results(db, capsys, "--format", "json")))
    _check(f"{name}.csv", _results(db, capsys, "--format", "csv"))
    _check(f"{name}-history.txt", _results(db, capsys, "--history"))
    _check(f"{name}-history.json", _json(_results(db, capsys, "--history", "--format", "json")))
    _check(f"{name}-points.json", _json(_results(db, capsys, "--rank-by", "points", "--format", "json")))
    _check(f"{name}-report.html", _report(db, tmp_path, capsys))


def test_a_tournament_s_standings_are_as_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    _compare(tournament_db(tmp_path / "cup.sqlite"), "tournament", tmp_path, capsys)


def test_a_duplicate_deal_comparison_s_standings_are_as_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    _compare(duplicate_db(tmp_path / "compare.sqlite"), "duplicate", tmp_path, capsys)


def test_a_server_s_ladder_standings_at_two_tables_are_as_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.competition.ladder import Tables
    from arena.server.config import load
    from arena.server.service import Competition

    from .servertools import write_config

    monkeypatch.setenv("COLUMNS", "100")
    house = ("minimal-python", "random-python", "simple-py", "basic-odds-py", "minimal-valid-py")
    config = load(write_config(tmp_path, house=house, extra="max_faults = 2", ladder='duplicate = "tables"'))
    rng = random.Random(39)
    competition = Competition(config)
    try:
        competition.add_house_bots()
        for version in competition.versions():
            competition.store.set_admission(version.id, "admitted")
        competition.field_changed()
        field = competition.field()
        labels = sorted(field)
        assert len(labels) == 5
        for number in range(12):
            a1, b1, a2, b2 = rng.sample(labels, 4)
            for match in Tables(a1, b1, a2, b2, number).matches(seed=1, field=field):
                winner, points = _outcome(rng)
                played = PlayedMatch(
                    key=match.key, cycle=0, deal=match.deal, leg=match.leg, bot_a=match.bot_a, bot_b=match.bot_b,
                    seed=match.seed, points=points, winner=winner, duration_s=2.0, versions=match.versions,
                )  # fmt: skip
                if number in (3, 7) and match.leg == 1:
                    played = _faulted(played, ("B",), "timeout")
                competition.store.record_match(competition.tid, played)
    finally:
        competition.close()
    competition = Competition(config)
    try:
        board = competition.board()
        data = board.to_json()
        data["as_of"] = 0.0
        _check("server-board.json", _json(json.dumps(data)))
        ratings = {label: [view.elo, view.error95] for label, view in competition.ratings().items()}
        _check("server-ratings.json", _json(json.dumps(ratings)))
        _check("server-field.json", json.dumps(sorted(competition.field())) + "\n")
    finally:
        competition.close()
    db = config.data_dir / "server.sqlite"
    _check("server.txt", _results(db, capsys))
    _check("server.json", _json(_results(db, capsys, "--format", "json"), seed=False))
    _check("server-history.txt", _results(db, capsys, "--history"))
