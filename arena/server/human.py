"""Playing against a bot on the server: a logged-in person takes a seat against a bot whose owner allows it.

The match is played as ``arena play GAME human BOT`` plays one
(:func:`arena.replay.human.play_human`): the bot's current version in its
sandbox under the competition's limits, the person's seat through the arena's
relay with a person's clock, the same match code, a log in
``DATA/logs/human/``. The page shows the person only what its seat is told.
Such a match is never recorded in the competition's results, so it never
counts in the standings; its deal is a fresh random one, nothing of the
ladder's.

Bounds (the config's ``[server]`` table): one game per person at a time,
``human_games_per_address`` from one address (a trusted proxy's forwarded
address, when configured), ``human_games`` at once on the server, and a
person who does not answer within ``human_idle_s`` (a minute) loses the game,
which ends and frees its slot. A flooder is refused (429, saying why); when
the server is full, a new game takes the place of the game whose person has
been silent longest, if silent for ``ROOM_IDLE_S``: four unanswered games no
longer keep everyone else out until their clocks run out.
"""

from __future__ import annotations

import secrets
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec
import trio
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ..games._choices import Choice
from ..replay.human import HUMAN_LIMITS, play_human
from ..supervisor.play import new_seed
from .service import Competition
from .state import Participant

ROOM_IDLE_S = 10.0
"""When the server plays all the games against people it may, a new one ends the game whose person has been
silent longest, if that person has been silent this long (seconds)."""
RELAY_START_S = 5.0
"""The start-up time of the person's seat (its relay's start; it is added to the first move's clock)."""
HUMAN_WEB_MATCH_S = 1800.0
"""The longest a whole game against a person may last."""
ANSWER_WAIT_S = 5.0
"""After a move, how long its page waits for the bot's reply before showing the game (it reloads itself)."""
KEPT_GAMES = 200
"""Finished games kept in memory for their pages (their logs stay on disk)."""
ALLOWED = "human_play:{}"
"""The setting that says a participant (by id) lets people play against its bot."""


@dataclass
class HumanGame:
    """One game of a person against a bot, as its page shows it."""

    id: str
    player: int
    """The person's participant id."""
    bot: str
    seat: int
    lines: list[str] = field(default_factory=list)
    """What the person was shown, in order."""
    listed: list[Choice] | None = None
    waiting: bool = False
    """Whether the person's answer is awaited now."""
    asks: int = 0
    """How many times the person's answer was awaited (a posted move waits for the next)."""
    over: bool = False
    log_path: Path | None = None
    changed: trio.Event = field(default_factory=trio.Event)
    send: trio.MemorySendChannel[str] | None = None
    address: str = ""
    """Where the person played from (counted against ``human_games_per_address``)."""
    silent_since: float | None = None
    """Since when (trio's clock) the person's answer has been awaited; ``None``: not awaited now."""
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    """Cancelled to end the game early (to make room for another)."""

    def touch(self) -> None:
        self.changed.set()
        self.changed = trio.Event()


class Pages(Protocol):
    """What these pages use of the web app's pages (:class:`arena.server.web.Pages`)."""

    c: Competition

    def who(self, request: Request) -> Participant | None: ...
    def need(self, request: Request) -> Participant: ...
    def address(self, request: Request) -> str: ...
    def participant(self, name: str) -> Participant: ...
    def check_csrf(self, request: Request, sent: Any) -> None: ...
    def page(self, request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse: ...


class HumanPages:
    """The "play against this bot" page, the owner's switch, and each game's page."""

    def __init__(
        self,
        pages: Pages,
        replay_csp: str,
        small_form: Callable[[Request], Awaitable[FormData]],
        replay_page: Callable[[Path, str | None, frozenset[str], bool], str],
    ) -> None:
        self.pages = pages
        self.c = pages.c
        self.replay_csp = replay_csp
        self.small_form = small_form
        self.replay_page = replay_page
        self.games: dict[str, HumanGame] = {}
        self.playing: dict[int, str] = {}
        """The game each person is playing now (by participant id)."""

    def allowed(self, owner: Participant) -> bool:
        """Whether ``owner`` lets people play against its bot."""
        return self.c.state.setting(ALLOWED.format(owner.id)) == "1"

    async def bot(self, request: Request) -> Response:
        """``/bots/NAME/play``: the owner's switch, and a button to play for anyone logged in."""
        owner = self.pages.participant(request.path_params["name"])
        viewer = self.pages.who(request)
        may_switch = viewer is not None and (viewer.id == owner.id or (viewer.is_admin and owner.is_house))
        if request.method == "POST":
            viewer = self.pages.need(request)
            form = await self.small_form(request)
            self.pages.check_csrf(request, form.get("csrf"))
            if "allow" in form:
                if not may_switch:
                    raise HTTPException(403, "only the bot's owner (the organiser, for a house bot) may switch this")
                self.c.state.set_setting(ALLOWED.format(owner.id), "1" if form.get("allow") == "1" else "0")
                return RedirectResponse(f"/bots/{owner.name}/play", status_code=303)
            seat = 1 if form.get("seat") == "B" else 0
            game = self.start(viewer, owner, seat, self.pages.address(request))
            return RedirectResponse(f"/play/{game}", status_code=303)
        return self.pages.page(
            request, "play_bot.html", owner=owner, allowed=self.allowed(owner), may_switch=may_switch,
            current=self.playing.get(viewer.id) if viewer else None, move_s=self.c.config.human_idle_s,
        )  # fmt: skip

    def start(self, viewer: Participant, owner: Participant, seat: int, address: str = "") -> str:
        """Begin a game of ``viewer`` (at ``address``) against ``owner``'s bot in ``seat``; its id (the game it
        plays, if one)."""
        if viewer.id in self.playing:
            return self.playing[viewer.id]
        if not self.allowed(owner):
            raise HTTPException(403, f"{owner.name}'s owner does not let people play against it")
        refused = self.c.may_play(viewer)
        if refused:
            raise HTTPException(403, refused)
        version = next((v for v in self.c.versions(owner.id) if v.playing), None)
        spec = self.c.specs.get(version.id) if version is not None else None
        if version is None or spec is None or owner.disqualified:
            raise HTTPException(409, f"{owner.name} has no version playing now")
        self._make_room(address)
        game = HumanGame(id=secrets.token_urlsafe(9), player=viewer.id, bot=version.label, seat=seat, address=address)
        send, receive = trio.open_memory_channel[str](0)  # a move is taken only while one is awaited
        game.send = send
        self.games[game.id] = game
        self.playing[viewer.id] = game.id  # taken before any pause: a second request finds it
        limits = msgspec.structs.replace(
            HUMAN_LIMITS, move_wall_s=self.c.config.human_idle_s, wall_bank_s=HUMAN_WEB_MATCH_S,
            match_wall_s=HUMAN_WEB_MATCH_S, startup_s=RELAY_START_S,
        )  # fmt: skip

        async def read_line() -> str:
            game.waiting = True
            game.silent_since = trio.current_time()
            game.asks += 1
            game.touch()
            try:
                return await receive.receive()
            finally:
                game.waiting = False
                game.silent_since = None

        def say(line: str) -> None:
            game.lines.append(line)
            game.touch()

        def asked(listed: list[Choice] | None) -> None:
            game.listed = listed

        async def play() -> None:
            try:
                with game.scope:
                    record = await play_human(
                        self.c.game, spec, seat, seed=new_seed(), limits=self.c.config.limits, human_limits=limits,
                        log_dir=self.c.logs / "human", read_line=read_line, say=say, asked=asked,
                    )  # fmt: skip
                    game.log_path = record.log_path
                    for fault in record.faults:
                        say(f"Fault by seat {fault.seat}: {fault.kind}: {fault.reason}")
                if game.scope.cancelled_caught:
                    say(
                        "The game was ended: you had not answered for a while, and someone else was waiting to play"
                        " (the server plays only so many games against people at once)."
                    )
            except Exception:  # the arena's own error: the game ends, the server goes on
                traceback.print_exc()
                say("The arena could not play this game (an error of its own: the organiser has the details).")
            finally:
                game.over = True
                game.waiting = False
                if self.playing.get(viewer.id) == game.id:
                    del self.playing[viewer.id]
                self._forget_old()
                game.touch()

        if not self.c.spawn(play):  # not running yet (or any more): the slots go back
            self.playing.pop(viewer.id, None)
            del self.games[game.id]
            raise HTTPException(503, "the server is starting or stopping: try again in a minute")
        return game.id

    def _make_room(self, address: str) -> None:
        """Refuse a game from ``address`` if it has its share (429), or end a silent game if the server is full."""
        config = self.c.config
        if config.human_games == 0:
            raise HTTPException(403, "this server plays no games against people")
        games = [self.games[gid] for gid in self.playing.values()]
        if sum(g.address == address for g in games) >= config.human_games_per_address:
            raise HTTPException(
                429,
                f"at most {config.human_games_per_address} games against bots at once from one address: finish one"
                " of them first",
            )
        if len(games) < config.human_games:
            return
        now = trio.current_time()
        silent = [g for g in games if g.silent_since is not None and now - g.silent_since >= ROOM_IDLE_S]
        if not silent:
            raise HTTPException(503, "the server plays as many games against people as it can now: try in a minute")
        oldest = min(silent, key=lambda g: g.silent_since or now)
        oldest.scope.cancel()
        self.playing.pop(oldest.player, None)  # its slot is this game's now (its task ends at its next checkpoint)

    def _forget_old(self) -> None:
        finished = [key for key, g in self.games.items() if g.over]
        for key in finished[: max(0, len(finished) - KEPT_GAMES)]:
            del self.games[key]

    def game(self, request: Request) -> HumanGame:
        """The game of the page's address, if it is the viewer's (or the viewer is the organiser)."""
        viewer = self.pages.need(request)
        game = self.games.get(request.path_params["gid"])
        if game is None or not (viewer.is_admin or game.player == viewer.id):
            raise HTTPException(404, "no such game of yours")
        return game

    async def play(self, request: Request) -> Response:
        """``/play/ID``: the game so far, the moves to pick from; a move posted here is the person's answer."""
        game = self.game(request)
        if request.method == "POST":
            form = await self.small_form(request)
            self.pages.check_csrf(request, form.get("csrf"))
            before = game.asks
            try:
                if game.send is not None:
                    game.send.send_nowait(str(form.get("move", ""))[:200])
            except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                pass  # no move awaited now (a second click): nothing to answer
            else:
                with trio.move_on_after(ANSWER_WAIT_S):  # the bot's reply, and the next request or the end
                    while not (game.over or game.asks > before):
                        await game.changed.wait()
            return RedirectResponse(f"/play/{game.id}", status_code=303)
        return self.pages.page(request, "play_game.html", g=game, seat="AB"[game.seat])

    async def replay(self, request: Request) -> Response:
        """``/play/ID/replay``: the finished game's replay (the deal was the game's own: the whole table)."""
        game = self.game(request)
        if not game.over or game.log_path is None:
            raise HTTPException(404, "the game's replay is shown once it has ended")
        html = await trio.to_thread.run_sync(self.replay_page, game.log_path, None, frozenset(), True)
        return HTMLResponse(html, headers={"content-security-policy": self.replay_csp, "x-frame-options": "SAMEORIGIN"})
