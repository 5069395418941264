import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from arena._errors import ConfigError
from arena.bots.spec import BotSpec, resolve
from arena.games import IllegalAction, ParamError, get_game
from arena.games._rng import Rng
from arena.games.gops import GopsMatch, match_points, prize_sequence, round_winner
from arena.supervisor.matchlog import read_log
from arena.supervisor.play import play_match
from arena.supervisor.wires import GopsTextWire, wire_for
from protocol import Answer, Limits, MatchEnd, MatchStart, MessageDecoder, Quit, Result
from protocol.gops import GopsBid, GopsResult

from .conftest import REPO, SAMPLE_BOTS, protocol_readme_section
from .inprocess import arena_here

GOPS_BOTS = SAMPLE_BOTS / "gops"
FAST = Limits(startup_s=10.0, move_s=0.5, time_bank_s=0.0, move_wall_s=2.0, line_bytes=4096, output_bytes=1 << 16)

needs_ruby = pytest.mark.skipif(shutil.which("ruby") is None, reason="ruby is not installed (apt-get install ruby)")


def new_match(seed: int = 1, **params: object) -> GopsMatch:
    state = get_game("gops", params).new_match(seed)
    assert isinstance(state, GopsMatch)
    return state


def play_out(state: GopsMatch, bids_a: list[int], bids_b: list[int]) -> list[str]:
    narration = []
    for a, b in zip(bids_a, bids_b, strict=True):
        step = state.apply({0: state.check(0, a), 1: state.check(1, b)})
        narration += step.narration
    return narration


# Rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "winner"),
    [(13, 1, 0), (1, 13, 1), (7, 6, 0), (6, 7, 1), (5, 5, None), (1, 1, None), (13, 13, None)],
)
def test_round_winner(a: int, b: int, winner: int | None) -> None:
    assert round_winner(a, b) == winner


@pytest.mark.parametrize(
    ("bids_a", "bids_b", "points", "discarded"),
    [
        ([1, 2, 3], [1, 2, 3], [0, 0], 6),  # every bid equal: every prize discarded, no carry-over
        ([3, 2, 1], [1, 2, 3], [1, 3], 2),  # prizes 1, 2, 3 ascending: A takes 1, tie on 2, B takes 3
        ([3, 1, 2], [2, 3, 1], [4, 2], 0),
    ],
)
def test_bids_ties_discard_and_sums(bids_a: list[int], bids_b: list[int], points: list[int], discarded: int) -> None:
    state = new_match(cards=3, prize_order="ascending", scoring="total-points")
    play_out(state, bids_a, bids_b)
    assert state.is_over
    assert state.points == points
    assert state.discarded == discarded
    assert sum(state.points) + state.discarded == 6
    assert state.result().points == [float(p) for p in points]


def test_tie_narration_says_the_prize_is_discarded() -> None:
    state = new_match(cards=2, prize_order="descending")
    lines = play_out(state, [2, 1], [2, 1])
    assert lines[0] == "Round  1: prize  2 | A bids  2, B bids  2 -> tie, prize discarded, 0-0"


@pytest.mark.parametrize(
    ("sums", "winner", "scoring", "points"),
    [
        ((50, 41), 0, "win-loss", [1.0, 0.0]),
        ((30, 40), 1, "win-loss", [0.0, 1.0]),
        ((40, 40), None, "win-loss", [0.5, 0.5]),
        ((50, 41), 0, "point-difference", [9.0, -9.0]),
        ((40, 40), None, "point-difference", [0.0, 0.0]),
        ((50, 41), 0, "total-points", [50.0, 41.0]),
        ((12, 3), 0, "total-points", [12.0, 3.0]),
    ],
)
def test_match_points_per_scoring(sums: tuple[int, int], winner: int | None, scoring: str, points: list[float]) -> None:
    assert match_points(sums, winner, scoring) == points


@pytest.mark.parametrize("scoring", ["win-loss", "point-difference", "total-points"])
def test_winner_is_the_higher_prize_sum_whatever_the_scoring(scoring: str) -> None:
    state = new_match(cards=4, prize_order="ascending", scoring=scoring)
    play_out(state, [1, 2, 3, 4], [2, 3, 4, 1])  # B takes 1, 2, 3 (6); A takes 4 (4)
    result = state.result()
    assert result.winner == "B"
    assert (
        result.points == {"win-loss": [0.0, 1.0], "point-difference": [-2.0, 2.0], "total-points": [4.0, 6.0]}[scoring]
    )


def test_default_game_is_the_quiz() -> None:
    game = get_game("gops")
    assert game.params == {"cards": 13, "prize_order": "random", "scoring": "win-loss"}
    state = new_match()
    assert sorted(state.prizes) == list(range(1, 14))
    assert state.hands == [list(range(1, 14))] * 2
    assert sum(state.prizes) == 91


@pytest.mark.parametrize(
    ("order", "expected"),
    [("ascending", [1, 2, 3, 4, 5]), ("descending", [5, 4, 3, 2, 1])],
)
def test_fixed_prize_orders_ignore_the_seed(order: str, expected: list[int]) -> None:
    for seed in (0, 1, 99):
        assert new_match(seed, cards=5, prize_order=order).prizes == expected


def test_random_prize_order_is_a_seeded_shuffle() -> None:
    orders = {tuple(new_match(seed).prizes) for seed in range(20)}
    assert len(orders) == 20, "twenty seeds, twenty different orders"
    assert all(sorted(order) == list(range(1, 14)) for order in orders)
    assert new_match(7).prizes == new_match(7).prizes
    rng = Rng(7)
    assert prize_sequence(13, "random", rng) == new_match(7).prizes, "the prize order is the RNG's first shuffle"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"cards": 0}, "cards must be at least 1"),
        ({"cards": 53}, "cards must be at most 52"),
        ({"cards": "13"}, "cards must be int"),
        ({"prize_order": "shuffled"}, "prize_order must be one of random, ascending, descending"),
        ({"scoring": "points"}, "scoring must be one of win-loss, point-difference, total-points"),
        ({"rounds": 5}, "unknown parameter 'rounds' for gops; valid: cards, prize_order, scoring"),
    ],
)
def test_bad_params_are_refused_with_the_valid_ones(params: dict[str, object], message: str) -> None:
    with pytest.raises(ParamError, match=message):
        get_game("gops", params)


@pytest.mark.parametrize(
    ("bid", "message"),
    [
        (0, "there is no card 0: cards are 1..13"),
        (14, "there is no card 14"),
        (-3, "there is no card -3"),
        (5, "card 5 was already bid"),
        ("7", "a bid must be an integer card value, not '7'"),
        (7.0, "not 7.0"),
        (True, "not True"),
        (None, "not None"),
    ],
)
def test_illegal_bids(bid: Any, message: str) -> None:
    state = new_match()
    state.apply({0: 5, 1: 5})
    with pytest.raises(IllegalAction, match=message):
        state.check(0, bid)
    assert state.check(1, 6) == 6


def test_requests_show_both_hands_the_prizes_left_sorted_and_the_score() -> None:
    state = new_match(3, cards=4, prize_order="descending")
    state.apply({0: 1, 1: 2})  # B takes 4
    requests = state.requests()
    assert requests[0] == GopsBid(
        round=2, prize=3, hand=[2, 3, 4], opponent_hand=[1, 3, 4], prizes_left=[1, 2], score=[0, 4]
    )
    assert requests[1].hand == [1, 3, 4] and requests[1].score == [4, 0]  # type: ignore[attr-defined]
    assert state.legal_actions(0) == [2, 3, 4]


def test_result_notices_tell_each_seat_its_own_side() -> None:
    state = new_match(cards=2, prize_order="ascending")
    notices = state.apply({0: 2, 1: 1}).notices
    assert notices == [
        (0, GopsResult(round=1, prize=1, your_bid=2, opponent_bid=1, winner="A", score=[1, 0])),
        (1, GopsResult(round=1, prize=1, your_bid=1, opponent_bid=2, winner="A", score=[0, 1])),
    ]
    tie = state.apply({0: 1, 1: 2})
    assert tie.notices[0][1].winner == "B"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("scoring", "offenders", "points", "winner"),
    [
        # Prizes ascending 1..4; A took 2, B took 1; a fault in round 3: prizes 3 and 4 go to the other seat.
        ("total-points", {0}, [2.0, 8.0], "B"),
        ("total-points", {1}, [9.0, 1.0], "A"),
        ("point-difference", {0}, [-6.0, 6.0], "B"),
        ("win-loss", {1}, [1.0, 0.0], "A"),
        ("win-loss", {0, 1}, [0.0, 0.0], None),
        ("total-points", {0, 1}, [2.0, 1.0], None),
    ],
)
def test_forfeit_gives_the_prizes_left_to_the_opponent(
    scoring: str, offenders: set[int], points: list[float], winner: str | None
) -> None:
    state = new_match(cards=4, prize_order="ascending", scoring=scoring)
    play_out(state, [1, 4], [2, 3])
    result = state.forfeit(frozenset(offenders), "reason")
    assert result == Result(
        points=points,
        winner=winner,
        forfeit=["AB"[s] for s in sorted(offenders)],  # type: ignore[misc]
        reason="reason",
    )


def test_forfeit_is_a_loss_even_when_the_offender_leads() -> None:
    state = new_match(cards=13, prize_order="descending", scoring="total-points")
    play_out(state, [13, 12, 11, 10, 9], [1, 2, 3, 4, 5])  # A took 13+12+11+10+9 = 55
    result = state.forfeit(frozenset({0}), "timeout")
    assert result.winner == "B"
    assert result.points == [55.0, 36.0]


# The text wire -------------------------------------------------------------


def test_text_wire_sends_the_referees_lines_and_nothing_else() -> None:
    wire = GopsTextWire()
    bid = GopsBid(id=3, round=1, prize=7, hand=[7], opponent_hand=[7], prizes_left=[], score=[0, 0])
    assert wire.encode(bid) == b"Competition card:  7\n"
    result = GopsResult(round=1, prize=7, your_bid=3, opponent_bid=12, winner="B", score=[0, 7])
    assert wire.encode(result) == b"Opponent's bid:  12\n"
    start = MatchStart(match_id="m", game="gops/1", seat="A", limits=Limits())
    end = MatchEnd(match_id="m", seat="A", result=Result(points=[1, 0], winner="A"))
    assert wire.encode(start) is None and wire.encode(end) is None and wire.encode(Quit()) is None


@pytest.mark.parametrize(
    ("line", "action"),
    [(b"7", 7), (b"  12  ", 12), (b"bid 3 please, not 4", 3), (b"0", 0), (b"-2", -2), (b"+5", 5), (b"007", 7)],
)
def test_text_wire_reads_the_first_number_on_the_line(line: bytes, action: int) -> None:
    request = GopsBid(id=41, round=1, prize=7, hand=[7], opponent_hand=[7], prizes_left=[], score=[0, 0])
    assert GopsTextWire().decode(line, request) == Answer(id=41, action=action)


@pytest.mark.parametrize(
    ("line", "message"),
    [(b"", "no number on the line ''"), (b"pass", "no number"), (b"9" * 40, "too long to be a bid")],
)
def test_text_wire_refuses_a_line_without_a_bid(line: bytes, message: str) -> None:
    from arena import ProtocolViolation

    request = GopsBid(id=1, round=1, prize=7, hand=[7], opponent_hand=[7], prizes_left=[], score=[0, 0])
    with pytest.raises(ProtocolViolation, match=message):
        GopsTextWire().decode(line, request)


def test_text_wire_is_only_for_gops() -> None:
    from arena import ConfigError

    assert wire_for("gops-text", get_game("gops")).name == "gops-text"
    with pytest.raises(ConfigError, match="'gops-text' is for gops, not rps-poker"):
        wire_for("gops-text", get_game("rps-poker"))


def test_a_text_bot_manifest_cannot_ask_for_reuse(tmp_path: Path) -> None:
    from arena import ConfigError

    (tmp_path / "bot.toml").write_text('run = "ruby bot.rb"\nprotocol = "gops-text"\nreuse = true\n')
    with pytest.raises(ConfigError, match="cannot be reused"):
        resolve(str(tmp_path))
    spec = resolve(str(GOPS_BOTS / "random-python"))
    assert spec.reuse and not spec.speaking("gops-text").reuse


# Real matches --------------------------------------------------------------

ECHO_BOT = """
import re, sys
# A quiz-style text bot that also copies every line it reads to stderr, so the test sees the exact lines.
for line in sys.stdin:
    sys.stderr.write("got " + repr(line) + "\\n")
    match = re.search(r"Competition card:\\s+(\\d+)", line)
    if match:
        print({bid}, flush=True)
sys.stderr.write("input closed\\n")
"""


def text_bot(tmp_path: Path, name: str, source: str) -> BotSpec:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return resolve(f"{sys.executable} {path}", base=tmp_path).with_name(name).speaking("gops-text")


async def test_a_text_bot_writing_two_lines_for_one_bid_faults_as_its_rules_say(tmp_path: Path) -> None:
    # Both lines in one write: the second is in the arena's hands before the next card is sent.
    spec = text_bot(tmp_path, "twice", ECHO_BOT.replace("print({bid}, flush=True)", "print('1\\n1', flush=True)"))
    opponent = resolve(str(GOPS_BOTS / "random-python"))
    limits = Limits(startup_s=10.0, move_s=0.5, time_bank_s=0.0, move_wall_s=1.0)
    record = await play_match(get_game("gops"), (spec, opponent), seed=3, limits=limits, log_dir=None)
    assert [(f.seat, f.kind, f.request_id) for f in record.faults] == [("A", "protocol_error", 2)]
    assert "before it was sent" in record.faults[0].reason
    # What `arena games gops` shows says so, and no longer that the line is taken as the next bid.
    rules = " ".join((REPO / "docs" / "games" / "gops.md").read_text().split())
    assert "a second line for one bid) is a protocol error" in rules
    assert "has the second one taken as its next bid" not in rules


@needs_ruby
async def test_ruby_text_bot_against_json_bot_and_the_log(tmp_path: Path) -> None:
    specs = (resolve(str(GOPS_BOTS / "mimic-ruby")), resolve(str(GOPS_BOTS / "planner-python")))
    assert specs[0].protocol == "gops-text" and not specs[0].reuse
    record = await play_match(get_game("gops"), specs, seed=5, limits=Limits(), log_dir=tmp_path)
    assert not record.faults
    assert record.result.winner == "B", "planner reads a mimic after a round or two"
    assert record.log_path is not None
    log = read_log(record.log_path)
    assert [bot["protocol"] for bot in log[0]["bots"]] == ["gops-text", "json"]
    bids = [r["msg"] for r in log if r["type"] == "recv" and r["seat"] == "A"]
    prizes = [
        r["msg"]["prize"] for r in log if r["type"] == "send" and r["msg"]["type"] == "gops_bid" and r["seat"] == "A"
    ]
    assert bids == prizes == new_match(5).prizes, "mimic bids each prize's value, read as a number from its line"


async def test_text_bot_sees_exactly_the_referees_lines_and_then_end_of_input(tmp_path: Path) -> None:
    spec = text_bot(tmp_path, "echo", ECHO_BOT.replace("{bid}", "match.group(1)"))
    opponent = resolve(str(GOPS_BOTS / "random-python"))
    record = await play_match(
        get_game("gops", {"cards": 3, "prize_order": "descending"}),
        (spec, opponent),
        seed=1,
        limits=FAST,
        log_dir=tmp_path,
    )
    assert not record.faults
    stderr = next(tmp_path.glob("*.A.stderr.log")).read_text()
    lines = stderr.splitlines()
    assert lines[0] == "got 'Competition card:  3\\n'"
    assert lines[1].startswith("got \"Opponent's bid:  ") and lines[1].endswith('\\n"')
    assert len(lines) == 7 and lines[-1] == "input closed", "three rounds of two lines; no match_start, match_end, quit"


@pytest.mark.parametrize(
    ("source", "kind", "reason"),
    [
        (ECHO_BOT.replace("{bid}", "0"), "illegal_move", "there is no card 0: cards are 1..13"),
        (ECHO_BOT.replace("{bid}", "'no bid'"), "protocol_error", "no number on the line 'no bid'"),
        pytest.param(
            "import sys, time\nsys.stdin.readline()\ntime.sleep(30)\n",
            "timeout",
            "no answer within",
            marks=pytest.mark.slow,
        ),
        ("import sys\nsys.stdin.readline()\n", "crash", "closed its output"),
        (
            "import os, sys, time\nsys.stdin.readline()\nprint(1, flush=True)\nos.close(0)\ntime.sleep(30)\n",
            "crash",
            "closed its input",
        ),
    ],
)
async def test_text_bot_faults_are_judged_as_for_json_bots(tmp_path: Path, source: str, kind: str, reason: str) -> None:
    spec = text_bot(tmp_path, "faulty", source)
    opponent = resolve(str(GOPS_BOTS / "random-python"))
    # Start-up time only where the fault is not a timeout: a loaded machine may take a second to start Python.
    limits = Limits(startup_s=0.0 if kind == "timeout" else 10.0, move_s=0.5, time_bank_s=0.0, move_wall_s=1.0)
    record = await play_match(get_game("gops"), (opponent, spec), seed=3, limits=limits, log_dir=None)
    assert [(f.seat, f.kind) for f in record.faults] == [("B", kind)]
    assert reason in record.faults[0].reason
    assert record.result.winner == "A" and record.result.forfeit == ["B"]
    assert record.result.points == [1.0, 0.0]


@needs_ruby
@pytest.mark.slow
def test_tournament_mixing_ruby_text_bots_and_json_bots(tmp_path: Path) -> None:
    echo = tmp_path / "echo-text"
    echo.mkdir()
    (echo / "bot.py").write_text(ECHO_BOT.replace("{bid}", "match.group(1)"))
    (echo / "bot.toml").write_text(f'run = "{sys.executable} bot.py"\nprotocol = "gops-text"\n')
    bots = [str(GOPS_BOTS / name) for name in ("mimic-ruby", "sure-wins-ruby", "planner-python")] + [str(echo)]
    command = ["tournament", "gops", *bots, "--seed", "1", "--jobs", "2", "--quiet"]
    command += ["--db", str(tmp_path / "results.sqlite"), "--log-dir", str(tmp_path / "logs")]
    done = arena_here(*command, cwd=tmp_path)  # in this process: see tests/inprocess.py
    assert done.returncode == 0, done.stderr
    assert "Played 12 matches" in done.stdout, done.stdout
    logs = sorted((tmp_path / "logs").glob("tournament-*/*.jsonl.gz"))
    assert len(logs) == 12
    for path in logs:
        records = read_log(path)
        assert not [r for r in records if r["type"] == "fault"], path.name
        protocols = {bot["name"]: bot["protocol"] for bot in records[0]["bots"]}
        assert protocols.get("planner-python", "json") == "json"
        assert all(protocols.get(name, "gops-text") == "gops-text" for name in ("mimic-ruby", "echo-text"))
    stderr = sorted((tmp_path / "logs").glob("tournament-*/stderr/*.log"))
    processes = {name: [p for p in stderr if p.name.startswith(name + ".")] for name in ("mimic-ruby", "echo-text")}
    assert len(processes["mimic-ruby"]) == len(processes["echo-text"]) == 6, "a text bot gets a process per match"
    for path in processes["echo-text"]:
        seen = path.read_text().splitlines()
        assert seen[0].startswith("got 'Competition card:  ") and seen[-1] == "input closed"
        assert len(seen) == 27 and not any("{" in line for line in seen), "13 rounds of two lines, never JSON"


@needs_ruby
@pytest.mark.slow
def test_protocol_readme_gops_exchanges_are_real(tmp_path: Path) -> None:
    section = protocol_readme_section("GOPS")
    json_lines = [line[2:] for line in section.splitlines() if line.startswith(("→ {", "← {")) and "{...}" not in line]
    text_lines = [line[2:] for line in section.splitlines() if line.startswith(("→ ", "← ")) and "{" not in line]
    command = ["play", "gops", str(GOPS_BOTS / "mimic-ruby")]
    command += [str(GOPS_BOTS / "planner-python"), "--seed", "5", "--log-dir", str(tmp_path)]
    done = arena_here(*command, cwd=tmp_path)  # in this process: see tests/inprocess.py
    assert done.returncode == 0, done.stderr
    records = read_log(next(tmp_path.glob("*.jsonl")))
    seen_by_b = [json.dumps(r["msg"], separators=(",", ":")) for r in records if r.get("seat") == "B" and "msg" in r]
    assert json_lines[:6] == seen_by_b[1:7] and json_lines[6:] == ['{"type":"quit"}']
    wire = GopsTextWire()
    seen_by_a = []
    for r in records:
        if r.get("seat") == "A" and r["type"] == "send" and r["msg"]["type"].startswith("gops_"):
            decoded = MessageDecoder().decode(json.dumps(r["msg"]))
            seen_by_a.append((wire.encode(decoded) or b"").decode().rstrip("\n"))
        elif r.get("seat") == "A" and r["type"] == "recv":
            seen_by_a.append(str(r["msg"]))
    assert text_lines == seen_by_a[: len(text_lines)] and len(text_lines) == 6


@pytest.mark.skipif(shutil.which("ruby") is None, reason="ruby is not installed (.ci/run installs it)")
def test_a_tournament_config_declares_a_command_line_text_bot(tmp_path: Path) -> None:
    from arena.competition.config import load
    from arena.competition.plan import prepare

    mimic = REPO / "sample_bots" / "gops" / "mimic-ruby" / "bot.rb"
    config = tmp_path / "t.toml"
    config.write_text(
        f'game = "gops"\nbots = [{{ bot = "ruby {mimic}", name = "quiz", protocol = "gops-text" }}, '
        f'"{REPO / "sample_bots" / "gops" / "random-python"}"]\n'
    )
    plan = prepare(load(config))
    assert plan.specs["quiz"].protocol == "gops-text" and not plan.specs["quiz"].reuse
    config.write_text(config.read_text().replace("gops-text", "morse"))
    with pytest.raises(ConfigError, match="unknown bot protocol 'morse'"):
        prepare(load(config))
