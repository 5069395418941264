"""Preparing a tournament: its config resolved into a game, bots and schedule, and its row in the store."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .._errors import ConfigError
from ..bots.spec import BotSpec, resolve
from ..games import Game, get_game
from ..supervisor.play import new_seed
from ..supervisor.wires import wire_for
from .config import TournamentConfig
from .schedule import Scheduled, make_schedule, pairs
from .store import BotRow, Store


# Preparing a tournament ---------------------------------------------------------
@dataclass
class Plan:
    """A checked tournament: the game, the bots under unique names, and the schedule's shape."""

    config: TournamentConfig
    game: Game
    specs: dict[str, BotSpec]
    duplicate: bool
    notes: list[str] = field(default_factory=list)
    """What the organiser should know before play (a bot renamed because two shared a name)."""
    challengers: list[str] = field(default_factory=list)
    """A gauntlet's challengers marked in the config (``challenger = true``); empty: ``config.challenger``."""

    @property
    def challenger(self) -> str | list[str]:
        """Who a gauntlet's challengers are: the marked bots, else the config's one name (or the first bot)."""
        return self.challengers or self.config.challenger

    @property
    def names(self) -> list[str]:
        """The bots' names, in the config's order."""
        return list(self.specs)

    def fingerprint(self) -> str:
        """What makes two runs the same tournament (everything but seed, cycles, jobs and paths)."""
        identity = {
            "game": self.game.game_id,
            "params": self.game.params,
            "format": self.config.format,
            "challenger": self.challenger,
            "duplicate": self.duplicate,
            "max_faults": self.config.max_faults,
            "limits": msgspec.to_builtins(self.config.limits),
            "bots": sorted((s.name, s.digest, list(s.command)) for s in self.specs.values()),
        }
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]

    def schedule(self, seed: int) -> list[Scheduled]:
        """The schedule for tournament seed ``seed``."""
        c = self.config
        return make_schedule(
            self.names, seed=seed, cycles=c.cycles, duplicate=self.duplicate, fmt=c.format, challenger=self.challenger
        )

    def stored_config(self, scheduled: int) -> dict[str, Any]:
        """The config as the results database keeps it."""
        c = self.config
        return {
            "name": c.name,
            "game": self.game.game_id,
            "params": self.game.params,
            "format": c.format,
            "challenger": self.challenger,
            "cycles": c.cycles,
            "duplicate_deals": self.duplicate,
            "max_faults": c.max_faults,
            "limits": msgspec.to_builtins(c.limits),
            "scheduled": scheduled,
            "points_name": self.game.points_name,
            "source": c.source,
        }


def prepare(config: TournamentConfig) -> Plan:
    """Check ``config``: the game and its parameters, and every bot (named uniquely)."""
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
    if config.format == "gauntlet":
        pairs(list(specs), "gauntlet", challengers or config.challenger)  # checks the challenger's name
    return Plan(config=config, game=game, specs=specs, duplicate=duplicate, notes=notes, challengers=challengers)


def open_tournament(plan: Plan, store: Store, *, fresh: bool = False) -> tuple[int, int]:
    """The tournament's id and seed in ``store``: the one to resume, or a new one."""
    fingerprint = plan.fingerprint()
    existing = None if fresh else store.find_tournament(fingerprint, plan.config.seed)
    seed = existing.seed if existing else plan.config.seed if plan.config.seed is not None else new_seed()
    scheduled = len(plan.schedule(seed))
    bots = [BotRow(name, s.command, s.source, s.digest, s.reuse) for name, s in plan.specs.items()]
    row = store.create_tournament(
        fingerprint=fingerprint,
        seed=seed,
        name=plan.config.name or f"{plan.game.id} {plan.config.format}",
        game=plan.game.game_id,
        config=plan.stored_config(scheduled),
        bots=bots,
    )
    # A rerun with more cycles extends the tournament; one with fewer plays nothing new and
    # must not shrink the schedule the matches already recorded belong to.
    if existing is None or scheduled >= int(existing.config.get("scheduled", 0)):
        store.update_config(row.id, plan.stored_config(scheduled))
    return row.id, seed
