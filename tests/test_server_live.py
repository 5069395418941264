"""The server as people run it: Hypercorn on a real socket, live updates, ``arena submit``, kill -9 and restart."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import random
import re
import signal
import socket
import sqlite3
import time
from pathlib import Path

import httpx
import psutil
import pytest
import trio

from arena.cli import main
from arena.competition.store import Store
from arena.sandbox import started_by
from arena.server.client import submit
from arena.server.config import load
from arena.server.serve import run_server
from arena.server.state import State

from .servertools import MINIMAL_BOT, minimal_bot, server_process, write_config

pytestmark = pytest.mark.slow
PART_HEAD = b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\n\r\n'


async def read_events(url: str, count: int) -> tuple[str, list[dict[str, object]]]:
    """The response head and the first ``count`` board events of ``/events``, read off a plain socket."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    stream = await trio.open_tcp_stream(host, int(port))
    async with stream:
        await stream.send_all(f"GET /events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        received = b""
        while received.count(b"event: board") < count or not received.rstrip().endswith(b"}"):
            chunk = await stream.receive_some(65536)
            assert chunk, "the server closed the event stream"
            received += chunk
    text = received.decode()
    head = text.split("\r\n\r\n", 1)[0]
    events = [json.loads(m) for m in re.findall(r"^event: board\ndata: (.*)$", text, re.MULTILINE)]  # (not state)
    return head, events[:count]


async def test_live_leaderboard_events_and_arena_submit_on_a_real_socket(tmp_path: Path) -> None:
    config = load(write_config(tmp_path))
    state = State(config.data_dir / "server.sqlite")
    _, token = state.add_participant("alice")
    state.close()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(run_server, config, jobs=2, say=lambda _t: None))
        with trio.fail_after(60):
            head, (first, second) = await read_events(url, 2)
        assert "content-type: text/event-stream" in head.lower()
        assert int(second["matches"]) > int(first["matches"])  # type: ignore[call-overload]
        # Each board says when its results were taken: not before the previous board's, not in the future.
        assert float(first["as_of"]) <= float(second["as_of"]) <= time.time()  # type: ignore[arg-type]
        assert "minimal-python" in str(second["html"])
        said: list[str] = []
        passed = await trio.to_thread.run_sync(lambda: submit(url, MINIMAL_BOT, token, say=said.append))
        assert passed, said
        assert said[0].startswith("submission 1: minimal-python.tar.gz") and said[-1] == "PASSED: version 1"
        assert any(line.startswith("PASS  legal moves") for line in said)
        nursery.cancel_scope.cancel()


def test_arena_submit_reports_a_wrong_token_and_a_failed_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    assert main(["serve", str(config), "--add", "alice"]) == 0
    token = capsys.readouterr().out.split("token: ")[1].split()[0]
    broken = tmp_path / "broken.py"
    broken.write_text("print('hello')\n")
    with server_process(config, ladder=False) as server:  # (refused uploads: no match)
        assert main(["submit", server.url, str(broken), "--token", "1.wrong"]) == 2
        assert "401" in capsys.readouterr().err
        assert main(["submit", server.url, str(broken), "--token", token]) == 1
        out = capsys.readouterr().out
        assert "FAIL  starts and answers its first request: invalid_json" in out and "FAILED" in out
        with httpx.Client(base_url=server.url, timeout=30) as client:
            try:
                big = client.post(
                    "/api/submissions",
                    headers={"authorization": f"Bearer {token}", "content-type": "multipart/form-data; boundary=b"},
                    content=iter([PART_HEAD] + [b"x" * (1 << 20)] * 64),
                )
            except httpx.WriteError:  # the server answered and closed before the client finished sending
                pass
            else:
                assert big.status_code == 413


def _bots_of(pid: int) -> list[psutil.Process]:
    return started_by(pid)


def _workers_of(pid: int) -> list[psutil.Process]:
    """The match workers of the server ``pid``."""
    found = []
    for child in psutil.Process(pid).children():
        with contextlib.suppress(psutil.Error):
            if "arena.competition.worker" in " ".join(child.cmdline()):
                found.append(child)
    return found


def _alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    return [p for p in processes if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_kill_9_at_random_moments_loses_nothing_and_plays_nothing_twice(tmp_path: Path) -> None:
    config = write_config(tmp_path, house=("minimal-python", "random-python", "simple-py"), uploads="check_matches = 1")
    rng = random.Random(os.getpid())
    added = []
    for name in ("alice", "bob"):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert main(["serve", str(config), "--add", name]) == 0
        added.append(out.getvalue().split("token: ")[1].split()[0])
    alice, bob = added
    cookies: dict[str, str] = {}
    submissions: list[int] = []
    seen_matches = 0
    for round_ in range(3):
        with server_process(config) as server, httpx.Client(base_url=server.url, timeout=30) as client:
            client.cookies.update(cookies)
            if round_ == 0:
                page = client.get("/login")
                csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
                assert client.post("/login", data={"token": alice, "csrf": csrf}).status_code == 303
                cookies = dict(client.cookies)
            assert client.get("/me").status_code == 200, f"the session did not survive restart {round_}"
            standings = client.get("/api/standings").json()
            assert standings["matches"] >= seen_matches
            seen_matches = standings["matches"]
            uploader = alice if round_ % 2 == 0 else bob
            response = (
                None
                if round_ == 2
                else client.post(
                    "/api/submissions",
                    headers={"authorization": f"Bearer {uploader}"},
                    files={"file": ("bot.tar.gz", minimal_bot())},
                )
            )
            if response is not None and response.status_code == 201:
                submissions.append(response.json()["id"])
            time.sleep(rng.uniform(0.5, 4.0))
            workers = _workers_of(server.process.pid)
            assert len(workers) == (0 if os.environ.get("ARENA_TEST_SERVER_WORKERS") == "0" else 1), workers
            os.kill(server.process.pid, signal.SIGKILL)  # the server alone: its worker and bots must die with it
            server.process.wait()
            pids = [server.process.pid, *(w.pid for w in workers)]
            deadline = time.monotonic() + 10
            while (any(_bots_of(pid) for pid in pids) or _alive(workers)) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not _alive(workers), "the match worker outlived the killed server"
            assert not any(_bots_of(pid) for pid in pids), "bot processes outlived the killed server"
    with server_process(config) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        client.cookies.update(cookies)
        assert client.get("/me").status_code == 200
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            states = [
                client.get(f"/api/submissions/{s}", headers={"authorization": f"Bearer {t}"}).json()
                for s, t in zip(submissions, [alice, bob] * 4, strict=False)
            ]
            if all(s["done"] for s in states):
                break
            time.sleep(0.5)
        assert [s["status"] for s in states] == ["passed"] * len(submissions), states
        time.sleep(2)
    db = sqlite3.connect(tmp_path / "data" / "server.sqlite")
    keys = [row[0] for row in db.execute("SELECT match_key FROM matches")]
    assert len(keys) == len(set(keys)) and len(keys) >= seen_matches
    for deal, legs, seeds in db.execute(
        "SELECT deal, GROUP_CONCAT(leg), COUNT(DISTINCT seed) FROM matches GROUP BY deal"
    ):
        assert sorted(legs.split(",")) in (["0"], ["1"], ["0", "1"]), deal
        assert seeds == 1
    versions = db.execute(
        "SELECT COUNT(*) FROM entries e JOIN participants p ON p.id = e.participant_id WHERE NOT p.is_house"
    ).fetchone()[0]
    assert versions == len(submissions)
    db.close()


def test_add_refuses_the_organisers_and_house_bots_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path)
    assert main(["serve", str(config), "--admin-token"]) == 0
    admin = capsys.readouterr().out.split("token: ")[1].split()[0]
    assert main(["serve", str(config), "--add", "organiser"]) == 2
    assert "is the organiser or a house bot" in capsys.readouterr().err
    assert main(["serve", str(config), "--add", "bad name!"]) == 2
    state = State(tmp_path / "data" / "server.sqlite")
    try:
        assert state.by_token(admin) is not None  # the organiser's token still works
    finally:
        state.close()


def test_a_change_of_rules_is_refused_and_another_name_is_another_competition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    assert main(["serve", str(config), "--add", "alice"]) == 0
    write_config(tmp_path, extra="[limits]\nmove_s = 0.5")
    capsys.readouterr()
    assert main(["serve", str(config), "--add", "bob"]) == 2
    said = capsys.readouterr().err
    assert re.search(r"was begun with other rules \(limits\.move_s [\d.]+ -> 0\.5\)", said), said
    assert str(tmp_path / "data" / "server.sqlite") in said
    assert ".." not in said
    assert main(["serve", str(config), "--name", "Faster ladder", "--add", "bob"]) == 0
    store = Store.open(tmp_path / "data" / "server.sqlite", readonly=True)
    try:
        assert [t.name for t in store.tournaments()] == ["Test ladder", "Faster ladder"]
    finally:
        store.close()


def test_a_port_in_use_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Another server on the port (`mkdocs serve` also takes 8000) gets a line saying what to do, no traceback."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", str(write_config(tmp_path)), "--port", str(port), "--in-process"]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"arena: error: cannot serve on 127.0.0.1:{port}: Address already in use; ")
    assert "--port" in said and "Traceback" not in said and len(said.splitlines()) == 1
