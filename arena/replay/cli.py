"""``arena replay``: watch a logged match, verify it, audit a seat, re-run a bot on it, or make a web page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from protocol import SEATS

from .._errors import ConfigError, StoreError
from ..competition.cli import competition_args
from ..supervisor.options import game_module_args

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._log import LoggedMatch


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena replay`` to the command line, ``--html`` (the report) to ``arena results`` and ``--watch`` to
    ``arena tournament``. What each runs is imported when it runs: ``arena results`` without ``--html`` imports
    none of the replay's pages and charts."""
    extend_results(sub)
    extend_tournament(sub)
    parser = sub.add_parser(
        "replay",
        help="watch, verify or re-run a logged match",
        description=(
            "Replay a match log: show it turn by turn (default), check it against the rules (--verify), "
            "feed its messages to a new build of a bot (--bot), or write a web page (--html)."
        ),
    )
    parser.add_argument(
        "log", metavar="LOG", help="a match log (.jsonl or .jsonl.gz), or with --db a match's number (#) or key"
    )
    parser.add_argument(
        "--db",
        type=Path,
        help="a results database: LOG is then a match of its latest competition (or of --name / --tournament),"
        " numbered as `arena results DB --matches` lists them",
    )
    competition_args(parser)
    parser.add_argument("--verify", action="store_true", help="re-run the rules and check every message and the result")
    parser.add_argument("--seat", choices=SEATS, help="show only what this seat was told and answered")
    parser.add_argument(
        "--speed", type=float, metavar="S", help="play one step every S seconds instead of stepping by key"
    )
    parser.add_argument(
        "--bot", action="append", default=[], metavar="SEAT=BOT", help="feed BOT (folder or command) what SEAT was sent"
    )
    parser.add_argument(
        "--html", type=Path, metavar="OUT.html", help="write a self-contained page that steps through the match"
    )
    parser.add_argument("--no-color", action="store_true", help="no colours in the terminal")
    game_module_args(parser)
    parser.set_defaults(handler=cmd_replay)


def log_path_from_db(db: Path, match: str, tid: int | None = None, name: str | None = None) -> Path:
    """The log of match ``match`` (its number or key) in a competition of ``db`` (by default its latest)."""
    from ..competition.results import chosen_competition, find_match
    from ..competition.store import Store
    from .report import log_of

    with Store.open(db, readonly=True) as store:
        tournament = chosen_competition(store, tid, name)
        number, played = find_match(store, tournament, match)
    path = log_of(db, played)
    if path is None:
        raise StoreError(f"match {number} ({played.key}) of {tournament.name!r} in {db} was played without a log")
    return path


def cmd_replay(args: argparse.Namespace) -> int:
    """Run ``arena replay`` as the arguments ask."""
    import contextlib

    from rich.console import Console

    from ._log import load_log
    from ._page import match_page, timeline_of
    from ._render import renderer_for
    from ._terminal import show
    from ._timeline import for_seat

    if not args.db and (args.tournament is not None or args.name is not None):
        raise ConfigError("--name and --tournament choose a competition of a database: give it with --db")
    path = log_path_from_db(args.db, args.log, args.tournament, args.name) if args.db else Path(args.log)
    log = load_log(path)
    if args.verify:
        return _verify(log)
    if args.bot:
        return _regress(log, args.bot)
    timeline = timeline_of(log)
    if args.html:
        text = match_page(log, seat=args.seat, timeline=timeline)
        args.html.parent.mkdir(parents=True, exist_ok=True)
        args.html.write_text(text, encoding="utf-8")
        print(f"wrote {args.html} ({len(timeline.frames)} steps, {len(text.encode()) / 1024:.0f} KiB)")
        return 0
    if args.seat:
        timeline = for_seat(timeline, SEATS.index(args.seat))
    renderer = renderer_for(log.game)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    # Piped (not a terminal): lines as they are, never cut at 80 columns (rich's width for a file)
    console = Console(no_color=args.no_color or None, highlight=False, soft_wrap=not sys.stdout.isatty())
    with contextlib.suppress(BrokenPipeError):
        show(timeline, renderer, console, speed=args.speed, interactive=interactive)
    return 0


def _verify(log: LoggedMatch) -> int:
    import msgspec

    from protocol import Result

    from ..games import broken_total
    from ._rerun import RulesUnavailable, rules_for
    from ._verify import verify

    try:
        verdict = verify(log)
    except RulesUnavailable as exc:
        print(f"cannot verify: {exc}")
        return 1
    if verdict.difference is None:
        error = f" (the game's own error, {log.game_error}, included)" if log.game_error else ""
        print(
            f"verified: {log.path} ({log.game}, seed {log.seed}): {verdict.checked['messages']} messages, "
            f"{verdict.checked['faults']} faults and the result are what the rules produce{error}"
        )
        result = verdict.rerun.result
        broken = broken_total(rules_for(log), msgspec.convert(result, Result)) if result is not None else ""
        if broken:
            print(f"arena: warning: {broken}", file=sys.stderr)
        return 0
    print(f"NOT verified: {log.path}\n{verdict.difference}")
    return 1


def _regress(log: LoggedMatch, bots: list[str]) -> int:
    import functools

    import trio

    from ..bots.spec import resolve
    from ._regress import regress

    differ = 0
    for item in bots:
        seat_name, sep, command = item.partition("=")
        if not sep or seat_name not in SEATS or not command:
            raise ConfigError(f"--bot {item!r}: write SEAT=BOT, such as A=sample_bots/rps-poker/random-python")
        seat = SEATS.index(seat_name)
        spec = resolve(command)
        report = trio.run(functools.partial(regress, log, seat, spec))
        print(
            f"seat {seat_name}: {spec.name} replayed {report.requests} requests that {log.name(seat)} answered; "
            f"{len(report.mismatches)} answers differ"
        )
        for mismatch in report.mismatches:
            print(f"  {mismatch}")
        if report.stopped:
            print(f"  stopped: {report.stopped}")
        differ += 0 if report.same else 1
    return 1 if differ else 0


def extend_results(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Give ``arena results`` (registered by :mod:`arena.competition.cli`) the ``--html`` option."""
    parser = sub.choices.get("results")
    if parser is None:
        return
    parser.add_argument(
        "--html",
        type=Path,
        metavar="REPORT.html",
        help="write the tournament's report page (charts, heatmap, faults, every match with its replay beside it)",
    )
    plain = parser.get_default("handler")

    def handler(args: argparse.Namespace) -> int:
        if args.html is None:
            result: int = plain(args)
            return result
        from .report import write_report

        write_report(Path(args.db), args.html, args.tournament, name=args.name)
        return 0

    parser.set_defaults(handler=handler)


def extend_tournament(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Give ``arena tournament`` (registered by :mod:`arena.competition.cli`) the ``--watch`` option."""
    parser = sub.choices.get("tournament")
    if parser is None:
        return
    parser.add_argument(
        "--watch", action="store_true", help="show the match being played, message by message (its logs live)"
    )
    plain = parser.get_default("handler")

    def handler(args: argparse.Namespace) -> int:
        if not args.watch or args.no_log:
            result: int = plain(args)
            return result
        import os
        import threading
        import time

        from ..competition.cli import config_from_args
        from ..supervisor.matchlog import LIVE_ENV
        from .watch import follow

        os.environ[LIVE_ENV] = "1"  # its logs (and its match workers', which inherit it) written out at every step
        if args.progress in ("auto", "bar"):
            args.progress = "status"  # a bar redrawn in place would overwrite the match's lines
        stop = threading.Event()
        folder = config_from_args(args).log_dir  # (a config file may name it)
        watcher = threading.Thread(target=follow, args=(folder, time.time() - 1, stop), daemon=True)
        watcher.start()
        try:
            result = plain(args)
        finally:
            stop.set()
            watcher.join(timeout=5)
        return result

    parser.set_defaults(handler=handler)
