"""Charts for replay pages and tournament reports, drawn by matplotlib as inline SVG.

Every chart is an ``<svg>`` string to put straight into a page: no script,
no network, no file beside it. Text stays text (``svg.fonttype: none``), so
the page's font draws it and it can be selected; names (chosen by bot
authors) are never read as mathtext. The same data gives the same bytes
(fixed ids, no date).
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SEAT_COLOURS = ("#0e7490", "#a21caf")
"""Seat A and seat B, as the pages draw them."""
INK = "#0f172a"
DIM = "#64748b"
GRID = "#e2e8f0"
PALETTE = (
    "#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed",
    "#0891b2", "#db2777", "#65a30d", "#ea580c", "#4f46e5",
)  # fmt: skip
"""Colours of bots' lines (after ten they repeat with another line style)."""

_STYLE: dict[str, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "arena",
    "text.parse_math": False,
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.edgecolor": GRID,
    "axes.labelcolor": DIM,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.color": DIM,
    "ytick.color": DIM,
    "axes.grid": True,
    "grid.color": GRID,
    "grid.linewidth": 0.8,
    "legend.frameon": False,
}


def label(name: str, width: int = 28) -> str:
    """A bot's name as a chart label: printable, and cut to ``width`` characters."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in name)
    return clean if len(clean) <= width else clean[: width - 1] + "…"


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100)


def _svg(fig: Any, *, tight: bool = True) -> str:
    import matplotlib

    out = io.StringIO()
    fit: dict[str, Any] = {"bbox_inches": "tight", "pad_inches": 0.08} if tight else {}
    with matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None}, transparent=True, **fit)
    text = out.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    # Scale to the page's width: keep the viewBox, drop the fixed size.
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 class="chart"', text, count=1)


def _styled(build: Any) -> Any:
    import matplotlib

    with matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]
        return build()


@dataclass
class Track:
    """The summary track of a replay: its SVG and where its plot area lies (fractions of the width), drawn twice:
    wide for a laptop, and ``narrow`` (with its own ``nx0``, ``nx1``) for a phone, where the wide one's text
    would be scaled down to 4 px."""

    svg: str
    x0: float
    x1: float
    steps: int
    narrow: str = ""
    nx0: float = 0.0
    nx1: float = 1.0


_TRACK_SIZES = {
    # width, height (inches at 100 dpi), the plot's box (left, bottom, width, height), font size (points)
    "wide": (11.0, 1.75, (0.045, 0.26, 0.94, 0.56), 8.0),
    "narrow": (4.0, 2.3, (0.14, 0.21, 0.83, 0.58), 9.0),
}


def score_track(
    scores: Sequence[Sequence[float] | None],
    names: Sequence[str],
    faults: Sequence[float] = (),
    *,
    axis: str = "step",
    forfeit: Sequence[float] | None = None,
) -> Track:
    """Both seats' score, a line per seat, at each x (``axis``: ``step``, 0-based; or ``turn``, ``hand``...:
    x = k is the score after the k-th, 0 the start); faults marked where they happened, and ``forfeit``, the
    points the match ended on after a fault, drawn from the first fault to the end."""

    def build(size: str) -> tuple[str, float, float]:
        width, height, box, font = _TRACK_SIZES[size]
        fig = _figure(width, height)
        ax = fig.add_axes(box)
        xs = [i for i, s in enumerate(scores) if s is not None]
        last = max(1, len(scores) - 1)
        values = [float(v) for s in scores if s is not None for v in s]
        for seat in (0, 1):
            ys = [float(s[seat]) for s in scores if s is not None]
            if xs and axis == "step":
                ax.step(xs, ys, where="post", color=SEAT_COLOURS[seat], linewidth=1.6, label=label(names[seat]))
            elif xs:  # the score after each turn at its number, joined: turn k's change drawn across it
                marker = "o" if len(xs) <= 40 else None
                ax.plot(xs, ys, color=SEAT_COLOURS[seat], linewidth=1.6, marker=marker, markersize=3,
                        label=label(names[seat]))  # fmt: skip
            if forfeit is not None and faults and xs:
                ax.plot([faults[0], last], [forfeit[seat], forfeit[seat]], color=SEAT_COLOURS[seat],
                        linewidth=1.6, linestyle=(0, (1, 1.5)))  # fmt: skip
                values.append(float(forfeit[seat]))
        for step in faults:
            ax.axvline(step, color="#b91c1c", linewidth=1.4, linestyle=(0, (2, 2)))
        if forfeit is not None and faults:
            # Written on the side of the fault line with more room: at the right end it would be cut off.
            right = faults[0] > 0.6 * last
            ax.annotate("forfeit", (faults[0], 1), xycoords=("data", "axes fraction"), xytext=(-3 if right else 3, -2),
                        textcoords="offset points", va="top", ha="right" if right else "left", fontsize=font,
                        color="#b91c1c", annotation_clip=False)  # fmt: skip
        from matplotlib.ticker import MaxNLocator

        ax.set_xlim(0, last)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1, nbins=10 if size == "wide" else 5))
        if axis != "step":
            ax.set_xticks([t for t in ax.get_xticks() if 1 <= t <= last] or [last])
        # Scores in whole points get whole ticks (no 2.5 or -0.05 on a count of cards).
        integral = all(v == int(v) for v in values) if values else True
        ax.yaxis.set_major_locator(MaxNLocator(integer=integral, nbins=4, min_n_ticks=2))
        ax.set_xlabel(axis, fontsize=font, labelpad=1)
        ax.tick_params(labelsize=font, length=0)
        ax.grid(axis="x", visible=False)
        # The legend above the plot, not over it (it hid Badugi's axis labels).
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), fontsize=font, ncols=2, handlelength=1.2,
                  borderaxespad=0.2, borderpad=0.1, columnspacing=1.2)  # fmt: skip
        place = ax.get_position()
        return _svg(fig, tight=False), place.x0, place.x1

    wide, x0, x1 = _styled(lambda: build("wide"))
    narrow, nx0, nx1 = _styled(lambda: build("narrow"))
    per = "step" if axis == "step" else axis
    title = f"The score after each {per}: {label(names[0])} and {label(names[1])}"
    if faults:
        title += "; the dashed red line is a fault"
    if forfeit is not None and faults:
        title += " (the dotted lines: the forfeit's score)"
    title += ". Click to go to that " + per + "."
    # Both on one page: the narrow one's ids (clip paths, markers) must not be the wide one's.
    narrow = re.sub(r'(id="|url\(#|href="#)', r"\1n-", narrow)
    wide, narrow = (svg.replace('class="chart"', f'class="chart track-{size}"', 1) for svg, size in
                    ((wide, "wide"), (narrow, "narrow")))  # fmt: skip
    return Track(titled(wide, title), x0, x1, len(scores), titled(narrow, title), nx0, nx1)


def titled(svg: str, title: str) -> str:
    """``svg`` with a title (shown as a tooltip, read by screen readers as the chart's name)."""
    head, _, rest = svg.partition(">")
    return f'{head} role="img" aria-label="{html.escape(title)}"><title>{html.escape(title)}</title>{rest}'


def ratings_chart(rows: Sequence[Mapping[str, Any]]) -> str:
    """Each bot's rating with its 95% error bar, best at the top (``rows``: bot, rating, error, excluded)."""

    def build() -> str:
        fig = _figure(5.6, 0.36 * max(3, len(rows)) + 0.8)
        ax = fig.add_subplot()
        ys = list(range(len(rows)))[::-1]
        for y, row in zip(ys, rows, strict=True):
            error = row["error"]
            colour = DIM if row.get("excluded") else PALETTE[0]
            has_bar = error is not None and math.isfinite(error)
            ax.errorbar(
                [row["rating"]],
                [y],
                xerr=[[error], [error]] if has_bar else None,
                fmt="o",
                color=colour,
                ecolor=colour,
                elinewidth=2.2,
                capsize=4,
                markersize=7,
            )
            ax.annotate(f"{row['rating']:+.0f}", (row["rating"], y), xytext=(0, 7), textcoords="offset points",
                        ha="center", fontsize=8, color=INK)  # fmt: skip
        ax.set_yticks(ys, labels=[label(str(r["bot"])) for r in rows])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.axvline(0, color=DIM, linewidth=0.8)
        ax.set_xlabel("rating (Elo scale), with 95% error bars")
        ax.grid(axis="y", visible=False)
        fig.tight_layout()
        return _svg(fig)

    svg: str = _styled(build)
    return svg


def heatmap(names: Sequence[str], share: Sequence[Sequence[float | None]], text: Sequence[Sequence[str]]) -> str:
    """The pairwise matrix: row's share of the points against column (0..1) as colour, ``text`` in each cell."""

    def build() -> str:
        import numpy as np

        n = len(names)
        size = max(3.0, 0.5 * n + 1.6)
        fig = _figure(size + 1.4, size)
        ax = fig.add_subplot()
        grid = np.array([[math.nan if v is None else v for v in row] for row in share], dtype=float)
        image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1, aspect="equal")
        for i in range(n):
            for j in range(n):
                value = grid[i, j]
                ink = "white" if not math.isnan(value) and abs(value - 0.5) > 0.3 else INK
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize=8, color=ink)
        labels = [label(name, 18) for name in names]
        ax.set_xticks(range(n), labels=[f"{k + 1}" for k in range(n)])
        ax.set_yticks(range(n), labels=[f"{k + 1} {lab}" for k, lab in enumerate(labels)])
        ax.xaxis.tick_top()
        ax.grid(visible=False)
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.03)
        bar.set_label("row's share of the points against column", color=DIM)
        bar.outline.set_visible(False)
        fig.tight_layout()
        return _svg(fig)

    svg: str = _styled(build)
    return svg


def cycles_chart(series: Mapping[str, Sequence[float | None]], cycles: Sequence[int], points_name: str) -> str:
    """Each bot's points per match in each cycle, a line per bot."""

    def build() -> str:
        fig = _figure(12, 3.2)
        ax = fig.add_subplot()
        for k, (name, values) in enumerate(series.items()):
            xs = [c for c, v in zip(cycles, values, strict=True) if v is not None]
            ys = [v for v in values if v is not None]
            style = "-" if k < len(PALETTE) else "--"
            ax.plot(xs, ys, style, marker="o", markersize=4, linewidth=1.8, color=PALETTE[k % len(PALETTE)],
                    label=label(name, 22))  # fmt: skip
        ax.set_xlabel("cycle")
        ax.set_ylabel(f"{points_name} per match")
        if len(cycles) <= 20:
            ax.set_xticks(list(cycles))
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
        fig.tight_layout()
        return _svg(fig)

    svg: str = _styled(build)
    return svg
