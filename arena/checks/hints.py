"""Hints for a bot's author: what a fault most likely means, and the end of the bot's stderr.

The supervisor records *what* happened (``timeout: no answer within 25s``);
these say what a newcomer most often did to cause it, for ``arena play`` and
``arena check``: a bot that wrote nothing may not flush its output, text on
stdout belongs on stderr, a line with a null id answered a notice, an id is
sent back as the number it came as (not ``"1"``), and a bot that says nothing
or no JSON in a game with a plain-text protocol may have been written for
that game's original referee.
"""

from __future__ import annotations

from pathlib import Path

from ..games import Game
from ..supervisor.wires import WIRES

TYPE_CHECKING = False
if TYPE_CHECKING:  # (only named here: it imports trio, which `arena results` needs not)
    from ..supervisor.match import Fault

STDERR_LINES = 5
"""How many of the last lines of a bot's stderr are shown with its fault."""
SHOWN_CHARS = 300
"""The most characters of one line of a bot's output shown in a terminal."""

FLUSH = (
    "it wrote nothing on its standard output: does it flush after each line? "
    "(Python: print(..., flush=True); C: fflush(stdout); Java: System.out.flush(); Ruby: $stdout.sync = true)"
)
COMPUTING = (
    "it was still computing when its time ran out: an endless loop, or a search too long for the limits "
    "(a move's CPU time is move_s, plus what is left of its time bank; the first also has startup_s)"
)
EXITED = (
    "it exited before it answered: the end of its stderr above says why (an uncaught exception's traceback names "
    "the line of your code and the error)"
)
LEFT = "it exited with status 0 while requests were still coming: does it stop reading after one message or one match?"
CRASHED_BY = {
    ("SIGSEGV", "SIGBUS"): (
        "a segmentation fault: it read or wrote memory it does not own (an index past an array's end, a null or freed "
        "pointer); build with -g -fsanitize=address,undefined and feed it the exchange above to see the line"
    ),
    ("SIGABRT",): "it aborted: a failed assert, an exception nothing caught (C++), or memory corruption libc noticed",
    ("SIGFPE",): "an arithmetic error: an integer division or remainder by zero",
}
STDERR = "stdout carries only answers: write debug output to stderr (it is kept in the bot's stderr log)"
NOTICE = (
    'answer only requests (the messages that have an "id"), each with its own id; '
    "notices such as match_start get no answer"
)
ID_NUMBER = (
    'the id is a number: send back the request\'s id as it came, {"id": 1, ...}, not a string such as {"id": "1"}'
)
OBJECT = 'an answer is one JSON object per line: {"id": <the request\'s id>, "action": ...}'


def fault_hints(fault: Fault, game: Game, protocol: str, bytes_out: int, protocol_option: str) -> list[str]:
    """What ``fault`` most likely means, for the bot's author (may be empty).

    ``bytes_out`` is what the bot wrote on stdout in the match; ``protocol_option``
    is how the user names a bot's protocol where the hint is shown (``--protocol-a``).
    """
    reason = fault.reason
    hints: list[str] = []
    looks_like_text = False
    if fault.kind == "timeout" and (fault.machine_may_explain or "s of CPU (used " in reason):  # over its CPU
        hints.append(COMPUTING)
    elif fault.kind == "timeout" and bytes_out == 0:
        hints.append(FLUSH)
        looks_like_text = True
    elif fault.kind == "crash":
        hints += _crash_hints(reason)
    elif fault.kind == "invalid_json":
        hints.append(STDERR)
        looks_like_text = True
    elif fault.kind == "protocol_error" and reason.startswith("not an answer"):
        if "at `$.id`" in reason and "got `null`" not in reason:
            hints.append(ID_NUMBER)  # an id, of the wrong type ("1", 1.5, true)
        elif "at `$.id`" in reason or "`id`" in reason:
            hints.append(NOTICE)  # a null id or none: a notice answered
        else:
            hints.append(OBJECT)
            looks_like_text = "got `int`" in reason or "got `str`" in reason
    elif fault.kind == "protocol_error" and reason.startswith("answered id"):
        hints.append(NOTICE)
    if looks_like_text and protocol == "json":
        hints += [
            f"was it written for {game.title}'s original plain-text referee? run it with {protocol_option} {name} "
            f'(or protocol = "{name}" in its bot.toml)'
            for name, wire in WIRES.items()
            if wire.games and game.id in wire.games
        ]
    return hints


def _crash_hints(reason: str) -> list[str]:
    """What a crash's reason (``exited with code 1``, ``killed by SIGSEGV (signal 11...)``) most likely means."""
    for signals, hint in CRASHED_BY.items():
        if any(f"killed by {name} " in reason for name in signals):
            return [hint]
    if "exited with code 0" in reason:
        return [LEFT]
    return [EXITED] if "exited with code" in reason else []


TRACEBACK = "Traceback (most recent call last):"
TRACEBACK_LINES = 30
"""The most lines of a Python traceback shown from its top, when a bot's stderr ends with one."""


def stderr_tail(path: Path | None, lines: int = STDERR_LINES, *, label: str | None = None) -> list[str]:
    """The last ``lines`` lines of a bot's stderr log, under a heading naming the file (or ``label``).

    When it ends with a Python traceback, the whole traceback from its first
    line (up to ``TRACEBACK_LINES``: its end, where the error is, rather than
    its top when it is longer). Empty when there are none. The lines are made
    safe to print (a bot's stderr may hold terminal escapes) and cut to
    ``SHOWN_CHARS``.
    """
    if path is None:
        return []
    try:
        with path.open("rb") as log:
            # the tail only (the log may be 1 MiB), room for a traceback
            log.seek(max(0, log.seek(0, 2) - max(lines, TRACEBACK_LINES) * SHOWN_CHARS * 4))
            text = log.read().decode("utf-8", "replace").rstrip()
    except OSError:
        return []
    if not text:
        return []
    all_lines = text.splitlines()
    top = max((i for i, line in enumerate(all_lines) if line.startswith(TRACEBACK)), default=-1)
    if top >= 0 and len(all_lines) - top > lines:
        shown = all_lines[max(top, len(all_lines) - TRACEBACK_LINES) :]
    else:
        shown = all_lines[-lines:]
    return [f"stderr, last lines ({label or path}):", *("  " + printable(line) for line in shown)]


def printable(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` safe to print in a terminal: control characters escaped (no escape sequence gets through).

    Cut to ``limit`` characters, with an ellipsis when it was longer.
    """
    shown = "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in text[: limit + 1])
    return shown[:limit] + "…" if len(shown) > limit else shown


__all__ = ["STDERR_LINES", "fault_hints", "printable", "stderr_tail"]
