"""The leaderboard: standings, intervals, ratings, faults and the pairwise matrix.

Everything here is a pure function of the recorded matches
(:class:`~arena.competition.store.PlayedMatch`), so ``arena results DB`` shows the same
table the tournament printed, and works while a tournament is still writing.

How the numbers are made:

* **points**: the sum of a bot's points in the game's unit (RPS Poker: turns won);
* **W-D-L**: matches won, drawn, lost; a forfeit is always a loss for the bot
  that faulted (a double fault is a loss for both);
* **mean ± 95%**: points per match, with a Student-t interval over the
  tournament's independent units: a duplicate pair (both seatings of one deal)
  counts as one unit, because its two matches share their luck;
* **rating**: Bradley-Terry on the Elo scale (:mod:`arena.competition.ratings`), with a
  95% error bar; matches that both bots forfeited are left out;
* **faults** by kind; a bot with more than ``max_faults`` faults is
  disqualified: it plays no more, keeps the results it has, ranks below every
  bot that was not disqualified, and the leaderboard says why.

Bots rank by total points (as RPS Poker's challenge did), then mean, then rating.
"""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .._errors import StoreError
from .ratings import Outcome, fit
from .store import PlayedMatch, Store

_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""Student's t, 97.5% quantile, for 1..30 degrees of freedom."""


def t975(df: int) -> float:
    """The two-sided 95% Student-t quantile for ``df`` degrees of freedom."""
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    for limit, value in ((40, 2.021), (60, 2.000), (120, 1.980)):
        if df <= limit:
            return value
    return 1.960


@dataclass
class Cell:
    """How the row bot did against the column bot."""

    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points_for: float = 0.0
    points_against: float = 0.0

    @property
    def score(self) -> float:
        """Wins plus half the draws."""
        return self.wins + self.draws / 2


@dataclass
class Standing:
    """One row of the leaderboard."""

    bot: str
    rank: int = 0
    points: float = 0.0
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    mean: float = math.nan
    mean_low: float = math.nan
    mean_high: float = math.nan
    rating: float = 0.0
    rating_error: float = math.nan
    faults: dict[str, int] = field(default_factory=dict)
    disqualified: str = ""
    """Empty, or why the bot was disqualified."""


@dataclass
class Leaderboard:
    """Standings, the pairwise matrix, and how far the tournament has got."""

    standings: list[Standing]
    pairwise: dict[str, dict[str, Cell]]
    matches: int
    scheduled: int | None = None
    points_name: str = "points"
    seed: int | None = None
    """The tournament's seed, when the board is of a recorded tournament."""


def outcome_for(match: PlayedMatch, seat: str) -> str:
    """``"W"``, ``"D"`` or ``"L"`` for the bot in ``seat``."""
    if seat in match.forfeit:
        return "L"
    if match.winner is None:
        return "D"
    return "W" if match.winner == seat else "L"


def disqualifications(matches: Iterable[PlayedMatch], max_faults: int) -> dict[str, str]:
    """Bots with more than ``max_faults`` faults, each with the reason, as the leaderboard shows it."""
    counts: dict[str, Counter[str]] = {}
    for match in matches:
        for fault in match.faults:
            counts.setdefault(fault.bot, Counter())[fault.kind] += 1
    out = {}
    for bot, kinds in counts.items():
        total = sum(kinds.values())
        if total > max_faults:
            detail = ", ".join(f"{kind} x{n}" for kind, n in sorted(kinds.items()))
            out[bot] = f"{total} faults, more than the {max_faults} allowed ({detail})"
    return out


def leaderboard(
    names: Sequence[str],
    matches: Sequence[PlayedMatch],
    *,
    max_faults: int,
    scheduled: int | None = None,
    points_name: str = "points",
    prior_games: float | None = None,
) -> Leaderboard:
    """The leaderboard of ``names`` over ``matches`` (pure: the same matches give the same board)."""
    rows = {name: Standing(bot=name) for name in names}
    pairwise = {a: {b: Cell() for b in names if b != a} for a in names}
    units: dict[str, dict[str, list[float]]] = {name: {} for name in names}
    outcomes: list[Outcome] = []
    for match in matches:
        for seat, other in (("A", "B"), ("B", "A")):
            bot, opponent = match.bot(seat), match.bot(other)
            mine, theirs = match.points[0 if seat == "A" else 1], match.points[0 if other == "A" else 1]
            row = rows[bot]
            row.points += mine
            row.matches += 1
            cell = pairwise[bot][opponent]
            cell.matches += 1
            cell.points_for += mine
            cell.points_against += theirs
            result = outcome_for(match, seat)
            if result == "W":
                row.wins += 1
                cell.wins += 1
            elif result == "D":
                row.draws += 1
                cell.draws += 1
            else:
                row.losses += 1
                cell.losses += 1
            units[bot].setdefault(match.deal, []).append(mine)
        for fault in match.faults:
            faults = rows[fault.bot].faults
            faults[fault.kind] = faults.get(fault.kind, 0) + 1
        if len(match.forfeit) < 2:
            a, b = outcome_for(match, "A"), outcome_for(match, "B")
            score = 1.0 if a == "W" else 0.0 if b == "W" else 0.5
            outcomes.append(Outcome(match.bot_a, match.bot_b, score))
    ratings = fit(list(names), outcomes) if prior_games is None else fit(list(names), outcomes, prior_games=prior_games)
    banned = disqualifications(matches, max_faults)
    for name, row in rows.items():
        if row.matches:
            row.mean = row.points / row.matches
            per_unit = [sum(values) / len(values) for values in units[name].values()]
            if len(per_unit) >= 2:
                half = t975(len(per_unit) - 1) * statistics.stdev(per_unit) / math.sqrt(len(per_unit))
                row.mean_low, row.mean_high = row.mean - half, row.mean + half
        row.rating = ratings[name].elo
        row.rating_error = ratings[name].error95
        row.disqualified = banned.get(name, "")
    # Points per match decide: the same order as total points when every bot played as many
    # matches (a round-robin), and still fair when they did not (a gauntlet's challenger plays
    # more; a disqualified bot's opponents play fewer).
    order = sorted(
        rows.values(),
        key=lambda r: (bool(r.disqualified), -_finite(r.mean), -r.points, -r.rating, r.bot),
    )
    for rank, row in enumerate(order, start=1):
        row.rank = rank
    return Leaderboard(
        standings=order, pairwise=pairwise, matches=len(matches), scheduled=scheduled, points_name=points_name
    )


def _finite(value: float) -> float:
    return -math.inf if math.isnan(value) else value


# Rendering -------------------------------------------------------------
def _num(value: float, digits: int = 1) -> str:
    if math.isnan(value):
        return "-"
    return str(int(value)) if float(value).is_integer() and digits == 0 else f"{value:.{digits}f}"


def _interval(row: Standing) -> str:
    if math.isnan(row.mean):
        return "-"
    if math.isnan(row.mean_low):
        return f"{row.mean:.2f}"
    return f"{row.mean:.2f} ± {(row.mean_high - row.mean_low) / 2:.2f}"


def _faults(row: Standing) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(row.faults.items())) or "-"


def render_table(board: Leaderboard, *, width: int | None = None) -> str:
    """The leaderboard as text tables (standings, then the pairwise matrix)."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=io.StringIO(), width=width or 160, color_system=None, highlight=False)
    progress = f"{board.matches} matches" + (f" of {board.scheduled}" if board.scheduled is not None else "")
    table = Table(title=f"Leaderboard ({progress})", title_justify="left")
    for title, justify in (
        ("#", "right"),
        ("bot", "left"),
        (board.points_name, "right"),
        ("W-D-L", "right"),
        ("mean ± 95%", "right"),
        ("rating ± 95%", "right"),
        ("faults", "left"),
    ):
        table.add_column(title, justify=justify)  # type: ignore[arg-type]
    for row in board.standings:
        table.add_row(
            str(row.rank),
            row.bot + (" (DQ)" if row.disqualified else ""),
            _num(row.points, 0),
            f"{row.wins}-{row.draws}-{row.losses}",
            _interval(row),
            f"{row.rating:+.0f} ± {row.rating_error:.0f}" if row.matches else "-",
            _faults(row),
        )
    console.print(table)
    for row in board.standings:
        if row.disqualified:
            console.print(f"{row.bot} was disqualified: {row.disqualified}")
    names = [row.bot for row in board.standings]
    if len(names) > 1:
        matrix = Table(
            title="Pairwise (row's W-D-L vs column)",
            title_justify="left",
        )
        matrix.add_column("bot")
        for rank in range(1, len(names) + 1):
            matrix.add_column(str(rank), justify="right")
        for rank, a in enumerate(names, start=1):
            cells = []
            for b in names:
                cell = board.pairwise[a].get(b)
                cells.append("" if cell is None else f"{cell.wins}-{cell.draws}-{cell.losses}" if cell.matches else "-")
            matrix.add_row(f"{rank} {a}", *cells)
        console.print(matrix)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    return output


def to_json(board: Leaderboard) -> dict[str, Any]:
    """The leaderboard as plain data (NaN becomes ``null``)."""

    def clean(value: Any) -> Any:
        if isinstance(value, float) and math.isnan(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    data: dict[str, Any] = clean(
        {
            # Seeds are strings: a 64-bit integer loses its last digits in JavaScript's numbers.
            "seed": None if board.seed is None else str(board.seed),
            "matches": board.matches,
            "scheduled": board.scheduled,
            "points_name": board.points_name,
            "standings": [asdict(row) for row in board.standings],
            "pairwise": {
                a: {b: {**asdict(cell), "score": cell.score} for b, cell in row.items()}
                for a, row in board.pairwise.items()
            },
        }
    )
    return data


def render_csv(board: Leaderboard) -> str:
    """The standings as CSV, one row per bot, with a ``vs:<bot>`` score column per opponent."""
    names = [row.bot for row in board.standings]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "rank", "bot", "points", "matches", "wins", "draws", "losses", "mean", "mean_low", "mean_high",
            "rating", "rating_error95", "faults", "disqualified", *(f"vs:{n}" for n in names),
        ]
    )  # fmt: skip
    for row in board.standings:
        writer.writerow(
            [
                row.rank, row.bot, row.points, row.matches, row.wins, row.draws, row.losses,
                *(("" if math.isnan(v) else round(v, 6)) for v in (row.mean, row.mean_low, row.mean_high)),
                round(row.rating, 3), "" if math.isnan(row.rating_error) else round(row.rating_error, 3),
                ";".join(f"{k}={v}" for k, v in sorted(row.faults.items())), row.disqualified,
                *(
                    "" if n == row.bot or not board.pairwise[row.bot][n].matches
                    else f"{board.pairwise[row.bot][n].score:g}/{board.pairwise[row.bot][n].matches}"
                    for n in names
                ),
            ]
        )  # fmt: skip
    return out.getvalue()


def render(board: Leaderboard, fmt: str) -> str:
    """The leaderboard in ``fmt``: ``table``, ``json`` or ``csv``."""
    if fmt == "json":
        return json.dumps(to_json(board), indent=2) + "\n"
    if fmt == "csv":
        return render_csv(board)
    return render_table(board)


def board_from_store(store: Store, tid: int | None = None) -> Leaderboard:
    """The leaderboard of tournament ``tid`` (the latest when ``None``) in ``store``."""
    tournament = store.tournament(tid)
    if tournament is None:
        raise StoreError(f"{store.path} holds no tournament" + (f" with id {tid}" if tid is not None else ""))
    config = tournament.config
    board = leaderboard(
        [bot.name for bot in store.bots(tournament.id)],
        store.matches(tournament.id),
        max_faults=int(config.get("max_faults", 0)),
        scheduled=config.get("scheduled"),
        points_name=str(config.get("points_name", "points")),
    )
    board.seed = tournament.seed
    return board


def match_rows(matches: Sequence[PlayedMatch]) -> list[dict[str, Any]]:
    """One plain row per match, numbered from 1 as ``arena replay --db DB N`` takes them."""
    return [
        {
            "n": number,
            "key": m.key,
            "a": m.bot_a,
            "b": m.bot_b,
            "points": list(m.points),
            "winner": m.winner,
            "seed": str(m.seed),  # a string: JavaScript's numbers would round a 64-bit seed
            "faults": "; ".join(f"{f.seat} {f.kind}: {f.reason}" for f in m.faults),
            "log": m.log_path or "",
        }
        for number, m in enumerate(matches, start=1)
    ]


def render_matches(matches: Sequence[PlayedMatch], fmt: str) -> str:
    """The list of matches with their logs, as a table (tab-separated), JSON or CSV."""
    rows = match_rows(matches)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["n"], lineterminator="\n")
        writer.writeheader()
        writer.writerows({**row, "points": " ".join(f"{p:g}" for p in row["points"])} for row in rows)
        return out.getvalue()
    lines = ["#\tmatch\tA\tB\tpoints\twinner\tfaults\tlog"]
    for row in rows:
        points = "-".join(f"{p:g}" for p in row["points"])
        lines.append(
            f"{row['n']}\t{row['key']}\t{row['a']}\t{row['b']}\t{points}\t{row['winner'] or 'draw'}"
            f"\t{row['faults'] or '-'}\t{row['log'] or '-'}"
        )
    return "\n".join(lines) + "\n"
