"""The arena processes working on a database (table ``arenas``) and what each has claimed (table ``claims``):
matches (``match:<key>``) and persistent bots (``bot:<version id>``), so that several arenas cooperate without
playing a match twice. A claim whose arena died (even by ``kill -9``) is taken over."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import psutil

from .competitions import now

if TYPE_CHECKING:
    from .connection import Database

HEARTBEAT_S = 20.0
"""How often a running arena says it is alive (seen only by arenas on other hosts)."""
STALE_AFTER_S = 120.0
"""An arena on another host that has not said so for this long is taken for dead, and its claims are free."""


@dataclass(frozen=True)
class Holder:
    """The arena process holding a claim."""

    arena_id: int
    host: str
    pid: int

    def __str__(self) -> str:
        here = socket.gethostname()
        return f"the arena with pid {self.pid}" + ("" if self.host == here else f" on {self.host}")


def match_item(key: str) -> str:
    """A match's claim item."""
    return f"match:{key}"


class Claims:
    """The arenas of a database and their claims."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def register_arena(self) -> int:
        """Enter this process as an arena working on the database; forget arenas that died."""
        me = psutil.Process()
        with self.db.transaction() as db:
            for row in self.db.rows("SELECT id, host, pid, started, heartbeat FROM arenas"):
                if not _alive(row["host"], row["pid"], row["started"], row["heartbeat"]):
                    db.execute("DELETE FROM claims WHERE arena_id = ?", (row["id"],))
                    db.execute("DELETE FROM arenas WHERE id = ?", (row["id"],))
            cursor = db.execute(
                "INSERT INTO arenas (host, pid, started, heartbeat) VALUES (?, ?, ?, ?)",
                (socket.gethostname(), os.getpid(), me.create_time(), time.time()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def heartbeat(self, arena: int) -> None:
        """Say that ``arena`` is still alive."""
        with self.db.transaction() as db:
            db.execute("UPDATE arenas SET heartbeat = ? WHERE id = ?", (time.time(), arena))

    def unregister_arena(self, arena: int) -> None:
        """``arena`` is leaving: drop it and every claim it still holds."""
        with self.db.transaction() as db:
            db.execute("DELETE FROM claims WHERE arena_id = ?", (arena,))
            db.execute("DELETE FROM arenas WHERE id = ?", (arena,))

    def claim_match(self, tid: int, key: str, arena: int) -> Holder | bool:
        """Claim match ``key`` for ``arena``: ``True``, ``False`` if it is recorded already, or its live holder."""
        with self.db.transaction() as db:
            if db.execute("SELECT 1 FROM matches WHERE tournament_id = ? AND match_key = ?", (tid, key)).fetchone():
                return False
            return self._claim(tid, match_item(key), arena)

    def claim_bot(self, tid: int, vid: int, arena: int) -> Holder | bool:
        """Claim every match of the persistent version ``vid`` for ``arena``: ``True``, or its live holder."""
        with self.db.transaction():
            return self._claim(tid, f"bot:{vid}", arena)

    def holders(self, tid: int) -> dict[str, Holder]:
        """The claims on ``tid`` held by live arenas, by item (``match:<key>``, ``bot:<version id>``)."""
        out = {}
        for row in self.db.rows(
            "SELECT c.item, a.id, a.host, a.pid, a.started, a.heartbeat FROM claims c JOIN arenas a"
            " ON a.id = c.arena_id WHERE c.tournament_id = ?",
            (tid,),
        ):
            if _alive(row["host"], row["pid"], row["started"], row["heartbeat"]):
                out[row["item"]] = Holder(row["id"], row["host"], row["pid"])
        return out

    def _claim(self, tid: int, item: str, arena: int) -> Holder | bool:
        row = self.db.row(
            "SELECT a.id, a.host, a.pid, a.started, a.heartbeat FROM claims c LEFT JOIN arenas a"
            " ON a.id = c.arena_id WHERE c.tournament_id = ? AND c.item = ?",
            (tid, item),
        )
        if (
            row is not None
            and row["id"] is not None
            and row["id"] != arena
            and _alive(row["host"], row["pid"], row["started"], row["heartbeat"])
        ):
            return Holder(row["id"], row["host"], row["pid"])
        self.db.connection.execute(
            "INSERT OR REPLACE INTO claims (tournament_id, item, arena_id, claimed_at) VALUES (?, ?, ?, ?)",
            (tid, item, arena, now()),
        )
        return True


def _alive(host: str, pid: int, started: float, heartbeat: float) -> bool:
    """Whether the arena process (``pid``, started at ``started``, on ``host``) still runs.

    On this host the process table says so exactly, also after a ``kill -9``
    (a pid taken by a later process has another start time); an arena on
    another host is alive while its heartbeat is recent.
    """
    if host != socket.gethostname():
        return time.time() - heartbeat < STALE_AFTER_S
    try:
        return abs(psutil.Process(pid).create_time() - started) < 0.01
    except psutil.Error:
        return False
