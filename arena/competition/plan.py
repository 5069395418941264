"""Preparing a competition: its config resolved into a game and bots, and its field kept in the store.

A competition is identified by its **name** (``name`` in the config, or
``--name``; by default the game and format, such as ``rps-poker
round-robin``), not by its exact field. Running it again with a changed field
changes that competition (:func:`open_competition`):

* a **new bot** enters with the next slot, and only its own pairings are
  added to the schedule;
* a **changed bot** (other files, so another content hash) is a new
  **version**: the previous one is retired from the current standings (its
  matches stay, in the history) and the new one plays its whole schedule;
* a **removed bot** is retired the same way (and comes back with its results
  if it returns unchanged);
* a change of the game, its parameters, the limits or the format (duplicate
  deals, gauntlet, deals file) is refused: the results would not be
  comparable. ``--fresh`` (or another name) starts a new competition.

Each change found is one line, printed at the start of the run and kept in
the store (``arena results --history`` shows them).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from .._errors import ConfigError
from ..bots.spec import BotSpec, resolve
from ..games import Game, get_game
from ..supervisor.play import new_seed
from ..supervisor.wires import wire_for
from .config import TournamentConfig
from .schedule import Entrant, Scheduled, count_schedule, iter_schedule, pairs
from .store import Store, TournamentRow, VersionRow

_IDENTITY = ("game", "params", "format", "challenger", "duplicate_deals", "limits", "deals")
"""What a competition is: a change of any of these is refused (its results would not be comparable)."""
_SHOWN = {"duplicate_deals": "duplicate deals", "deals": "deals file"}


# Preparing ---------------------------------------------------------------------
@dataclass
class Plan:
    """A checked competition config: the game, the bots under unique names, and the schedule's shape."""

    config: TournamentConfig
    game: Game
    specs: dict[str, BotSpec]
    duplicate: bool
    notes: list[str] = dataclasses.field(default_factory=list)
    """What the organiser should know before play (a bot renamed because two shared a name)."""
    challengers: list[str] = dataclasses.field(default_factory=list)
    """A gauntlet's challengers marked in the config (``challenger = true``); empty: ``config.challenger``."""

    @property
    def challenger(self) -> str | list[str]:
        """Who a gauntlet's challengers are: the marked bots, else the config's one name (or the first bot)."""
        return self.challengers or self.config.challenger

    deals: tuple[int, ...] = ()
    """Deal seeds from ``--deals FILE`` (cycle ``c`` deals number ``c`` to every pairing), or none."""
    deals_digest: str = ""

    @property
    def names(self) -> list[str]:
        """The bots' names, in the config's order."""
        return list(self.specs)

    @property
    def name(self) -> str:
        """The competition's name: the config's, or the game and format."""
        return self.config.name or default_name(self.game.id, self.config.format)

    @property
    def cycles(self) -> int:
        """Cycles asked for: the config's, else one per deal of the deals file, else 1."""
        return self.config.cycles or len(self.deals) or 1

    def identity(self) -> dict[str, Any]:
        """What this competition is (compared with the stored one on every run)."""
        return {
            "game": self.game.game_id,
            "params": self.game.params,
            "format": self.config.format,
            "challenger": self.challenger,
            "duplicate_deals": self.duplicate,
            "limits": msgspec.to_builtins(self.config.limits),
            "deals": self.deals_digest,
        }

    # The schedule (a comparison's plan has its own: :class:`arena.competition.compare_cli.ComparePlan`)
    def admitted_challengers(self, admitted: Sequence[str]) -> list[str]:
        """A gauntlet's challengers that were admitted (the rest of its challengers play no one this run)."""
        wanted = self.challenger or self.names[0]
        return [name for name in ([wanted] if isinstance(wanted, str) else wanted) if name in admitted]

    def playable(self, admitted: Sequence[str]) -> bool:
        """Whether the admitted bots make a schedule (two of them; a gauntlet's challenger and someone else)."""
        if len(admitted) < 2:
            return False
        return self.config.format != "gauntlet" or 0 < len(self.admitted_challengers(admitted)) < len(admitted)

    def schedule(self, competition: OpenedCompetition, entrants: Sequence[Entrant]) -> Iterator[Scheduled]:
        """The competition's whole schedule for the admitted ``entrants``, made one match at a time."""
        return iter_schedule(
            entrants,
            seed=competition.seed,
            cycles=competition.cycles,
            duplicate=self.duplicate,
            fmt=self.config.format,
            challenger=self.admitted_challengers([e.name for e in entrants]),
            deals=self.deals,
            scheme=competition.scheme,
        )

    def count(self, competition: OpenedCompetition, entrants: Sequence[Entrant]) -> int:
        """How many matches :meth:`schedule` makes, without making them."""
        return count_schedule(
            entrants,
            cycles=competition.cycles,
            duplicate=self.duplicate,
            fmt=self.config.format,
            challengers=len(self.admitted_challengers([e.name for e in entrants])),
        )

    def matches_per_bot(self, cycles: int) -> dict[str, int]:
        """How many matches each bot of the plan's field has in the schedule (if every bot is admitted)."""
        field_names = self.names
        n = len(field_names)
        legs = 2 if self.duplicate else 1
        if self.config.format == "gauntlet":
            challenger = self.challenger or field_names[0]
            challengers = [challenger] if isinstance(challenger, str) else list(challenger)
            others = n - len(challengers)
            return {name: cycles * legs * (others if name in challengers else len(challengers)) for name in field_names}
        return {name: cycles * legs * (n - 1) for name in field_names}

    def stored_config(self, *, cycles: int, scheduled: int | None, scheme: str = "place") -> dict[str, Any]:
        """The config as the results database keeps it."""
        c = self.config
        return {
            **self.identity(),
            "name": self.name,
            "cycles": cycles,
            "max_faults": c.max_faults,
            "scheduled": scheduled,
            "points_name": self.game.points_name,
            "source": c.source,
            "scheme": scheme,
            "deal_seeds": list(self.deals),
        }


def default_name(game_id: str, fmt: str) -> str:
    """The name of a competition that was given none: ``rps-poker round-robin``."""
    return f"{game_id} {fmt}"


def prepare(config: TournamentConfig) -> Plan:
    """Check ``config``: the game and its parameters, every bot (named uniquely), and the deals file."""
    game = get_game(config.game, config.params)
    specs: dict[str, BotSpec] = {}
    notes: list[str] = []
    challengers: list[str] = []
    for entry in config.bots:
        spec = resolve(entry.text, base=entry.base)
        if entry.protocol:
            spec = spec.speaking(entry.protocol)
        wire_for(spec.protocol, game)  # an unknown protocol, or one of another game, is an error now
        name = entry.name or spec.name
        if not name or "/" in name:
            raise ConfigError(f"bot {entry.text!r}: its name {name!r} must be non-empty and have no '/'")
        unique, n = name, 1
        while unique in specs:
            n += 1
            unique = f"{name}#{n}"
        if unique != name:
            notes.append(
                f"two bots are named {name!r}: {entry.text!r} plays as {unique!r} (name it: "
                f'name = "..." in its bot.toml, or {{ bot = "...", name = "..." }} in a config)'
            )
        specs[unique] = spec.with_name(unique) if unique != spec.name else spec
        if entry.challenger:
            challengers.append(unique)
    if len(specs) < 2:
        raise ConfigError("a tournament needs at least two bots")
    duplicate = type(game).duplicate_deals if config.duplicate_deals is None else config.duplicate_deals
    if duplicate and not type(game).duplicate_deals:  # asked for: a deal replayed with seats swapped is no pair here
        compare = config.format == "compare"
        asked = "arena compare plays duplicate pairs" if compare else "duplicate deals were asked for"
        raise ConfigError(
            f"{asked}, but {type(game).id} is not duplicable (its duplicate_deals is False: a deal played again with "
            "the seats swapped does not give each bot what the other had); leave out duplicate_deals = true and "
            "--duplicate"
        )
    if config.format == "gauntlet":
        pairs(list(specs), "gauntlet", challengers or config.challenger)  # checks the challenger's name
    deals, digest = read_deals(config.deals) if config.deals else ((), "")
    if deals:
        persistent = [name for name, spec in specs.items() if spec.persistent]
        if persistent:
            raise ConfigError(
                f"{', '.join(persistent)} {'keeps' if len(persistent) == 1 else 'keep'} state from match to match"
                ' (reuse = "persistent"), and a deals file'
                " deals the same cards to every pairing of a cycle, so they would meet a deal they had seen:"
                " play them without --deals, or leave them out"
            )
    return Plan(
        config=config,
        game=game,
        specs=specs,
        duplicate=duplicate,
        notes=notes,
        challengers=challengers,
        deals=deals,
        deals_digest=digest,
    )


def read_deals(path: Path) -> tuple[tuple[int, ...], str]:
    """The deal seeds in ``path`` (one integer per line; blank lines and ``#`` comments allowed), and its hash."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the deals file {path}: {exc.strerror}") from None
    seeds = []
    for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            seed = int(text)
        except ValueError:
            raise ConfigError(f"{path}:{number}: a deal is an integer seed, not {text[:40]!r}") from None
        if not 0 <= seed < 1 << 63:
            raise ConfigError(f"{path}:{number}: a deal seed is between 0 and 2**63 - 1, not {seed}")
        seeds.append(seed)
    if not seeds:
        raise ConfigError(f"the deals file {path} holds no deal (one integer seed per line)")
    return tuple(seeds), hashlib.sha256(data).hexdigest()


# The competition in the store ---------------------------------------------------------
@dataclass
class OpenedCompetition:
    """A competition as this run found it in the store, with the changes it made to it."""

    id: int
    name: str
    seed: int
    cycles: int
    scheme: str
    """How deal seeds are derived (``place``; ``names`` for a competition begun by a schema-1 arena)."""
    field: list[VersionRow]
    """The current versions, in slot order (admitted or not)."""
    changes: list[str] = dataclasses.field(default_factory=list)
    """One line per change found, as printed at the start of the run."""
    created: bool = False

    def entrant(self, version: VersionRow) -> Entrant:
        """``version`` as the schedule sees it."""
        return Entrant(
            version.name,
            version.slot,
            version=version.version,
            version_id=version.id,
            persistent=version.process == "persistent",
        )

    @property
    def admitted(self) -> list[VersionRow]:
        """The versions that play (the current, admitted ones), in slot order."""
        return [v for v in self.field if v.admission == "admitted"]


def open_competition(
    plan: Plan, store: Store, *, fresh: bool = False, field: bool = True, secret_seed: bool = False
) -> OpenedCompetition:
    """The competition named in ``plan``, brought up to date with the plan's field (a new one if none, or ``fresh``).

    Raises :class:`ConfigError` when the stored competition is another game,
    parameters, limits or format, or has another seed than the one asked for.
    With ``field`` false the stored field is left as it is (a competition
    server enters versions one at a time, with :func:`enter_version`). With
    ``secret_seed`` (a competition server's) a new competition's seed is not
    in the line that says it was created: that line is printed, and a seed
    printed is every deal revealed.
    """
    with store.transaction():  # an arena starting at the same time waits, then finds the field up to date
        return _open(plan, store, fresh, field, secret_seed)


def _open(plan: Plan, store: Store, fresh: bool, field: bool = True, secret_seed: bool = False) -> OpenedCompetition:
    existing = None if fresh else store.latest(plan.name)
    if existing is None:
        seed = plan.config.seed if plan.config.seed is not None else new_seed()
        row = store.create_competition(
            name=plan.name,
            seed=seed,
            game=plan.game.game_id,
            config=plan.stored_config(cycles=plan.cycles, scheduled=0),
        )
        competition = OpenedCompetition(row.id, row.name, seed, plan.cycles, "place", [], created=True)
        shown = "a secret seed, kept in its database" if secret_seed else f"seed {seed}"
        _say(store, competition, "created", f"new competition {row.name!r} ({shown})")
    else:
        _refuse_other_rules(plan, store, existing)
        stored = existing.config
        cycles = max(int(stored.get("cycles", 1)), plan.cycles)
        scheme = str(stored.get("scheme", "names"))
        competition = OpenedCompetition(existing.id, existing.name, existing.seed, cycles, scheme, [])
        old_cycles = int(stored.get("cycles", 1))
        if cycles > old_cycles:
            _say(store, competition, "cycles", f"cycles {old_cycles} -> {cycles}")
        if int(stored.get("max_faults", plan.config.max_faults)) != plan.config.max_faults:
            _say(
                store,
                competition,
                "max_faults",
                f"max_faults {stored.get('max_faults')} -> {plan.config.max_faults}",
            )
    if field:
        _update_field(plan, store, competition)
    competition.field = store.versions(competition.id, current=True)
    return competition


def _refuse_other_rules(plan: Plan, store: Store, existing: TournamentRow) -> None:
    stored = existing.config
    wanted = plan.identity()
    differences = []
    for key in _IDENTITY:
        before, after = stored.get(key, "" if key in ("deals", "challenger") else None), wanted[key]
        if isinstance(before, dict) and isinstance(after, dict):
            for sub in sorted(set(before) | set(after)):
                if before.get(sub) != after.get(sub):
                    differences.append(f"{key}.{sub} {_shown(before.get(sub))} -> {_shown(after.get(sub))}")
        elif before != after:
            differences.append(f"{_SHOWN.get(key, key)} {_shown(before, key)} -> {_shown(after, key)}")
    if plan.config.seed is not None and plan.config.seed != existing.seed:
        differences.append(f"seed {existing.seed} -> {plan.config.seed}")
    if differences:
        raise ConfigError(
            f"competition {existing.name!r} in {store.path} was begun with other rules"
            f" ({'; '.join(differences)}): its results would not be comparable."
            " Start a new competition with --fresh (the old one stays in the database),"
            " or give this one another name (--name, or name = in the config)"
        )


def _shown(value: Any, key: str = "") -> str:
    if key == "duplicate_deals":
        return "on" if value else "off"
    if key == "deals":
        return f"sha {str(value)[:8]}" if value else "none"
    if value is None or value == "":
        return "none"
    return str(value)


def _update_field(plan: Plan, store: Store, competition: OpenedCompetition) -> None:
    """Retire the versions that left or changed, enter the new ones, and say what changed."""
    tid = competition.id
    everything = store.versions(tid)
    current = {v.name: v for v in everything if v.current}
    per_bot = plan.matches_per_bot(competition.cycles)
    for name, version in current.items():
        if name not in plan.specs:
            store.retire(version.id, "removed")
            recorded = store.count_matches_of(tid, version.id)
            _say(
                store,
                competition,
                "removed",
                f"removed {name}: retired; its {recorded} recorded matches stay in the history",
                name,
            )
    for name, spec in plan.specs.items():
        old = current.get(name)
        if old is not None and (old.digest, old.command) == (spec.digest, spec.command):
            continue
        if old is not None:
            store.retire(old.id, "changed")
        returning = _returning(everything, name, spec) if old is None else None
        if returning is not None:
            store.reinstate(returning.id)
            _say(
                store,
                competition,
                "back",
                f"{name} is back, unchanged: its recorded matches against the current field count again",
                name,
            )
            continue
        enter_version(store, tid, name, spec)
        count = per_bot.get(name, 0)
        if competition.created:
            continue
        if old is not None:
            _say(
                store,
                competition,
                "changed",
                f"{name} changed (sha {old.digest[:8]}.. -> {spec.digest[:8]}..): its {count} matches will be played"
                " again",
                name,
            )
        else:
            _say(store, competition, "added", f"added {name}: {count} new matches", name)


def enter_version(store: Store, tid: int, name: str, spec: BotSpec) -> VersionRow:
    """Enter a new version of bot ``name`` in competition ``tid``, pending admission.

    It keeps its bot's slot (so its pairings keep their deals); a new bot
    takes the next free slot. Retiring the version it replaces is the
    caller's.
    """
    everything = store.versions(tid)
    slot = next((v.slot for v in everything if v.name == name), None)
    if slot is None:
        slot = max((v.slot for v in everything), default=-1) + 1
    return store.add_version(
        tid,
        name=name,
        slot=slot,
        command=spec.command,
        source=spec.source,
        digest=spec.digest,
        process=spec.process_mode,
    )


def _returning(everything: list[VersionRow], name: str, spec: BotSpec) -> VersionRow | None:
    """The retired version of ``name`` that is exactly ``spec`` (the latest of its versions), if any."""
    mine = [v for v in everything if v.name == name]
    if mine and not mine[-1].current and (mine[-1].digest, mine[-1].command) == (spec.digest, spec.command):
        return mine[-1]
    return None


def _say(store: Store, competition: OpenedCompetition, kind: str, line: str, bot: str = "") -> None:
    competition.changes.append(line)
    store.log_change(competition.id, kind, line, bot)
