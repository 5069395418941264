"""Matches per second: a local tournament versus the same tournament on a local Dask cluster of two workers.

    .venv/bin/python benchmarks/bench_cluster.py [--cycles N] [--jobs N]

Both runs play the same schedule (same bots, same seed) into fresh databases;
the cluster is a LocalCluster with two worker processes of one thread each on
loopback, started before the clock starts. The local run plays ``--jobs``
matches at once (2 by default, as many as the cluster); both reuse bot
processes where bots allow it (on the cluster, per worker). The script checks
that both runs recorded the same results. The figures are only comparable
from one run: the machine is shared, so absolute rates vary with its load.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.competition import config as config_mod  # noqa: E402
from arena.competition.cluster import executor_at  # noqa: E402
from arena.competition.plan import open_competition, prepare  # noqa: E402
from arena.competition.runner import run_tournament  # noqa: E402
from arena.competition.store import Store  # noqa: E402
from protocol import Limits  # noqa: E402

BOTS = [
    str(ROOT / "sample_bots" / "rps-poker" / n)
    for n in ("random-python", "simple-py", "minimal-python", "basic-odds-py")
]


def play(folder: Path, *, cycles: int, jobs: int, cluster: str) -> tuple[float, int, list[tuple[object, ...]]]:
    config = config_mod.from_command_line(
        "rps-poker",
        BOTS,
        cycles=cycles,
        seed=7,
        jobs=jobs,
        duplicate_deals=None,
        max_faults=10_000,
        fmt="round-robin",
        challenger="",
        limits=Limits(),
        params={},
        db=folder / "results.sqlite",
        log_dir=folder / "logs",
        logs=True,
    )
    plan = prepare(config)
    with Store.open(config.db) as store:
        competition = open_competition(plan, store, fresh=True)
        started = time.perf_counter()
        summary = trio.run(
            lambda: run_tournament(
                plan, store, competition, jobs=jobs, executor=executor_at(cluster) if cluster else None
            )
        )
        elapsed = time.perf_counter() - started
        rows: list[tuple[object, ...]] = sorted(
            (m.key, m.points, m.winner, m.reason) for m in store.matches(competition.id)
        )
    return elapsed, summary.played, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cluster-jobs", type=int, default=0, help="matches in flight on the cluster (0: its threads)")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    from arena.competition.cluster import host_stats

    with tempfile.TemporaryDirectory() as tmp:
        local_s, played, local_rows = play(Path(tmp) / "local", cycles=args.cycles, jobs=args.jobs, cluster="")
        print(f"local, {args.jobs} at once: {played} matches in {local_s:6.2f} s = {played / local_s:6.2f} matches/s")
        t0 = time.perf_counter()
        with LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": ":0"},
            silence_logs=logging.CRITICAL,
        ) as cluster:
            start_s = time.perf_counter() - t0
            cluster_s, played, cluster_rows = play(
                Path(tmp) / "cluster", cycles=args.cycles, jobs=args.cluster_jobs, cluster=cluster.scheduler_address
            )
            with Client(cluster.scheduler_address) as client:  # type: ignore[no-untyped-call]
                processes = client.run(host_stats)
        print(
            f"cluster, 2 workers: {played} matches in {cluster_s:6.2f} s = {played / cluster_s:6.2f} matches/s"
            f" (cluster start {start_s:.1f} s, not counted; includes connecting and sending bundles)"
        )
        started = sum(p.get("started", 0) for p in processes.values())
        print(f"bot processes started on the workers: {started} for {played} matches")
        print("same results:", local_rows == cluster_rows)


if __name__ == "__main__":
    main()
