"""Months of data: the competition server and ``arena results`` on 10k, 100k and 1M recorded matches.

For each size, a competition is built with the project's own store (once:
it is kept under ``--cache``, by default a folder of the system's temporary
directory): ``bots`` house bots (copies of the minimal Python sample bot under
other names), and a ladder's history of duplicate pairs between them, with
results drawn from each bot's hidden strength (Bradley-Terry), a fault now and
then (a few bots fault often enough to be disqualified by them), versions
replaced along the way (their matches stay in the history, out of the
standings), and some bots disqualified by the organiser. The history is
written with :meth:`Store.record_matches` in one transaction, the standings'
pair totals with it.

Then ``arena serve`` is started on it (its own process) and measured from
outside, with the ladder playing:

* **start**: from the process's start to the first page (``/``) answered;
* **RSS**: the server process's resident memory (its match worker apart);
* **p95** of ``/``, a bot page, ``/api/matches?bot=``, a match page and
  ``/api/standings``, requested one after another for ``--seconds``;
* **standings age**: ``now - as_of`` of ``/api/standings`` polled meanwhile,
  counted when matches were recorded since the previous poll (a ladder that
  pauses between pairs has nothing the standings could be behind): at most
  how far behind the last recorded match they are;
* ``arena results`` on the database: seconds and peak RSS.

The machine may be shared: the load average is printed beside the figures,
and the ratios to the smallest size of the same run say what grows.

Usage: ``python benchmarks/bench_scale.py [--sizes 10000,100000,1000000] [--seconds 30] [--cache DIR] [--rebuild]``
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.competition.plan import enter_version  # noqa: E402
from arena.competition.store import FaultRow, PlayedMatch  # noqa: E402
from arena.server.config import load  # noqa: E402
from arena.server.service import Competition, Version  # noqa: E402
from arena.server.state import Entry  # noqa: E402

BOTS = {10_000: 20, 100_000: 100, 1_000_000: 300}
"""Bots in the field for each size (the issue's table)."""
SAMPLE = REPO / "sample_bots" / "rps-poker" / "minimal-python"
BATCH = 50_000
"""Matches generated and handed to the store at a time (all in one transaction)."""


def build(size: int, cache: Path, *, rebuild: bool) -> Path:
    """The config of a server whose competition has ``size`` matches (built once, then reused)."""
    bots = BOTS.get(size, max(2, round(math.sqrt(size) / 3)))
    folder = cache / f"scale-{bots}-{size}"
    config_path = folder / "server.toml"
    if (folder / "built").exists() and not rebuild:
        return config_path
    shutil.rmtree(folder, ignore_errors=True)
    names = [f"b{i:03d}" for i in range(bots)]
    for name in names:
        shutil.copytree(SAMPLE, folder / "bots" / name)
        (folder / "bots" / name / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\nreuse = true\n')
    house = ", ".join(f'"{folder / "bots" / name}"' for name in names)
    config_path.write_text(
        f'name = "Scale {size}"\ngame = "rps-poker"\nmax_faults = 30\nhouse_bots = [{house}]\n'
        f'[ladder]\nplacement_pairs = 1\npair_budget = 1000000\n[server]\ndata_dir = "{folder / "data"}"\nport = 0\n'
    )
    started = time.perf_counter()
    competition = Competition(load(config_path))
    try:
        competition.add_house_bots()
        for version in competition.versions():
            competition.store.set_admission(version.id, "admitted")
        competition._versions = None  # (read again: admitted now)
        _history(competition, size, random.Random(size))
    finally:
        competition.close()
    (folder / "built").write_text(f"{time.perf_counter() - started:.1f} s\n")
    print(f"built {size:,} matches of {bots} bots in {time.perf_counter() - started:.1f} s: {folder}", flush=True)
    return config_path


def _history(competition: Competition, size: int, rng: random.Random) -> None:
    """Record ``size`` matches of a ladder between the competition's house bots, as described above."""
    store, tid = competition.store, competition.tid
    owners = {p.name: p for p in competition.state.participants()}
    current = {v.row.name: v for v in competition.versions() if v.playing}
    specs = {name: competition.specs[v.id] for name, v in current.items()}
    strength = {name: rng.gauss(0, 1.2) for name in current}
    faulty = set(rng.sample(sorted(current), max(1, len(current) // 50)))
    met: dict[tuple[str, str], int] = {}
    batch: list[PlayedMatch] = []
    entries: list[Entry] = []
    replace_every = max(1, size // (2 * max(4, len(current) // 5)))  # about a fifth of the field replaced once
    with store.transaction():
        for number in range(size // 2):
            if number and number % replace_every == 0:
                store.record_matches(tid, batch)
                batch = []
                name = rng.choice(sorted(current))
                old = current[name]
                row = enter_version(store, tid, name, specs[name])
                store.set_admission(row.id, "admitted")
                store.retire(old.id, "changed")
                current[name] = Version(store.version(row.id), Entry(row.id, owners[name].id, None, old.folder))
                entries.append(current[name].entry)
                strength[name] += rng.gauss(0, 0.3)
            a, b = sorted(rng.sample(sorted(current), 2))
            va, vb = current[a], current[b]
            first, second = sorted((va.label, vb.label))
            pair = met[first, second] = met.get((first, second), -1) + 1
            deal = f"{first}~{second}~{pair}"
            for leg, (x, y) in enumerate(((va, vb), (vb, va)) if va.label == first else ((vb, va), (va, vb))):
                batch.append(_match(rng, deal, leg, x, y, strength, faulty))
            if len(batch) >= BATCH:
                store.record_matches(tid, batch)
                batch = []
        store.record_matches(tid, batch)
    for entry in entries:  # (the server's own tables: after the store's transaction)
        competition.state.add_entry(entry.version_id, entry.participant_id, submission_id=None, folder=entry.folder)
    for name in rng.sample(sorted(current), max(1, len(current) // 50)):
        competition.state.set_disqualified(owners[name].id, "benchmark: disqualified by the organiser")


def _match(rng: random.Random, deal: str, leg: int, va: Version, vb: Version, strength: dict[str, float],
           faulty: set[str]) -> PlayedMatch:  # fmt: skip
    name_a, name_b = va.row.name, vb.row.name
    faults: tuple[FaultRow, ...] = ()
    forfeit: tuple[str, ...] = ()
    for seat, name in (("A", name_a), ("B", name_b)):
        if rng.random() < (0.02 if name in faulty else 0.0005):
            faults += (FaultRow(seat, name, "timeout", "no answer within 2 s"),)
            forfeit += (seat,)
    p = 1 / (1 + math.exp(strength[name_b] - strength[name_a]))
    if forfeit:
        winner = None if len(forfeit) == 2 else ("B" if forfeit == ("A",) else "A")
    else:
        roll = rng.random()
        winner = "A" if roll < 0.9 * p else "B" if roll > 1 - 0.9 * (1 - p) else None
    points = {"A": (3.0, 0.0), "B": (0.0, 3.0), None: (1.0, 1.0)}[winner]
    return PlayedMatch(
        key=f"{deal}-{'ab'[leg]}", cycle=0, deal=deal, leg=leg, bot_a=name_a, bot_b=name_b,
        seed=rng.getrandbits(62), points=points, winner=winner, forfeit=forfeit, faults=faults,
        duration_s=0.2, versions=(va.id, vb.id),
    )  # fmt: skip


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` (nearest rank), NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def measure(config_path: Path, seconds: float) -> dict[str, float]:
    """Serve the competition, time its pages with the ladder playing, stop it; the figures by name."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(config_path), "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    out: dict[str, float] = {}
    try:
        assert process.stdout is not None
        url = ""
        while not url:
            line = process.stdout.readline()
            if not line and process.poll() is not None:
                raise SystemExit("the server did not start")
            found = re.search(r"serving .* on (http://\S+?):? ", line)
            if found:
                url = found.group(1)
        with httpx.Client(base_url=url, timeout=60) as client:
            while client.get("/").status_code != 200:
                time.sleep(0.05)
            out["start_s"] = time.monotonic() - started
            server = psutil.Process(process.pid)
            standings = client.get("/api/standings").json()
            bots = [row["participant"] for row in standings["standings"]]
            recent = client.get("/api/matches", params={"limit": 50}).json()["matches"]
            keys = [m["key"] for m in recent] or ["none"]
            pages: dict[str, Callable[[], str]] = {
                "/": lambda: "/",
                "bot page": lambda: f"/bots/{random.choice(bots)}",
                "/api/matches?bot=": lambda: f"/api/matches?bot={random.choice(bots)}&limit=40",
                "match page": lambda: f"/matches/{random.choice(keys)}",
                "/api/standings": lambda: "/api/standings",
            }
            times: dict[str, list[float]] = {name: [] for name in pages}
            ages: list[float] = []
            rss: list[int] = []
            first_count = seen = standings["matches"]
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                for name, path in pages.items():
                    began = time.perf_counter()
                    response = client.get(path())
                    times[name].append(time.perf_counter() - began)
                    if name == "/api/standings" and response.status_code == 200:
                        data = response.json()
                        if data["matches"] > seen:  # results came since the last look: how far behind them it is
                            ages.append(time.time() - data["as_of"])
                        seen = data["matches"]
                rss.append(server.memory_info().rss)
            last_count = client.get("/api/standings").json()["matches"]
        for name, values in times.items():
            out[f"{name} p95 ms"] = 1000 * percentile(values, 0.95)
        out["rss MiB"] = max(rss) / 2**20
        out["standings age p95 s"] = percentile(ages, 0.95)
        out["standings age max s"] = max(ages, default=math.nan)
        out["ladder matches/s"] = (last_count - first_count) / seconds
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return out


def results_time(config_path: Path) -> tuple[float, float]:
    """``arena results`` on the competition's database: seconds, and the peak RSS of its process (MiB, sampled)."""
    db = load(config_path).data_dir / "server.sqlite"
    began = time.perf_counter()
    process = psutil.Popen(
        [sys.executable, "-m", "arena", "results", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0
    while process.poll() is None:
        with contextlib.suppress(psutil.Error):
            peak = max(peak, process.memory_info().rss)
        time.sleep(0.02)
    if process.returncode:
        raise SystemExit(f"arena results {db} failed ({process.returncode})")
    return time.perf_counter() - began, peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "arena-bench-scale")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    sizes = [int(text) for text in args.sizes.split(",")]
    rows = []
    for size in sizes:
        config = build(size, args.cache, rebuild=args.rebuild)
        load_before = os.getloadavg()[0]
        figures = measure(config, args.seconds)
        figures["arena results s"], figures["arena results MiB"] = results_time(config)
        figures["load"] = (load_before + os.getloadavg()[0]) / 2
        rows.append((size, figures))
        print(f"{size:>9,}: " + ", ".join(f"{k} {v:.3g}" for k, v in figures.items()), flush=True)
    names = list(rows[0][1])
    print()
    print("| matches | bots | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 2) + "|")
    for size, figures in rows:
        bots = BOTS.get(size, max(2, round(math.sqrt(size) / 3)))
        print(f"| {size:,} | {bots} | " + " | ".join(f"{figures[n]:.3g}" for n in names) + " |")
    base = rows[0][1]
    print(f"\nratios to {rows[0][0]:,} matches (what grows):")
    for size, figures in rows[1:]:
        print(f"  {size:,}: " + ", ".join(f"{n} x{figures[n] / base[n]:.2f}" for n in names if base[n]))
    load = os.getloadavg()[0]
    print(f"\nmachine: {os.cpu_count()} CPUs, load average {load:.1f} at the end (shared: compare within a run)")


if __name__ == "__main__":
    main()
