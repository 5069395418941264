"""Every server page's HTML and every API answer, on a fixed data folder, against files in tests/golden/web/.

The test builds a competition's data folder as the server would have left it
(house bots; participants with a retired version, a version playing, a
disqualified one, an upload that failed its check, one refused at unpacking;
duplicate pairs recorded with a match log; a game of a person against a bot)
without playing anything, then fetches each page as the public, a participant
and the organiser. Times, tokens, CSRF values and random ids are replaced by
placeholders. A change to what a page says shows as a diff here; when it is
meant, write the files again and review them:

    ARENA_GOLDEN_WRITE=1 .venv/bin/python -m pytest tests/test_server_golden.py -n 0 -q
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arena.bots.spec import hash_path, load_folder
from arena.competition.plan import enter_version
from arena.competition.records import FaultRow
from arena.competition.store import PlayedMatch
from arena.server.config import load
from arena.server.human import ALLOWED, HumanGame
from arena.server.service import Competition
from arena.server.web import create_app

from .servertools import RPS, write_config

GOLDEN = Path(__file__).parent / "golden" / "web"
MATCH_LOG = Path(__file__).parent / "golden" / "rps-poker-seed7.jsonl"
WRITE = os.environ.get("ARENA_GOLDEN_WRITE") == "1"

PASSED_REPORT = [
    {"name": "build", "passed": True, "detail": "built", "where": []},
    {"name": "handshake", "passed": True, "detail": "answered hello", "where": []},
]
FAILED_REPORT = [
    {"name": "build", "passed": True, "detail": "built", "where": []},
    {"name": "handshake", "passed": False, "detail": "no answer within 10 s", "where": ["checks/s3/handshake.log"]},
]


def _upload(c: Competition, owner: str, bot: str, *, status: str, message: str, report: list[dict[str, object]]) -> int:
    """A submission of ``owner``'s whose files are sample bot ``bot``, checked with ``status``; its version id."""
    who = c.state.participant_named(owner)
    assert who is not None
    sid = c.state.add_submission(who.id, filename=f"{bot}.tar.gz", language="", size=1234)
    folder = c.bots_dir / owner / f"s{sid}" / "bot"
    shutil.copytree(RPS / bot, folder)
    c.state.update_submission(sid, folder=str(folder), digest=hash_path(folder))
    spec = load_folder(folder, source=f"{bot}.tar.gz")
    row = enter_version(c.store, c.tid, owner, spec)
    c.state.add_entry(row.id, who.id, submission_id=sid, folder=str(folder))
    c.catalogue.forget()
    c.state.update_submission(sid, status=status, report=report, message=message)
    return row.id


def _match(
    c: Competition, key: str, a: tuple[str, int], b: tuple[str, int], points: tuple[float, float], **more: object
) -> None:
    log = c.logs / f"{key}.jsonl"
    shutil.copyfile(MATCH_LOG, log)
    winner = None if points[0] == points[1] else "A" if points[0] > points[1] else "B"
    deal, _, leg = key.rpartition("-")
    played = PlayedMatch(
        key=key, cycle=0, deal=deal, leg="ab".index(leg), bot_a=a[0], bot_b=b[0], seed=7, points=points,
        winner=winner, duration_s=1.5, peak_rss=(5_000_000, 6_000_000), log_path=str(log), versions=(a[1], b[1]),
        **more,  # type: ignore[arg-type]
    )  # fmt: skip
    assert c.store.record_match(c.tid, played)
    c._recorded(played)


def build(folder: Path) -> tuple[Competition, dict[str, str]]:
    """The fixed competition, and the tokens of ``alice`` (a participant) and of the organiser."""
    c = Competition(load(write_config(folder, server="human_games = 2")))
    c.add_house_bots()
    for version in c.versions():
        c.store.set_admission(version.id, "admitted")
    tokens = {name: c.state.add_participant(name)[1] for name in ("alice", "bob", "carol", "dave")}
    admin = c.participants.admin_token()
    assert admin is not None
    tokens["admin"] = admin
    first = _upload(c, "alice", "minimal-python", status="passed", message="version 1", report=PASSED_REPORT)
    c.store.set_admission(first, "admitted")
    second = _upload(c, "alice", "random-python", status="passed", message="version 2", report=PASSED_REPORT)
    c.store.set_admission(second, "admitted")
    c.store.retire(first, "changed")
    bobs = _upload(c, "bob", "minimal-python", status="passed", message="version 1", report=PASSED_REPORT)
    c.store.set_admission(bobs, "admitted")
    carols = _upload(c, "carol", "minimal-python", status="failed", message="handshake", report=FAILED_REPORT)
    c.store.set_admission(carols, "not_admitted", "did not pass arena check: handshake\nhandshake: no answer")
    dave = c.state.participant_named("dave")
    assert dave is not None
    refused = c.state.add_submission(dave.id, filename="junk.zip", language="", size=10)
    c.state.update_submission(refused, status="refused", message="not a .tar.gz or .zip archive")
    c.catalogue.forget()
    house = {v.label: v.id for v in c.versions() if v.row.name in ("minimal-python", "random-python")}
    _match(c, "p1-a", ("alice", first), ("minimal-python", house["minimal-python"]), (7.0, 3.0))
    _match(c, "p1-b", ("minimal-python", house["minimal-python"]), ("alice", first), (5.0, 5.0))
    _match(c, "p2-a", ("alice.v2", second), ("bob", bobs), (2.0, 8.0))
    _match(c, "p2-b", ("bob", bobs), ("alice.v2", second), (4.0, 6.0))
    _match(
        c, "p3-a", ("bob", bobs), ("random-python", house["random-python"]), (0.0, 10.0), forfeit=("A",),
        reason="bob: timeout", faults=(FaultRow("A", "bob", "timeout", "no answer within 2 s"),),
    )  # fmt: skip
    _match(c, "p4-a", ("alice.v2", second), ("random-python", house["random-python"]), (6.0, 4.0))
    bob = c.state.participant_named("bob")
    assert bob is not None
    c.disqualify(bob, "shared a bot with alice")
    alice = c.state.participant_named("alice")
    assert alice is not None
    c.state.set_setting(ALLOWED.format(alice.id), "1")
    return c, tokens


def human_game(c: Competition, app: object) -> None:
    alice = c.state.participant_named("alice")
    assert alice is not None
    log = c.logs / "human" / "game.jsonl"
    log.parent.mkdir(exist_ok=True)
    shutil.copyfile(MATCH_LOG, log)
    game = HumanGame(
        id="g1", player=alice.id, bot="random-python", seat=0, lines=["Round 1: you hold R1 S5", "You won."],
        over=True, log_path=log, seed=7,
    )  # fmt: skip
    app.state.human.games[game.id] = game  # type: ignore[attr-defined]


PAGES = [
    "/", "/login", "/register", "/me", "/submissions/1", "/submissions/3", "/submissions/5",
    "/bots/alice", "/bots/bob", "/bots/carol", "/bots/dave", "/bots/minimal-python", "/bots/nobody",
    "/bots/alice/v1/files", "/bots/alice/v1/files/bot.py", "/bots/alice/v1/files/nothing.py",
    "/bots/alice/v2/build.log", "/bots/carol/v1/files",
    "/matches/p1-a", "/matches/p1-a/replay", "/matches/p1-a/log", "/matches/p3-a", "/matches/p4-a",
    "/matches/p4-a/replay", "/matches/p4-a/log", "/matches/nothing",
    "/live", "/tv", "/tv/data", "/matches/p1-a/live",
    "/bots/alice/play", "/play/g1", "/play/g1/replay", "/play/g1/table",
    "/admin",
    "/api/standings", "/api/bots", "/api/bots/alice", "/api/bots/bob", "/api/bots/carol", "/api/bots/nobody",
    "/api/matches", "/api/matches?limit=2", "/api/matches?bot=alice", "/api/matches/p1-a", "/api/matches/p3-a",
    "/api/matches/nothing", "/api/submissions", "/api/submissions/1", "/api/submissions/3",
]  # fmt: skip
VIEWERS = ("public", "alice", "admin")

# Each: what varies from run to run, and what stands for it.
NORMAL = [
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r'name="csrf" value="[^"]+"'), 'name="csrf" value="<csrf>"'),
    (re.compile(r'(data-csrf|"csrf")(=|: ?)"[^"]+"'), r'\1\2"<csrf>"'),
    (re.compile(r"/static/([\w.-]+?)\.[0-9a-f]{8,}\.(\w+)"), r"/static/\1.<hash>.\2"),
    (re.compile(r"(\?v=|integrity=\"sha\d+-)[\w+/=-]+"), r"\1<hash>"),
    (re.compile(r"/login/[\w-]{16,}"), "/login/<code>"),
    (re.compile(r"/register\?invite=[\w-]+"), "/register?invite=<code>"),
    (re.compile(r"\b\d+(\.\d+)? (s|min|h|days?) ago\b"), "<ago>"),
    (re.compile(r"\b1[6-9]\d{8}(\.\d+)?\b"), "<time>"),  # seconds since 1970
]


def normal(text: str, folder: Path) -> str:
    text = text.replace(str(folder), "<data>").replace(str(RPS), "<rps>")
    for pattern, placeholder in NORMAL:
        text = pattern.sub(placeholder, text)
    return text


def _rounded(value: object) -> object:
    """``value`` (decoded JSON) with its numbers to 10 significant digits, and those within 1e-9 of zero as 0: a
    rating fit's last bits are the machine's (numpy's BLAS takes another path on another CPU: 50.57521798915908 on
    one, 50.5752179891591 on an AMD EPYC; a rating of 0 came out as -1.6e-15 or 1.0e-15)."""
    if isinstance(value, float):
        return 0.0 if abs(value) < 1e-9 else float(f"{value:.10g}")
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    return value


def answer(response: httpx.Response, folder: Path) -> str:
    kind = response.headers.get("content-type", "")
    head = f"{response.status_code} {kind}\n"
    if "location" in response.headers:
        head += f"location: {normal(response.headers['location'], folder)}\n"
    body = response.text
    if kind.startswith("application/json"):
        body = json.dumps(_rounded(response.json()), indent=1, sort_keys=True)
    return head + "\n" + normal(body, folder) + "\n"


def slug(viewer: str, path: str) -> str:
    return viewer + re.sub(r"[^\w.-]+", "_", path).rstrip("_") + ".txt"


@pytest.fixture
def data(tmp_path: Path) -> Iterator[tuple[Competition, dict[str, str], Path]]:
    c, tokens = build(tmp_path)
    try:
        yield c, tokens, tmp_path
    finally:
        c.close()


async def _client(app: object, viewer: str, tokens: dict[str, str]) -> httpx.AsyncClient:
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")  # type: ignore[arg-type]
    if viewer != "public":
        page = await client.get("/login")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf, page.text
        login = await client.post("/login", data={"token": tokens[viewer], "csrf": csrf.group(1)})
        assert login.status_code == 303, login.text
        client.headers["authorization"] = f"Bearer {tokens[viewer]}"
    return client


@pytest.mark.slow
async def test_every_page_and_api_answer_is_as_before(data: tuple[Competition, dict[str, str], Path]) -> None:
    c, tokens, folder = data
    app = create_app(c)
    human_game(c, app)
    found: dict[str, str] = {}
    for viewer in VIEWERS:
        client = await _client(app, viewer, tokens)
        try:
            for path in PAGES:
                found[slug(viewer, path)] = answer(await client.get(path), folder)
        finally:
            await client.aclose()
    if WRITE:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        GOLDEN.mkdir(parents=True)
        for name, text in found.items():
            (GOLDEN / name).write_text(text, encoding="utf-8")
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(found), "pages added or gone: write the files again"
    changed = []
    for name, text in found.items():
        expected = (GOLDEN / name).read_text(encoding="utf-8")
        if text != expected:
            diff = difflib.unified_diff(expected.splitlines(True), text.splitlines(True), "golden", "now", n=1)
            changed.append(f"{name}:\n{''.join(diff)[:1500]}")
    assert not changed, f"{len(changed)} answers changed:\n" + "\n".join(changed)[:6000]
