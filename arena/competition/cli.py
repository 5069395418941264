"""The competition's command line: ``arena tournament`` and ``arena results``.

Each command imports what it runs when it runs: ``arena results`` (and ``arena replay``, which takes its
``--name``/``--tournament`` options from here) need not import the tournament's machinery to build their parsers.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from .._errors import ConfigError
from ..supervisor.options import game_module_args, limits_args, limits_from, number, params_from
from . import config as config_mod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .config import TournamentConfig
    from .progress import Progress
    from .runner import OpenExecutor


# ``arena tournament`` --------------------------------------------------------
def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """The tournament config from a TOML file, or from the short form, with command-line overrides."""
    target = Path(args.target)
    if args.target.endswith(".toml"):
        if args.bots:
            raise ConfigError("give either a config file or a game and its bots, not both")
        config = config_mod.load(target)
        for key in ("cycles", "seed", "jobs", "max_faults", "name"):
            value = getattr(args, key)
            if value is not None:
                setattr(config, key, value)
        if args.deals is not None:
            config.deals = Path(args.deals)
        if args.db is not None:
            config.db = Path(args.db)
        if args.log_dir is not None:
            config.log_dir = Path(args.log_dir)
        if args.no_log:
            config.logs = False
        if args.duplicate is not None:
            config.duplicate_deals = args.duplicate
        return config
    return config_mod.from_command_line(
        args.target,
        args.bots,
        cycles=args.cycles,
        name=args.name or "",
        deals=Path(args.deals) if args.deals is not None else None,
        seed=args.seed,
        jobs=args.jobs if args.jobs is not None else 0,
        duplicate_deals=args.duplicate,
        max_faults=args.max_faults if args.max_faults is not None else config_mod.DEFAULT_MAX_FAULTS,
        fmt="gauntlet" if args.gauntlet else "round-robin",
        challenger="",
        limits=limits_from(args),
        params=params_from(args.param),
        db=Path(args.db) if args.db is not None else config_mod.DEFAULT_DB,
        log_dir=Path(args.log_dir) if args.log_dir is not None else config_mod.DEFAULT_LOG_DIR,
        logs=not args.no_log,
    )


def cmd_tournament(args: argparse.Namespace) -> int:
    """Run (or resume) a tournament and print its leaderboard."""
    import trio

    from .config import effective_jobs
    from .plan import open_competition, prepare
    from .render import render
    from .results import board_from_store
    from .runner import game_error_status, run_tournament, supervisor_processes
    from .store import Store

    config = config_from_args(args)
    config.cluster = args.cluster or config.cluster
    plan = prepare(config)
    for note in plan.notes:
        print(f"arena: note: {note}", file=sys.stderr)
    jobs = config.jobs if config.cluster else effective_jobs(config.jobs)
    processes = 1 if config.cluster else supervisor_processes(args.processes, jobs)
    with Store.open(config.db) as store:
        competition = open_competition(plan, store, fresh=args.fresh)
        dup = "duplicate deals" if plan.duplicate else "no duplicate deals"
        deals = f", deals from {config.deals}" if plan.deals else ""
        print(
            f"Competition {competition.name!r} (tournament {competition.id} in {config.db}): {plan.game.game_id},"
            f" {config.format}, {len(plan.specs)} bots, {competition.cycles} cycle(s), {dup}{deals};"
            f" seed {competition.seed}"
            + (f"; on the cluster at {config.cluster}" if config.cluster else f"; {jobs} at once")
            + (f" in up to {processes} supervisor processes" if processes > 1 else "")
        )
        for line in competition.changes:
            print(line)
        progress = progress_for(args, plan.duplicate, plan.game.points_name)
        summary = trio.run(
            lambda: run_tournament(
                plan,
                store,
                competition,
                jobs=jobs,
                reuse=not args.no_reuse,
                progress=progress,
                handle_signals=True,
                say=print,
                executor=_cluster(config.cluster, reuse=not args.no_reuse) if config.cluster else None,
                recheck=args.recheck,
                processes=processes,
                fit_processes=args.processes is None,  # a short run plays in fewer (runner.processes_for)
                pin=not args.no_pin,
            )
        )
        board = board_from_store(store, competition.id, rank_by=args.rank_by)
    sys.stdout.write(render(board, "table", width=terminal_width(), pairwise=args.pairwise))
    rate = summary.played / summary.elapsed_s if summary.elapsed_s > 0 else 0.0
    print(
        f"Played {summary.played} matches in {summary.elapsed_s:.1f}s ({rate:.2f}/s); "
        f"processes started: {summary.pool.started}, reused: {summary.pool.reused}"
        + (f"; {summary.skipped} skipped (disqualified bots)" if summary.skipped else "")
        + (f"; {summary.left_to_others} left to another arena" if summary.left_to_others else "")
    )
    if summary.interrupted:
        print(
            f"Interrupted: {board.matches} of {board.scheduled} matches are recorded; "
            "run the same command again to resume.",
            file=sys.stderr,
        )
        return 130
    print(f"Results: {config.db} (arena results {config.db})")
    return game_error_status(summary)


def progress_for(args: argparse.Namespace, pairs: bool, points_name: str) -> Progress:
    """The display ``--progress`` (or ``--quiet``) asks for; ``auto``: a bar in a terminal, else status lines."""
    from .progress import LinesProgress, PlainProgress, QuietProgress, RichProgress

    kind = "none" if args.quiet else args.progress
    if kind == "auto":
        kind = "bar" if sys.stdout.isatty() else "status"
    if kind == "lines":
        return LinesProgress(every=args.standings_every, pairs=pairs, points_name=points_name)
    if kind == "bar":
        return RichProgress()
    return PlainProgress() if kind == "status" else QuietProgress()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena tournament`` and ``arena results`` to the command line (``arena compare``: its own module's)."""
    register_tournament(sub)
    register_results(sub)


def register_tournament(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena tournament`` to the command line."""
    parser = sub.add_parser(
        "tournament",
        help="run or resume a tournament (round-robin or gauntlet) and print its leaderboard",
        description=(
            "arena tournament CONFIG.toml, or the short form: arena tournament GAME BOT BOT... "
            "Running the same command again resumes it: finished matches are not replayed."
        ),
    )
    parser.add_argument("target", metavar="CONFIG.toml|GAME", help="a tournament config file, or a game id")
    parser.add_argument(
        "bots", nargs="*", default=[], metavar="BOT", help="bots (folders, executables, command lines)"
    )  # a default: argparse then no longer calls the optional BOT required
    parser.add_argument(
        "--name", help="the competition's name: rerunning it resumes or changes it (default: the game and format)"
    )
    parser.add_argument(
        "--cycles", type=int, help="times the whole schedule is played (default 1, or one per deal of --deals)"
    )
    parser.add_argument("--seed", type=int, help="competition seed (default: the competition's, or random)")
    parser.add_argument(
        "--deals", metavar="FILE", help="fixed deal seeds, one per line: cycle c deals number c to every pairing"
    )
    parser.add_argument("--jobs", "-j", type=number(int), help="matches at once (default: the CPU count)")
    parser.add_argument(
        "--processes",
        type=number(int),
        help="supervisor processes sharing them, this one among them (default: one per CPU, at most --jobs, fewer"
        " for a run too short to repay starting one)",
    )
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="leave each supervisor process and its bots free to run on any CPU (default: with one process per CPU"
        " and every bot reusing its processes, each keeps to its own, where a match's wakeups cost least)",
    )
    dup = parser.add_mutually_exclusive_group()
    dup.add_argument("--duplicate", dest="duplicate", action="store_true", default=None, help="duplicate deals")
    dup.add_argument("--no-duplicate", dest="duplicate", action="store_false", help="each deal once")
    parser.add_argument(
        "--max-faults",
        type=int,
        help=f"disqualify a bot with more faults than this (default {config_mod.DEFAULT_MAX_FAULTS})",
    )
    parser.add_argument("--gauntlet", action="store_true", help="the first bot plays each other bot (not every pair)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter")
    parser.add_argument("--db", help=f"results database (default {config_mod.DEFAULT_DB})")
    parser.add_argument("--log-dir", help=f"where match logs go (default {config_mod.DEFAULT_LOG_DIR})")
    parser.add_argument("--no-log", action="store_true", help="write no match logs")
    parser.add_argument("--no-reuse", action="store_true", help="a fresh process per match, even for reusable bots")
    parser.add_argument(
        "--fresh", action="store_true", help="start a new competition (the old one stays in the database), any seed"
    )
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="try bots that were not admitted again, even if their files are unchanged",
    )
    parser.add_argument(
        "--progress",
        choices=("auto", "bar", "status", "lines", "none"),
        default="auto",
        help="bar: a live bar; status: a status line every few seconds; lines: a line per finished match (or deal"
        " pair) and the standings every --standings-every matches, for logs and CI; auto (default): a bar in a"
        " terminal, else status",
    )
    parser.add_argument(
        "--standings-every",
        type=number(int, zero_allowed=True),
        default=50,
        metavar="N",
        help="with --progress lines: the standings every N matches (0: never; default 50)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress display (--progress none)")
    parser.add_argument(
        "--cluster", metavar="ADDRESS", help="play the matches on a Dask cluster, such as tcp://scheduler:8786"
    )
    limits_args(parser)
    game_module_args(parser)
    board_args(parser)
    parser.set_defaults(handler=cmd_tournament)


# ``arena results`` -----------------------------------------------------------
def cmd_results(args: argparse.Namespace) -> int:
    """Print the leaderboard of a results database (or its tournaments, or its matches)."""
    from .render import render, render_matches
    from .results import board_from_store, chosen_competition, matches_report
    from .store import Store

    with Store.open(Path(args.db), readonly=True) as store:
        if args.list:
            for t in store.tournaments():
                field_ = store.versions(t.id, current=True)
                print(f"{t.id}\t{t.created_at}\t{t.game}\tseed {t.seed}\t{len(field_)} bots\t{t.name}")
            return 0
        tid = chosen_competition(store, args.tournament, args.name).id
        if args.matches:
            sys.stdout.write(render_matches(matches_report(store, tid), args.format))
            return 0
        board = board_from_store(store, tid, rank_by=args.rank_by, history=args.history)
    sys.stdout.write(render(board, args.format, width=terminal_width(), pairwise=args.pairwise))
    return 0


def register_results(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena results`` to the command line."""
    parser = sub.add_parser("results", help="show a tournament's leaderboard from its results database")
    parser.add_argument("db", metavar="DB", help="the results database (SQLite), such as arena-runs/results.sqlite")
    competition_args(parser)
    parser.add_argument(
        "--history",
        action="store_true",
        help="every version of every bot, with its results (default: the current field)",
    )
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format")
    parser.add_argument("--list", action="store_true", help="list the tournaments in the database")
    parser.add_argument(
        "--matches",
        action="store_true",
        help="list the matches with their results, faults and logs (replay one: arena replay --db DB KEY)",
    )
    board_args(parser)
    game_module_args(parser)  # the report (--html) draws each match's table with its game's view
    parser.set_defaults(handler=cmd_results)


def competition_args(parser: argparse.ArgumentParser) -> None:
    """``--tournament ID`` and ``--name NAME``: which competition of a database (default: the latest)."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--tournament", type=int, metavar="ID", help="which tournament, by id (default: the latest)")
    which.add_argument("--name", help="which competition, by name (its latest tournament)")


def board_args(parser: argparse.ArgumentParser) -> None:
    """The options that shape the printed leaderboard."""
    from .board import RANK_BY  # (here: `arena replay` takes its other options from this module, and no board)

    parser.add_argument(
        "--rank-by",
        choices=RANK_BY,
        default="rating",
        help="rank by rating (default; it weighs each opponent's strength) or by points per match",
    )
    pairwise = parser.add_mutually_exclusive_group()
    pairwise.add_argument(
        "--pairwise",
        dest="pairwise",
        action="store_true",
        default=None,
        help="always draw the pairwise matrix (by default only when it fits the terminal)",
    )
    pairwise.add_argument("--no-pairwise", dest="pairwise", action="store_false", help="never draw it")


def terminal_width() -> int:
    """The terminal's width in columns (``COLUMNS`` first; 80 when the output is not a terminal)."""
    return shutil.get_terminal_size((80, 24)).columns


def _cluster(address: str, *, reuse: bool) -> OpenExecutor:
    """The executor for a Dask cluster at ``address``, imported only then: Dask takes a second or more to import."""
    from .cluster import executor_at

    return executor_at(address, reuse=reuse)
