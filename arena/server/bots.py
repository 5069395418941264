"""A bot's pages: its page (versions, standing, opponents, faults, matches, rating chart) and, for its owner and
the organiser, its files, build log and stderr.

The JSON API's ``/api/bots/NAME`` answers the same facts (:meth:`BotPages.context`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode

from markupsafe import Markup, escape
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from ..competition.ladder import other_table
from ..competition.store import PlayedMatch
from . import access
from ._text import num
from .catalogue import relative_paths
from .files import bot_files, read_bot_file, tail_of
from .service import Competition
from .state import NAME_RE, Participant
from .versions import Version

BOT_PAGE_MATCHES = 40
"""Matches on a page of a bot's history (older ones: the page's ``?before=`` link)."""
Record = tuple[int, int, int, int, float, float]
"""A version's (matches, wins, draws, losses, points for, points against) against one opponent."""
Records = dict[int, dict[int, Record]]
"""A store's ``records``: each version's :data:`Record` by opponent id."""
RECORD_FIELDS = ("matches", "wins", "draws", "losses", "for", "against")
"""What a :data:`Record` holds, by the names the JSON API gives them."""
RESULTS = ("won", "drew", "lost")
"""How a bot's match list may be filtered by result (``?result=``)."""

HISTORIES_KEPT = 64
"""The most versions' histories a bot's pages keep between snapshots (more: all are read again)."""

CHART_W, CHART_H = 640.0, 220.0
CHART_LEFT, CHART_RIGHT, CHART_TOP, CHART_BOTTOM = 52.0, 16.0, 12.0, 44.0
"""The bot page's rating chart: its box and the margins that hold the axes' labels."""


@dataclass
class _History:
    """A version's rating history as read, and its chart once drawn."""

    points: list[tuple[int, float, float | None]]
    chart: dict[str, Any] | None = None
    drawn: bool = False


class Pages(Protocol):
    """What a bot's pages use of the web app's pages (:class:`arena.server.web.Pages`)."""

    c: Competition

    def who(self, request: Request) -> Participant | None: ...
    def participant(self, name: str) -> Participant: ...
    def page(self, request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse: ...


class BotPages:
    """A bot's pages, over the pages' helpers."""

    def __init__(self, pages: Pages) -> None:
        self.pages = pages
        self.c = pages.c
        self._histories: dict[int, _History] = {}
        self._histories_of = -1
        """The versions' histories (and charts) read since the last snapshot was kept, by version id, and which
        snapshot that was (:attr:`State.ratings_kept <arena.server.state.State.ratings_kept>`)."""

    def routes(self) -> list[BaseRoute]:
        """A bot's routes (``/bots/NAME/play`` is :mod:`arena.server.human`'s)."""
        return [
            Route("/bots/{name}", self.bot),
            Route("/bots/{name}/v{number:int}/files", self.files),
            Route("/bots/{name}/v{number:int}/files/{path:path}", self.file),
            Route("/bots/{name}/v{number:int}/build.log", self.build_log),
            Route("/bots/{name}/stderr/{file}", self.stderr),
        ]

    def context(self, request: Request, name: str, *, page: bool = True) -> dict[str, Any]:
        """What bot ``name``'s page shows ``request``'s viewer (its owner and the organiser see more); without
        ``page``, what its JSON (``/api/bots/NAME``) takes of it: not the page's matches (the API reads its own
        page of them), its versions' records or its chart."""
        owner = self.pages.participant(name)
        private = access.may_see_private(self.pages.who(request), owner)
        versions = self.c.versions(owner.id)
        current = next((v for v in versions if v.playing), None)
        board = self.c.board()
        standing = next((row for row in board.board.standings if current and row.bot == owner.name), None)
        playing = self.c.catalogue.playing_names()
        # The current version's rows against the bots playing now (by the primary key), not every row of every
        # version of the bot's (a version alive for months met every version since, retired ones too).
        records = self.c.store.records([current.id], among=playing) if current else {}
        opponents = self._opponents(current, records, playing)
        context: dict[str, Any] = {
            "owner": owner,
            "private": private,
            "versions": versions[::-1],
            "current": current,
            "standing": standing,
            "opponents": opponents,
            "faults": self._faults(versions),
            "stderr": self._stderr_files(owner) if private else [],
            "submissions": self.c.submissions.latest(owner.id, limit=30) if private else [],
            "dq": board.reasons(),
        }
        if page:
            listed = self._matches(request, owner)
            context.update(
                listed,
                records=_records(self.c.store.record_sums([v.id for v in versions]), versions),
                chart=self.chart(current.id) if current else None,
                # The field's rows and the filter's options written here, in one pass, not by the template (a few
                # hundred rows: the template's expressions per row took a third of the page's time).
                **_opponent_html(opponents, listed["filter"].get("opponent")),
            )
        return context

    def rating_history(self, version_id: int) -> list[tuple[int, float, float | None]]:
        """``(matches, elo, error95)`` snapshots of version ``version_id``, oldest first, as read since the last
        snapshot was kept (:meth:`Catalogue.rating_history <arena.server.catalogue.Catalogue.rating_history>`)."""
        return self._history(version_id).points

    def chart(self, version_id: int) -> dict[str, Any] | None:
        """Version ``version_id``'s rating chart (:func:`_chart`), as drawn since the last snapshot was kept."""
        kept = self._history(version_id)
        if not kept.drawn:
            dates = self.c.catalogue.rating_dates(version_id, _chart_picks(kept.points))  # (the axis's, not all)
            kept.chart, kept.drawn = _chart(kept.points, dates), True
        return kept.chart

    def _history(self, version_id: int) -> _History:
        """What is kept of version ``version_id``'s history until the next snapshot (every version's changes then)."""
        if self._histories_of != self.c.state.ratings_kept or len(self._histories) >= HISTORIES_KEPT:
            self._histories.clear()
            self._histories_of = self.c.state.ratings_kept
        kept = self._histories.get(version_id)
        if kept is None:
            kept = self._histories[version_id] = _History(self.c.catalogue.rating_history(version_id))
        return kept

    def _matches(self, request: Request, owner: Participant) -> dict[str, Any]:
        """The page of ``owner``'s matches the request asks for (``?before=``, ``?result=``, ``?opponent=``)."""
        before = _before(request)
        wanted = _match_filter(request.query_params)
        against = self.c.participants.named(wanted["opponent"]) if wanted.get("opponent") else None
        page = self.c.catalogue.latest_matches(
            BOT_PAGE_MATCHES + 1, before=before, participant=owner, opponent=against, result=wanted.get("result")
        )
        if wanted.get("opponent") and against is None:
            page = []
        matches = self.c.catalogue.labelled(page[:BOT_PAGE_MATCHES])
        older = page[BOT_PAGE_MATCHES - 1].row_id if len(page) > BOT_PAGE_MATCHES else None
        return {
            "matches": matches,
            "filter": wanted,
            "filtered": bool(wanted),
            "pager": {
                "newer": urlencode(wanted) if before is not None else None,
                "older": urlencode({**wanted, "before": older}) if older is not None else None,
            },
            "dated": self.c.store.finished_times(self.c.tid, matches),
            "tables": self.other_tables(matches),
        }

    def _opponents(
        self, current: Version | None, records: Records, playing: dict[int, str]
    ) -> list[tuple[str, Record]]:
        """The current version's totals against each bot playing now (``playing``: their names by version id), by
        name (from ``records``, the store's totals of the current version against them, read by the totals'
        primary key: the bot's rows of pairs, not the field's)."""
        if current is None:
            return []
        return sorted(
            (playing[other], record) for other, record in records.get(current.id, {}).items()
            if other in playing and record[0]
        )  # fmt: skip

    def _faults(self, versions: list[Version]) -> list[tuple[PlayedMatch, Any]]:
        """The latest 50 faults of ``versions``, each with its match named by version (named together: one
        naming of 50 matches, not 50 of one)."""
        found = self.c.store.latest_faults(self.c.tid, [v.id for v in versions], 50)
        named = self.c.catalogue.labelled([match for match, _ in found])
        return [(labelled, fault) for labelled, (_, fault) in zip(named, found, strict=True)]

    def _stderr_files(self, owner: Participant) -> list[str]:
        """The names of ``owner``'s latest 40 stderr files, newest first."""
        folder = self.c.logs / "stderr"
        if not folder.is_dir():
            return []
        mine = (p.name for p in folder.iterdir() if _owner_name(p.name) == owner.name and p.is_file())
        return sorted(mine, reverse=True)[:40]

    async def bot(self, request: Request) -> Response:
        return self.pages.page(request, "bot.html", **self.context(request, request.path_params["name"]))

    def other_tables(self, matches: list[PlayedMatch]) -> dict[str, PlayedMatch]:
        """The other table of each of ``matches`` played at two tables whose deal is over (both tables played),
        by the match's key, named by version as pages show them."""
        of = {other: match.key for match in matches if (other := other_table(match.key)) is not None}
        played = {of[m.key]: m for m in self.c.store.matches_of_keys(self.c.tid, list(of))}  # (one read)
        found = {match.key: played[match.key] for match in matches if match.key in played}
        # (labelled at once: each call names every version the competition ever had)
        return dict(zip(found, self.c.catalogue.labelled(list(found.values())), strict=True))

    def _private_version(self, request: Request) -> tuple[Participant, Version]:
        owner = self.pages.participant(request.path_params["name"])
        viewer = self.pages.who(request)
        if viewer is None:
            raise HTTPException(401, "log in to see your bot's files")
        if not access.may_see_private(viewer, owner):
            raise HTTPException(403, "only the bot's owner and the organiser see its files")
        version = self.c.catalogue.version(owner.id, request.path_params["number"])
        if version is None:
            raise HTTPException(404, "no such version")
        return owner, version

    async def files(self, request: Request) -> Response:
        owner, version = self._private_version(request)
        return self.pages.page(
            request, "files.html", owner=owner, version=version, files=bot_files(Path(version.folder))
        )

    async def file(self, request: Request) -> Response:
        owner, version = self._private_version(request)
        try:
            text = read_bot_file(Path(version.folder), request.path_params["path"])
        except FileNotFoundError:
            raise HTTPException(404, "no such file in this version") from None
        path = request.path_params["path"]
        return self.pages.page(request, "file.html", owner=owner, version=version, path=path, text=text)

    async def build_log(self, request: Request) -> Response:
        owner, version = self._private_version(request)
        path = self.c.catalogue.build_log(version)
        if path is None:
            raise HTTPException(404, "this version has no build command")
        try:
            text = tail_of(path)
        except FileNotFoundError:
            raise HTTPException(404, "no build log kept for this version (the build cache was emptied)") from None
        text = relative_paths(text, Path(version.folder), path.parent)
        return self.pages.page(request, "file.html", owner=owner, version=version, path="build log", text=text)

    async def stderr(self, request: Request) -> Response:
        owner = self.pages.participant(request.path_params["name"])
        viewer = self.pages.who(request)
        if viewer is None:
            raise HTTPException(401, "log in to see your bot's stderr")
        if not access.may_see_private(viewer, owner):
            raise HTTPException(403, "only the bot's owner and the organiser see its stderr")
        name = request.path_params["file"]
        if _owner_name(name) != owner.name or "/" in name or name.startswith("."):
            raise HTTPException(404, "no such stderr file")
        try:
            text = tail_of(self.c.logs / "stderr" / name)
        except FileNotFoundError:
            raise HTTPException(404, "no such stderr file") from None
        return self.pages.page(request, "file.html", owner=owner, version=None, path=name, text=text)


def _chart(history: list[tuple[int, float, float | None]], dates: dict[int, str]) -> dict[str, Any] | None:
    """A version's rating over the ladder's matches (with its 95% band), as SVG coordinates, with labelled axes.

    ``dates``: when the ladder's n-th match finished (for the x axis's labels), where known.
    """
    if len(history) < 2:
        return None
    xs = [h[0] for h in history]
    lows = [h[1] - (h[2] or 0.0) for h in history]
    highs = [h[1] + (h[2] or 0.0) for h in history]
    step = _tick_step(max(highs) - min(lows))
    y_low = math.floor(min(lows) / step) * step
    y_high = max(math.ceil(max(highs) / step) * step, y_low + step)
    x_span = max(xs[-1] - xs[0], 1)
    inner_w = CHART_W - CHART_LEFT - CHART_RIGHT
    inner_h = CHART_H - CHART_TOP - CHART_BOTTOM

    first, y_span = xs[0], y_high - y_low
    bottom = CHART_TOP + inner_h

    def px(x: float) -> float:
        return round(CHART_LEFT + (x - first) / x_span * inner_w, 1)

    def py(y: float) -> float:
        return round(bottom - (y - y_low) / y_span * inner_h, 1)

    # Each point's x once (three of the chart's polylines share it), each y as written: a few hundred points, each
    # written in the comprehension (not by px and py: a call a number was half the chart's time). ``f"{v:.1f}"``
    # writes what ``round(v, 1)`` does (both round the exact binary value to one decimal).
    at = [f"{CHART_LEFT + (x - first) / x_span * inner_w:.1f}," for x in xs]
    line = " ".join([f"{x}{bottom - (h[1] - y_low) / y_span * inner_h:.1f}" for x, h in zip(at, history, strict=True)])
    band = " ".join(
        [f"{x}{bottom - (hi - y_low) / y_span * inner_h:.1f}" for x, hi in zip(at, highs, strict=True)]
        + [
            f"{x}{bottom - (lo - y_low) / y_span * inner_h:.1f}"
            for x, lo in zip(reversed(at), reversed(lows), strict=True)
        ]
    )
    y_ticks = [{"y": py(v), "label": f"{v:+.0f}".replace("-", "\u2212")} for v in _frange(y_low, y_high, step)]
    picks = _chart_picks(history)
    x_ticks = [{"x": px(n), "label": f"match {n}", "date": (dates.get(n) or "")[:16].replace("T", " ")} for n in picks]
    return {
        "line": line,
        "band": band,
        "first": xs[0],
        "last": xs[-1],
        "low": round(min(lows)),
        "high": round(max(highs)),
        "now": round(history[-1][1]),
        "y_ticks": y_ticks,
        "x_ticks": x_ticks,
        "box": {"w": CHART_W, "h": CHART_H, "left": CHART_LEFT, "right": CHART_W - CHART_RIGHT,
                "top": CHART_TOP, "bottom": CHART_H - CHART_BOTTOM},
    }  # fmt: skip


def _chart_picks(history: list[tuple[int, float, float | None]]) -> list[int]:
    """The snapshots (by match count) a chart of ``history`` labels on its x axis: the first, the middle one and
    the last."""
    if not history:
        return []
    return sorted({history[0][0], history[len(history) // 2][0], history[-1][0]})


def _opponent_html(opponents: list[tuple[str, Record]], chosen: str | None) -> dict[str, Markup]:
    """The rows of the bot page's table of its opponents (``opponents``: each one's name and record) and the
    options of its filter by opponent (``chosen`` selected), by the names the template gives them. The names are
    escaped; the numbers are written as they are (digits, ``-`` for none)."""
    if not opponents:
        return {"opponent_rows": Markup('<tr><td colspan="3" class="empty">No matches yet.</td></tr>'),
                "opponent_options": Markup("")}  # fmt: skip
    rows, options = [], []
    for name, (_, won, drew, lost, points_for, against) in opponents:
        named = escape(name)
        rows.append(
            f'<tr><td><a href="/bots/{named}">{named}</a></td><td class="num">{won}-{drew}-{lost}</td>'
            f'<td class="num">{_whole(points_for)} - {_whole(against)}</td></tr>\n'
        )
        options.append(f"<option selected>{named}</option>" if name == chosen else f"<option>{named}</option>")
    return {"opponent_rows": Markup("".join(rows)), "opponent_options": Markup("".join(options))}


def _whole(points: float) -> str:
    """``num(points, 0)`` of a record's points (a float, as the store's totals are), written here: a few hundred a
    page."""
    if points.is_integer():
        return str(int(points))
    return num(points, 0)


def _tick_step(span: float) -> float:
    """A round step that cuts ``span`` into 3 to 6 ticks (10, 20, 25, 50, 100...)."""
    span = max(span, 1.0)
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if span / step <= 5:
            return float(step)
    return 10.0 ** math.ceil(math.log10(span / 5))


def _frange(low: float, high: float, step: float) -> list[float]:
    count = round((high - low) / step)
    return [low + i * step for i in range(count + 1)]


def _match_filter(query: Any) -> dict[str, str]:
    """The ``?result=`` and ``?opponent=`` of a bot's match list (only the values it knows: the rest is dropped)."""
    out = {}
    if (result := query.get("result", "")) in RESULTS:
        out["result"] = result
    if (opponent := query.get("opponent", "")) and NAME_RE.fullmatch(opponent):
        out["opponent"] = opponent
    return out


def _records(sums: dict[int, tuple[int, int, int, int]], versions: list[Version]) -> dict[str, dict[str, int]]:
    """Each version's wins, draws, losses and matches (by version label), from ``sums``, the store's sums of
    their pair totals (``(matches, wins, draws, losses)`` by version id)."""
    out = {}
    for version in versions:
        matches, won, drew, lost = sums.get(version.id, (0, 0, 0, 0))
        out[version.label] = {"won": won, "drew": drew, "lost": lost, "matches": matches}
    return out


def _owner_name(text: str) -> str:
    """The participant a version's label or a stderr file's name is of (participants' names hold no dot)."""
    return text.split(".", 1)[0]


def _before(request: Request) -> int | None:
    """The ``?before=`` of a page of matches: the id of the last match the previous page showed (keyset pagination)."""
    text = request.query_params.get("before", "")
    if not text:
        return None
    if not text.isdigit() or len(text) > 18:
        raise HTTPException(400, "before must be a match id (a whole number), as the previous page gave it")
    return int(text)
