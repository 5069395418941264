"""The server gives the memory a drawing of the standings freed back to the system (arena/server/_memory.py)."""

from __future__ import annotations

import threading

import psutil
import pytest

from arena.server._memory import _trim, give_back_freed


def test_the_free_pages_a_thread_left_in_its_heap_go_back_to_the_system() -> None:
    if _trim() is None:
        pytest.skip("not glibc: there is no malloc_trim")
    rss: dict[str, int] = {}

    def draw() -> None:  # as a drawing does: many blocks, in a thread's own heap, most freed, a few kept
        blocks = [bytearray(2000) for _ in range(60_000)]
        kept = blocks[::64]
        del blocks
        rss["freed"] = psutil.Process().memory_info().rss
        give_back_freed()
        rss["given back"] = psutil.Process().memory_info().rss
        assert kept

    thread = threading.Thread(target=draw)
    thread.start()
    thread.join()
    # ~115 MiB were made and all but a sixty-fourth freed: the pages with nothing kept on them go back
    assert rss["freed"] - rss["given back"] > 50 * 2**20, rss
