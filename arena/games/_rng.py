"""A small seeded random number generator that every game uses.

Python's ``random`` module promises the same ``random()`` stream across
versions but not the same ``shuffle`` or ``randrange``; the arena promises the
same deal for the same seed on any machine and any Python, so it uses its own
generator, simple enough to re-implement in any language:

* the state is a 64-bit integer, the seed; each draw is SplitMix64:
  ``state += 0x9E3779B97F4A7C15``; ``z = state``;
  ``z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9``; ``z = (z ^ z >> 27) * 0x94D049BB133111EB``;
  ``z ^ z >> 31`` (all modulo 2**64);
* ``below(n)`` draws until ``u < 2**64 - 2**64 % n`` and returns ``u % n``
  (no modulo bias);
* ``shuffle`` is Fisher-Yates from the last position down:
  for ``i`` from ``len - 1`` to ``1``, swap ``i`` with ``below(i + 1)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1


class Rng:
    """SplitMix64 with unbiased bounded draws and Fisher-Yates shuffles."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next_u64(self) -> int:
        """The next 64-bit draw."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1``."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            u = self.next_u64()
            if u < limit:
                return u % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[T]) -> T:
        """One of ``items``, uniformly."""
        return items[self.below(len(items))]


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed derived from ``seed`` and labels (SHA-256; stable everywhere)."""
    text = ":".join([str(seed), *map(str, labels)]).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1
