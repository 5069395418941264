import json
from pathlib import Path

import msgspec
import pytest

import protocol
from protocol.rps_poker import DraftPick, DraftReceive, MainPlay, MainResult

SCHEMA = Path(protocol.__file__).with_name("schema.json")


def test_committed_schema_is_current() -> None:
    expected = json.dumps(protocol.json_schema(), indent=2, sort_keys=True) + "\n"
    assert SCHEMA.read_text(encoding="utf-8") == expected, "run: python -m protocol --write"


def test_every_line_is_one_json_object_naming_its_type() -> None:
    line = protocol.encode(DraftPick(id=4, round=2, cards=["R3", "S7"]))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line.startswith(b'{"type":"draft_pick",')
    assert json.loads(line) == {"type": "draft_pick", "id": 4, "round": 2, "cards": ["R3", "S7"]}


def _samples() -> list[protocol.Message]:
    limits = protocol.Limits()
    result = protocol.Result(points=[6, 4], winner="A")
    return [
        protocol.MatchStart(match_id="m", game="rps-poker/1", seat="A", limits=limits, opponent="x"),
        protocol.MatchEnd(match_id="m", seat="B", result=result),
        protocol.Quit(),
        DraftPick(id=1, round=1, cards=["R0", "P1"]),
        DraftReceive(round=1, card="S9"),
        MainPlay(id=2, turn=1, hand=["R0", "P1", "S2"], base="S5", score=[0, 0]),
        MainResult(turn=1, base="S5", your_card="R0", opponent_card="P1", winner="B", score=[0, 1]),
    ]


@pytest.mark.parametrize("message", _samples(), ids=lambda m: type(m).__name__)
def test_only_requests_contain_the_text_id_colon(message: protocol.Message) -> None:
    # The bash bot's rule: a line holding "id": is a request.
    line = protocol.encode(message)
    assert (b'"id":' in line) == isinstance(message, protocol.Request)


def test_no_notice_type_has_a_field_named_id_anywhere() -> None:
    def fields(tp: object, seen: set[object]) -> set[str]:
        if tp in seen or not (isinstance(tp, type) and issubclass(tp, msgspec.Struct)):
            return set()
        seen.add(tp)
        names = set(tp.__struct_fields__)
        for hint in msgspec.structs.fields(tp):
            for arg in getattr(hint.type, "__args__", (hint.type,)):
                names |= fields(arg, seen)
        return names

    for cls in protocol.codec.message_types():
        names = fields(cls, set())
        if issubclass(cls, protocol.Request):
            assert "id" in names
            names.discard("id")
        assert "id" not in names, cls


def test_message_decoder_round_trips_every_sample() -> None:
    decoder = protocol.MessageDecoder()
    for message in _samples():
        assert decoder.decode(protocol.encode(message)) == message


@pytest.mark.parametrize(
    ("line", "start"),
    [
        (b"{oops", "invalid JSON"),
        (b"[1, 2]", "not an answer"),
        (b'{"action": 1}', "not an answer"),
        (b'{"id": "3", "action": 1}', "not an answer"),
    ],
)
def test_answer_decoder_says_what_is_wrong(line: bytes, start: str) -> None:
    with pytest.raises(protocol.AnswerError, match=start):
        protocol.AnswerDecoder().decode(line)


@pytest.mark.parametrize(
    ("line", "malformed", "says"),
    [
        (b'{"id":1,"action":"\xff"}', True, "not UTF-8 at byte 18"),
        (b'{"id":1,"action":"\\ud800"}', True, "lone UTF-16 surrogate"),
        (b'{"id":1,"action":NaN}', True, "NaN and Infinity"),
        (b'\xef\xbb\xbf{"id":1,"action":0}', True, "byte-order mark"),
        (b'{"id":1,"action":"\t"}', True, "control character 0x09"),
        (b"", True, "an empty line"),
        (b"[" * 100_000, True, "brackets do not balance"),
        (b"[" * 33 + b"]" * 33, False, "nested deeper than 32 levels"),
        (b'{"id":1,"action":' + b"[" * 40_000 + b"]" * 40_000 + b"}", False, "nested deeper"),
        (b'{"id":1,"action":1e999}', False, "out of range"),
        (b"[1, 2", True, "ends inside a JSON value"),
    ],
)
def test_no_line_makes_the_decoder_raise_anything_but_an_answer_error(line: bytes, malformed: bool, says: str) -> None:
    for decode in (protocol.AnswerDecoder().decode, protocol.read_json):
        with pytest.raises(protocol.AnswerError, match=says) as caught:
            decode(line)
        assert caught.value.malformed is malformed


def test_depth_is_counted_outside_strings_only() -> None:
    answer = protocol.AnswerDecoder().decode(b'{"id":1,"action":"' + b"[" * 100 + b'\\"{{{{{{{{{{{{{{{{{{{{{{{{{{{"}')
    assert answer.action.startswith("[[[")
    nested: list[object] = []
    for _ in range(31):
        nested = [nested]
    assert protocol.read_json(b"[" * 32 + b"]" * 32) == nested  # exactly 32 levels is fine


def test_answer_keeps_any_action_for_the_game_to_judge() -> None:
    answer = protocol.AnswerDecoder().decode(b'{"id": 9, "action": {"high": [0, 1, 2]}, "note": "ignored"}')
    assert answer == protocol.Answer(id=9, action={"high": [0, 1, 2]})
