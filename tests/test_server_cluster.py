"""The competition server's ladder on a Dask cluster: matches played by the workers, new versions sent to them."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from .servertools import minimal_bot, running, write_config

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """One worker with two threads (module-scoped, so its processes predate each test's process check)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=logging.CRITICAL,
    ) as running_cluster:
        yield running_cluster


async def test_the_ladder_plays_on_a_cluster_and_sends_new_versions_to_its_workers(
    tmp_path: Path, cluster: Any
) -> None:
    from distributed import Client

    from arena.competition.cluster import bundle_stats, close_host

    with Client(cluster.scheduler_address, set_as_default=False) as client:
        before = sum(stats.get("received", 0) for stats in client.run(bundle_stats).values())
        async with running(write_config(tmp_path), jobs=0, cluster=cluster.scheduler_address) as kit:
            await kit.wait_matches(4)
            token = kit.participant("alice")
            response = await kit.upload(token, minimal_bot(**{"notes.txt": "alice's own"}))
            result = await kit.wait_submission(token, response.json()["id"])
            assert result["status"] == "passed", result
            while not any("alice" in (m.bot_a, m.bot_b) for m in kit.matches):
                await kit.wait_matches(len(kit.matches) + 1)
            pool = kit.competition.host.pool
            assert pool is not None and pool.stats.started == 0  # none played here
            kit.competition.set_paused(True)  # let the worker finish its matches before the test ends
            ladder = kit.competition.host.ladder
            assert ladder is not None
            while ladder.state.busy:
                await trio.sleep(0.1)
        received = sum(stats.get("received", 0) for stats in client.run(bundle_stats).values())
        client.run(close_host)  # the worker's idle bot processes
    assert received - before == 3  # the two house bots at the start, alice's version when it entered
