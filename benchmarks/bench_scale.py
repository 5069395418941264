"""Months of data: the competition server and ``arena results`` on 10k, 100k and 1M matches a server wrote.

For each size, a database is built as a server writes it (once: it is kept
under ``--cache``, by default a folder of the system's temporary directory,
named by its parameters): ``--bots`` bots (house bots and participants'
uploads, copies of the minimal Python sample bot), every match recorded one at
a time through the store's ``record_match`` and the service's ``_recorded``,
rating snapshots by the standings part's ``_keep_ratings`` every ``HISTORY_EVERY``
matches, replaced and disqualified versions, match log rows (see
:class:`History`).

Then ``arena serve`` is started on a copy of it (its own process) and
measured from outside, with the ladder playing:

* **start**: from the process's start to the first page (``/``) answered,
  twice: first with nothing saved (a first start after upgrading from a
  release before saved standings, or after a crash with no stop before it:
  the standings read every row of the field's pairs and deals), then again
  after that run's clean stop, which saved the standings' arrays as every
  stop does (``start s``: what an organiser restarting a server waits);
* **RSS**: the highest, read every 20 ms, of the server's process and its own
  children together (the match worker, the standings' drawing process), the
  bots' processes apart, and of the server's process alone; beside it the same processes' **PSS** (each shared page
  counted once over them all: a sum of RSS counts the interpreter's and
  numpy's shared pages once per process);
* **p95** of ``/``, a bot page, ``/api/bots/NAME``, ``/api/matches`` (latest
  100), ``/api/matches?bot=``, a match page and ``/api/standings``, requested
  one after another for ``--seconds``;
* **standings lag**: ``now - as_of`` of ``/api/standings`` polled meanwhile,
  counted when matches were recorded since the previous poll;
* **database bytes per match**, and the largest difference between the
  ratings shown at start and a fit from scratch of the same database;
* ``arena results`` on the database: seconds and peak RSS.

The machine may be shared: the load averages are printed beside each size's
figures.

Then, with two sizes or more, the table of the figures, and a column for ten
times the largest size on paper: start, RSS, bytes and ``arena results`` drawn
on along the line through the two largest sizes.

A database built by older code is first migrated in place (timed apart: a
server's first start after an upgrade), so that each start measured is an
ordinary one.

Usage: ``python benchmarks/bench_scale.py [--sizes 10000,100000,1000000] [--bots 300] [--seconds 30] [--cache DIR]
[--rebuild] [--build-only] [--no-results] [--tables] [--profile PATH]``
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import math
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _serving import start_serving, stop_serving  # noqa: E402

from arena.bots.spec import hash_path, load_folder  # noqa: E402
from arena.competition.database.sizes import bytes_by_table  # noqa: E402
from arena.competition.ladder import Tables  # noqa: E402
from arena.competition.plan import enter_version  # noqa: E402
from arena.competition.schedule import Scheduled  # noqa: E402
from arena.competition.store import FaultRow, PlayedMatch, Store  # noqa: E402
from arena.server import retention  # noqa: E402
from arena.server.catalogue import owned  # noqa: E402
from arena.server.config import load  # noqa: E402
from arena.server.service import Competition  # noqa: E402
from arena.server.standings import HISTORY_EVERY  # noqa: E402
from arena.server.state import Participant, State  # noqa: E402

BOTS = 300
"""Bots in the field (the issue's table: 300 at every size)."""
HOUSE = 10
"""Of which house bots (the config's); the others are participants' uploads."""
SAMPLE = REPO / "sample_bots" / "rps-poker" / "minimal-python"
MIGRATION_TABLES = ("schema_migrations", "server_migrations")
"""Where a database counts the migrations it ran (the results' and the server's)."""
BUILD = 2
"""The builder's own version: a cached database built by an older builder is built again."""


def folder_of(size: int, bots: int, cache: Path) -> Path:
    """Where the database of ``size`` matches of ``bots`` bots is kept (named by everything it was built from)."""
    return cache / f"scale-b{BUILD}-{bots}bots-{size}m-every{HISTORY_EVERY}"


def build(size: int, bots: int, cache: Path, *, rebuild: bool) -> Path:
    """The config of a server whose competition has ``size`` matches (built once, then reused)."""
    folder = folder_of(size, bots, cache)
    config_path = folder / "server.toml"
    if (folder / "built").exists() and not rebuild:
        return config_path
    shutil.rmtree(folder, ignore_errors=True)
    names = [f"h{i:03d}" for i in range(min(HOUSE, bots))]
    for name in names:
        _bot_folder(folder / "house" / name, name)
    house = ", ".join(f'"{folder / "house" / name}"' for name in names)
    config_path.write_text(
        f'name = "Scale {size}"\ngame = "rps-poker"\nmax_faults = 30\nhouse_bots = [{house}]\n'
        f'[ladder]\nplacement_pairs = 1\npair_budget = 1000000\n[server]\ndata_dir = "{folder / "data"}"\nport = 0\n'
    )
    started = time.perf_counter()
    competition = Competition(load(config_path))
    try:
        competition.add_house_bots()
        for version in competition.versions():  # (the server admits them at its first start: here, at once)
            competition.store.set_admission(version.id, "admitted")
        competition.field_changed()
        History(competition, folder, random.Random(size)).play(size, bots)
    finally:
        competition.close()
    took = time.perf_counter() - started
    (folder / "built").write_text(f"{took:.1f} s\n")
    print(f"built {size:,} matches of {bots} bots in {took:.1f} s ({uptime()}): {folder}", flush=True)
    return config_path


def migrate(config_path: Path) -> float:
    """Bring the built database to this code's schema, in place, as a server's first start after an upgrade does
    (then a served copy's start is an ordinary one); the seconds it took (0: nothing to do)."""
    path = load(config_path).data_dir / "server.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        before = [db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in MIGRATION_TABLES]
    began = time.perf_counter()
    with Store.open(path) as store:
        State(store)  # (the server's own migrations)
        after = [store.schema_version(), store.db.schema_version("server")]
    return time.perf_counter() - began if before != after else 0.0


def _bot_folder(folder: Path, name: str) -> Path:
    shutil.copytree(SAMPLE, folder)
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\nreuse = true\n')
    return folder


class History:
    """A months-long ladder's history, written as the server writes it.

    Each match goes through :meth:`Store.record_match` and the service's own
    ``_recorded`` (what the ladder calls after it), one at a time, as the
    ladder records them; the matches are deals at two tables (the server's
    default scheme), seated and seeded by the ladder's own :class:`Tables`,
    among the service's own :meth:`Competition.field`. The results are drawn
    from each bot's hidden strength (Bradley-Terry), with a fault now and then
    (a few bots fault often enough to be disqualified by them). Participants
    upload (a submission, its entry, its admission: the check itself is not
    run), a fifth of them upload new versions along the way (the old one
    retired, its matches kept), some are disqualified by the organiser. Every
    ``HISTORY_EVERY`` matches the standings part's ``_keep_ratings`` keeps a snapshot
    of the field's ratings, from a table drawn by the service's own
    ``_tabulate`` (drawn again every ``REFIT`` matches: the fit is the slow
    part, and a snapshot's rows are the same size whatever its values).
    Each match names a log file (not written: a log's bytes are the pruner's
    concern), and the pruner's catch-up notes them in ``match_logs`` at the end.
    """

    REFIT = 2_000

    def __init__(self, competition: Competition, folder: Path, rng: random.Random) -> None:
        self.c = competition
        self.folder = folder
        self.rng = rng
        self.strength: dict[str, float] = {}
        self.faulty: set[str] = set()
        self.numbers: dict[tuple[str, ...], int] = {}
        self.uploads = 0

    def upload(self, participant: Participant) -> None:
        """A new version of ``participant``'s bot, entered as the submissions' pipeline enters one that passed."""
        c, name = self.c, participant.name
        self.uploads += 1
        folder = _bot_folder(self.folder / "data" / "bench-uploads" / f"{self.uploads}", name)
        sid = c.state.add_submission(participant.id, filename="bot.zip", language="python", size=2_000)
        spec = load_folder(folder)
        c.state.update_submission(sid, folder=str(folder), digest=hash_path(folder))
        others = [v for v in c.versions(participant.id) if v.row.current]
        row = enter_version(c.store, c.tid, name, spec)
        c.state.add_entry(row.id, participant.id, submission_id=sid, folder=str(folder))
        with c.store.transaction():
            c.store.set_admission(row.id, "admitted")
            for old in others:
                c.store.retire(old.id, "changed")
            c.store.log_change(c.tid, "changed" if others else "added", f"{name}: version {row.version} entered", name)
        c.specs[row.id] = owned(spec, participant.id).with_name(row.label)
        for old in others:
            c.specs.pop(old.id, None)
        c.state.update_submission(sid, status="passed", report=[], message=f"version {row.version}")
        c.field_changed()
        self.strength[name] = self.strength.get(name, self.rng.gauss(0, 1.2)) + self.rng.gauss(0, 0.3)

    def play(self, size: int, bots: int) -> None:
        c, rng = self.c, self.rng
        people = [c.state.add_participant(f"p{i:03d}")[0] for i in range(bots - HOUSE)]
        for participant in people:
            self.upload(participant)
        for name in {p.name for p in c.state.participants() if p.is_house}:
            self.strength[name] = rng.gauss(0, 1.2)
        self.faulty = set(rng.sample(sorted(self.strength), max(1, bots // 50)))
        replace_every = max(1, size // max(1, len(people) // 5 * 2))  # a fifth of them upload twice more
        disqualify_at = set(rng.sample(range(size), max(1, bots // 50)))
        logs = c.logs
        table = None
        number = 0
        while number < size:
            field = c.field()
            if number // replace_every != (number + 2) // replace_every:
                self.upload(rng.choice(people))
                field = c.field()
            if any(n in disqualify_at for n in (number, number + 1)):
                victim = rng.choice(people)
                if not victim.disqualified:
                    c.state.set_disqualified(victim.id, "benchmark: disqualified by the organiser")
                    c.field_changed()
                    field = c.field()
            a1, b1, a2, b2 = rng.sample(sorted(field), 4)
            quad = (a1, b1, a2, b2)
            deal_number = self.numbers[quad] = self.numbers.get(quad, -1) + 1
            for scheduled in Tables(a1, b1, a2, b2, deal_number).matches(c.seed, field):
                match = self.result(scheduled, logs)
                if c.store.record_match(c.tid, match):  # (as the ladder does, then its callback)
                    c._recorded(match)
                number += 1
                if table is None or number % self.REFIT == 0:
                    playing = [v for v in c.versions() if v.playing]
                    with contextlib.suppress(ArithmeticError):  # (the server draws the table again later, too)
                        table = c.standings._tabulate(playing, c.played, time.time(), None)
                        c.standings._strengths = table.strengths
                if table is not None and number % HISTORY_EVERY == 0:
                    c.standings._keep_ratings(dataclasses.replace(table, seen=c.played))
        with contextlib.closing(retention.connect(c.store.path)) as db:
            retention.catch_up(db)

    def result(self, scheduled: Scheduled, logs: Path) -> PlayedMatch:
        rng = self.rng
        faults: tuple[FaultRow, ...] = ()
        forfeit: tuple[str, ...] = ()
        for seat, name in (("A", scheduled.bot_a), ("B", scheduled.bot_b)):
            if rng.random() < (0.02 if name in self.faulty else 0.0005):
                faults += (FaultRow(seat, name, "timeout", "no answer within 2 s"),)
                forfeit += (seat,)
        p = 1 / (1 + math.exp(self.strength[scheduled.bot_b] - self.strength[scheduled.bot_a]))
        if forfeit:
            winner = None if len(forfeit) == 2 else ("B" if forfeit == ("A",) else "A")
        else:
            roll = rng.random()
            winner = "A" if roll < 0.9 * p else "B" if roll > 1 - 0.9 * (1 - p) else None
        points = {"A": (3.0, 0.0), "B": (0.0, 3.0), None: (1.0, 1.0)}[winner]
        return PlayedMatch(
            key=scheduled.key, cycle=0, deal=scheduled.deal, leg=scheduled.leg, bot_a=scheduled.bot_a,
            bot_b=scheduled.bot_b, seed=scheduled.seed, points=points, winner=winner, forfeit=forfeit,
            reason="timeout" if forfeit else "", faults=faults, duration_s=0.2, peak_rss=(12_000_000, 12_500_000),
            log_path=str(logs / f"{scheduled.key}.jsonl.gz"), versions=scheduled.versions,
        )  # fmt: skip


def uptime() -> str:
    """The machine's load averages, as ``uptime`` prints them (it is shared: every figure says its load)."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` (nearest rank), NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def refit(config_path: Path) -> tuple[int, dict[str, float]]:
    """The matches of the database as it is, and each playing version's rating fitted from scratch from it (no
    earlier strengths)."""
    competition = Competition(load(config_path))
    try:
        playing = [v for v in competition.versions() if v.playing]
        table = competition.standings._tabulate(playing, competition.played, time.time(), None)
        return competition.played, {row.bot: row.rating for row in table.board.standings}
    finally:
        competition.close()


PSS_EVERY_S = 2.0
"""How often the server's PSS is sampled while the pages are timed (its RSS: every 20 ms, :class:`PeakRss`)."""


def server_rss(process: psutil.Process, *, proportional: bool = False) -> int:
    """The resident memory of the server: its process and its own children (the match worker, the standings'
    drawing process), not the bots' processes the worker starts (bytes); with ``proportional``, their PSS."""
    total = 0
    for each in [process, *process.children()]:
        with contextlib.suppress(psutil.Error):
            total += each.memory_full_info().pss if proportional else each.memory_info().rss
    return total


RSS_EVERY_S = 0.02
"""How often :class:`PeakRss` reads the server's processes' RSS: a drawing of the standings grows its process for
a few tenths of a second each second, which a reading between rounds of pages mostly missed (measured: 135 MiB
at its peak, 111 between drawings)."""


class PeakRss:
    """The highest RSS of the server's processes together, and of its own, read every :data:`RSS_EVERY_S` in a
    thread while the pages are timed (the processes found again every second: a drawing process may be replaced)."""

    def __init__(self, server: psutil.Process) -> None:
        self.server = server
        self.all = self.main = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        found_at, processes = 0.0, [self.server]
        while not self._stop.wait(RSS_EVERY_S):
            if time.monotonic() - found_at > 1.0:
                with contextlib.suppress(psutil.Error):
                    processes, found_at = [self.server, *self.server.children()], time.monotonic()
            total = 0
            for each in processes:
                with contextlib.suppress(psutil.Error):
                    rss = each.memory_info().rss
                    total += rss
                    if each is self.server:
                        self.main = max(self.main, rss)
            self.all = max(self.all, total)


def served_copy(config_path: Path, copy: Path | None = None) -> Path:
    """A config serving a copy of the built database in folder ``copy`` (default: ``served`` beside the config), its
    config ``copy`` with ``.toml`` (the ladder adds matches: the built one stays as it was)."""
    data = load(config_path).data_dir
    copy = copy or config_path.parent / "served"
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir()
    shutil.copy2(data / "server.sqlite", copy / "server.sqlite")
    # As if the whole data folder had been copied: a database built before server schema 6 names its logs by their
    # full paths under the built folder, which its migration then makes relative to the copy's (a newer one's are).
    with contextlib.closing(sqlite3.connect(copy / "server.sqlite")) as db:
        prefix = f"{data}/"
        db.execute(
            "UPDATE matches SET log_path = ? || substr(log_path, ?) WHERE substr(log_path, 1, ?) = ?",
            (f"{copy}/", len(prefix) + 1, len(prefix), prefix),
        )
        db.commit()
    served = copy.with_suffix(".toml")
    served.write_text(config_path.read_text().replace(f'data_dir = "{data}"', f'data_dir = "{copy}"'))
    return served


def measure(config_path: Path, seconds: float, size: int, profile: Path | None = None) -> dict[str, float]:
    """Serve a copy of the competition, time its pages with the ladder playing, stop it; the figures by name.

    With ``profile``, py-spy samples the server's process (all its threads,
    idle time left out) while the pages are timed and writes what it saw there
    (``--format raw``: one line per stack with its sample count).
    """
    config_path = served_copy(config_path)
    database = load(config_path).data_dir / "server.sqlite"
    out: dict[str, float] = {"database B/match": math.nan, "start s": math.nan}
    played, expected = refit(config_path)
    with contextlib.closing(sqlite3.connect(database)) as db:  # (the refit's close saved the standings' arrays)
        db.execute("DELETE FROM standings_saved")
        db.commit()
    process, url, out["start s, nothing saved"] = first_page(config_path)
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            server = psutil.Process(process.pid)
            standings = client.get("/api/standings").json()
            if standings["matches"] == played:  # the table drawn at start, of the database as served
                ratings = {row["participant"]: row["rating"] for row in standings["standings"]}
                out["refit max |diff|"] = max(abs(ratings[name] - elo) for name, elo in expected.items())
            else:
                out["refit max |diff|"] = math.nan
            bots = [row["participant"] for row in standings["standings"]]
            recent = client.get("/api/matches", params={"limit": 50}).json()["matches"]
            keys = [m["key"] for m in recent] or ["none"]
            pages: dict[str, Callable[[], str]] = {
                "/": lambda: "/",
                "bot page": lambda: f"/bots/{random.choice(bots)}",
                "/api/bots/NAME": lambda: f"/api/bots/{random.choice(bots)}",
                "/api/matches": lambda: "/api/matches?limit=100",
                "/api/matches?bot=": lambda: f"/api/matches?bot={random.choice(bots)}&limit=40",
                "match page": lambda: f"/matches/{random.choice(keys)}",
                "/api/standings": lambda: "/api/standings",
            }
            times: dict[str, list[float]] = {name: [] for name in pages}
            ages: list[float] = []
            pss: list[int] = []
            pss_at = 0.0
            first_count = seen = standings["matches"]
            spy = None
            if profile is not None:
                spy = subprocess.Popen(
                    [str(Path(sys.executable).with_name("py-spy")), "record", "--pid", str(process.pid),
                     "--duration", str(int(seconds)), "--format", "raw", "--output", str(profile), "--threads",
                     "--nonblocking"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
            end = time.monotonic() + seconds
            with PeakRss(server) as peak:
                while time.monotonic() < end:
                    for name, path in pages.items():
                        began = time.perf_counter()
                        response = client.get(path())
                        times[name].append(time.perf_counter() - began)
                        if name == "/api/standings" and response.status_code == 200:
                            standing = response.json()
                            if standing["matches"] > seen:  # results since the last look: how far behind them
                                ages.append(time.time() - standing["as_of"])
                            seen = standing["matches"]
                    if time.monotonic() >= pss_at:  # (now and then: reading smaps takes the server's memory map lock)
                        pss.append(server_rss(server, proportional=True))
                        pss_at = time.monotonic() + PSS_EVERY_S
                last_count = client.get("/api/standings").json()["matches"]
            if spy is not None:
                spy.wait(timeout=seconds + 60)
        for name, values in times.items():
            out[f"{name} p95 ms"] = 1000 * percentile(values, 0.95)
        out["server RSS MiB (all)"] = peak.all / 2**20
        out["server RSS MiB (main)"] = peak.main / 2**20
        out["server PSS MiB (all)"] = max(pss) / 2**20
        out["standings lag p95 s"] = percentile(ages, 0.95)
        out["standings lag max s"] = max(ages, default=math.nan)
        out["ladder matches/s"] = (last_count - first_count) / seconds
    finally:
        stop_serving(process)
    # Started again after that clean stop, which saved the standings' arrays (as every stop does): the start an
    # organiser sees after an upgrade or a restart.
    process, _url, out["start s"] = first_page(config_path)
    stop_serving(process)
    out["database B/match"] = database.stat().st_size / size  # (as a stop leaves it: the saved arrays with it)
    return out


def first_page(config_path: Path) -> tuple[subprocess.Popen[str], str, float]:
    """``arena serve`` on ``config_path`` started, and seconds from its start to its first page (``/``) answered."""
    started = time.monotonic()
    process, url = start_serving([sys.executable, "-m", "arena", "serve", str(config_path), "--jobs", "2"])
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            while client.get("/").status_code != 200:
                time.sleep(0.05)
    except BaseException:
        stop_serving(process)
        raise
    return process, url, time.monotonic() - started


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


GROWING = ("database B/match", "start s", "start s, nothing saved", "server RSS MiB (all)", "server RSS MiB (main)",
           "arena results s", "arena results MiB")  # fmt: skip
"""The figures drawn on to ten times the largest size (the pages' are waits on a shared machine: not a line)."""


def extrapolated(name: str, rows: list[tuple[int, dict[str, float]]], far: int) -> float:
    """``name``'s figure at ``far`` matches on the line through the two largest sizes (bytes per match by the
    bytes: the file's size is what grows)."""
    (n1, f1), (n2, f2) = rows[-2], rows[-1]
    per_match = name == "database B/match"
    y1, y2 = (f1[name] * n1, f2[name] * n2) if per_match else (f1[name], f2[name])
    y = y2 + (y2 - y1) * (far - n2) / (n2 - n1)
    return y / far if per_match else y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="matches of each database (comma-separated)")
    parser.add_argument("--bots", type=int, default=BOTS, help="bots in the field")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the pages are timed at each size")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "arena-bench-scale")
    parser.add_argument("--rebuild", action="store_true", help="build the databases again (not from the cache)")
    parser.add_argument("--build-only", action="store_true", help="build (or find) the databases, measure nothing")
    parser.add_argument("--no-results", action="store_true", help="leave out `arena results` on each database")
    parser.add_argument(
        "--tables", action="store_true", help="print each table's and index's bytes per match (as served: migrated)"
    )
    parser.add_argument(
        "--profile", type=Path, help="py-spy the server while its pages are timed; raw stacks to PROFILE-SIZE.txt"
    )
    args = parser.parse_args()
    if args.profile is not None and not Path(sys.executable).with_name("py-spy").exists():
        raise SystemExit("--profile needs py-spy beside this Python: pip install py-spy")
    sizes = [int(text) for text in args.sizes.split(",")]
    rows = []
    for size in sizes:
        config = build(size, args.bots, args.cache, rebuild=args.rebuild)
        if args.build_only:
            continue
        migrated = migrate(config)
        if migrated:
            print(f"{size:>9,}: the built database migrated to this code's schema in {migrated:.1f} s (once)")
        load_before = uptime()
        profile = None if args.profile is None else args.profile.with_name(f"{args.profile.name}-{size}.txt")
        figures = measure(config, args.seconds, size, profile)
        if not args.no_results:
            figures["arena results s"], figures["arena results MiB"] = results_time(config)
        rows.append((size, figures))
        print(f"{size:>9,} ({load_before}; {uptime()}): " + ", ".join(f"{k} {v:.3g}" for k, v in figures.items()))
        if args.tables:
            sizes_of, matches = bytes_by_table(load(config.with_name("served.toml")).data_dir / "server.sqlite")
            print(f"  bytes per match, compacted ({sum(sizes_of.values()) / matches:.0f} in all):")
            for name, size_of in sizes_of.items():
                if size_of / matches >= 0.5:
                    print(f"    {name:<36} {size_of / matches:8.1f}")
        sys.stdout.flush()
    if not rows:
        return
    names = list(rows[0][1])
    print()
    far = 10 * rows[-1][0] if len(rows) > 1 else 0
    if far:
        print(f"(the last column: {far:,} matches on paper, each figure that grows with the history drawn on in a")
        print(" line through the two largest sizes; the others are not extrapolated)")
        print("| figure | " + " | ".join(f"{size:,} matches" for size, _ in rows) + f" | {far:,} (on paper) |")
    else:
        print("| figure | " + " | ".join(f"{size:,} matches" for size, _ in rows) + " |")
    print("|---" * (len(rows) + 1 + bool(far)) + "|")
    for name in names:
        cells = [f"{figures.get(name, math.nan):.4g}" for _, figures in rows]
        if far:
            cells.append(f"{extrapolated(name, rows, far):.4g}" if name in GROWING else "")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nmachine: {os.cpu_count()} CPUs, {uptime()} at the end (shared: compare within a run)")


if __name__ == "__main__":
    main()
