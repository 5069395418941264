"""A server answers its pages while its match worker starts (a Python start: half a second or more, paid at each
``arena serve``), and its ladder begins once the worker is up: checked with a worker whose start is held on a FIFO
until the test lets it go, never by timing."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import trio

from arena.competition import worker
from arena.server.config import load
from arena.server.serve import run_server

from .servertools import write_config

STARTING = "starting: the ladder begins once its match worker is up"


@pytest.mark.slow
async def test_pages_are_served_while_the_match_worker_starts_and_the_ladder_begins_once_it_is_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold = tmp_path / "hold"
    os.mkfifo(hold)
    spawned: list[subprocess.Popen[bytes]] = []

    def held_worker(*, session: bool) -> subprocess.Popen[bytes]:
        """The real worker's command, run once a line comes through the FIFO ``hold``."""
        command = [sys.executable, "-c", worker.WORKER_MAIN, str(os.getpid())]
        process = subprocess.Popen(
            ["sh", "-c", 'read line < "$0" && exec "$@"', str(hold), *command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=session,
        )
        spawned.append(process)
        return process

    monkeypatch.setattr(worker, "spawn_worker", held_worker)
    config = load(write_config(tmp_path, extra="workers = 1"))
    async with trio.open_nursery() as nursery:
        with trio.fail_after(60):  # the old server listened only once its worker was up: never, here
            url = await nursery.start(functools.partial(run_server, config, jobs=2, say=lambda _text: None))
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            page = await client.get("/")
            assert page.status_code == 200 and STARTING in page.text
            assert (await client.get("/api/standings")).json()["matches"] == 0
            assert (await client.get("/live")).status_code == 200
            async with events_of(url) as events:  # what the page's script is told
                data = await events.next()
                assert data["starting"] is True and data["in_play"] == 0
                assert len(spawned) == 1 and spawned[0].poll() is None  # the worker is still held

                await trio.to_thread.run_sync(hold.write_text, "go\n")
                with trio.fail_after(120):
                    data = await events.next()
                assert data["starting"] is False
            with trio.fail_after(120):
                while STARTING in (await client.get("/")).text:
                    await trio.sleep(0.05)
                while (await client.get("/api/standings")).json()["matches"] < 2:
                    await trio.sleep(0.1)
            assert len(spawned) == 1  # the held worker is the one that plays
        nursery.cancel_scope.cancel()


class Events:
    """A page's live stream, read off the socket (it never ends)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.received = b""

    async def next(self) -> dict[str, object]:
        """The next event's data."""
        while (found := re.search(rb"\ndata: (\{.*\})\n", self.received)) is None:
            chunk = await self.stream.receive_some()
            if not chunk:
                raise AssertionError(f"the event stream ended: {self.received!r}")
            self.received += chunk
        self.received = self.received[found.end() :]
        data: dict[str, object] = json.loads(found.group(1))
        return data


@contextlib.asynccontextmanager
async def events_of(url: str) -> AsyncIterator[Events]:
    """``url``'s ``/events``."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    async with await trio.open_tcp_stream(host, int(port)) as stream:
        await stream.send_all(b"GET /events HTTP/1.1\r\nHost: arena\r\n\r\n")
        yield Events(stream)
