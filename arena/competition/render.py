"""A leaderboard drawn: as a text table, JSON and CSV (``arena results``), and the list of a competition's matches.

Only drawing: the data is :class:`~arena.competition.board.Leaderboard`'s
(:mod:`arena.competition.board`), so another view (the HTML report, the
server's pages) draws the same data.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from ..checks.hints import printable
from ..games import score_text
from .board import MIN_DEALS, Cell, Leaderboard, Standing
from .records import PENTANOMIAL
from .store import TournamentRow

NOT_ADMITTED_LINES = 8
"""Lines of a not-admitted bot's reason (the end of its build's output) shown under the leaderboard."""


# Rendering -----------------------------------------------------------------------
def caption(board: Leaderboard) -> str:
    """What the table's columns are, in a sentence or three."""
    per_match = f"{board.points_name} per match"
    ranked = (
        "Ranked by rating"
        if board.ranked_by == "rating"
        else f"Ranked by {per_match} (the rating may order bots differently)"
    )
    too_small = any(row.matches and math.isnan(row.rating_error) for row in board.standings)
    los = (
        "the chance that a bot is stronger than the next one down"
        if board.ranked_by == "rating"
        else f"the chance that a bot's {per_match} are truly more than the next one down's, from their spread over "
        "deals"
    )
    return (
        f"{ranked}: Elo from a Bradley-Terry fit of wins, draws and losses that weighs each opponent's "
        f"strength, 0 = the field's average; ± is its 95% interval, counting a duplicate deal once"
        + (f" (n too small: fewer than {MIN_DEALS} deals)" if too_small else "")
        + f". LOS: {los}. W-D-L: matches won, drawn, lost (a fault loses the match)."
    )


def _signed(value: float) -> str:
    return f"{round(value):+d}" if math.isfinite(value) else "-"


def _rating_error(row: Standing) -> str:
    if not row.matches:
        return "-"
    return "n too small" if math.isnan(row.rating_error) else f"± {row.rating_error:.0f}"


def percent(value: float) -> str:
    """A probability as a percentage with one decimal (``<0.1%``, ``>99.9%`` near the ends; ``""`` for NaN)."""
    if math.isnan(value):
        return ""
    if 0.0 < value < 0.001:
        return "<0.1%"
    if 0.999 < value < 1.0:
        return ">99.9%"
    return f"{100 * value:.1f}%"


def _mean(row: Standing) -> str:
    if math.isnan(row.mean):
        return "-"
    return f"{row.mean:.2f}"


def _faults(row: Standing) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(row.faults.items())) or "-"


def render_table(board: Leaderboard, *, width: int | None = None, pairwise: bool | None = None) -> str:
    """The leaderboard as text: the standings, a caption, and the pairwise matrix.

    ``width`` is the terminal's (default 100). The matrix is drawn when it
    fits in ``width``, always with ``pairwise=True``, never with ``False``.
    """
    from rich import box
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table
    from rich.text import Text

    width = width or 100
    console = Console(file=io.StringIO(), width=width, color_system=None, highlight=False, emoji=False)
    progress = f"{board.matches} matches" + (f" of {board.scheduled}" if board.scheduled is not None else "")
    table = Table(
        title=f"Leaderboard ({progress})", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("bot", overflow="fold", min_width=8)
    table.add_column("rating", justify="right", no_wrap=True)
    table.add_column("±95%", justify="right")
    table.add_column("LOS", justify="right", no_wrap=True)
    table.add_column("W-D-L", justify="right", no_wrap=True)
    table.add_column(f"{board.points_name}\nper match", justify="right")
    any_faults = any(row.faults for row in board.standings)
    if any_faults:
        table.add_column("faults", overflow="fold")
    if heading(board):
        console.print(Text(printable(heading(board))))
    for row in board.standings:
        cells: list[str | Text] = [
            str(row.rank),
            Text(printable(row.bot) + (" (DQ)" if row.disqualified else "")),
            _signed(row.rating) if row.matches else "-",
            _rating_error(row),
            percent(row.los_next),
            f"{row.wins}-{row.draws}-{row.losses}",
            _mean(row),
        ]
        table.add_row(*cells, *([_faults(row)] if any_faults else []))
    console.print(table)
    console.print()
    console.print(caption(board))
    for row in board.standings:
        if row.disqualified:
            console.print(Text(f"{printable(row.bot)} was disqualified: {row.disqualified}"))
    if board.not_admitted:
        console.print("Not admitted (tried again when their files change):")
        for name, reason in board.not_admitted.items():
            first, *rest = reason.splitlines() or [""]
            console.print(Text(f"  {printable(name)}: {printable(first)}"))
            for line in rest[-NOT_ADMITTED_LINES:]:
                console.print(Text(f"    {printable(line.strip())}"))
    names = [row.bot for row in board.standings]
    if len(names) > 1 and pairwise is None and 3 * len(names) > width:
        # Each of its columns takes three characters at least: it cannot fit, and measuring a matrix of 300 bots'
        # cells (rich measures every one) took longer than drawing the whole board.
        console.print()
        console.print(
            f"(The pairwise matrix of {len(names)} bots is wider than {width} columns: "
            "--pairwise shows it anyway; --format csv and json always have it.)"
        )
    elif len(names) > 1 and pairwise is not False:
        matrix = _pairwise_table(board, names)
        needed = Measurement.get(console, console.options.update(max_width=1 << 16), matrix).maximum
        console.print()
        if pairwise or needed <= width:
            wide = Console(file=console.file, width=max(width, needed), color_system=None, highlight=False)
            wide.print(matrix)
        else:
            console.print(
                f"(The pairwise matrix needs {needed} columns, more than {width}: "
                "--pairwise shows it anyway; --format csv and json always have it.)"
            )
    for note in board.notes:
        console.print(Text(printable(note)))
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    # rich pads a table's rows to its width and leaves a space where it wraps a line: none of it is text
    return "".join(line.rstrip() + "\n" for line in output.splitlines())


def _pairwise_table(board: Leaderboard, names: list[str]) -> Any:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    matrix = Table(
        title="Pairwise (row's W-D-L against column)", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False
    )
    matrix.add_column("bot", no_wrap=True)
    for rank in range(1, len(names) + 1):
        matrix.add_column(str(rank), justify="right", no_wrap=True)
    for rank, a in enumerate(names, start=1):
        cells = []
        for b in names:
            cell = board.pairwise[a].get(b)
            cells.append("" if cell is None else f"{cell.wins}-{cell.draws}-{cell.losses}" if cell.matches else "-")
        matrix.add_row(Text(f"{rank} {printable(a)}"), *cells)
    return matrix


def _competition_data(competition: TournamentRow | None) -> dict[str, Any]:
    if competition is None:
        return {}
    return {"competition": {"id": competition.id, "name": competition.name, "game": competition.game}}


def heading(board: Leaderboard) -> str:
    """The line above a recorded board's table: which competition it is of (empty for a board not recorded)."""
    c = board.competition
    if c is None:
        return ""
    return f"Competition {c.name!r}, tournament {c.id}: {c.game}" if c.name else f"Tournament {c.id}: {c.game}"


_STANDING_FIELDS = (
    "bot", "rank", "rating", "rating_error", "los_next", "deals", "matches", "wins", "draws", "losses", "points",
    "mean", "mean_low", "mean_high",
)  # fmt: skip
_CELL_FIELDS = ("matches", "wins", "draws", "losses", "points_for", "points_against")
_CELL_ESTIMATES = ("elo", "elo_error95", "los", "rating_difference", "rating_difference_error95")


def standing_data(row: Standing) -> dict[str, Any]:
    """A row of the standings as plain data (the fields of JSON answers, in their order; NaN kept)."""
    return {
        **{name: getattr(row, name) for name in _STANDING_FIELDS},
        "faults": dict(row.faults),
        "disqualified": row.disqualified,
    }


def to_json(board: Leaderboard) -> dict[str, Any]:
    """The leaderboard as plain data (NaN becomes ``null``)."""

    def clean(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    def cell_data(cell: Cell) -> dict[str, Any]:
        data = {name: getattr(cell, name) for name in _CELL_FIELDS}
        # the pentanomial counts when every deal of the two was a pair (null otherwise)
        pairs = {name: getattr(cell, name) for name in PENTANOMIAL}
        data["pairs"] = {**pairs, "pairs": cell.pairs} if cell.paired else None
        return {**data, **{name: getattr(cell, name) for name in _CELL_ESTIMATES}, "score": cell.score}

    data: dict[str, Any] = clean(
        {
            # Seeds are strings: a 64-bit integer loses its last digits in JavaScript's numbers.
            "seed": None if board.seed is None else str(board.seed),
            **_competition_data(board.competition),
            "matches": board.matches,
            "scheduled": board.scheduled,
            "points_name": board.points_name,
            "ranked_by": board.ranked_by,
            "min_deals": MIN_DEALS,
            "caption": caption(board),
            "standings": [{**standing_data(row), "score": row.score} for row in board.standings],
            "not_admitted": board.not_admitted,
            "notes": board.notes,
            "pairwise": {a: {b: cell_data(cell) for b, cell in row.items()} for a, row in board.pairwise.items()},
        }
    )
    return data


def render_csv(board: Leaderboard) -> str:
    """The standings as CSV, one row per bot, with wins, draws and losses against each opponent."""
    names = [row.bot for row in board.standings]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "rank", "bot", "rating", "rating_error95", "los_next", "deals", "matches", "wins", "draws", "losses",
            "score", "points", "mean", "mean_low", "mean_high", "faults", "disqualified",
            *(f"vs:{n}:{what}" for n in names for what in ("wins", "draws", "losses")),
        ]
    )  # fmt: skip
    for row in board.standings:
        cells: list[Any] = []
        for n in names:
            cell = board.pairwise[row.bot].get(n)
            cells += ["", "", ""] if cell is None or not cell.matches else [cell.wins, cell.draws, cell.losses]
        writer.writerow(
            [
                row.rank, row.bot, _csv_number(row.rating, 3), _csv_number(row.rating_error, 3),
                _csv_number(row.los_next, 6), row.deals, row.matches, row.wins, row.draws, row.losses,
                _csv_number(row.score, 6), _csv_number(row.points, 6),
                *(_csv_number(v, 6) for v in (row.mean, row.mean_low, row.mean_high)),
                ";".join(f"{k}={v}" for k, v in sorted(row.faults.items())), row.disqualified, *cells,
            ]
        )  # fmt: skip
    return out.getvalue()


def _csv_number(value: float, digits: int) -> str:
    return "" if not math.isfinite(value) else str(round(value, digits))


def render(board: Leaderboard, fmt: str, *, width: int | None = None, pairwise: bool | None = None) -> str:
    """The leaderboard in ``fmt``: ``table``, ``json`` or ``csv``."""
    if fmt == "json":
        return json.dumps(to_json(board), indent=2) + "\n"
    if fmt == "csv":
        return render_csv(board)
    return render_table(board, width=width, pairwise=pairwise)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def render_matches(report: dict[str, Any], fmt: str) -> str:
    """The list of matches (:func:`matches_report`) as a table, JSON or CSV.

    The table shows the points as ``A : B`` (Badugi's ``-930 : 930``: no
    separator that reads as a minus sign); CSV has one column per seat's
    points and the winner's name.
    """
    rows = report["matches"]
    if fmt == "json":
        return json.dumps(report, indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        fields = ["n", "key", "cycle", "deal", "leg", "a", "b", "points_a", "points_b", "winner", "winner_seat",
                  "seed", "faults", "log"]  # fmt: skip
        writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {
                    **row,
                    "points_a": _number(row["points_a"]),
                    "points_b": _number(row["points_b"]),
                    "winner": row["winner"] or "",
                    "winner_seat": row["winner_seat"] or "",
                    "faults": _fault_text(row),
                    "log": row["log"] or "",
                }
            )
        return out.getvalue()

    def cell(text: str) -> str:
        return printable(text).replace("\t", " ")

    lines = ["#\tmatch\tA\tB\tpoints A : B\twinner\tfaults\tlog"]
    for row in rows:
        points = score_text(row["points_a"], row["points_b"])
        lines.append(
            f"{row['n']}\t{cell(row['key'])}\t{cell(row['a'])}\t{cell(row['b'])}\t{points}"
            f"\t{cell(row['winner']) if row['winner'] else 'draw'}"
            f"\t{cell(_fault_text(row)) or '-'}\t{cell(row['log'] or '-')}"
        )
    return "\n".join(lines) + "\n"


def _fault_text(row: dict[str, Any]) -> str:
    return "; ".join(f"{f['seat']} {f['kind']}: {f['reason']}" for f in row["faults"])
