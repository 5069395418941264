"""The Dask cluster executor: bundles, and tournaments played on a real Dask LocalCluster (workers on loopback)."""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import io
import logging
import os
import signal
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import trio

from arena._errors import ConfigError
from arena.competition import config as config_mod
from arena.competition.cluster import Bundle, ClusterError, executor_at, make_bundle, remote_bots, unpack_bundle
from arena.competition.plan import Plan, open_competition, prepare
from arena.competition.runner import run_tournament
from arena.competition.schedule import make_schedule
from arena.competition.store import Store
from protocol import Limits

ROOT = Path(__file__).resolve().parents[1]
BOTS = [str(ROOT / "sample_bots" / "rps-poker" / name) for name in ("random-python", "simple-py", "minimal-python")]
SEED = 4242


# Bundles (no cluster needed) -----------------------------------------------------
def write_bot(folder: Path) -> Path:
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.toml").write_text('run = "python3 bot.py"\n', encoding="utf-8")
    (folder / "bot.py").write_text("print('hi')\n", encoding="utf-8")
    (folder / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (folder / "run.sh").chmod(0o755)
    (folder / "lib" / "data.txt").write_text("cards\n", encoding="utf-8")
    return folder


def test_bundle_is_reproducible_and_leaves_out_build_outputs(tmp_path: Path) -> None:
    first = make_bundle(write_bot(tmp_path / "a"))
    second_folder = write_bot(tmp_path / "b")
    (second_folder / ".arena-build").mkdir()
    (second_folder / ".arena-build" / "bot").write_bytes(b"\x7fELF")
    (second_folder / "__pycache__").mkdir()
    (second_folder / "__pycache__" / "bot.pyc").write_bytes(b"junk")
    os.utime(second_folder / "bot.py", (1, 1))
    assert make_bundle(second_folder) == first
    (second_folder / "bot.py").write_text("print('changed')\n", encoding="utf-8")
    assert make_bundle(second_folder).digest != first.digest


def test_unpacked_bundle_has_the_files_and_modes(tmp_path: Path) -> None:
    bundle = make_bundle(write_bot(tmp_path / "bot"))
    folder = unpack_bundle(bundle, tmp_path / "cache")
    assert folder == tmp_path / "cache" / bundle.digest
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == [
        "bot.py",
        "bot.toml",
        "lib/data.txt",
        "run.sh",
    ]
    assert os.access(folder / "run.sh", os.X_OK)
    assert folder.stat().st_mode & 0o005 == 0o005, "bots run under other UIDs must be able to read it"
    assert unpack_bundle(bundle, tmp_path / "cache") == folder  # cached: no second copy
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [bundle.digest]


def test_unpacking_needs_no_extractall_filter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Python before 3.11.4 (Debian 12 has 3.11.2) has no extractall(filter=...).
    def old_extractall(
        self: tarfile.TarFile, path: str = ".", members: object = None, *, numeric_owner: bool = False
    ) -> None:
        raise AssertionError("a bundle is unpacked file by file, never with extractall")

    monkeypatch.setattr(tarfile.TarFile, "extractall", old_extractall)
    folder = unpack_bundle(make_bundle(write_bot(tmp_path / "bot")), tmp_path / "cache")
    assert (folder / "lib" / "data.txt").is_file()
    assert (folder / "lib").stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize(
    ("name", "kind", "link"),
    [
        ("/etc/evil", tarfile.REGTYPE, ""),
        ("../evil", tarfile.REGTYPE, ""),
        ("lib/../../evil", tarfile.REGTYPE, ""),
        ("link", tarfile.SYMTYPE, "/etc/passwd"),
        ("hard", tarfile.LNKTYPE, "bot.py"),
        ("fifo", tarfile.FIFOTYPE, ""),
    ],
)
def test_a_bundle_with_anything_but_files_inside_is_refused(name: str, kind: bytes, link: str, tmp_path: Path) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for entry, entry_kind, target in (("bot.py", tarfile.REGTYPE, ""), (name, kind, link)):
            info = tarfile.TarInfo(entry)
            info.type, info.linkname = entry_kind, target
            data = b"print(1)\n" if entry_kind == tarfile.REGTYPE else b""
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = gzip.compress(raw.getvalue())
    with pytest.raises(ClusterError, match="not a file inside the bot's folder"):
        unpack_bundle(Bundle(hashlib.sha256(data).hexdigest(), data), tmp_path / "cache")
    assert [p.name for p in tmp_path.rglob("*")] == ["cache"], "nothing is left behind"
    assert not (tmp_path / "evil").exists()


def test_damaged_bundle_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    bundle = make_bundle(write_bot(tmp_path / "bot"))
    damaged = Bundle(bundle.digest, bundle.data[:-1] + bytes([bundle.data[-1] ^ 1]))
    with pytest.raises(ClusterError, match="arrived damaged"):
        unpack_bundle(damaged, tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_a_bot_naming_local_files_cannot_go_to_a_cluster(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("print(1)\n", encoding="utf-8")
    plan = prepare(tournament_config(tmp_path, bots=[BOTS[0], f"python3 {script}"]))
    with pytest.raises(ConfigError, match=r"give it as a folder with a bot\.toml"):
        remote_bots(plan.specs)
    plan = prepare(tournament_config(tmp_path, bots=[BOTS[0], "python3 -c pass"]))
    bots, bundles = remote_bots(plan.specs)
    assert [bots[name].bundle != "" for name in plan.names] == [True, False]
    assert len(bundles) == 1


# Tournaments on a cluster ----------------------------------------------------------
def tournament_config(tmp_path: Path, *, bots: list[str] = BOTS, cycles: int = 2) -> config_mod.TournamentConfig:
    return config_mod.from_command_line(
        "rps-poker",
        bots,
        cycles=cycles,
        seed=SEED,
        jobs=0,
        duplicate_deals=None,
        max_faults=1000,
        fmt="round-robin",
        challenger="",
        limits=Limits(),
        params={},
        db=tmp_path / "results.sqlite",
        log_dir=tmp_path / "logs",
        logs=True,
    )


async def run(plan: Plan, *, cluster: str = "", jobs: int = 0) -> tuple[list[tuple[Any, ...]], int]:
    """Play the tournament; its matches (what the results table is made of, timings left out) and how many ran."""
    with Store.open(plan.config.db) as store:
        competition = open_competition(plan, store)
        summary = await run_tournament(
            plan, store, competition, jobs=jobs, executor=executor_at(cluster) if cluster else None
        )
        rows = sorted(
            (m.key, m.bot_a, m.bot_b, m.seed, m.points, m.winner, m.forfeit, m.reason, m.faults)
            for m in store.matches(competition.id)
        )
    return rows, summary.played


@pytest.fixture(scope="module")
def local_results(tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[tuple[Any, ...]]]:
    """The same tournaments played locally, by cycles."""
    out = {}
    for cycles in (2, 3):
        plan = prepare(tournament_config(tmp_path_factory.mktemp(f"local{cycles}"), cycles=cycles))
        out[cycles] = trio.run(functools.partial(run, plan, jobs=2))[0]
        assert any(not row[-1] for row in out[cycles]), "some matches should be played without faults"
    return out


def local_cluster(workers: int = 2) -> Any:
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},  # its HTTP server too: never a fixed port (8787)
        silence_logs=logging.CRITICAL,
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with local_cluster() as running:
        yield running


@pytest.fixture
def own_cluster() -> Iterator[Any]:
    """A cluster for one test (its nanny's replacement for a killed worker is gone when the test ends)."""
    with local_cluster() as running:
        yield running


def worker_pids(client: Any) -> dict[str, int]:
    return dict(client.run(os.getpid))


@pytest.mark.cluster
async def test_cluster_run_gives_the_local_results_and_sends_each_bot_once_per_worker(
    cluster: Any, local_results: dict[int, list[tuple[Any, ...]]], tmp_path: Path
) -> None:
    from distributed import Client

    from arena.competition.cluster import bundle_stats, host_stats

    with Client(cluster.scheduler_address, set_as_default=False) as client:
        before = client.run(bundle_stats)
        plan = prepare(tournament_config(tmp_path))
        rows, played = await run(plan, cluster=cluster.scheduler_address)
        after = client.run(bundle_stats)
        processes = client.run(host_stats)
    assert rows == local_results[2]
    assert played == len(rows) == 12
    started = sum(stats["started"] for stats in processes.values())
    assert sum(stats["reused"] for stats in processes.values()) > 0, "workers keep reusable bots between matches"
    assert started < 2 * played
    for address, stats in after.items():
        assert stats.get("received", 0) - before[address].get("received", 0) == len(BOTS)
        assert stats.get("unpacked", 0) - before[address].get("unpacked", 0) <= len(BOTS)
    logs = sorted(p.name for p in (tmp_path / "logs" / "tournament-1").glob("*.jsonl.gz"))
    assert len(logs) == 12, "workers write the match logs where the coordinator asked"
    # Resuming on the cluster plays nothing again: the coordinator's store knows every match.
    again, played_again = await run(plan, cluster=cluster.scheduler_address)
    assert (again, played_again) == (rows, 0)


@pytest.mark.cluster
async def test_killed_worker_mid_tournament_still_every_match_exactly_once(
    own_cluster: Any, local_results: dict[int, list[tuple[Any, ...]]], tmp_path: Path
) -> None:
    from distributed import Client

    plan = prepare(tournament_config(tmp_path, cycles=3))
    with Client(own_cluster.scheduler_address, set_as_default=False) as client:
        pids = worker_pids(client)
        killed: list[int] = []
        orphans: list[psutil.Process] = []

        async def kill_a_worker_in_a_match() -> None:
            with trio.fail_after(60):
                while True:
                    for pid in pids.values():
                        bots = psutil.Process(pid).children(recursive=True)
                        if bots:
                            orphans.extend(bots)
                            os.kill(pid, signal.SIGKILL)
                            killed.append(pid)
                            return
                    await trio.sleep(0.005)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(kill_a_worker_in_a_match)
            rows, played = await run(plan, cluster=own_cluster.scheduler_address)
        assert killed, "a worker should have been killed while it played"
        with trio.fail_after(180):  # the nanny starts a new worker in its place (slow on a busy machine: >30 s seen)
            while len(client.scheduler_info()["workers"]) < 2:
                await trio.sleep(0.1)
        assert killed[0] not in worker_pids(client).values()
    assert [row[0] for row in rows] == sorted(
        m.key for m in make_schedule(plan.names, seed=SEED, cycles=3, duplicate=True)
    )
    assert played == len(rows) == 18
    assert rows == local_results[3]
    # The killed worker's bots die with it (their supervisor is gone).
    _, alive = psutil.wait_procs(orphans, timeout=10)
    for process in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()
    assert not alive, f"bots outlived their killed worker: {[p.pid for p in alive]}"


@pytest.mark.cluster
async def test_persistent_bots_on_a_cluster_give_the_local_results(cluster: Any, tmp_path: Path) -> None:
    # tsh-py and basic-odds-py keep state across matches: one process each, on one worker, in schedule order.
    persistent = [str(ROOT / "sample_bots" / "rps-poker" / name) for name in ("tsh-py", "basic-odds-py")]
    bots = [*persistent, BOTS[0]]
    local = prepare(tournament_config(tmp_path / "local", bots=bots))
    assert all(local.specs[Path(b).name].persistent for b in persistent)
    local_rows, _ = await run(local, jobs=2)
    remote_rows, played = await run(
        prepare(tournament_config(tmp_path / "remote", bots=bots)), cluster=cluster.scheduler_address
    )
    from distributed import Client

    from arena.competition.cluster import close_host

    with Client(cluster.scheduler_address, set_as_default=False) as client:
        client.run(close_host)  # the workers' persistent processes quit (the cluster lives on for other tests)
    assert played == 12 and remote_rows == local_rows
