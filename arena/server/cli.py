"""``arena serve`` and ``arena submit``."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

import trio

from .._errors import ConfigError
from ..competition.config import effective_jobs
from ..supervisor.options import game_module_args
from .client import EXTENSIONS
from .config import ServerConfig, load

# The server's modules (its web stack, the HTTP client) are imported by the commands that use them: every other
# `arena` command starts without them (0.3 s of start-up here).


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve a competition, or add participants to it."""
    from .serve import BASE_SETTING, base_url, login_url, run_server
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
    if args.backup or args.vacuum:
        from .maintain import backup, vacuum

        for line in backup(config, Path(args.backup)) if args.backup else vacuum(config):
            _say(line)
        return 0
    if args.add or args.admin_token or args.invite or args.approve:
        competition = Competition(config)
        try:
            # The links' address: --url, else --host/--port as given, else where the server last served (it may
            # run with another --port than the config's), else the config's.
            given = args.host is not None or args.port is not None
            stored = competition.participants.setting(BASE_SETTING)
            base = args.url or (base_url(config.host, config.port) if given or not stored else stored)
            if not (args.url or given or stored):
                print(
                    f"arena: note: the links use the config's address, {base}, as no server has run from"
                    f" {config.data_dir} yet: if it will be reached at another (another --port, a proxy), add"
                    " --url URL to this command",
                    file=sys.stderr,
                )
            for name in args.add:
                existing = competition.participants.named(name)
                if existing is not None and (existing.is_admin or existing.is_house):
                    raise ConfigError(f"{name!r} is the organiser or a house bot, not a participant: pick another name")
                refused = competition.participants.name_refused(name) if existing is None else ""
                if refused:
                    raise ConfigError(f"{name!r} {refused}: pick another name")
                participant, token = competition.participants.add(name)
                note = " (a new token: the old one no longer works)" if existing else ""
                link = login_url(base, competition.participants.new_login_code(participant.id))
                print(f"{participant.name}{note}: {link}  (logs in once, within a week)")
                print(f"  token: {token}")
            if args.invite and config.registration != "invite":
                raise ConfigError(
                    f"the config's registration is {config.registration!r}: invitations are for"
                    ' registration = "invite" ([access] in the config)'
                )
            for _ in range(args.invite):
                code = competition.participants.new_invite()
                print(f"invitation: {base.rstrip('/')}/register?code={code}  (registers one name, within a month)")
            for name in args.approve:
                found = competition.participants.named(name)
                if found is None or found.is_admin or found.is_house:
                    raise ConfigError(f"no participant is called {name!r}")
                competition.participants.set_awaiting(found.id, False)
                print(f"{found.name}: approved (it may upload now)")
            if args.admin_token:
                admin = competition.participants.admin_token(renew=True)
                organiser = competition.participants.by_token(admin or "")
                assert admin is not None and organiser is not None
                link = login_url(base, competition.participants.new_login_code(organiser.id))
                print(f"organiser: {link}  (logs in once, within a week)")
                print(f"  token: {admin}")
        finally:
            competition.close()
        return 0
    from ..sandbox import weigh_server
    from .safety import refuse_exposed_data, sandbox_line

    _say(sandbox_line(config))  # before anything is made: a refusal leaves nothing behind
    refuse_exposed_data(config)
    _say(weigh_server(config.server_weight))  # (before the server starts its match worker and drawing: they inherit it)
    jobs = config.jobs if config.cluster else effective_jobs(config.jobs)  # 0 on a cluster: its threads
    with locked(config.data_dir):
        trio.run(
            functools.partial(
                run_server, config, jobs=jobs, handle_signals=True, say=_say, fresh=args.fresh, url=args.url or ""
            )
        )
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

    token = args.token or _token_file(args.token_file) or os.environ.get("ARENA_TOKEN", "")
    if not token:
        raise ConfigError(
            "give your token in the ARENA_TOKEN environment variable or with --token-file FILE"
            " (--token TOKEN works too, but other users of this machine can read it in the process list)"
        )
    passed = submit(args.url, Path(args.bot), token, language=args.language or "", wait=not args.no_wait)
    return 0 if passed else 1


def _token_file(path: str | None) -> str:
    """The token in the file at ``path`` (its first line), or ``""`` without one."""
    if not path:
        return ""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"cannot read the token file {path}: {exc.strerror}") from None
    token = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not token:
        raise ConfigError(f"the token file {path} is empty: put your token in it (one line)")
    return token


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
        "--add",
        action="append",
        default=[],
        metavar="NAME",
        help="add a participant and print its token and a login link (the link logs in once, within a week)",
    )
    serve.add_argument(
        "--invite",
        type=int,
        default=0,
        metavar="N",
        help='print N invitation links (registration = "invite"): each registers one name, within a month',
    )
    serve.add_argument(
        "--approve",
        action="append",
        default=[],
        metavar="NAME",
        help='approve NAME\'s account (registration = "approve"): it may upload from now on',
    )
    serve.add_argument(
        "--admin-token", action="store_true", help="print a new token and a one-time login link for the organiser"
    )
    serve.add_argument(
        "--url",
        help="the server's public address, for the login links printed (default with --add: where it last served)",
    )
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
    game_module_args(serve)
    serve.add_argument(
        "--backup",
        metavar="DEST",
        help="copy the data folder to the new folder DEST while the server runs (the database by SQLite's online"
        " backup, then bots, logs and the session key, kept private), print what was copied, and exit;"
        " a server started with --data-dir DEST serves the copy",
    )
    serve.add_argument(
        "--vacuum",
        action="store_true",
        help="with the server stopped: prune the match logs by the config's retention, VACUUM and ANALYZE the"
        " database, print what was freed, and exit",
    )
    serve.set_defaults(handler=cmd_serve)

    submit_parser = sub.add_parser(
        "submit",
        help="upload a bot to a competition server and print its check",
        description="Upload BOT (a folder with bot.toml, a .zip or .tar.gz, or one source file) to the server at URL.",
    )
    submit_parser.add_argument("url", metavar="URL", help="the server, such as http://127.0.0.1:8000")
    submit_parser.add_argument("bot", metavar="BOT", help="a bot folder, an archive, or a single source file")
    given = submit_parser.add_mutually_exclusive_group()
    given.add_argument(
        "--token-file", metavar="FILE", help="a file holding your token (default: the ARENA_TOKEN environment variable)"
    )
    given.add_argument(
        "--token", help="your token (other users of the machine can see it in the process list: prefer ARENA_TOKEN)"
    )
    submit_parser.add_argument(
        "--language", choices=sorted(set(EXTENSIONS.values())), help="the language of a single source file"
    )
    submit_parser.add_argument("--no-wait", action="store_true", help="do not wait for the check's result")
    submit_parser.set_defaults(handler=cmd_submit)
