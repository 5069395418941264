"""The tournament report: ``arena results DB --html report.html``.

One self-contained page built on the leaderboard's data
(:func:`arena.competition.results.board_from_store`): standings ranked by
rating with their intervals and LOS (said in words as ``arena results`` says
them), the ratings as a chart, a crosstable whose cells link to the two bots'
matches, points per cycle (from 3 cycles on), faults per bot with their
reasons (linked to the replay at the fault), a section per bot, and every
match grouped by duplicate pair with the pair's score and a link to each
leg's replay page (written into a folder beside the report). The charts are
inline SVG drawn by matplotlib; a small inline script sorts and filters the
match list (the page reads the same without it). No network.

It lives here, above :mod:`arena.competition`, because it draws replays;
``--html`` is added to ``arena results`` by :func:`extend_results`, so the
competition's command line never imports upward.
"""

from __future__ import annotations

import html
import math
import urllib.parse
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from .._errors import StoreError
from ..competition.board import MIN_DEALS, Leaderboard
from ..competition.render import caption, percent
from ..competition.results import board_from_store, chosen_competition, numbered_matches
from ..competition.store import PlayedMatch, Store, TournamentRow
from ..games import score_text
from ._charts import cycles_chart, ratings_chart
from ._log import load_log
from ._page import Fragment, asset, match_page, page

_esc = html.escape
Numbered = tuple[int, PlayedMatch]
"""A match with its number, as :func:`arena.competition.results.numbered_matches` gives it."""


def _num(value: float, digits: int = 2) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "–"
    return f"{value:g}" if float(value).is_integer() else f"{value:.{digits}f}"


def log_of(db: Path, played: PlayedMatch) -> Path | None:
    """The match's log file, as the store names it: relative to the folder the tournament ran in, which is
    the working folder or a folder above the database (``arena-runs/results.sqlite`` and ``arena-runs/logs``)."""
    if not played.log_path:
        return None
    path = Path(played.log_path)
    if path.is_absolute() or path.exists():
        return path
    for folder in db.resolve().parents:
        if (folder / path).exists():
            return folder / path
    return path


def write_replays(
    db: Path,
    matches: Sequence[Numbered],
    folder: Path,
    say: Callable[[str], None] = print,
    back: tuple[str, str] | None = None,
) -> dict[int, str]:
    """A replay page per match with a log, in ``folder`` (pages newer than their log are kept); number -> file name.
    Each links ``back`` (an address relative to the folder, and its name): the report."""
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[int, str] = {}
    # A duplicate pair's legs share their deal: each page links the other's, where that one has a log (a page).
    legs = {(p.cycle, p.deal, p.leg): n for n, p in matches if (path := log_of(db, p)) and path.is_file()}
    for number, played in matches:
        log_path = log_of(db, played)
        if log_path is None or not log_path.is_file():
            continue
        name = f"{number}.html"  # (keys hold bots' names: not for file names)
        out = folder / name
        if not out.exists() or out.stat().st_mtime < log_path.stat().st_mtime:
            try:
                other = legs.get((played.cycle, played.deal, 1 - played.leg))
                leg = f"{other}.html" if other is not None else None
                out.write_text(match_page(load_log(log_path), other_leg=leg, back=back), encoding="utf-8")
            except StoreError as exc:
                say(f"no replay of match {number}: {exc}")
                continue
            except Exception as exc:  # a log of another arena must not stop the report
                say(f"no replay of match {number} ({played.key}): {type(exc).__name__}: {exc}")
                continue
        written[number] = name
    return written


def _signed(value: float) -> str:
    """A rating with its sign, a true minus for below the average (as the charts write it)."""
    shown = f"{round(value):+d}" if math.isfinite(value) else f"{value:+}"  # (rounded first: never "-0")
    return shown.replace("-", "\u2212")


def _bot_ids(board: Leaderboard) -> dict[str, int]:
    """Each bot's number in the page's anchors (its place in the standings: names are the authors' text)."""
    return {r.bot: i for i, r in enumerate(board.standings, start=1)}


def _pair_anchor(ids: dict[str, int], a: str, b: str) -> str:
    first, second = sorted((ids.get(a, 0), ids.get(b, 0)))
    return f"vs-{first}-{second}"


def _standings(board: Leaderboard) -> str:
    ids = _bot_ids(board)
    rows = []
    for r in board.standings:
        interval = "–" if math.isnan(r.mean) else f"{r.mean:.2f}"
        if not math.isnan(r.mean_low):
            interval += f" ± {(r.mean_high - r.mean_low) / 2:.2f}"
        if not r.matches:
            rating = "–"
        elif math.isfinite(r.rating_error):
            rating = f"{_signed(r.rating)} ± {r.rating_error:.0f}"
        else:
            rating = f'{_signed(r.rating)} <span class="muted">(n too small)</span>'
        faults = ", ".join(f"{k} {n}" for k, n in sorted(r.faults.items())) or "–"
        dq = f' <span class="dq" title="{_esc(r.disqualified)}">DQ</span>' if r.disqualified else ""
        rows.append(
            f'<tr><td class="num">{r.rank}</td><td><a href="#bot-{ids[r.bot]}">{_esc(r.bot)}</a>{dq}</td>'
            f'<td class="num">{rating}</td>'
            f'<td class="num">{percent(r.los_next) or "–"}</td>'
            f'<td class="num">{r.wins}-{r.draws}-{r.losses}</td><td class="num">{interval}</td>'
            f'<td class="num">{_num(r.points)}</td><td>{_esc(faults)}</td></tr>'
        )
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="Standings table">'
        '<table class="grid" id="standings"><caption class="visually-hidden">Standings, ranked by '
        f"{'rating' if board.ranked_by == 'rating' else _esc(board.points_name) + ' per match'}</caption>"
        '<thead><tr><th class="num">#</th><th>bot</th><th class="num">rating ± 95%</th>'
        '<th class="num"><abbr title="likelihood of superiority over the next bot down">LOS</abbr></th>'
        f'<th class="num">W-D-L</th><th class="num">{_esc(board.points_name)}/match ± 95%</th>'
        f'<th class="num">{_esc(board.points_name)}</th><th>faults</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        f'<p class="muted" id="standings-note">{_esc(caption(board))}</p>'
    )


def _crosstable(board: Leaderboard) -> str:
    """Each bot's record against each other, as a table: a cell links to the two bots' matches."""
    names = [r.bot for r in board.standings]
    ids = _bot_ids(board)
    head = "".join(
        f'<th scope="col" class="num"><a href="#bot-{ids[n]}">{ids[n]}</a>'
        f'<span class="visually-hidden"> {_esc(n)}</span></th>'
        for n in names
    )
    rows = []
    for a in names:
        cells = []
        for b in names:
            cell = board.pairwise[a].get(b)
            if a == b:
                cells.append('<td class="self" aria-label="same bot"></td>')
            elif cell is None or not cell.matches:
                cells.append('<td class="num">–</td>')
            else:
                share = cell.score / cell.matches
                tone = "better" if share > 0.55 else "worse" if share < 0.45 else "even"
                words = f"{_esc(a)} against {_esc(b)}: {cell.wins} won, {cell.draws} drawn, {cell.losses} lost"
                cells.append(
                    f'<td class="num {tone}"><a href="#{_pair_anchor(ids, a, b)}" aria-label="{words}">'
                    f"{cell.wins}-{cell.draws}-{cell.losses}</a></td>"
                )
        rows.append(f'<tr><th scope="row" title="{_esc(a)}">{ids[a]}. {_esc(a)}</th>{"".join(cells)}</tr>')
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="Crosstable table">'
        '<table class="grid cross" id="crosstable"><caption class="visually-hidden">Each row bot\'s wins, draws and '
        f"losses against each column bot</caption><thead><tr><th>bot</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _cycles(board: Leaderboard, matches: Sequence[PlayedMatch]) -> str:
    cycles = sorted({m.cycle for m in matches})
    if len(cycles) < MIN_CYCLES_CHART:
        return ""
    totals: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for m in matches:
        totals[m.bot_a][m.cycle].append(m.points[0])
        totals[m.bot_b][m.cycle].append(m.points[1])
    series = {
        r.bot: [sum(totals[r.bot][c]) / len(totals[r.bot][c]) if totals[r.bot][c] else None for c in cycles]
        for r in board.standings
    }
    return cycles_chart(series, cycles, board.points_name)


MIN_CYCLES_CHART = 3
"""Cycles a tournament needs for the chart of points cycle by cycle (two points make no trend)."""


def _replay_link(number: int, links: dict[int, str], href: str, text: str, hash_: str = "") -> str:
    if number not in links:
        return _esc(text)
    return f'<a class="replay" href="{href}/{links[number]}{hash_}">{_esc(text)}</a>'


def _faults(matches: Sequence[Numbered], links: dict[int, str], href: str) -> str:
    by_bot: dict[str, list[tuple[int, str, str, str]]] = defaultdict(list)
    for number, m in matches:
        for f in m.faults:
            by_bot[f.bot].append((number, f.kind, f.reason, f.seat))
    if not by_bot:
        return '<p class="muted">No bot faulted.</p>'
    rows = []
    for bot in sorted(by_bot):
        for kind in sorted({k for _, k, _, _ in by_bot[bot]}):
            found = [(n, reason, seat) for n, k, reason, seat in by_bot[bot] if k == kind]
            examples = []
            for n, reason, seat in found[:3]:
                where = (
                    f'<a class="fault-link" href="{href}/{links[n]}#fault={seat}">match {n}</a>'
                    if n in links
                    else f"match {n}"
                )
                examples.append(f"{where}: {_esc(reason[:300])}")
            rows.append(
                f'<tr><td>{_esc(bot)}</td><td>{_esc(kind)}</td><td class="num">{len(found)}</td>'
                f'<td class="fault-text">{"<br>".join(examples)}</td></tr>'
            )
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="Faults table">'
        '<table class="grid" id="faults"><thead><tr><th>bot</th><th>fault</th><th class="num">times</th>'
        f"<th>reasons (first three; each link opens the replay at the fault)</th></tr></thead><tbody>{''.join(rows)}"
        "</tbody></table></div>"
    )


def _deals(matches: Sequence[Numbered]) -> list[list[Numbered]]:
    """The matches grouped by deal (a duplicate pair's two legs together), in the order the deals began."""
    grouped: dict[str, list[Numbered]] = {}
    for number, m in matches:
        grouped.setdefault(f"{m.cycle}/{m.deal}", []).append((number, m))
    return [sorted(legs, key=lambda nm: nm[1].leg) for legs in grouped.values()]


def _matches(board: Leaderboard, matches: Sequence[Numbered], links: dict[int, str], href: str) -> str:
    ids = _bot_ids(board)
    rows = []
    seen_pairs: set[str] = set()
    for legs in _deals(matches):
        first = legs[0][1]
        x, y = first.bot_a, first.bot_b
        anchor = _pair_anchor(ids, x, y)
        row_id = f' id="{anchor}"' if anchor not in seen_pairs else ""
        seen_pairs.add(anchor)
        score = [0.0, 0.0]
        cells = []
        faults = []
        for number, m in legs:
            mine = 0 if m.bot_a == x else 1
            score[0] += m.points[mine]
            score[1] += m.points[1 - mine]
            text = f"{number}: {m.bot_a} {score_text(*m.points)} {m.bot_b}"
            cells.append(_replay_link(number, links, href, text))
            faults += [f"{number}: {f.bot} {f.kind}" for f in m.faults]
        winner = x if score[0] > score[1] else y if score[1] > score[0] else "even"
        rows.append(
            f'<tr data-pair="{anchor}"{row_id}><td class="num" data-sort="{legs[0][0]}">{legs[0][0]}</td>'
            f'<td class="num">{first.cycle}</td><td>{_esc(x)}</td><td>{_esc(y)}</td>'
            f"<td>{'<br>'.join(cells)}</td>"
            f'<td class="num" data-sort="{score[0] - score[1]}">{score_text(score[0], score[1])}</td>'
            f"<td>{_esc(winner)}</td>"
            f'<td class="fault-text">{_esc("; ".join(faults))}</td><td><code>{first.seed}</code></td></tr>'
        )
    head = "".join(
        f'<th{" class=num" if num else ""} aria-sort="none"><button type="button" data-column="{i}">{label}</button>'
        "</th>"
        for i, (label, num) in enumerate(
            [("#", True), ("cycle", True), ("bot", False), ("opponent", False), ("legs (replays)", False),
             ("pair score", True), ("pair won by", False), ("faults", False), ("seed", False)]
        )
    )  # fmt: skip
    return (
        '<div class="filters"><label>Filter the matches <input type="search" id="match-filter" '
        'placeholder="a bot, a fault, a seed"></label> <span class="muted" id="match-count" role="status"></span>'
        '<a href="#matches" id="show-all" hidden>all matches</a></div>'
        '<div class="scroll" tabindex="0" role="region" aria-label="Matches by duplicate pair">'
        '<table class="grid" id="matches"><caption class="visually-hidden">Every match, a duplicate pair (both legs '
        f"of a deal) a row, with the pair's score</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="muted">Each row is a duplicate pair: the same deal played twice with the seats swapped, so luck '
        "cancels out; the pair score adds the bot's points over both legs.</p>"
    )


def _bot_sections(board: Leaderboard) -> str:
    ids = _bot_ids(board)
    parts = []
    for r in board.standings:
        rating = _signed(r.rating) if r.matches else "–"
        error = f" ± {r.rating_error:.0f}" if math.isfinite(r.rating_error) else " (no interval: too few deals)"
        faults = ", ".join(f"{k} × {n}" for k, n in sorted(r.faults.items())) or "none"
        opponents = []
        for other, cell in sorted(board.pairwise[r.bot].items()):
            if not cell.matches:
                continue
            opponents.append(
                f'<tr><td><a href="#bot-{ids[other]}">{_esc(other)}</a></td>'
                f'<td class="num">{cell.wins}-{cell.draws}-{cell.losses}</td>'
                f'<td class="num">{_num(cell.points_for)} – {_num(cell.points_against)}</td>'
                f'<td><a href="#{_pair_anchor(ids, r.bot, other)}">matches</a></td></tr>'
            )
        dq = f'<p class="bad">Disqualified: {_esc(r.disqualified)}</p>' if r.disqualified else ""
        parts.append(
            f'<section class="bot" id="bot-{ids[r.bot]}">'
            f'<h3 id="bot-{ids[r.bot]}-name">{r.rank}. {_esc(r.bot)}</h3>{dq}'
            f"<p>Rating {rating}{error if r.matches else ''}; {r.wins}-{r.draws}-{r.losses} in {r.matches} "
            f"matches ({r.deals} deals); {_num(r.points)} {_esc(board.points_name)}; faults: {_esc(faults)}.</p>"
            '<div class="scroll" tabindex="0" role="region" '
            f'aria-label="{_esc(r.bot)} against each opponent"><table class="grid"><thead><tr><th>opponent</th>'
            f'<th class="num">W-D-L</th><th class="num">{_esc(board.points_name)} for – against</th>'
            "<th>their matches</th>"
            f"</tr></thead><tbody>{''.join(opponents)}</tbody></table></div></section>"
        )
    return f'<div class="bots">{"".join(parts)}</div>'


def report_fragment(
    tournament: TournamentRow, board: Leaderboard, matches: Sequence[Numbered], links: dict[int, str], href: str
) -> Fragment:
    """The report as page parts (``links``: match number -> replay file, under ``href``)."""
    progress = f"{board.matches} matches" + (f" of {board.scheduled}" if board.scheduled else "")
    intervals = any(math.isfinite(r.rating_error) for r in board.standings)
    rating_note = (
        "Bradley-Terry ratings on the Elo scale; bars are 95% intervals."
        if intervals
        else f"Bradley-Terry ratings on the Elo scale. No intervals: each bot has played fewer than {MIN_DEALS} "
        "deals, too few to tell how sure a rating is (play more cycles: <code>--cycles</code>)."
    )
    cycles = sorted({m.cycle for _, m in matches})
    sections = [
        f"""<header class="top"><h1>{_esc(tournament.name or "Tournament")}: {_esc(tournament.game)}</h1>
<div class="sub">tournament {tournament.id} &middot; seed <code id="seed">{tournament.seed}</code> &middot;
{progress} &middot; {len(board.standings)} bots &middot; started {_esc(tournament.created_at)}</div></header>
<main class="report">""",
        f'<section class="panel wide"><h2 id="h-standings">Standings</h2>{_standings(board)}</section>',
        f'<section class="panel"><h2 id="h-ratings">Ratings</h2>'
        '<div class="scroll chart-scroll" tabindex="0" role="region" aria-label="Ratings chart">'
        f'<div id="ratings-chart" role="img" aria-label="Ratings with their 95% intervals, one bot a row">'
        f"{ratings_chart(_rating_rows(board))}</div></div>"
        f'<p class="muted" id="rating-note">{rating_note}</p></section>',
        # (beside the ratings while it is small; a row of its own past eight bots)
        f'<section class="panel{" wide" if len(board.standings) > 8 else ""}"><h2 id="h-cross">Crosstable</h2>'
        f"{_crosstable(board)}"
        '<p class="muted">Each cell: the row bot\'s wins, draws and losses against the column bot (green: the row '
        "bot did better, red: worse); it links to their matches.</p></section>",
    ]
    if matches:
        chart = _cycles(board, [m for _, m in matches])
        body = (
            '<div class="scroll chart-scroll" tabindex="0" role="region" aria-label="Cycles chart">'
            f'<div id="cycles-chart" role="img" aria-label="{_esc(board.points_name)} per match in each cycle, '
            f'one line a bot">{chart}</div></div>'
            if chart
            else f'<p class="muted" id="cycles-note">{len(cycles)} cycle{"s" if len(cycles) != 1 else ""}: '
            f"a chart cycle by cycle needs {MIN_CYCLES_CHART} or more.</p>"
        )
        sections.append(
            '<section class="panel wide">'
            f'<h2 id="h-cycles">{_esc(board.points_name.capitalize())} per match, cycle by cycle</h2>{body}</section>'
        )
    sections.append(
        f'<section class="panel wide"><h2 id="h-faults">Faults</h2>{_faults(matches, links, href)}</section>'
    )
    sections.append(f'<section class="panel wide"><h2 id="h-bots">Bots</h2>{_bot_sections(board)}</section>')
    sections.append(
        '<section class="panel wide"><h2 id="h-matches">Matches</h2>'
        f"{_matches(board, matches, links, href)}</section></main>"
    )
    title = f"{tournament.name or 'Tournament'}: {tournament.game} report"
    head = f'<link rel="icon" href="{FAVICON}">\n<style>\n{asset("base.css")}\n{asset("report.css")}\n</style>'
    body = "\n".join(sections) + f"\n<script>\n{asset('report.js')}\n</script>"
    return Fragment(title=title, head=head, body=body)


FAVICON = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' "
    "height='32' rx='6' fill='%232f5bd3'/%3E%3Cpath d='M9 25 16 7l7 18M11.6 19h8.8' fill='none' stroke='%23fff' "
    "stroke-width='3' stroke-linecap='round' stroke-linejoin='round'/%3E%3C/svg%3E"
)
"""The server's icon, inline (the report is one file)."""


def _rating_rows(board: Leaderboard) -> list[dict[str, object]]:
    return [
        {
            "bot": r.bot,
            "rating": r.rating,
            "error": r.rating_error if math.isfinite(r.rating_error) else None,
            "excluded": bool(r.disqualified),
        }
        for r in board.standings
    ]


def write_report(
    db: Path, out: Path, tid: int | None = None, say: Callable[[str], None] = print, *, name: str | None = None
) -> Path:
    """Write the report of competition ``tid`` or ``name`` (the latest) in ``db`` to ``out``, its replays beside it.

    Its matches are the board's (the current field's), numbered as ``arena
    results --matches`` and ``arena replay --db`` number them.
    """
    with Store.open(db, readonly=True) as store:
        tournament = chosen_competition(store, tid, name)
        board = board_from_store(store, tournament.id)
        matches = numbered_matches(store, tournament.id, current=True)
    folder = out.with_name(out.stem + "-replays")
    out.parent.mkdir(parents=True, exist_ok=True)
    links = write_replays(db, matches, folder, say, back=(f"../{urllib.parse.quote(out.name)}", "the report"))
    fragment = report_fragment(tournament, board, matches, links, urllib.parse.quote(folder.name))
    out.write_text(page(fragment, meta={"arena-seed": str(tournament.seed)}), encoding="utf-8")
    logged = sum(1 for _, m in matches if m.log_path)
    missing = f"; {logged - len(links)} logs not found" if logged > len(links) else ""
    say(f"wrote {out} ({len(matches)} matches; {len(links)} replay pages in {folder}{missing})")
    return out
