"""Bytes a match costs on the server's disk: its rows in the database, and its log file.

The database: for each size, the competition ``bench_scale.py`` builds (the
project's own store and schema; reused from its ``--cache``) is copied, each
match given the log path a served match has (``DATA_DIR/logs/KEY.jsonl.gz``:
``bench_scale`` now records them itself) and noted by the log retention as the server's
pruner notes it, then VACUUMed; its size over its matches is the bytes a
match costs, and SQLite's ``dbstat`` says which tables and indexes take them.

The logs: a round-robin of the RPS Poker Python sample bots
(``examples/rps-poker-round-robin.toml``, one cycle) is played with its logs,
and their mean size printed (gzip JSONL; other games' logs differ with their
turns and what their bots write to stderr).

Usage: ``python benchmarks/bench_bytes_per_match.py [--sizes 10000,100000] [--cache DIR] [--no-logs]``
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_scale import BOTS, build  # noqa: E402

from arena.competition.store import Store  # noqa: E402
from arena.server import retention  # noqa: E402
from arena.server.config import load  # noqa: E402
from arena.server.maintain import backup_database  # noqa: E402
from arena.server.state import State  # noqa: E402


def database_bytes(size: int, cache: Path, scratch: Path) -> None:
    """Print the database's bytes per match at ``size`` matches, and the tables and indexes that hold them."""
    config = load(build(size, BOTS, cache, rebuild=False))
    copy = scratch / f"server-{size}.sqlite"
    backup_database(config.data_dir / "server.sqlite", copy)
    with Store.open(copy) as store:
        State(store)  # the server's schema, the retention's table with it
    logs = f"{config.data_dir / 'logs'}/"
    with contextlib.closing(retention.connect(copy)) as db:
        db.execute("UPDATE matches SET log_path = ? || match_key || '.jsonl.gz' WHERE log_path IS NULL", (logs,))
        tids = [row[0] for row in db.execute("SELECT id FROM tournaments").fetchall()]
        began = time.perf_counter()
        retention.catch_up(db)
        noted = time.perf_counter() - began
        began = time.perf_counter()
        chosen = sum(
            len(retention.past_keep(db, tid, 20)) + len(retention.over_budget(db, tid, 1 << 20)) for tid in tids
        )
        choice = time.perf_counter() - began
        db.execute("VACUUM")
        db.execute("PRAGMA journal_mode=DELETE")
        matches = int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        parts = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    total = os.stat(copy).st_size
    print(f"{matches:>9,} matches: {total / 1e6:8.1f} MB, {total / matches:6.0f} bytes a match", flush=True)
    for name, bytes_ in parts[:8]:
        print(f"    {name:<28} {bytes_ / matches:6.0f} bytes a match")
    print(
        f"    the pruner: its first notes of every log {noted:.2f} s; its choice (keep 20 deals a pair, a 1 MiB"
        f" budget: {chosen:,} logs) {choice:.2f} s; load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    copy.unlink()


def log_bytes(scratch: Path) -> None:
    """Print the mean size of a match log of the RPS Poker sample round-robin."""
    logs = scratch / "logs"
    subprocess.run(
        [
            sys.executable, "-m", "arena", "tournament", str(REPO / "examples" / "rps-poker-round-robin.toml"),
            "--cycles", "1", "--db", str(scratch / "results.sqlite"), "--log-dir", str(logs), "--progress", "none",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    sizes = [path.stat().st_size for path in logs.rglob("*.jsonl.gz")]
    print(f"match logs (rps-poker sample round-robin): {len(sizes)} logs, {sum(sizes) / len(sizes):.0f} bytes a match")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "arena-bench-scale")
    parser.add_argument("--no-logs", action="store_true")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="arena-bytes-"))
    try:
        for size in (int(text) for text in args.sizes.split(",")):
            database_bytes(size, args.cache, scratch)
        if not args.no_logs:
            log_bytes(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
