"""How a game's table looks, drawn from what its seats were told.

A game's view (a :class:`TableView` in ``<game>_view.py`` beside its rules)
follows a match message by message, as the seats saw it: the requests each
seat was asked, its answers, and the notices it was told. Fed the messages of
both seats it draws the whole table; fed one seat's messages it draws the
table as that seat saw it, so hidden information cannot leak into a seat's
view: what the seat was never told is simply not there (a card it does not
know is ``"?"``, drawn face down).

:meth:`TableView.table` returns plain data that any viewer draws (the replay
page, the competition server)::

    {"info": [["Turn", "3 / 10"], ...],       # the state of play, in words
     "center": [Zone, ...],                    # what lies between the seats
     "outcome": "A wins the turn (pair)",      # what this step decided
     "seats": [Seat A, Seat B]}
    Seat = {"zones": [Zone, ...], "stats": [["turns won", "2"], ...], "status": "plays R6"}
    Zone = {"label": "Hand", "cards": ["R3", "?", ...], "marks": {"1": "played"}, "note": "..."}

A mark says what a card did in this step: ``played``, ``won``, ``new``,
``out`` (discarded), ``best`` (part of the hand that counts). :meth:`card`
says how a face looks: a symbol (or a word), a rank, a colour and a name in
words (a tooltip, and what a screen reader says).

A view also tells what happened, in words (:meth:`TableView.say`: lines of
text and cards, such as ``A plays``, ``R3``, ``; rock beats scissors``),
which turn, round or hand the table is in (:meth:`TableView.period`), and
the running score (:meth:`TableView.running`). A viewer takes the lines
said since it last drew the table (:meth:`TableView.said_since`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

UNKNOWN = "?"
"""A card whose face this view was not told."""

Zone = dict[str, Any]
Table = dict[str, Any]
CardLook = dict[str, str]
Line = list[Any]
"""A line of narration: text, and cards as ``{"card": face}``."""


def card_of(face: str) -> dict[str, str]:
    """A card within a line of narration (:meth:`TableView.say`)."""
    return {"card": face}


def zone(label: str, cards: Sequence[str] = (), *, marks: Mapping[int, str] | None = None, note: str = "") -> Zone:
    """A labelled group of cards (``marks``: card index to what it did this step)."""
    out: Zone = {"label": label, "cards": list(cards)}
    if marks:
        out["marks"] = {str(i): mark for i, mark in sorted(marks.items())}
    if note:
        out["note"] = note
    return out


def unknown(count: int) -> list[str]:
    """``count`` face-down cards."""
    return [UNKNOWN] * max(0, count)


def num(value: Any) -> str:
    """A number as people write it: ``3``, ``2.5``, ``-4``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def score_text(a: Any, b: Any) -> str:
    """Seat A's and seat B's points as one score: ``434 : -434``.

    A colon between them, never a dash: Badugi's ``434 - -434`` read as a
    subtraction. Every score Arena prints (``arena play``, replays, ``arena
    results --matches``, the report) is written so.
    """
    return f"{num(a)} : {num(b)}"


class TableView:
    """Follows one match's messages and draws its table; a game subclasses it."""

    game: ClassVar[str] = ""
    """The game's id without version, such as ``rps-poker``."""
    points_name: ClassVar[str] = "points"
    result_is_score: ClassVar[bool] = True
    """Whether the match's result is on the running score's scale (GOPS's win-loss after prize sums is not)."""

    def __init__(self, params: Mapping[str, Any], names: Sequence[str], seen: frozenset[int]) -> None:
        self.params = dict(params)
        self.names = list(names)
        self.seen = seen
        """The seats whose messages this view is fed: both, or one (that seat's view)."""
        self.score: list[float | None] = [None, None]
        self.status: list[str] = ["", ""]
        self.outcome = ""
        self.lines: list[Line] = []

    # Narration ------------------------------------------------------------
    def say(self, *parts: str | dict[str, str]) -> None:
        """Tell what happened, in words: text and cards (``card_of(face)``), joined as given."""
        self.lines.append(list(parts))

    def said_since(self) -> list[Line]:
        """The lines said since the last call."""
        out, self.lines = self.lines, []
        return out

    def period(self) -> tuple[str, int] | None:
        """The turn, round or hand in play, such as ``("Hand", 3)``; ``None`` before the first."""
        return None

    def running(self) -> list[float] | None:
        """The running score of A and B, when the game keeps one."""
        a, b = self.score
        return None if a is None or b is None else [float(a), float(b)]

    # What the seats saw ---------------------------------------------------
    def asked(self, seat: int, msg: Mapping[str, Any]) -> None:
        """``seat`` was sent the request ``msg``."""

    def answered(self, seat: int, request: Mapping[str, Any], action: Any) -> None:
        """``seat`` answered ``request`` with ``action`` (an action the rules accepted)."""

    def told(self, seat: int, msg: Mapping[str, Any]) -> None:
        """``seat`` was sent the notice ``msg``."""

    def opens(self, seat: int, msg: Mapping[str, Any]) -> bool:
        """Whether the notice ``msg`` deals a new hand: the step's table is drawn before it."""
        return False

    # Drawing --------------------------------------------------------------
    def table(self) -> Table:
        """The table now."""
        return {
            "info": [list(pair) for pair in self.info()],
            "center": self.center(),
            "outcome": self.outcome,
            "seats": [self.seat(s) for s in (0, 1)],
        }

    def info(self) -> list[tuple[str, str]]:
        """The state of play in words (turn, hand, pot...)."""
        return []

    def center(self) -> list[Zone]:
        """What lies between the seats."""
        return []

    def zones(self, seat: int) -> list[Zone]:
        """A seat's cards."""
        return []

    def stats(self, seat: int) -> list[tuple[str, str]]:
        """A seat's numbers; the score by default."""
        score = self.score[seat]
        return [] if score is None else [(self.points_name, num(score))]

    def seat(self, seat: int) -> dict[str, Any]:
        return {
            "zones": self.zones(seat),
            "stats": [list(pair) for pair in self.stats(seat)],
            "status": self.status[seat],
        }

    def knows(self, seat: int) -> bool:
        """Whether this view was told ``seat``'s own cards."""
        return seat in self.seen

    def set_score(self, seat: int, score: Sequence[float]) -> None:
        """A ``score`` field as sent to ``seat``: its own points first."""
        self.score[seat], self.score[1 - seat] = score[0], score[1]

    @classmethod
    def card(cls, face: str) -> CardLook:
        """How ``face`` looks: ``{"sym": ..., "rank": ..., "c": colour, "name": words}``; a plain card by default.

        ``"fill": "1"`` draws the card filled with its colour (where the colour is part of the card, as in
        Card-Jitsu, and a coloured rank alone could not be told apart).
        """
        return {"sym": "", "rank": face, "c": "black", "name": face}


HIDDEN = "hidden"
"""The note on a seat's private part that this view was not told."""


def generic_table(shown: Mapping[str, Any], seen: frozenset[int]) -> Table:
    """The table of a game without a view, drawn from what it shows (a :class:`~arena.games.Shown` as plain data).

    Public lists lie in the centre, public numbers and words are the state of
    play; each seat shows its own lists as zones and its numbers as stats. A
    seat's private part is drawn only in a view fed that seat's messages
    (``seen``); in any other it is a labelled, empty zone noted ``hidden``:
    not even how many cards it holds is shown, unless the game shows that in
    the seat's public part.
    """
    public: Mapping[str, Any] = shown.get("public") or {}
    seats: Sequence[Mapping[str, Any]] = shown.get("seats") or ({}, {})
    private: Sequence[Mapping[str, Any]] = shown.get("private") or ({}, {})
    drawn = []
    for seat in (0, 1):
        zones, stats = _split(seats[seat])
        if seat in seen:
            own_zones, own_stats = _split(private[seat])
            zones, stats = zones + own_zones, stats + own_stats
        else:
            zones += [zone(label, note=HIDDEN) for label in private[seat]]
        drawn.append({"zones": zones, "stats": [list(pair) for pair in stats], "status": ""})
    center, info = _split(public)
    return {"info": [list(pair) for pair in info], "center": center, "outcome": "", "seats": drawn}


def _split(part: Mapping[str, Any]) -> tuple[list[Zone], list[tuple[str, str]]]:
    """A part's lists as zones of cards, and its other values as (label, words) pairs."""
    zones = [zone(str(label), [_face(v) for v in value]) for label, value in part.items() if isinstance(value, list)]
    words = [(str(label), _face(value)) for label, value in part.items() if not isinstance(value, list)]
    return zones, words


def _face(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return num(value) if isinstance(value, int | float) else str(value)
