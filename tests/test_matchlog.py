import gzip
from pathlib import Path

import pytest

from arena.supervisor.matchlog import read_log


def test_a_record_cut_off_by_a_killed_arena_is_left_out(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b'{"type":"header","t":0}\n{"type":"send","t":1}\n{"type":"se')
    assert [r["type"] for r in read_log(log)] == ["header", "send"]
    packed = tmp_path / "m.jsonl.gz"
    packed.write_bytes(gzip.compress(log.read_bytes()))
    assert read_log(packed) == read_log(log)


def test_a_corrupt_line_inside_a_log_is_named(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b'{"type":"header"}\n\n{broken\n{"type":"result"}\n')
    with pytest.raises(ValueError, match="line 3 is not JSON"):
        read_log(log)


def test_a_line_kept_only_in_part_says_so_whatever_its_characters() -> None:
    from arena.replay._log import Received
    from arena.supervisor.matchlog import RAW_CHARS, logged_line

    wide = ("é" * RAW_CHARS).encode()  # two bytes a character: the kept start is 500 characters long
    kept = logged_line(wide)
    assert kept["cut"] is True and len(kept["raw"]) < RAW_CHARS
    assert not Received(2, raw=kept["raw"], cut=kept["cut"]).complete  # a replay must not judge the line anew
    short = logged_line("é".encode() * 10)
    assert "cut" not in short and Received(2, raw=short["raw"]).complete
