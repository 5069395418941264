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


@pytest.mark.parametrize(
    ("reason", "hint"),
    [
        ("closed its output: exited with code 1", "it exited before it answered: the end of its stderr above says why"),
        ("closed its output: killed by SIGSEGV (signal 11, exit status 139)", "a segmentation fault: it read or wrote"),
        ("closed its output: killed by SIGABRT (signal 6)", "it aborted: a failed assert"),
        ("closed its output: killed by SIGFPE (signal 8)", "an arithmetic error: an integer division"),
        ("closed its output: exited with code 0", "it exited with status 0 while requests were still coming"),
    ],
)
def test_a_crash_gets_a_hint_by_how_the_bot_ended(reason: str, hint: str) -> None:
    hints = fault_hints(Fault("A", "crash", reason, 1, "draft_pick"), get_game("rps-poker"), "json", 0, "--protocol")
    assert len(hints) == 1 and hints[0].startswith(hint), hints


def test_a_python_traceback_at_the_end_of_stderr_is_shown_from_its_top(tmp_path: Path) -> None:
    frames = [f'  File "bot.py", line {n}, in f{n}\n    return f{n + 1}(cards)\n' for n in range(6)]
    log = tmp_path / "bot.stderr.log"
    log.write_text("new match\n" * 40 + "Traceback (most recent call last):\n" + "".join(frames) + "IndexError: oops\n")
    shown = stderr_tail(log)
    assert shown[1:3] == ["  Traceback (most recent call last):", '    File "bot.py", line 0, in f0']
    assert shown[-1] == "  IndexError: oops" and len(shown) == 1 + 1 + 12 + 1
    log.write_text("Traceback (most recent call last):\n" + "".join(frames) * 5 + "IndexError: oops\n")
    longest = stderr_tail(log)  # a traceback longer than TRACEBACK_LINES: its end, where the error is
    assert len(longest) == 1 + 30 and longest[-1] == "  IndexError: oops"
    log.write_text("one\ntwo\nthree\nfour\nfive\nsix\n")  # no traceback: the last lines, as before
    assert stderr_tail(log)[1:] == ["  two", "  three", "  four", "  five", "  six"]
