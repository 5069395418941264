"""``arena compare GAME NEW BASE [OPPONENT...]``: play NEW and BASE on the same deals until an SPRT decides.

A comparison is a competition in the results database like any other (its
own schedule: :mod:`arena.competition.compare`), named after who is compared
(``compare NEW with BASE against X, Y``), so ``arena results`` shows its
leaderboard and matches, ``arena replay`` replays them, and running the same
command again resumes it, after Ctrl-C or ``kill -9``: the recorded matches
are read back in schedule order and play goes on from there (or the verdict
is printed at once if it was reached). As in any competition, a NEW whose
files changed is a new version: its test starts again on the same deals (the
old version's matches stay in the history), and BASE's matches against the
field, unchanged, are not played again.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from .._errors import GAME_ERROR_STATUS, ConfigError
from ..checks.hints import printable
from ..supervisor.options import game_module_args, limits_args, limits_from, number, params_from
from . import config as config_mod
from .compare import Comparison, Roles, check_roles, iter_compare_schedule, plural, rounds_for
from .config import BotEntry, TournamentConfig, effective_jobs, expand_bot
from .plan import OpenedCompetition, Plan, open_competition, prepare
from .progress import QuietProgress
from .runner import Summary, admit, game_error_status, run_tournament, supervisor_processes
from .schedule import Entrant, Scheduled
from .sprt import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_ELO0, DEFAULT_ELO1, MODELS, Sprt
from .store import PlayedMatch, Store

DEFAULT_MAX_MATCHES = 20000
COMPARE_DB = config_mod.DEFAULT_DB.with_name("compare.sqlite")
"""Where comparisons are recorded by default: apart from tournaments' results, whose match numbers and latest
competition (what ``arena results`` and ``arena replay --db`` show) a comparison would otherwise take over."""


@dataclass
class ComparePlan(Plan):
    """A plan whose schedule is a comparison's: NEW and BASE on the same deals, head to head or against a field."""

    new: str = ""
    base: str = ""
    opponents: tuple[str, ...] = ()
    test: Sprt = field(default_factory=Sprt)

    def roles(self, entrants: Sequence[Entrant]) -> Roles | None:
        """Who plays which role among the admitted ``entrants`` (``None``: NEW, BASE or every opponent is missing)."""
        by_name = {e.name: e for e in entrants}
        opponents = tuple(by_name[name] for name in self.opponents if name in by_name)
        if self.new not in by_name or self.base not in by_name or (self.opponents and not opponents):
            return None
        return Roles(by_name[self.new], by_name[self.base], opponents)

    def playable(self, admitted: Sequence[str]) -> bool:
        """Whether NEW, BASE and (against a field) an opponent were admitted."""
        return self.roles([Entrant(name, slot) for slot, name in enumerate(admitted)]) is not None

    def schedule(self, competition: OpenedCompetition, entrants: Sequence[Entrant]) -> Iterator[Scheduled]:
        """NEW's and BASE's matches, deal pair by deal pair, for the competition's rounds (its cycles)."""
        roles = self.roles(entrants)
        if roles is None:
            return iter(())
        return iter_compare_schedule(roles, seed=competition.seed, rounds=competition.cycles)

    def count(self, competition: OpenedCompetition, entrants: Sequence[Entrant]) -> int:
        """How many matches :meth:`schedule` makes."""
        roles = self.roles(entrants)
        return 0 if roles is None else competition.cycles * roles.matches_per_round

    def matches_per_bot(self, cycles: int) -> dict[str, int]:
        """Each bot's matches in the schedule: two per opponent and round for NEW and BASE, four for an opponent."""
        compared = cycles * 2 * max(1, len(self.opponents))
        return {self.new: compared, self.base: compared, **{name: 4 * cycles for name in self.opponents}}

    def stored_config(self, *, cycles: int, scheduled: int | None, scheme: str = "place") -> dict[str, Any]:
        """The competition's config plus what is compared and how it is tested."""
        t = self.test
        return {
            **super().stored_config(cycles=cycles, scheduled=scheduled, scheme=scheme),
            "compare": {
                "new": self.new,
                "base": self.base,
                "opponents": list(self.opponents),
                "sprt": {"elo0": t.elo0, "elo1": t.elo1, "alpha": t.alpha, "beta": t.beta, "model": t.model},
            },
        }


def plan_comparison(args: argparse.Namespace) -> ComparePlan:
    """Check the command line and resolve the bots into a comparison's plan."""
    base_dir = Path.cwd()
    entries: list[BotEntry] = [BotEntry(text=args.new, base=base_dir), BotEntry(text=args.base, base=base_dir)]
    for text in args.opponents:
        entries += expand_bot(text, base_dir)
    if args.max_faults < 0:
        raise ConfigError(f"--max-faults must be 0 or more, not {args.max_faults}")
    try:
        test = Sprt(elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta, model=args.model)
    except ValueError as exc:
        raise ConfigError(f"SPRT: {exc}") from None
    config = TournamentConfig(
        game=args.game,
        bots=entries,
        format="compare",
        seed=args.seed,
        duplicate_deals=True,
        max_faults=args.max_faults,
        jobs=args.jobs or 0,
        limits=limits_from(args),
        params=params_from(args.param),
        db=Path(args.db) if args.db else COMPARE_DB,
        log_dir=Path(args.log_dir),
        logs=not args.no_log,
        source="arena compare",
    )
    plan = prepare(config)
    names = plan.names
    if len(names) != len(entries):  # a glob matched NEW or BASE again
        raise ConfigError("compare: NEW, BASE and the opponents must be different bots")
    persistent = [name for name, spec in plan.specs.items() if spec.persistent]
    if persistent:
        raise ConfigError(
            f"{', '.join(persistent)} {'keeps' if len(persistent) == 1 else 'keep'} state from match to match"
            ' (reuse = "persistent"), and a comparison deals every deal to NEW and to BASE, so one process would'
            " meet a deal twice and could know the cards: compare a copy whose bot.toml says reuse = true"
        )
    new, base, *opponents = names
    check_roles(Roles.named(new, base, *opponents))
    config.name = f"compare {new} with {base}" + (f" against {', '.join(opponents)}" if opponents else "")
    config.cycles = rounds_for(Roles.named(new, base, *opponents), args.max_matches)
    return ComparePlan(
        config=config,
        game=plan.game,
        specs=plan.specs,
        duplicate=True,
        notes=plan.notes,
        new=new,
        base=base,
        opponents=tuple(opponents),
        test=test,
    )


def cmd_compare(args: argparse.Namespace) -> int:
    """Run (or resume) a comparison; exit 0 when NEW is better (H1), 1 when not (H0), 2 without a verdict."""
    plan = plan_comparison(args)
    for note in plan.notes:
        print(f"arena: note: {note}", file=sys.stderr)
    config = plan.config
    jobs = effective_jobs(config.jobs)
    with Store.open(config.db) as store:
        competition = open_competition(plan, store, fresh=args.fresh)
        roles, refused = _admitted_roles(plan, store, competition, jobs, recheck=args.recheck)
        if roles is None:
            return 2
        comparison = Comparison(
            roles,
            plan.test,
            competition.cycles,
            seed=competition.seed,
            every=args.report_every,
            max_faults=config.max_faults,
        )
        _describe(plan, competition, roles, jobs)
        _resume(comparison, store, competition.id)
        interrupted, game_errors = False, 0
        if not comparison.finished:
            processes = supervisor_processes(args.processes, jobs)
            interrupted, game_errors = _play(
                plan,
                store,
                competition,
                comparison,
                refused,
                jobs=jobs,
                reuse=not args.no_reuse,
                processes=processes,
                pin=not args.no_pin,
            )
        comparison.recorded = store.count_matches(competition.id, current=True)  # what `arena results` shows
        if not interrupted:
            _keep_verdict(store, competition.id, comparison)
    if interrupted:
        print(
            f"Interrupted after {plural(comparison.pairs_done, 'pair')}: run the same command again to resume.",
            file=sys.stderr,
        )
        return 130
    print(comparison.verdict_line())
    which = (
        f"--name {shlex.quote(competition.name)}"
        if printable(competition.name) == competition.name
        else f"--tournament {competition.id}"  # a name a terminal cannot show as it is
    )
    print(f"Results: arena results {shlex.quote(str(config.db))} {which}")
    return GAME_ERROR_STATUS if game_errors and comparison.verdict is None else comparison.exit_code


def _admitted_roles(
    plan: ComparePlan, store: Store, competition: OpenedCompetition, jobs: int, *, recheck: bool
) -> tuple[Roles | None, dict[str, str]]:
    """Say what is compared, build and admit the bots; the admitted ones' roles (``None``: says why), the others."""
    field_text = f"each against {', '.join(printable(o) for o in plan.opponents)}" if plan.opponents else "head to head"
    print(
        f"Compare {printable(plan.new)} (new) with {printable(plan.base)} (base) on {plan.game.game_id},"
        f" {field_text}, on the same deals (pairs of both seatings): competition {printable(competition.name)!r}"
        f" in {plan.config.db}, seed {competition.seed}"
    )
    for line in competition.changes:
        print(printable(line, limit=1000))
    refused = trio.run(lambda: _admit(plan, store, competition, jobs, recheck))
    roles = plan.roles([competition.entrant(v) for v in competition.admitted])
    if roles is None:
        missing = [name for name in (plan.new, plan.base) if name in refused] or list(plan.opponents)
        print(
            f"No verdict: {', '.join(printable(n) for n in missing)} not admitted (see above):"
            " fix it and run the same command again (--recheck tries it again unchanged)",
            file=sys.stderr,
        )
        return None, refused
    for name in plan.opponents:
        if name not in {o.name for o in roles.opponents}:
            print(f"{printable(name)} is not admitted: NEW and BASE meet the other opponents")
    return roles, refused


def _describe(plan: ComparePlan, competition: OpenedCompetition, roles: Roles, jobs: int) -> None:
    """The test's line: its hypotheses, bounds and budget."""
    test = plan.test
    unit = "nElo" if test.model == "normalized" else "Elo"
    print(
        f"SPRT: H1 {unit} = {test.elo1:g} against H0 {unit} = {test.elo0:g}, alpha {test.alpha:g},"
        f" beta {test.beta:g}: stop when the LLR leaves ({test.lower:.2f}, {test.upper:.2f});"
        f" at most {competition.cycles * roles.matches_per_round} matches; {jobs} at once"
    )


def _resume(comparison: Comparison, store: Store, tid: int) -> None:
    """Give ``comparison`` the matches already recorded, in schedule order, and say where it stands."""
    recorded = {m.key: m for m in store.matches(tid, current=True)}
    if not recorded:
        return
    for scheduled in iter_compare_schedule(comparison.roles, seed=comparison.seed, rounds=comparison.rounds):
        if comparison.finished:
            break
        if scheduled.key in recorded:
            comparison.add(recorded[scheduled.key])
    print(f"Resuming: {plural(comparison.pairs_done, 'pair')} ({plural(len(recorded), 'match')}) already played")
    if comparison.pairs_done:
        for line in comparison.report_lines():
            print(line)


def _play(
    plan: ComparePlan,
    store: Store,
    competition: OpenedCompetition,
    comparison: Comparison,
    refused: dict[str, str],
    *,
    jobs: int,
    reuse: bool,
    processes: int = 1,
    pin: bool = True,
) -> tuple[bool, int]:
    """Play until the comparison is finished, printing its lines; whether the run was interrupted (Ctrl-C), and how
    many matches the game's own code ended (not recorded: said on stderr)."""

    def watch(match: PlayedMatch) -> bool:
        for line in comparison.add(match):
            print(line, flush=True)
        return comparison.finished

    summary = trio.run(
        lambda: run_tournament(
            plan,
            store,
            competition,
            jobs=jobs,
            reuse=reuse,
            progress=QuietProgress(),
            handle_signals=True,
            say=print,
            refused=refused,  # admission has run
            watch=watch,
            processes=processes,
            pin=pin,
        )
    )
    for line in _unfinished(comparison, summary):
        print(line, flush=True)
    if summary.game_errors:
        comparison.stopped = f"{plural(len(summary.game_errors), 'game error')} (the game's own code failed)"
        game_error_status(summary)
    return summary.interrupted, len(summary.game_errors)


def _unfinished(comparison: Comparison, summary: Summary) -> list[str]:
    """Go on, or say why not, where a run that played all it could ended before the comparison did; the lines to
    print.

    The run disqualifies a bot at its faults in the order its matches end; the comparison counts faults in schedule
    order, pair by pair. So a run can disqualify a bot while an earlier pair lacks a leg it never started (legs of
    one deal are not played at once: both legs of a later deal ended first), and no later run plays that leg
    (each starts from the faults recorded): the comparison takes the run's disqualifications, which end it (a
    compared bot) or skip the opponent's pairs; only a pair still lacking a match is left to another run.
    """
    if summary.interrupted or comparison.finished:
        return []
    lines = [line for bot, why in summary.disqualified.items() for line in comparison.disqualify(bot, why)]
    if comparison.finished:
        return lines
    # every match this arena could play is recorded, yet a pair lacks one (another arena has it)
    others = summary.left_to_others
    comparison.stopped = "a pair is incomplete" + (
        f" ({plural(others, 'match')} left to another arena on this database)" if others else ""
    )
    comparison.stopped += "; run the same command again to go on"
    return lines


def _keep_verdict(store: Store, tid: int, comparison: Comparison) -> None:
    """Keep the verdict with the comparison (``arena results`` prints it); a finished one scheduled what it played."""
    row = store.tournament(tid)
    if row is None:
        return
    config = dict(row.config)
    config["compare"] = {**config.get("compare", {}), "verdict": comparison.verdict_line()}
    if comparison.finished:
        config["scheduled"] = store.count_matches(tid, current=True)
    store.update_config(tid, config)


async def _admit(
    plan: ComparePlan, store: Store, competition: OpenedCompetition, jobs: int, recheck: bool
) -> dict[str, str]:
    """Build the bots and admit the new ones (as a tournament does before play); the bots not admitted, with why."""
    log_dir = plan.config.log_dir / f"tournament-{competition.id}" / "admission" if plan.config.logs else None
    with tempfile.TemporaryDirectory(prefix="arena-admission-") as scratch:
        return await admit(
            plan, store, competition, log_dir=log_dir or Path(scratch), jobs=jobs, say=print, recheck=recheck
        )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena compare`` to the command line."""
    parser = sub.add_parser(
        "compare",
        help="is NEW better than BASE? play both on the same deals until a sequential test (SPRT) decides",
        description=(
            "Plays NEW and BASE on the same deals, both seatings of each: head to head (no OPPONENT), or each "
            "against the same OPPONENTs. A sequential probability ratio test over the deal pairs (pentanomial "
            "model) stops as soon as the evidence is enough. Exit status: 0 NEW is better (H1 accepted), 1 it is "
            "not (H0 accepted), 2 no verdict (the test needs more matches, or an error), 3 no verdict: the "
            "game's own code failed (game errors). Running the same command again resumes."
        ),
    )
    parser.add_argument("game", metavar="GAME", help="game id, such as rps-poker (see `arena games`)")
    parser.add_argument("new", metavar="NEW", help="the new version: a bot folder, an executable or a command line")
    parser.add_argument("base", metavar="BASE", help="the version to beat (same forms as NEW)")
    parser.add_argument(
        "opponents",
        nargs="*",
        default=[],  # with a default, argparse no longer calls the optional OPPONENT "required" when BASE is missing
        metavar="OPPONENT",
        help="optional: bots NEW and BASE each meet on the same deals (none: NEW meets BASE head to head)",
    )
    parser.add_argument(
        "--elo0", type=float, default=DEFAULT_ELO0, help=f"H0: NEW is this much better (default {DEFAULT_ELO0:g})"
    )
    parser.add_argument(
        "--elo1", type=float, default=DEFAULT_ELO1, help=f"H1: NEW is this much better (default {DEFAULT_ELO1:g})"
    )
    parser.add_argument(
        "--alpha", type=float, default=DEFAULT_ALPHA, help=f"chance of accepting H1 at elo0 (default {DEFAULT_ALPHA})"
    )
    parser.add_argument(
        "--beta", type=float, default=DEFAULT_BETA, help=f"chance of accepting H0 at elo1 (default {DEFAULT_BETA})"
    )
    parser.add_argument(
        "--model",
        choices=MODELS,
        default="normalized",
        help="the Elo of elo0 and elo1: normalized (nElo, default, as fastchess) or logistic",
    )
    parser.add_argument(
        "--max-matches",
        type=number(int),
        default=DEFAULT_MAX_MATCHES,
        help=f"stop without a verdict after this many matches (default {DEFAULT_MAX_MATCHES})",
    )
    parser.add_argument(
        "--report-every", type=number(int), default=10, metavar="N", help="the running report every N pairs"
    )
    parser.add_argument("--seed", type=int, help="the comparison's seed (default: resume the last one, or random)")
    parser.add_argument("--jobs", "-j", type=number(int), help="matches at once (default: the CPU count)")
    parser.add_argument(
        "--processes", type=number(int), help="supervisor processes sharing them (default: one per CPU, at most --jobs)"
    )
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="leave each supervisor process and its bots free to run on any CPU (default: with one process per CPU,"
        " each keeps to its own, where a match's wakeups cost least)",
    )
    parser.add_argument(
        "--max-faults",
        type=int,
        default=config_mod.DEFAULT_MAX_FAULTS,
        help=f"disqualify a bot with more faults than this (default {config_mod.DEFAULT_MAX_FAULTS})",
    )
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter")
    parser.add_argument("--db", help=f"results database (default {COMPARE_DB}, apart from tournaments')")
    parser.add_argument("--log-dir", default=str(config_mod.DEFAULT_LOG_DIR), help="where match logs go")
    parser.add_argument("--no-log", action="store_true", help="write no match logs")
    parser.add_argument("--no-reuse", action="store_true", help="a fresh process per match, even for reusable bots")
    parser.add_argument("--fresh", action="store_true", help="start a new comparison instead of resuming")
    parser.add_argument(
        "--recheck", action="store_true", help="try bots that were not admitted again, though their files are unchanged"
    )
    limits_args(parser)
    game_module_args(parser)
    parser.set_defaults(handler=cmd_compare)
