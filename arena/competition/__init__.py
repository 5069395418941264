"""Competitions: many matches between many bots, fair, concurrent, resumable, and their results.

From the schedule up:

* :mod:`~arena.competition.config`: a tournament's config (TOML or the
  short command-line form), checked with errors that name the key and line;
* :mod:`~arena.competition.schedule`: who meets whom, seats, deals, seeds;
* :mod:`~arena.competition.plan`: a config resolved into a game and bots,
  and the competition it names in the store (its field: versions, changes);
* :mod:`~arena.competition.store`: the SQLite results database (competitions,
  bot versions, matches, claims of cooperating arenas);
* :mod:`~arena.competition.ratings` and :mod:`~arena.competition.results`:
  ratings and the leaderboard, rendered as a table, JSON or CSV;
* :mod:`~arena.competition.sprt`: paired (pentanomial) statistics and the SPRT;
* :mod:`~arena.competition.compare` and :mod:`~arena.competition.compare_cli`:
  ``arena compare``, NEW against BASE on the same deals until the SPRT decides;
* :mod:`~arena.competition.progress`: progress displays;
* :mod:`~arena.competition.runner`: plays the pending matches, ``jobs`` at
  once, here or through a :class:`~arena.competition.runner.MatchExecutor`;
* :mod:`~arena.competition.cluster`: a :class:`MatchExecutor` on a Dask
  cluster (imported only when asked for: Dask is optional);
* :mod:`~arena.competition.cli`: ``arena tournament`` and ``arena results``.
"""

from .plan import Competition, Plan, open_competition, prepare
from .runner import MatchExecutor, Summary, run_tournament
from .schedule import Entrant, Scheduled, iter_schedule, make_schedule
from .store import Store

__all__ = [
    "Competition",
    "Entrant",
    "MatchExecutor",
    "Plan",
    "Scheduled",
    "Store",
    "Summary",
    "iter_schedule",
    "make_schedule",
    "open_competition",
    "prepare",
    "run_tournament",
]
