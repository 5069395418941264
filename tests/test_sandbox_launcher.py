"""The compiled launcher (``arena/sandbox/launch.c``): what it does before and after the bot, and its fallback."""

from __future__ import annotations

import contextlib
import os
import resource
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import trio

from arena.bots.spec import resolve
from arena.sandbox import Jail, _native, capabilities, current_policy
from arena.supervisor._process import open_bot
from arena.supervisor.play import QUIT_LINE, spawn_options
from protocol import Limits

from .conftest import SAMPLE_BOTS

LAYER_FAILED = 121
SIMPLE = SAMPLE_BOTS / "rps-poker" / "simple-py"


@pytest.fixture
def binary() -> str:
    found = _native.launcher()
    if found is None:
        pytest.skip(f"no compiled launcher here: {_native.why_not()}")
    return found


def launch(
    binary: str, *command: str, options: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    argv = [binary, *options, "-d", "/", "--", *command]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False, env=env)


def wait_for(condition: object, what: str, deadline_s: float = 20.0) -> None:
    deadline = time.monotonic() + deadline_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def processes_with(token: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if any(token in word for word in proc.info["cmdline"] or []) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


def test_it_runs_the_command_with_exactly_the_environment_it_is_given(binary: str) -> None:
    done = launch(binary, "/usr/bin/env", options=("-e", "ONLY=this", "-e", "PATH=/usr/bin"),
                  env={**os.environ, "ARENA_SUPERVISOR_PID": "1", "SECRET": "x"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == ["ONLY=this", "PATH=/usr/bin"]


def test_it_ends_as_the_command_ended(binary: str) -> None:
    assert launch(binary, "/bin/sh", "-c", "exit 3").returncode == 3
    assert launch(binary, "/bin/sh", "-c", "kill -9 $$").returncode == -9
    missing = launch(binary, "/nonexistent/program")
    assert missing.returncode == 127 and "cannot run '/nonexistent/program'" in missing.stderr


def test_it_sets_the_rlimits_before_the_command_runs(binary: str) -> None:
    options = ("-r", f"{resource.RLIMIT_NOFILE}:37:38", "-r", f"{resource.RLIMIT_CORE}:0:0")
    done = launch(binary, "/bin/sh", "-c", "ulimit -Sn; ulimit -Hn; ulimit -c", options=options)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["37", "38", "0"]


def test_a_layer_it_cannot_apply_is_fatal(binary: str, tmp_path: Path) -> None:
    done = launch(binary, "/usr/bin/true", options=("-j", str(tmp_path / "no-such-group" / "tasks")))
    assert done.returncode == LAYER_FAILED and "cannot join cgroup" in done.stderr
    done = launch(binary, "/usr/bin/true", options=("-p", "abc"))
    assert done.returncode == LAYER_FAILED and "seccomp program" in done.stderr


def test_the_command_runs_in_its_cgroups_from_its_first_instruction(binary: str) -> None:
    base = capabilities().cgroup
    if base is None:
        pytest.skip(f"no cgroup here: {capabilities().missing.get('cgroup')}")
    group = base.create(f"bot-launcher-test-{secrets.token_hex(4)}", memory_bytes=64 << 20, tasks=8)
    try:
        options = tuple(arg for path in group.join_files for arg in ("-j", path))
        done = launch(binary, "/bin/cat", "/proc/self/cgroup", options=options)
        assert done.returncode == 0, done.stderr
        for folder in group.dirs.values():
            assert f"/{folder.name}\n" in done.stdout + "\n", f"not in {folder}: {done.stdout}"
    finally:
        group.kill_all()
        group.remove()


def test_the_seccomp_program_goes_to_the_program_as_a_descriptor(binary: str, tmp_path: Path) -> None:
    program = bytes(range(16))  # two instructions' worth: the launcher only hands it over
    script = tmp_path / "fake-bwrap"  # (bubblewrap takes --seccomp FD among its options, before "--")
    script.write_text('#!/bin/sh\ntest "$1" = --seccomp && test "$3" = last && od -An -tx1 <&"$2" | tr -d " \\n"\n')
    script.chmod(0o755)
    done = launch(binary, str(script), "last", options=("-p", program.hex()))
    assert done.returncode == 0, done.stderr
    assert done.stdout == program.hex()


def test_it_kills_what_the_command_left_running(binary: str) -> None:
    token = f"arena-orphan-{secrets.token_hex(4)}"
    try:
        done = launch(binary, "/bin/sh", "-c", f"setsid sleep 300 {token} >/dev/null 2>&1 & exit 0")
        assert done.returncode == 0, done.stderr
        wait_for(lambda: not processes_with(token), "the orphan outlived its launcher")
    finally:
        for proc in processes_with(token):
            with contextlib.suppress(psutil.Error):
                proc.kill()


FAKE_BWRAP = """
import os, signal, sys, time
if os.fork() == 0:  # like bubblewrap's own half in a new PID namespace, waiting for a sign from the other
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", sys.argv[1]])
os.wait()
"""


def test_when_the_arena_dies_the_launcher_kills_the_whole_jail(binary: str, tmp_path: Path) -> None:
    fake = tmp_path / "fake_bwrap.py"
    fake.write_text(FAKE_BWRAP)
    token = f"arena-half-jail-{secrets.token_hex(4)}"
    lifeline_r, lifeline_w = os.pipe()
    jail = [sys.executable, str(fake), token]
    argv = [binary, "-l", str(lifeline_r), "-e", "PATH=/usr/bin:/bin", "-d", "/", "--", *jail]
    launcher = subprocess.Popen(argv, pass_fds=(lifeline_r,))
    os.close(lifeline_r)
    try:
        wait_for(lambda: processes_with(token), "the fake jail never started")
        os.close(lifeline_w)  # the arena dies: the launcher kills its child, the outer half
        launcher.wait(timeout=20)
        wait_for(lambda: not processes_with(token), "the inner half outlived its launcher")
    finally:
        with contextlib.suppress(OSError):
            os.close(lifeline_w)
        launcher.kill()
        launcher.wait()
        for proc in processes_with(token):
            with contextlib.suppress(psutil.Error):
                proc.kill()


def _jail_argv0() -> str:
    spec = resolve(str(SIMPLE))
    jail = Jail(spec, Limits(), current_policy(), capabilities())
    try:
        jail.prepare({"PATH": "/usr/bin:/bin"})
        return jail.argv[0]
    finally:
        jail.kill_all()
        jail.close()


async def _one_answer() -> bytes:
    spec = resolve(str(SIMPLE))
    async with open_bot(spec, spawn_options(spec, Limits(), None)) as bot:
        await bot.send(b'{"type":"draft_pick","id":1,"round":1,"cards":["R3","P7"]}\n')
        line = await bot.read_line(output_budget=1 << 20)
        await bot.shutdown(polite=QUIT_LINE)
    return line


def test_a_jail_bubblewrap_builds_starts_through_it(binary: str) -> None:
    if capabilities().bwrap is None or "bwrap" not in capabilities().available:
        pytest.skip("no bubblewrap here")
    assert _jail_argv0() == binary
    assert b'"id":1' in trio.run(_one_answer).replace(b" ", b"")


def test_without_a_compiled_launcher_the_python_one_starts_the_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_native, "launcher", lambda: None)
    assert _jail_argv0() == sys.executable
    assert b'"id":1' in trio.run(_one_answer).replace(b" ", b"")


def test_no_compiler_means_no_compiled_launcher_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    _native.launcher.cache_clear()
    try:
        assert _native.launcher() is None
        assert "no C compiler" in _native.why_not()
    finally:
        _native.launcher.cache_clear()


def test_a_binary_others_may_write_is_not_run(binary: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    (tmp_path / f"arena-sandbox-{os.geteuid()}").mkdir(mode=0o777)
    os.chmod(tmp_path / f"arena-sandbox-{os.geteuid()}", 0o777)
    _native.launcher.cache_clear()
    try:
        assert _native.launcher() is None
        assert "others may write it" in _native.why_not()
    finally:
        _native.launcher.cache_clear()


def test_a_launcher_that_does_not_run_here_is_not_used(
    binary: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # As on a machine whose temporary folder is mounted noexec: the file is there, but nothing runs from it.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    where = _native.folder()
    where.mkdir(mode=0o711)
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert compiler is not None
    fake = _native.binary_path(where, _native.SOURCE.read_bytes(), compiler)
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o700)
    _native.launcher.cache_clear()
    try:
        assert _native.launcher() is None
        assert "does not run here" in _native.why_not()
    finally:
        _native.launcher.cache_clear()


STATUS_LINES = ("Uid:", "Gid:", "Groups:", "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:")


def bwrap_root(bwrap: str) -> list[str]:
    """A bubblewrap command line (up to its ``--``) of a plain jail: its own PIDs, the host's files read only."""
    return [bwrap, "--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]


def test_its_drop_inside_the_jail_leaves_the_bot_its_own_ids_and_no_capability(binary: str) -> None:
    bwrap = capabilities().bwrap
    if os.geteuid() != 0 or bwrap is None:
        pytest.skip("the drop runs as root, inside bubblewrap")
    uid = 60000 + secrets.randbelow(1000)
    # The descriptor the launcher runs itself by is closed on the drop's exec: the command sees only its own.
    script = "grep -E '^(Uid|Gid|Groups|Cap[A-Za-z]+):' /proc/self/status; readlink /proc/self/fd/* | grep -c launch-"
    bwrap_part = bwrap_root(bwrap)
    done = launch(
        binary, *bwrap_part, "--", "@self", "--drop", "@self-fd", str(uid), str(uid), "--", "sh", "-c", script,
        env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    lines = dict(line.split(":", 1) for line in done.stdout.splitlines() if line.startswith(STATUS_LINES))
    assert lines["Uid"].split() == [str(uid)] * 4 and lines["Gid"].split() == [str(uid)] * 4, done.stdout
    assert lines["Groups"].strip() == "", done.stdout
    assert all(int(lines[name], 16) == 0 for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")), done.stdout
    assert done.stdout.splitlines()[-1] == "0", f"the launcher's own descriptor reached the command: {done.stdout}"


def test_it_will_not_drop_to_root(binary: str) -> None:
    done = subprocess.run([binary, "--drop", "0", "0", "0", "--", "true"], capture_output=True, text=True, timeout=60)
    assert done.returncode == LAYER_FAILED and "root" in done.stderr


def test_pid_1s_command_line_is_the_same_whatever_the_arenas_descriptors(binary: str) -> None:
    if capabilities().bwrap is None or "bwrap" not in capabilities().available:
        pytest.skip("no bubblewrap here")
    jail = Jail(resolve(str(SIMPLE)), Limits(), current_policy(), capabilities())
    jail.prepare({"PATH": "/usr/bin:/bin"})
    seen = []
    try:
        low = next(fd for fd in range(3, 64) if not Path(f"/proc/self/fd/{fd}").exists())
        for lifeline in (low, 200):  # the arena's lifeline falls among the launcher's memfds, or past them
            os.dup2(jail.config["lifeline"], lifeline)
            try:
                program = ["/bin/sh", "-c", "tr '\\0' ' ' < /proc/1/cmdline"]
                argv = jail._native_argv(binary, {**jail.config, "lifeline": lifeline, "argv": program})
                env = {"PATH": "/usr/bin:/bin"}
                done = subprocess.run(argv, pass_fds=(lifeline,), capture_output=True, text=True, timeout=60, env=env)
            finally:
                os.close(lifeline)
            assert done.returncode == 0 and "--args" in done.stdout, done.stderr
            seen.append(done.stdout)
    finally:
        jail.kill_all()
        jail.close()
    assert seen[0] == seen[1]


def test_a_command_naming_self_gets_the_words_not_the_launcher(binary: str) -> None:
    bwrap = capabilities().bwrap
    if bwrap is None or "bwrap" not in capabilities().available:
        pytest.skip("no bubblewrap here")
    bwrap_part = bwrap_root(bwrap)
    done = launch(binary, *bwrap_part, "--", "/bin/echo", "@self", "@self-fd", env={"PATH": "/usr/bin:/bin"})
    assert done.stdout.split() == ["@self", "@self-fd"], done.stderr
