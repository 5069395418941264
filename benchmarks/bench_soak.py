"""A long run: does the arena's memory and time per match stay flat as matches pile up?

Plays one competition of ``--matches`` RPS Poker matches between cheap bots
that keep their processes (``minimal-python`` and ``random-python`` by
default; duplicate deals; no match logs, so the disk is not measured), in this
process or over ``--processes`` supervisor processes, and samples the arena's resident memory (RSS) and the clock as
matches finish. It prints:

* RSS after the first 1,000 matches (or the first 1% of a shorter run) and at
  the end, and the growth between them; the goal is within 10%;
* matches per second over the first 10% and the last 10% of matches, and
  their ratio; the goal is 1.0 (the last tenth as fast as the first);
* the load average of the machine beside them, since other work on it moves
  the rates.

Usage: ``python benchmarks/bench_soak.py [--matches 100000] [--jobs 2] [--processes 2] [--bots NAME ...] [--docs]``
(Ctrl-C ends it early, with the figures over the matches played; ``--docs`` writes them into docs/performance.md)
(100,000 matches take about an hour on two cores; 20,000 show the trend).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.competition.config import BotEntry, TournamentConfig  # noqa: E402
from arena.competition.plan import open_competition, prepare  # noqa: E402
from arena.competition.runner import run_tournament  # noqa: E402
from arena.competition.store import Store  # noqa: E402
from arena.competition.worker import WORKER_MAIN  # noqa: E402
from protocol import Limits  # noqa: E402

RPS = REPO / "sample_bots" / "rps-poker"


class Sampler:
    """A progress display that records (matches done, seconds, RSS) as matches finish.

    The RSS is the arena's: this process's, and with ``--processes`` over 1
    its supervisor processes' (match workers') too, summed.
    """

    def __init__(self, total: int, processes: int = 1, say: Callable[[str], None] = print) -> None:
        self.total = total
        self._say = say
        self.every = max(1, total // 200)
        self.samples: list[tuple[int, float, int]] = []
        self._process = psutil.Process()
        self._processes = processes
        self._workers: dict[int, psutil.Process] = {}
        self._t0 = 0.0

    def rss(self) -> int:
        """The resident memory of this process and of its supervisor processes."""
        if self._processes > 1 and len(self._workers) < self._processes:
            for child in self._process.children():  # a walk of /proc: only until every worker is found
                with contextlib.suppress(psutil.Error):
                    if WORKER_MAIN in " ".join(child.cmdline()):
                        self._workers.setdefault(child.pid, child)
        total = self._process.memory_info().rss
        for pid, worker in list(self._workers.items()):
            try:
                total += worker.memory_info().rss
            except psutil.Error:  # it died (and another took its place): counted no more
                del self._workers[pid]
        return int(total)

    def start(self, total: int, done: int) -> None:
        self._t0 = time.monotonic()
        self.samples.append((done, 0.0, self.rss()))

    def advance(self, done: int, total: int, leader: str) -> None:
        if done % self.every == 0 or done == total:
            self.samples.append((done, time.monotonic() - self._t0, self.rss()))
            if done % (self.every * 20) == 0:
                self._say(
                    f"  {done:>7} matches, {self.samples[-1][1]:8.1f} s, RSS {self.samples[-1][2] / 2**20:.1f} MiB,"
                    f" load {os.getloadavg()[0]:.1f}"
                )

    def finished(self, match: object, done: int, total: int) -> None:
        pass  # advance() follows with the same count

    def stop(self) -> None:
        pass

    def at(self, done: int) -> tuple[int, float, int]:
        """The first sample at or after ``done`` matches."""
        return next(s for s in self.samples if s[0] >= done)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--processes", type=int, default=1, help="supervisor processes sharing the jobs (default 1: this one)"
    )
    parser.add_argument("--bots", nargs="+", default=["minimal-python", "random-python"])
    parser.add_argument("--docs", action="store_true", help="write the figures into docs/performance.md")
    args = parser.parse_args()
    pairs = len(args.bots) * (len(args.bots) - 1) // 2
    cycles = max(1, args.matches // (2 * pairs))
    total = cycles * 2 * pairs
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    with tempfile.TemporaryDirectory() as tmp:
        config = TournamentConfig(
            game="rps-poker",
            bots=[BotEntry(text=str(RPS / name)) for name in args.bots],
            cycles=cycles,
            seed=1,
            max_faults=total,
            limits=Limits(move_s=2.0),
            db=Path(tmp) / "soak.sqlite",
            logs=False,
        )
        plan = prepare(config)
        sampler = Sampler(total, args.processes, say)
        say(
            f"Soak: {total} matches of {', '.join(args.bots)} (duplicate deals), jobs {args.jobs}"
            f" in {args.processes} supervisor process(es); {os.cpu_count()} CPUs;"
            f" load average at the start {os.getloadavg()[0]:.2f}"
        )
        with Store.open(config.db) as store:
            competition = open_competition(plan, store)
            summary = trio.run(
                lambda: run_tournament(
                    plan, store, competition, jobs=args.jobs, progress=sampler, processes=args.processes,
                    handle_signals=True,
                )
            )  # fmt: skip
    played = sampler.samples[-1][0]  # Ctrl-C (or SIGTERM) ends the run early: the figures are over what it played
    if summary.interrupted:
        say(f"Stopped (a signal) after {played} of {total} matches: the figures below are over those")
    if played < 10:
        raise SystemExit("bench_soak: too few matches played to say anything")
    early = min(1000, max(1, played // 100))
    _, _, rss_early = sampler.at(early)
    _, _, rss_end = sampler.samples[-1]
    tenth = max(1, played // 10)
    first_done, first_t, _ = sampler.at(tenth)
    last_start_done, last_start_t, _ = sampler.at(played - tenth)
    end_done, end_t, _ = sampler.samples[-1]
    first_rate = first_done / first_t
    last_rate = (end_done - last_start_done) / max(1e-9, end_t - last_start_t)
    say(f"Played {summary.played} matches in {end_t:.0f} s; processes started {summary.pool.started}")
    say(
        f"RSS after {early} matches: {rss_early / 2**20:.1f} MiB; at the end: {rss_end / 2**20:.1f} MiB"
        f" ({100 * (rss_end - rss_early) / rss_early:+.1f}%; goal: within 10%)"
    )
    say(
        f"Throughput: first 10% {first_rate:.1f} matches/s, last 10% {last_rate:.1f} matches/s"
        f" (ratio {last_rate / first_rate:.2f}; goal: 1.0)"
    )
    say(f"Load average at the end: {os.getloadavg()[0]:.2f} (the machine's other work moves the rates)")
    if args.docs:
        write_docs(args, lines)


PAGE = REPO / "docs" / "performance.md"


def write_docs(args: argparse.Namespace, lines: list[str]) -> None:
    """Replace the figures between the ``soak`` markers of the performance page with this run's."""
    first, last = "<!-- soak: begin -->", "<!-- soak: end -->"
    text = PAGE.read_text()
    begin, end = text.find(first), text.find(last)
    if begin < 0 or end < begin:
        raise SystemExit(f"bench_soak: {PAGE} has no {first} ... {last} section to write")
    command = f"python benchmarks/bench_soak.py --matches {args.matches} --jobs {args.jobs}"
    command += f" --processes {args.processes}"
    block = [f"Measured by `{command} --docs` (which wrote this part):", "", "```", *lines, "```"]
    PAGE.write_text(text[: begin + len(first)] + "\n" + "\n".join(block) + "\n" + text[end:])
    print(f"wrote the figures into {PAGE}")


if __name__ == "__main__":
    main()
