"""CPU per request of the server's pages on a large database, two checkouts in turns (A/B/A/B).

    .venv/bin/python benchmarks/bench_pages.py --cache /tmp/scale7/cache --size 100000 \\
        --against /work/main --rounds 3 --requests 40

Takes a database that ``bench_scale.py`` built (``--cache``, ``--size``,
``--bots``: the same folder it names; it is never rebuilt here), copies it
once, and for each round runs a child process per checkout (this one, then
``--against``'s) that opens the server's app on its own copy of the copy
in-process (no ladder, no HTTP socket: httpx's ASGI transport) and requests
each page ``--requests`` times, one after another, the same bots in the same
order for both, each bot once while there are enough (what a page keeps
between requests is not what is timed). ``/`` is timed as it is served
between two new boards (made once a board) and after a new board each time
(``/ (new board)``: what the first request after each drawing of the
standings pays, about once a second with the ladder playing). Each figure
is the CPU the process spent per request (ms;
``time.process_time``, which a busy machine does not inflate as it does the
wall clock) and the wall clock's p50 and p95, with the load average beside
it: the machine is shared, so compare the two checkouts within a round.
With ``--compare``, nothing is timed: each checkout answers a few bot pages,
their JSON and the leaderboard's table, and the run says which differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PAGES = ("/", "/ (new board)", "bot page", "/api/bots/NAME", "/api/matches")
WARM = 3
"""Requests of each page before the timed ones."""


def uptime() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def child(config: Path, requests: int, seed: int, *, compare: bool = False) -> dict[str, Any]:
    """Open the app on ``config`` in this process and time each page; figures by page (run under the checkout's
    ``PYTHONPATH``). With ``compare``, each of a few pages' status and digest of its body, by path."""
    import httpx
    import trio

    from arena.server.config import load
    from arena.server.service import Competition
    from arena.server.web import create_app

    competition = Competition(load(config))
    app = create_app(competition)
    rng = random.Random(seed)
    bots = sorted(row.bot for row in competition.board().board.standings)
    # Each bot asked once (while there are enough): what a page keeps between requests is not what is timed.
    wanted = WARM + requests
    picked = rng.sample(bots, wanted) if wanted <= len(bots) else rng.choices(bots, k=wanted)
    names = [b.split(".", 1)[0] for b in picked]
    paths = {
        "/": ["/"] * wanted,
        "/ (new board)": ["/"] * wanted,
        "bot page": [f"/bots/{name}" for name in names],
        "/api/bots/NAME": [f"/api/bots/{name}" for name in names],
        "/api/matches": ["/api/matches?limit=100"] * wanted,
    }
    out: dict[str, Any] = {}

    async def run() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            for page, each in paths.items():
                for path in each[:WARM]:  # warm: templates compiled, the board drawn
                    (await client.get(path)).raise_for_status()
                walls: list[float] = []
                cpu = time.process_time()
                for path in each[WARM:]:
                    if page == "/ (new board)":  # as after each drawing of the standings (about once a second)
                        competition.results_changed()
                        competition.standings.forget_board()
                    began = time.perf_counter()
                    response = await client.get(path)
                    walls.append(time.perf_counter() - began)
                    response.raise_for_status()
                cpu = time.process_time() - cpu
                out[page] = {
                    "cpu ms": 1000 * cpu / requests,
                    "p50 ms": 1000 * statistics.median(walls),
                    "p95 ms": 1000 * percentile(walls, 0.95),
                    "bytes": len(response.content),
                    "load": uptime(),
                }

    async def digests() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            rival = names[1]
            for name in names[:5]:
                for path in (
                    f"/bots/{name}",
                    f"/api/bots/{name}",
                    f"/bots/{name}?opponent={rival}",
                    f"/bots/{name}?result=won",
                    f"/bots/{name}?opponent={name}",
                    "/api/matches?limit=100",
                ):
                    response = await client.get(path)
                    out[path] = [response.status_code, hashlib.sha256(response.content).hexdigest()]
            # The leaderboard's table (the rest of its page says when the standings were drawn: in this run).
            table = re.search(r'id="board">.*?</tbody>', (await client.get("/")).text, re.S)
            if table is None or table.group(0).count("<tr") < 2:
                raise RuntimeError("no leaderboard table on /")
            out["/ (its table)"] = hashlib.sha256(table.group(0).encode()).hexdigest()

    trio.run(digests if compare else run)
    competition.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "arena-bench-scale")
    parser.add_argument("--size", type=int, default=100_000, help="matches of the database (built by bench_scale)")
    parser.add_argument("--bots", type=int, default=300)
    parser.add_argument("--against", type=Path, help="another checkout to compare with (e.g. main's)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--requests", type=int, default=40, help="requests of each page in a round")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--compare", action="store_true", help="check that both checkouts answer a few bot pages byte for byte alike"
    )
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.requests, args.seed, compare=args.compare)))
        return
    sys.path.insert(0, str(HERE))
    from bench_scale import folder_of, served_copy

    built = folder_of(args.size, args.bots, args.cache)
    if not (built / "built").exists():
        raise SystemExit(f"no database built at {built}: run bench_scale.py --cache {args.cache} --build-only first")
    checkouts = {"this": HERE.parent}
    if args.against is not None:
        checkouts["against"] = args.against.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        source = served_copy(built / "server.toml", Path(tmp) / "source")
        rows: list[tuple[int, str, dict[str, Any]]] = []
        for round_ in range(args.rounds):
            for name, checkout in checkouts.items():
                config = served_copy(source, Path(tmp) / f"{name}{round_}")
                env = {**os.environ, "PYTHONPATH": str(checkout)}
                done = subprocess.run(
                    [sys.executable, str(HERE / "bench_pages.py"), "--child", str(config), "--requests",
                     str(args.requests), "--seed", str(args.seed), *(["--compare"] if args.compare else [])],
                    env=env, cwd=checkout, capture_output=True, text=True, check=False,
                )  # fmt: skip
                if done.returncode:
                    raise SystemExit(f"{name} ({checkout}) failed:\n{done.stderr}")
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                rows.append((round_, name, figures))
                shutil.rmtree(config.with_suffix(""), ignore_errors=True)
                if args.compare:
                    continue
                for page in PAGES:
                    f = figures[page]
                    print(
                        f"round {round_} {name:8} {page:15} cpu {f['cpu ms']:6.1f} ms  p50 {f['p50 ms']:6.1f}  "
                        f"p95 {f['p95 ms']:6.1f}  {f['bytes']:8} B  load {f['load']}",
                        flush=True,
                    )
        if args.compare:
            found = {name: figures for _, name, figures in rows}
            differ = [path for path in found["this"] if found["this"][path] != found.get("against", {}).get(path)]
            print(f"{len(found['this'])} pages compared; differ: {differ or 'none'}")
            return
        print(f"\nmedian over {args.rounds} rounds of CPU ms per request ({args.size} matches, {args.requests} each):")
        for page in PAGES:
            line = f"  {page:15}"
            for name in checkouts:
                line += f"  {name} {statistics.median(r[2][page]['cpu ms'] for r in rows if r[1] == name):6.1f}"
            print(line)


if __name__ == "__main__":
    main()
