"""Where a database's bytes go: each table's and index's pages, as SQLite's ``dbstat`` counts them."""

from __future__ import annotations

import contextlib
import sqlite3
import tempfile
from pathlib import Path


def bytes_by_table(path: Path) -> tuple[dict[str, int], int]:
    """The bytes of each table and index of the database at ``path`` (its pages, as a VACUUM would leave them:
    the free pages a deletion left are not counted), the largest first, and how many matches it holds.

    Read from a compacted copy (``VACUUM INTO`` a temporary file), so the database itself is not touched.
    """
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "compact.sqlite"
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            db.execute("VACUUM INTO ?", (str(copy),))
        with contextlib.closing(sqlite3.connect(copy)) as db:
            rows = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
            matches = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    return {str(name): int(size) for name, size in rows}, int(matches)
