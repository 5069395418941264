"""``arena check BOT``: conformance checks for a bot author, before submitting a bot.

In the spirit of fastchess's ``--compliance``: the bot is built, started and
timed, plays several matches against reference bots (in one process when its
manifest says ``reuse = true``), and is told to quit; another copy has its
input closed. Each check prints one ``PASS``/``FAIL``/``SKIP`` line; a failure
says what went wrong and where in the exchange (match, request, the last lines
sent and received, the bot's stderr), with a hint for the common mistakes, and
makes the command exit non-zero.

Each fault is reported once, by the check it says most about; the other checks
it leaves unproven say so (``SKIP ... see "answers within limits"``) rather
than pass. A timeout ends the matches: a slow bot is not kept waiting on.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import trio

import protocol
from protocol import Limits

from .._errors import BotFault, BuildError, ConfigError, Crash
from ..bots.samples import samples_of
from ..bots.spec import BotSpec, game_of, resolve
from ..games import GAMES, Game, IllegalAction, get_game
from ..supervisor import GRACE_S, BotProcess, killed_by, open_bot
from ..supervisor.build import ensure_built
from ..supervisor.match import Fault, MatchRecord, MatchRunner, Seat, match_limits
from ..supervisor.matchlog import MatchLog, read_log
from ..supervisor.options import game_module_args, limits_args, limits_from, number, params_from
from ..supervisor.play import goodbye_line, opaque_match_id, spawn_options
from ..supervisor.wires import Wire, wire_for
from .hints import fault_hints, printable, stderr_tail
from .outcome import Check

EXIT_WAIT_S = 2.0
"""How long a bot may take to exit when told to, or when its input closes.

The arena itself kills a bot GRACE_S after telling it; the check allows more,
so that a busy machine does not fail a correct bot, and shows the time taken.
"""
REFERENCE_BOTS = ("random-python", "basic-odds-py", "tsh-py", "minimal-python")
"""Preferred opponents, from ``sample_bots/<game>/`` (a plugin game's ``bots/``), when the user names none."""
EXCERPT_RECORDS = 6
DEFAULT_GAME = "rps-poker"
"""The game checked when neither the command line nor the bot's manifest names one."""

CHECKS = (
    "builds",
    "starts and answers its first request",
    "answers every request",
    "answers within limits",
    "legal moves",
    "handles match start and end",
    "plays several matches in one process",
    "exits when told to",
    "exits when its input closes",
)


@dataclass
class Report:
    """Every check of one bot."""

    bot: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether no check failed."""
        return all(check.passed is not False for check in self.checks)

    def get(self, name: str) -> Check:
        """The check called ``name``."""
        return next(check for check in self.checks if check.name == name)

    @property
    def machine_may_explain(self) -> bool:
        """Whether some check failed, and a busy machine could explain each failure (:attr:`Check.machine_may_explain`).

        Never for a crash, a protocol error, an illegal move, a CPU-time
        timeout or a bot that slept past a wall-clock cap: another run would
        fail the same way.
        """
        failed = [check for check in self.checks if check.passed is False]
        return bool(failed) and all(check.machine_may_explain for check in failed)


@dataclass
class _Played:
    """One checked match: its record, the tested bot's seat, its opponent."""

    record: MatchRecord
    seat: int
    opponent: str
    fresh_process: bool
    stderr_path: Path | None
    label: str = ""
    """The match's name in the report and its files (``check-1``); a server's check tells the bot another id."""

    @property
    def faults(self) -> list[Fault]:
        return [f for f in self.record.faults if f.seat == protocol.SEATS[self.seat]]


async def check_bot(
    spec: BotSpec,
    game: Game,
    *,
    references: Sequence[BotSpec],
    limits: Limits,
    log_dir: Path,
    matches: int = 4,
    seed: int = 1,
    say: Callable[[str], None] | None = None,
    game_named: bool = True,
    opaque_ids: bool = False,
    opponent_names: Sequence[str] = (),
    pace: Callable[[], Awaitable[None]] | None = None,
) -> Report:
    """Run every check on ``spec`` in ``game``; logs and stderr files go in ``log_dir``.

    ``game_named``: whether the user named the game (else it is the default, and a
    bot that does not answer its first request is asked whether it plays another).
    The bot is told its matches' names (``check-1``...) as ids, or with
    ``opaque_ids`` (a competition server's check, whose ``seed`` is secret)
    ids shaped like a competition's, from which a bot cannot tell it is being
    checked. It is told each reference bot's name as its opponent's, or one of
    ``opponent_names`` drawn at random for each match (a server's field: a name
    no ladder match tells would say "check").

    ``pace`` (a competition server's check slots) is awaited between the
    check's steps (the build, the start-up, each match, each exit): there
    another participant's check may take this one's turn, as the server's
    :class:`~arena.server._queue.CheckSlots` shares them.
    """
    if not references:
        raise ConfigError(f"no reference bots to play {game.id} against: name one with --against")
    say = say or (lambda _line: None)
    step = pace or _no_pause
    report = Report(spec.name)

    def done(check: Check) -> None:
        report.checks.append(check)
        for line in check.lines():
            say(line)

    done(await _check_build(spec))
    if report.checks[-1].passed is False:
        return report
    await step()
    for reference in references:
        await ensure_built(reference)
    told = Told(opaque_ids, tuple(opponent_names))
    startup = await _check_startup(
        spec, game, limits, log_dir, seed, game_named=game_named, opponent=told.opponent(references[0]), told=told
    )
    done(startup)
    if startup.passed is False:  # a bot that cannot start and answer plays no match
        for name in CHECKS[CHECKS.index(startup.name) + 1 :]:
            done(Check(name, None, "not run: the bot did not start and answer"))
        return report
    played, told_to_exit = await _play_matches(spec, game, references, limits, log_dir, matches, seed, told, step)
    for check in _judge_matches(spec, game, played, limits, matches):
        done(check)
    done(told_to_exit)
    slow = next((p for p in played for f in p.faults if f.kind == "timeout"), None)
    if slow is not None:
        done(Check(CHECKS[-1], None, f"not run: the bot timed out in {slow.label} (see above)"))
    else:
        await step()
        done(await _check_input_closed(spec, game, references[0], limits, log_dir, seed + matches, told))
    return report


async def _no_pause() -> None:
    pass


async def _check_build(spec: BotSpec) -> Check:
    if not spec.build:
        return Check("builds", None, "no build command")
    started = trio.current_time()
    said: list[str] = []
    try:
        await ensure_built(spec, log=said.append)
    except BuildError as exc:
        first, *rest = str(exc).splitlines()
        return Check("builds", False, first, rest)
    how = "up to date" if any("up to date" in line for line in said) else f"{trio.current_time() - started:.2f} s"
    return Check("builds", True, f"{' '.join(spec.build)} ({how})")


async def _check_startup(
    spec: BotSpec,
    game: Game,
    limits: Limits,
    log_dir: Path,
    seed: int,
    *,
    game_named: bool = True,
    opponent: str = "opponent",
    told: Told | None = None,
) -> Check:
    """Start the bot, send a match start and the first request, and time the answer.

    The bot is told ``opponent`` as its opponent, and the id ``told`` gives (by default an opaque one: a bot
    that behaves only when checked must not know when it is).
    """
    told = told or Told()
    name = "starts and answers its first request"
    allowed = limits.startup_s + limits.move_s
    limits = match_limits(limits, game)  # what a ladder match would say: the match clock and cap in figures
    state = game.new_match(seed)
    start = protocol.MatchStart(
        match_id=told.match_id("check-startup", seed),
        game=game.game_id,
        seat="A",
        params=game.params,
        limits=limits,
        opponent=opponent,
    )
    sent: list[protocol.Message] = [start, *(m for s, m in state.start().notices if s == 0)]
    where: list[str] = []
    stderr_path = log_dir / "startup.stderr.log"
    written = 0
    try:
        async with open_bot(spec, spawn_options(spec, limits, stderr_path)) as bot:
            request = msgspec.structs.replace(state.requests()[0], id=bot.take_id())
            wire = wire_for(spec.protocol, game)
            where += _shown(">", [m for m in [*sent, request] if wire.encode(m) is not None])
            started = trio.current_time()
            outcome = await _first_answer(bot, wire, [*sent, request], allowed, where)
            elapsed = trio.current_time() - started
            written = bot.stats.bytes_out
    except BotFault as exc:  # it could not be started
        outcome = Fault("A", exc.kind, str(exc))
    if isinstance(outcome, Fault):
        hints = fault_hints(outcome, game, spec.protocol, written, "--protocol")
        if not game_named and outcome.request_type:  # it got a request: perhaps of another game than its own
            hints.insert(0, _which_game(spec, game, outcome.request_type))
        return Check(
            name,
            False,
            f"{outcome.kind}: {printable(outcome.reason)}",
            [*where, *stderr_tail(stderr_path), *(f"hint: {hint}" for hint in hints)],
            machine_may_explain=outcome.machine_may_explain,
        )
    try:
        state.check(0, outcome.action)
    except IllegalAction as exc:
        hints = [] if game_named else [_which_game(spec, game, str(state.requests()[0].__struct_config__.tag))]
        return Check(name, False, f"illegal first action: {exc}", [*where, *(f"hint: {hint}" for hint in hints)])
    return Check(name, True, f"first answer after {elapsed * 1000:.0f} ms (allowed {allowed:g} s)", took_s=elapsed)


def _which_game(spec: BotSpec, game: Game, request_type: str) -> str:
    """The hint for a bot checked at the default game that failed its first request: which request it got, and
    which game it may play instead (one whose id its name or folder has in it)."""
    got = f"got {game.id}'s {request_type} (no game was given: {game.id} is the default)"
    named = f"{spec.name} {spec.source}".lower().replace("_", "-")
    guess = next((cls for gid, cls in GAMES.items() if gid != game.id and gid in named), None)
    if guess is not None:
        return f"{got}: is this a {guess.title} bot? use --game {guess.id}"
    others = ", ".join(gid for gid in GAMES if gid != game.id)
    return f'{got}: if the bot plays another game ({others}), use --game GAME or say game = "GAME" in its bot.toml'


async def handshake(
    spec: BotSpec, game: Game, limits: Limits, log_dir: Path, seed: int = 1, opponent_names: Sequence[str] = ()
) -> Check:
    """The basic handshake a competition asks of a bot before admitting it (``arena check``'s start-up check).

    The bot is started in its sandbox, sent a ``match_start`` and the first
    request of a match of ``game``, and must answer it legally within
    ``startup_s + move_s``; its stderr goes to ``log_dir``. It is told one of
    ``opponent_names`` (the field it will meet) as its opponent, as a
    server's check is, else a reference bot's name.
    """
    references = default_references(game, spec)
    if opponent_names:
        opponent = secrets.choice(list(opponent_names))
    else:
        opponent = references[0].name if references else "opponent"
    return await _check_startup(spec, game, limits, log_dir, seed, opponent=opponent)


async def _first_answer(
    bot: BotProcess, wire: Wire, messages: list[protocol.Message], allowed: float, where: list[str]
) -> protocol.Answer | Fault:
    """The answer to the last of ``messages`` (a request), or the fault that came instead."""
    request = messages[-1]
    assert isinstance(request, protocol.Request)
    kind = str(request.__struct_config__.tag)
    with trio.move_on_after(allowed):
        try:
            for message in messages:
                line = wire.encode(message)
                if line is not None:
                    await bot.send(line)
            text = await bot.read_line(output_budget=bot.options.line_bytes * 4)
            where.append("< " + printable(text.decode("utf-8", "replace").rstrip()))
            answer = wire.decode(text, request)
        except BotFault as exc:
            return Fault("A", exc.kind, exc.reason, request.id, kind)
        if answer.id != request.id:
            reason = f"answered id {answer.id}, but the request's id was {request.id}"
            return Fault("A", "protocol_error", reason, request.id, kind)
        return answer
    runnable = bot.wants_cpu()
    limits, cpu = bot.options.limits, bot.cpu_seconds()
    used = "" if cpu is None else f"; {cpu:.3g}s of CPU used"
    reason = (
        f"no answer within {allowed:g} s (start-up {limits.startup_s:g} s + move {limits.move_s:g} s, wall clock"
        f"{used}{'; it was still computing' if runnable else ''})"
    )
    return Fault("A", "timeout", reason, request.id, kind, machine_may_explain=runnable)


async def _play_matches(
    spec: BotSpec,
    game: Game,
    references: Sequence[BotSpec],
    limits: Limits,
    log_dir: Path,
    matches: int,
    seed: int,
    told: Told,
    step: Callable[[], Awaitable[None]] = _no_pause,
) -> tuple[list[_Played], Check]:
    """Play ``matches`` matches, in one process when the bot allows it; then tell it to quit (awaiting ``step``
    before each match and before the quit)."""
    played: list[_Played] = []
    quits = Check("exits when told to", None, "no healthy process to tell")
    async with contextlib.AsyncExitStack() as stack:
        bot: BotProcess | None = None
        for number in range(matches):
            await step()
            fresh = bot is None or not spec.reuse  # a bot that left early faults at its next request
            if fresh:
                if bot is not None:
                    await bot.shutdown(polite=goodbye_line(spec.protocol))
                stderr_path = log_dir / f"match-{number + 1}.stderr.log"
                bot = await stack.enter_async_context(open_bot(spec, spawn_options(spec, limits, stderr_path)))
            assert bot is not None
            reference = references[number % len(references)]
            seat = number % 2
            record = await _one_match(bot, reference, seat, game, limits, log_dir, number, seed + number, told)
            played.append(_Played(record, seat, reference.name, fresh, bot.options.stderr_path, label=_label(number)))
            if played[-1].faults:
                await bot.shutdown()
                bot = None
            if any(f.kind == "timeout" for f in played[-1].faults):
                break  # a slow bot would be slow again: one timeout says it, more only cost time
        if bot is not None:
            await step()
            quits = await _tell_to_quit(bot)
    return played, quits


async def _one_match(
    bot: BotProcess,
    reference: BotSpec,
    seat: int,
    game: Game,
    limits: Limits,
    log_dir: Path,
    number: int,
    seed: int,
    told: Told,
) -> MatchRecord:
    label = _label(number)
    stderr_path = log_dir / f"{label}.{reference.name}.stderr.log"
    async with open_bot(reference, spawn_options(reference, limits, stderr_path)) as opponent:
        tested = Seat(bot=bot, limits=limits, name=bot.spec.name, wire=wire_for(bot.spec.protocol, game))
        other = Seat(
            bot=opponent, limits=limits, name=told.opponent(reference), wire=wire_for(reference.protocol, game)
        )
        if tested.name == other.name:
            other.name += "#2"
        seats = [tested, other] if seat == 0 else [other, tested]
        log = MatchLog(log_dir / f"{label}.jsonl")
        try:
            truth = {"reference_bot": reference.name} if other.name != reference.name else {}  # told another name
            runner = MatchRunner(game, seed, seats, match_id=told.match_id(label, seed), log=log, header_extra=truth)
            record = await runner.run()
        finally:
            log.close()
        await opponent.shutdown(polite=goodbye_line(reference.protocol))
    return record


def _label(number: int) -> str:
    """The name of the check's match ``number`` (from 0) in its report and its files."""
    return f"check-{number + 1}"


@dataclass(frozen=True)
class Told:
    """What the checked bot is told of each match: its id and its opponent's name."""

    opaque: bool = True
    """Ids shaped like a competition's (else the match's name, ``check-1``)."""
    names: tuple[str, ...] = ()
    """Opponents' names to tell, one drawn for each match; none: the reference bot's own."""

    def match_id(self, label: str, seed: int) -> str:
        """The id the bot is told for the check's match ``label`` dealt from ``seed``."""
        return opaque_match_id(seed, label) if self.opaque else label

    def opponent(self, reference: BotSpec) -> str:
        """The name the bot is told of its opponent ``reference``."""
        return secrets.choice(self.names) if self.names else reference.name


async def _tell_to_quit(bot: BotProcess) -> Check:
    name = "exits when told to"
    line = goodbye_line(bot.spec.protocol)
    if not line:
        await bot.shutdown()
        return Check(name, None, f"the {bot.spec.protocol} protocol has no quit message")
    started = trio.current_time()
    try:
        if bot.process.poll() is not None:
            raise Crash("exited")
        bot.thaw()  # frozen since its last answer (no request is pending): it could not read quit
        await bot.send(line)
    except BotFault as exc:
        with trio.move_on_after(EXIT_WAIT_S):
            await bot.process.wait()
        if (code := bot.process.returncode) is not None:
            return Check(name, None, f"it had exited before quit was sent ({killed_by(code) or f'status {code}'})")
        return Check(name, False, f"could not be sent quit: {exc}")
    return await _await_exit(bot, name, started, "after quit", ["> " + line.decode().strip()])


async def _await_exit(bot: BotProcess, name: str, started: float, when: str, where: list[str]) -> Check:
    with trio.move_on_after(EXIT_WAIT_S):
        await bot.process.wait()
    elapsed = trio.current_time() - started
    if bot.process.returncode is None:
        # Runnable (on a CPU or queued for one), not asleep nor reading: a busy machine (or a checked bot's small
        # background weight beside a ladder) may have kept it from finishing its exit; the server checks it again
        # at an ordinary weight. A bot that sleeps or reads on is not judged again.
        runnable = bot.wants_cpu()
        await bot.shutdown()
        computing = "; it was still computing" if runnable else ""
        detail = f"still running {EXIT_WAIT_S:g} s {when}{computing}: it was killed"
        return Check(name, False, detail, where, machine_may_explain=runnable)
    return Check(name, True, exit_detail(elapsed, when, bot.process.returncode))


def exit_detail(elapsed: float, when: str, status: int) -> str:
    """The line for a bot that exited ``elapsed`` seconds ``when`` (``after quit``) with ``status``.

    The check waits EXIT_WAIT_S, longer than a match does (GRACE_S), so that a
    busy machine does not fail a correct bot; a bot slower than GRACE_S passes,
    but is told, in the same unit, that a match would not have waited for it.
    """
    said = f"exited {elapsed * 1000:.0f} ms {when}, {killed_by(status) or f'status {status}'}"
    if elapsed <= GRACE_S:
        return said
    return f"{said}: later than the {GRACE_S * 1000:.0f} ms a match waits before it kills a bot (exit at once)"


async def _check_input_closed(
    spec: BotSpec, game: Game, reference: BotSpec, limits: Limits, log_dir: Path, seed: int, told: Told
) -> Check:
    """Play one match in a new process, then close its input without a quit."""
    name = "exits when its input closes"
    async with open_bot(spec, spawn_options(spec, limits, log_dir / "input-closed.stderr.log")) as bot:
        record = await _one_match(bot, reference, 0, game, limits, log_dir, 99, seed, told)
        mine = [f for f in record.faults if f.seat == "A"]
        if mine:
            return Check(name, None, f"not judged: the bot faulted in the match before ({mine[0].kind})")
        started = trio.current_time()
        assert bot.process.stdin is not None
        bot.thaw()  # frozen since its last answer: it could not see its input close
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await bot.process.stdin.aclose()
        return await _await_exit(bot, name, started, "after its input closed", [])


_BY_KIND = {
    "crash": "answers every request",
    "invalid_json": "answers every request",
    "protocol_error": "answers every request",
    "timeout": "answers within limits",
    "output_limit": "answers within limits",
    "memory_limit": "answers within limits",
    "illegal_move": "legal moves",
}
"""The check a fault fails, by its kind, when it did not happen at a match's start."""
_UNPROVEN = {
    "answers every request": {"crash", "invalid_json", "protocol_error", "timeout", "output_limit", "memory_limit"},
    "answers within limits": {"timeout", "output_limit", "memory_limit"},
    "legal moves": {"illegal_move"},
}
"""The kinds of fault that leave a check unproven (a crash says nothing about legal moves)."""


def _owner(index: int, played: _Played, fault: Fault) -> str:
    """The one check that reports ``fault`` (the ``index``-th match's): the one it says most about."""
    at_start = played.record.stats[played.seat].requests == 0
    if index > 0 and not played.fresh_process and at_start:
        # The process had played a match before: it left (crash), or match_end/match_start confused it.
        return "plays several matches in one process" if fault.kind == "crash" else "handles match start and end"
    if fault.request_id is None and at_start:
        return "handles match start and end"
    return _BY_KIND.get(fault.kind, "answers every request")


def _judge_matches(spec: BotSpec, game: Game, played: list[_Played], limits: Limits, asked: int) -> list[Check]:
    """The checks that the matches decide; each fault fails one check, and the checks it leaves unproven say so."""
    faults = [(_owner(i, p, f), p, f) for i, p in enumerate(played) for f in p.faults]
    requests = sum(p.record.stats[p.seat].requests for p in played)
    stopped = f" (stopped after the timeout in {played[-1].label})" if len(played) < asked else ""
    good = {
        "answers every request": f"{requests} requests in {len(played)} matches, each answered once{stopped}",
        "answers within limits": _slowest(played, limits) + stopped,
        "legal moves": f"{requests} legal actions{stopped}",
        "handles match start and end": f"{len(played)} match_start/match_end pairs{stopped}",
    }
    checks = []
    for name in CHECKS[2:7]:
        owned = [(p, f) for owner, p, f in faults if owner == name]
        unproven = next((owner for owner, _, f in faults if f.kind in _UNPROVEN.get(name, ())), None)
        if owned:
            checks.append(_failed(name, game, spec, *owned[0], more=len(owned) - 1))
        elif name == "plays several matches in one process":
            checks.append(_several_matches(spec, played, faults))
        elif name == "handles match start and end" and not goodbye_line(spec.protocol):
            checks.append(Check(name, None, f"the {spec.protocol} protocol has no match_start or match_end"))
        elif unproven is not None:
            where = "above" if CHECKS.index(unproven) < CHECKS.index(name) else "below"
            checks.append(Check(name, None, f'not shown: see "{unproven}" {where}'))
        elif requests == 0:  # nothing answered, so nothing shows this holds (another check says why)
            checks.append(Check(name, None, "no request was answered"))
        else:
            checks.append(Check(name, True, good[name]))
    return checks


def _several_matches(spec: BotSpec, played: list[_Played], faults: list[tuple[str, _Played, Fault]]) -> Check:
    name = "plays several matches in one process"
    if not spec.reuse:
        return Check(name, None, "its manifest does not say reuse = true: each match gets a new process")
    restarted = next((p for p in played[1:] if p.fresh_process), None)
    if restarted is None and len(played) > 1:
        return Check(name, True, f"{len(played)} matches in one process")
    if faults:
        return Check(name, None, f'not shown: see "{faults[0][0]}" above (a process that faulted is replaced)')
    return Check(name, None, "only one match was played")


def _slowest(played: list[_Played], limits: Limits) -> str:
    """The slowest answer of the matches, start-up aside (a new process's first answer is left out)."""
    slowest = 0.0
    for match in played:
        if match.record.log_path is None or not match.record.log_path.is_file():
            continue
        seat = protocol.SEATS[match.seat]
        asked: dict[int, float] = {}
        pending: int | None = None  # a text protocol's answer carries no id: it answers the last request
        for entry in read_log(match.record.log_path):
            if entry.get("seat") != seat or entry["type"] not in ("send", "recv"):
                continue
            message = entry.get("msg")
            if entry["type"] == "send":
                if isinstance(message, dict) and isinstance(message.get("id"), int):
                    pending = message["id"]
                    asked[pending] = entry["t"]
                continue
            answered = message.get("id") if isinstance(message, dict) else pending
            if entry.get("stale") or answered not in asked:
                continue
            if not (match.fresh_process and answered == min(asked)):  # a process's first answer includes start-up
                slowest = max(slowest, entry["t"] - asked.pop(answered))
    return f"slowest answer {slowest * 1000:.0f} ms, start-up aside (move limit {limits.move_s:g} s)"


def _failed(name: str, game: Game, spec: BotSpec, played: _Played, fault: Fault, *, more: int = 0) -> Check:
    record = played.record
    request = f"request {fault.request_id} ({fault.request_type})" if fault.request_id is not None else "a notice"
    detail = (
        f"{fault.kind}: {printable(fault.reason)} -- in match {played.label} (seed {record.seed}, "
        f"seat {fault.seat}, against {printable(played.opponent)}), at {request}"
    )
    if more:
        detail += f"; {more} more like it"
    where = _excerpt(record, fault.seat)
    where += stderr_tail(played.stderr_path)
    if record.log_path:
        where.append(f"log: {record.log_path}")
    bytes_out = record.stats[played.seat].bytes_out
    where += [f"hint: {hint}" for hint in fault_hints(fault, game, spec.protocol, bytes_out, "--protocol")]
    return Check(name, False, detail, where, machine_may_explain=fault.machine_may_explain)


def _excerpt(record: MatchRecord, seat: str) -> list[str]:
    """The last lines exchanged with ``seat`` before its fault, as ``>`` sent and ``<`` received."""
    if record.log_path is None or not record.log_path.is_file():
        return []
    lines = []
    for entry in read_log(record.log_path):
        if entry.get("seat") != seat:
            continue
        if entry["type"] == "send":
            lines.append("> " + printable(json.dumps(entry["msg"], separators=(",", ":"))))
        elif entry["type"] == "recv":
            shown = entry.get("raw") if "raw" in entry else json.dumps(entry.get("msg"), separators=(",", ":"))
            lines.append("< " + printable(str(shown)))
        elif entry["type"] == "fault":
            break
    return ["exchange (last lines):", *lines[-EXCERPT_RECORDS:]]


def _shown(arrow: str, messages: Sequence[protocol.Message]) -> list[str]:
    return [f"{arrow} {printable(protocol.encode(m).decode().strip())}" for m in messages]


def default_references(game: Game, tested: BotSpec) -> list[BotSpec]:
    """Sample bots of ``game`` to play against: the preferred ones, else any without a build step."""
    folder = samples_of(game)
    if folder is None or not folder.is_dir():
        return []
    candidates = [folder / name for name in REFERENCE_BOTS if (folder / name).is_dir()]
    candidates += sorted(p for p in folder.iterdir() if p.is_dir() and p not in candidates)
    found = []
    for path in candidates:
        if path.resolve() == tested.cwd.resolve() or not (path / "bot.toml").is_file():
            continue
        spec = resolve(str(path))
        if not spec.build:
            found.append(spec)
    return found[:3]


def cmd_check(args: argparse.Namespace) -> int:
    """Check one bot and print a line per check; exit status 1 when any fails."""
    spec = resolve(args.bot)
    named = game_of(args.game, [spec])
    game = get_game(named or DEFAULT_GAME, params_from(args.param))
    if args.protocol:
        spec = spec.speaking(args.protocol)
    wire_for(spec.protocol, game)  # an unknown protocol, or another game's, is an error before anything runs
    references = [resolve(text) for text in args.against] or default_references(game, spec)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    log_dir = Path(args.log_dir) / f"{spec.name}-{stamp}"
    log_dir.mkdir(parents=True, exist_ok=True)
    print(f"Checking {printable(spec.name)} ({printable(' '.join(spec.command))}) at {game.title} ({game.game_id})")
    print(f"  against {', '.join(printable(r.name) for r in references) or 'nobody'}; logs in {log_dir}")
    report = trio.run(
        lambda: check_bot(
            spec,
            game,
            references=references,
            limits=limits_from(args),
            log_dir=log_dir,
            matches=args.matches,
            seed=args.seed,
            say=print,
            game_named=named is not None,
        )
    )
    failed = [c.name for c in report.checks if c.passed is False]
    print(f"{printable(spec.name)}: {'all checks passed' if not failed else 'FAILED: ' + ', '.join(failed)}")
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena check`` to the command line."""
    parser = sub.add_parser("check", help="check that a bot follows the protocol, before submitting it")
    parser.add_argument("bot", metavar="BOT", help="a bot folder, an executable, or a command line in quotes")
    parser.add_argument("--game", help=f'game id (default: what its bot.toml says, game = "gops"; else {DEFAULT_GAME})')
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter")
    parser.add_argument(
        "--matches", type=number(int), default=4, help="matches against reference bots (default %(default)s)"
    )
    parser.add_argument("--against", action="append", default=[], metavar="BOT", help="a reference bot (repeatable)")
    parser.add_argument(
        "--protocol", metavar="NAME", help="the bot speaks NAME (json, gops-text); default: what its manifest says"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match (default %(default)s)")
    parser.add_argument("--log-dir", default="arena-runs/check", help="where logs go (default %(default)s)")
    limits_args(parser)
    game_module_args(parser)
    parser.set_defaults(handler=cmd_check)


__all__ = ["CHECKS", "Check", "Report", "check_bot", "default_references", "register"]
