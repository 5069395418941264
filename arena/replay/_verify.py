"""``--verify``: the log is exactly what the rules produce from its seed and answers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from protocol import SEATS

from ._log import LoggedMatch
from ._rerun import Rerun, rerun
from ._timeline import describe


@dataclass
class Difference:
    """The first place where the log and the rules disagree."""

    line: int
    """Line of the log where it happens (0: past the end)."""
    seat: str
    where: str
    """The request (or step) it happens at, such as ``request 7 (main_play turn 2)``."""
    expected: str
    found: str

    def __str__(self) -> str:
        at = f"log line {self.line}" if self.line else "end of log"
        return (
            f"first difference at {at}, seat {self.seat or '-'}, {self.where}:\n"
            f"  expected (rules): {self.expected}\n"
            f"  found (log):      {self.found}"
        )


@dataclass
class Verdict:
    """What ``verify`` found: nothing (``ok``) or the first difference."""

    rerun: Rerun
    difference: Difference | None = None
    checked: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.difference is None


def _text(value: Any) -> str:
    if value is None:
        return "(nothing)"
    return json.dumps(value, separators=(",", ":"))


def _where(messages: list[dict[str, Any]], position: int) -> str:
    """The latest request at or before ``position`` in a seat's messages."""
    for msg in reversed(messages[: position + 1]):
        if "id" in msg:
            return f"request {msg['id']} ({describe(msg)})"
    if position < len(messages):
        return describe(messages[position])
    return "after the last message"


def verify(log: LoggedMatch) -> Verdict:
    """Re-run ``log``'s rules and compare every message, fault and the result (raises ``RulesUnavailable``)."""
    again = rerun(log)
    verdict = Verdict(again, checked={"messages": 0, "faults": 0})
    candidates: list[Difference] = []
    for seat in (0, 1):
        expected, found = again.sent[seat], log.sent[seat]
        for i in range(max(len(expected), len(found))):
            want = expected[i] if i < len(expected) else None
            got = found[i].msg if i < len(found) else None
            if want != got:
                line = found[i].line if i < len(found) else 0
                if again.stopped and want is None:
                    break  # the rules stopped: the stop itself is reported below
                context = expected if want else [m.msg for m in found]
                candidates.append(Difference(line, SEATS[seat], _where(context, i), _text(want), _text(got)))
                break
            verdict.checked["messages"] += 1
    if again.stopped:
        candidates.append(
            Difference(
                again.stopped_line,
                SEATS[again.stopped_seat] if again.stopped_seat is not None else "",
                "re-running the rules",
                "an answer or a recorded fault",
                again.stopped,
            )
        )
    if candidates:
        verdict.difference = min(candidates, key=lambda d: d.line or 1 << 60)
        return verdict
    for i in range(max(len(again.faults), len(log.faults))):
        want = again.faults[i] if i < len(again.faults) else None
        got = log.faults[i] if i < len(log.faults) else None
        if want != got:
            line = log.fault_lines[i] if i < len(log.fault_lines) else 0
            seat = (want or got or {}).get("seat", "")
            request = (want or got or {}).get("request_id")
            where = f"fault at request {request}" if request is not None else "fault"
            verdict.difference = Difference(line, seat, where, _text(want), _text(got))
            return verdict
        verdict.checked["faults"] += 1
    if again.result != log.result:
        verdict.difference = Difference(log.result_line, "", "the result", _text(again.result), _text(log.result))
    return verdict
