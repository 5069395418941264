"""Following matches while they are played: a log read as it is written, and ``arena tournament --watch``.

A log is written out at every step where :data:`~arena.supervisor.matchlog.LIVE_ENV`
is set (a competition server sets it; so does ``--watch``): :class:`LogTail`
reads its whole records as they come, plain or compressed (a sync flush per
step lets the compressed stream be read up to there).
"""

from __future__ import annotations

import contextlib
import json
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol import SEATS

from ._render import Renderer, Seg, renderer_for

READ_BYTES = 4 << 20
"""The most of a log read at once (the next read goes on)."""
WATCH_POLL_S = 0.3
"""How often ``--watch`` looks for new records and for the next match."""


class LogTail:
    """The whole records of a log being written, as they are written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self._partial = b""
        self._inflate: Any = zlib.decompressobj(wbits=31) if path.suffix == ".gz" else None

    def read(self) -> list[dict[str, Any]]:
        """The records written since the last read (none when the file is missing or not a log)."""
        try:
            with self.path.open("rb") as file:
                file.seek(self.offset)
                data = file.read(READ_BYTES)
        except OSError:
            return []
        self.offset += len(data)
        if self._inflate is not None:
            try:
                data = self._inflate.decompress(data)
            except zlib.error:
                return []
        *lines, self._partial = (self._partial + data).split(b"\n")
        out = []
        for line in lines:
            with contextlib.suppress(ValueError):
                if line.strip():
                    out.append(json.loads(line))
        return out


def words(segments: list[Seg]) -> str:
    """Segments as one line, each card by its face with a space around it."""
    return "".join(f" {s['face']} " if "face" in s else str(s.get("t", "")) for s in segments).strip()


class Narrator:
    """One match's records as lines for a terminal."""

    def __init__(self) -> None:
        self.renderer: Renderer = renderer_for("")
        self.asked: dict[str, dict[str, Any]] = {}
        self.names = ["A", "B"]

    def line(self, record: dict[str, Any]) -> str | None:
        """The line for ``record`` (``None``: nothing to show)."""
        kind, seat = record.get("type"), str(record.get("seat", ""))
        if kind == "header":
            self.renderer = renderer_for(str(record.get("game", "")))
            bots = {b.get("seat"): str(b.get("name", "")) for b in record.get("bots", []) if isinstance(b, dict)}
            self.names = [bots.get(s, s) for s in SEATS]
            return f"-- {record.get('match_id', '')}: {self.names[0]} (A) against {self.names[1]} (B)"
        if kind == "send" and isinstance(record.get("msg"), dict):
            msg = record["msg"]
            if msg.get("type") in ("match_start", "match_end", "quit"):
                return None
            if "id" in msg:
                self.asked[seat] = msg
            return f"  {seat} {'asked' if 'id' in msg else 'told '} {words(self.renderer.message(msg))}"
        if kind == "recv":
            if "msg" not in record:
                return f"  {seat} wrote {str(record.get('raw', ''))[:80]!r}"
            action = record["msg"].get("action") if isinstance(record["msg"], dict) else None
            return f"  {seat} answers {words(self.renderer.action(self.asked.get(seat), action))}"
        if kind == "fault":
            return f"  FAULT {seat} {record.get('kind')}: {record.get('reason')}"
        if kind == "result":
            result = {k: record.get(k) for k in ("points", "winner", "forfeit", "reason")}
            return "  Result: " + words(self.renderer.result(result, (self.names[0], self.names[1])))
        return None


def follow(folder: Path, since: float, stop: threading.Event, say: Callable[[str], None] = print) -> None:
    """Show the matches logged under ``folder`` from ``since`` (Unix time), one after the other, until ``stop``.

    The match shown is the newest begun; once it ends, the next newest.
    """
    done: set[Path] = set()
    tail: LogTail | None = None
    narrator = Narrator()
    while True:
        stopping = stop.wait(WATCH_POLL_S)
        if tail is None:
            found = _newest(folder, since, done)
            if found is not None:
                tail, narrator = LogTail(found), Narrator()
        if tail is not None:
            for record in tail.read():
                line = narrator.line(record)
                if line is not None:
                    say(line)
                if record.get("type") == "result":
                    done.add(tail.path)
                    tail = None
                    break
        if stopping:
            return


def _newest(folder: Path, since: float, done: set[Path]) -> Path | None:
    """The log under ``folder`` (or a ``tournament-N`` folder in it) begun last, after ``since``, not yet shown."""
    best: tuple[float, Path] | None = None
    with contextlib.suppress(OSError):
        folders = [folder, *(p for p in folder.glob("tournament-*") if p.stat().st_mtime >= since)]
        for place in folders:
            for path in place.glob("*.jsonl*"):
                with contextlib.suppress(OSError):
                    made = path.stat().st_mtime
                    if made >= since and path not in done and (best is None or made > best[0]):
                        best = (made, path)
    return best[1] if best else None
