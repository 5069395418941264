"""The interface every game implements.

A game is pure: given a seed and the players' legal actions it produces the
same messages and result on any machine. It knows nothing of processes,
clocks or files. Seats are ``0`` (seat A) and ``1`` (seat B) inside a game.

The supervisor drives a match like this::

    state = game.new_match(seed)
    send every notice of state.start()
    while not state.is_over:
        requests = state.requests()          # {seat: Request}; one seat or both
        actions = {seat: state.check(seat, answer) ...}   # IllegalAction -> fault
        step = state.apply(actions)          # notices to send, and narration
    result = state.result()

Simultaneous moves are requests to both seats at once; sequential moves are a
request to one seat. Hidden information leaves a game only through the
notices and requests it addresses to a seat.
"""

from __future__ import annotations

import importlib
import sys
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from protocol import SEATS, Message, Notice, Request, Result

if TYPE_CHECKING:
    from ._view import TableView

ParamValue = int | float | str | bool
Secret = str | int | tuple[Any, ...]
"""A piece of a seat's private state, as messages write it (a list is written as a tuple)."""


class IllegalAction(Exception):
    """An action a game refuses; the message says why, in the rules' words."""


class ParamError(ValueError):
    """A game parameter that does not exist or has a bad value."""


@dataclass(frozen=True)
class Param:
    """One game parameter: its name, default, meaning and allowed values."""

    name: str
    default: ParamValue
    doc: str
    choices: tuple[ParamValue, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    def check(self, value: object) -> ParamValue:
        """``value`` converted to the default's type, or :class:`ParamError`."""
        kind = type(self.default)
        if kind is float and type(value) is int:
            value = float(value)
        if type(value) is not kind:
            raise ParamError(f"{self.name} must be {kind.__name__}, not {value!r}")
        assert isinstance(value, int | float | str | bool)
        if self.choices and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise ParamError(f"{self.name} must be one of {allowed}, not {value!r}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            if self.minimum is not None and value < self.minimum:
                raise ParamError(f"{self.name} must be at least {self.minimum}, not {value}")
            if self.maximum is not None and value > self.maximum:
                raise ParamError(f"{self.name} must be at most {self.maximum}, not {value}")
        return value


@dataclass
class Step:
    """What one step of a match produced."""

    notices: list[tuple[int, Notice]] = field(default_factory=list)
    """Messages to send, in order, each to one seat."""
    narration: list[str] = field(default_factory=list)
    """Readable lines for a person watching (``arena play``)."""


ShownValue = int | float | str | bool | None | list[int] | list[str]
"""A value a match shows: a number or a word, or a list of them (cards, a pile: drawn as cards)."""


@dataclass
class Shown:
    """What a match shows of itself at a moment, as plain data: the generic table and the hidden-information audit.

    ``public`` is on the table for both seats (the prize, the pot, the turn);
    ``seats[s]`` is seat ``s``'s state that both seats see (its score, its
    cards won, how many cards it holds); ``private[s]`` is what only seat ``s``
    knows (its hand). Keys are labels in the game's words (``"hand"``,
    ``"cards won"``); a list is drawn as cards, anything else as a number or a
    word. A replay seen as seat A shows ``public``, both ``seats`` and A's
    ``private``, never B's: a game keeps a secret by putting it in ``private``.
    """

    public: dict[str, ShownValue] = field(default_factory=dict)
    seats: tuple[dict[str, ShownValue], dict[str, ShownValue]] = field(default_factory=lambda: ({}, {}))
    private: tuple[dict[str, ShownValue], dict[str, ShownValue]] = field(default_factory=lambda: ({}, {}))


class MatchState(ABC):
    """One match in progress."""

    def start(self) -> Step:
        """Notices sent right after ``match_start`` (none by default)."""
        return Step()

    @property
    @abstractmethod
    def is_over(self) -> bool:
        """Whether the match has ended."""

    @abstractmethod
    def requests(self) -> dict[int, Request]:
        """The requests the seats must answer now (ids are set by the supervisor)."""

    @abstractmethod
    def check(self, seat: int, action: Any) -> Any:
        """``action`` as the rules take it, or :class:`IllegalAction` saying why not."""

    @abstractmethod
    def apply(self, actions: Mapping[int, Any]) -> Step:
        """Play checked actions, one for each seat that was asked."""

    @abstractmethod
    def result(self) -> Result:
        """The result of a finished match."""

    @abstractmethod
    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        """The result when ``offenders`` fault now (see each game for how points go)."""

    def shown(self) -> Shown | None:
        """What the match shows now, public and per seat (optional: a game without a view draws its replays'
        table from it; ``None``, the default, draws none)."""
        return None

    hand: int = 0
    """The hand in play, ``1``, ``2``, ... in a game played in hands (set as it deals); ``0`` in one that is not.

    ``arena check-game`` bounds each hand by :meth:`Game.hand_requests` and
    compares each hand's deal (:meth:`dealt`, else each seat's secrets as the
    hand begins) between two plays of a seed.
    """

    def dealt(self) -> Mapping[str, Any] | None:
        """What chance has dealt so far in the hand in play, by name (optional; ``None``, the default: not said).

        Such as ``{"A": "Js", "B": "Qh", "board": "Kh"}``, the board once
        turned. Duplicate fairness needs a deal to depend on the seed and the
        hand's number alone, never on the play: ``arena check-game`` plays each
        seed twice, differently, and fails the game when a hand's deal differs
        (a card both plays dealt, under the same name).
        """
        return None

    def legal_actions(self, seat: int) -> list[Any]:
        """Every action ``check`` accepts from ``seat`` now (optional; the random-playout test uses it)."""
        raise NotImplementedError(f"{type(self).__name__} does not list its legal actions")

    def secrets(self, seat: int) -> Collection[Secret]:
        """What of ``seat``'s private state the other seat has not been shown so far in the match.

        Each secret is written as the messages write it (a card ``"R3"``, a
        hand ``[1, 2, 4]`` as a tuple), and stays a secret until the rules
        reveal it to the other seat: a folded hand's cards stay secrets to the
        end of the match. ``arena check-game`` plays random matches and fails
        the game when a message to one seat carries a secret of the other's
        (one it does not hold itself). A game without hidden information
        returns an empty collection; a game that does not say fails the check.
        """
        raise NotImplementedError(f"{type(self).__name__} does not declare its private state (secrets)")


class TextProtocol(ABC):
    """A plain-text protocol, for bots written for a game's original referee (``protocol = NAME`` in bot.toml).

    It turns the game's messages into the lines such a bot reads, and its
    lines into actions, which the rules then check as any other. There is no
    framing (no ``match_start``, ``match_end`` or ``quit``: a text bot's input
    closes when its match ends, and it gets a new process for each match), and
    no request ids. Arena's own ``gops-text`` is one (``arena/supervisor/wires.py``).
    """

    name: ClassVar[str]
    """What a bot's manifest says, such as ``gops-text``."""

    @abstractmethod
    def line(self, message: Message) -> str | None:
        """The line (without its newline) a bot reads for ``message``, or ``None`` to send it nothing."""

    @abstractmethod
    def action(self, line: bytes, request: Request) -> Any:
        """The action a bot's ``line`` answers ``request`` with; ``ValueError`` saying why when there is none."""


class Game(ABC):
    """A two-player game: its id, rules version and parameters."""

    id: ClassVar[str]
    version: ClassVar[int]
    title: ClassVar[str]
    summary: ClassVar[str]
    params_table: ClassVar[tuple[Param, ...]] = ()
    duplicate_deals: ClassVar[bool] = True
    """Whether tournaments replay each deal with seats swapped, by default."""
    points_name: ClassVar[str] = "points"
    messages: ClassVar[tuple[type[Message], ...]] = ()
    """The message Structs this game sends (requests and notices): its part of the wire protocol."""
    text_protocols: ClassVar[tuple[type[TextProtocol], ...]] = ()
    """Plain-text protocols a bot may speak instead of JSON in this game (optional)."""

    view: ClassVar[str] = ""
    """The game's own table view for replays, as ``module:Class`` (``.module`` beside the game's module,
    ``:Class`` in it); "" for the generic table. A name, not the class: a view imports its rules, and is
    imported only when a replay is drawn."""

    @classmethod
    def table_view(cls) -> type[TableView] | None:
        """The class :attr:`view` names, imported now, or ``None``."""
        if not cls.view:
            return None
        module_name, _, name = cls.view.partition(":")
        if not module_name:
            module = sys.modules[cls.__module__]
        else:
            module = importlib.import_module(module_name, cls.__module__.rpartition(".")[0] or None)
        found: type[TableView] = getattr(module, name)
        return found

    @classmethod
    def rules_path(cls) -> Path | None:
        """The game's rules page in Markdown (``arena games GAME``): ``<id>.md`` beside the game's module."""
        source = getattr(sys.modules.get(cls.__module__), "__file__", None)
        return None if source is None else Path(source).with_name(f"{cls.id}.md")

    @classmethod
    def bots_path(cls) -> Path | None:
        """The game's sample bots, a folder per bot (``arena check``'s opponents): ``bots/`` beside its module."""
        source = getattr(sys.modules.get(cls.__module__), "__file__", None)
        return None if source is None else Path(source).with_name("bots")

    def __init__(self, params: Mapping[str, object] | None = None) -> None:
        given = dict(params or {})
        known = {p.name: p for p in self.params_table}
        unknown = sorted(set(given) - set(known))
        if unknown:
            valid = ", ".join(known) or "none"
            raise ParamError(f"unknown parameter {unknown[0]!r} for {self.id}; valid: {valid}")
        self.params: dict[str, ParamValue] = {
            name: p.check(given[name]) if name in given else p.default for name, p in known.items()
        }

    @property
    def game_id(self) -> str:
        """Id with rules version, such as ``rps-poker/1``."""
        return f"{self.id}/{self.version}"

    @abstractmethod
    def new_match(self, seed: int) -> MatchState:
        """A new match, dealt from ``seed``."""

    def points_total(self) -> float | None:
        """The sum of both seats' points in every match played to its end, when the rules fix one.

        ``0.0`` for a zero-sum game (chips won), the total for a constant-sum
        one (tricks taken); ``None`` when the rules fix none. ``arena
        check-game`` fails a game that does not say (that keeps this default)
        whose points do not add up to the same in every match, and ``arena play``
        and ``replay --verify`` warn when a match's points break the total.
        """
        return None

    def hand_requests(self) -> int | None:
        """The most requests one seat can be asked in one hand (:attr:`MatchState.hand`), when the rules bound a hand.

        ``arena check-game`` fails a game whose random play asks a seat more in
        one hand (an uncapped raise); ``None`` (the default): no bound is said.
        """
        return None

    @abstractmethod
    def max_requests(self) -> int:
        """The most requests one seat can be asked in one match: the game's length, which a match's clock follows."""


def smallest(game: Game) -> list[Game]:
    """``game`` with each number parameter at its smallest legal value, when that is not the default (else none).

    A rare path at the defaults (the last hand of a hundred) is a common one
    there (the only hand), and the kit explores it through.
    """
    changed: dict[str, object] = {}
    for param in type(game).params_table:
        if isinstance(param.default, bool) or not isinstance(param.default, int | float):
            continue
        numbers = [c for c in param.choices if isinstance(c, int | float) and not isinstance(c, bool)]
        low = min(numbers) if numbers else None if param.choices else param.minimum
        if low is None or low == game.params[param.name]:
            continue
        changed[param.name] = type(param.default)(low)
    # All at once; else (the smallest values together are not a legal game: a big blind below the small) the
    # first parameter alone, in the table's order (a game's length first, by custom), that makes a legal game.
    for tried in [changed, *({name: value} for name, value in changed.items())] if changed else []:
        try:
            return [type(game)({**game.params, **tried})]
        except Exception:  # (ParamError, or the game's own check of the values together): not a legal game
            continue
    return []


def points_result(points: Sequence[float]) -> Result:
    """A finished match's result: more points wins, equal points draw."""
    a, b = points
    winner = None if a == b else SEATS[0] if a > b else SEATS[1]
    return Result(points=list(points), winner=winner)


def forfeit_result(points: Sequence[float], offenders: frozenset[int], reason: str) -> Result:
    """A forfeit's result, once the game has awarded the points.

    A forfeit is always a loss for the offender: a lone offender's opponent
    wins whatever the points say; when both seats fault nobody wins.
    """
    winner = SEATS[1 - next(iter(offenders))] if len(offenders) == 1 else None
    return Result(points=list(points), winner=winner, forfeit=[SEATS[s] for s in sorted(offenders)], reason=reason)


def broken_total(game: Game, result: Result) -> str:
    """What is wrong when a match played to its end has points that do not add up to ``game.points_total()``; ""
    when nothing is (or the game fixes no total, or the match ended early: a forfeit, a game error)."""
    total = game.points_total()
    if total is None or result.forfeit or result.reason or len(result.points) != 2:
        return ""
    found = sum(result.points)
    if abs(found - total) <= 1e-9:
        return ""
    return (
        f"the points {' and '.join(f'{p:g}' for p in result.points)} add up to {found:g}, not to the game's "
        f"points_total() = {total:g}: the game's rules broke their own total (arena check-game {game.id})"
    )


def seat_name(seat: int) -> str:
    """``"A"`` or ``"B"``."""
    return SEATS[seat]
