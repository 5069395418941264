"""``arena check-game GAME``: the conformance kit a game passes before anyone writes a bot for it.

Random matches, played with no bot and no process (:mod:`arena.checks._kit`),
prove five things of a game, one ``PASS``/``FAIL`` line each:

* **determinism**: the same seed and the same answers give the same messages
  byte for byte, played twice here and once in each of two other Python
  processes (with other hash seeds, so set and dict order cannot hide);
* **termination**: matches of random legal play end, no seat asked more than
  the game's declared ``max_requests()`` (nor ``hand_requests()`` in a hand),
  results that add up (to ``points_total()``, or to one sum when the game
  declares none), forfeits that are the offender's loss; the play explores
  (:class:`~arena.checks._kit.Explorer`), so a rare path is played on purpose;
* **illegal answers**: junk answers are refused with ``IllegalAction``, never
  another exception, and refusing them changes nothing of the match;
* **hidden information**: no message to one seat, nor a part of the replay
  table (``MatchState.shown``) that seat sees, carries a secret of the
  other's (``MatchState.secrets``) before the rules reveal it;
* **duplicate fairness**: the deal (the start's notices, the first requests,
  each seat's secrets before anyone answers and when it is first asked) is
  the same whoever plays it, so a deal played again with the seats swapped gives each
  bot what the other had; or the game says it is not duplicable
  (``duplicate_deals = False``) and tournaments play each deal once and say
  so; and every hand's deal (``MatchState.dealt``) the same in two whole
  plays of a seed;
* **messages**: every message goes through the codec and back unchanged, the
  game declares the messages it sends, no declared field is always null or
  always one value, and the JSON examples on its rules page decode to its
  Structs and encode back to the same text.

Every check but determinism runs again with each number parameter at its
smallest legal value (:func:`smallest`), where a rare path at the defaults is
a common one.

Sizes are budgets (``--matches``, ``--requests``): the kit stops a check at
whichever comes first, so a long game is checked over as many requests as a
short one and every game takes seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys
import time
import types
import typing
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

import protocol

from .._errors import ConfigError
from ..games import BUILTIN, Game, get_game, origin_of, smallest
from ..supervisor.options import game_module_args, load_game_modules, number, params_from
from ._kit import (
    Audit,
    Endless,
    Explorer,
    KitFailure,
    Playout,
    Stuck,
    check_forfeit,
    check_result,
    digests,
    exception_text,
    secrets_of,
)
from .hints import printable
from .outcome import Check

SEATED_STEPS = 4
"""Steps played by the duplicate fairness check: enough for each seat to be asked once in a game's first turns."""
UNPROVEN = 'not proven: a match did not end (see "termination")'
MAX_MATCH_SECONDS = 86_400.0
"""The longest ``--match-seconds`` (a day: the alarm's timer takes no more)."""
CHECKS = ("determinism", "termination", "illegal answers", "hidden information", "duplicate fairness", "messages")


@dataclass(frozen=True)
class Sizes:
    """How much random play the checks do; each check stops at whichever of its budgets runs out first."""

    matches: int = 2000
    """Matches of random legal play for the termination check (a tenth of them for each audited check)."""
    requests: int = 20_000
    """Requests answered in all by the termination check (a fifth of them by each audited check)."""
    determinism: int = 20
    """Seeds replayed in each process by the determinism check, at most."""
    deals: int = 200
    """Deals dealt twice, to other players, by the duplicate fairness check."""
    seed: int = 0
    """The first seed; the checks play seeds ``seed``, ``seed + 1``, ..."""
    match_wall_s: float = 10.0
    """How long one match may take before the game is said to be stuck in its own code (the termination check)."""

    @property
    def audited(self) -> int:
        """Matches for each of the slower audited checks (junk answers, secrets, messages, determinism)."""
        return max(1, self.matches // 10)

    @property
    def audited_requests(self) -> int:
        """Requests answered by each audited check."""
        return max(1, self.requests // 5)


def check_game(
    game: Game,
    sizes: Sizes = Sizes(),
    *,
    modules: tuple[str, ...] = (),
    say: Callable[[str], None] | None = None,
    only: Collection[str] = (),
) -> list[Check]:
    """Run every check on ``game`` (or those named in ``only``, in the usual order).

    ``modules`` are the ``--game-module`` files the other processes need. A match that never ends fails the
    termination check even when ``only`` leaves it out: a check it left unproven is no pass.
    """
    unknown = sorted(set(only) - set(CHECKS))
    if unknown:
        raise ValueError(f"no check named {', '.join(unknown)} (the checks: {', '.join(CHECKS)})")
    sizes = sizes or Sizes()
    checks = []
    games = [game, *smallest(game)]
    small = dataclasses.replace(
        sizes, matches=max(1, sizes.matches // 4), requests=max(1, sizes.requests // 4), deals=max(1, sizes.deals // 4)
    )  # a quarter of the play at the smallest parameters, where a match is short: paths repeat, and are explored

    def _each(run: Callable[[Game, Sizes], Check]) -> Check:
        return _each_game(games, lambda g: run(g, sizes if g is game else small))

    runs: list[tuple[str, Callable[[], Check]]] = [
        ("determinism", lambda: _determinism(game, sizes, modules)),
        ("termination", lambda: _each(_termination)),
        ("illegal answers", lambda: _each(_illegal_answers)),
        ("hidden information", lambda: _each(_hidden_information)),
        ("duplicate fairness", lambda: _each(_duplicate_fairness)),
        ("messages", lambda: _messages(games, [sizes, small])),
    ]
    stuck: Stuck | None = None  # a match that took too long: met once, not waited for again by every check
    Playout.wall_s, wall_s = sizes.match_wall_s, Playout.wall_s
    try:
        endless: Endless | None = None
        for name, run in runs:
            if only and name not in only:
                continue
            check, failure = _run_check(name, run, stuck)
            if only and "termination" not in only and endless is None and isinstance(failure, Endless):
                endless = failure  # said once, as the termination check would have said it
                checks.append(Check("termination", False, str(failure)))
                if say is not None:
                    for line in checks[-1].lines():
                        say(line)
            checks.append(check)
            if stuck is None and isinstance(failure, Stuck):
                stuck = failure
            if say is not None:
                for line in check.lines():
                    say(line)
    finally:
        Playout.wall_s = wall_s
    return checks


def at_params(game: Game, default: Game) -> str:
    """``" at hands=1, raises=1"``: the parameters of ``game`` that are not ``default``'s ("" when none)."""
    changed = [f"{name}={value}" for name, value in game.params.items() if default.params.get(name) != value]
    return f" at {', '.join(changed)}" if changed else ""


def _each_game(games: list[Game], run: Callable[[Game], Check]) -> Check:
    """One check of each of ``games`` (the defaults, then the smallest parameters): the first failure, or a pass."""
    first: Check | None = None
    for game in games:
        try:
            check = run(game)
        except KitFailure as broken:
            if game is games[0]:
                raise
            kind = type(broken)
            raise kind(f"{at_params(game, games[0]).strip()}: {broken}") from broken
        if check.passed is False:
            where = at_params(game, games[0]).strip()
            return Check(check.name, False, f"{where}: {check.detail}" if where else check.detail)
        first = first or check
    assert first is not None
    if len(games) > 1 and first.passed:
        return Check(first.name, True, f"{first.detail} (and{at_params(games[-1], games[0])})")
    return first


def _run_check(name: str, run: Callable[[], Check], stuck: Stuck | None) -> tuple[Check, KitFailure | None]:
    """The check ``run`` makes, and the :class:`Endless` that left it unproven or failed it, if one did."""
    started = time.perf_counter()
    failure: KitFailure | None = stuck
    if stuck is not None:  # every check plays: none would finish either
        check = Check(name, False, str(stuck)) if name == "termination" else Check(name, None, UNPROVEN)
    else:
        try:
            check = run()
        except Endless as endless:  # the termination check says so; another check is left unproven, not failed twice
            failure = endless
            check = Check(name, False, str(endless)) if name == "termination" else Check(name, None, UNPROVEN)
        except KitFailure as broken:
            check = Check(name, False, str(broken))
        except Exception as exc:  # the game's code raised outside a match (new_match, secrets, shown)
            check = Check(name, False, f"the game raised {exception_text(exc)}")
    check.took_s = time.perf_counter() - started
    return check, failure


def _budgeted(
    game: Game, sizes: Sizes, matches: int, requests: int, audit: Audit, explorer: Explorer | None = None
) -> Iterator[Playout]:
    """Random playouts, audited as asked, until ``matches`` were played or ``requests`` answered."""
    answered = 0
    for seed in range(sizes.seed, sizes.seed + matches):
        playout = Playout(game, seed, audit, explorer=explorer).play()
        yield playout
        answered += sum(playout.requests)
        if answered >= requests:
            return


def _determinism(game: Game, sizes: Sizes, modules: tuple[str, ...]) -> Check:
    count = sum(1 for _ in _budgeted(game, sizes, sizes.determinism, sizes.audited_requests, Audit()))
    seeds = range(sizes.seed, sizes.seed + count)
    here = digests(game, seeds)
    again = digests(game, seeds)
    for seed, first, second in zip(seeds, here, again, strict=True):
        if first != second:
            return Check("determinism", False, f"seed {seed} played twice in one process gave other messages")
    for hash_seed, other in _digests_elsewhere(game, seeds, modules):
        for seed, first, second in zip(seeds, here, other, strict=True):
            if first != second:
                return Check(
                    "determinism",
                    False,
                    f"seed {seed} gave other messages in another process (PYTHONHASHSEED={hash_seed}): "
                    "does the game use set or dict order, hash(), the clock or an unseeded random?",
                )
    return Check("determinism", True, f"{len(seeds)} seeds gave the same messages byte for byte, in 3 processes")


def _digests_elsewhere(game: Game, seeds: range, modules: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """The digests of ``seeds`` played in two other processes at once, each with its own hash seed."""
    order = json.dumps(
        {
            "game": game.game_id, "params": game.params, "modules": list(modules), "seeds": [seeds.start, seeds.stop],
            "match_wall_s": Playout.wall_s,
        }
    )  # fmt: skip
    children = {
        hash_seed: subprocess.Popen(
            [sys.executable, "-c", "from arena.checks._digest import main; main()", order],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        for hash_seed in ("1", "2")
    }
    try:
        outputs = {hash_seed: child.communicate(timeout=600) for hash_seed, child in children.items()}
    finally:
        for child in children.values():
            if child.poll() is None:
                child.kill()
                child.wait()
    found = []
    for hash_seed, (stdout, stderr) in outputs.items():
        if children[hash_seed].returncode != 0:
            tail = stderr.strip().splitlines()[-1:] or ["no output"]
            raise KitFailure(f"the game failed in another process: {tail[0][:300]}")
        found.append((hash_seed, json.loads(stdout)))
    return found


def _termination(game: Game, sizes: Sizes) -> Check:
    played = longest = 0
    limit = game.max_requests()
    totals: dict[float, int] = {}
    explorer = Explorer()
    for playout in _budgeted(game, sizes, sizes.matches, sizes.requests, Audit(), explorer):
        check_result(playout)
        played += 1
        longest = max(longest, *playout.requests)
        assert playout.state is not None
        total = round(sum(playout.state.result().points), 9)
        if total not in totals:
            totals[total] = playout.seed
    if len(totals) > 1 and type(game).points_total is Game.points_total:
        (a, seed_a), (b, seed_b) = sorted(totals.items())[:2]
        return Check(
            "termination",
            False,
            f"the points add up to {a:g} (seed {seed_a}) in one match and {b:g} (seed {seed_b}) in another, and the "
            "game does not say whether they should: define Game.points_total() (0.0 for a zero-sum game, the "
            "total for a constant-sum one), or return None from it when the rules fix no total",
        )
    for seed in range(sizes.seed, sizes.seed + min(50, sizes.matches)):  # a fault at any point is the offender's loss
        playout = Playout(game, seed).play(stop_at=1 + seed * 7 % limit)
        if not playout.state or not playout.state.is_over:
            check_forfeit(playout)
    return Check(
        "termination",
        True,
        f"{played} matches of random legal play ended; a seat was asked at most {longest} of max_requests() = {limit}",
    )


def _illegal_answers(game: Game, sizes: Sizes) -> Check:
    played = 0
    for playout in _budgeted(game, sizes, sizes.audited, sizes.audited_requests, Audit(junk=True)):
        played += 1
        if playout.digest() != Playout(game, playout.seed).play().digest():
            raise playout.failure("offering junk answers changed the match: check() must not change the state")
    return Check(
        "illegal answers", True, f"junk answers to every request of {played} matches were refused with IllegalAction"
    )


def _hidden_information(game: Game, sizes: Sizes) -> Check:
    if not _declares_secrets(game):
        return Check(
            "hidden information",
            False,
            "the game does not declare its seats' private state: define MatchState.secrets(seat) "
            "(an empty set for a game with no hidden information) or MatchState.shown()",
        )
    played = kept = 0
    for playout in _budgeted(game, sizes, sizes.audited, sizes.audited_requests, Audit(secrets=True)):
        played += 1
        kept += playout.kept_secrets
    if not kept:
        return Check("hidden information", True, "the game declares no private state: nothing to hide")
    return Check(
        "hidden information",
        True,
        f"no message nor replay table (shown()) of {played} matches showed a seat the other's secrets",
    )


def _duplicate_fairness(game: Game, sizes: Sizes) -> Check:
    if not game.duplicate_deals:
        return Check(
            "duplicate fairness",
            True,
            "the game says it is not duplicable (duplicate_deals = False): tournaments play each deal once "
            "and say 'no duplicate deals'",
        )
    deals = range(sizes.seed, sizes.seed + sizes.deals)
    audit = Audit(deal=_declares_secrets(game))
    for seed in deals:
        one, other = (Playout(game, seed, audit, chooser_seed=c).play(stop_at=SEATED_STEPS) for c in (seed, ~seed))
        if one.opening != other.opening:
            raise one.failure(
                "the deal is not the same when other players play it: a deal must depend on the seed alone"
            )
        for seat, (step, sent, secrets) in one.first_asked.items():
            # Compared only where both plays reached the seat alike (a fold may have dealt another hand meanwhile).
            if other.first_asked.get(seat, (-1, -1, []))[:2] == (step, sent) and other.first_asked[seat][2] != secrets:
                raise one.failure(
                    f"seat {'AB'[seat]} is dealt other cards when the other seat answers otherwise before it is "
                    "first asked: with seats swapped the bots would not get what the other had"
                )
    hands = _every_hand(game, sizes)
    return Check(
        "duplicate fairness",
        True,
        f"{len(deals)} deals gave each seat the same cards whoever played, so swapped seats swap what the bots get"
        + hands,
    )


def _every_hand(game: Game, sizes: Sizes) -> str:
    """Each hand's deal (:meth:`MatchState.dealt`) the same in two plays of a seed, or :class:`KitFailure`; what
    was compared, for the check's line ("" for a game that does not say what it deals)."""
    first = game.new_match(sizes.seed)
    if first.dealt() is None:
        return "; only the first deal is compared: define MatchState.dealt() to have every hand's deal compared"
    audit = Audit(deal=True)
    compared = answered = played = 0
    for seed in range(sizes.seed, sizes.seed + sizes.deals):
        one, other = (Playout(game, seed, audit, chooser_seed=c).play() for c in (seed, ~seed))
        played += 1
        for hand, dealt in one.deals.items():
            again = other.deals.get(hand, {})
            for name in dealt.keys() & again.keys():
                if dealt[name] != again[name]:
                    where = f"hand {hand}'s" if hand else "the match's"
                    raise KitFailure(
                        f"seed {seed}: {where} deal differs when the match is played otherwise: {name} is "
                        f"{dealt[name]!r} in one play and {again[name]!r} in another. A deal must come from the seed "
                        "and the hand's number alone (shuffle each hand with Rng(derive_seed(seed, name, hand))), "
                        "never from the play, or swapped seats do not get the same cards"
                    )
                compared += 1
        answered += sum(one.requests) + sum(other.requests)
        if answered >= sizes.audited_requests:
            break
    return f"; every hand's deal (dealt()) was the same in two plays of each of {played} seeds ({compared} cards)"


def _declares_secrets(game: Game) -> bool:
    try:
        secrets_of(game.new_match(0), 0)
    except NotImplementedError:
        return False
    return True


def _messages(games: list[Game], budgets: list[Sizes]) -> Check:
    game, sizes = games[0], budgets[0]
    seen: set[str] = set()
    played = 0
    fields = Playout(game, sizes.seed)  # (only its field tallies: every playout's are added to it)
    for each, sizes in zip(games, budgets, strict=False):
        try:
            for playout in _budgeted(
                each, sizes, sizes.audited, sizes.audited_requests, Audit(codec=True, fields=True)
            ):
                played += 1
                seen |= playout.seen_types
                _add_fields(fields, playout)
        except KitFailure as broken:
            where = at_params(each, game)
            raise type(broken)(f"{where.strip()}: {broken}" if where else str(broken)) from broken
    declared = {str(cls.__struct_config__.tag) for cls in getattr(type(game), "messages", ())}
    if declared and not seen <= declared:
        undeclared = ", ".join(sorted(seen - declared))
        return Check("messages", False, f"the game sends messages it does not declare in Game.messages: {undeclared}")
    idle = _idle_field(type(game).messages, fields, set(map(json.dumps, game.params.values())))
    if idle:
        return Check("messages", False, idle)
    examples = _rules_examples(game)
    if isinstance(examples, str):
        return Check("messages", False, examples)
    shown = f"; the rules page's {examples} JSON examples decode and encode back the same" if examples else ""
    return Check(
        "messages", True, f"{len(seen)} kinds of message in {played} matches went through the codec unchanged{shown}"
    )


IDLE_AFTER = 20
"""Messages of a kind the field audit needs before it calls a field idle (always null, never varying)."""


def _add_fields(into: Playout, playout: Playout) -> None:
    for tag, count in playout.counts.items():
        into.counts[tag] = into.counts.get(tag, 0) + count
    into.filled |= playout.filled
    for key, values in playout.field_values.items():
        kept = into.field_values.setdefault(key, [])
        for value in values:
            if len(kept) < 2 and value not in kept:
                kept.append(value)


def _idle_field(messages: tuple[type[protocol.Message], ...], tally: Playout, params: set[str]) -> str:
    """What is wrong with a declared field that carries nothing: null in every message, or always one value.

    A field that is always one of the game's parameters' values (``hands``: 100) is taken to tell it.
    """
    for cls in messages:
        tag = str(cls.__struct_config__.tag)
        count = tally.counts.get(tag, 0)
        if count < IDLE_AFTER:
            continue
        for info in msgspec.structs.fields(cls):
            if info.encode_name == "id":
                continue
            key = (tag, info.encode_name)
            nullable = _may_be_null(info.type)
            if nullable and key not in tally.filled:
                return (
                    f"the field {info.encode_name} of {tag} is null in all {count} messages sent, though it is "
                    f"declared to carry a value ({_type_text(info.type)}): fill it, or take it out of the message"
                )
            values = tally.field_values.get(key, [])
            constant = len(values) == 1 and _may_vary(info.type) and json.dumps(values[0]) not in params
            if constant and not (nullable and values == [None]):
                return (
                    f"the field {info.encode_name} of {tag} is {json.dumps(values[0])[:60]} in all {count} messages "
                    f"sent (at the defaults and the smallest parameters), though it is declared as "
                    f"{_type_text(info.type)}: fill it with what it says, or take it out of the message"
                )
    return ""


def _may_be_null(kind: object) -> bool:
    return kind is None or type(None) in typing.get_args(kind)


def _may_vary(kind: object) -> bool:
    """Whether a field of type ``kind`` has more than one value to take (a one-value ``Literal`` has not)."""
    if typing.get_origin(kind) is typing.Literal:
        return len(typing.get_args(kind)) > 1
    args = [arg for arg in typing.get_args(kind) if arg is not type(None)]
    if args and typing.get_origin(kind) in (typing.Union, types.UnionType):
        return len(args) > 1 or _may_vary(args[0])
    return kind is not None and kind is not type(None)


def _type_text(kind: object) -> str:
    return getattr(kind, "__name__", None) or str(kind).replace("typing.", "")


EXAMPLE = re.compile(r'^[<>\s]*(\{"type":.*\})\s*$', re.MULTILINE)
"""A JSON message on a line of its own in a rules page (a transcript's ``> `` or ``< `` in front is allowed)."""


def _rules_examples(game: Game) -> int | str:
    """How many JSON examples the game's rules page shows, all good; or what is wrong with one."""
    path = rules_page(game)
    if path is None or not path.is_file():
        return f"the game has no rules page (expected {path}): `arena games {game.id}` would print nothing"
    decoder = protocol.MessageDecoder()
    count = 0
    for match in EXAMPLE.finditer(path.read_text(encoding="utf-8")):
        text = match.group(1)
        try:
            message = decoder.decode(text)
        except msgspec.DecodeError as exc:
            return f"a JSON example of the rules page is not a message of the game ({exc}): {text[:120]}"
        if protocol.encode(message).decode().rstrip("\n") != text:
            why = "key order, spacing, defaults"
            return f"a JSON example of the rules page is not what its Struct encodes ({why}): {text[:120]}"
        count += 1
    return count


def rules_page(game: Game) -> Path | None:
    """The game's rules page: a built-in game's is in docs/games/ (shipped as arena/rules), a plugin's beside it."""
    from ..bots.samples import rules_file  # imported here: it imports the bot manifests' reader (and trio)

    return rules_file(game.id) if origin_of(game.id) == BUILTIN else type(game).rules_path()


def cmd_check_game(args: argparse.Namespace) -> int:
    """Check a game and print a line per check; exit status 1 when any fails."""
    load_game_modules(args)
    game = get_game(args.game, params_from(args.param))
    if not 0 < args.match_seconds <= MAX_MATCH_SECONDS:
        top = f"{MAX_MATCH_SECONDS:g}"
        raise ConfigError(f"--match-seconds must be more than 0 and at most {top}, not {args.match_seconds:g}")
    sizes = Sizes(matches=args.matches, requests=args.requests, seed=args.seed, match_wall_s=args.match_seconds)
    print(f"Checking {printable(game.title)} ({printable(game.game_id)}) with random play from seed {args.seed}")
    checks = check_game(game, sizes, modules=tuple(args.game_module), say=print, only=args.check)
    failed = [c.name for c in checks if c.passed is False]
    took = sum(c.took_s or 0 for c in checks)
    passed = "the checks asked passed" if args.check else "all checks passed"
    verdict = "FAILED: " + ", ".join(failed) if failed else passed
    print(f"{printable(game.id)}: {verdict} ({took:.1f} s)")
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena check-game`` to the command line."""
    parser = sub.add_parser(
        "check-game", help="check that a game is deterministic, ends, hides what it should, and more"
    )
    parser.add_argument("game", metavar="GAME", help="the game's id (an installed game, or one of --game-module)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter")
    parser.add_argument(
        "--matches", type=number(int), default=Sizes.matches, help="most matches of random play (default %(default)s)"
    )
    parser.add_argument(
        "--requests",
        type=number(int),
        default=Sizes.requests,
        help="most requests answered by the termination check (default %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the first seed played (default %(default)s)")
    parser.add_argument(
        "--match-seconds",
        type=number(float),
        default=Sizes.match_wall_s,
        metavar="S",
        help="how long one match may take before the game is said to loop (default %(default)s)",
    )
    parser.add_argument(
        "--check",
        action="append",
        default=[],
        choices=CHECKS,
        metavar="NAME",
        help="run only this check (may be repeated; quote a name with a space): " + ", ".join(CHECKS),
    )
    game_module_args(parser)
    parser.set_defaults(handler=cmd_check_game)


__all__ = ["CHECKS", "Sizes", "check_game", "register"]
