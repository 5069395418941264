"""The database layer: the one place Arena opens its SQLite file, its schema, and repositories by what they hold.

* :mod:`~arena.competition.database.connection`: :class:`Database`, the
  connection (its pragmas, timeouts, read-only opening), its transactions,
  its readers by column name, and the migrations it runs on opening;
* :mod:`~arena.competition.database.schema`: every table, as one ordered list
  of migrations (the results' and the server's);
* repositories, each a small class over a :class:`Database` holding one kind
  of row: :mod:`~arena.competition.database.competitions` (competitions and
  their changes), :mod:`~arena.competition.database.versions`,
  :mod:`~arena.competition.database.matches` (with
  :mod:`~arena.competition.database.match_rows`, a match read from its rows),
  :mod:`~arena.competition.database.pairs` (pair totals),
  :mod:`~arena.competition.database.tables` (table totals),
  :mod:`~arena.competition.database.claims` (arenas and claims), and a
  server's: :mod:`~arena.competition.database.accounts` (participants,
  sessions, login codes), :mod:`~arena.competition.database.submissions`
  (uploads and entries), :mod:`~arena.competition.database.ratings` (rating
  history, kept bounded by :mod:`~arena.competition.database.thinning`),
  :mod:`~arena.competition.database.settings`,
  :mod:`~arena.competition.database.logs` (the log retention's records) and
  :mod:`~arena.competition.database.saved` (the standings' arrays a stop
  left, where the next start begins);
* :mod:`~arena.competition.database.sizes`: where a database's bytes go, by
  table and index (what ``benchmarks/bench_scale.py --tables`` prints).

Rows are read by column name into frozen dataclasses, never by position.
:class:`Repositories` gathers them on one database; the results store
(:class:`arena.competition.store.Store`) and the server's records
(:class:`arena.server.state.State`) are built on it.
"""

from __future__ import annotations

from .accounts import Participants
from .claims import Claims
from .competitions import Competitions
from .connection import Database
from .logs import MatchLogs
from .matches import Matches
from .pairs import PairTotalsTable
from .ratings import RatingHistory
from .saved import SavedStandings
from .settings import Settings
from .submissions import Submissions
from .tables import TableTotals
from .versions import Versions

__all__ = ["Database", "Repositories"]


class Repositories:
    """Every repository, on one :class:`Database` (the server's tables' are there only in a server's database)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.competitions = Competitions(db)
        self.versions = Versions(db)
        self.matches = Matches(db)
        self.pairs = PairTotalsTable(db)
        self.tables = TableTotals(db)
        self.claims = Claims(db)
        self.participants = Participants(db)
        self.submissions = Submissions(db)
        self.ratings = RatingHistory(db)
        self.settings = Settings(db)
        self.logs = MatchLogs(db)
        self.saved = SavedStandings(db)
