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


def test_a_compressed_log_cut_off_by_a_killed_arena_reads_as_far_as_it_goes(tmp_path: Path) -> None:
    # As the arena writes one (MatchLog: a GzipFile, flushed a piece at a time) and kill -9 leaves it: no trailer,
    # maybe half a compressed block. Each cut reads as the records whole before it, never an error.
    import zlib

    records = b"".join(b'{"type":"send","n":%d}\n' % n for n in range(400))
    whole = tmp_path / "whole.jsonl.gz"
    with gzip.GzipFile(whole, "wb") as file:
        file.write(records[:6000])
        file.flush(zlib.Z_SYNC_FLUSH)
        file.write(records[6000:])
    data = whole.read_bytes()
    assert len(read_log(whole)) == 400
    cut = tmp_path / "cut.jsonl.gz"
    seen = []
    for end in range(20, len(data), 37):
        cut.write_bytes(data[:end])
        got = read_log(cut)
        assert [r["n"] for r in got] == list(range(len(got)))
        seen.append(len(got))
    assert seen == sorted(seen) and seen[-1] >= 200  # more the further it goes (at least the flushed part)
    cut.write_bytes(data + b"\0" * 512)  # zeros after the end: padding, or what a crash left
    assert len(read_log(cut)) == 400
    cut.write_bytes(b"not gzip at all\n")
    with pytest.raises(ValueError, match="gzip"):
        read_log(cut)


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
