"""Hints for a bot's author: each common mistake gets its hint, and what a bot wrote is made safe to print."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena._errors import BotFault
from arena.checks.hints import FLUSH, ID_NUMBER, NOTICE, OBJECT, STDERR, fault_hints, printable, stderr_tail
from arena.games import get_game
from arena.supervisor.match import Fault
from arena.supervisor.wires import Wire
from protocol.rps_poker import DraftPick


def fault_for(line: bytes) -> Fault:
    """The fault the arena records for ``line`` as an answer to request 1 (the real reason text)."""
    try:
        Wire().decode(line, DraftPick(id=1, round=1, cards=["R1", "P2"]))
    except BotFault as fault:
        return Fault("A", fault.kind, fault.reason, 1, "draft_pick")
    raise AssertionError(f"{line!r} is a valid answer")


TEXT_HINT = "run it with --protocol-a gops-text"


@pytest.mark.parametrize(
    ("line", "hint", "text_protocol_hinted"),
    [
        (b"thinking...", STDERR, True),  # debug output on stdout
        (b'{"id": null, "action": 0}', NOTICE, False),  # answered a notice
        (b'{"action": 0}', NOTICE, False),
        (b'{"id": "1", "action": 0}', ID_NUMBER, False),  # the id as a string
        (b'{"id": 1.0, "action": 0}', ID_NUMBER, False),
        (b"7", OBJECT, True),  # a bare number: a plain-text bot
        (b'["R1"]', OBJECT, False),
    ],
)
def test_each_common_mistake_gets_its_hint(line: bytes, hint: str, text_protocol_hinted: bool) -> None:
    fault = fault_for(line)
    hints = fault_hints(fault, get_game("gops"), "json", bytes_out=len(line) + 1, protocol_option="--protocol-a")
    assert hints[0] == hint
    assert any(TEXT_HINT in h for h in hints) == text_protocol_hinted
    # RPS Poker has no text protocol, and a bot already speaking one is not told about it.
    assert not any(TEXT_HINT in h for h in fault_hints(fault, get_game("rps-poker"), "json", 9, "--protocol-a"))
    assert not any(TEXT_HINT in h for h in fault_hints(fault, get_game("gops"), "gops-text", 9, "--protocol-a"))


def test_a_silent_timeout_asks_about_flushing_and_a_slow_one_gets_no_hint() -> None:
    silent = Fault("B", "timeout", "no answer within 25s (wall clock; 0.1s of CPU used)", 1, "gops_bid")
    hints = fault_hints(silent, get_game("gops"), "json", bytes_out=0, protocol_option="--protocol-b")
    assert hints[0] == FLUSH
    assert "run it with --protocol-b gops-text" in hints[1] and 'protocol = "gops-text"' in hints[1]
    assert fault_hints(silent, get_game("gops"), "json", bytes_out=120, protocol_option="--protocol-b") == []


def test_an_answer_with_an_id_never_sent_is_hinted_as_answering_a_notice() -> None:
    fault = Fault("A", "protocol_error", "answered id 9, but the pending request has id 3", 3, "main_play")
    assert fault_hints(fault, get_game("rps-poker"), "json", 50, "--protocol-a") == [NOTICE]


def test_what_a_bot_wrote_is_safe_to_print() -> None:
    hostile = "ok\x1b]52;c;cHduZWQ=\x07\x1b[2J\u202eevil\r\x00"
    shown = printable(hostile)
    assert shown.isprintable()
    assert shown == "ok\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\u202eevil\\r\\x00"
    assert printable("x" * 1000, limit=10) == "x" * 10 + "…"


def test_stderr_tail_shows_the_last_lines_only(tmp_path: Path) -> None:
    log = tmp_path / "bot.stderr.log"
    log.write_bytes(b"".join(b"line %d\n" % n for n in range(100_000)) + b"Traceback: \x1b[31mred\n")
    tail = stderr_tail(log)
    assert tail[0] == f"stderr, last lines ({log}):"
    assert tail[1:] == ["  line 99996", "  line 99997", "  line 99998", "  line 99999", "  Traceback: \\x1b[31mred"]
    assert stderr_tail(log, label="not kept")[0] == "stderr, last lines (not kept):"
    assert stderr_tail(tmp_path / "missing.log") == [] and stderr_tail(None) == []
    (tmp_path / "empty.log").write_bytes(b"")
    assert stderr_tail(tmp_path / "empty.log") == []
