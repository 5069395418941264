"""The one place an Arena process opens its SQLite database: the connection, its pragmas, transactions, the schema.

Everything SQLite-specific about *opening* lives here: the write-ahead log
while an arena writes (and the rollback journal again at rest, so a database
at rest is one file), ``synchronous=NORMAL``, the busy timeouts, read-only
opening that leaves nothing beside the file (``immutable`` when the header
says WAL and no ``-wal`` file is there), and the header's application id that
tells an Arena database from another program's file.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..._errors import StoreError
from .schema import _SCHEMA_1_TABLES, APPLICATION_ID, INDEXES_ONLY, RELATIVE_LOGS, SCHEMA, TRACKS, upgrade, version

OPEN_TIMEOUT_S = 10.0
"""How long a statement waits for another connection's write lock (the store's, the pages' readers')."""
THREAD_TIMEOUT_S = 30.0
"""The same for a background thread's own connection (the log pruner's), which may wait longer."""


class Database:
    """An open Arena database: one SQLite connection (in autocommit mode), its transactions, its schema.

    The repositories (:mod:`arena.competition.database`) read and write
    through it; nothing else holds a connection.
    """

    def __init__(self, connection: sqlite3.Connection, path: Path, *, readonly: bool = False) -> None:
        self.connection = connection
        self.path = path
        self.readonly = readonly
        self._depth = 0
        self.log_base: str | None = None
        """The folder the match logs' relative paths are relative to: the database's own (a server's database,
        server schema 6 on), or ``None`` (a path is kept as it was given, as a tournament's are)."""
        self._log_bases: tuple[str, ...] = ()

    # Opening ------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Database:
        """Open (or, unless ``readonly``, create) the database at ``path`` and bring its results' schema up to date.

        A file that is neither empty nor an Arena database is refused. Read
        only, nothing is written beside the file.
        """
        try:
            if readonly:
                connection = _open_for_reading(path)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(path, isolation_level=None, timeout=OPEN_TIMEOUT_S)
                _refuse_foreign(connection, path)
                _enter_wal(connection)
                # NORMAL is durable against a killed process (not a power cut) and much faster than FULL.
                connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            database = cls(connection, path, readonly=readonly)
            if readonly:
                _refuse_foreign(connection, path)
                database.check_version()
            else:
                upgrade(connection, path)
            database.find_log_base()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable results database: {exc}") from None
        return database

    @classmethod
    def for_thread(cls, path: Path) -> Database:
        """A read-write connection of a background thread's own on a database a server keeps open (no migration:
        the server ran them); it stays in the journal mode the server set."""
        connection = sqlite3.connect(path, isolation_level=None, timeout=THREAD_TIMEOUT_S)
        connection.execute("PRAGMA foreign_keys=ON")
        database = cls(connection, path)
        database.find_log_base()
        return database

    def reader(self) -> Database:
        """Another connection on this database, read only, for a thread of this process (SQLite's connections are
        each one thread's). It sees what this one has committed.

        Never by :meth:`open`'s look at the file's header: a process that opens and closes its database file by
        any other means than SQLite drops every POSIX lock it holds on it, this connection's too (another process
        could then think itself the last one, checkpoint and delete the WAL under it).
        """
        reader = Database.reader_of(self.path)
        reader.log_base, reader._log_bases = self.log_base, self._log_bases
        return reader

    @classmethod
    def reader_of(cls, path: Path) -> Database:
        """A read-only connection on the database at ``path`` that a server keeps open, for another process of
        the server's (no look at the file's header: see :meth:`reader`; no migration: the server ran them)."""
        uri = f"file:{_uri_path(path)}?mode=ro"
        return Database(
            sqlite3.connect(uri, uri=True, isolation_level=None, timeout=OPEN_TIMEOUT_S), path, readonly=True
        )

    def close(self) -> None:
        """Close the connection; the last writer to leave puts the database back to one file (no ``-wal``,
        no ``-shm``)."""
        if not self.readonly:
            with contextlib.suppress(sqlite3.Error):
                self.connection.execute("PRAGMA busy_timeout = 0")  # another arena still writing: leave WAL on for it
                self.connection.execute("PRAGMA journal_mode=DELETE")
        self.connection.close()

    def backup(self, target: Path) -> None:
        """Copy this database to ``target`` (a new file, made ``0600`` before SQLite writes it) with SQLite's online
        backup API: a consistent snapshot while writers go on; the copy is left in rollback-journal mode, one file
        at rest."""
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
        copy = sqlite3.connect(target)
        try:
            self.connection.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")
        finally:
            copy.close()

    def vacuum(self) -> None:
        """Rewrite the file without its free pages (``VACUUM``), refresh the planner's statistics (``ANALYZE``),
        and leave it one file at rest unless a reader still has it open (then it stays in WAL mode)."""
        self.connection.execute("VACUUM")
        self.connection.execute("ANALYZE")
        with contextlib.suppress(sqlite3.OperationalError):
            self.connection.execute("PRAGMA busy_timeout = 0")
            self.connection.execute("PRAGMA journal_mode=DELETE")

    # Schema -------------------------------------------------------------
    def upgrade(self, *, server: bool = False) -> None:
        """Run the migrations this database has not run (with ``server``, the server's tables' too)."""
        try:
            upgrade(self.connection, self.path, server=server)
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is not a usable {'server' if server else 'results'} database: {exc}"
            ) from None
        self.find_log_base()

    # Match logs' paths ----------------------------------------------------
    def find_log_base(self) -> None:
        """Say whether this database keeps its match logs' paths relative to its own folder (a server's database
        from server schema :data:`RELATIVE_LOGS` on: ``logs/KEY.jsonl.gz``, 40 bytes a match where the full path
        took 100), from its schema."""
        if version(self.connection, TRACKS["server"][0]) >= RELATIVE_LOGS:
            self.log_base = str(self.path.parent.absolute())
            self._log_bases = tuple(dict.fromkeys((self.log_base, os.path.realpath(self.log_base))))
        else:
            self.log_base, self._log_bases = None, ()

    def stored_log(self, path: str | None) -> str | None:
        """How a match's log ``path`` is stored: relative to :attr:`log_base` when it lies under that folder
        (then full otherwise), as given in a database without one."""
        if path is None or self.log_base is None:
            return path
        full = os.path.abspath(path)
        for base in self._log_bases:
            if full.startswith(base + os.sep):
                return full[len(base) + 1 :]
        return full

    def full_log(self, stored: str | None) -> str | None:
        """A match's log path as read back: a relative one joined to :attr:`log_base` (where it was made
        relative), any other as stored."""
        if stored is None or self.log_base is None:
            return stored
        return os.path.join(self.log_base, stored)

    def schema_version(self, track: str = "results") -> int:
        """How many migrations of ``track`` have run (0 for a new database)."""
        return version(self.connection, TRACKS[track][0])

    def check_version(self) -> None:
        """:class:`StoreError` unless the results' schema is this arena's (a reader never migrates)."""
        found, known = self.schema_version(), sum(m.track == "results" for m in SCHEMA)
        if found > known:
            raise StoreError(
                f"{self.path} has schema version {found}, newer than this arena knows ({known}): upgrade arena"
            )
        if found < known and not set(range(found + 1, known + 1)) <= INDEXES_ONLY:
            raise StoreError(
                f"{self.path} has schema version {found}; run a tournament on it once (it is upgraded then)"
            )

    # Transactions and statements ----------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``: another writer waits for it, then sees all
        of it); inside another, part of that one."""
        if self._depth:  # inside an outer transaction: part of it
            self._depth += 1
            try:
                yield self.connection
            finally:
                self._depth -= 1
            return
        self.connection.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self.connection
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        finally:
            self._depth = 0
        self.connection.execute("COMMIT")

    def execute(self, query: str, args: tuple[Any, ...] | list[Any] = ()) -> sqlite3.Cursor:
        """Run one statement outside the repositories (an organiser's upkeep: ``VACUUM``, a benchmark's look)."""
        return self.connection.execute(query, args)

    def rows(self, query: str, args: tuple[Any, ...] | list[Any] = ()) -> list[sqlite3.Row]:
        """The rows ``query`` selects, each read by column name."""
        cursor = self.connection.cursor()
        cursor.row_factory = sqlite3.Row
        return cursor.execute(query, args).fetchall()

    def tuples(self, query: str, args: tuple[Any, ...] | list[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows ``query`` selects as plain tuples (a bulk read made into arrays: no named row made per row)."""
        return self.connection.execute(query, args).fetchall()

    def row(self, query: str, args: tuple[Any, ...] | list[Any] = ()) -> sqlite3.Row | None:
        """The first row ``query`` selects (by column name), or ``None``."""
        cursor = self.connection.cursor()
        cursor.row_factory = sqlite3.Row
        found: sqlite3.Row | None = cursor.execute(query, args).fetchone()
        return found

    def value(self, query: str, args: tuple[Any, ...] | list[Any] = ()) -> Any:
        """The one value ``query`` selects (its first row's first column), or ``None`` when it selects no row."""
        found = self.connection.execute(query, args).fetchone()
        return None if found is None else found[0]

    def stream(self, query: str, args: tuple[Any, ...] = (), batch: int = 10_000) -> Iterator[sqlite3.Row]:
        """The rows ``query`` selects, ``batch`` at a time (a million of them are never held at once)."""
        cursor = self.connection.cursor()
        cursor.row_factory = sqlite3.Row
        cursor.execute(query, args)
        while rows := cursor.fetchmany(batch):
            yield from rows


def _enter_wal(connection: sqlite3.Connection) -> None:
    """Put the database in write-ahead-log mode, waiting (up to :data:`OPEN_TIMEOUT_S`) for another arena opening
    or writing it at the same time.

    A database at rest is in rollback-journal mode, and its conversion needs the file to itself: SQLite fails it at
    once with "database is locked", without its busy handler, while another connection holds a write lock of the
    rollback journal (as a second arena does that converts it at the same moment). Two arenas started together on
    one database then lost one of them at its start (an idle CI run, test_living_kill). So it is tried again, a
    little later each time, until this connection or the other has converted it.
    """
    deadline = time.monotonic() + OPEN_TIMEOUT_S
    pause = 0.002
    while True:
        try:
            (mode,) = connection.execute("PRAGMA journal_mode=WAL").fetchone()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        else:
            if mode == "wal":
                return
            if time.monotonic() > deadline:
                raise sqlite3.OperationalError(f"database is locked (still in journal mode {mode!r})")
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def _open_for_reading(path: Path) -> sqlite3.Connection:
    """A read-only connection that leaves nothing beside the file.

    A database at rest is in rollback-journal mode (the last writer puts it
    back) and is read normally. A database whose header says WAL but has no
    ``-wal`` file beside it (nobody is writing, or a writer of an older arena
    closed it) would make SQLite create ``-wal`` and ``-shm`` files even for a
    reader, so it is opened as immutable: a writer starting meanwhile appends
    to its own WAL file and does not change the main file we read.
    """
    if not path.is_file():
        raise StoreError(f"no results database at {path}")
    uri = f"file:{_uri_path(path)}?mode=ro"
    if _header_says_wal(path) and not Path(f"{path}-wal").exists():
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=OPEN_TIMEOUT_S)


def _uri_path(path: Path) -> str:
    return quote(str(path.absolute()))


def _header_says_wal(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    return len(header) == 20 and header.startswith(b"SQLite format 3\0") and header[18] == 2


def _refuse_foreign(connection: sqlite3.Connection, path: Path) -> None:
    """Raise :class:`StoreError` unless the database is empty or Arena's (never write to another program's file)."""
    (app_id,) = connection.execute("PRAGMA application_id").fetchone()
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app_id == APPLICATION_ID or not tables or (app_id == 0 and tables >= _SCHEMA_1_TABLES):
        return
    shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    raise StoreError(
        f"{path} is another program's SQLite database (tables: {shown}), not an Arena results database;"
        " give --db a new file"
    )
