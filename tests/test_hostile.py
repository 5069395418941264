"""Hostile bots against the sandbox in force, with real processes.

Each hostile bot must end as a precise fault of its own, its opponent
unharmed (it wins), the arena's memory bounded, and no process left behind
(the autouse fixture in conftest checks that by pid).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import resource
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import typing
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import psutil
import pytest
import trio

from arena import play_match, resolve
from arena._errors import REASON_CHARS
from arena.bots.spec import BotSpec
from arena.checks.sandbox import CANARY
from arena.competition.config import BotEntry, TournamentConfig
from arena.competition.plan import open_competition, prepare
from arena.competition.runner import run_tournament
from arena.competition.store import Store
from arena.games import get_game
from arena.sandbox import BUILD_DIR, SandboxPolicy, built_folder, capabilities, configure, current_policy, summary
from arena.sandbox._plan import launch_argv
from arena.supervisor._process import SpawnOptions, bot_environment, open_bot
from arena.supervisor.build import ensure_built
from arena.supervisor.match import MatchRecord, MatchRunner, Seat, _Move
from arena.supervisor.matchlog import MatchLog
from arena.supervisor.play import spawn_options
from arena.supervisor.wires import wire_for
from protocol import Limits

from .conftest import SAMPLE_BOTS

HOSTILE = Path(__file__).with_name("hostile")
GOOD = SAMPLE_BOTS / "rps-poker" / "minimal-python"
LIMITS = Limits(
    startup_s=10.0, move_s=0.3, time_bank_s=0.2, move_wall_s=3.0, line_bytes=4096, output_bytes=1 << 16,
    memory_bytes=128 << 20, processes=32, stderr_bytes=1 << 16,
)  # fmt: skip


def hostile(mode: str, arg: str = "") -> BotSpec:
    return BotSpec(
        name=f"hostile-{mode}", command=(sys.executable, str(HOSTILE / "bot.py"), mode, *([arg] if arg else [])),
        cwd=HOSTILE, profile="python",
    )  # fmt: skip


async def duel(bot: BotSpec, tmp_path: Path, limits: Limits = LIMITS) -> MatchRecord:
    return await play_match(get_game("rps-poker"), (bot, resolve(str(GOOD))), seed=3, limits=limits, log_dir=tmp_path)


def assert_fault(record: MatchRecord, kind: str, reason: str) -> None:
    assert [(f.seat, f.kind) for f in record.faults] == [("A", kind)], record.faults
    assert reason in record.faults[0].reason, record.faults[0].reason
    assert record.result.winner == "B" and record.result.forfeit == ["A"]


def held(prop: str) -> list[str]:
    return list(summary()["properties"][prop])


@pytest.mark.parametrize(
    ("mode", "arg", "kind", "reason"),
    [
        ("crash_start", "", "crash", "exited with code 3"),
        ("exit_mid", "", "crash", "exited with code 0"),
        pytest.param("sleep", "", "timeout", "wall clock", marks=pytest.mark.slow),
        ("busy", "", "timeout", "of CPU"),
        pytest.param("never_flush", "", "timeout", "wall clock", marks=pytest.mark.slow),
        ("invalid_json", "", "invalid_json", "invalid JSON"),
        ("huge_line", "", "output_limit", "line of more than 4096 bytes"),
        ("cpu_children", "", "timeout", "of CPU"),
        ("close_stdout", "", "crash", "closed its output"),
        ("daemon", "", "crash", "exited with code 0"),
    ],
)
async def test_a_hostile_bot_ends_as_its_own_precise_fault(
    mode: str, arg: str, kind: str, reason: str, tmp_path: Path
) -> None:
    if mode == "daemon" and not held("escape"):
        pytest.skip("nothing here kills a setsid double-forked daemon (no PID namespace, cgroup or own UID)")
    # A bot that sleeps (or never flushes) meets the move's wall cap: 1 s shows it as well as the 3 s the others need.
    limits = msgspec.structs.replace(LIMITS, move_wall_s=1.0) if reason == "wall clock" else LIMITS
    record = await duel(hostile(mode, arg), tmp_path, limits)
    assert_fault(record, kind, reason)


DEEP = b"[" * 1000 + b"]" * 1000


@pytest.mark.parametrize(
    ("payload", "kind", "reason"),
    [
        (b'{"id":ID,"action":"\xff"}', "invalid_json", "not UTF-8"),
        (b"\xff\xfe", "invalid_json", "unexpected byte 0xff at byte 0"),
        (b'{"id":ID,"action":"\xed\xa0\x80"}', "invalid_json", "not UTF-8"),  # a surrogate, encoded
        (b'{"id":ID,"action":"\\ud800"}', "invalid_json", "surrogate"),  # a lone surrogate, escaped
        (b'{"id":ID,"action":' + DEEP + b"}", "protocol_error", "nested deeper than"),
        (DEEP, "protocol_error", "nested deeper than"),
        (b"[" * 5000, "invalid_json", "brackets"),
        (b'{"id":ID,"action":1e999}', "protocol_error", "out of range"),
        (b'{"id":ID,"action":' + b"9" * 5000 + b"}", "protocol_error", "out of range"),
        (b'{"id":' + b"9" * 100 + b',"action":0}', "protocol_error", "never sent"),
        (b'{"id":ID,"action":NaN}', "invalid_json", "NaN"),
        (b'{"id":ID,"action":-Infinity}', "invalid_json", "Infinity"),
        (b'\xef\xbb\xbf{"id":ID,"action":0}', "invalid_json", "byte-order mark"),
        (b'{"id":ID,"action":"\x01"}', "invalid_json", "control character"),
        (b'{"id":ID,"action":0}\x00', "invalid_json", "invalid JSON"),
        (b"", "invalid_json", "empty line"),
    ],
    ids=[
        "utf8-in-string", "utf8-bare", "surrogate-bytes", "surrogate-escape", "deep-action", "deep-line",
        "unclosed", "huge-float", "huge-int", "huge-id", "nan", "infinity", "bom", "control", "nul", "empty",
    ],
)  # fmt: skip
async def test_every_byte_a_bot_writes_ends_as_its_fault(
    payload: bytes, kind: str, reason: str, tmp_path: Path
) -> None:
    long_lines = msgspec.structs.replace(LIMITS, line_bytes=Limits().line_bytes)
    record = await duel(hostile("write", (payload + b"\n").hex()), tmp_path, long_lines)
    assert_fault(record, kind, reason)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [(b"\xff\xfe", "no number"), (DEEP, "no number"), (b"\xef\xbb\xbf", "no number"), (b"9" * 5000, "too long")],
    ids=["utf8", "deep", "bom", "huge"],
)
async def test_a_text_bot_writing_any_bytes_ends_as_its_fault(payload: bytes, reason: str, tmp_path: Path) -> None:
    text_bot = BotSpec(
        name="hostile-text", command=(sys.executable, str(HOSTILE / "text_bot.py"), (payload + b"\n").hex()),
        cwd=HOSTILE, profile="python", protocol="gops-text",
    )  # fmt: skip
    good = resolve(str(SAMPLE_BOTS / "gops" / "random-python"))
    limits = msgspec.structs.replace(LIMITS, line_bytes=Limits().line_bytes)
    record = await play_match(get_game("gops"), (text_bot, good), seed=3, limits=limits, log_dir=tmp_path)
    assert_fault(record, "protocol_error", reason)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("twice", "a second answer to request"),
        ("id_below", "a second answer to request"),
        ("id_zero", "never sent"),
        ("ahead", "before it was sent"),
    ],
)
async def test_an_answer_that_is_not_the_pending_ones_is_a_protocol_error(
    mode: str, reason: str, tmp_path: Path
) -> None:
    record = await duel(hostile(mode), tmp_path)
    assert_fault(record, "protocol_error", reason)


async def test_an_illegal_move_quotes_a_long_action_cut_short(tmp_path: Path) -> None:
    action = b'{"id":ID,"action":"' + b"x" * 3000 + b'"}\n'
    record = await duel(hostile("write", action.hex()), tmp_path)
    assert_fault(record, "illegal_move", "must be an integer")
    assert len(record.faults[0].reason) <= REASON_CHARS, record.faults[0].reason


async def test_a_fault_reason_never_carries_a_bots_control_characters(tmp_path: Path) -> None:
    # Badugi quotes an illegal betting action as written; the reason reaches terminals and pages.
    source = 'import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n    if "id" in m:\n'
    source += '        print(json.dumps({"id": m["id"], "action": "\\u001b[2J\\u0000"}), flush=True)\n'
    (tmp_path / "bot.py").write_text(source)
    bot = BotSpec(name="escape", command=(sys.executable, str(tmp_path / "bot.py")), cwd=tmp_path, profile="python")
    good = resolve(str(SAMPLE_BOTS / "badugi" / "calling-station-python"))
    record = await play_match(get_game("badugi", {"hands": 1}), (bot, good), seed=3, limits=LIMITS, log_dir=tmp_path)
    assert_fault(record, "illegal_move", "\\x1b[2J\\x00")
    assert record.faults[0].reason.isprintable() and record.result.reason.isprintable()


async def test_a_100_mb_line_does_not_grow_the_arena(tmp_path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    record = await duel(hostile("huge_line"), tmp_path)
    assert_fault(record, "output_limit", "without a newline")
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 32 << 10, f"the arena grew by {grown_kib} KiB reading a 100 MB line"


@pytest.mark.slow
async def test_a_stderr_flood_is_cut_to_its_limit_and_costs_nothing_else(tmp_path: Path) -> None:
    record = await duel(hostile("stderr_flood"), tmp_path)
    assert record.faults == []
    (log,) = tmp_path.glob("*.A.stderr.log")
    assert log.stat().st_size < LIMITS.stderr_bytes + 200
    assert b"more bytes of stderr dropped" in log.read_bytes()


async def test_a_stderr_flood_from_a_thread_is_drained_at_a_bounded_pace(tmp_path: Path) -> None:
    # Past the kept limit the arena reads a flood only now and then (the bot's writes wait meanwhile),
    # so its work is bounded by the time the flood lasts, not by how fast the bot writes.
    from arena.supervisor._process import STDERR_DROP_PAUSE_S, open_bot
    from arena.supervisor.match import MatchRunner, Seat
    from arena.supervisor.play import spawn_options

    flood, good = hostile("stderr_thread"), resolve(str(GOOD))
    started = trio.current_time()
    async with (
        open_bot(flood, spawn_options(flood, LIMITS, tmp_path / "flood.log")) as bot,
        open_bot(good, spawn_options(good, LIMITS, None)) as other,
    ):
        runner = MatchRunner(get_game("rps-poker"), 3, [Seat(bot, LIMITS), Seat(other, LIMITS)], match_id="flood")
        record = await runner.run()
        await trio.sleep(0.5)  # the flood goes on between matches too
    elapsed = trio.current_time() - started
    assert record.faults == []
    kept, _, said = (tmp_path / "flood.log").read_bytes().partition(b"\n[arena: ")
    assert kept == b"e" * LIMITS.stderr_bytes and b"more bytes of stderr dropped" in said
    assert bot.stats.stderr_drops <= elapsed / STDERR_DROP_PAUSE_S + 2, (bot.stats.stderr_drops, elapsed)


async def test_a_bot_that_ignores_sigterm_and_quit_is_still_killed(tmp_path: Path) -> None:
    record = await duel(hostile("ignore_sigterm"), tmp_path)
    assert record.faults == []  # it played well; the conftest fixture checks that it is gone


@pytest.mark.parametrize(("mode", "mib"), [("memory_gradual", ""), ("memory_at_once", "200")])
async def test_a_memory_hog_is_a_memory_limit_fault(mode: str, mib: str, tmp_path: Path) -> None:
    record = await duel(hostile(mode, mib), tmp_path)
    assert_fault(record, "memory_limit", "MiB")


@pytest.mark.slow
async def test_a_fork_bomb_is_contained_and_other_matches_go_on(tmp_path: Path) -> None:
    if not held("fork_bomb"):
        pytest.skip("nothing bounds processes here (root without cgroups or a dedicated UID)")
    records: dict[str, MatchRecord] = {}

    async def run(name: str, bot: BotSpec) -> None:
        folder = tmp_path / name
        folder.mkdir()
        records[name] = await duel(bot, folder)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, "bomb", hostile("fork_bomb"))
        nursery.start_soon(run, "calm", resolve(str(SAMPLE_BOTS / "rps-poker" / "random-python")))
    # Contained either way: its CPU time runs out, or, on a loaded machine, its forks' memory (each writes its copy
    # of the interpreter's pages) reaches the jail's limit first (ci95, beside two busy loops).
    (fault,) = records["bomb"].faults
    assert (fault.seat, fault.kind) in {("A", "timeout"), ("A", "memory_limit")}, fault
    assert "of CPU" in fault.reason or "128 MiB" in fault.reason, fault.reason
    assert records["bomb"].result.forfeit == ["A"]
    assert records["calm"].faults == []


@pytest.mark.parametrize("mode", ["tcp", "udp"])
async def test_network_connects_are_refused(mode: str, tmp_path: Path) -> None:
    if not held("network"):
        pytest.skip("no layer here blocks the network")
    kind = socket.SOCK_STREAM if mode == "tcp" else socket.SOCK_DGRAM
    with socket.socket(socket.AF_INET, kind) as server:
        server.bind(("127.0.0.1", 0))
        if mode == "tcp":
            server.listen()
        server.setblocking(False)
        record = await duel(hostile(mode, str(server.getsockname()[1])), tmp_path)
        with pytest.raises(BlockingIOError):
            server.accept() if mode == "tcp" else server.recv(64)
    if mode == "udp" and "seccomp" not in summary()["layers"]:
        # In a network namespace the datagram is sent into a loopback of its own: nothing reaches us.
        assert_fault(record, "crash", "exited with code")
    else:
        assert_fault(record, "crash", "exited with code 4")


def _secret(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    path = folder / name
    path.write_text("secret")
    path.chmod(0o644)
    return path


@pytest.mark.parametrize("target", ["other_bot", "results_db", "home"])
async def test_reading_what_is_not_its_own_is_refused(target: str, tmp_path: Path) -> None:
    if not held("secret"):
        pytest.skip("no layer here hides other files")
    if target == "other_bot":
        path = GOOD / "bot.py"
    elif target == "results_db":
        path = _secret(tmp_path / "arena-runs", "results.db")
    else:
        path = _secret(Path.home() / f".arena-hostile-{tmp_path.name}", "secret.txt")
    try:
        record = await duel(hostile("read_file", str(path).encode().hex()), tmp_path)
    finally:
        if target == "home":
            shutil.rmtree(path.parent, ignore_errors=True)
    assert_fault(record, "crash", "exited with code 4")


async def test_writing_outside_scratch_is_refused(tmp_path: Path) -> None:
    if not held("write_outside"):
        pytest.skip("no layer here confines writes")
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)
    target = open_folder / "written.txt"
    record = await duel(hostile("write_outside", str(target).encode().hex()), tmp_path)
    assert_fault(record, "crash", "exited with code 4")
    assert not target.exists()


@pytest.mark.parametrize(("folder", "tool"), [pytest.param("java", "java", marks=pytest.mark.slow), ("node", "node")])
async def test_jvm_and_node_bots_play_well_under_the_default_limits(folder: str, tool: str, tmp_path: Path) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    limits = msgspec.structs.replace(Limits(), startup_s=30.0)  # a JVM compiling Bot.java on a busy machine
    record = await duel(resolve(str(HOSTILE / folder)), tmp_path, limits)
    assert record.faults == [], record.faults


async def _bot_pid(launcher: int, marker: str) -> int:
    """The pid of the process under ``launcher`` whose command line holds ``marker`` (the bot itself, in its jail)."""
    with trio.fail_after(20):
        while True:
            for child in psutil.Process(launcher).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    if any(marker in part for part in child.cmdline()):
                        return child.pid
            await trio.sleep(0.02)


def _processes_with(token: str, *, kill: bool = True) -> list[int]:
    """Live processes with ``token`` as a word of their command line (killed unless ``kill`` is false)."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if token in (proc.info["cmdline"] or []) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc.pid)
            if kill:
                with contextlib.suppress(psutil.Error):
                    proc.kill()
    return found


@pytest.mark.usefixtures("own_build_root")
async def test_a_build_runs_in_the_jail_and_leaves_nothing_running(tmp_path: Path) -> None:
    if not (held("secret") and held("write_outside") and held("network") and held("escape")):
        pytest.skip("the sandbox here does not hold secret, write_outside, network and escape")
    secret = _secret(tmp_path / "private", "secret.txt")
    outside = tmp_path / "open"
    outside.mkdir()
    outside.chmod(0o777)
    folder = tmp_path / "evil"
    folder.mkdir()
    shutil.copy(HOSTILE / "build_attack.py", folder)
    token = f"arena-build-daemon-{secrets.token_hex(4)}"
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        victim_spec = resolve(str(GOOD))
        async with open_bot(victim_spec, SpawnOptions(env=bot_environment(victim_spec), limits=LIMITS)) as victim:
            victim_pid = await _bot_pid(victim.pid, "bot.py")
            args = [str(p).encode().hex() for p in (secret, outside, folder)]
            args += [str(victim_pid), str(listener.getsockname()[1]), token]
            (folder / "bot.toml").write_text(f'build = "python3 build_attack.py {" ".join(args)}"\nrun = "true"\n')
            spec = resolve(str(folder))
            await ensure_built(spec)
            await trio.sleep(0.3)  # a surviving daemon would stop the victim meanwhile
            assert psutil.Process(victim_pid).status() != psutil.STATUS_STOPPED, "the build stopped another bot"
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert _processes_with(token) == [], "a daemon of the build survived it"
    built = built_folder(spec)
    assert built is not None
    report = json.loads((built / BUILD_DIR / "report.json").read_text())
    assert {k: v.split(":")[0] for k, v in report.items()} == dict.fromkeys(
        ("read_secret", "write_outside", "write_source", "connect", "stop_victim"), "refused"
    ), report
    assert not (outside / "written-by-build.txt").exists()
    assert sorted(p.name for p in folder.iterdir()) == ["bot.toml", "build_attack.py"], "the bot's folder was written"


async def test_links_in_a_bot_folder_never_lead_the_arena_outside(tmp_path: Path, own_build_root: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    private = _secret(tmp_path / "private", "secret.txt")
    private.chmod(0o600)
    folder = tmp_path / "linked"
    folder.mkdir()
    (folder / ".arena-build").symlink_to(target)  # shipped: the arena must not build into it
    (folder / "secret.txt").symlink_to(private)
    (folder / "kmsg").symlink_to("/proc/kmsg")  # reading it would block the arena for ever
    os.mkfifo(folder / "pipe")
    build = "sh -c 'cat secret.txt > .arena-build/copied; echo built > .arena-build/done; exit 0'"
    (folder / "bot.toml").write_text(f'build = "{build}"\nrun = "true"\n')
    with trio.fail_after(60):
        spec = resolve(str(folder))
        await ensure_built(spec)
    assert list(target.iterdir()) == [], "the arena wrote through the shipped .arena-build link"
    built = built_folder(spec)
    assert built is not None and built.is_relative_to(own_build_root)
    assert (built / BUILD_DIR / "done").read_text() == "built\n"
    assert (built / "secret.txt").is_symlink() and not (built / "pipe").exists()
    if held("secret"):
        assert (built / BUILD_DIR / "copied").read_text() == "", "the build read a private file through a link"
    assert sorted(p.name for p in folder.iterdir()) == [".arena-build", "bot.toml", "kmsg", "pipe", "secret.txt"]


async def test_a_build_that_deletes_its_bot_toml_is_still_a_folder_bot_whose_links_lead_nowhere(
    tmp_path: Path, own_build_root: Path
) -> None:
    # Run from its built folder with no bot.toml left, a bot was taken for a command-line bot: the files its
    # command names were followed through their links and made readable in its jail (a server's data folder).
    if not held("secret"):
        pytest.skip("the sandbox here does not hold secret")
    private = _secret(tmp_path / "private", "seed.txt")  # readable by all, in a folder only its owner may enter
    private.parent.chmod(0o700)
    folder = tmp_path / "sly"
    folder.mkdir()
    shutil.copy(HOSTILE / "bot.py", folder)
    build = f"sh -c 'rm bot.toml && ln -s {private} data'"
    (folder / "bot.toml").write_text(f'build = "{build}"\nrun = "python3 bot.py read_named data"\n')
    spec = resolve(str(folder))
    await ensure_built(spec)
    built = built_folder(spec)
    assert built is not None and not (built / "bot.toml").exists() and (built / "data").is_symlink()
    assert_fault(await duel(spec, tmp_path), "crash", "exited with code 4")  # (it plays on where it read the file)


@pytest.fixture
def layers() -> Iterator[Callable[..., None]]:
    """Narrow the sandbox to some layers for one test (skipped when the machine lacks one)."""
    saved = current_policy()

    def use(*names: str) -> None:
        for name in names:
            if name not in capabilities().available:
                pytest.skip(f"layer {name!r} is not available here: {capabilities().missing.get(name)}")
        configure(SandboxPolicy(layers=frozenset(names)))

    yield use
    configure(saved)


CONTAINER = ("uid", "cgroup", "landlock", "seccomp", "rlimits")
"""What a root container without namespaces offers: the layers of the io_uring finding."""


async def test_a_bot_filling_its_disk_is_stopped_at_its_quota(tmp_path: Path) -> None:
    limits = msgspec.structs.replace(LIMITS, disk_bytes=16 << 20)
    record = await duel(hostile("disk_fill"), tmp_path, limits)
    if {"bwrap", "mntns"} & set(summary()["layers"]):
        assert_fault(record, "crash", "exited with code 4")  # a tmpfs of 16 MiB: the write that overflows fails
    else:
        assert_fault(record, "disk_limit", "over its limit of 16 MiB")


async def test_a_bot_filling_its_disk_where_the_arena_measures_it_is_ended(tmp_path: Path, layers) -> None:  # type: ignore[no-untyped-def]
    layers(*CONTAINER)
    limits = msgspec.structs.replace(LIMITS, disk_bytes=16 << 20)
    record = await duel(hostile("disk_fill"), tmp_path, limits)
    assert_fault(record, "disk_limit", "over its limit of 16 MiB")


@pytest.mark.parametrize("channel", ["flock", "futex", "abstract_socket", "proc"])
async def test_two_copies_of_a_bot_cannot_find_each_other(channel: str, tmp_path: Path) -> None:
    if not held("collusion"):
        pytest.skip("nothing here keeps the bots of a match apart")
    bot = hostile(f"collude_{channel}")
    record = await play_match(get_game("rps-poker"), (bot, bot), seed=3, limits=LIMITS, log_dir=tmp_path)
    assert record.faults == [], f"a copy found the other through {channel}: {record.faults}"


def sender_and_receiver(channel: str, *args: str) -> tuple[BotSpec, BotSpec]:
    return (
        BotSpec(name=f"hostile-send-{channel}", command=(sys.executable, str(HOSTILE / "bot.py"), f"send_{channel}",
                *args), cwd=HOSTILE, profile="python"),
        BotSpec(name=f"hostile-receive-{channel}", command=(sys.executable, str(HOSTILE / "bot.py"),
                f"receive_{channel}", *args), cwd=HOSTILE, profile="python"),
    )  # fmt: skip


@pytest.fixture
def shared_file() -> Iterator[Path]:
    """A file every jail may read (named on both bots' command lines), on disk: its pages can leave the cache."""
    with tempfile.TemporaryDirectory(prefix="arena-shared-") as name:
        folder = Path(name)
        folder.chmod(0o755)
        path = folder / "shared.bin"
        with open(path, "wb") as file:
            file.write(secrets.token_bytes(32 * 4096))
            file.flush()
            os.fsync(file.fileno())  # a dirty page is not dropped: the sender's first step would do nothing
        path.chmod(0o644)
        yield path


@pytest.mark.slow
async def test_a_bot_cannot_signal_another_through_the_page_cache(shared_file: Path, tmp_path: Path) -> None:
    # Issue 27 item 14: fadvise(DONTNEED) to clear, pread to set, preadv2(RWF_NOWAIT) to read: 24 of 24 bits.
    if not held("collusion"):
        pytest.skip("nothing here keeps the bots of a match apart")
    probe = os.open(shared_file, os.O_RDONLY)
    try:
        os.posix_fadvise(probe, 0, 0, os.POSIX_FADV_DONTNEED)
        with contextlib.suppress(BlockingIOError):
            os.preadv(probe, [bytearray(1)], 0, os.RWF_NOWAIT)
            pytest.skip(f"{shared_file.parent} keeps its pages cached (a tmpfs?): no channel to close there")
    finally:
        os.close(probe)
    sender, receiver = sender_and_receiver("page_cache", str(shared_file))
    record = await play_match(get_game("rps-poker"), (sender, receiver), seed=3, limits=LIMITS, log_dir=tmp_path)
    assert record.faults == [], f"the receiver read the sender's bits: {record.faults}"


@pytest.mark.slow
async def test_a_bot_cannot_signal_another_through_the_shared_memory_counter(tmp_path: Path) -> None:
    # Issue 27 item 14: the global Shmem: line of /proc/meminfo, moved by 16 MiB written to a tmpfs scratch.
    if not held("collusion"):
        pytest.skip("nothing here keeps the bots of a match apart")
    sender, receiver = sender_and_receiver("shmem")
    record = await play_match(get_game("rps-poker"), (sender, receiver), seed=3, limits=LIMITS, log_dir=tmp_path)
    assert record.faults == [], f"the receiver saw the sender's swings: {record.faults}"


@pytest.mark.parametrize("mode", ["uring_udp", "socket_high_bits"])
async def test_no_socket_slips_past_seccomp(mode: str, tmp_path: Path, layers) -> None:  # type: ignore[no-untyped-def]
    layers(*CONTAINER)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server:
        server.bind(("127.0.0.1", 0))
        server.setblocking(False)
        port = str(server.getsockname()[1])
        args = (str(CANARY), port) if mode == "uring_udp" else (port,)
        bot = BotSpec(name=f"hostile-{mode}", command=(sys.executable, str(HOSTILE / "bot.py"), mode, *args),
                      cwd=HOSTILE, profile="python")  # fmt: skip
        record = await duel(bot, tmp_path)
        with pytest.raises(BlockingIOError):
            server.recv(64)
    assert_fault(record, "crash", "exited with code 4")


async def test_every_page_cache_probe_and_sysinfo_is_refused(tmp_path: Path) -> None:
    if "seccomp" not in summary()["layers"]:
        pytest.skip("only seccomp refuses them")
    record = await duel(hostile("cache_probes"), tmp_path)
    assert_fault(record, "crash", "exited with code 4")


async def test_no_new_user_namespace(tmp_path: Path) -> None:
    if "seccomp" not in summary()["layers"]:
        pytest.skip("only seccomp refuses new namespaces")
    record = await duel(hostile("clone_userns"), tmp_path)
    assert_fault(record, "crash", "exited with code 4")


FAKE_BWRAP = """
import os, signal, sys, time
assert sys.argv[1] == "--args"  # the launcher hands bubblewrap its options in a descriptor
token = os.read(int(sys.argv[2]), 4096).split(b"\\0")[0].decode()
if os.fork() == 0:  # like bubblewrap's own half in a new PID namespace, waiting for a sign from the other
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", token])
os.wait()
"""


def test_when_the_arena_dies_during_set_up_no_half_of_the_jail_survives(tmp_path: Path) -> None:
    fake = tmp_path / "fake_bwrap.py"
    fake.write_text(f"#!{sys.executable}\n{FAKE_BWRAP}")
    fake.chmod(0o755)
    token = f"arena-half-jail-{secrets.token_hex(4)}"
    lifeline_r, lifeline_w = os.pipe()
    config = {"argv": ["true"], "cwd": "/", "env": {"PATH": "/usr/bin:/bin"}, "lifeline": lifeline_r,
              "bwrap": [str(fake), token]}  # fmt: skip
    launcher = subprocess.Popen(launch_argv(config), pass_fds=(lifeline_r,))
    os.close(lifeline_r)
    try:
        deadline = time.monotonic() + 20
        while not _processes_with(token, kill=False) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _processes_with(token, kill=False), "the fake jail never started"
        os.close(lifeline_w)  # the arena dies: the launcher kills its child, the outer half
        launcher.wait(timeout=20)
        deadline = time.monotonic() + 20  # killed as the launcher ends: gone as soon as the kernel has reaped it
        while _processes_with(token, kill=False) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _processes_with(token) == [], "the inner half outlived its launcher"
    finally:
        with contextlib.suppress(OSError):
            os.close(lifeline_w)
        launcher.kill()
        launcher.wait()


# A bot that remembers deals (issue: the two legs of a duplicate deal in one reused process) ------------------------
REMEMBERS = HOSTILE / "remembers-deals"


def remembers_deals(*, persistent: bool = False) -> BotSpec:
    return BotSpec(
        name="remembers-deals", command=(sys.executable, str(REMEMBERS / "bot.py")), cwd=REMEMBERS,
        reuse=True, persistent=persistent, profile="python",
    )  # fmt: skip


async def test_a_process_that_played_one_leg_of_a_deal_recognises_the_other(tmp_path: Path) -> None:
    # What the arena must prevent: one process given both legs knows its opponent's hand in the second.
    game = get_game("rps-poker")
    spec = remembers_deals()
    records = []
    async with open_bot(spec, spawn_options(spec, LIMITS, tmp_path / "r.stderr.log")) as bot:
        for leg in (0, 1):
            async with open_bot(resolve(str(GOOD)), spawn_options(resolve(str(GOOD)), LIMITS, None)) as other:
                seats = [
                    Seat(bot=bot, limits=LIMITS, name="remembers-deals", wire=wire_for("json", game)),
                    Seat(bot=other, limits=LIMITS, name="minimal-python", wire=wire_for("json", game)),
                ]
                runner = MatchRunner(
                    game, 21, seats if leg == 0 else seats[::-1], match_id=f"m{leg}", log=MatchLog(None)
                )
                records.append(await runner.run())
                await other.shutdown(polite=b'{"type":"quit"}\n')
    assert records[0].faults == []
    assert [(f.kind, "code 5" in f.reason) for f in records[1].faults] == [("crash", True)]


@pytest.mark.slow
@pytest.mark.parametrize("persistent", [False, True])
def test_a_bot_that_remembers_deals_never_meets_the_other_leg_in_a_competition(
    tmp_path: Path, persistent: bool
) -> None:
    config = TournamentConfig(
        game="rps-poker",
        bots=[BotEntry(text=str(GOOD)), BotEntry(text=str(SAMPLE_BOTS / "rps-poker" / "random-python"))],
        cycles=3,
        seed=21,
        limits=LIMITS,
        db=tmp_path / "r.sqlite",
        logs=False,
    )
    plan = prepare(config)
    plan.specs = {"remembers-deals": remembers_deals(persistent=persistent), **plan.specs}
    with Store.open(config.db) as store:
        competition = open_competition(plan, store)
        summary = trio.run(lambda: run_tournament(plan, store, competition, jobs=1))
        matches = store.matches(competition.id)
    assert summary.not_admitted == {} and len(matches) == 3 * 3 * 2
    assert [f for m in matches for f in m.faults] == []


# CPU between moves (issue 27, item 12): charged to the bot, never free ------------------------------------------


@contextlib.contextmanager
def without_cgroup() -> Iterator[None]:
    """The sandbox policy without its cgroup layer (as unprivileged): no freezer, CPU read from /proc."""
    saved = current_policy()
    configure(SandboxPolicy(layers=frozenset(set(saved.layers) - {"cgroup"})))
    try:
        yield
    finally:
        configure(saved)


def frozen_or_charged(mode: str) -> contextlib.AbstractContextManager[None]:
    """``charged``: without cgroups; ``frozen``: with the cgroup freezer (skipped where there is none)."""
    if mode == "charged":
        return without_cgroup()
    cgroup = capabilities().cgroup
    if cgroup is None or "cgroup" not in current_policy().layers or not cgroup.freezer:
        pytest.skip(f"no cgroup freezer here: {capabilities().missing.get('cgroup', 'not in the policy')}")
    return contextlib.nullcontext()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["frozen", "charged"])
async def test_cpu_a_bot_burns_between_its_answer_and_the_next_request_is_charged_to_it(
    mode: str, tmp_path: Path
) -> None:
    # 0.3 s of CPU after each answer (within the background allowance), while the arena waits 1.5 s for the slow
    # opponent: it used to be free. Charged: it is the next move's, whose budget is 0.2 s. Frozen: it cannot run
    # before the next request, and runs in that move.
    slow = BotSpec(
        name="slow", command=(sys.executable, str(HOSTILE / "bot.py"), "slow", "1.5"), cwd=HOSTILE, profile="python"
    )
    game = get_game("rps-poker")
    limits = msgspec.structs.replace(LIMITS, move_s=0.1, time_bank_s=0.1)
    with frozen_or_charged(mode):
        record = await play_match(
            game, (hostile("burn_after_answer", "0.3"), slow), seed=3, limits=limits, log_dir=tmp_path
        )
    assert_fault(record, "timeout", "no answer within 0.2s of CPU")
    before = re.search(r"([\d.]+)s of it before the request, between moves", record.faults[0].reason)
    if mode == "charged":  # the burn after its answer is the next move's
        assert before and float(before[1]) >= 0.2, record.faults[0].reason
    else:  # it ran only until the freeze: milliseconds (a loaded machine's run saw 0.0218 s named), never the burn
        assert before is None or float(before[1]) < 0.1, record.faults[0].reason


def test_a_timeout_names_the_cpu_used_before_the_request_only_when_it_mattered() -> None:
    # In CI a frozen bot's timeout said "0.00571s of it before the request, between moves": the few milliseconds a
    # bot runs between its answer and the freeze on a busy machine, beside a move that alone used 0.29 s of 0.2 s.
    def reason(idle_s: float, cpu_s: float) -> str:
        no_clock = typing.cast(typing.Any, None)  # (the reason reads none of it)
        move = _Move(no_clock, 0.0, False, 0.0, output_budget=0, poll_s=0.1, idle_s=idle_s)
        return move.over_budget(cpu_s, 0.2).reason

    assert reason(0.00571, 0.3) == "no answer within 0.2s of CPU (used 0.3s over its process tree)"
    assert reason(0.3, 0.3).endswith("(used 0.3s over its process tree, 0.3s of it before the request, between moves)")
    assert "0.01s of it before the request" in reason(0.01, 0.205)  # the move alone was within its budget
    assert "0.025s of it before the request" in reason(0.025, 0.5)  # over a tenth of the budget
    assert "before the request" not in reason(0.004, 0.201)  # a few milliseconds: never named


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["frozen", "charged"])
async def test_cpu_busy_loops_running_from_the_start_exhaust_the_background_allowance(
    mode: str, tmp_path: Path
) -> None:
    # Issue 27's reused bot: four busy loops from its start, every answer at once; each move's CPU stayed far below
    # its budget (the gaps between moves are short), yet the loops took the machine's CPU from everyone else.
    # Charged, they exhaust its background allowance; frozen, they run only within its moves (tests/test_freeze.py
    # measures that they use nothing between them).
    slow = BotSpec(
        name="slow", command=(sys.executable, str(HOSTILE / "bot.py"), "slow", "0.3"), cwd=HOSTILE, profile="python"
    )
    game = get_game("rps-poker")
    with frozen_or_charged(mode):
        record = await play_match(game, (hostile("busy_at_start"), slow), seed=3, limits=LIMITS, log_dir=tmp_path)
    if mode == "frozen":
        assert record.faults == []
        return
    # The loops' CPU between moves is named either way: the background allowance ran out between two requests, or
    # (a loaded machine: ci58) a move's budget was spent before its request by what ran between moves.
    assert [fault.kind for fault in record.faults] == ["timeout"], record.faults
    reason = record.faults[0].reason
    between = "while no request was pending" in reason and "of a CPU on average" in reason
    assert between or "of it before the request, between moves" in reason, reason


async def test_cpu_a_pooled_bot_burns_while_idle_ends_it_and_its_next_match_says_why(tmp_path: Path) -> None:
    # Without a freezer (tests/test_freeze.py has the frozen case: its loops never run in the pool).
    from arena.supervisor._pool import open_pool

    game = get_game("rps-poker")
    spec = dataclasses.replace(hostile("busy_when_idle"), reuse=True)
    good = resolve(str(GOOD))

    async def play(seed: int) -> MatchRecord:
        bots = [await pool.acquire(spec, LIMITS, deal=seed), await pool.acquire(good, LIMITS, deal=seed)]
        seats = [Seat(bot=b, limits=LIMITS, name=b.spec.name, wire=wire_for("json", game)) for b in bots]
        record = await MatchRunner(game, seed, seats, match_id=f"m{seed}").run()
        faulted = {f.seat for f in record.faults}
        for bot, seat in zip(bots, "AB", strict=True):
            pool.release(bot, faulted=seat in faulted)
        return record

    with without_cgroup():
        async with open_pool() as pool:
            assert (await play(1)).faults == []  # its busy loops start as the match ends
            (idle,) = [held.bot for held in pool._idle[spec.name]]
            with trio.fail_after(30):
                while idle.breach is None:
                    await trio.sleep(0.1)
            with trio.move_on_after(10):  # (the breach is noted, then the process group killed and reaped)
                while idle.process.poll() is None:
                    await trio.sleep(0.05)
            assert idle.process.poll() is not None, "the pool ended it while idle"
            record = await play(2)
    assert_fault(record, "timeout", "while no request was pending")


# Shared memory (issue 27, item 13): counted where no cgroup is, as where one is --------------------------------


@pytest.mark.parametrize("cgroup", [True, False], ids=["cgroup", "polled"])
async def test_shared_memory_in_children_is_counted_against_the_limit(cgroup: bool, tmp_path: Path) -> None:
    # Four children with 64 MiB of MAP_SHARED memory each, under a 128 MiB limit: the polled figure (resident
    # minus shared) saw none of it.
    layers = set(capabilities().available) & set(current_policy().layers)
    if cgroup and "cgroup" not in layers:
        pytest.skip(f"no cgroup here: {capabilities().missing.get('cgroup')}")
    saved = current_policy()
    configure(SandboxPolicy(layers=frozenset(layers if cgroup else layers - {"cgroup"})))
    # (Room in CPU and wall time for its four interpreters' start and 256 MiB of writes: at load 10 they took more
    # than the 0.5 s of CPU the other hostile bots get, and its fault was the timeout: fresh-clone run ci30.)
    roomy = msgspec.structs.replace(LIMITS, move_s=3.0, time_bank_s=2.0, move_wall_s=20.0)
    try:
        record = await duel(hostile("memory_shared"), tmp_path, roomy)
    finally:
        configure(saved)
    assert_fault(record, "memory_limit", "128 MiB")


OWN_SHARED_FUTEX = """
import ctypes, json, mmap, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
word = mmap.mmap(-1, 4096)  # its own memory: a futex without FUTEX_PRIVATE_FLAG, as libstdc++'s static guards use
address = ctypes.addressof(ctypes.c_uint32.from_buffer(word))
FUTEX_WAIT, FUTEX_WAKE, SYS_FUTEX = 0, 1, 202


def waiter():
    while ctypes.c_uint32.from_address(address).value == 0:  # a wait may return early: check again, as callers do
        libc.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAIT, 0, None, 0, 0)


thread = threading.Thread(target=waiter)
thread.start()
time.sleep(0.3)  # the waiter is asleep in the kernel by now
ctypes.c_uint32.from_address(address).value = 1
libc.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAKE, 1, None, 0, 0)
thread.join()
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
    elif message["type"] == "quit":
        break
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the bot calls futex by its x86-64 number")
async def test_a_bot_waking_its_own_shared_futex_is_not_deadlocked(tmp_path: Path) -> None:
    # Making shared futex wake-ups no-ops (against signals between jails) left a bot's own waiter asleep for ever:
    # node hung at start-up about once in twenty, in libstdc++'s guard of a static local.
    (tmp_path / "bot.py").write_text(OWN_SHARED_FUTEX)
    bot = BotSpec(name="own-futex", command=(sys.executable, "bot.py"), cwd=tmp_path, profile="python")
    record = await duel(bot, tmp_path / "logs")
    assert not record.faults, record.faults
