"""Replaying logged matches: watch them, verify them against the rules, re-run a bot on them.

``load_log`` reads a match log; ``verify`` re-runs the rules from the log's
seed and answers and names the first difference; ``rerun`` gives the frames
that the terminal and HTML viewers draw; ``regress`` feeds a new build of a
bot the messages one seat was sent and lists where its answers differ.
``match_page`` is a match's replay page (HTML, self-contained), drawn with the
game's table view; ``match_fragment`` gives its parts for another site's pages.
"""

from ._log import LoggedMatch, index_records, load_log
from ._page import Fragment, match_fragment, match_page, match_update, page, timeline_of
from ._rerun import Rerun, RulesUnavailable, rerun, rules_for
from ._timeline import Event, Frame, Timeline, for_seat, from_log
from ._verify import Difference, Verdict, verify

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
