"""The server never exits on load (issue 36, item 4): a flood of connections under the common 1,024-descriptor
limit, and JSON bodies nested 100,000 deep, cost the sender, never the process."""

from __future__ import annotations

import contextlib
import re
import selectors
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio

from arena.server._clients import client_address, parse_networks
from arena.server._listen import Budget

from .servertools import HTTP, running, server_process, write_config

DEEP = b'{"name": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
"""Nested 100,000 deep (200 kB: over the size an API body may have)."""
DEEP_SMALL = b'{"name": ' + b"[" * 30_000 + b"]" * 30_000 + b"}"
"""Nested 30,000 deep in 60 kB: refused for its shape (the standard library's parser raised RecursionError)."""


def test_the_connection_budget_keeps_a_reserve_of_descriptors() -> None:
    budget = Budget.of(1024)
    assert (budget.connections, budget.reserve, budget.per_address) == (768, 256, 96)
    assert Budget.of(65536).reserve == 16384
    assert Budget.of(64).connections == 16  # a tiny limit still serves someone


def test_a_forwarded_address_is_believed_only_from_a_trusted_proxy() -> None:
    proxies = parse_networks(["10.0.0.0/8", "127.0.0.1"])
    assert client_address("203.0.113.5", "198.51.100.7", proxies) == "203.0.113.5"  # a client's own header
    assert client_address("127.0.0.1", "198.51.100.7", proxies) == "198.51.100.7"
    # The client's words are on the left; the right-most untrusted hop is who reached the proxies.
    assert client_address("10.1.2.3", "1.1.1.1, 198.51.100.7, 10.0.0.9", proxies) == "198.51.100.7"
    assert client_address("127.0.0.1", "", proxies) == "127.0.0.1"
    assert client_address("127.0.0.1", "not-an-address", proxies) == "127.0.0.1"
    assert client_address("127.0.0.1", "198.51.100.7", ()) == "127.0.0.1"  # no proxies configured: never read


async def test_a_deeply_nested_or_oversized_json_body_is_a_400_with_a_reason(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), paused=True) as kit:
        organiser = kit.competition.participants.admin_token()
        headers = {"authorization": f"Bearer {organiser}", "content-type": "application/json"}
        deep = await kit.client.post("/api/admin/disqualify", headers=headers, content=DEEP_SMALL)
        assert deep.status_code == 400
        assert "must be a JSON object of strings" in deep.json()["error"]
        deeper = await kit.client.post("/api/admin/disqualify", headers=headers, content=DEEP)
        assert deeper.status_code == 400 and "larger than" in deeper.json()["error"]
        big = await kit.client.post("/api/admin/pause", headers=headers, content=b'{"a": "' + b"x" * 70_000 + b'"}')
        assert big.status_code == 400 and "larger than" in big.json()["error"]
        broken = await kit.client.post("/api/admin/pause", headers=headers, content=b"{nope")
        assert broken.status_code == 400 and "must be JSON" in broken.json()["error"]
        # A string that is not UTF-8 (msgspec raised UnicodeDecodeError for it before 0.23, a 500 here).
        latin = await kit.client.post("/api/admin/pause", headers=headers, content=b'{"reason": "caf\xe9"}')
        assert latin.status_code == 400 and "must be JSON" in latin.json()["error"]
        assert (await kit.client.post("/api/admin/pause", headers=headers, content=b"{}")).status_code == 200


async def test_a_ladder_that_settled_every_pair_says_it_is_idle_once(tmp_path: Path) -> None:
    # Its one pair's budget played, the ladder waits for a new version: the server's output says so (a settled
    # ladder was silent, and a test's flood looked like the reason it stopped).
    said: list[str] = []
    config = write_config(tmp_path, ladder="placement_pairs = 0\npair_budget = 2")
    async with running(config, jobs=1, say=said.append) as kit:
        with trio.fail_after(120):
            while not any(line.startswith("ladder: idle") for line in said):
                await trio.sleep(0.05)
        assert kit.competition.played == 4  # two pairs, two legs each
        kit.competition.results_changed()  # woken with nothing new to play: not said again
        await trio.sleep(0.2)
    idle = [line for line in said if line.startswith("ladder: idle")]
    assert idle == [
        "ladder: idle, every pair of the 2 versions playing is settled (ratings apart, or pair_budget played);"
        " it plays again when the field changes"
    ], said


def matches_recorded(data: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{data / 'server.sqlite'}?mode=ro", uri=True)) as db:
        return int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])


@contextlib.contextmanager
def flood(url: str, sources: list[str], count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections asking for ``/events``, spread over the loopback ``sources``; closed on leaving.

    Once five connections in a row are not taken within a second, the server and the kernel's queue before it
    are full: the flood stops there (every later one would wait as long).
    """
    host, port = url.removeprefix("http://").rsplit(":", 1)
    opened: list[socket.socket] = []
    waited = 0
    try:
        for number in range(count):
            if waited >= 5:
                break
            sock = socket.socket()
            opened.append(sock)
            sock.settimeout(1)
            sock.bind((sources[number % len(sources)], 0))
            try:
                sock.connect((host, int(port)))
                sock.sendall(f"GET /events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
                waited = 0
            except TimeoutError:
                waited += 1
        yield opened
    finally:
        for sock in opened:
            sock.close()


def first_lines(streams: list[socket.socket], *, timeout: float = 60) -> list[bytes]:
    """The first line each connection received (``b""``: closed before a word), read all at once."""
    got: dict[socket.socket, bytes] = {}
    with selectors.DefaultSelector() as selector:
        for sock in streams:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while len(got) < len(streams) and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=1):
                ready = key.fileobj
                if not isinstance(ready, socket.socket):
                    continue
                try:
                    got[ready] = ready.recv(4096).split(b"\r\n", 1)[0]
                except OSError:
                    got[ready] = b""
                selector.unregister(ready)
    assert len(got) == len(streams), f"{len(streams) - len(got)} connections heard nothing"
    return list(got.values())


def answers(server_url: str) -> httpx.Response:
    """A normal request from 127.0.0.1 (the floods come from other loopback addresses), on a new connection."""
    with httpx.Client(base_url=server_url, timeout=60) as client:
        return client.get("/api/standings")


@pytest.mark.slow
def test_the_server_survives_1000_streams_under_a_512_descriptor_limit_and_answers_after(tmp_path: Path) -> None:
    # Every pair is a placement pair (and the budget is never spent): the ladder never settles its one pair, so it
    # plays for as long as the test runs. With placement_pairs = 1, random-python and minimal-python's ratings
    # drew apart after a few dozen pairs in some runs (the competition's seed is random) and the ladder went idle
    # by design ("every pair is settled"), before or during the flood: no match came in 300 s, in CI.
    config = write_config(tmp_path, ladder="placement_pairs = 100000\npair_budget = 100000")
    data = tmp_path / "data"
    with server_process(config, prefix=("prlimit", "--nofile=512:512", "--")) as server:
        said = "".join(server.output)
        budget = re.search(r"connections: at most (\d+) at once \((\d+) from one address\)", said)
        assert budget is not None, said
        assert (int(budget.group(1)), int(budget.group(2))) == (256, 32)

        # One address opens 1,000 streams (twice the descriptors the server may hold): it gets its 32, the rest
        # are told why and closed; others get in.
        with flood(server.url, ["127.0.0.2"], 1000) as streams:
            assert len(streams) > 512
            firsts = first_lines(streams)
            assert firsts.count(b"HTTP/1.1 200 ") == 32
            assert firsts.count(b"HTTP/1.1 429 Too Many Requests") >= len(streams) - 32 - 10  # (a few: reset)
            assert answers(server.url).status_code == 200
            deep = HTTP.post(f"{server.url}/api/admin/pause", content=DEEP, timeout=60)
            assert deep.status_code in (400, 401)  # (no token: refused before the body, or the body refused)

        # Twenty addresses open 50 streams each: the server holds its cap, the ladder and its background work go
        # on (the disk watch and the standings open files every few seconds), and nothing exits.
        before = matches_recorded(data)
        with flood(server.url, [f"127.0.1.{n}" for n in range(1, 21)], 1000):
            deadline = time.monotonic() + 300
            while matches_recorded(data) < before + 20:
                assert server.process.poll() is None, "".join(server.output)
                assert time.monotonic() < deadline, (before, matches_recorded(data), "".join(server.output))
                time.sleep(0.2)
            assert server.process.poll() is None, "".join(server.output)
        assert answers(server.url).status_code == 200
        assert server.process.poll() is None
        assert "Traceback" not in "".join(server.output)
