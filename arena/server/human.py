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

import json
import math
import secrets
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec
import trio
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from ..games import Choice
from ..replay import index_records, match_update
from ..replay.human import HUMAN_LIMITS, play_human
from ..supervisor.play import new_seed
from .access import may_switch_play
from .live import LIVE_POLL_S, SSE_KEEPALIVE_S, GrowingLog, _so_far
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
    seed: int = 0
    log_dir: Path | None = None
    question: str = ""
    """What the awaited request asks, in the game's words."""
    live: GrowingLog | None = None
    """The game's log as it is written (for its table), once found."""
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

    def growing(self) -> GrowingLog | None:
        """The game's log being written, found by its seed (its name ends with it; a counter may follow)."""
        if self.live is None and self.log_dir is not None:
            found = sorted(self.log_dir.glob(f"*-{self.seed}.jsonl")) + sorted(
                self.log_dir.glob(f"*-{self.seed}-*.jsonl")
            )
            if found:
                self.live = GrowingLog(found[0])
        return self.live

    def state(self) -> dict[str, Any]:
        """What the game's page shows besides its table: the moves to pick from, whether the game is over."""
        return {
            "asks": self.asks,
            "waiting": self.waiting,
            "over": self.over,
            "question": self.question,
            "moves": [label for label, _ in self.listed or ()] if self.waiting else [],
            "json": self.waiting and not self.listed,
            "replay": f"/play/{self.id}/replay" if self.over and self.log_path is not None else "",
        }


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
        replay_page: Callable[[Path, str | None, frozenset[str], bool, str, tuple[str, str] | None], str],
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
        return self.c.participants.setting(ALLOWED.format(owner.id)) == "1"

    async def bot(self, request: Request) -> Response:
        """``/bots/NAME/play``: the owner's switch, and a button to play for anyone logged in."""
        owner = self.pages.participant(request.path_params["name"])
        viewer = self.pages.who(request)
        may_switch = may_switch_play(viewer, owner)
        if request.method == "POST":
            viewer = self.pages.need(request)
            form = await self.small_form(request)
            self.pages.check_csrf(request, form.get("csrf"))
            if "allow" in form:
                if not may_switch:
                    raise HTTPException(403, "only the bot's owner (the organiser, for a house bot) may switch this")
                self.c.participants.set_setting(ALLOWED.format(owner.id), "1" if form.get("allow") == "1" else "0")
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
        refused = self.c.submissions.may_play(viewer)
        if refused:
            raise HTTPException(403, refused)
        version = next((v for v in self.c.versions(owner.id) if v.playing), None)
        spec = self.c.specs.get(version.id) if version is not None else None
        if version is None or spec is None or owner.disqualified:
            raise HTTPException(409, f"{owner.name} has no version playing now")
        self._make_room(address)
        game = HumanGame(
            id=secrets.token_urlsafe(9), player=viewer.id, bot=version.label, seat=seat, seed=new_seed(),
            log_dir=self.c.logs / "human", address=address,
        )  # fmt: skip
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

        def asked(listed: list[Choice] | None, question: str) -> None:
            game.listed = listed
            game.question = question

        async def play() -> None:
            try:
                with game.scope:
                    record = await play_human(
                        self.c.game, spec, seat, seed=game.seed, limits=self.c.config.limits, human_limits=limits,
                        log_dir=game.log_dir, read_line=read_line, say=say, asked=asked,
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

        if not self.c.host.spawn(play):  # not running yet (or any more): the slots go back
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
                if request.headers.get("x-arena-move") == "1":  # the table's script: it hears the rest as events
                    return Response(status_code=204)
                with trio.move_on_after(ANSWER_WAIT_S):  # the bot's reply, and the next request or the end
                    while not (game.over or game.asks > before):
                        await game.changed.wait()
            return RedirectResponse(f"/play/{game.id}", status_code=303)
        return self.pages.page(request, "play_game.html", g=game, seat="AB"[game.seat], state=game.state())

    async def table(self, request: Request) -> Response:
        """``/play/ID/table``: the game's table as the person's seat sees it (the replay page, seat view, no seed),
        framed by the game's page, which sends it the game as it grows and hears the cards clicked."""
        game = self.game(request)
        with trio.move_on_after(RELAY_START_S + ANSWER_WAIT_S):  # the bots' start: the log begins after it
            while not game.over and ((live := game.growing()) is None or not live.refresh()):
                await trio.sleep(LIVE_POLL_S / 4)
                if live is not None:
                    live.read_at = -math.inf
        live = game.growing()
        if live is None or not live.refresh():
            return HTMLResponse(
                _WAIT_PAGE, headers={"content-security-policy": self.replay_csp, "x-frame-options": "SAMEORIGIN"}
            )
        html = await trio.to_thread.run_sync(live.page, "AB"[game.seat], False)
        at = html.rfind("</body>")
        html = html[:at] + TABLE_SCRIPT + html[at:]
        return HTMLResponse(html, headers={"content-security-policy": self.replay_csp, "x-frame-options": "SAMEORIGIN"})

    async def events(self, request: Request) -> Response:
        """``/play/ID/events``: server-sent events of the game: ``state`` (the moves to pick from, the end) each
        time it changes, and ``table`` (the seat's view so far, for the table's ``arenaReplay.update``) when the
        log grew. The person sees only what the seat is told: the view is the seat's, the seed hidden."""
        game = self.game(request)
        seat = "AB"[game.seat]

        async def stream() -> AsyncIterator[str]:
            sent_state: dict[str, Any] | None = None
            sent_records = -1
            sent_lines = 0
            asked_logged = 0  # the person's requests in the log so far, and how many of its records were counted
            counted = 0
            held_since: float | None = None
            quiet = 0.0
            while True:
                changed = game.changed
                state = game.state()
                if len(game.lines) > sent_lines:
                    lines, sent_lines = game.lines[sent_lines:], len(game.lines)
                    yield f"event: said\ndata: {json.dumps({'lines': lines})}\n\n"
                live = game.growing()
                if live is not None:
                    live.read_at = -math.inf  # read now: a person's move is seconds apart, not many a second
                    records = live.refresh()
                    asked_logged += sum(1 for r in records[counted:] if _asks(r, seat))
                    counted = len(records)
                    if len(records) != sent_records and records:
                        sent_records = len(records)
                        data = await trio.to_thread.run_sync(_seat_update, live, seat)
                        yield f"event: table\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
                # The moves are shown with the table that asks them: a request reaches the log just after the
                # person's seat (the step is written once both seats are asked), so its moves wait for it a little.
                behind = state["waiting"] and live is not None and asked_logged < state["asks"]
                now = trio.current_time()
                if behind and held_since is None:
                    held_since = now
                if state != sent_state and (not behind or now - (held_since or now) >= 2 * LIVE_POLL_S):
                    sent_state, held_since = state, None
                    yield f"event: state\ndata: {json.dumps(state)}\n\n"
                if game.over and state["over"] and (live is None or sent_records == len(live.records)):
                    return
                # Soon after a change the log is read again soon: the step's requests reach it just after the seats.
                wait = LIVE_POLL_S if quiet >= 2 * LIVE_POLL_S else LIVE_POLL_S / 4
                with trio.move_on_after(wait):
                    await changed.wait()
                    quiet = -wait
                quiet += wait
                if quiet >= SSE_KEEPALIVE_S:
                    quiet = 0.0
                    yield ": still here\n\n"

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={"cache-control": "no-store", "x-accel-buffering": "no"}
        )

    async def replay(self, request: Request) -> Response:
        """``/play/ID/replay``: the finished game's replay (the deal was the game's own: the whole table)."""
        game = self.game(request)
        if not game.over or game.log_path is None:
            raise HTTPException(404, "the game's replay is shown once it has ended")
        back = (f"/play/{game.id}", f"your game against {game.bot}")
        html = await trio.to_thread.run_sync(self.replay_page, game.log_path, None, frozenset(), True, "", back)
        return HTMLResponse(html, headers={"content-security-policy": self.replay_csp, "x-frame-options": "SAMEORIGIN"})


def _asks(record: dict[str, Any], seat: str) -> bool:
    """Whether a log record is a request sent to ``seat``."""
    msg = record.get("msg")
    return record.get("type") == "send" and record.get("seat") == seat and isinstance(msg, dict) and "id" in msg


def _seat_update(live: GrowingLog, seat: str) -> dict[str, Any]:
    """The seat's view of the game so far, as its table page takes it (call it in a thread: it re-runs the rules)."""
    log = index_records(live.path, list(live.records))
    log.stderr = []
    return match_update(log, seat=seat, timeline=_so_far(log), seed_shown=False)


_WAIT_PAGE = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>The table</title></head>'
    '<body><p style="font-family:system-ui,sans-serif">The table is being laid out...</p>'
    '<script>parent.postMessage({ arenaReplay: { retry: true } }, "*");</script></body></html>'
)
"""The table's frame when the game's log has not begun: the game's page asks again (a sandboxed frame's own reload
would go without the person's cookie)."""

TABLE_SCRIPT = """<script>/* arena serve: the table of a game a person plays, in the frame of the game's page */
(function () {
  var parent = window.parent, last = "", playable = { seat: "", faces: [] };
  if (parent === window) return;
  function send() {
    var height = Math.max(document.body.scrollHeight, document.body.offsetHeight);
    if (String(height) === last) return;
    last = String(height);
    parent.postMessage({ arenaReplay: { height: height } }, "*");
  }
  var style = document.createElement("style");
  style.textContent = ".card.playable { cursor: pointer; outline: 3px solid #2563eb; outline-offset: 2px; }" +
    ".card.playable:hover, .card.playable:focus { transform: translateY(-4px); }";
  document.head.appendChild(style);
  // The person's own cards that are moves now (the game's page says which) are buttons: a click plays one.
  function mark() {
    var seat = document.getElementById("seat-" + playable.seat);
    document.querySelectorAll(".card.playable").forEach(function (c) {
      c.classList.remove("playable"); c.removeAttribute("tabindex"); c.setAttribute("role", "img");
    });
    if (!seat) return;
    seat.querySelectorAll(".card[data-card]").forEach(function (c) {
      // A move is a card's face (R3), or in the hand the number on it (GOPS bids a value: the card s5 is "5").
      var zone = c.closest(".zone"), rank = c.querySelector(".rank");
      var label = zone ? zone.querySelector(".label") : null;
      var inHand = label && /hand/i.test(label.textContent) && rank && playable.faces.indexOf(rank.textContent) >= 0;
      if (playable.faces.indexOf(c.dataset.card) < 0 && !inHand) return;
      c.dataset.move = playable.faces.indexOf(c.dataset.card) >= 0 ? c.dataset.card : rank.textContent;
      c.classList.add("playable");
      c.setAttribute("tabindex", "0");
      c.setAttribute("role", "button");
      c.setAttribute("aria-label", "play " + (c.title || c.dataset.card));
    });
  }
  function play(target) {
    var c = target && target.closest ? target.closest(".card.playable") : null;
    if (c) { parent.postMessage({ arenaPlay: c.dataset.move }, "*"); return true; }
    return false;
  }
  document.addEventListener("click", function (e) { play(e.target); });
  document.addEventListener("keydown", function (e) {
    if ((e.key === "Enter" || e.key === " ") && play(e.target)) { e.preventDefault(); e.stopPropagation(); return; }
    if (/^[0-9]$/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) parent.postMessage({ arenaKey: e.key }, "*");
  }, true);
  addEventListener("message", function (e) {
    if (e.source !== parent || !e.data) return;
    if (e.data.arenaData && window.arenaReplay) window.arenaReplay.update(e.data.arenaData);
    if (e.data.arenaPlayable) playable = e.data.arenaPlayable;
    mark();
    send();
  });
  var table = document.getElementById("table");
  if (table && window.MutationObserver) new MutationObserver(mark).observe(table, { childList: true });
  addEventListener("load", send);
  if (window.ResizeObserver) new ResizeObserver(send).observe(document.body);
  setInterval(send, 500);
})();
</script>
"""
"""Added to the table's replay page: it tells the game's page its height, takes the game as it grows
(``window.arenaReplay.update``) and which of the seat's cards are moves now, and tells the page a card clicked or a
digit typed. The frame is sandboxed: it sees nothing of the page but these messages."""
