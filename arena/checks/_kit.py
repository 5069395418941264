"""The conformance kit's playouts: random matches of a game, played with no bot and no process.

A :class:`Playout` drives a :class:`~arena.games.MatchState` the way the
supervisor does, with a seeded random player answering every request from
the game's legal actions (``legal_actions`` when the game lists them, else
candidates harvested from the request and kept when the game's own ``check``
accepts them, after OpenSpiel's ``random_sim_test``). While it plays it can
audit what the kit checks: that the match ends within the game's declared
length, that junk answers are refused with ``IllegalAction`` and change
nothing, that no message to one seat carries a secret of the other's, and
that every message goes through the codec unchanged. A problem is a
:class:`KitFailure` naming the seed and the step, so the author can replay it.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import random
import signal
import threading
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import msgspec

import protocol
from protocol import Message, Notice, Request
from protocol.codec import message_types

from ..games import Game, IllegalAction, MatchState

JUNK: tuple[Any, ...] = (
    None,
    True,
    -1,
    10**30,
    1.5,
    "",
    "?",
    "\x00",
    [],
    [[]],
    [None],
    {},
    {"x": 1},
    {"high": None},
    [-1, 10**30],
    "fold" * 1000,
)
"""Answers that no sensible game takes; each must be refused with ``IllegalAction`` or accepted, never raise else."""


class KitFailure(Exception):
    """A game broke one of the kit's rules; the message says which, at what seed and step."""


class Endless(KitFailure):
    """A match did not end within the game's declared length (the termination check's failure, met by any)."""


class Stuck(Endless):
    """A match took longer than :attr:`Playout.wall_s`: the game's own code loops (or all but)."""


class _Overtime(BaseException):
    """Raised by the kit's alarm in the game's code (a BaseException: a game's ``except Exception`` lets it by)."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """Raise :class:`_Overtime` in this thread after ``seconds`` (again every second, should the game swallow it).

    Only in the main thread, where signals are delivered; elsewhere nothing is timed. A timer and a handler the
    caller had are put back (the timer less the time taken); once the block is left the alarm raises nothing,
    even if it rings before it is put away.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    armed = True

    def ring(_signum: int, _frame: object) -> None:
        if armed:
            raise _Overtime

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, ring)
    try:
        outer = signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
        try:
            yield
        finally:
            armed = False
            left = outer[0] - (time.monotonic() - started) if outer[0] else 0.0
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6) if outer[0] else 0.0, outer[1])
    finally:
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Audit:
    """What a playout checks as it goes (each costs time, so a check turns on only its own)."""

    junk: bool = False
    """Offer every request the :data:`JUNK` answers (and the other seat's legal answers) before a legal one."""
    secrets: bool = False
    """Fail when a message to a seat carries a secret of the other seat's (:meth:`MatchState.secrets`)."""
    codec: bool = False
    """Fail when a message does not come back unchanged through the codec's encoder and decoder."""
    deal: bool = False
    """Keep each seat's secrets at the start and when it is first asked (:attr:`Playout.first_asked`), and each
    hand's deal (:attr:`Playout.deals`)."""
    fields: bool = False
    """Keep, for each message type's field, up to two values it took and whether it was ever other than null."""


class Explorer:
    """Biased random play toward answers not yet tried, shared by the playouts of one check.

    At each decision it has met (a seat and a request, ids aside) it tries
    first the legal answers it has not tried there, so a rare line of play
    (the last hand after the most raises) is played on purpose, not by luck;
    where every answer was tried, it plays at random. Decisions are told apart
    by what the request says: a short match (a game at its smallest
    parameters) meets the same ones again and again, and is explored through.
    """

    MAX_DECISIONS = 200_000
    """Decisions remembered at most (past it, play is plain random): memory stays small whatever the game."""

    def __init__(self) -> None:
        self.tried: dict[tuple[int, bytes], set[int]] = {}

    def choose(self, chooser: random.Random, seat: int, request: Request, options: list[Any]) -> Any:
        """The answer to play: an untried one at this decision when there is one, else any."""
        key = (seat, protocol.encode(msgspec.structs.replace(request, id=0)))
        tried = self.tried.get(key)
        if tried is None:
            if len(self.tried) >= self.MAX_DECISIONS:
                return chooser.choice(options)
            tried = self.tried[key] = set()
        untried = [index for index in range(len(options)) if index not in tried]
        index = chooser.choice(untried) if untried else chooser.randrange(len(options))
        tried.add(index)
        return options[index]


@dataclass
class Playout:
    """One random match of ``game`` from ``seed``: its messages, each prefixed by its seat, and its end."""

    game: Game
    seed: int
    audit: Audit = field(default_factory=Audit)
    chooser_seed: int | None = None
    """Seeds the random player (default: the deal's seed); another value plays the same deal differently."""
    explorer: Explorer | None = None
    """Plays toward answers not yet tried (:class:`Explorer`); ``None``: plain random play."""
    lines: list[bytes] = field(default_factory=list)
    requests: list[int] = field(default_factory=lambda: [0, 0])
    steps: int = 0
    state: MatchState | None = None
    opening: list[Any] = field(default_factory=list)
    first_asked: dict[int, tuple[int, int, list[str]]] = field(default_factory=dict)
    """For each seat, when it was first asked (the step, the messages sent before) and its secrets then."""
    """What the deal gave before anyone chose anything: the first notices and requests, and each seat's secrets."""
    seen_types: set[str] = field(default_factory=set)
    kept_secrets: bool = False
    """Whether a seat had a secret at some message (a game with no hidden information never has)."""
    deals: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Each hand's deal, as :meth:`MatchState.dealt` says it as the hand goes (with :attr:`Audit.deal`)."""
    field_values: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    """For each message tag and field: up to two distinct values it took (with :attr:`Audit.fields`)."""
    counts: dict[str, int] = field(default_factory=dict)
    """Messages of each tag sent (with :attr:`Audit.fields`)."""
    filled: set[tuple[str, str]] = field(default_factory=set)
    """The message tags and fields that were other than null at least once (with :attr:`Audit.fields`)."""
    answers: list[str] = field(default_factory=list)
    """The answers of the hand in play (the match's, in a game not played in hands): a failure quotes them."""
    _held: list[set[Any]] = field(default_factory=lambda: [set(), set()])

    wall_s: ClassVar[float] = 10.0
    """How long one match may take (wall clock) before the kit says the game is stuck in its own code."""

    def play(self, *, stop_at: int | None = None) -> Playout:
        """Play to the end (or ``stop_at`` steps, 0 for the deal alone); raise :class:`KitFailure` at a broken rule."""
        try:
            with _alarm(self.wall_s):
                self._play(stop_at)
        except _Overtime:
            raise self.failure(
                f"the match took more than {self.wall_s:g} s: does the game's code loop (new_match, start, requests, "
                "check, apply, result)?",
                Stuck,
            ) from None
        except KitFailure:
            raise
        except Exception as exc:  # the game's own code raised: the kit reports it with where, not a traceback dump
            raise self.failure(f"the game raised {exception_text(exc)}{self._line_of_play()}") from exc
        return self

    def _line_of_play(self) -> str:
        """The answers that led here, when play explored (a seed alone does not replay it)."""
        if self.explorer is None or not self.answers:
            return ""
        hand = f" in hand {self.state.hand}" if self.state is not None and self.state.hand else ""
        shown = ", ".join(self.answers[-24:])
        return f", after the answers{hand} {'... ' if len(self.answers) > 24 else ''}{shown}"

    def failure(self, text: str, kind: type[KitFailure] = KitFailure) -> KitFailure:
        """A :class:`KitFailure` saying ``text`` at this seed and step."""
        return kind(f"seed {self.seed}, step {self.steps}: {text}")

    def _play(self, stop_at: int | None) -> None:
        game = self.game
        chooser = random.Random(self.seed if self.chooser_seed is None else self.chooser_seed)
        prober = random.Random(~self.seed)  # junk of its own stream, so offering it leaves the play as it was
        self.state = state = game.new_match(self.seed)
        limit = game.max_requests()
        hand_limit = game.hand_requests()
        hand, in_hand = state.hand, [0, 0]
        self._send(state.start().notices)
        first = state.requests() if not state.is_over else {}
        self.opening = [
            *self.lines,
            *[_line(seat, request) for seat, request in sorted(first.items())],
            *[sorted(map(repr, secrets_of(state, seat))) if self.audit.deal else None for seat in (0, 1)],
        ]
        while not state.is_over and self.steps != stop_at:
            self.steps += 1
            if self.audit.secrets:  # what a seat held before a step is its own to be told of, though the other has it
                self._held = [set(secrets_of(state, 0)), set(secrets_of(state, 1))]
                self._check_shown(state)
            requests = state.requests()
            if not requests:
                raise self.failure("the match is not over, yet no seat is asked to act", Endless)
            if state.hand != hand:
                hand, in_hand = state.hand, [0, 0]
                self.answers.clear()
            if self.audit.deal:
                self._keep_deal(state)
            actions = {}
            for seat, request in sorted(requests.items()):
                self.requests[seat] += 1
                in_hand[seat] += 1
                if self.requests[seat] > limit:
                    raise self.failure(
                        f"seat {'AB'[seat]} was asked more than max_requests() = {limit} requests: "
                        "the match does not end within the game's declared length",
                        Endless,
                    )
                if hand_limit is not None and in_hand[seat] > hand_limit:
                    raise self.failure(
                        f"seat {'AB'[seat]} was asked more than hand_requests() = {hand_limit} requests in hand "
                        f"{hand}: a hand does not end within the game's declared length (is a raise capped?)"
                        f"{self._line_of_play()}",
                        Endless,
                    )
                if self.audit.deal and seat not in self.first_asked:
                    self.first_asked[seat] = (self.steps, len(self.lines), sorted(map(repr, secrets_of(state, seat))))
                self._send([(seat, request)])
                if self.audit.secrets:  # what a seat is asked about is its own (its card), whatever the other gets next
                    self._held[seat].update(values_in(msgspec.to_builtins(request)))
                options = legal_options(state, seat, request)
                if not options:
                    raise self.failure(f"no legal answer found for seat {'AB'[seat]} to {_short(request)}")
                if self.audit.junk:
                    self._offer_junk(state, seat, request, prober)
                if self.explorer is not None:
                    answer = self.explorer.choose(chooser, seat, request, options)
                    self.answers.append(f"{'AB'[seat]} {answer!r:.30}")
                else:
                    answer = chooser.choice(options)
                actions[seat] = state.check(seat, answer)
            self._send(state.apply(actions).notices)
            if self.audit.deal and not state.is_over:
                self._keep_deal(state)
        if self.audit.secrets and state.is_over:
            self._check_shown(state)

    def _keep_deal(self, state: MatchState) -> None:
        """Add what the hand in play has dealt so far to :attr:`deals` (a name dealt stays as first seen)."""
        dealt = state.dealt()
        if dealt is not None:
            kept = self.deals.setdefault(state.hand, {})
            for name, value in dealt.items():
                kept.setdefault(name, value)

    def _send(self, messages: Iterable[tuple[int, Message]]) -> None:
        assert self.state is not None
        for seat, message in messages:
            line = protocol.encode(message)
            self.lines.append(str(seat).encode() + line)
            if self.audit.codec:
                self._check_codec(message, line)
            if self.audit.secrets:
                self._check_secrets(self.state, seat, message)

    def _check_codec(self, message: Message, line: bytes) -> None:
        if not isinstance(message, Notice | Request):
            raise self.failure(f"{type(message).__name__} is neither a Notice nor a Request")
        tag = message.__struct_config__.tag
        if not isinstance(tag, str):
            raise self.failure(f"{type(message).__name__} has no tag: declare it as class X(Notice, tag='x_name')")
        self.seen_types.add(tag)
        fields = msgspec.json.decode(line)
        if self.audit.fields:
            self._keep_fields(tag, fields)
        if isinstance(message, Notice) and "id" in fields:
            raise self.failure(f"notice {tag} has a key named 'id': bots take any message with an id for a request")
        try:
            back = _decoder().decode(line)
        except msgspec.DecodeError as exc:
            raise self.failure(f"{tag} does not decode as its own Struct ({exc}): {_clip(line)}") from None
        if back != message or protocol.encode(back) != line:
            raise self.failure(f"{tag} does not come back unchanged through the codec: {_clip(line)}")

    def _keep_fields(self, tag: str, fields: dict[str, Any]) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1
        for name, value in fields.items():
            if name in ("type", "id"):
                continue
            key = (tag, name)
            if value is not None:
                self.filled.add(key)
            values = self.field_values.setdefault(key, [])
            if len(values) < 2 and value not in values:
                values.append(value)

    def _check_secrets(self, state: MatchState, seat: int, message: Message) -> None:
        theirs = set(secrets_of(state, 1 - seat))
        self.kept_secrets = self.kept_secrets or bool(theirs)
        other = theirs - set(secrets_of(state, seat)) - self._held[seat]
        shown = other.intersection(values_in(msgspec.to_builtins(message)))
        if shown:
            raise self.failure(
                f"a message to seat {'AB'[seat]} shows seat {'AB'[1 - seat]}'s secret "
                f"{', '.join(sorted(map(repr, shown)))} before the rules reveal it: {_short(message)}"
            )

    def _check_shown(self, state: MatchState) -> None:
        """The replay table (:meth:`MatchState.shown`) shows a seat's secret only in that seat's private part.

        Its public part and both seats' shared parts are in every replay, seen
        as either seat: a secret of either there is shown to the other. Seat
        ``s``'s private part is seen as seat ``s`` alone: the other's secret there is shown to ``s``.
        """
        try:
            shown = state.shown()
        except NotImplementedError:
            return
        if shown is None:
            return
        declared = _declares_own_secrets(state)
        theirs = [set(secrets_of(state, 0)), set(secrets_of(state, 1))]
        for owner in (0, 1):
            other = theirs[owner] - theirs[1 - owner] - self._held[1 - owner]
            if not other:
                continue
            parts = {"public": shown.public, f"seat {'AB'[1 - owner]}'s shared part": shown.seats[1 - owner]}
            parts[f"seat {'AB'[owner]}'s shared part"] = shown.seats[owner]
            if declared:  # (secrets read from the private parts are there by definition)
                parts[f"seat {'AB'[1 - owner]}'s private part"] = shown.private[1 - owner]
            for part, values in parts.items():
                leaked = other.intersection(values_in(msgspec.to_builtins(values)))
                if leaked:
                    raise self.failure(
                        f"the replay table (shown()) shows seat {'AB'[owner]}'s secret "
                        f"{', '.join(sorted(map(repr, leaked)))} in its {part}, which a replay seen as seat "
                        f"{'AB'[1 - owner]} shows: put it in shown().private[{owner}]"
                    )

    def _offer_junk(self, state: MatchState, seat: int, request: Request, chooser: random.Random) -> None:
        offers = [*JUNK, chooser.random(), [chooser.randrange(-3, 60) for _ in range(chooser.randrange(1, 7))]]
        for answer in offers:
            try:
                state.check(seat, answer)
            except IllegalAction:
                continue
            except Exception as exc:
                raise self.failure(
                    f"the answer {answer!r:.60} to {_short(request)} raised {exception_text(exc)}, "
                    "not IllegalAction (a bot's bad answer must be refused, never crash the referee)"
                ) from exc

    def digest(self) -> str:
        """A SHA-256 of every message and the result: equal digests mean the same match, byte for byte."""
        assert self.state is not None
        hasher = hashlib.sha256()
        for line in self.lines:
            hasher.update(line)
        if self.state.is_over:
            hasher.update(protocol.encode(self.state.result()))
        return hasher.hexdigest()


def secrets_of(state: MatchState, seat: int) -> set[Any]:
    """``seat``'s secrets: what :meth:`MatchState.secrets` declares, else the words and lists of ``shown().private``.

    Raises ``NotImplementedError`` for a game that declares neither.
    """
    try:
        return set(state.secrets(seat))
    except NotImplementedError:
        shown = state.shown()
        if shown is None:
            raise
    # Bare numbers are left out: a card written 7 cannot be told from a turn or a score of 7.
    return {
        value for item in shown.private[seat].values() for value in values_in(item) if isinstance(value, str | tuple)
    }


def _declares_own_secrets(state: MatchState) -> bool:
    """Whether ``state``'s game says its secrets itself (else they are read from ``shown().private``)."""
    return type(state).secrets is not MatchState.secrets


def _line(seat: int, message: Message) -> bytes:
    return str(seat).encode() + protocol.encode(message)


_decoders: dict[tuple[type[Message], ...], protocol.MessageDecoder] = {}


def _decoder() -> protocol.MessageDecoder:
    """A decoder of every message type imported so far (a game loaded later brings new ones)."""
    types = tuple(message_types())
    if types not in _decoders:
        _decoders.clear()
        _decoders[types] = protocol.MessageDecoder()
    return _decoders[types]


def values_in(value: Any) -> Iterator[Any]:
    """Every value inside a message's fields, whole lists too (as tuples), for matching against secrets."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key != "type":
                yield from values_in(item)
    elif isinstance(value, list | tuple):
        yield tuple(_hashable(item) for item in value)
        for item in value:
            yield from values_in(item)
    elif isinstance(value, str | int) and not isinstance(value, bool):
        yield value


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((key, _hashable(item)) for key, item in value.items()))
    return value


def _harvest(value: Any) -> list[Any]:
    """Every string and integer inside a request's fields."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | str):
        return [value]
    if isinstance(value, list | tuple):
        return [x for item in value for x in _harvest(item)]
    if isinstance(value, dict):
        return [x for item in value.values() for x in _harvest(item)]
    return []


def candidates(request: Request) -> list[Any]:
    """Answers worth trying for a game that does not list its legal actions."""
    fields = msgspec.to_builtins(request)
    fields.pop("type", None)
    fields.pop("id", None)
    pool: list[Any] = list(range(-1, 21))
    pool += [x for x in _harvest(fields) if x not in pool]
    pool += [list(c) for size in range(5) for c in itertools.combinations(range(6), size)]
    return pool


def legal_options(state: MatchState, seat: int, request: Request) -> list[Any]:
    """The answers the game takes from ``seat`` now: its listed legal actions, else the candidates it accepts."""
    try:
        return state.legal_actions(seat)
    except NotImplementedError:
        pass
    found = []
    for action in candidates(request):
        try:
            state.check(seat, action)
        except IllegalAction:
            continue
        found.append(action)
    return found


def check_result(playout: Playout) -> None:
    """The finished match's result adds up: two scores, the winner ahead, the game's fixed total kept."""
    assert playout.state is not None
    result = playout.state.result()
    total = playout.game.points_total()
    if len(result.points) != 2:
        raise playout.failure(f"the result has {len(result.points)} scores, not 2")
    if result.forfeit or result.reason:
        raise playout.failure("a match played to its end without faults has a forfeit in its result")
    if total is not None and abs(sum(result.points) - total) > 1e-9:
        raise playout.failure(f"the points {result.points} do not add up to points_total() = {total}")
    if result.winner is None and result.points[0] != result.points[1]:
        raise playout.failure(f"a draw with unequal points {result.points}")
    if result.winner is not None:
        winner = "AB".index(result.winner)
        if not result.points[winner] > result.points[1 - winner]:
            raise playout.failure(f"the winner {result.winner} does not have more points: {result.points}")


def check_forfeit(playout: Playout) -> None:
    """A fault now is a loss for the offender, whichever seat it is, and both faulting is nobody's win."""
    state = playout.state
    assert state is not None
    for offender in (0, 1):
        result = state.forfeit(frozenset({offender}), "kit")
        if result.winner != "AB"[1 - offender] or result.forfeit != ["AB"[offender]]:
            raise playout.failure(f"a fault by seat {'AB'[offender]} is not a loss for it: {result}")
    both = state.forfeit(frozenset({0, 1}), "kit")
    if both.winner is not None or both.forfeit != ["A", "B"]:
        raise playout.failure(f"a fault by both seats at once has a winner: {both}")


def digests(game: Game, seeds: Iterable[int]) -> list[str]:
    """The digest of a random playout from each seed (the determinism check compares them across processes)."""
    return [Playout(game, seed).play().digest() for seed in seeds]


def _short(message: Message) -> str:
    return _clip(protocol.encode(message))


def _clip(line: bytes, limit: int = 160) -> str:
    text = line.decode("utf-8", "replace").rstrip("\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def exception_text(exc: BaseException) -> str:
    """``Type: message`` and the innermost frame, so the author finds the line."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {str(exc)[:200]}{where}"
