"""``arena serve`` and ``arena submit``."""

from __future__ import annotations

import argparse
import functools
import os
from pathlib import Path

import trio

from .._errors import ConfigError
from ..competition.config import effective_jobs
from .client import EXTENSIONS
from .config import ServerConfig, load

# The server's modules (its web stack, the HTTP client) are imported by the commands that use them: every other
# `arena` command starts without them (0.3 s of start-up here).


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve a competition, or add participants to it."""
    from .serve import base_url, login_url, run_server
    from .service import Competition, locked

    config = load(Path(args.config))
    if args.host is not None:
        config.host = args.host
    if args.port is not None:
        config.port = args.port
    if args.jobs is not None:
        config.jobs = args.jobs
    if args.cluster is not None:
        config.cluster = args.cluster
    if args.in_process:
        config.workers = 0
    if args.name is not None:
        config.name = args.name
    if args.data_dir is not None:
        config.data_dir = Path(args.data_dir).resolve()
    if args.self_check:
        return _self_check(config, Path(args.config))
    base = args.url or base_url(config.host, config.port)
    if args.add or args.admin_token:
        competition = Competition(config)
        try:
            for name in args.add:
                existing = competition.state.participant_named(name)
                if existing is not None and (existing.is_admin or existing.is_house):
                    raise ConfigError(f"{name!r} is the organiser or a house bot, not a participant: pick another name")
                participant, token = competition.state.add_participant(name)
                note = " (a new token: the old one no longer works)" if existing else ""
                print(f"{participant.name}{note}: {login_url(base, token)}")
                print(f"  token: {token}")
            if args.admin_token:
                admin = competition.admin_token(renew=True)
                assert admin is not None
                print(f"organiser: {login_url(base, admin)}")
                print(f"  token: {admin}")
        finally:
            competition.close()
        return 0
    from .safety import refuse_exposed_data, sandbox_line

    _say(sandbox_line(config))  # before anything is made: a refusal leaves nothing behind
    refuse_exposed_data(config)
    jobs = config.jobs if config.cluster else effective_jobs(config.jobs)  # 0 on a cluster: its threads
    with locked(config.data_dir):
        trio.run(functools.partial(run_server, config, jobs=jobs, handle_signals=True, say=_say, fresh=args.fresh))
    return 0


def _say(text: str) -> None:
    print(text, flush=True)


def _self_check(config: ServerConfig, path: Path) -> int:
    """Run the server's self-check on ``config`` and print a PASS/FAIL line per check; 1 when one failed."""
    from .safety import self_check

    findings = trio.run(self_check, config, path)
    for finding in findings:
        _say(finding.line())
    failed = [finding.name for finding in findings if not finding.passed]
    _say(f"{path}: {'every check passed' if not failed else 'FAILED: ' + ', '.join(failed)}")
    return 1 if failed else 0


def cmd_submit(args: argparse.Namespace) -> int:
    """Upload a bot to a competition server and print its check."""
    from .client import submit

    token = args.token or os.environ.get("ARENA_TOKEN", "")
    if not token:
        raise ConfigError("give your token with --token TOKEN (or in the ARENA_TOKEN environment variable)")
    passed = submit(args.url, Path(args.bot), token, language=args.language or "", wait=not args.no_wait)
    return 0 if passed else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` and ``submit``."""
    serve = sub.add_parser(
        "serve",
        help="run a competition server: uploads, a rolling ladder, live standings and replays",
        description="Serve a competition (a web app and its rolling ladder) from CONFIG.toml.",
    )
    serve.add_argument("config", metavar="CONFIG.toml", help="the server's config (see examples/)")
    serve.add_argument("--host", help="address to listen on (default: the config's, else 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default: the config's, else 8000)")
    serve.add_argument("--jobs", type=int, help="matches at once (default: the config's, else the CPU count)")
    serve.add_argument(
        "--cluster", metavar="ADDRESS", help="play the ladder's matches on a Dask cluster (tcp://host:8786)"
    )
    serve.add_argument(
        "--in-process",
        action="store_true",
        help="play the ladder's matches in the server's own process (default with --jobs 2 or more: in a worker"
        " process, so pages never wait behind match work; config: workers = 0)",
    )
    serve.add_argument(
        "--add", action="append", default=[], metavar="NAME", help="add a participant and print its login link"
    )
    serve.add_argument("--admin-token", action="store_true", help="print a new login link for the organiser")
    serve.add_argument("--url", help="the server's public address, for the login links printed")
    serve.add_argument(
        "--name", help="the competition's name (default: the config's): another name is another competition"
    )
    serve.add_argument(
        "--fresh",
        action="store_true",
        help="start a new competition under the config's name (the old one stays in the database; participants"
        " keep their tokens and upload again)",
    )
    serve.add_argument(
        "--data-dir",
        metavar="DIR",
        default=os.environ.get("ARENA_DATA_DIR") or None,
        help="the server's data folder (default: the ARENA_DATA_DIR environment variable, else the config's"
        " data_dir); never in a folder every bot's jail reads (/usr, /etc, /opt...)",
    )
    serve.add_argument(
        "--self-check",
        action="store_true",
        help="check this config as strangers would meet it (no seed in the config or on the pages, the data"
        " unreadable from a jail, every `arena sandbox` canary held), print PASS/FAIL lines, and exit",
    )
    serve.set_defaults(handler=cmd_serve)

    submit_parser = sub.add_parser(
        "submit",
        help="upload a bot to a competition server and print its check",
        description="Upload BOT (a folder with bot.toml, a .zip or .tar.gz, or one source file) to the server at URL.",
    )
    submit_parser.add_argument("url", metavar="URL", help="the server, such as http://127.0.0.1:8000")
    submit_parser.add_argument("bot", metavar="BOT", help="a bot folder, an archive, or a single source file")
    submit_parser.add_argument("--token", help="your token (default: the ARENA_TOKEN environment variable)")
    submit_parser.add_argument(
        "--language", choices=sorted(set(EXTENSIONS.values())), help="the language of a single source file"
    )
    submit_parser.add_argument("--no-wait", action="store_true", help="do not wait for the check's result")
    submit_parser.set_defaults(handler=cmd_submit)
