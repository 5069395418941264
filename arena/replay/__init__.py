"""Replaying logged matches: watch them, verify them against the rules, re-run a bot on them.

``load_log`` reads a match log; ``verify`` re-runs the rules from the log's
seed and answers and names the first difference; ``rerun`` gives the frames
that the terminal and HTML viewers draw; ``regress`` feeds a new build of a
bot the messages one seat was sent and lists where its answers differ.
``match_page`` is a match's replay page (HTML, self-contained), drawn with the
game's table view; ``match_fragment`` gives its parts for another site's pages.

* :mod:`~arena.replay._log`: a match log read back;
* :mod:`~arena.replay._rerun` and :mod:`~arena.replay._verify`: the rules run
  again from the log's seed and answers, and ``--verify``;
* :mod:`~arena.replay._timeline` and :mod:`~arena.replay._tables`: a match as
  frames, and the game's table at each for each view;
* :mod:`~arena.replay._render`: how a game's messages look (cards, colours);
* :mod:`~arena.replay._page` and :mod:`~arena.replay._charts`: the replay
  page, and the charts of pages and reports (inline SVG);
* :mod:`~arena.replay._terminal`: the terminal viewer;
* :mod:`~arena.replay._regress`: a new build of a bot fed a seat's messages;
* :mod:`~arena.replay.watch`: matches followed while they are played;
* :mod:`~arena.replay.human`: a person's seat in the terminal (``arena play GAME human BOT``);
* :mod:`~arena.replay.report`: the tournament report (``arena results DB --html``);
* :mod:`~arena.replay.cli`: ``arena replay``.
"""

from .._lazy import lazy_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._log import LoggedMatch, index_records, load_log
    from ._page import Fragment, match_fragment, match_page, match_update, page, timeline_of
    from ._rerun import Rerun, RulesUnavailable, rerun, rules_for
    from ._timeline import Event, Frame, Timeline, for_seat, from_log
    from ._verify import Difference, Verdict, verify

__getattr__ = lazy_names(
    __name__,
    {
        **dict.fromkeys(("LoggedMatch", "index_records", "load_log"), "._log"),
        **dict.fromkeys(("Fragment", "match_fragment", "match_page", "match_update", "page", "timeline_of"), "._page"),
        **dict.fromkeys(("Rerun", "RulesUnavailable", "rerun", "rules_for"), "._rerun"),
        **dict.fromkeys(("Event", "Frame", "Timeline", "for_seat", "from_log"), "._timeline"),
        **dict.fromkeys(("Difference", "Verdict", "verify"), "._verify"),
    },
    globals(),
)
"""The public names, each imported on first use: ``arena results`` (which gains ``--html`` here) and ``arena
replay`` import only the parts they use."""

__all__ = [
    "Difference",
    "Event",
    "Fragment",
    "Frame",
    "LoggedMatch",
    "Rerun",
    "RulesUnavailable",
    "Timeline",
    "Verdict",
    "for_seat",
    "from_log",
    "index_records",
    "load_log",
    "match_fragment",
    "match_page",
    "match_update",
    "page",
    "rerun",
    "rules_for",
    "timeline_of",
    "verify",
]
