"""A match log read back: its header, what each seat was sent, and what answered each request."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from protocol import SEATS

from .._errors import ConfigError
from ..supervisor.matchlog import LOG_FORMAT, read_log

RAW_KEPT = 1000
"""Characters of a non-JSON line that the log keeps (``arena.supervisor.match``)."""


@dataclass
class Sent:
    """One message the arena sent to a seat, and where it is in the log."""

    line: int
    """Line number in the log file (1-based)."""
    msg: dict[str, Any]

    @property
    def is_request(self) -> bool:
        """Whether the message asked for an answer."""
        return "id" in self.msg


@dataclass
class Received:
    """The line a seat wrote in answer to a request (or that faulted it)."""

    line: int
    msg: Any = None
    raw: str | None = None
    unasked: bool = False
    """Whether the bot wrote the line before the request was sent (a protocol error)."""
    cut: bool = False
    """Whether the log kept only the line's start (it says so; older logs are judged by the kept length)."""

    @property
    def complete(self) -> bool:
        """Whether the log holds the whole line (a long line that is no answer is cut)."""
        return self.raw is None or (not self.cut and len(self.raw) < RAW_KEPT)

    def as_bytes(self) -> bytes:
        """The line as the bot wrote it (JSON re-encoded compactly)."""
        if self.raw is not None:
            return self.raw.encode()
        return msgspec.json.encode(self.msg)

    @property
    def action(self) -> Any:
        """The ``action`` of a JSON answer (``None`` when there is none)."""
        return self.msg.get("action") if isinstance(self.msg, dict) else None


@dataclass
class LoggedMatch:
    """Everything a match log says, indexed for replay."""

    path: Path
    header: dict[str, Any]
    sent: tuple[list[Sent], list[Sent]] = field(default_factory=lambda: ([], []))
    """Messages sent to seat A and to seat B, in order."""
    answers: tuple[list[Received | None], list[Received | None]] = field(default_factory=lambda: ([], []))
    """Per seat, the line that answered its k-th request (``None``: it wrote none)."""
    faults: list[dict[str, Any]] = field(default_factory=list)
    fault_lines: list[int] = field(default_factory=list)
    result: dict[str, Any] | None = None
    result_line: int = 0
    game_error: str | None = None
    """What the game's own code did wrong when it ended the match (its ``game_error`` record), if it did."""
    game_error_line: int = 0
    stderr: list[dict[str, Any]] = field(default_factory=list)
    """The ``stderr`` records: what each seat wrote to stderr during the match, with times."""
    records: list[dict[str, Any]] = field(default_factory=list)
    _requests: list[tuple[int, list[Sent]] | None] = field(default_factory=lambda: [None, None], repr=False)

    @property
    def game(self) -> str:
        """Game id with rules version, as logged."""
        return str(self.header.get("game", ""))

    @property
    def seed(self) -> int:
        return int(self.header["seed"])

    @property
    def match_id(self) -> str:
        return str(self.header.get("match_id", ""))

    def bot(self, seat: int) -> dict[str, Any]:
        """The header's entry for ``seat``."""
        bots: list[dict[str, Any]] = self.header.get("bots", [])
        for bot in bots:
            if bot.get("seat") == SEATS[seat]:
                return bot
        return {"seat": SEATS[seat], "name": SEATS[seat], "protocol": "json", "limits": {}}

    def name(self, seat: int) -> str:
        return str(self.bot(seat).get("name", SEATS[seat]))

    def requests(self, seat: int) -> list[Sent]:
        """The requests sent to ``seat``, in order."""
        cached = self._requests[seat]
        if cached is None or cached[0] != len(self.sent[seat]):  # (indexed once, after the log is read)
            cached = (len(self.sent[seat]), [s for s in self.sent[seat] if s.is_request])
            self._requests[seat] = cached
        return cached[1]


def load_log(path: Path) -> LoggedMatch:
    """Read and index the log at ``path`` (plain or ``.gz``)."""
    try:
        records = read_log(path)
    except FileNotFoundError:
        raise ConfigError(f"no match log at {path}") from None
    except (OSError, ValueError, EOFError) as exc:
        raise ConfigError(f"{path} is not a readable match log: {exc}") from None
    return index_records(path, records)


def index_records(path: Path, records: list[dict[str, Any]]) -> LoggedMatch:
    """Index already-read records (``path`` names them in messages)."""
    if not records or not isinstance(records[0], dict) or records[0].get("type") != "header":
        raise ConfigError(f"{path} is not a match log: it does not start with a header record")
    header = records[0]
    if header.get("format") != LOG_FORMAT:
        raise ConfigError(
            f"{path} is a match log of format {header.get('format')!r}; this arena reads format {LOG_FORMAT}"
        )
    for key in ("game", "seed"):
        if key not in header:
            raise ConfigError(f"{path}: the header has no {key!r}")
    log = LoggedMatch(path=path, header=header, records=records)
    pending: list[int | None] = [None, None]
    for number, record in enumerate(records[1:], start=2):
        kind = record.get("type")
        seat = SEATS.index(record["seat"]) if record.get("seat") in SEATS else None
        if kind == "send" and seat is not None:
            sent = Sent(number, record.get("msg") or {})
            log.sent[seat].append(sent)
            if sent.is_request:
                log.answers[seat].append(None)
                pending[seat] = len(log.answers[seat]) - 1
        elif kind == "recv" and seat is not None and not record.get("stale"):
            k = pending[seat]
            if k is not None:
                log.answers[seat][k] = Received(
                    number,
                    record.get("msg"),
                    record.get("raw"),
                    unasked=bool(record.get("unasked")),
                    cut=bool(record.get("cut")),
                )
                pending[seat] = None
        elif kind == "fault":
            log.faults.append({k: v for k, v in record.items() if k not in ("type", "t")})
            log.fault_lines.append(number)
        elif kind == "stderr" and seat is not None:
            log.stderr.append(record)
        elif kind == "game_error":
            log.game_error, log.game_error_line = str(record.get("error", "")), number
        elif kind == "result":
            log.result = {k: record.get(k) for k in ("points", "winner", "forfeit", "reason")}
            log.result_line = number
    return log
