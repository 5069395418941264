"""A competition server's standings: the field that may play, its leaderboard, the ratings the ladder pairs by.

:class:`Standings` is the standings part of :class:`~arena.server.service.Competition`:
a child process of its own (:mod:`.drawing`) keeps every pair's totals as arrays
(:class:`~arena.competition.standings.PairArrays`) and draws the field's table from
them as results come in (:meth:`Standings.keep_drawn`: at most once every
``BOARD_EVERY_S``), and this puts
it together with the owners, switches and versions for the pages
(:meth:`Standings.board`). It reads the competition's versions, owners,
switches and faults through the competition it belongs to (:class:`Host`: what it
reads), and tells it when a new table is drawn (``results_changed``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

import trio

from ..bots.spec import BotSpec
from ..competition.board import Leaderboard, Standing
from ..competition.database.saved import Saved
from ..competition.ladder import Player, RatingView
from ..competition.ratings import ELO_PER_NAT
from ..competition.render import standing_data
from ..competition.schedule import Entrant
from ..competition.store import Store
from ..games import Game
from .config import ServerConfig
from .drawing import Drawer, DrawingProcess, Drawn
from .state import Participant, State
from .versions import Version

BOARD_EVERY_S = 1.0
"""While matches finish, the standings are computed at most this often (readers may see them a second late)."""
HISTORY_EVERY = 10
"""A rating snapshot is kept every this many matches, for each bot's chart."""
SAVE_EVERY_S = 600.0
"""While the standings are drawn, their arrays are saved this often (and at a clean stop): after a crash, the next
start reads the last save and what changed since (:mod:`arena.competition.database.saved`)."""


@dataclass
class BoardRow:
    """One leaderboard row as the pages show it: a version's standing and who owns it."""

    standing: Standing
    participant: Participant
    version: Version
    status: str
    """``""`` (playing) or ``"disqualified"`` (faults, or the organiser)."""
    reason: str = ""


@dataclass
class Board:
    """The current field's standings as the pages show them: the :class:`~arena.competition.board.Leaderboard`
    with each row's owner, version and status, and the organiser's switches (put together once per change)."""

    rows: list[BoardRow]
    board: Leaderboard
    """The standings (over the field's matches as they were a moment ago: see :meth:`Standings.keep_drawn`)."""
    matches: int
    """Matches the ladder has played."""
    stamp: int
    paused: bool
    frozen: bool
    """Whether the organiser froze the competition: no uploads, no matches, the final standings."""
    waiting: list[tuple[Participant, Version]]
    """Current versions that do not play: being checked, or not admitted (with the reason)."""
    as_of: float
    """The standings hold every result recorded before this time (Unix time): when their results were taken, or
    later, up to the first result recorded after that (:meth:`Standings.recorded`): the age of what readers see."""

    def reasons(self) -> dict[int, str]:
        """Why each disqualified version of the field is (by its faults, its disk, or the organiser), by version id:
        every page says it in the leaderboard's words (a version table said "playing")."""
        return {row.version.id: row.reason for row in self.rows if row.reason}

    def to_json(self) -> dict[str, Any]:
        """The standings as the API and the live page send them."""
        return {
            "matches": self.matches,
            "paused": self.paused,
            "frozen": self.frozen,
            "points_name": self.board.points_name,
            "as_of": round(self.as_of, 3),
            "standings": [
                {
                    "rank": rank,
                    "participant": row.participant.name,
                    "bot": row.version.label,
                    "version": row.version.number,
                    "status": row.status,
                    "reason": row.reason,
                    **standing_json(row.standing),
                }
                for rank, row in enumerate(self.rows, start=1)
            ],
            "not_admitted": [
                {
                    "participant": owner.name,
                    "bot": version.label,
                    "version": version.number,
                    "admission": version.admission,
                    "reason": version.summary,
                }
                for owner, version in self.waiting
            ],
        }


def standing_json(standing: Standing) -> dict[str, Any]:
    """A row's standing as the API sends it (its rank and name are the board's; NaN is ``null``)."""
    data = standing_data(standing)
    return {k: (None if isinstance(v, float) and v != v else v) for k, v in data.items() if k not in ("bot", "rank")}


@dataclass(frozen=True)
class Snapshot:
    """The standings of a field over the ladder's first ``seen`` matches (those between its versions)."""

    ids: frozenset[int]
    """The playing versions' ids."""
    seen: int
    board: Leaderboard
    version_ids: dict[str, int]
    """Each bot's playing version's id, by the bot's name."""
    taken_at: float
    """When its ``seen`` matches were taken (Unix time)."""
    strengths: dict[str, float]
    """The rating fit's strengths, by bot (the next fit starts from them)."""
    cpu_s: float = 0.0
    """The CPU time its drawing took."""
    read_every_pair: bool = False
    """Whether its drawing read every pair's row of the field (a first one, with no arrays saved)."""


class Host(Protocol):
    """What :class:`Standings` reads of the competition it belongs to (:class:`arena.server.service.Competition`)."""

    tid: int
    played: int
    """Matches the ladder has recorded."""
    stamp: int
    """Counts the changes shown (a board is reused while it has not changed)."""
    changed: trio.Event
    store: Store
    state: State
    config: ServerConfig
    game: Game

    @property
    def specs(self) -> dict[int, BotSpec]: ...

    @property
    def paused(self) -> bool: ...

    @property
    def frozen(self) -> bool: ...

    def versions(self, pid: int | None = None) -> list[Version]: ...

    def banned(self, version: Version) -> str: ...

    def results_changed(self) -> None: ...


class Standings:
    """The standings of competition ``c``: its field, its leaderboard (cached until something changes) and the
    ratings the ladder pairs by."""

    def __init__(self, c: Host, drawing: DrawingProcess | None = None) -> None:
        self.c = c
        self.snapshot: Snapshot | None = None
        """The last table drawn (``None`` until the first drawing)."""
        self._board: Board | None = None
        self._ratings: tuple[Board, dict[str, RatingView]] | None = None
        """The ladder's views of the ratings and the board they were made from (made again with a new board)."""
        self._board_at = 0.0
        self._strengths: dict[str, float] | None = None
        """The last rating fit's strengths, by bot: the next fit starts there."""
        self._apart = drawing or DrawingProcess(c.store.db.path)
        """The child process that holds every pair's totals, as arrays, and draws the tables (:mod:`.drawing`:
        ``arena serve`` starts it ahead)."""
        self._here = Drawer(c.tid)
        """Arrays of this process, for a table wanted before the child drew one (a test, a self-check)."""
        self._history_mark = c.played // HISTORY_EVERY
        self._field: dict[str, Player] | None = None
        self._saved_at = time.monotonic()
        """When the arrays were last saved (or the standings began): see ``SAVE_EVERY_S``."""
        self._recorded_at: dict[int, float] = {}
        """When each result the table does not hold yet was recorded (Unix time), by its number (``played``)."""

    def forget(self) -> None:
        """Something but a result changed (a version, a switch, a disqualification): field and board anew."""
        self._board = None
        self._field = None

    def forget_board(self) -> None:
        """A new table was drawn: the board is put together again at once."""
        self._board = None

    def field(self) -> dict[str, Player]:
        """The versions that may play now, by label (kept until something but a result changes: :meth:`forget`)."""
        if self._field is None:
            self._field = self._playable()
        return self._field

    def _playable(self) -> dict[str, Player]:
        c = self.c
        if c.paused or c.frozen:
            return {}
        owners = {p.id: p for p in c.state.participants()}
        out = {}
        for version in c.versions():
            owner = owners.get(version.participant_id)
            spec = c.specs.get(version.id)
            if not version.playing or owner is None or owner.disqualified or spec is None or c.banned(version):
                continue
            row = version.row
            entrant = Entrant(row.name, row.slot, row.version, row.id, persistent=row.process == "persistent")
            out[version.label] = Player(entrant, spec, owner=f"participant {owner.id}")
        return out

    def board(self) -> Board:
        """The leaderboard of the current field (cached until something changes: :meth:`forget`, or a result).

        The table itself (ratings over every match of the field) is drawn in
        the drawing process by :meth:`keep_drawn`, from the store's totals per
        pair of versions, as results come in; this only puts it together
        with the owners, switches and versions. When the field changed, a
        version the table does not have yet shows an empty row until the
        next drawing (a second or so): never another version's row.
        """
        c = self.c
        cached = self._board
        if cached is not None and (cached.stamp == c.stamp or time.monotonic() - self._board_at < BOARD_EVERY_S):
            return cached
        owners = {p.id: p for p in c.state.participants()}
        playing = [v for v in c.versions() if v.playing]
        table = self.snapshot
        if table is None:  # before the standings' task has drawn one (a test, a self-check): drawn here, once
            table = self.snapshot = self._tabulate(playing, c.played, time.time(), None)
        by_bot = {row.bot: row for row in table.board.standings}
        rows = []
        for version in playing:
            owner = owners[version.participant_id]
            reason = owner.disqualified and f"disqualified by the organiser: {owner.disqualified}"
            banned = c.banned(version)
            reason = reason or (banned and f"disqualified: {banned}")
            known = table.version_ids.get(version.row.name) == version.id
            standing = by_bot[version.row.name] if known else Standing(bot=version.row.name)
            rows.append(BoardRow(standing, owner, version, "disqualified" if reason else "", reason))
        order = {row.bot: index for index, row in enumerate(table.board.standings)}
        rows.sort(key=lambda r: (bool(r.status), order.get(r.version.row.name, len(order))))
        waiting = [(owners[v.participant_id], v) for v in c.versions() if v.row.current and not v.playing]
        as_of = self._as_of(table)
        self._board = Board(rows, table.board, c.played, c.stamp, c.paused, c.frozen, waiting, as_of)
        self._board_at = time.monotonic()
        return self._board

    def recorded(self, count: int) -> None:
        """Result number ``count`` (the ladder's ``played``) was recorded now."""
        self._recorded_at[count] = time.time()
        if len(self._recorded_at) > 100_000:  # (no table drawn for a long while: the oldest are the ones asked)
            self._recorded_at = dict(sorted(self._recorded_at.items())[:1000])

    def _as_of(self, table: Snapshot) -> float:
        """Up to when ``table`` holds every result recorded: now when none came after it, else when the first
        that did came (no later than that: a result recorded while the table was drawn is not in it)."""
        if self.c.played <= table.seen:
            return time.time()
        return max(table.taken_at, self._recorded_at.get(table.seen + 1, table.taken_at))

    def _tabulate(self, playing: list[Version], seen: int, taken_at: float, store: Store | None) -> Snapshot:
        """The leaderboard of the ``playing`` versions from the store's pair totals, drawn in this process (on
        ``store``, a read-only connection of a thread's, or the competition's with ``None``).

        ``seen``: how many matches of the ladder were recorded when it began; ``taken_at``: when.
        """
        names = {v.id: v.row.name for v in playing}
        drawn = self._here.draw(store or self.c.store, names, self._strengths, **self._drawing_config())
        return self._snapshot(names, seen, taken_at, drawn)

    async def _tabulate_apart(self, playing: list[Version], seen: int, taken_at: float) -> Snapshot:
        """:meth:`_tabulate` in the drawing process (:mod:`.drawing`), waited for in a worker thread."""
        names = {v.id: v.row.name for v in playing}
        self._apart.start()  # (here, in the main thread: see the drawing's lifetimes)
        config = self._drawing_config()
        drawn: Drawn = await trio.to_thread.run_sync(
            self._apart.ask, "draw", self.c.tid, names, self._strengths, config["max_faults"], config["points_name"]
        )
        return self._snapshot(names, seen, taken_at, drawn)

    def _drawing_config(self) -> dict[str, Any]:
        return {"max_faults": self.c.config.max_faults, "points_name": self.c.game.points_name}

    @staticmethod
    def _snapshot(names: dict[int, str], seen: int, taken_at: float, drawn: Drawn) -> Snapshot:
        by_name = {name: vid for vid, name in names.items()}
        return Snapshot(
            frozenset(names), seen, drawn.board, by_name, taken_at, drawn.strengths, drawn.cpu_s,
            drawn.read_every_pair,
        )  # fmt: skip

    def save(self) -> None:
        """Keep the standings' arrays in the database for the next start (at a clean stop, and every
        ``SAVE_EVERY_S`` while the standings are drawn): it reads them and what changed since, not every pair's
        and deal's row (:mod:`arena.competition.database.saved`)."""
        saved = self._saved()
        if saved is not None:
            self.c.store.repos.saved.put(self.c.tid, saved)

    def _saved(self) -> Saved | None:
        """The arrays as :meth:`save` keeps them (deflated: a fifth of a second at a million matches, in the
        drawing process), or this process's where none runs."""
        if self._apart.running:
            saved: Saved | None = self._apart.ask("saved", self.c.tid)
            return saved
        return self._here.saved()

    def start(self) -> None:
        """Start the drawing process ahead of the first drawing (from the main thread: see :mod:`.drawing`)."""
        self._apart.start()

    def close(self) -> None:
        """Stop the drawing process (after :meth:`save`, which asks it for its arrays)."""
        self._apart.stop()

    async def draw_first(self) -> None:
        """Draw the first table, in the drawing process (from the arrays saved last and what changed since, or
        the field's pair totals read once, by the primary key: a retired version's rows stay on disk)."""
        c = self.c
        playing = [v for v in c.versions() if v.playing]
        if self._strengths is None:  # the fit starts from the last snapshot's ratings: the same fit (to its
            # tolerance, as each later board starts from the one before), in half the steps at a million matches
            latest = c.state.latest_ratings([v.id for v in playing])
            names = {v.id: v.row.name for v in playing}
            self._strengths = {names[vid]: elo / ELO_PER_NAT for vid, elo in latest.items()}
        try:
            self.snapshot = await self._tabulate_apart(playing, c.played, time.time())
        except ConnectionError:  # (the process died while it drew: a new one, once, before the server gives up)
            self.snapshot = await self._tabulate_apart(playing, c.played, time.time())
        self._strengths = self.snapshot.strengths

    async def keep_drawn(self) -> None:
        """Keep the standings' table up to date with the results, drawn in the drawing process.

        The table is drawn from the store's totals per pair of versions (kept
        in the same transaction as each result), so it costs the field's
        pairs, not the history, and a replaced or disqualified version needs
        no recount. A drawing starts at most once every ``BOARD_EVERY_S``,
        and no sooner than three times the CPU time the last one took after
        it began: the drawing takes at most a third of a CPU (on a large
        field they lag a little more, and the pages and the ladder stay
        quick). The wait is by the drawing's CPU time, not its wall time: on
        a busy machine a drawing waits for the CPU too, and a wait grown by
        that would only add to the lag.
        """
        c = self.c
        while True:
            changed = c.changed
            playing = [v for v in c.versions() if v.playing]
            ids = frozenset(v.id for v in playing)
            table = self.snapshot
            if table is not None and table.ids == ids and table.seen == c.played:
                await changed.wait()
                continue
            started = time.monotonic()
            fresh = await self._tabulate_apart(playing, c.played, time.time())
            if fresh.ids == frozenset(v.id for v in c.versions() if v.playing):  # the field did not change meanwhile
                self.snapshot = fresh
                self._recorded_at = {n: at for n, at in self._recorded_at.items() if n > fresh.seen}
                self._strengths = fresh.strengths
                self._keep_ratings(fresh)
                self.forget_board()
                c.results_changed()
            if time.monotonic() - self._saved_at > SAVE_EVERY_S:  # (a crash's next start reads from here on)
                self._saved_at = time.monotonic()
                saved = await trio.to_thread.run_sync(self._saved)
                if saved is not None:
                    c.store.repos.saved.put(c.tid, saved)
            await trio.sleep(max(0.0, max(BOARD_EVERY_S, 3 * fresh.cpu_s) - (time.monotonic() - started)))

    def _keep_ratings(self, table: Snapshot) -> None:
        """A point of each version's rating chart, about every ``HISTORY_EVERY`` matches of the ladder."""
        mark = table.seen // HISTORY_EVERY
        if mark <= self._history_mark:
            return
        self._history_mark = mark
        self.c.state.add_ratings(
            table.seen,
            [(table.version_ids[row.bot], row.rating, row.rating_error) for row in table.board.standings],
        )

    def ratings(self) -> dict[str, RatingView]:
        """Current ratings of every playing version, by label, for the ladder's choice of pairs (the same mapping
        while the board is the same one: the ladder asks at each deal; it only reads it)."""
        board = self.board()
        if self._ratings is None or self._ratings[0] is not board:
            views = {
                row.version.label: RatingView(row.standing.rating, row.standing.rating_error) for row in board.rows
            }
            self._ratings = (board, views)
        return self._ratings[1]
