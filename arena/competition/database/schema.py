"""The one schema of an Arena database: its tables, as one ordered list of migrations, and how they are run.

A database holds a competition's results (``arena tournament``, ``arena
serve``: competitions, bot versions, matches and their faults, the standings'
running totals per pair of versions, the arenas working on it) and, when a
server keeps it, the server's own records (participants, sessions,
submissions, whose each version is, rating snapshots, switches). Both are
here, in one list, :data:`SCHEMA`, in the order they run. Each belongs to a
*track*: the results' (``results``: every Arena database has them, counted in
``schema_migrations``) or the server's (``server``: only a server's database
gets them, counted in ``server_migrations``; a results database of ``arena
tournament`` stays without them). The two counters are those databases
written before the list was one already have. :data:`MIGRATIONS` and
:data:`SERVER_MIGRATIONS` are the list's two tracks. A migration runs in the
same transaction as the row that says it ran, so a kill leaves it done or not
done, and migrations are only ever appended to :data:`SCHEMA`.

The connection is :class:`arena.competition.database.Database`'s, which runs
:func:`upgrade` when it opens a database for writing.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..._errors import StoreError
from ..records import PlayedMatch, log_halves
from ..totals import COLUMNS, WHOLE, Pair, PairTotals, Quad, deal_totals, table_result, to_row
from .match_rows import DEAL_KEYED, read_matches
from .thinning import thin_all

APPLICATION_ID = int.from_bytes(b"ARNA", "big")
"""Written into the header of every Arena database (``PRAGMA application_id``)."""

Step = str | Callable[[sqlite3.Connection], None]
"""A migration's step: a statement, or a function that fills what a statement cannot (in the same transaction)."""

_SCHEMA_1_TABLES = {"schema_migrations", "tournaments", "bots", "matches", "faults"}

_RATING_HISTORY = """CREATE TABLE rating_history (
            matches INTEGER NOT NULL,
            version_id INTEGER NOT NULL,
            elo REAL NOT NULL,
            error95 REAL,
            at TEXT NOT NULL,
            PRIMARY KEY (version_id, matches)
        )"""
"""Server schema 1's rating snapshots (schema 4 rebuilds the table as it was, thinned)."""

MIGRATIONS: tuple[tuple[Step, ...], ...] = (
    # 1: tournaments, their bots, matches and faults
    (
        """CREATE TABLE tournaments (
            id INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            seed INTEGER NOT NULL,
            name TEXT NOT NULL,
            game TEXT NOT NULL,
            config TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (fingerprint, seed)
        )""",
        """CREATE TABLE bots (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            name TEXT NOT NULL,
            command TEXT NOT NULL,
            source TEXT NOT NULL,
            digest TEXT NOT NULL,
            reuse INTEGER NOT NULL,
            PRIMARY KEY (tournament_id, name)
        )""",
        """CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            match_key TEXT NOT NULL,
            cycle INTEGER NOT NULL,
            deal TEXT NOT NULL,
            leg INTEGER NOT NULL,
            bot_a TEXT NOT NULL,
            bot_b TEXT NOT NULL,
            seed INTEGER NOT NULL,
            points_a REAL NOT NULL,
            points_b REAL NOT NULL,
            winner TEXT,
            forfeit TEXT NOT NULL,
            reason TEXT NOT NULL,
            duration_s REAL NOT NULL,
            peak_rss_a INTEGER,
            peak_rss_b INTEGER,
            log_path TEXT,
            finished_at TEXT NOT NULL,
            UNIQUE (tournament_id, match_key)
        )""",
        """CREATE TABLE faults (
            match_id INTEGER NOT NULL REFERENCES matches(id),
            seat TEXT NOT NULL,
            bot TEXT NOT NULL,
            kind TEXT NOT NULL,
            reason TEXT NOT NULL,
            request_id INTEGER,
            request_type TEXT NOT NULL
        )""",
        "CREATE INDEX faults_by_match ON faults (match_id)",
    ),
    # 2: living competitions: bot versions and their admission, the changes each run found,
    # and the arenas working on the database with their claims. Schema 1's bots become
    # version 1 of each bot (admitted, in the order they were entered), and its matches
    # point at them. The bots table is kept as it was, and no longer written.
    (
        f"PRAGMA application_id = {APPLICATION_ID}",
        """CREATE TABLE versions (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            slot INTEGER NOT NULL,
            command TEXT NOT NULL,
            source TEXT NOT NULL,
            digest TEXT NOT NULL,
            process TEXT NOT NULL,
            admission TEXT NOT NULL,
            reason TEXT NOT NULL,
            added_at TEXT NOT NULL,
            retired_at TEXT,
            retired_because TEXT NOT NULL,
            UNIQUE (tournament_id, name, version)
        )""",
        """INSERT INTO versions (tournament_id, name, version, slot, command, source, digest, process,
                                 admission, reason, added_at, retired_at, retired_because)
           SELECT b.tournament_id, b.name, 1, ROW_NUMBER() OVER (PARTITION BY b.tournament_id ORDER BY b.rowid) - 1,
                  b.command, b.source, b.digest, CASE WHEN b.reuse THEN 'reused' ELSE 'fresh' END,
                  'admitted', '', t.created_at, NULL, ''
           FROM bots b JOIN tournaments t ON t.id = b.tournament_id""",
        "ALTER TABLE matches ADD COLUMN version_a INTEGER REFERENCES versions(id)",
        "ALTER TABLE matches ADD COLUMN version_b INTEGER REFERENCES versions(id)",
        """UPDATE matches SET
             version_a = (SELECT v.id FROM versions v WHERE v.tournament_id = matches.tournament_id
                          AND v.name = matches.bot_a),
             version_b = (SELECT v.id FROM versions v WHERE v.tournament_id = matches.tournament_id
                          AND v.name = matches.bot_b)""",
        "CREATE INDEX matches_by_versions ON matches (tournament_id, version_a, version_b)",
        """CREATE TABLE changes (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            at TEXT NOT NULL,
            kind TEXT NOT NULL,
            bot TEXT NOT NULL,
            line TEXT NOT NULL
        )""",
        """CREATE TABLE arenas (
            id INTEGER PRIMARY KEY,
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            started REAL NOT NULL,
            heartbeat REAL NOT NULL
        )""",
        """CREATE TABLE claims (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            item TEXT NOT NULL,
            arena_id INTEGER NOT NULL REFERENCES arenas(id),
            claimed_at TEXT NOT NULL,
            PRIMARY KEY (tournament_id, item)
        )""",
    ),
    # 3: the standings' running totals, per ordered pair of versions (arena.competition.totals), kept in the same
    # transaction as each match, filled here from the matches so far; and the indexes pages read the history by.
    (
        "CREATE INDEX matches_by_deal ON matches (tournament_id, deal)",
        "CREATE INDEX matches_by_version_a ON matches (version_a, id)",
        "CREATE INDEX matches_by_version_b ON matches (version_b, id)",
        f"""CREATE TABLE pair_totals (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            version INTEGER NOT NULL REFERENCES versions(id),
            opponent INTEGER NOT NULL REFERENCES versions(id),
            {", ".join(f"{name} {'INTEGER' if name in WHOLE else 'REAL'} NOT NULL" for name in COLUMNS)},
            faults TEXT NOT NULL,
            log_bytes INTEGER NOT NULL,
            touched INTEGER NOT NULL,
            PRIMARY KEY (version, opponent)
        )""",
        "CREATE INDEX pair_totals_by_tournament ON pair_totals (tournament_id, touched)",
        lambda db: _fill_pair_totals(db),
        # Each fault names the version it is against, so that a bot page reads its last faults by an index.
        "ALTER TABLE faults ADD COLUMN version INTEGER REFERENCES versions(id)",
        """UPDATE faults SET version = (SELECT CASE WHEN faults.seat = 'A' THEN m.version_a ELSE m.version_b END
                                        FROM matches m WHERE m.id = faults.match_id)""",
        "CREATE INDEX faults_by_version ON faults (version, match_id)",
    ),
    # 4: deals at two tables (the ladder's scheme among strangers): per four versions a1, b1, a2, b2 (table 1 is
    # a1 v b1, table 2 a2 v b2), the deals whose team ONE ({a1, b2}) totalled 0, 0.5, 1, 1.5 and 2, kept in the same
    # transaction as the deal's second table; filled here from the matches so far.
    (
        """CREATE TABLE table_totals (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            a1 INTEGER NOT NULL REFERENCES versions(id),
            b1 INTEGER NOT NULL REFERENCES versions(id),
            a2 INTEGER NOT NULL REFERENCES versions(id),
            b2 INTEGER NOT NULL REFERENCES versions(id),
            t0 INTEGER NOT NULL,
            t1 INTEGER NOT NULL,
            t2 INTEGER NOT NULL,
            t3 INTEGER NOT NULL,
            t4 INTEGER NOT NULL,
            touched INTEGER NOT NULL,
            PRIMARY KEY (a1, b1, a2, b2)
        )""",
        "CREATE INDEX table_totals_by_tournament ON table_totals (tournament_id, touched)",
        lambda db: _fill_table_totals(db),
    ),
    # 5: a deal's matches found by the keys' index (a range of keys: every scheme's keys but a comparison's are the
    # deal's id or start with it and a dash), and by a partial index of the others only; the index of every match's
    # deal (33 bytes a match, 6% of a server's database at 100,000 matches) goes.
    (
        "DROP INDEX matches_by_deal",
        f"CREATE INDEX matches_by_odd_deal ON matches (tournament_id, deal) WHERE NOT {DEAL_KEYED}",
    ),
    # 6: the seats of the deals at two tables per two versions: how many finished deals had ``version`` in seat A
    # against ``opponent`` at one of their tables, kept in the same transaction as the table totals. A ladder's
    # book at start reads the field's rows of it (what each version sat in, what each two played), not a row per
    # deal (table_totals: 500,000 rows at a million matches, 10 s through Python); filled here from the totals.
    (
        """CREATE TABLE table_seats (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            version INTEGER NOT NULL REFERENCES versions(id),
            opponent INTEGER NOT NULL REFERENCES versions(id),
            deals INTEGER NOT NULL,
            PRIMARY KEY (version, opponent)
        ) WITHOUT ROWID""",
        "INSERT INTO table_seats (tournament_id, version, opponent, deals)"
        " SELECT tournament_id, version, opponent, SUM(deals) FROM ("
        " SELECT tournament_id, a1 AS version, b1 AS opponent, t0 + t1 + t2 + t3 + t4 AS deals FROM table_totals"
        " UNION ALL SELECT tournament_id, a2, b2, t0 + t1 + t2 + t3 + t4 FROM table_totals"
        ") GROUP BY version, opponent",
    ),
    # 7: what a bot's page shows of its pair totals (each version's record against each opponent, and their sums)
    # read from an index of those columns alone, not from a row of thirty columns per opponent: a version alive for
    # months met every version since, a few hundred rows, each a lookup in a table of 176,000 rows at a million
    # matches (records 1.7 -> 0.9 ms, sums 1.4 -> 0.2 ms a page; 3.6 MB there, 4 bytes a match). An index only:
    # a reader reads a database without it the same (INDEXES_ONLY).
    (
        "CREATE INDEX pair_records ON pair_totals"
        " (version, opponent, matches, wins, draws, losses, points_for, points_against)",
    ),
)
"""The schema, as migrations in order. Append; never edit one that has shipped."""

INDEXES_ONLY = frozenset({7})
"""The results' migrations that only add an index: a reader (``arena results``, ``arena replay --db``) of a
database that has not run them reads it the same, so it is not refused for them (a reader never migrates)."""

SERVER_MIGRATIONS: tuple[tuple[Step, ...], ...] = (
    (
        """CREATE TABLE participants (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL,
            is_admin INTEGER NOT NULL DEFAULT 0,
            is_house INTEGER NOT NULL DEFAULT 0,
            disqualified TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE sessions (
            id_hash TEXT PRIMARY KEY,
            participant_id INTEGER NOT NULL REFERENCES participants(id),
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE submissions (
            id INTEGER PRIMARY KEY,
            participant_id INTEGER NOT NULL REFERENCES participants(id),
            created_at TEXT NOT NULL,
            filename TEXT NOT NULL,
            language TEXT NOT NULL,
            size INTEGER NOT NULL,
            status TEXT NOT NULL,
            message TEXT NOT NULL DEFAULT '',
            report TEXT NOT NULL DEFAULT '[]',
            folder TEXT NOT NULL DEFAULT '',
            digest TEXT NOT NULL DEFAULT '',
            finished_at TEXT
        )""",
        "CREATE INDEX submissions_by_participant ON submissions (participant_id, created_at)",
        """CREATE TABLE entries (
            version_id INTEGER PRIMARY KEY,
            participant_id INTEGER NOT NULL REFERENCES participants(id),
            submission_id INTEGER REFERENCES submissions(id),
            folder TEXT NOT NULL
        )""",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        _RATING_HISTORY,
    ),
    (
        """CREATE TABLE login_codes (
            code_hash TEXT PRIMARY KEY,
            participant_id INTEGER NOT NULL REFERENCES participants(id),
            expires_at TEXT NOT NULL
        )""",
    ),
    # 3: the match logs' retention (arena.server.retention): each log's size and deal as the pruner found it,
    # whether and why it was pruned, and the pins that keep a deal's logs.
    (
        """CREATE TABLE match_logs (
            match_id INTEGER PRIMARY KEY REFERENCES matches(id),
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            low INTEGER NOT NULL,
            high INTEGER NOT NULL,
            deal_first INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            pruned_at TEXT,
            pruned_why TEXT NOT NULL DEFAULT ''
        )""",
        "CREATE INDEX match_logs_kept ON match_logs (tournament_id, low, high, deal_first) WHERE pruned_at IS NULL",
        "CREATE INDEX match_logs_by_deal ON match_logs (deal_first)",
        """CREATE TABLE log_pins (
            deal_first INTEGER NOT NULL,
            participant_id INTEGER NOT NULL REFERENCES participants(id),
            at TEXT NOT NULL,
            PRIMARY KEY (deal_first, participant_id)
        )""",
        "CREATE INDEX log_pins_by_participant ON log_pins (participant_id)",
    ),
    # 4: rating history bounded (arena.competition.database.thinning): each version keeps the first snapshot of
    # each of at most CHART_POINTS buckets of its span, and its latest; a database from before is thinned here.
    (lambda db: thin_all(db, _RATING_HISTORY),),
    # 5: the rating snapshots in their primary key's order, without a rowid (the key's index was a second copy of
    # every snapshot: 22% of the table's bytes).
    (
        _RATING_HISTORY.replace("CREATE TABLE rating_history", "CREATE TABLE rating_history_compact").replace(
            "PRIMARY KEY (version_id, matches)\n        )", "PRIMARY KEY (version_id, matches)\n        ) WITHOUT ROWID"
        ),
        "INSERT INTO rating_history_compact (matches, version_id, elo, error95, at)"
        " SELECT matches, version_id, elo, error95, at FROM rating_history ORDER BY version_id, matches",
        "DROP TABLE rating_history",
        "ALTER TABLE rating_history_compact RENAME TO rating_history",
    ),
    # 6: each match's log path relative to the database's folder when the log is under it (``logs/KEY.jsonl.gz``:
    # a data folder moved elsewhere still finds its logs, and 60 bytes a match less at a path of 60 characters).
    (lambda db: _relative_logs(db),),
    # 7: the standings' arrays a clean stop leaves, per competition, with the ``touched`` marks they were read up to
    # (arena.competition.database.saved): the next start reads them and what changed since. A later migration that
    # rewrites rows of pair_totals or table_totals without moving their ``touched`` on deletes these rows.
    (
        """CREATE TABLE standings_saved (
            tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id),
            layout TEXT NOT NULL,
            pairs_touched INTEGER NOT NULL,
            tables_touched INTEGER NOT NULL,
            arrays BLOB NOT NULL,
            saved_at TEXT NOT NULL
        )""",
    ),
)
"""The server's schema, as migrations in order. Append; never edit one that has shipped."""


RELATIVE_LOGS = 6
"""The server schema from which a server's database keeps its logs' paths relative to its own folder."""


@dataclass(frozen=True)
class Migration:
    """One step of the schema: its track, its number in the track, and what it does."""

    track: str
    """``results`` (every Arena database) or ``server`` (a server's database only)."""
    number: int
    steps: tuple[Step, ...]


TRACKS = {"results": ("schema_migrations", "schema"), "server": ("server_migrations", "server schema")}
"""Each track's counter table and how an error names it."""

SCHEMA: tuple[Migration, ...] = (
    *(Migration("results", n, steps) for n, steps in enumerate(MIGRATIONS, 1)),
    *(Migration("server", n, steps) for n, steps in enumerate(SERVER_MIGRATIONS, 1)),
)
"""Every migration, in the order they run. Append new ones at the end (their number: the next of their track)."""


def upgrade(db: sqlite3.Connection, path: Path, *, server: bool = False) -> None:
    """Run the migrations of :data:`SCHEMA` that ``db`` has not run, in the list's order, each in a transaction
    of its own with its record: the results' track, and with ``server`` the server's too.

    ``db`` is in autocommit mode (no transaction open). A database newer than
    this arena is refused, saying so.
    """
    tracks = ("results", "server") if server else ("results",)
    for track in tracks:
        table, what = TRACKS[track]
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(f"CREATE TABLE IF NOT EXISTS {table} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        found, known = version(db, table), sum(m.track == track for m in SCHEMA)
        if found > known:
            raise StoreError(f"{path} has {what} version {found}, newer than this arena knows ({known}): upgrade arena")
    done = {track: version(db, TRACKS[track][0]) for track in tracks}
    for migration in SCHEMA:
        if migration.track in tracks and migration.number > done[migration.track]:
            _run(db, TRACKS[migration.track][0], migration)


def _run(db: sqlite3.Connection, table: str, migration: Migration) -> None:
    db.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated between our read and our lock.
        if not db.execute(f"SELECT 1 FROM {table} WHERE version = ?", (migration.number,)).fetchone():
            for step in migration.steps:
                if isinstance(step, str):
                    db.execute(step)
                else:
                    step(db)
            db.execute(f"INSERT INTO {table} VALUES (?, ?)", (migration.number, _now()))
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def version(db: sqlite3.Connection, table: str = "schema_migrations") -> int:
    """How many migrations of the track kept in ``table`` have run (0 for a new database)."""
    exists = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
    if not exists:
        return 0
    return int(db.execute(f"SELECT COALESCE(MAX(version), 0) FROM {table}").fetchone()[0])


def _relative_logs(db: sqlite3.Connection) -> None:
    """Server schema 6: the log paths under the database's folder (as SQLite names the file, and with its links
    resolved) made relative to it; any other (a folder moved since, a log kept elsewhere) stays as it is."""
    file = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not file:
        return
    for folder in dict.fromkeys((os.path.dirname(file), os.path.dirname(os.path.realpath(file)))):
        prefix = folder.rstrip(os.sep) + os.sep
        db.execute(
            "UPDATE matches SET log_path = substr(log_path, ?) WHERE substr(log_path, 1, ?) = ?",
            (len(prefix) + 1, len(prefix), prefix),
        )


def _fill_pair_totals(db: sqlite3.Connection) -> None:
    """Schema 3: the pair totals of the matches recorded so far, deal by deal (each log's size read once)."""
    for (tid,) in db.execute("SELECT id FROM tournaments").fetchall():
        matches = read_matches(db, "m.tournament_id = ?", (tid,))
        by_deal: dict[str, list[PlayedMatch]] = {}
        for match in matches:
            by_deal.setdefault(match.deal, []).append(match)
        totals: dict[Pair, PairTotals] = {}
        for deal_matches in by_deal.values():
            for pair, part in deal_totals(deal_matches).items():
                totals.setdefault(pair, PairTotals()).add(part)
        logs: dict[int, int] = {}
        for match in matches:
            for vid, half in log_halves(match).items():
                logs[vid] = logs.get(vid, 0) + half
        for (version, opponent), pair_totals in totals.items():
            values, faults = to_row(pair_totals)
            db.execute(
                f"INSERT INTO pair_totals (tournament_id, version, opponent, {', '.join(COLUMNS)}, faults, log_bytes,"
                f" touched) VALUES ({', '.join('?' * (len(COLUMNS) + 6))})",
                (tid, version, opponent, *values, faults, logs.pop(version, 0), 0),
            )


def _fill_table_totals(db: sqlite3.Connection) -> None:
    """Schema 4: the table totals of the deals at two tables recorded so far (read by deal id: ``a~b~c~d~n``)."""
    for (tid,) in db.execute("SELECT id FROM tournaments").fetchall():
        matches = read_matches(db, "m.tournament_id = ? AND m.deal LIKE '%~%~%~%~%'", (tid,))
        by_deal: dict[str, list[PlayedMatch]] = {}
        for match in matches:
            by_deal.setdefault(match.deal, []).append(match)
        for played in by_deal.values():
            result = table_result(played)
            if result is not None:
                add_table(db, tid, *result, touched=0, seats=False)  # (schema 6 counts the seats from these)


def add_table(db: sqlite3.Connection, tid: int, quad: Quad, kind: int, *, touched: int, seats: bool = True) -> None:
    """Count one more deal of the four versions ``quad`` whose team ONE's total was ``kind / 2`` (in the caller's
    transaction); ``touched``: the id of the match that finished it.

    A quad's row is updated in place (its rowid stays: a reader holding rows by rowid finds it again), and, with
    ``seats`` (from schema 6 on), each table's two versions counted in ``table_seats``.
    """
    counted = f"t{kind}"
    db.execute(
        "INSERT INTO table_totals (tournament_id, a1, b1, a2, b2, t0, t1, t2, t3, t4, touched)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        f" ON CONFLICT (a1, b1, a2, b2) DO UPDATE SET {counted} = {counted} + 1, touched = excluded.touched",
        (tid, *quad, *(int(k == kind) for k in range(5)), touched),
    )
    if seats:
        a1, b1, a2, b2 = quad
        db.executemany(
            "INSERT INTO table_seats (tournament_id, version, opponent, deals) VALUES (?, ?, ?, 1)"
            " ON CONFLICT (version, opponent) DO UPDATE SET deals = deals + 1",
            [(tid, a1, b1), (tid, a2, b2)],
        )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
