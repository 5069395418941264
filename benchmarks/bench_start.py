"""How long the commands that people (and the test suite) start many times take to start.

Each figure is the median of ``--repeat`` runs, wall clock, of a fresh process:

* ``arena --help``, ``arena results DB``, ``arena replay --verify LOG``: until the process exits;
* ``arena serve CONFIG``: from the command to the first page answered (``/``, 200), and to the first match of
  its ladder recorded (the match worker must be up by then: the server answers pages while it starts).

The database, log and server config are made once in a temporary folder (a short tournament of two sample
bots). With ``--against FOLDER`` (another checkout of the arena, such as ``git worktree`` or ``git archive`` of an
older commit) the same commands are timed there too, the two interleaved run by run, and the ratio printed:
the machine may be busy, so only figures from one run compare (the load average is printed beside them).

Usage: ``python benchmarks/bench_start.py [--repeat 10] [--against FOLDER] [--only NAME]...``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from _serving import start_serving

REPO = Path(__file__).resolve().parents[1]
BOTS = REPO / "sample_bots" / "rps-poker"


def arena(*words: str) -> list[str]:
    return [sys.executable, "-m", "arena", *words]


def env_for(checkout: Path) -> dict[str, str]:
    """Run ``checkout``'s arena (its folder first on the path) with this interpreter and its packages."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(checkout), env.get("PYTHONPATH", "")) if p)
    return env


def exits(checkout: Path, *words: str) -> Callable[[], dict[str, float]]:
    """Time ``arena WORDS`` until it exits (it must succeed)."""

    def run() -> dict[str, float]:
        started = time.monotonic()
        subprocess.run(arena(*words), cwd=checkout, env=env_for(checkout), check=True, stdout=subprocess.DEVNULL)
        return {"": time.monotonic() - started}

    return run


def serves(checkout: Path, config: Path) -> Callable[[], dict[str, float]]:
    """Time ``arena serve CONFIG`` to its first page answered and to its ladder's first match recorded."""

    def run() -> dict[str, float]:
        started = time.monotonic()
        process, url = start_serving(arena("serve", str(config)), cwd=checkout, env=env_for(checkout))
        out: dict[str, float] = {}
        try:
            with httpx.Client(base_url=url, timeout=60) as client:
                while client.get("/").status_code != 200:
                    time.sleep(0.01)
                out[" to first page"] = time.monotonic() - started
                before = client.get("/api/standings").json()["matches"]
                while client.get("/api/standings").json()["matches"] == before:
                    time.sleep(0.05)  # (a reader's pace: each answer costs the server, whose worker is starting)
                out[" to a match"] = time.monotonic() - started
        finally:
            os.killpg(process.pid, 15)
            process.wait(timeout=30)
            assert process.stdout is not None
            process.stdout.close()
        return out

    return run


def prepare(folder: Path, checkout: Path) -> tuple[Path, Path, Path]:
    """A results database of a short tournament, one of its logs, and a server config (data in ``folder``)."""
    db = folder / "results.sqlite"
    logs = folder / "logs"
    bots = [str(BOTS / "minimal-python"), str(BOTS / "random-python")]
    subprocess.run(
        arena("tournament", "rps-poker", *bots, "--db", str(db), "--log-dir", str(logs), "--quiet"),
        cwd=checkout, env=env_for(checkout), check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    log = next(logs.rglob("*.jsonl*"))
    config = folder / "server.toml"
    house = ", ".join(f'"{bot}"' for bot in bots)
    config.write_text(
        f'name = "Start"\ngame = "rps-poker"\nhouse_bots = [{house}]\nworkers = 1\n'
        "[ladder]\nplacement_pairs = 100000\npair_budget = 100000\n"
        f'[server]\ndata_dir = "{folder / "data"}"\nport = 0\n'
    )
    return db, log, config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--against", type=Path, help="another checkout, timed interleaved with this one")
    parser.add_argument(
        "--only", action="append", default=[], help="time only the commands whose name contains this (repeatable)"
    )
    args = parser.parse_args()
    checkouts = {"this": REPO} | ({"against": args.against.resolve()} if args.against else {})
    with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
        commands: dict[str, dict[str, Callable[[], dict[str, float]]]] = {}
        for label, checkout in checkouts.items():
            folder = Path(tmp) / label
            folder.mkdir()
            db, log, config = prepare(folder, checkout)
            for name, timed in {
                "arena --help": exits(checkout, "--help"),
                "arena results DB": exits(checkout, "results", str(db)),
                "arena replay --verify LOG": exits(checkout, "replay", "--verify", str(log)),
                "arena serve CONFIG": serves(checkout, config),
            }.items():
                if not args.only or any(part in name for part in args.only):
                    commands.setdefault(name, {})[label] = timed
            serves(checkout, config)()  # (once, not timed: the server's first start makes its data folder)
        load = os.getloadavg()
        print(f"load {load[0]:.2f} {load[1]:.2f}, {os.cpu_count()} CPUs; medians of {args.repeat}")
        for name, runs in commands.items():
            figures: dict[str, dict[str, list[float]]] = {}
            for _ in range(args.repeat):
                for label, timed in runs.items():  # interleaved: a change of load falls on both alike
                    for part, seconds in timed().items():
                        figures.setdefault(name + part, {}).setdefault(label, []).append(seconds)
            for figure, by_label in figures.items():
                medians = {label: statistics.median(times) for label, times in by_label.items()}
                line = "  ".join(f"{label} {median:.3f} s" for label, median in medians.items())
                if "against" in medians:
                    line += f"  (this/against {medians['this'] / medians['against']:.2f})"
                print(f"{figure:40} {line}   load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
