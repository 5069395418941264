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
