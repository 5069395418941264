"""The organiser's upkeep of a server's data folder: an online backup, and maintenance while it is stopped.

``arena serve CONFIG --backup DEST`` copies a data folder while its server
runs: the database through SQLite's online backup API (a consistent
snapshot, the server writing on meanwhile), then the files the database
names (bots, match logs, stderr logs) and the session key. ``DEST`` is a
data folder a server starts from as it is (``data_dir = DEST``, or
``--data-dir DEST``): that is the restore.

``arena serve CONFIG --vacuum``, with the server stopped (the data folder's
lock says whether it runs), prunes the match logs by the config's retention,
then VACUUMs and ANALYZEs the database, and says what it freed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from .._errors import ConfigError
from ..competition.database import Database, Repositories
from . import retention
from .config import ServerConfig
from .retention import relocate_logs, size_text  # (relocate_logs: where the service, which this imports, finds it)

COPIED = ("bots", "logs")
"""The data folder's subfolders a backup copies (checks and incoming are a running server's scratch)."""


def backup_database(database: Path, target: Path) -> None:
    """Copy the live database ``database`` to ``target`` with SQLite's online backup API (a consistent snapshot)."""
    if not database.is_file():
        raise ConfigError(f"no server database at {database}: is data_dir right?")
    with contextlib.closing(Database.for_thread(database)) as source:
        source.backup(target)


def backup(config: ServerConfig, dest: Path) -> list[str]:
    """Back ``config``'s data folder up to ``dest`` (a new or empty folder); what was copied, as lines to print."""
    from .participants import SECRET_NAME
    from .service import DB_NAME

    source = config.data_dir
    if dest.resolve() == source.resolve() or source.resolve() in dest.resolve().parents:
        raise ConfigError(f"{dest} is inside the data folder {source}: back up to a folder outside it")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ConfigError(f"{dest} exists and is not an empty folder: give a new folder to back up to")
    _private(dest)
    # The database first: every file it names was written before it, so the copy below finds it (unless the
    # pruner deleted it meanwhile: that match's page says its log is missing).
    backup_database(source / DB_NAME, dest / DB_NAME)
    lines = [f"database: {size_text(os.stat(dest / DB_NAME).st_size)}"]
    if (source / SECRET_NAME).is_file():
        shutil.copyfile(source / SECRET_NAME, dest / SECRET_NAME)
        os.chmod(dest / SECRET_NAME, 0o600)
    for name in COPIED:
        if (source / name).is_dir():
            count, size = _copy_tree(source / name, dest / name)
            lines.append(f"{name}: {count} files, {size_text(size)}")
    moved = relocate_logs(dest / DB_NAME, dest / "logs")
    lines.append(f"a server started with --data-dir {dest} serves the copy ({moved} match logs' paths point into it)")
    return lines


def _copy_tree(source: Path, dest: Path) -> tuple[int, int]:
    """Copy the regular files under ``source`` (links are not followed), folders 0700 and files 0600."""
    count = size = 0
    _private(dest)
    for folder, dirs, files in os.walk(source, followlinks=False):
        here = dest / Path(folder).relative_to(source)
        for name in dirs:
            _private(here / name)
        for name in files:
            path = Path(folder) / name
            with contextlib.suppress(FileNotFoundError):  # a log pruned, a scratch file gone, meanwhile
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue
                shutil.copyfile(path, here / name, follow_symlinks=False)
                mode = 0o700 if os.access(path, os.X_OK) else 0o600
                os.chmod(here / name, mode)
                count += 1
                size += os.stat(here / name).st_size
    return count, size


def _private(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)


def vacuum(config: ServerConfig) -> list[str]:
    """Prune by the retention, VACUUM and ANALYZE, with the server stopped; what was freed, as lines to print."""
    from ..competition.store import Store
    from .service import DB_NAME, locked
    from .state import State

    database = config.data_dir / DB_NAME
    if not database.is_file():
        raise ConfigError(f"no server database at {database}: is data_dir right?")
    with locked(config.data_dir):  # refuses, in one line, while the server runs
        before = _database_bytes(database)
        with Store.open(database) as store:
            State(store)  # the server's schema (the retention's tables) up to date
        lines = []
        with contextlib.closing(retention.connect(database)) as db:
            for competition in Repositories(db).competitions.all():
                pruned = retention.prune(db, competition.id, config.retention)
                done = pruned.line(config.retention) if pruned.logs else "no match log to prune"
                lines.append(f"{competition.name}: {done}")
            db.vacuum()
        after = _database_bytes(database)
        lines.append(f"database: {size_text(before)} -> {size_text(after)} (freed {size_text(max(0, before - after))})")
    return lines


def _database_bytes(database: Path) -> int:
    return sum(_size_of(Path(f"{database}{suffix}")) for suffix in ("", "-wal", "-shm"))


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
