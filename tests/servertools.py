"""Helpers for the competition server's tests: configs, a running competition, an ASGI client, bot archives."""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import trio

from arena.competition.store import PlayedMatch
from arena.server.config import load
from arena.server.service import Competition
from arena.server.web import create_app

from .conftest import SAMPLE_BOTS

RPS = SAMPLE_BOTS / "rps-poker"
SLOW_BOT = Path(__file__).parent / "bots" / "slow-python"
"""An RPS Poker bot that takes 0.4 s a move: its matches last long enough to be watched while they are played."""
MINIMAL_BOT = RPS / "minimal-python"
STARTING = ">starting: "
"""The leaderboard's status line while the ladder is yet to begin (its match worker starting)."""

PLAYS_ON = "placement_pairs = 100000\npair_budget = 100000\nrest_s = 0.2"
"""A ``[ladder]`` that keeps playing: every version is still being placed, and no pair spends its budget. With the
defaults a ladder of two or three quick bots goes idle, rightly, once their ratings separate (a pair is settled
after 3 meetings) or a pair's budget is spent; a test that waits for more matches than that would time out.
Each slot rests 0.2 s after a deal: flat out, quick bots played 150 matches a second for as long as a test ran
(3,000 in the pages' test, most of its CPU), where the tests need tens."""


HTTP = httpx.Client(timeout=30, limits=httpx.Limits(max_keepalive_connections=0))
"""The client of the tests' plain requests to a served competition (``HTTP.get(url)``). ``httpx.get`` makes a client
and its TLS context at each call, about 40 ms of CPU: a helper polling every 0.05 s spent most of a CPU on it. No
connection is kept alive (a test's server stops, and another may take its port)."""


def slow_bot(folder: Path, seconds: float) -> Path:
    """A copy of :data:`SLOW_BOT` (its name too) in ``folder`` that takes ``seconds`` a move. A match asks each bot
    15 times, so it lasts about 15 x ``seconds``: for a test that does more while one match is in play than 0.4 s
    a move leaves time for on a loaded machine."""
    copy = folder / "slow-python"
    shutil.copytree(SLOW_BOT, copy)
    (copy / "seconds").write_text(f"{seconds}\n")
    return copy


def write_config(
    folder: Path,
    *,
    house: tuple[str, ...] = ("minimal-python", "random-python"),
    extra: str = "",
    access: str = "",
    uploads: str = "check_matches = 2",
    ladder: str = "placement_pairs = 1\npair_budget = 50",
    server: str = "",
) -> Path:
    """A server config in ``folder`` (its data folder beside it).

    ``ARENA_TEST_SERVER_WORKERS=0`` (or 1) in the environment sets the config's
    ``workers``, to run the server's tests with the matches played in the
    server's process (or always in a worker).
    """
    if "workers" not in extra and os.environ.get("ARENA_TEST_SERVER_WORKERS"):
        extra = f"workers = {int(os.environ['ARENA_TEST_SERVER_WORKERS'])}\n{extra}"
    bots = ", ".join(f'"{RPS / name}"' for name in house)
    if "duplicate" not in ladder:  # (these tests were written for pairs with seats swapped; tables have their own)
        ladder = f'duplicate = "swapped"\n{ladder}'
    if "check_matches" not in uploads:
        uploads += "\ncheck_matches = 2"
    text = (
        f'name = "Test ladder"\ngame = "rps-poker"\nhouse_bots = [{bots}]\n{extra}\n'
        f"[ladder]\n{ladder}\n[access]\n{access}\n[uploads]\n{uploads}\n"
        f'[server]\ndata_dir = "{folder / "data"}"\nport = 0\n{server}\n'
    )
    path = folder / "server.toml"
    path.write_text(text)
    return path


@dataclass
class Kit:
    """A running competition and a client talking to its app in-process."""

    competition: Competition
    client: httpx.AsyncClient

    def person(self) -> httpx.AsyncClient:
        """Another client of the same app, with cookies of its own (another person's browser)."""
        return httpx.AsyncClient(transport=self.client._transport, base_url="http://testserver")

    async def csrf(self) -> str:
        """The CSRF token of the client's session (read from a page's form)."""
        page = await self.client.get("/login")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found, page.text
        return found.group(1)

    async def login(self, token: str) -> None:
        """Log the client in with ``token`` through the login form."""
        response = await self.client.post("/login", data={"token": token, "csrf": await self.csrf()})
        assert response.status_code == 303, response.text

    def participant(self, name: str) -> str:
        """Add participant ``name``; its token."""
        _, token = self.competition.state.add_participant(name)
        return token

    async def upload(self, token: str, data: bytes, filename: str = "bot.tar.gz", language: str = "") -> httpx.Response:
        """Upload through the API with a bearer token."""
        return await self.client.post(
            "/api/submissions",
            headers={"authorization": f"Bearer {token}"},
            files={"file": (filename, data)},
            data={"language": language},
        )

    async def wait_submission(self, token: str, sid: int, *, timeout: float = 120) -> dict[str, object]:
        """The submission once its check has finished."""
        with trio.fail_after(timeout):
            while True:
                response = await self.client.get(
                    f"/api/submissions/{sid}", headers={"authorization": f"Bearer {token}"}
                )
                data: dict[str, object] = response.json()
                if data["done"]:
                    return data
                await trio.sleep(0.2)

    @property
    def matches(self) -> list[PlayedMatch]:
        """Every match the ladder recorded, oldest first (read from the store: the server holds none of them)."""
        return self.competition.store.matches(self.competition.tid)

    async def played_out(self, bot: str = "", *, timeout: float = 120) -> str:
        """The key of a recorded match (of ``bot``) whose deal is played out (both legs): its replay may be public."""
        with trio.fail_after(timeout):
            while True:
                for match in self.matches:
                    if (not bot or bot in (match.bot_a, match.bot_b)) and self.competition.catalogue.deal_over(match):
                        return match.key
                await trio.sleep(0.1)

    async def wait_matches(self, count: int, *, timeout: float = 120) -> None:
        """Until the ladder has recorded ``count`` matches."""
        with trio.fail_after(timeout):
            while self.competition.played < count:
                await trio.sleep(0.1)


@contextlib.asynccontextmanager
async def running(
    config_path: Path,
    *,
    jobs: int = 2,
    paused: bool = False,
    cluster: str = "",
    say: Callable[[str], None] = lambda _text: None,
) -> AsyncIterator[Kit]:
    """The competition of ``config_path`` with its ladder and checker running, and an ASGI client on its app.

    The ladder is playing when it yields (its match worker is up), unless ``paused``: a paused competition's tests
    need no worker, and do not wait for one (it goes on starting meanwhile).
    """
    competition = Competition(load(config_path))
    try:
        if paused:
            competition.set_paused(True)
        competition.add_house_bots()
        async with trio.open_nursery() as nursery:
            await nursery.start(functools.partial(competition.run, jobs=jobs, cluster=cluster, say=say))
            if not paused:  # (the server serves while its match worker starts; these tests want its ladder playing)
                with trio.fail_after(120):
                    await competition.host.begun.wait()
            transport = httpx.ASGITransport(app=create_app(competition))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
                yield Kit(competition, client)
            nursery.cancel_scope.cancel()
    finally:
        competition.close()


def in_play(url: str, bot: str, other: str, *, timeout: float = 420) -> str:
    """The key of a match between ``bot`` and ``other`` that has just come into play (a second ago at most)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        page = HTTP.get(f"{url}/live").text
        for row in page.split("<tr><td>")[1:]:
            key = row.split('href="/matches/')[1].split("/live")[0]
            age = int(row.split("</td><td>")[3].split(" s")[0])
            if bot in key and other in key and age <= 1:
                return key
        time.sleep(0.2)
    raise AssertionError(f"no match of {bot} against {other} came into play")


def bot_archive(files: dict[str, str | bytes]) -> bytes:
    """A .tar.gz holding ``files`` (name to content)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def minimal_bot(**extra_files: str) -> bytes:
    """The minimal Python bot as an archive, with ``extra_files`` added or replaced."""
    files = {
        "bot.toml": (MINIMAL_BOT / "bot.toml").read_text(),
        "bot.py": (MINIMAL_BOT / "bot.py").read_text(),
    }
    files.update(extra_files)
    return bot_archive(files)


@dataclass
class ServerProcess:
    """``arena serve`` running as its own process."""

    process: subprocess.Popen[str]
    url: str
    output: list[str]


@contextlib.contextmanager
def server_process(
    config_path: Path, *extra: str, timeout: float = 60, prefix: tuple[str, ...] = (), ladder: bool = True
) -> Iterator[ServerProcess]:
    """Start ``arena serve CONFIG`` (port 0) and yield it once it serves; killed (and reaped) on leaving.

    ``prefix``: a command the server runs under (``prlimit --nofile=1024:1024 --``). ``ladder``: yield once its
    ladder has begun too (the server serves while its match worker starts, its leaderboard saying "starting");
    false, as soon as it serves.
    """
    process = subprocess.Popen(
        [*prefix, sys.executable, "-m", "arena", "serve", str(config_path), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    url = ""
    drain: threading.Thread | None = None
    deadline = time.monotonic() + timeout
    try:
        assert process.stdout is not None
        while not url:
            if time.monotonic() > deadline or process.poll() is not None:
                raise AssertionError("the server did not start:\n" + "".join(output))
            line = process.stdout.readline()
            output.append(line)
            found = re.search(r"serving .* on (http://\S+?):? ", line)
            if found:
                url = found.group(1)
        drain = threading.Thread(target=lambda: output.extend(process.stdout or ()), daemon=True)
        drain.start()
        while ladder and STARTING in HTTP.get(url + "/").text:
            if time.monotonic() > deadline + timeout or process.poll() is not None:
                raise AssertionError("the server's ladder did not begin:\n" + "".join(output))
            time.sleep(0.05)
        yield ServerProcess(process, url, output)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if drain is not None:
            drain.join(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def many_empty_files(path: Path, count: int) -> Path:
    """A .tar.gz of ``count`` empty files, written header by header (tarfile would take many seconds)."""
    template = bytearray(tarfile.TarInfo("f000000").tobuf(tarfile.USTAR_FORMAT))
    with gzip.open(path, "wb", compresslevel=1) as out:
        for i in range(count):
            block = bytearray(template)
            block[0:7] = f"f{i:06d}".encode()
            block[148:156] = b" " * 8
            block[148:156] = f"{sum(block):06o}\0 ".encode()
            out.write(block)
        out.write(b"\0" * 1024)
    return path
