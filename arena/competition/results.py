"""A recorded competition's results, read from its store: its leaderboard, its numbered matches.

``arena results DB`` (and its ``--html`` report, ``arena replay --db``) read
a competition here: :func:`board_from_store` draws its leaderboard from the
store's pair totals (:mod:`arena.competition.standings`), so it shows the same
table the tournament printed, and works while a tournament is still writing;
the model is :mod:`arena.competition.board`'s, its drawing
:mod:`arena.competition.render`'s.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import Any

from .._errors import StoreError
from ..checks.hints import printable
from .board import Leaderboard
from .standings import PairArrays, leaderboard
from .store import PlayedMatch, Store, TournamentRow, VersionRow
from .totals import exact


def chosen_competition(store: Store, tid: int | None = None, name: str | None = None) -> TournamentRow:
    """The competition ``--tournament ID`` or ``--name NAME`` chooses in ``store``, by default the latest.

    Every command that reads one competition of a database (``arena results``,
    its ``--matches`` and ``--html``, ``arena replay --db``) chooses it here, so
    they all mean the same one.
    """
    if name is not None:
        found = store.latest(name)
        if found is None:
            names = sorted({t.name for t in store.tournaments()})
            raise StoreError(f"{store.path} holds no competition called {name!r} (it holds: {', '.join(names)})")
        return found
    tournament = store.tournament(tid)
    if tournament is None:
        raise StoreError(f"{store.path} holds no tournament" + (f" with id {tid}" if tid is not None else ""))
    return tournament


def numbered_matches(store: Store, tid: int, *, current: bool = False) -> list[tuple[int, PlayedMatch]]:
    """The matches of competition ``tid``, each with its number (only the current standings' with ``current``).

    A match's number counts from 1 over all the competition's matches (a
    retired version's too) in the order they finished, and never changes: it
    is the ``#`` of ``arena results --matches`` and of the report, and the
    ``N`` of ``arena replay --db DB N``.
    """
    every = list(enumerate(store.matches(tid), start=1))
    if not current:
        return every
    kept = {m.row_id for m in store.matches(tid, current=True)}
    return [(number, m) for number, m in every if m.row_id in kept]


def find_match(store: Store, tournament: TournamentRow, match: str) -> tuple[int, PlayedMatch]:
    """The match of ``tournament`` that ``match`` names, by its number or its key, with its number."""
    for number, played in numbered_matches(store, tournament.id):
        if match in (played.key, str(number)):
            return number, played
    # The command names the competition, as it may not be the database's latest (shown as a shell reads it).
    which = (
        f"--name {shlex.quote(tournament.name)}"
        if printable(tournament.name) == tournament.name
        else f"--tournament {tournament.id}"
    )
    raise StoreError(
        f"no match {match!r} in competition {tournament.name!r} (id {tournament.id}) of {store.path}"
        f" (`arena results {shlex.quote(str(store.path))} --matches {which}` lists them;"
        " --name or --tournament choose another competition)"
    )


def board_from_store(
    store: Store, tid: int | None = None, *, rank_by: str = "rating", history: bool = False
) -> Leaderboard:
    """The leaderboard of competition ``tid`` (the latest when ``None``) in ``store``.

    By default the current field: its admitted bots, over the matches between
    them (a retired version's matches are left out), with the bots not
    admitted listed under it. With ``history``, every version that played,
    named ``bot``, ``bot.v2``..., over every match, with each version's story.
    """
    tournament = chosen_competition(store, tid)
    config = tournament.config
    versions = store.versions(tournament.id)
    options: dict[str, Any] = {
        "max_faults": int(config.get("max_faults", 0)),
        "points_name": str(config.get("points_name", "points")),
        "rank_by": rank_by,
    }
    # The board of the store's pair totals (kept beside each result: a million matches read as a few thousand
    # rows), unless they do not describe the matches exactly; then the board of the matches themselves.
    pairs = store.pair_totals(tournament.id) if store.all_versioned(tournament.id) else {}
    by_pairs = bool(pairs) and exact(pairs)
    if history:
        label = {v.id: v.label for v in versions}
        met = {version for version, _ in pairs}
        if not by_pairs:
            matches = [labelled_by_version(m, label) for m in store.matches(tournament.id)]
            met = {vid for m in matches for vid in m.versions if vid is not None}
        shown = {v.id: v.label for v in versions if v.id in met or (v.current and v.admission == "admitted")}
        notes = ["Versions:", *(f"  {_story(v)}" for v in versions)]
        notes += ["Changes:", *(f"  {c.at} {c.line.splitlines()[0]}" for c in store.changes(tournament.id))]
        scheduled = None
    else:
        field_ = [v for v in versions if v.current]
        shown = {v.id: v.name for v in field_ if v.admission == "admitted"}
        if by_pairs:
            faulted = {shown[vid] for (vid, other), t in pairs.items() if vid in shown and other in shown and t.faults}
        else:
            matches = store.matches(tournament.id, current=True)
            faulted = {f.bot for m in matches for f in m.faults}
        notes = [
            f"{v.name} keeps its state from match to match (persistent): after each of its faults a fresh"
            " process took over, and the state was lost"
            for v in field_
            if v.process == "persistent" and v.name in faulted
        ]
        scheduled = config.get("scheduled")
    if by_pairs:
        arrays = PairArrays.of_pairs(pairs)  # and the deals at two tables of four versions shown, as arrays (a
        # board fits no other: a server's million matches have 500,000 such deals, half of them among retired versions)
        arrays.tables.update(store.repos.tables.arrays_since(tournament.id, -1, among=shown)[0])
        board = arrays.totals(shown, cells=True).board(scheduled=scheduled, **options)
    else:
        board = leaderboard(list(shown.values()), matches, scheduled=scheduled, **options)
    board.seed = tournament.seed
    board.competition = tournament
    if not history:
        board.not_admitted = {v.name: v.reason for v in versions if v.current and v.admission == "not_admitted"}
    verdict = config.get("compare", {}).get("verdict") if not history else None
    board.notes = notes + ([f"arena compare: {verdict}"] if verdict else [])
    return board


def labelled_by_version(match: PlayedMatch, label: dict[int, str]) -> PlayedMatch:
    """``match`` with its bots named by version (``bot``, ``bot.v2``)."""
    a, b = (
        label.get(v, name) if v is not None else name
        for v, name in zip(match.versions, (match.bot_a, match.bot_b), strict=True)
    )
    if a == match.bot_a and b == match.bot_b and all(f.bot == (a if f.seat == "A" else b) for f in match.faults):
        return match  # (first versions: their label is the bot's name)
    faults = tuple(replace(f, bot=a if f.seat == "A" else b) for f in match.faults)
    # A copy with three fields changed, made as a copy of its fields (``dataclasses.replace`` builds it through
    # ``__init__``, every field by name: eight times as long; a page of matches names a hundred). PlayedMatch is a
    # frozen dataclass with its fields in ``__dict__`` and nothing made from them at ``__init__``.
    named = object.__new__(PlayedMatch)
    named.__dict__.update(match.__dict__, bot_a=a, bot_b=b, faults=faults)
    return named


def _story(version: VersionRow) -> str:
    """One line on a version: its hash, process mode, admission and whether it is retired."""
    state = "current" if version.current else f"retired ({version.retired_because}) {version.retired_at}"
    admission = {"admitted": "", "pending": ", not checked yet"}.get(
        version.admission, f", not admitted: {version.reason.splitlines()[0] if version.reason else ''}"
    )
    return (
        f"{version.label}: sha {version.digest[:12]}, {version.process} process, added {version.added_at},"
        f" {state}{admission}"
    )


# The list of matches ---------------------------------------------------------------
def matches_report(store: Store, tid: int | None = None) -> dict[str, Any]:
    """Tournament ``tid`` (the latest when ``None``) and every match of it, as plain data.

    Numbered from 1 as ``arena replay --db DB N`` takes them. Seeds are
    strings: they reach 2**63, past the integers a JavaScript reader keeps
    exactly.
    """
    tournament = chosen_competition(store, tid)
    config = tournament.config
    versions = store.versions(tournament.id)
    label = {v.id: v.label for v in versions}
    return {
        "tournament": {
            "id": tournament.id,
            "name": tournament.name,
            "game": tournament.game,
            "params": config.get("params", {}),
            "seed": str(tournament.seed),
            "points_name": config.get("points_name", "points"),
        },
        "bots": {v.label: {"digest": v.digest, "command": list(v.command)} for v in versions},
        # every match, retired versions' too (named bot.v2...), numbered as `arena replay --db DB N` takes them
        "matches": [
            _match_row(number, labelled_by_version(m, label)) for number, m in numbered_matches(store, tournament.id)
        ],
    }


def _match_row(number: int, m: PlayedMatch) -> dict[str, Any]:
    return {
        "n": number,
        "key": m.key,
        "cycle": m.cycle,
        "deal": m.deal,
        "leg": m.leg,
        "a": m.bot_a,
        "b": m.bot_b,
        "points_a": m.points[0],
        "points_b": m.points[1],
        "winner": m.bot(m.winner) if m.winner else None,
        "winner_seat": m.winner,
        "seed": str(m.seed),
        "forfeit": list(m.forfeit),
        "faults": [{"seat": f.seat, "bot": f.bot, "kind": f.kind, "reason": f.reason} for f in m.faults],
        "duration_s": m.duration_s,
        "log": m.log_path,
    }
