"""How much four participants with slow bots slow another's matches on a server's ladder at two tables.

The scenario of ``tests/test_server_tables.py``'s slow-participants test, timed (the test counts deals, which a
busy machine does not change): a competition in this process (``jobs`` 2) with three fast house bots and five
participants, each with the minimal bot. In one run:

1. the fifth participant's (``me``) matches a second over ``--matches`` of its matches, all bots fast;
2. four participants upload a bot whose every answer sleeps 0.06 s (a match takes about a second); once their
   first deals (taken before they had used any time) are over, ``me``'s matches a second again, over as many;
3. ``me`` uploads a new version: the seconds from its admission to its first match recorded.

Prints both rates and their ratio (the goal: the second at least 0.9 of the first: the slow ones wait while the
others catch up with their use of the ladder), and the seconds to the new version's first match (goal: under a
minute), with the load average beside them (the machine is shared: compare figures of one run).

Usage: ``python benchmarks/bench_slow_neighbours.py [--matches 40]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servertools import Kit, minimal_bot, running  # noqa: E402
from tests.test_server_tables import SLOW_BOT_ARCHIVE, owners_matches, slow_neighbours_config  # noqa: E402

SLOW = ("s1", "s2", "s3", "s4")


async def rate(kit: Kit, owner: str, count: int) -> float:
    """``owner``'s matches a second over its next ``count`` matches."""
    start, began = owners_matches(kit, owner), trio.current_time()
    while owners_matches(kit, owner) < start + count:
        await trio.sleep(0.05)
    return count / (trio.current_time() - began)


async def passed(kit: Kit, token: str, archive: bytes) -> None:
    sid = (await kit.upload(token, archive)).json()["id"]
    checked = await kit.wait_submission(token, sid, timeout=600)
    if checked["status"] != "passed":
        sys.exit(f"an upload's check did not pass: {checked}")


async def measure(folder: Path, matches: int) -> tuple[float, float, float]:
    async with running(slow_neighbours_config(folder), jobs=2) as kit:
        tokens = {name: kit.participant(name) for name in ("me", *SLOW)}
        for token in tokens.values():
            await passed(kit, token, minimal_bot())
        await kit.wait_matches(40, timeout=600)
        fast = await rate(kit, "me", matches)
        print(f"1. all fast: me plays {fast:.2f} matches/s (load {os.getloadavg()[0]:.1f})", flush=True)
        for name in SLOW:
            await passed(kit, tokens[name], SLOW_BOT_ARCHIVE)
        while not all(owners_matches(kit, f"{n}.v2") for n in SLOW):
            await trio.sleep(0.05)
        await rate(kit, "me", 10)  # (the slow ones' first deals, taken before they had used any time, end)
        theirs = owners_matches(kit, *(f"{n}.v2" for n in SLOW))
        slowed = await rate(kit, "me", matches)
        theirs = owners_matches(kit, *(f"{n}.v2" for n in SLOW)) - theirs
        print(
            f"2. four slow neighbours: me plays {slowed:.2f} matches/s, they {theirs} matches meanwhile (the test's"
            f" bound: {matches}) (load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        await passed(kit, tokens["me"], minimal_bot())
        admitted = trio.current_time()
        while not owners_matches(kit, "me.v2"):
            await trio.sleep(0.05)
        first = trio.current_time() - admitted
        return fast, slowed, first


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="me's matches timed in each phase (%(default)s)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as folder:
        fast, slowed, first = trio.run(measure, Path(folder), args.matches)
    print(f"ratio slowed/fast: {slowed / fast:.2f} (goal: at least 0.90)")
    print(f"3. me's new version: first match {first:.1f} s after its admission (goal: under 60 s)")


if __name__ == "__main__":
    main()
