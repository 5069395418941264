"""The competition server under load: page latency, live updates, and the ladder's speed with and without readers.

Starts ``arena serve`` (its own process, port 0) on a ladder of Python sample
bots, then, from this process:

1. lets the ladder play alone for ``--seconds`` and counts matches per second;
2. for the same time, runs ``--readers`` concurrent leaderboard readers while
   ``--uploads`` participants each upload a bot (spread over the phase; each is
   built and checked as any upload), and counts the ladder's matches meanwhile.

A reader behaves as a person with the leaderboard open in a browser: it
arrives at a random moment of the first ``--arrive`` seconds, loads ``/`` and
the page's stylesheet and script (a page load: its latency is the time until
all three are in), then holds the live stream (``/events``, server-sent
events) and reloads the page every 10 to 30 s at random (the static files
revalidated with ``If-None-Match``, as a browser does; the server answers each
request). For each board the stream brings, it notes its *age*: the time
since the results it shows were taken (the event's ``as_of``). With
``--poll`` a reader instead fetches ``/`` and ``/api/standings`` every 0.5 to
1.5 s (a script polling the API, or a page without the live stream).

Prints p50/p95/max latency per request and per page load, the live updates'
age and spacing, the readers' request rate, the upload results, both ladder
rates and their ratio, and the CPU taken in each phase by the server process,
by this process (the load generator: its HTTP client costs about as much per
request as the server's answer) and by the whole machine, with the load
average beside them (the machine is shared: compare figures from one run).

With ``--readers-cost`` the readers' own cost is measured under uploads:
each participant uploads a first bot (not measured), the ladder plays alone
with them, then each uploads a new version without readers and another
with them; the second ratio is the readers' cost on the same upload work.

With ``--in-process`` the server plays the ladder's matches in its own
process instead of its match worker (the server's layout before the worker).

Usage: ``python benchmarks/bench_server.py [--seconds 30] [--readers 200] [--uploads 20] [--bot FOLDER] [--jobs N]
[--poll] [--in-process] [--after] [--readers-cost]``
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import os
import platform
import random
import re
import ssl
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx
import psutil
import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _serving import start_serving, stop_serving  # noqa: E402

from arena.sandbox import _cgroup, capabilities  # noqa: E402
from arena.server.state import State  # noqa: E402

NO_TLS = ssl.create_default_context()
"""The readers' clients share one (unused: the server is plain HTTP) TLS context: making one each costs 20 ms of CPU."""
RPS = REPO / "sample_bots" / "rps-poker"
HOUSE = ["random-python", "simple-py", "obvious-strats-py", "minimal-valid-py", "minimal-python"]


def config_text(data_dir: Path, jobs: int) -> str:
    bots = ", ".join(f'"{RPS / name}"' for name in HOUSE)
    return (
        f'name = "Load test"\ngame = "rps-poker"\njobs = {jobs}\nhouse_bots = [{bots}]\n'
        # A large budget and a long placement keep the ladder busy for the whole run.
        "[ladder]\nplacement_pairs = 4\npair_budget = 100000\n"
        "[uploads]\nper_hour = 100\ncheck_matches = 2\n"
        f'[server]\nport = 0\ndata_dir = "{data_dir}"\n'
    )


def bot_archive(folder: Path, version: int = 0) -> bytes:
    """``folder`` as an upload; a ``version`` above 0 adds a file that names it (another digest: a new version)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(folder.iterdir()):
            archive.add(path, arcname=path.name)
        if version:
            note = f"upload {version}\n".encode()
            info = tarfile.TarInfo("VERSION.txt")
            info.size = len(note)
            archive.addfile(info, io.BytesIO(note))
    return buffer.getvalue()


def start_server(config: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    return start_serving([sys.executable, "-m", "arena", "serve", str(config), *extra])


async def matches(client: httpx.AsyncClient) -> int:
    return int((await client.get("/api/standings")).json()["matches"])


@dataclass
class Readings:
    """What the readers saw: latencies (s) by request and of whole page loads, live boards' ages and spacing."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    page_loads: list[float] = field(default_factory=list)
    ages: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    streams: int = 0
    errors: list[str] = field(default_factory=list)

    def requests(self) -> int:
        return sum(len(v) for v in self.latencies.values())


async def fetch(
    client: httpx.AsyncClient, path: str, seen: Readings, headers: dict[str, str] | None = None
) -> httpx.Response | None:
    """GET ``path``, noting its latency under its path (without the query); ``None`` when it failed."""
    started = time.perf_counter()
    try:
        response = await client.get(path, headers=headers)
        if response.status_code != 304:
            response.raise_for_status()
    except httpx.HTTPError as exc:
        seen.errors.append(f"{path}: {exc!r}")
        return None
    seen.latencies.setdefault(path.split("?")[0], []).append(time.perf_counter() - started)
    return response


ASSET_LINK = re.compile(r'(?:href|src)="(/static/[^"]+)"')


async def page_load(client: httpx.AsyncClient, seen: Readings, etags: dict[str, str]) -> None:
    """Load the leaderboard as a browser does: the page, then the stylesheet and script it links, at once.

    A reload asks for them again with the ETag it has (a browser that honours
    their ``immutable`` caching would not ask at all: this counts the worst).
    """
    started = time.perf_counter()
    errors = len(seen.errors)
    page = await fetch(client, "/", seen)
    if page is None:
        return

    async def asset(path: str) -> None:
        known = etags.get(path)
        response = await fetch(client, path, seen, {"if-none-match": known} if known else None)
        if response is not None:
            etags[path] = str(response.headers.get("etag", "")) or known or ""

    async with trio.open_nursery() as nursery:
        for path in ASSET_LINK.findall(page.text):
            nursery.start_soon(asset, path)
    if len(seen.errors) == errors:
        seen.page_loads.append(time.perf_counter() - started)


async def watch(client: httpx.AsyncClient, seen: Readings) -> None:
    """Hold the live stream as the page's script does, noting each board's age and the time since the last."""
    last = None
    seen.streams += 1
    try:
        async with client.stream("GET", "/events") as response:
            response.raise_for_status()
            buffer = b""
            async for chunk in response.aiter_bytes():
                *events, buffer = (buffer + chunk).split(b"\n\n")
                for event in events:
                    name, _, data = event.partition(b"\ndata: ")
                    if name == b"event: board":
                        now = time.time()
                        seen.ages.append(now - float(json.loads(data)["as_of"]))
                        if last is not None:
                            seen.gaps.append(now - last)
                        last = now
    except httpx.HTTPError as exc:
        seen.errors.append(f"/events: {exc!r}")


async def browser(client: httpx.AsyncClient, until: float, arrive: float, seen: Readings) -> None:
    """A person with the leaderboard open: a page load, the live stream, a reload every 10 to 30 s.

    Each person has a browser of their own: its own connections.
    """
    rng = random.Random()
    await trio.sleep(rng.uniform(0, arrive))
    etags: dict[str, str] = {}
    async with own_client(client) as own:
        while time.monotonic() < until:
            await page_load(own, seen, etags)
            with trio.move_on_after(max(0.0, min(until - time.monotonic(), rng.uniform(10, 30)))):
                await watch(own, seen)


async def poller(client: httpx.AsyncClient, until: float, arrive: float, seen: Readings) -> None:
    """A script (or a page without the live stream) fetching the leaderboard and the standings every second or so."""
    rng = random.Random()
    await trio.sleep(rng.uniform(0, 1))
    async with own_client(client) as own:
        while time.monotonic() < until:
            for path in ("/", "/api/standings"):
                await fetch(own, path, seen)
            await trio.sleep(rng.uniform(0.5, 1.5))


def own_client(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """A reader's own client (its connections, six at most as a browser keeps per site), to ``client``'s server.

    One client for all readers would make each request scan a pool of hundreds of connections.
    """
    return httpx.AsyncClient(
        base_url=client.base_url, timeout=60, limits=httpx.Limits(max_connections=6), verify=NO_TLS, trust_env=False
    )


async def uploader(client: httpx.AsyncClient, token: str, delay: float, data: bytes, out: list[str]) -> None:
    await trio.sleep(delay)
    started = time.perf_counter()
    response = await client.post(
        "/api/submissions", headers={"authorization": f"Bearer {token}"}, files={"file": ("bot.tar.gz", data)}
    )
    took = time.perf_counter() - started
    out.append(f"{response.status_code} in {took * 1000:.0f} ms")


async def wait_checks(client: httpx.AsyncClient, tokens: list[str], timeout: float) -> tuple[list[str], list[float]]:
    """Each participant's latest submission's status once all are done, and how long each took from upload to
    result (to the second)."""
    deadline = time.monotonic() + timeout
    while True:
        subs = []
        for token in tokens:
            answer = await client.get("/api/submissions", headers={"authorization": f"Bearer {token}"})
            subs += sorted(answer.json()["submissions"], key=lambda s: int(s["id"]))[-1:]
        statuses = [s["status"] for s in subs]
        if all(s in ("passed", "failed", "refused") for s in statuses) or time.monotonic() > deadline:
            took = [
                (datetime.fromisoformat(s["finished_at"]) - datetime.fromisoformat(s["created_at"])).total_seconds()
                for s in subs
                if s.get("finished_at")
            ]
            return statuses, took
        await trio.sleep(1)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def spread(values: list[float], unit: float = 1000.0, suffix: str = "ms") -> str:
    p50, p95 = percentile(values, 0.5) * unit, percentile(values, 0.95) * unit
    worst = max(values, default=float("nan")) * unit
    return f"p50 {p50:6.0f} {suffix}   p95 {p95:6.0f} {suffix}   max {worst:6.0f} {suffix}"


def sandboxed_cpu_s() -> float | None:
    """CPU time used so far by every bot (and build) any arena on this machine ran in its cgroups, if it can be read."""
    group = _bots_parent()
    return None if group is None else group.cpu_seconds()


@functools.cache
def _bots_parent() -> _cgroup.BotCgroup | None:
    """The bots' parent group, whose CPU is the sum over them (one, read again and again: its file stays open)."""
    base = capabilities().cgroup
    if base is None:
        return None
    parents = {key: path for key, path in base.parents.items() if key in ("cpuacct", "unified")}
    return _cgroup.BotCgroup(version=base.version, dirs=parents)


class CpuMeter:
    """CPU taken since it started, as a share of one CPU: by the server process, its match worker, the sandboxed
    bots, this process, the machine."""

    def __init__(self, server: psutil.Process) -> None:
        self.server = server
        self.worker = next(
            (p for p in server.children() if "arena.competition.worker" in " ".join(p.cmdline())), None
        )  # the process that plays the ladder's matches, unless the server plays them itself (--in-process)
        self.started = time.monotonic()
        self.server_s = self._cpu_s(self.server)
        self.worker_s = self._cpu_s(self.worker)
        self.client_s = time.process_time()
        self.bots_s = sandboxed_cpu_s()
        self.machine = psutil.cpu_times()

    @staticmethod
    def _cpu_s(process: psutil.Process | None) -> float:
        if process is None:
            return 0.0
        try:
            times = process.cpu_times()
        except psutil.Error:  # a worker that died (the server starts another)
            return 0.0
        return float(times.user + times.system)

    def __str__(self) -> str:
        wall = time.monotonic() - self.started
        machine = psutil.cpu_times()
        busy = (
            sum(machine) - machine.idle - machine.iowait - (sum(self.machine) - self.machine.idle - self.machine.iowait)
        )
        worker = (
            f" match worker {(self._cpu_s(self.worker) - self.worker_s) / wall:.0%} (with its bots' supervision),"
            if self.worker
            else " (matches played in it),"
        )
        bots_s = sandboxed_cpu_s()
        bots = f" sandboxed bots {(bots_s - self.bots_s) / wall:.0%}," if bots_s and self.bots_s else ""
        return (
            f"CPU (of one CPU): server process {(self._cpu_s(self.server) - self.server_s) / wall:.0%},{worker}{bots}"
            f" load generator (this process) {(time.process_time() - self.client_s) / wall:.0%},"
            f" whole machine {busy / wall:.0%} of {os.cpu_count()}00%"
        )


async def load_phase(
    args: argparse.Namespace, client: httpx.AsyncClient, tokens: list[str], data: bytes, readers: int
) -> tuple[float, Readings, list[str]]:
    """The ladder's rate while ``readers`` read and each of ``tokens`` uploads ``data`` (spread over the phase)."""
    seen = Readings()
    uploads: list[str] = []
    until = time.monotonic() + args.seconds
    reader: Callable[[httpx.AsyncClient, float, float, Readings], Awaitable[None]] = poller if args.poll else browser
    async with trio.open_nursery() as nursery:
        for _ in range(readers):
            nursery.start_soon(reader, client, until, args.arrive, seen)
        for index, token in enumerate(tokens):
            nursery.start_soon(uploader, client, token, index * args.seconds / max(1, len(tokens)), data, uploads)
        rate = await ladder_rate(client, args.seconds)
    return rate, seen, uploads


def print_readings(seen: Readings, seconds: float) -> None:
    print(f"readers made {seen.requests()} requests ({seen.requests() / seconds:.0f}/s), {len(seen.errors)} errors")
    for path, values in seen.latencies.items():
        print(f"  {path:<18} {spread(values)}  ({len(values)} requests)")
    if seen.page_loads:
        print(f"  {'page loads':<18} {spread(seen.page_loads)}  ({len(seen.page_loads)}: / then its CSS and JS)")
    if seen.streams:
        print(
            f"live stream: {seen.streams} opened, {len(seen.ages)} boards received ({len(seen.ages) / seconds:.0f}/s)"
        )
        print(f"  {'age when received':<18} {spread(seen.ages)}  (since the results shown were taken)")
        print(f"  {'between boards':<18} {spread(seen.gaps)}")
    if seen.errors:
        print("  first errors:", *seen.errors[:3], sep="\n    ")


async def print_checks(client: httpx.AsyncClient, tokens: list[str], uploads: list[str]) -> None:
    print("uploads answered:", ", ".join(sorted(uploads)) or "none")
    statuses, took = await wait_checks(client, tokens, timeout=300)
    times = f"; upload to result p50 {percentile(took, 0.5):.0f} s, max {max(took):.0f} s" if took else ""
    print(f"checks: {statuses.count('passed')} passed of {len(statuses)}{times}")


async def run(args: argparse.Namespace, url: str, tokens: list[str], server: psutil.Process) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:  # the counts and the uploads
        await trio.sleep(args.warmup)
        if args.readers_cost:
            await readers_cost(args, client, tokens, server)
            return
        meter = CpuMeter(server)
        alone = await ladder_rate(client, args.seconds)
        print(f"ladder alone: {alone:.2f} matches/s over {args.seconds:.0f} s   (load {os.getloadavg()[0]:.1f})")
        print(f"  {meter}")
        meter = CpuMeter(server)
        loaded, seen, uploads = await load_phase(args, client, tokens, bot_archive(args.bot), args.readers)
        model = "polling readers" if args.poll else "browser readers (page load, live stream, reloads)"
        print(
            f"with {args.readers} {model} and {len(tokens)} uploads: {loaded:.2f} matches/s"
            f" ({loaded / alone:.0%} of alone; load {os.getloadavg()[0]:.1f})"
        )
        print(f"  {meter}")
        print_readings(seen, args.seconds)
        await print_checks(client, tokens, uploads)
        if tokens and args.after:
            meter = CpuMeter(server)
            after = await ladder_rate(client, args.seconds)
            print(
                f"ladder alone again, the uploaded bots in its field: {after:.2f} matches/s"
                f" ({after / alone:.0%} of alone before them; load {os.getloadavg()[0]:.1f})"
            )
            print(f"  {meter}")


async def readers_cost(
    args: argparse.Namespace, client: httpx.AsyncClient, tokens: list[str], server: psutil.Process
) -> None:
    """The readers' own cost while uploads arrive: the same upload work in two phases, without readers, then with.

    Each participant first uploads a bot (not measured: the field grows to its
    size); the ladder plays alone; then each uploads a new version without
    readers, and another with them. Both measured phases replace as many
    versions (checks, recounts, first processes) on a field of the same size.
    """
    await load_phase(args, client, tokens, bot_archive(args.bot, version=1), 0)
    await print_checks(client, tokens, [])
    meter = CpuMeter(server)
    alone = await ladder_rate(client, args.seconds)
    load = os.getloadavg()[0]
    print(f"ladder alone, {len(tokens)} uploaded bots in its field: {alone:.2f} matches/s   (load {load:.1f})")
    print(f"  {meter}")
    meter = CpuMeter(server)
    without, _seen, uploads = await load_phase(args, client, tokens, bot_archive(args.bot, version=2), 0)
    print(
        f"{len(tokens)} new versions, no readers: {without:.2f} matches/s"
        f" ({without / alone:.0%} of alone; load {os.getloadavg()[0]:.1f})"
    )
    print(f"  {meter}")
    await print_checks(client, tokens, uploads)
    meter = CpuMeter(server)
    loaded, seen, uploads = await load_phase(args, client, tokens, bot_archive(args.bot, version=3), args.readers)
    print(
        f"{len(tokens)} new versions and {args.readers} readers: {loaded:.2f} matches/s"
        f" ({loaded / without:.0%} of the same uploads without readers, {loaded / alone:.0%} of alone;"
        f" load {os.getloadavg()[0]:.1f})"
    )
    print(f"  {meter}")
    print_readings(seen, args.seconds)
    await print_checks(client, tokens, uploads)


async def ladder_rate(client: httpx.AsyncClient, seconds: float) -> float:
    start_count, started = await matches(client), time.monotonic()
    await trio.sleep(seconds)
    return (await matches(client) - start_count) / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument(
        "--after", action="store_true", help="measure the ladder alone once more, with the uploaded bots in its field"
    )
    parser.add_argument("--readers", type=int, default=200)
    parser.add_argument("--arrive", type=float, default=5.0, help="readers arrive over this many seconds")
    parser.add_argument("--poll", action="store_true", help="readers poll / and /api/standings instead")
    parser.add_argument("--uploads", type=int, default=20)
    parser.add_argument(
        "--readers-cost", action="store_true",
        help="the readers' own cost under uploads: the same uploads (new versions) without readers, then with them",
    )  # fmt: skip
    parser.add_argument(
        "--bot", type=Path, default=RPS / "minimal-python",
        help="the bot folder each participant uploads (one whose check fails, say, to see the checks alone)",
    )  # fmt: skip
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--in-process", action="store_true", help="the server plays its matches itself (no match worker)"
    )
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        config = Path(tmp) / "server.toml"
        config.write_text(config_text(data_dir, args.jobs))
        state = State(data_dir / "server.sqlite")
        tokens = [state.add_participant(f"load{i}")[1] for i in range(args.uploads)]
        state.close()
        process, url = start_server(config, *(["--in-process"] if args.in_process else []))
        try:
            trio.run(run, args, url, tokens, psutil.Process(process.pid))
        finally:
            stop_serving(process, timeout=20)
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
