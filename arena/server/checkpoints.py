"""The server's database checkpoints, off its event loop.

SQLite in write-ahead-log mode appends each transaction to the ``-wal`` file
and, by default, the connection whose commit takes the log past 1,000 pages
copies it back into the database (a *checkpoint*), syncing both files, inside
that commit. The server records every result on its main thread's connection,
so one result in a few dozen held the event loop, and every page waiting on
it, for the checkpoint: with the ladder playing at a million matches, 40
steps of the loop over 15 ms in 30 s (up to 100 ms), most in a result's or a
rating snapshot's commit.

So the server's connection never checkpoints (``wal_autocheckpoint = 0``)
and :func:`keep_checkpointed` does it in a worker thread, on a connection of
its own, every ``CHECKPOINT_EVERY_S``: a *passive* checkpoint, which waits
for no reader or writer (the loop's commits go on appending meanwhile) and
copies what no reader still needs. At a stop, the last connection to close
puts the database back to one file, as before.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import trio

from ..competition.database.connection import Database

CHECKPOINT_EVERY_S = 1.0
"""How often the log is copied back (a second's results: a few hundred pages at most)."""


def hand_off(database: Database) -> None:
    """Stop ``database``'s connection checkpointing in its commits (:func:`keep_checkpointed` does it instead)."""
    database.connection.execute("PRAGMA wal_autocheckpoint = 0")


def checkpoint(path: Path) -> tuple[int, int]:
    """A passive checkpoint of the database at ``path``, on a connection of its own: the log's pages, and how
    many of them are now in the database."""
    with contextlib.closing(Database.for_thread(path)) as database:
        _busy, log, copied = database.connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(log), int(copied)


async def keep_checkpointed(path: Path) -> None:
    """Checkpoint the database at ``path`` every ``CHECKPOINT_EVERY_S``, in a worker thread, for good."""
    while True:
        await trio.sleep(CHECKPOINT_EVERY_S)
        await trio.to_thread.run_sync(checkpoint, path)
