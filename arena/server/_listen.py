"""Accepting connections without running out of file descriptors.

Hypercorn's own accept loop takes every connection the kernel offers: 1,100
connections to ``/events`` under the common 1,024-descriptor limit left the
process with none for its database, logs and bots, and the first background
task that opened a file died of ``EMFILE`` and took the server with it. Here
the server accepts at most :attr:`Budget.connections` connections at once, a
number computed from ``RLIMIT_NOFILE`` that leaves :attr:`Budget.reserve`
descriptors for everything else, and at most :attr:`Budget.per_address` from
one address: a flooder's extra connections are answered ``429`` and closed
at once, and past the cap new connections wait in the kernel's queue until
one closes. Each accepted connection is served by Hypercorn's own
``TCPServer``, as ``hypercorn.trio.serve`` would.
A trusted proxy's connections (the config's ``trusted_proxies``) are not
limited by address: everyone behind it shares it.
"""

from __future__ import annotations

import errno
import functools
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState
from hypercorn.utils import repr_socket_addr, wrap_app
from starlette.types import ASGIApp

from ._clients import Network, trusted

RESERVE_LEAST = 256
"""Descriptors always kept back from connections (for the database, logs, threads, bots' pipes), at the least."""
RESERVE_SHARE = 4
"""...or a quarter of the limit, whichever is more."""
CONNECTIONS_LEAST = 16
PER_ADDRESS_SHARE = 8
"""One address may hold an eighth of the connections (at least :data:`PER_ADDRESS_LEAST`)."""
PER_ADDRESS_LEAST = 8
CAPACITY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""What ``accept`` raises when the process or the system is out of descriptors or memory: wait and retry."""
REFUSE_S = 2.0
"""The longest a refused connection is kept to be told why (its descriptor counts against the cap meanwhile)."""
SAY_EVERY_S = 60.0
"""A condition (at the cap, out of descriptors) is logged at most this often."""
TOO_MANY = (
    b"HTTP/1.1 429 Too Many Requests\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"retry-after: 10\r\ncontent-length: %d\r\n\r\n%s"
)


@dataclass(frozen=True)
class Budget:
    """How many connections the server holds at once, from the descriptors it may open."""

    limit: int
    """The process's ``RLIMIT_NOFILE`` (soft)."""
    connections: int
    """Connections open at once, at most."""
    per_address: int
    """Connections from one address at once, at most (a trusted proxy's are not counted)."""

    @property
    def reserve(self) -> int:
        """Descriptors kept for everything but connections."""
        return self.limit - self.connections

    @classmethod
    def of(cls, limit: int | None = None) -> Budget:
        """The budget under descriptor limit ``limit`` (the process's own by default)."""
        if limit is None:
            soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
            limit = soft if soft != resource.RLIM_INFINITY else 1 << 20
        reserve = max(RESERVE_LEAST, limit // RESERVE_SHARE)
        connections = max(CONNECTIONS_LEAST, limit - reserve)
        return cls(limit, connections, max(PER_ADDRESS_LEAST, connections // PER_ADDRESS_SHARE))

    def line(self) -> str:
        """What ``arena serve`` prints about it."""
        return (
            f"connections: at most {self.connections} at once ({self.per_address} from one address), keeping"
            f" {self.reserve} of the {self.limit} file descriptors allowed (ulimit -n) for the database, logs and bots"
        )


@dataclass
class Gate:
    """The connections open now: in all, and by address."""

    budget: Budget
    exempt: tuple[Network, ...] = ()
    """Addresses not limited per address (trusted proxies: everyone behind them shares their address)."""
    total: int = 0
    by_address: dict[str, int] = field(default_factory=dict)
    _freed: trio.Event = field(default_factory=trio.Event)

    def full(self) -> bool:
        """Whether no connection may be accepted now."""
        return self.total >= self.budget.connections

    async def room(self) -> None:
        """Wait until a connection may be accepted."""
        while self.full():
            freed = self._freed
            await freed.wait()

    def take(self, address: str) -> bool:
        """Count a connection from ``address``; whether it may be served (else it is refused, still counted)."""
        self.total += 1
        if trusted(address, self.exempt):
            return True
        held = self.by_address.get(address, 0)
        if held >= self.budget.per_address:
            return False
        self.by_address[address] = held + 1
        return True

    def give_back(self, address: str, *, served: bool) -> None:
        """A connection from ``address`` closed."""
        self.total -= 1
        if served and address in self.by_address:
            self.by_address[address] -= 1
            if not self.by_address[address]:
                del self.by_address[address]
        self._freed.set()
        self._freed = trio.Event()


class _Say:
    """Log a condition at most every ``SAY_EVERY_S`` (a flood would otherwise flood the log)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.last: dict[str, float] = {}

    def __call__(self, kind: str, text: str) -> None:
        now = time.monotonic()
        if now - self.last.get(kind, -SAY_EVERY_S) >= SAY_EVERY_S:
            self.last[kind] = now
            self.say(text)


async def serve(
    app: ASGIApp,
    config: HypercornConfig,
    *,
    budget: Budget,
    exempt: tuple[Network, ...] = (),
    say: Callable[[str], None] = print,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``app`` on ``config.bind`` (plain HTTP), holding at most ``budget``'s connections; until cancelled.

    Reports the addresses it listens on through ``task_status``, as
    ``hypercorn.trio.serve`` does.
    """
    wrapped = wrap_app(app, config.wsgi_max_body_size, "asgi")  # type: ignore[arg-type]
    context = WorkerContext(None)
    sockets = config.create_sockets()
    listeners = []
    binds = []
    for sock in sockets.insecure_sockets:
        sock.listen(config.backlog)
        listeners.append(trio.SocketListener(trio.socket.from_stdlib_socket(sock)))
        binds.append(f"http://{repr_socket_addr(sock.family, sock.getsockname())}")
    gate = Gate(budget, exempt)
    logged = _Say(say)
    handler = functools.partial(TCPServer, wrapped, config, context, ConnectionState({}))
    async with trio.open_nursery() as connections:
        for listener in listeners:
            connections.start_soon(_accept, listener, gate, connections, handler, logged)
        task_status.started(binds)


async def _accept(
    listener: trio.SocketListener,
    gate: Gate,
    connections: trio.Nursery,
    handler: Callable[[trio.SocketStream], TCPServer],
    say: _Say,
) -> None:
    backoff = 0.05
    async with listener:
        while True:
            if gate.full():
                say("cap", f"connections: {gate.total} open, the most allowed: new ones wait for one to close")
                await gate.room()
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in CAPACITY_ERRNOS:
                    raise
                say("accept", f"connections: accept failed ({exc.strerror}): retrying in {backoff:g} s")
                await trio.sleep(backoff)
                backoff = min(2 * backoff, 2.0)
                continue
            backoff = 0.05
            address = _peer(stream)
            if gate.take(address):
                connections.start_soon(_serve_one, stream, address, gate, handler)
            else:
                say("address", f"connections: {address} holds {gate.budget.per_address}, the most from one address")
                connections.start_soon(_refuse, stream, address, gate)


async def _serve_one(
    stream: trio.SocketStream, address: str, gate: Gate, handler: Callable[[trio.SocketStream], TCPServer]
) -> None:
    try:
        await handler(stream)
    finally:
        await trio.aclose_forcefully(stream)
        gate.give_back(address, served=True)


async def _refuse(stream: trio.SocketStream, address: str, gate: Gate) -> None:
    """Tell a connection over its address's share why it is closed (a 429), and close it."""
    reason = (
        f"too many connections from {address} at once (at most {gate.budget.per_address}): close some and retry\n"
    ).encode()
    try:
        with trio.move_on_after(REFUSE_S):
            await stream.send_all(TOO_MANY % (len(reason), reason))
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    finally:
        await trio.aclose_forcefully(stream)
        gate.give_back(address, served=False)


def _peer(stream: trio.SocketStream) -> str:
    try:
        peer = stream.socket.getpeername()
    except OSError:
        return ""
    return str(peer[0]) if isinstance(peer, tuple) else ""
