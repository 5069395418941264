"""Competitions: many matches between many bots, fair, concurrent, resumable, and their results.

From the schedule up:

* :mod:`~arena.competition.config`: a tournament's config (TOML or the
  short command-line form), checked with errors that name the key and line;
* :mod:`~arena.competition.schedule`: who meets whom, seats, deals, seeds;
* :mod:`~arena.competition.plan`: a config resolved into a game and bots,
  and the competition it names in the store (its field: versions, changes);
* :mod:`~arena.competition.database` (the database layer: the connection,
  the schema's migrations, a repository per kind of row),
  :mod:`~arena.competition.records` and :mod:`~arena.competition.store`: the
  SQLite database (competitions, bot versions, matches, claims of cooperating
  arenas; a server's own records);
* :mod:`~arena.competition.totals`: the standings' running totals per pair of
  versions, which the store keeps beside each result;
* :mod:`~arena.competition.ratings`: the Bradley-Terry rating fit;
* :mod:`~arena.competition.standings`, :mod:`~arena.competition.board` and
  :mod:`~arena.competition.render`: the leaderboard, summed from the pair
  totals (the one way to a board), as data, and drawn as a table, JSON or CSV;
* :mod:`~arena.competition.results`: a recorded competition's leaderboard and
  numbered matches, read from its store (``arena results``);
* :mod:`~arena.competition.table_fit`: deals at two tables into the rating fit;
* :mod:`~arena.competition.sprt`: paired (pentanomial) statistics and the SPRT;
* :mod:`~arena.competition.compare` and :mod:`~arena.competition.compare_cli`:
  ``arena compare``, NEW against BASE on the same deals until the SPRT decides;
* :mod:`~arena.competition.progress`: progress displays;
* :mod:`~arena.competition.playing`: one scheduled match played with a pool's
  processes, and the row the store keeps of it (every way of playing uses it);
* :mod:`~arena.competition.runner`: plays the pending matches, ``jobs`` at
  once, here or through a :class:`~arena.competition.runner.MatchExecutor`;
* :mod:`~arena.competition.worker`: a child process that plays a ladder's
  matches, so its parent's event loop stays free;
* :mod:`~arena.competition.cpus`: which CPU each supervisor process of a
  run keeps to, with its bots;
* :mod:`~arena.competition.ladder`: the rolling ladder a server plays;
* :mod:`~arena.competition.cluster`: a :class:`MatchExecutor` on a Dask
  cluster (imported only when asked for: Dask is optional);
* :mod:`~arena.competition.cli`: ``arena tournament`` and ``arena results``.
"""

import os as _os

# numpy's BLAS starts a thread per CPU for each solve and spins them: on a busy machine a 100 x 100 solve of the
# rating fit took 116 ms so, 0.1 ms on one thread. The fit's matrices are small: one BLAS thread, unless the user
# set otherwise. (Here, before this package's modules import numpy; a program that imported it earlier keeps its
# own setting.)
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")

from .._lazy import lazy_names  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .plan import OpenedCompetition, Plan, open_competition, prepare
    from .runner import MatchExecutor, Summary, run_tournament
    from .schedule import Entrant, Scheduled, iter_schedule, make_schedule
    from .store import Store

__getattr__ = lazy_names(
    __name__,
    {
        **dict.fromkeys(("OpenedCompetition", "Plan", "open_competition", "prepare"), ".plan"),
        **dict.fromkeys(("MatchExecutor", "Summary", "run_tournament"), ".runner"),
        **dict.fromkeys(("Entrant", "Scheduled", "iter_schedule", "make_schedule"), ".schedule"),
        "Store": ".store",
    },
    globals(),
)
"""The public names, each imported on first use: ``arena results`` needs the store and the leaderboard, not the
tournament's machinery (0.3 s of imports, most of its start)."""

__all__ = [
    "Entrant",
    "MatchExecutor",
    "OpenedCompetition",
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
