"""The terminal viewer: frames drawn with rich, stepped by key or played at a speed."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from protocol import SEATS

from ..games import HIDDEN, Zone, generic_table, score_text
from ._render import Renderer, Seg
from ._timeline import Event, Frame, Timeline

_CARD_STYLE = {
    "red": "bold white on red3",
    "blue": "bold white on blue3",
    "green": "bold white on green4",
    "black": "bold black on grey85",
    "purple": "bold white on purple4",
    "orange": "bold black on orange1",
    "yellow": "bold black on yellow1",
}
_SEAT_STYLE = ("bold cyan", "bold magenta")


def segments_text(segments: list[Seg], *, colour: bool = True) -> Text:
    """Segments as a rich ``Text``: cards boxed in their colour (bracketed without colour), field names dim."""
    out = Text()
    for seg in segments:
        if "face" in seg and colour:
            out.append(f" {seg['face']} ", style=_CARD_STYLE.get(str(seg.get("c")), "reverse"))
            out.append(" ")
        elif "face" in seg:
            out.append(f"[{seg['face']}] ")
        elif seg.get("k"):
            out.append(str(seg["t"]), style="dim")
        else:
            out.append(str(seg["t"]))
    out.rstrip()
    return out


def event_text(event: Event, renderer: Renderer, names: tuple[str, str], *, colour: bool = True) -> Text:
    """One line for an event."""
    line = Text("  ")
    if event.seat is not None:
        line.append(SEATS[event.seat], style=_SEAT_STYLE[event.seat])
    if event.kind == "request":
        line.append(" asked   ", style="dim")
        line.append_text(segments_text(colour=colour, segments=renderer.message(event.msg or {})))
    elif event.kind == "answer":
        line.append(" answers ", style="dim")
        line.append_text(segments_text(colour=colour, segments=renderer.action(event.msg, event.action)))
    elif event.kind == "notice":
        line.append(" told    ", style="dim")
        line.append_text(segments_text(colour=colour, segments=renderer.message(event.msg or {})))
    elif event.kind == "fault":
        line.append(" FAULT ", style="bold white on red")
        line.append(" " + event.text, style="red")
    elif event.kind == "narration":
        line.append("» " + event.text, style="italic")
    elif event.kind == "result":
        line.append("Result: ", style="bold")
        line.append_text(segments_text(colour=colour, segments=renderer.result(event.msg or {}, names)))
    return line


def frame_lines(timeline: Timeline, index: int, renderer: Renderer, *, colour: bool = True) -> list[Text]:
    """The lines that show frame ``index``: a heading, its events, the score."""
    frame: Frame = timeline.frames[index]
    heading = Text(f"[{index + 1}/{len(timeline.frames)}] ", style="dim")
    heading.append(frame.title, style="bold")
    lines = [heading]
    lines += [event_text(e, renderer, timeline.names, colour=colour) for e in frame.events]
    if frame.score is not None:
        score = Text("  score  ", style="dim")
        score.append(f"{timeline.names[0]} ", style=_SEAT_STYLE[0])
        score.append(score_text(*frame.score), style="bold")
        score.append(f" {timeline.names[1]}", style=_SEAT_STYLE[1])
        if timeline.seat is not None:
            score.append("  (as this seat was told)", style="dim")
        lines.append(score)
    lines += table_lines(timeline, frame)
    return lines


def table_lines(timeline: Timeline, frame: Frame) -> list[Text]:
    """The generic table after ``frame``, in words, for a game that shows it: the table's, then each seat's.

    Drawn for the seats the timeline is of: one seat's replay (``--seat``) shows the other's private part as
    ``hidden``, as the page does.
    """
    if frame.shown is None:
        return []
    seen = frozenset({0, 1}) if timeline.seat is None else frozenset({timeline.seat})
    table = generic_table(frame.shown, seen)
    rows: list[tuple[str, int | None, Any, Any]] = [("table", None, table["info"], table["center"])]
    rows += [(timeline.names[s], s, part["stats"], part["zones"]) for s, part in enumerate(table["seats"])]
    lines = []
    for label, seat, stats, zones in rows:
        line = Text("  ")
        line.append(f"{label}: ", style="dim" if seat is None else _SEAT_STYLE[seat])
        line.append(" · ".join([*(f"{k} {v}" for k, v in stats), *(_zone_words(z) for z in zones)]))
        lines.append(line)
    return lines


def _zone_words(zone: Zone) -> str:
    if zone.get("note") == HIDDEN and not zone["cards"]:
        return f"{zone['label']} (hidden)"
    return f"{zone['label']} {' '.join(zone['cards']) or '-'}"


def header_lines(timeline: Timeline) -> list[Text]:
    """What the match is: game, seed, the two bots, and where the frames come from."""
    lines = [Text(f"{timeline.title} ({timeline.game}), seed {timeline.seed}", style="bold")]
    for seat in (0, 1):
        line = Text(f"  {SEATS[seat]}: ", style=_SEAT_STYLE[seat])
        line.append(timeline.names[seat])
        lines.append(line)
    if timeline.seat is not None:
        lines.append(Text(f"Only what seat {SEATS[timeline.seat]} was sent and answered.", style="yellow"))
    if timeline.source == "log":
        lines.append(Text(f"Shown as logged, without the rules' narration: {timeline.note}", style="yellow"))
    return lines


def read_key() -> str:
    """One key from the terminal, without waiting for Enter where the terminal allows."""
    try:
        import termios
        import tty

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError):
        return (sys.stdin.readline() or "q")[:1] or "\n"
    try:
        tty.setcbreak(fd)
        key = sys.stdin.read(1)
        if key == "\x1b":  # arrow keys: ESC [ C / ESC [ D
            key += sys.stdin.read(2)
        return key
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


HELP = "[Enter/space/→] next  [b/←] back  [p] play to the end  [q] quit"


def show(
    timeline: Timeline,
    renderer: Renderer,
    console: Console,
    *,
    speed: float | None,
    interactive: bool,
    key: Callable[[], str] = read_key,
) -> None:
    """Draw the timeline: step by key when ``interactive``, else one frame every ``speed`` seconds."""
    for line in header_lines(timeline):
        console.print(line)
    if interactive and speed is None:
        console.print(Text(HELP, style="dim"))
    index = 0
    playing = not interactive or speed is not None
    delay = speed if speed is not None else (0.6 if interactive else 0.0)
    while 0 <= index < len(timeline.frames):
        console.print()
        for line in frame_lines(timeline, index, renderer, colour=console.color_system is not None):
            console.print(line)
        if index == len(timeline.frames) - 1:
            break
        if playing:
            if delay:
                time.sleep(delay)
            index += 1
            continue
        pressed = key()
        if pressed in ("q", "Q", "\x04", ""):
            break
        if pressed in ("b", "B", "\x1b[D"):
            index = max(0, index - 1)
        elif pressed in ("p", "P"):
            playing = True
            index += 1
        else:
            index += 1
    with contextlib.suppress(Exception):
        console.file.flush()
