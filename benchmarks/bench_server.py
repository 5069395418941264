"""The competition server under load: page latency, and the ladder's speed with and without readers.

Starts ``arena serve`` (its own process, port 0) on a ladder of Python sample
bots, then, from this process:

1. lets the ladder play alone for ``--seconds`` and counts matches per second;
2. for the same time, runs ``--readers`` concurrent leaderboard readers (each
   loads ``/`` and ``/api/standings``, then waits 0.5 to 1.5 s, like a person
   watching) while ``--uploads`` participants each upload a bot (spread over
   the phase; each is built and checked as any upload), and measures every
   request's latency and the ladder's matches per second meanwhile.

Prints p50/p95/max latency per page, the readers' request rate, the upload
results, both ladder rates and their ratio, with the load average beside
them (the machine is shared: compare figures from one run).

Usage: ``python benchmarks/bench_server.py [--seconds 30] [--readers 200] [--uploads 20] [--jobs N]``
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import random
import re
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import httpx
import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.server.state import State  # noqa: E402

RPS = REPO / "sample_bots" / "rps-poker"
HOUSE = ["random-python", "simple-py", "obvious-strats-py", "minimal-valid-py", "minimal-python"]


def config_text(data_dir: Path, jobs: int) -> str:
    bots = ", ".join(f'"{RPS / name}"' for name in HOUSE)
    return (
        f'name = "Load test"\ngame = "rps-poker"\nseed = 1\njobs = {jobs}\nhouse_bots = [{bots}]\n'
        # A large budget and a long placement keep the ladder busy for the whole run.
        "[ladder]\nplacement_pairs = 4\npair_budget = 100000\n"
        "[uploads]\nper_hour = 100\ncheck_matches = 2\n"
        f'[server]\nport = 0\ndata_dir = "{data_dir}"\n'
    )


def bot_archive() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name in ("bot.toml", "bot.py"):
            archive.add(RPS / "minimal-python" / name, arcname=name)
    return buffer.getvalue()


def start_server(config: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 120
    for line in process.stdout:
        found = re.search(r"serving .* on (http://\S+?):? ", line)
        if found:
            return process, found.group(1)
        if time.monotonic() > deadline:
            break
    process.kill()
    raise SystemExit("the server did not start")


async def matches(client: httpx.AsyncClient) -> int:
    return int((await client.get("/api/standings")).json()["matches"])


async def ladder_rate(client: httpx.AsyncClient, seconds: float) -> float:
    start_count, started = await matches(client), time.monotonic()
    await trio.sleep(seconds)
    return (await matches(client) - start_count) / (time.monotonic() - started)


async def reader(client: httpx.AsyncClient, until: float, latencies: dict[str, list[float]], errors: list[str]) -> None:
    rng = random.Random()
    await trio.sleep(rng.uniform(0, 1))
    while time.monotonic() < until:
        for path in ("/", "/api/standings"):
            started = time.perf_counter()
            try:
                response = await client.get(path)
                response.raise_for_status()
            except httpx.HTTPError as exc:
                errors.append(f"{path}: {exc!r}")
                continue
            latencies[path].append(time.perf_counter() - started)
        await trio.sleep(rng.uniform(0.5, 1.5))


async def uploader(client: httpx.AsyncClient, token: str, delay: float, data: bytes, out: list[str]) -> None:
    await trio.sleep(delay)
    started = time.perf_counter()
    response = await client.post(
        "/api/submissions", headers={"authorization": f"Bearer {token}"}, files={"file": ("bot.tar.gz", data)}
    )
    took = time.perf_counter() - started
    out.append(f"{response.status_code} in {took * 1000:.0f} ms")


async def wait_checks(client: httpx.AsyncClient, tokens: list[str], timeout: float) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        statuses = []
        for token in tokens:
            subs = (await client.get("/api/submissions", headers={"authorization": f"Bearer {token}"})).json()
            statuses += [s["status"] for s in subs["submissions"]]
        if all(s in ("passed", "failed", "refused") for s in statuses) or time.monotonic() > deadline:
            return statuses
        await trio.sleep(1)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run(args: argparse.Namespace, url: str, tokens: list[str]) -> None:
    limits = httpx.Limits(max_connections=args.readers + args.uploads + 10, max_keepalive_connections=args.readers + 10)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        await trio.sleep(args.warmup)
        alone = await ladder_rate(client, args.seconds)
        print(f"ladder alone: {alone:.2f} matches/s over {args.seconds:.0f} s   (load {os.getloadavg()[0]:.1f})")
        latencies: dict[str, list[float]] = {"/": [], "/api/standings": []}
        errors: list[str] = []
        uploads: list[str] = []
        data = bot_archive()
        until = time.monotonic() + args.seconds
        async with trio.open_nursery() as nursery:
            for _ in range(args.readers):
                nursery.start_soon(reader, client, until, latencies, errors)
            for index, token in enumerate(tokens):
                nursery.start_soon(uploader, client, token, index * args.seconds / max(1, len(tokens)), data, uploads)
            loaded = await ladder_rate(client, args.seconds)
        requests = sum(len(v) for v in latencies.values())
        print(
            f"with {args.readers} readers and {len(tokens)} uploads: {loaded:.2f} matches/s"
            f" ({loaded / alone:.0%} of alone; load {os.getloadavg()[0]:.1f})"
        )
        print(f"readers made {requests} requests ({requests / args.seconds:.0f}/s), {len(errors)} errors")
        for path, values in latencies.items():
            p50, p95 = percentile(values, 0.5) * 1000, percentile(values, 0.95) * 1000
            worst = max(values, default=float("nan")) * 1000
            print(f"  {path:<16} p50 {p50:6.0f} ms   p95 {p95:6.0f} ms  max {worst:6.0f} ms  ({len(values)} requests)")
        if errors:
            print("  first errors:", *errors[:3], sep="\n    ")
        print("uploads answered:", ", ".join(sorted(uploads)) or "none")
        statuses = await wait_checks(client, tokens, timeout=300)
        print(f"checks: {statuses.count('passed')} passed of {len(statuses)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--readers", type=int, default=200)
    parser.add_argument("--uploads", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
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
        process, url = start_server(config)
        try:
            trio.run(run, args, url, tokens)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
