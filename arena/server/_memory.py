"""How the server hands the memory its standings freed back to the system.

Each drawing of the standings (in their process, :mod:`.drawing`) makes
arrays of the field's pairs and deals, a few hundred kB to a few MB each, and
frees them when it is done. glibc keeps freed space for the thread's heap it
came from, in pieces the next drawing's arrays do not always fit: at 100,000
matches the server grew from about 200 to 250 MiB while the ladder played,
with nothing more kept in Python (tracemalloc). ``malloc_trim`` after each
drawing gives the free pages of every heap back (a few milliseconds).

A fixed mmap threshold (``mallopt``) kept the size down too, but each array
then came from fresh pages of the kernel: the standings lagged 3.8-6.2 s
against 1.8-2.5 s, and start took 0.6 s more.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


@functools.cache
def _trim() -> Callable[[int], int] | None:
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def give_back_freed() -> None:
    """Return the free pages of the allocator's heaps to the system (glibc only; elsewhere nothing)."""
    trim = _trim()
    if trim is not None:
        trim(0)
