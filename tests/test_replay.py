"""``arena replay``: verify logs of every game, find hand edits, audit a seat, regression-replay a bot."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.bots.spec import BotSpec, resolve
from arena.cli import main
from arena.games import GAMES, get_game
from arena.replay import RulesUnavailable, for_seat, load_log, rerun, timeline_of, verify
from arena.replay._regress import regress
from arena.replay._render import renderer_for
from arena.supervisor.matchlog import read_log
from arena.supervisor.play import play_match
from protocol import Limits

from .conftest import SAMPLE_BOTS

RPS = SAMPLE_BOTS / "rps-poker"


def two_bots(game_id: str) -> tuple[BotSpec, BotSpec] | None:
    """Two sample bots of a game, Python ones first (fast to start, in every CI)."""
    folder = SAMPLE_BOTS / game_id
    if not folder.is_dir():
        return None
    bots = sorted(p for p in folder.iterdir() if (p / "bot.toml").is_file())
    python = [p for p in bots if "python" in p.name or p.name.endswith("-py")]
    chosen = (python or bots)[:2]
    if not chosen:
        return None
    if len(chosen) == 1:
        chosen *= 2
    return resolve(str(chosen[0])), resolve(str(chosen[1]))


def play(game_id: str, specs: tuple[BotSpec, BotSpec], log_dir: Path, seed: int = 5, **limits: Any) -> Path:
    record = trio.run(lambda: play_match(get_game(game_id), specs, seed=seed, limits=Limits(**limits), log_dir=log_dir))
    assert record.log_path is not None
    return record.log_path


def script_bot(name: str, body: str) -> BotSpec:
    """A Python bot from ``body``, which sees ``message`` and sets ``action`` for requests.

    It runs as ``python3 -c CODE`` in the checkout: no file of its own, so no sandbox has to copy one.
    """
    code = (
        "import json, sys, time\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if message['type'] == 'quit':\n"
        "        break\n"
        "    if 'id' not in message:\n"
        "        continue\n"
        "    action = 0\n" + "".join(f"    {row}\n" for row in body.splitlines()) + ""
        "    print(json.dumps({'id': message['id'], 'action': action}), flush=True)\n"
    )
    return BotSpec(name=name, command=("python3", "-c", code), cwd=SAMPLE_BOTS.parent, profile="python")


def rewrite(path: Path, edit: Any) -> Path:
    """A copy of the log at ``path`` with ``edit(records)`` applied (a hand edit)."""
    records = read_log(path)
    edit(records)
    out = path.with_name("edited-" + path.name)
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


@pytest.fixture(scope="module")
def rps_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return play(
        "rps-poker",
        (resolve(str(RPS / "random-python")), resolve(str(RPS / "minimal-python"))),
        tmp_path_factory.mktemp("rps"),
        seed=7,
    )


GAMES_WITH_BOTS = [g for g in GAMES if two_bots(g) is not None]


def test_rps_poker_is_among_the_games_checked() -> None:
    assert "rps-poker" in GAMES_WITH_BOTS


@pytest.mark.parametrize("game_id", GAMES_WITH_BOTS)
def test_verify_passes_on_a_log_of_every_game(game_id: str, tmp_path: Path) -> None:
    specs = two_bots(game_id)
    assert specs is not None
    log = load_log(play(game_id, specs, tmp_path))
    verdict = verify(log)
    assert verdict.ok, verdict.difference
    sent = len(log.sent[0]) + len(log.sent[1])
    assert verdict.checked["messages"] == sent > 4
    # The viewer's frames come from the rules, with the game's narration.
    timeline = verdict.rerun.timeline
    assert timeline.source == "rules"
    assert any(e.kind == "narration" for f in timeline.frames for e in f.events)
    assert timeline.frames[-1].score == [float(p) for p in verdict.rerun.result["points"]]  # type: ignore[index]


def test_verify_names_the_first_difference_in_a_hand_edited_message(rps_log: Path) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        for record in records:
            msg = record.get("msg") or {}
            if record["type"] == "send" and record["seat"] == "B" and msg["type"] == "main_result" and msg["turn"] == 4:
                msg["opponent_card"] = "R9" if msg["opponent_card"] != "R9" else "R8"
                record["edited"] = True

    edited = rewrite(rps_log, edit)
    line = next(i for i, r in enumerate(read_log(edited), start=1) if r.get("edited"))
    verdict = verify(load_log(edited))
    difference = verdict.difference
    assert difference is not None
    assert (difference.line, difference.seat) == (line, "B")
    assert "main_play turn 4" in difference.where
    original = read_log(rps_log)[line - 1]["msg"]
    assert json.loads(difference.expected) == original
    assert json.loads(difference.found)["opponent_card"] != original["opponent_card"]


def test_an_edited_answer_shows_up_at_the_first_message_it_changes(rps_log: Path) -> None:
    records = read_log(rps_log)
    # Seat A's answer to its third main_play: change the index it played.
    sent_a = [r["msg"] for r in records if r["type"] == "send" and r["seat"] == "A"]
    mains = [m["id"] for m in sent_a if m["type"] == "main_play"]
    target = mains[2]

    def edit(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            if row["type"] == "recv" and row["seat"] == "A" and row["msg"]["id"] == target:
                row["msg"]["action"] = (row["msg"]["action"] + 1) % 3

    verdict = verify(load_log(rewrite(rps_log, edit)))
    difference = verdict.difference
    assert difference is not None
    assert f"request {target} (main_play turn 3)" in difference.where
    assert json.loads(difference.found)["type"] == "main_result"


def test_cli_verify_exit_codes_and_messages(rps_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(rps_log), "--verify"]) == 0
    assert "verified" in capsys.readouterr().out

    def edit(records: list[dict[str, Any]]) -> None:
        records[-1]["points"] = [9, 1]

    assert main(["replay", str(rewrite(rps_log, edit)), "--verify"]) == 1
    out = capsys.readouterr().out
    assert "NOT verified" in out and "the result" in out and "[9,1]" in out


def test_a_log_of_an_older_rules_version_says_so(rps_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[0]["game"] = "rps-poker/0"

    old = rewrite(rps_log, edit)
    with pytest.raises(RulesUnavailable, match="rules version 0, and this arena has version 1"):
        rerun(load_log(old))
    assert main(["replay", str(old), "--verify"]) == 1
    assert "rules version 0" in capsys.readouterr().out
    # It can still be watched: as logged, without the rules.
    timeline = timeline_of(load_log(old))
    assert timeline.source == "log" and "version 0" in timeline.note
    assert len([f for f in timeline.frames if f.title.startswith("main_play turn")]) == 10


def test_an_illegal_move_replays_as_the_same_fault(tmp_path: Path) -> None:
    cheat = script_bot("cheat", "if message.get('turn') == 2:\n    action = 7")
    log_path = play("rps-poker", (resolve(str(RPS / "minimal-python")), cheat), tmp_path)
    log = load_log(log_path)
    assert [f["kind"] for f in log.faults] == ["illegal_move"]
    verdict = verify(log)
    assert verdict.ok, verdict.difference
    assert verdict.checked["faults"] == 1

    def edit(records: list[dict[str, Any]]) -> None:
        for record in records:
            if record["type"] == "fault":
                record["reason"] = "index 3 is out of range for a hand of 3"

    difference = verify(load_log(rewrite(log_path, edit))).difference
    assert difference is not None and difference.seat == "B" and "fault" in difference.where
    assert "index 7" in difference.expected and "index 3" in difference.found


def test_a_timeout_is_taken_from_the_log(tmp_path: Path) -> None:
    sleepy = script_bot("sleepy", "if message.get('turn') == 3:\n    time.sleep(3)")
    log_path = play(
        "rps-poker",
        (sleepy, resolve(str(RPS / "minimal-python"))),
        tmp_path,
        move_s=0.3,
        time_bank_s=0.0,
        move_wall_s=0.3,
    )
    log = load_log(log_path)
    assert [f["kind"] for f in log.faults] == ["timeout"]
    verdict = verify(log)
    assert verdict.ok, verdict.difference
    assert verdict.rerun.result is not None and verdict.rerun.result["forfeit"] == ["A"]


def test_regression_replay_finds_the_first_differing_move(rps_log: Path, tmp_path: Path) -> None:
    # minimal-python (seat B of rps_log) always answers 0; this build plays its last card from turn 3.
    changed = script_bot("changed", "if message.get('turn', 0) >= 3:\n    action = len(message['hand']) - 1")
    report = trio.run(lambda: regress(load_log(rps_log), 1, changed))
    assert report.requests == 15 and report.answered == 15
    first = report.mismatches[0]
    assert first.request["type"] == "main_play" and first.request["turn"] == 3
    assert (first.logged, first.found) == ("0", "2")
    # Turns 9 and 10 hold fewer cards: the last index is 1, then 0 (the same as logged).
    assert [m.request["turn"] for m in report.mismatches] == [3, 4, 5, 6, 7, 8, 9]

    same = trio.run(lambda: regress(load_log(rps_log), 1, resolve(str(RPS / "minimal-python"))))
    assert same.same and same.requests == 15


def test_regression_replay_reports_a_crashing_build(rps_log: Path, tmp_path: Path) -> None:
    crashing = script_bot("crashing", "if message.get('turn') == 2:\n    sys.exit(3)")
    report = trio.run(lambda: regress(load_log(rps_log), 1, crashing))
    assert report.mismatches[0].request["turn"] == 2 and report.mismatches[0].found.startswith("crash")
    assert "crash" in report.stopped


def test_cli_bot_option(rps_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(rps_log), "--bot", f"B={RPS / 'minimal-python'}"]) == 0
    assert "; 0 answers differ" in capsys.readouterr().out
    assert main(["replay", str(rps_log), "--bot", f"A={RPS / 'minimal-python'}"]) == 1
    out = capsys.readouterr().out
    assert "; 0 answers differ" not in out and "answers differ" in out and "logged 1, new build 0" in out


def test_seat_view_shows_only_what_that_seat_was_told(rps_log: Path) -> None:
    log = load_log(rps_log)
    whole = timeline_of(log)
    seen = for_seat(whole, 0)
    events = [e for f in seen.frames for e in f.events]
    assert events and all(e.seat == 0 for e in events)
    assert not any(e.kind == "narration" for e in events)
    # B's offered cards never reach A's view.
    b_offers = {c for s in log.sent[1] if s.msg["type"] == "draft_pick" for c in s.msg["cards"]}
    a_sent = json.dumps([e.msg for e in events if e.msg])
    a_offers = {c for s in log.sent[0] if s.msg["type"] == "draft_pick" for c in s.msg["cards"]}
    assert a_offers and all(c in a_sent for c in a_offers)
    assert not any(f'"cards": ["{c}"' in a_sent for c in b_offers - a_offers)
    assert [e.msg for e in events if e.kind in ("request", "notice")] == [s.msg for s in log.sent[0]]


def test_terminal_output_when_not_a_tty(rps_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(rps_log)]) == 0
    out = capsys.readouterr().out
    assert "RPS Poker (rps-poker/1), seed 7" in out
    assert out.count("» Turn") == 10 and "» Draft 5" in out
    assert "B answers 0 = [" in out and "score  random-python" in out
    assert "Result: random-python" in out
    assert main(["replay", str(rps_log), "--seat", "A"]) == 0
    seat_out = capsys.readouterr().out
    assert "Only what seat A" in seat_out
    shown = seat_out.split("Only what seat A")[1].splitlines()
    assert any(line.startswith("  A asked") for line in shown)
    assert not any(line.startswith(("  B ", "  »")) for line in shown)


def test_piped_output_keeps_each_line_whole_with_no_trailing_space(
    rps_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(rps_log)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if line != line.rstrip()] == []
    told = [line for line in lines if line.startswith("  A told    main_result")]
    assert len(told) == 10 and all(re.search(r" winner . score \d+ : \d+$", line) for line in told)
    assert any(len(line) > 80 for line in lines)  # not cut at rich's 80 columns for a file


def test_rps_cards_are_drawn_in_colour(rps_log: Path) -> None:
    renderer = renderer_for("rps-poker/1")
    assert renderer.card("R7") == {"face": "R7", "sym": "rock", "rank": "7", "c": "red"}
    assert renderer.card("S0")["c"] == "green" and renderer.card("X1") is None  # type: ignore[index]
    generic = renderer_for("some-game/3")
    assert generic.card("QH") == {"face": "QH", "sym": "♥", "rank": "Q", "c": "red"}
    assert generic.card("10s")["c"] == "black" and generic.card("hello") is None  # type: ignore[index]


def test_compressed_logs_are_written_read_and_verified(rps_log: Path, tmp_path: Path) -> None:
    from arena.supervisor.matchlog import MatchLog

    log = MatchLog(tmp_path / "m.jsonl.gz")
    for record in read_log(rps_log):
        log.write(record)
    log.close()
    assert gzip.decompress((tmp_path / "m.jsonl.gz").read_bytes()).startswith(b'{"type":"header"')
    assert verify(load_log(tmp_path / "m.jsonl.gz")).ok


def test_replay_by_match_id_from_a_results_database(
    rps_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_module = pytest.importorskip("arena.competition.store")
    store = store_module.Store.open(tmp_path / "results.db")
    tournament = store.create_competition(name="t", seed=1, game="rps-poker/1", config={})
    played = store_module.PlayedMatch(
        key="c1-d1-l0",
        cycle=1,
        deal="d1",
        leg=0,
        bot_a="random-python",
        bot_b="minimal-python",
        seed=7,
        points=(5.0, 5.0),
        winner=None,
        log_path=str(rps_log),
    )
    assert store.record_match(tournament.id, played)
    store.close()
    assert main(["replay", "--db", str(tmp_path / "results.db"), "c1-d1-l0", "--verify"]) == 0
    assert "verified" in capsys.readouterr().out
    assert main(["replay", "--db", str(tmp_path / "results.db"), "nope"]) == 2
    assert "no match 'nope'" in capsys.readouterr().err
    with store_module.Store.open(tmp_path / "results.db") as later:  # "t" is no longer the latest competition
        later.create_competition(name="later", seed=2, game="rps-poker/1", config={})
    assert main(["replay", "--db", str(tmp_path / "results.db"), "999", "--name", "t"]) == 2
    assert f"(`arena results {tmp_path / 'results.db'} --matches --name t` lists them;" in capsys.readouterr().err


def test_stepping_by_key_goes_forward_back_and_quits(rps_log: Path) -> None:
    from io import StringIO

    from rich.console import Console

    from arena.replay._terminal import show

    log = load_log(rps_log)
    console = Console(file=StringIO(), width=200, no_color=True)
    keys = iter(["\n", "\x1b[C", "b", "q"])
    show(timeline_of(log), renderer_for(log.game), console, speed=None, interactive=True, key=lambda: next(keys))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    shown = [line.split("]")[0] + "]" for line in out.splitlines() if line.startswith("[") and "/17]" in line]
    assert shown == ["[1/17]", "[2/17]", "[3/17]", "[2/17]"]


def test_regression_replay_of_the_same_faulty_bot_finds_no_difference(tmp_path: Path) -> None:
    import sys

    faulty = Path(__file__).with_name("faulty") / "bot.py"
    garbage = BotSpec(name="garbage", command=(sys.executable, str(faulty), "invalid_json"), cwd=faulty.parent)
    specs = (resolve(str(RPS / "minimal-python")), garbage)
    trio.run(lambda: play_match(get_game("rps-poker"), specs, seed=4, limits=Limits(), log_dir=tmp_path))
    log = load_log(next(tmp_path.glob("*.jsonl")))
    assert [f["kind"] for f in log.faults] == ["invalid_json"]
    report = trio.run(lambda: regress(log, 1, garbage))
    assert report.same, [str(m) for m in report.mismatches]
    other = trio.run(lambda: regress(log, 1, specs[0]))
    assert not other.same, "a build that answers where the old one faulted differs"


def test_a_negative_score_reads_as_a_score_not_a_subtraction() -> None:
    from arena.games import score_text
    from arena.replay._render import plain, renderer_for

    assert score_text(434.0, -434.0) == "434 : -434" and score_text(2.5, 7) == "2.5 : 7"
    said = plain(renderer_for("badugi/1").result({"points": [434.0, -434.0], "winner": "A"}, ("x", "y")))
    assert said == "x 434 : -434 y: A (x) wins"


def test_a_bid_of_a_card_value_is_not_read_as_an_index_into_the_hand() -> None:
    """GOPS bids a card's value: ``1`` is the card 1, not the hand's second card ``2``."""
    from arena.replay._render import plain, renderer_for

    bid = {"type": "gops_bid", "id": 1, "prize": 6, "hand": [1, 2, 3], "opponent_hand": [1, 2, 3]}
    assert plain(renderer_for("gops/1").action(bid, 1)) == "1"
    draft = {"type": "draft_pick", "id": 1, "round": 1, "cards": ["P4", "S6"]}
    assert plain(renderer_for("rps-poker/1").action(draft, 1)) == "1 = S6"


@pytest.mark.slow
def test_a_match_cut_off_before_its_result_replays_without_a_dangling_separator(rps_log: Path, tmp_path: Path) -> None:
    # A live match's page, or a log cut off by kill -9: no result yet, so no "· " left after the match's id.
    import re

    from arena.replay import match_page
    from arena.replay._log import load_log

    cut = tmp_path / "cut.jsonl"
    lines = rps_log.read_bytes().splitlines(keepends=True)
    cut.write_bytes(b"".join(lines[: len(lines) // 2]))
    for path, ended in ((rps_log, True), (cut, False)):
        html = match_page(load_log(path))
        sub = re.search(r'<div class="sub">(.*?)</div>', html, re.S)
        assert sub is not None
        assert ('id="result"' in sub.group(1)) is ended
        assert not re.search(r"&middot;\s*$", sub.group(1)), sub.group(1)
