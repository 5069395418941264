"""The tournament report: ``arena results DB --html report.html``.

One self-contained page built on the leaderboard's data
(:func:`arena.competition.results.board_from_store`): standings with ratings
and their error bars as a chart, the pairwise results as a heatmap, points
per cycle, faults per bot with their reasons, and every match with a link to
its replay page (written into a folder beside the report). The charts are
inline SVG drawn by matplotlib: no script, no network.

It lives here, above :mod:`arena.competition`, because it draws replays;
``--html`` is added to ``arena results`` by :func:`extend_results`, so the
competition's command line never imports upward.
"""

from __future__ import annotations

import argparse
import html
import math
import urllib.parse
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from .._errors import StoreError
from ..competition.results import Leaderboard, board_from_store, chosen_competition, numbered_matches
from ..competition.store import PlayedMatch, Store, TournamentRow
from ..games import score_text
from ._charts import cycles_chart, heatmap, ratings_chart
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
    db: Path, matches: Sequence[Numbered], folder: Path, say: Callable[[str], None] = print
) -> dict[int, str]:
    """A replay page per match with a log, in ``folder`` (pages newer than their log are kept); number -> file name."""
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
                out.write_text(match_page(load_log(log_path), other_leg=leg), encoding="utf-8")
            except StoreError as exc:
                say(f"no replay of match {number}: {exc}")
                continue
            except Exception as exc:  # a log of another arena must not stop the report
                say(f"no replay of match {number} ({played.key}): {type(exc).__name__}: {exc}")
                continue
        written[number] = name
    return written


def _standings(board: Leaderboard) -> str:
    rows = []
    for r in board.standings:
        interval = "–" if math.isnan(r.mean) else f"{r.mean:.2f}"
        if not math.isnan(r.mean_low):
            interval += f" ± {(r.mean_high - r.mean_low) / 2:.2f}"
        rating = f"{r.rating:+.0f} ± {r.rating_error:.0f}" if r.matches and math.isfinite(r.rating_error) else "–"
        faults = ", ".join(f"{k} {n}" for k, n in sorted(r.faults.items())) or "–"
        dq = f' <span class="dq" title="{_esc(r.disqualified)}">DQ</span>' if r.disqualified else ""
        rows.append(
            f'<tr><td class="num">{r.rank}</td><td>{_esc(r.bot)}{dq}</td><td class="num">{_num(r.points)}</td>'
            f'<td class="num">{r.wins}-{r.draws}-{r.losses}</td><td class="num">{interval}</td>'
            f'<td class="num">{rating}</td><td>{_esc(faults)}</td></tr>'
        )
    return (
        '<table class="grid" id="standings"><thead><tr><th class="num">#</th><th>bot</th>'
        f'<th class="num">{_esc(board.points_name)}</th><th class="num">W-D-L</th>'
        '<th class="num">mean ± 95%</th><th class="num">rating ± 95%</th><th>faults</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _heatmap(board: Leaderboard) -> str:
    names = [r.bot for r in board.standings]
    share: list[list[float | None]] = []
    text: list[list[str]] = []
    for a in names:
        share.append([])
        text.append([])
        for b in names:
            cell = board.pairwise[a].get(b)
            if cell is None or not cell.matches:
                share[-1].append(None)
                text[-1].append("")
            else:
                share[-1].append(cell.score / cell.matches)
                text[-1].append(f"{cell.wins}-{cell.draws}-{cell.losses}")
    return heatmap(names, share, text)


def _cycles(board: Leaderboard, matches: Sequence[PlayedMatch]) -> str:
    cycles = sorted({m.cycle for m in matches})
    totals: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for m in matches:
        totals[m.bot_a][m.cycle].append(m.points[0])
        totals[m.bot_b][m.cycle].append(m.points[1])
    series = {
        r.bot: [sum(totals[r.bot][c]) / len(totals[r.bot][c]) if totals[r.bot][c] else None for c in cycles]
        for r in board.standings
    }
    return cycles_chart(series, cycles, board.points_name)


def _faults(matches: Sequence[Numbered], links: dict[int, str], href: str) -> str:
    by_bot: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for number, m in matches:
        for f in m.faults:
            by_bot[f.bot].append((number, f.kind, f.reason))
    if not by_bot:
        return '<p class="muted">No bot faulted.</p>'
    rows = []
    for bot in sorted(by_bot):
        for kind in sorted({k for _, k, _ in by_bot[bot]}):
            found = [(n, reason) for n, k, reason in by_bot[bot] if k == kind]
            examples = []
            for n, reason in found[:3]:
                where = f'<a href="{href}/{links[n]}#fault">match {n}</a>' if n in links else f"match {n}"
                examples.append(f"{where}: {_esc(reason[:300])}")
            rows.append(
                f'<tr><td>{_esc(bot)}</td><td>{_esc(kind)}</td><td class="num">{len(found)}</td>'
                f'<td class="fault-text">{"<br>".join(examples)}</td></tr>'
            )
    return (
        '<table class="grid" id="faults"><thead><tr><th>bot</th><th>fault</th><th class="num">times</th>'
        f"<th>reasons (first three)</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _matches(matches: Sequence[Numbered], links: dict[int, str], href: str) -> str:
    rows = []
    for number, m in matches:
        winner = {"A": m.bot_a, "B": m.bot_b}.get(m.winner or "", "draw" if not m.forfeit else "nobody")
        faults = "; ".join(f"{f.seat} {f.kind}" for f in m.faults)
        replay = f'<a class="replay" href="{href}/{links[number]}">replay</a>' if number in links else "–"
        rows.append(
            f'<tr><td class="num">{number}</td><td>{m.cycle}</td><td>{_esc(m.bot_a)}</td><td>{_esc(m.bot_b)}</td>'
            f'<td class="num">{score_text(*m.points)}</td><td>{_esc(winner)}</td>'
            f'<td class="fault-text">{_esc(faults)}</td><td><code>{m.seed}</code></td><td>{replay}</td></tr>'
        )
    return (
        '<table class="grid" id="matches"><thead><tr><th class="num">#</th><th>cycle</th><th>A</th><th>B</th>'
        '<th class="num">points</th><th>winner</th><th>faults</th><th>seed</th><th></th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def report_fragment(
    tournament: TournamentRow, board: Leaderboard, matches: Sequence[Numbered], links: dict[int, str], href: str
) -> Fragment:
    """The report as page parts (``links``: match number -> replay file, under ``href``)."""
    progress = f"{board.matches} matches" + (f" of {board.scheduled}" if board.scheduled else "")
    sections = [
        f"""<header class="top"><h1>{_esc(tournament.name or "Tournament")}: {_esc(tournament.game)}</h1>
<div class="sub">tournament {tournament.id} &middot; seed <code id="seed">{tournament.seed}</code> &middot;
{progress} &middot; {len(board.standings)} bots &middot; started {_esc(tournament.created_at)}</div></header>
<main class="report">""",
        f'<section class="panel wide"><h2>Standings</h2>{_standings(board)}</section>',
        f'<section class="panel"><h2>Ratings</h2><div id="ratings-chart">{ratings_chart(_rating_rows(board))}</div>'
        '<p class="muted">Bradley-Terry ratings on the Elo scale; bars are 95% intervals.</p></section>',
        f'<section class="panel"><h2>Pairwise</h2><div id="heatmap">{_heatmap(board)}</div>'
        '<p class="muted">Each cell: the row bot\'s W-D-L against the column bot, coloured by its share of '
        "the score (blue: the row bot did better).</p></section>",
    ]
    if matches:
        sections.append(
            f'<section class="panel wide"><h2>{_esc(board.points_name.capitalize())} per match, cycle by cycle</h2>'
            f'<div id="cycles-chart">{_cycles(board, [m for _, m in matches])}</div></section>'
        )
    sections.append(f'<section class="panel wide"><h2>Faults</h2>{_faults(matches, links, href)}</section>')
    sections.append(f'<section class="panel wide"><h2>Matches</h2>{_matches(matches, links, href)}</section></main>')
    title = f"{tournament.name or 'Tournament'}: {tournament.game} report"
    head = f"<style>\n{asset('base.css')}\n{asset('report.css')}\n</style>"
    return Fragment(title=title, head=head, body="\n".join(sections))


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
    links = write_replays(db, matches, folder, say)
    fragment = report_fragment(tournament, board, matches, links, urllib.parse.quote(folder.name))
    out.write_text(page(fragment, meta={"arena-seed": str(tournament.seed)}), encoding="utf-8")
    logged = sum(1 for _, m in matches if m.log_path)
    missing = f"; {logged - len(links)} logs not found" if logged > len(links) else ""
    say(f"wrote {out} ({len(matches)} matches; {len(links)} replay pages in {folder}{missing})")
    return out


def extend_results(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Give ``arena results`` (registered by :mod:`arena.competition.cli`) the ``--html`` option."""
    parser = sub.choices.get("results")
    if parser is None:
        return
    parser.add_argument(
        "--html",
        type=Path,
        metavar="REPORT.html",
        help="write the tournament's report page (charts, heatmap, faults, every match with its replay beside it)",
    )
    plain = parser.get_default("handler")

    def handler(args: argparse.Namespace) -> int:
        if args.html is None:
            result: int = plain(args)
            return result
        write_report(Path(args.db), args.html, args.tournament, name=args.name)
        return 0

    parser.set_defaults(handler=handler)
