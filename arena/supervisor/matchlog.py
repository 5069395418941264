"""Match logs: one JSON-lines file per match that tells everything that happened.

Records, in order (every record has ``"type"``; ``"t"`` is seconds since the
match started and always comes last, so ``strip_times`` makes logs of the
same seed and moves identical byte for byte):

``header``  format, match id, game id with rules version, params, seed, both
            bots (seat, name, command, digest, stderr log), limits per seat
``send``    a message to a seat: ``{"type":"send","seat":"A","msg":{...}}``
``recv``    a line from a seat: ``"msg"`` (the answer's own fields, ``id`` and
            ``action``: whatever else a bot adds is dropped, as the protocol
            says) or ``"raw"`` (the line's start, when it is not an answer);
            ``"unasked": true`` marks a line written before its request was sent,
            ``"stale": true`` a late answer to an abandoned request, ignored
``fault``   seat, kind, reason, and the request it happened at
``result``  the match's :class:`protocol.Result`, plus per-seat statistics
``stderr``  a line a seat wrote to stderr during the match (``"text"``), its
            ``"t"`` the time it was read; written after the last message,
            seat A's lines then seat B's, so the rest of the log keeps its
            order. ``"omitted"`` instead of ``"text"`` counts the bytes past
            the log's share (the bot's stderr log file has them all)
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from pathlib import Path
from typing import IO, Any, cast

import msgspec
import trio

import protocol

LOG_FORMAT = 1
_encoder = msgspec.json.Encoder()
RAW_CHARS = 1000
"""Of a line that is not an answer (not JSON, or JSON of another shape), the characters a log keeps."""
KEPT_MSG_BYTES = 4096
"""The most an answer's own fields may take in a log; past it (a huge action: a fault), only the line's start."""
ANSWER_FIELDS = frozenset(protocol.Answer.__struct_fields__)
LIVE_ENV = "ARENA_LIVE_LOGS"
"""Set (to ``1``) in a process's environment, its logs are written out at every step, for live pages
(:meth:`MatchLog.step`). The competition server sets it for itself and its match worker, which inherits it."""


class MatchLog:
    """Writes one match's records; ``MatchLog(None)`` writes nothing.

    Records are gathered in memory and written (compressed, for ``.gz``) in
    pieces of ``FLUSH_BYTES`` and at :meth:`close`: one file write and one
    compression call per piece, not per record. A log cut off by ``kill -9``
    ends at its last whole piece (``read_log`` reads what is there).
    """

    FLUSH_BYTES = 64 << 10

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._file: IO[bytes] | None = None
        self._raw: IO[bytes] | None = None
        self._held = bytearray()
        self._in_trio = _in_trio()
        self._t0 = trio.current_time() if self._in_trio else 0.0
        self._live = os.environ.get(LIVE_ENV) == "1"
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A path ending in .gz writes the log compressed (read_log reads both).
            # 0600: a log holds both seats' hidden information and what the bots wrote; it is the organiser's.
            raw = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600), "wb")
            opened = gzip.GzipFile(filename=path.name, mode="wb", fileobj=raw) if path.suffix == ".gz" else raw
            self._raw = raw
            self._file = cast(IO[bytes], opened)

    @property
    def enabled(self) -> bool:
        """Whether records are written (a caller may skip building them when not)."""
        return self._file is not None

    def now(self) -> float:
        """Seconds since the match began (0 outside trio)."""
        if self._in_trio or _in_trio():
            return round(trio.current_time() - self._t0, 6)
        return 0.0

    def stamp(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` with the time since the match began, as its last key."""
        record["t"] = self.now()
        return record

    def write(self, record: dict[str, Any]) -> None:
        """Append one record; stamp it now unless it was stamped when it happened."""
        if self._file is None:
            return
        if "t" not in record:
            self.stamp(record)
        held = self._held
        _encoder.encode_into(record, held, -1)
        held += b"\n"
        if len(held) >= self.FLUSH_BYTES:
            self._file.write(held)
            held.clear()

    def step(self) -> None:
        """A step's requests are sent: in a live log, write out what is held, whole records only.

        A compressed log is flushed with ``Z_SYNC_FLUSH``, which keeps the
        compressor's window (a few bytes a step) and lets a reader decompress
        everything written so far while the match goes on.
        """
        if not self._live or self._file is None or not self._held:
            return
        self._file.write(self._held)
        self._held.clear()
        if isinstance(self._file, gzip.GzipFile):
            self._file.flush(zlib.Z_SYNC_FLUSH)
        else:
            self._file.flush()

    def close(self) -> None:
        """Write what is held, and close the file."""
        if self._file is not None:
            try:
                if self._held:
                    self._file.write(self._held)
                    self._held.clear()
            finally:
                self._file.close()
                self._file = None
                if self._raw is not None:
                    self._raw.close()  # a GzipFile leaves the file it wrote to open
                    self._raw = None


def logged_line(line: bytes) -> dict[str, Any]:
    """What a ``recv`` record keeps of a line a bot wrote: ``{"msg": ...}`` or ``{"raw": ...}``.

    An answer keeps only the fields the protocol defines (``id``, ``action``),
    in the order the bot wrote them: a bot that pads its answers with fields of
    its own (60 KB each, in one attack) pads neither the log nor the replay.
    """
    try:
        value = protocol.read_json(line)
    except protocol.AnswerError:
        return _start(line)
    if isinstance(value, dict):
        value = {key: item for key, item in value.items() if key in ANSWER_FIELDS}
    if len(_encoder.encode(value)) > KEPT_MSG_BYTES:
        return _start(line)
    return {"msg": value}


def _start(line: bytes) -> dict[str, Any]:
    """``{"raw": ...}`` with the line's first ``RAW_CHARS`` bytes, and ``"cut": true`` when there were more.

    Said outright: the kept text's length cannot tell (a multi-byte character
    is one character of it), and a replay must know whether it holds the line.
    """
    kept: dict[str, Any] = {"raw": line[:RAW_CHARS].decode("utf-8", "replace")}
    if len(line) > RAW_CHARS:
        kept["cut"] = True
    return kept


def _in_trio() -> bool:
    try:
        trio.lowlevel.current_task()
    except RuntimeError:
        return False
    return True


def read_log(path: Path | str) -> list[dict[str, Any]]:
    """Every record of a log (plain or ``.gz``).

    A last line without its newline is a record cut off while it was written
    (the arena was killed): it is left out, and the records before it stand.
    Any other line that is not JSON raises :class:`ValueError` naming it.
    """
    path = Path(path)
    data = _gunzipped(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1].strip():
        lines.pop()  # cut off mid-record
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError as exc:
            raise ValueError(f"line {number} is not JSON ({exc})") from None
    return records


def _gunzipped(data: bytes) -> bytes:
    """What a gzip file holds, as far as it goes: one cut off by ``kill -9`` has no end, and what was written
    before stands (a live log is flushed whole records at a time). A corrupt one raises :class:`ValueError`."""
    out = []
    while data := data.lstrip(b"\0"):  # (zeros after a member: padding, or what a crash left)
        stream = zlib.decompressobj(wbits=31)  # (31: a gzip header and trailer)
        try:
            out.append(stream.decompress(data))
        except zlib.error as exc:
            raise ValueError(f"not a gzip file, or a corrupt one ({exc})") from None
        if not stream.eof:
            break  # cut off
        data = stream.unused_data
    return b"".join(out)


def strip_times(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records without their times (and statistics that depend on the clock)."""
    out = []
    for record in records:
        record = {k: v for k, v in record.items() if k not in ("t", "stats", "duration_s", "started")}
        out.append(record)
    return out
