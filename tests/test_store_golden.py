"""Golden answers of the database's readers (the results store, the server's records, the log retention) on a
fixed database this test builds through the real recording path: what each returns, times, paths and this
process's id normalised. A change of any answer shows in the diff; on purpose, regenerate with

    ARENA_REGEN_STORE_GOLDEN=1 .venv/bin/python -m pytest tests/test_store_golden.py -n 0
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import json
import os
import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.competition.store import FaultRow, PlayedMatch, Store
from arena.server import retention
from arena.server.state import State

GOLDEN = Path(__file__).resolve().parent / "golden" / "store_readers.json"
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00")
_LOGS = re.compile(r'"[^"]*/logs/')
_FINGERPRINT = re.compile(r"competition-[0-9a-f]{16}")
WRITTEN = GOLDEN.with_suffix(".sqlite")
"""A database :func:`build` wrote with the code of 2026-11-28 (before the database layer): it must open, migrate
and answer the same."""


def _match(
    key: str, deal: str, leg: int, versions: tuple[int, int], names: tuple[str, str], **more: Any
) -> PlayedMatch:
    base: dict[str, Any] = {
        "key": key,
        "cycle": 1,
        "deal": deal,
        "leg": leg,
        "bot_a": names[0],
        "bot_b": names[1],
        "seed": 1000 + len(key) * 7 + leg,
        "points": (6.0, 4.0),
        "winner": "A",
        "versions": versions,
    }
    base.update(more)
    return PlayedMatch(**base)


def build(tmp: Path) -> Path:
    """A server's database as a ladder leaves it: versions (one replaced, one not admitted), matches of pairs and of
    deals at two tables with faults, forfeits and logs, participants, sessions, submissions, ratings, pins."""
    path = tmp / "server.sqlite"
    logs = tmp / "logs"
    logs.mkdir()
    with Store.open(path) as store:
        state = State(store)
        tid = store.create_competition(name="ladder", seed=7, game="rps-poker/1", config={"scheduled": 4}).id
        vids: dict[str, int] = {}
        for slot, name in enumerate(("ann", "bob", "cat", "dan", "eve")):
            v = store.add_version(
                tid, name=name, slot=slot, command=("python3", f"{name}.py"), source=name, digest=f"d-{name}",
                process="persistent" if name == "dan" else "fresh",
            )  # fmt: skip
            vids[name] = v.id
            store.set_admission(v.id, "not_admitted" if name == "eve" else "admitted", "no" if name == "eve" else "")
        store.log_change(tid, "added", "ann, bob, cat, dan added", bot="")
        arena = store.register_arena()
        store.heartbeat(arena)
        names = ("ann", "bob", "cat", "dan")
        number = 0
        for i, first in enumerate(names):
            for second in names[i + 1 :]:
                for n in range(2):
                    number += 1
                    deal = f"{first}~{second}~{n}"
                    pair = (vids[first], vids[second])
                    for leg in range(2):
                        log = logs / f"{deal}-{leg}.jsonl.gz"
                        log.write_bytes(b"x" * (100 + 13 * number + leg))
                        seats = pair if leg == 0 else pair[::-1]
                        seat_names = (first, second) if leg == 0 else (second, first)
                        extra: dict[str, Any] = {"points": (float(number % 5), float((number + leg) % 3))}
                        extra["winner"] = None if number % 4 == 0 else ("A" if (number + leg) % 3 else "B")
                        if number % 5 == 2 and leg == 1:
                            extra["winner"], extra["forfeit"], extra["reason"] = "A", ("B",), "B timed out"
                            extra["faults"] = (FaultRow("B", seat_names[1], "timeout", "no answer in 2 s", 4, "play"),)
                        if number % 7 == 3:
                            extra["faults"] = (FaultRow("A", seat_names[0], "illegal_move", "not a card", 2, "play"),)
                        key = f"{deal}-{leg}"
                        store.claim_match(tid, key, arena)
                        store.record_match(
                            tid,
                            _match(key, deal, leg, seats, seat_names, log_path=str(log), duration_s=0.5, **extra),
                            arena=arena,
                        )
        for n in range(2):  # deals at two tables
            deal = f"ann~bob~cat~dan~{n}"
            for leg, (a, b) in enumerate((("ann", "bob"), ("cat", "dan"))):
                store.record_match(
                    tid,
                    _match(f"{deal}-{leg + 1}", deal, leg, (vids[a], vids[b]), (a, b), winner="AB"[(n + leg) % 2]),
                )
        store.claim_match(tid, "ann~bob~9-0", arena)
        store.claim_bot(tid, vids["dan"], arena)
        store.retire(vids["cat"], "changed")
        cat2 = store.add_version(
            tid, name="cat", slot=2, command=("python3", "cat2.py"), source="cat", digest="d-cat2", process="fresh"
        )
        vids["cat.v2"] = cat2.id
        store.set_admission(cat2.id, "admitted")
        store.log_change(tid, "changed", "cat changed", bot="cat")
        store.record_match(tid, _match("ann~cat.v2~0-0", "ann~cat.v2~0", 0, (vids["ann"], cat2.id), ("ann", "cat")))
        store.update_config(tid, {"scheduled": 6})

        admin, _ = state.add_participant("organiser", admin=True)
        alice, _ = state.add_participant("alice")
        bobby, _ = state.add_participant("Bobby")
        house = state.ensure_house("house")
        state.set_disqualified(bobby.id, "copied a bot")
        state.set_awaiting(alice.id, True)
        state.set_awaiting(bobby.id, False)
        state.new_session(alice.id)
        sub = state.add_submission(alice.id, filename="ann.zip", language="python", size=1234)
        state.update_submission(sub, status="passed", message="ok", report=[{"step": "build", "ok": True}])
        state.update_submission(sub, folder="bots/ann-1", digest="d-ann")
        queued = state.add_submission(bobby.id, filename="b.tar.gz", language="rust", size=99)
        state.update_submission(queued, status="checking")
        for name, owner in (("ann", alice.id), ("bob", bobby.id), ("cat", house.id), ("dan", admin.id)):
            state.add_entry(vids[name], owner, submission_id=sub if name == "ann" else None, folder=f"bots/{name}")
        for count in (4, 12, 20, 26):
            state.add_ratings(count, [(vid, 1500.0 + vid * 3 + count, 40.0 / count) for vid in vids.values()])
        state.add_ratings(30, [(vids["ann"], 1600.0, float("nan"))])
        state.set_setting("paused", "1")
    with contextlib.closing(retention.connect(path)) as db:
        retention.catch_up(db)
        retention.pin(db, tid, 3, alice.id, cap=5)
        retention.pin(db, tid, 9, admin.id, cap=None)
        retention.unpin(db, 9, None)
    return path


def _plain(value: Any) -> Any:
    """``value`` as JSON: dataclasses as dicts, tuples as lists, keys as strings; NaN as a string."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, PlayedMatch):
            out["row_id"] = value.row_id
        return out
    if isinstance(value, dict):
        return {str(_plain(k)) if not isinstance(k, str) else k: _plain(v) for k, v in sorted(value.items(), key=str)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=str)
    if isinstance(value, float) and value != value:
        return "nan"
    return value


def answers(path: Path) -> dict[str, Any]:
    """Every reader's answer on the database at ``path``."""
    out: dict[str, Any] = {}

    def ask(name: str, call: Callable[[], Any]) -> None:
        out[name] = _plain(call())

    with Store.open(path) as store:
        state = State(store)
        tid = store.latest("ladder").id  # type: ignore[union-attr]
        vids = {v.label: v.id for v in store.versions(tid)}
        ann, dan = vids["ann"], vids["dan"]
        ask("schema_version", store.schema_version)
        ask("latest", lambda: store.latest("ladder"))
        ask("latest missing", lambda: store.latest("nope"))
        ask("tournament", lambda: store.tournament(tid))
        ask("tournament latest", store.tournament)
        ask("tournaments", store.tournaments)
        ask("bots", lambda: store.bots(tid))
        ask("versions", lambda: store.versions(tid))
        ask("versions current", lambda: store.versions(tid, current=True))
        ask("version", lambda: store.version(ann))
        ask("labels", lambda: [v.label for v in store.versions(tid)] + [v.current for v in store.versions(tid)])
        ask("changes", lambda: store.changes(tid))
        ask("finished_keys", lambda: store.finished_keys(tid))
        ask("match_keys", lambda: list(store.match_keys(tid)))
        ask("count_matches", lambda: [store.count_matches(tid), store.count_matches(tid, current=True)])
        ask("points", lambda: store.points(tid))
        ask("count_matches_of", lambda: {label: store.count_matches_of(tid, vid) for label, vid in vids.items()})
        ask("fault_counts", lambda: store.fault_counts(tid))
        ask("log_bytes", lambda: store.log_bytes(tid))
        ask("all_versioned", lambda: store.all_versioned(tid))
        ask("pair_totals", lambda: store.pair_totals(tid))
        ask("pair_totals among", lambda: store.pair_totals(tid, among=[ann, dan, vids["bob"]]))
        ask("pair_totals_of", lambda: store.pair_totals_of([(ann, dan), (dan, ann), (ann, ann)]))
        ask("pair_totals_since", lambda: store.pair_totals_since(tid, 20))
        ask("table_totals", lambda: store.table_totals(tid))
        ask("table_totals_since", lambda: store.table_totals_since(tid, 0))
        ask("table_seats", lambda: store.repos.tables.seats(tid, vids.values()))
        tables = store.repos.tables  # (rowids apart: an older database's differ, its rows were replaced)
        ask("table_arrays", lambda: [a.tolist() for a in tables.arrays_since(tid, -1)[0][1:]])
        among = vids.values()
        ask("table_arrays among", lambda: [a.tolist() for a in tables.arrays_since(tid, -1, among=among)[0][1:]])
        ask("opponents", lambda: store.opponents(ann))
        ask("fault_totals", lambda: store.fault_totals(tid))
        ask("latest_faults", lambda: store.latest_faults(tid, [ann, dan], 3))
        ask("match", lambda: store.match(tid, "ann~bob~1-1"))
        ask("match missing", lambda: store.match(tid, "nope"))
        ask("has_match", lambda: [store.has_match(tid, "ann~bob~1-1"), store.has_match(tid, "nope")])
        ask("latest_matches", lambda: store.latest_matches(tid, 5))
        ask("latest_matches before", lambda: [m.key for m in store.latest_matches(tid, 4, before=10)])
        ask("latest_matches of", lambda: [m.key for m in store.latest_matches(tid, 6, versions=[ann])])
        for result in ("won", "drew", "lost"):
            ask(
                f"latest_matches {result}",
                lambda r=result: [  # type: ignore[misc]
                    m.key for m in store.latest_matches(tid, 9, versions=[ann], opponents=[vids["bob"], dan], result=r)
                ],
            )
        ask("matches", lambda: [m.key for m in store.matches(tid)])
        ask("matches current", lambda: [m.key for m in store.matches(tid, current=True)])
        ask("finished_times", lambda: store.finished_times(tid, store.matches_of_keys(tid, ["ann~bob~0-0", "nope"])))
        ask("holders", lambda: store.holders(tid))
        ask("claim recorded", lambda: store.claim_match(tid, "ann~bob~0-0", 999))
        ask("participants", state.participants)
        ask("participant", lambda: state.participant(2))
        ask("participant_named", lambda: [state.participant_named("bobby"), state.participant_named("nobody")])
        ask("admin_exists", state.admin_exists)
        ask("by_token bad", lambda: [state.by_token("2.wrong"), state.by_token("x")])
        ask("awaiting", lambda: [state.awaiting(2), state.awaiting(3), state.awaiting_ids()])
        ask("invite_valid", lambda: state.invite_valid("nope"))
        ask("session bad", lambda: state.session("nope", max_age_s=60))
        ask("submission", lambda: state.submission(1))
        ask("submissions", state.submissions)
        ask("submissions of", lambda: state.submissions(2, limit=1))
        # (a window of ten years: the file written before the layer is hours or months old when this runs)
        ask("recent_uploads", lambda: state.recent_uploads(2, within_s=10 * 365 * 86400))
        ask("unfinished_submissions", state.unfinished_submissions)
        ask("entries", state.entries)
        ask("rating_history", lambda: state.rating_history(ann))
        ask("rating_dates", lambda: state.rating_dates(ann))
        ask("settings", lambda: [state.setting("paused"), state.setting("frozen", "no")])
    with contextlib.closing(retention.connect(path)) as db:
        ask("log state", lambda: [retention.state_of(db, mid) for mid in (1, 3, 9, 999)])
        ask("past_keep", lambda: retention.past_keep(db, tid, 1))
        ask("over_budget", lambda: retention.over_budget(db, tid, 1000))
    return out


def normalised(found: dict[str, Any], tmp: Path) -> str:
    text = json.dumps(found, indent=1, sort_keys=True)
    text = _LOGS.sub('"<tmp>/logs/', _TIME.sub("<time>", text))
    text = _FINGERPRINT.sub("competition-<random>", text)
    text = text.replace(f'"host": "{socket.gethostname()}"', '"host": "<host>"')
    return text.replace(f'"pid": {os.getpid()}', '"pid": "<pid>"') + "\n"


def test_every_reader_answers_as_before(tmp_path: Path) -> None:
    path = build(tmp_path)
    found = normalised(answers(path), tmp_path)
    if os.environ.get("ARENA_REGEN_STORE_GOLDEN"):
        GOLDEN.write_text(found, encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8")
    if found != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), found.splitlines(True), "golden", "now", n=2))
        raise AssertionError(f"a reader's answer changed (on purpose: see this module's docstring):\n{diff[:6000]}")


def test_a_database_written_before_the_database_layer_migrates_and_answers_the_same(tmp_path: Path) -> None:
    copy = tmp_path / "server.sqlite"
    copy.write_bytes(WRITTEN.read_bytes())
    if os.environ.get("ARENA_REGEN_STORE_GOLDEN_DB"):
        WRITTEN.write_bytes(build(tmp_path / "new").read_bytes())
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    found = json.loads(normalised(answers(copy), tmp_path))
    assert found.pop("holders") == {}  # the arena that wrote it is gone: its claims are free
    assert found == {k: v for k, v in expected.items() if k != "holders"}


def test_a_database_written_by_this_code_reads_the_same_after_reopening(tmp_path: Path) -> None:
    """The same answers twice from one file: nothing a reader does writes what another reads."""
    path = build(tmp_path)
    assert normalised(answers(path), tmp_path) == normalised(answers(path), tmp_path)
