"""Running the server: the web app (Hypercorn's trio worker) and the competition in one trio nursery.

The ladder's matches are played in the competition's match worker process (see :mod:`arena.server.service`).
"""

from __future__ import annotations

import functools
import gc
import signal
import socket
import sys
from collections.abc import Callable

import trio
from hypercorn.config import Config as HypercornConfig

from .._errors import ConfigError
from ..supervisor import _process
from ._listen import Budget, serve
from .config import ServerConfig
from .drawing import DrawingProcess
from .service import DB_NAME, Competition
from .web import create_app


def login_url(base: str, code: str) -> str:
    """A login link: ``code`` (:meth:`~arena.server.state.State.new_login_code`) logs in once, within a week."""
    return f"{base.rstrip('/')}/login/{code}"


BASE_SETTING = "login_base"
"""The setting that keeps where the server last served (its ``--url``, else its address), for the links that
``arena serve CONFIG --add NAME`` prints while it runs."""


SWITCH_INTERVAL_S = 0.0005
"""How long a thread may hold the GIL while another waits for it (Python's default: 5 ms).

The server counts a changed field's history and draws the board in threads
(pure Python); meanwhile each wake-up of the event loop (a result to record
and the ladder's next pair to hand over, a page to serve) waited up to the
default 5 ms. Measured with ``benchmarks/bench_server.py --readers 0``: while
20 uploads entered the field (each a recount), the ladder kept 47-50% of its
speed alone with the default and 64% with 0.5 ms.
"""


def base_url(host: str, port: int) -> str:
    """The address people type, for a bind address."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


async def run_server(
    config: ServerConfig,
    *,
    jobs: int,
    say: Callable[[str], None] = print,
    handle_signals: bool = False,
    fresh: bool = False,
    url: str = "",
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``config``'s competition until cancelled (or, with ``handle_signals``, until SIGINT or SIGTERM).

    Reports the address it serves on through ``task_status`` (useful with port 0). With ``fresh`` a
    new competition starts under the config's name (the old one stays in the database). Login links
    printed start with ``url`` (the server's public address), else the address it serves on.
    """
    _check_port(config.host, config.port)
    drawing = DrawingProcess(config.data_dir / DB_NAME)  # started first: it imports what it needs meanwhile
    drawing.start()
    try:
        competition = Competition(config, fresh=fresh, drawing=drawing)
    except BaseException:
        drawing.stop()
        raise
    switch = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    waits = _process.SYNC_WAIT.set(0.0)  # pages, checks and matches started here wait in trio's loop only
    try:
        for line in [*competition.opening, *competition.add_house_bots()]:
            say(line)
        app = create_app(competition)
        hypercorn = HypercornConfig()
        hypercorn.bind = [f"[{config.host}]:{config.port}" if ":" in config.host else f"{config.host}:{config.port}"]
        hypercorn.accesslog = None
        hypercorn.keep_alive_timeout = 30
        hypercorn.loglevel = "WARNING"
        budget = Budget.of()
        say(budget.line())
        async with trio.open_nursery() as nursery:
            if handle_signals:
                nursery.start_soon(_stop_on_signal, nursery.cancel_scope, say)
            await nursery.start(functools.partial(competition.run, jobs=jobs, cluster=config.cluster, say=say))
            try:
                binds: list[str] = await nursery.start(
                    functools.partial(serve, app, hypercorn, budget=budget, exempt=config.trusted_proxies, say=say)
                )
            except* OSError as group:  # a port in use (`mkdocs serve` takes 8000 too) is the organiser's to change
                raise _cannot_listen(hypercorn.bind[0], group) from None
            address = binds[0].replace("0.0.0.0", "127.0.0.1")
            base = url or address
            competition.participants.set_setting(BASE_SETTING, base)
            code = competition.participants.admin_link_code()
            if code:  # the token itself is not printed: logs (a container's) keep what is printed
                say(
                    "organiser's login link (it logs in once, within a week; `arena serve CONFIG --admin-token`"
                    " prints a token and a new link):"
                )
                say(f"  {login_url(base, code)}")
            field = len(competition.field())
            say(f"serving {config.title} ({competition.game.game_id}) on {address}: {field} bots on the ladder")
            # What the start made is kept for good: no collection of the oldest generation walks it again (those
            # of a million matches' server took up to 114 ms on the loop, five in 40 s; 51 ms at most after this).
            gc.freeze()
            task_status.started(address)
    finally:
        gc.unfreeze()
        sys.setswitchinterval(switch)
        _process.SYNC_WAIT.reset(waits)
        competition.close()


def _check_port(host: str, port: int) -> None:
    """A :class:`ConfigError` now, before anything starts, if ``host:port`` cannot be listened on.

    Hypercorn would say so too, but with a traceback and a socket it leaves
    open; the bind it makes next can still fail (a port taken meanwhile).
    """
    if port == 0:
        return
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as hypercorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise _cannot_listen(f"{host}:{port}", BaseExceptionGroup("bind", [exc])) from None


def _cannot_listen(bind: str, group: BaseExceptionGroup[OSError]) -> ConfigError:
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return ConfigError(
        f"cannot serve on {bind}: {reason}; choose another port with --port (or port in the config's [server])"
    )


async def _stop_on_signal(scope: trio.CancelScope, say: Callable[[str], None]) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            say("stopping: matches in play are abandoned (they are played again on restart)")
            scope.cancel()
            return
