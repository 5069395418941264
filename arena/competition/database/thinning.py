"""How a version's rating snapshots (table ``rating_history``) are kept at a chart's resolution.

The server takes a snapshot of the field every few matches, so a version that
lives for months would gather a hundred thousand. A chart needs a few
hundred: each version keeps, of the span of the ladder's match counts it was
rated over (its first snapshot to its last), the first snapshot in each of
at most :func:`buckets` equal buckets (:data:`CHART_POINTS` and up to
:data:`STAGGER` more), and its latest. The buckets' width is a power of two,
so when the span outgrows them they double and each new bucket's first
snapshot is one already kept: the points stay evenly spread, older ones
thinned as the version lives on, and a version keeps at most
``CHART_POINTS + STAGGER`` of them however long it lives. A snapshot that a
newer one makes redundant is deleted as the newer is added (two reads and at
most one delete by the primary key per version), and the whole of a version
is thinned again only when its buckets double (about
``log2(matches / CHART_POINTS)`` times in its life). The versions' bucket
counts differ by their ids (:func:`buckets`), so that a field that joined
together is not thinned all at the same snapshot (the snapshot is written on
the server's event loop).
"""

from __future__ import annotations

import sqlite3

CHART_POINTS = 256
"""The fewest buckets of a version's span (a version keeps one snapshot per bucket, and its latest)."""
STAGGER = 64
"""The most buckets a version has beyond :data:`CHART_POINTS` (by its id)."""


def buckets(version_id: int) -> int:
    """How many buckets version ``version_id``'s span is cut into."""
    return CHART_POINTS + version_id % STAGGER


def bucket_width(first: int, last: int, count: int) -> int:
    """The width (in the ladder's matches, a power of two) of the buckets of a version rated from ``first`` to
    ``last``: the least that makes at most ``count`` of them."""
    width = 1
    while (last - first) // width >= count:
        width *= 2
    return width


def thin(db: sqlite3.Connection, version_id: int) -> None:
    """Keep of version ``version_id``'s snapshots the first of each bucket and the latest (in the caller's
    transaction)."""
    first, last = db.execute(
        "SELECT MIN(matches), MAX(matches) FROM rating_history WHERE version_id = ?", (version_id,)
    ).fetchone()
    if first is None:
        return
    width = bucket_width(first, last, buckets(version_id))
    db.execute(
        "DELETE FROM rating_history WHERE version_id = ? AND matches <> ? AND matches NOT IN"
        " (SELECT MIN(matches) FROM rating_history WHERE version_id = ? GROUP BY (matches - ?) / ?)",
        (version_id, last, version_id, first, width),
    )


def thin_all(db: sqlite3.Connection, create: str) -> None:
    """Thin every version's snapshots (a migration: a database from before the history was bounded, in its
    transaction). ``create``: the table's ``CREATE TABLE`` statement.

    A long-lived server's table holds tens of millions of snapshots and keeps
    a few hundred thousand: the keepers are chosen in one pass in the primary
    key's order and copied to a new table, which takes the old one's place
    (deleting the rest row by row would take minutes).
    """
    bounds = {
        version: (first, last)
        for version, first, last in db.execute(
            "SELECT version_id, MIN(matches), MAX(matches) FROM rating_history GROUP BY version_id"
        )
    }
    keep: list[tuple[int, int]] = []
    current, seen, width, first, last = None, -1, 1, 0, 0
    for version, matches in db.execute("SELECT version_id, matches FROM rating_history ORDER BY version_id, matches"):
        if version != current:
            current, seen = version, -1
            first, last = bounds[version]
            width = bucket_width(first, last, buckets(version))
        bucket = (matches - first) // width
        if bucket != seen or matches == last:
            keep.append((version, matches))
            seen = bucket
    db.execute("CREATE TEMP TABLE rating_history_kept (version_id INTEGER, matches INTEGER)")
    db.executemany("INSERT INTO rating_history_kept VALUES (?, ?)", keep)
    db.execute("ALTER TABLE rating_history RENAME TO rating_history_before")
    db.execute(create)
    db.execute(
        "INSERT INTO rating_history (matches, version_id, elo, error95, at)"
        " SELECT h.matches, h.version_id, h.elo, h.error95, h.at FROM rating_history_kept k"
        " JOIN rating_history_before h ON h.version_id = k.version_id AND h.matches = k.matches"
    )
    db.execute("DROP TABLE rating_history_before")
    db.execute("DROP TABLE rating_history_kept")
