"""What a killed arena leaves (jail homes, scratch folders) is cleared by the next arena."""

import contextlib
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.sandbox import _plan


def make_home(root: Path, name: str, stamp: str | None, age_s: float = 0.0) -> Path:
    home = root / name
    (home / "scratch").mkdir(parents=True)
    (home / "scratch" / "junk").write_text("x")
    if stamp is not None:
        (home / _plan.OWNER_FILE).write_text(stamp)
    if age_s:
        then = time.time() - age_s
        os.utime(home, (then, then))
    return home


def test_homes_of_dead_arenas_go_and_live_or_new_ones_stay(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    dead = make_home(tmp_path, "bot-aaaaaaaaaaaa", f"{dead_pid} 1.0")
    reused_pid = make_home(tmp_path, "bot-bbbbbbbbbbbb", f"{os.getpid()} 1.0")  # our pid, another start time
    alive = make_home(tmp_path, "bot-cccccccccccc", _plan._owner_stamp(os.getpid()))
    legacy_old = make_home(tmp_path, "bot-dddddddddddd", None, age_s=3600)
    being_made = make_home(tmp_path, "bot-eeeeeeeeeeee", None)
    stamp_being_written = make_home(tmp_path, "bot-gggggggggggg", "")
    (tmp_path / "capabilities.json").write_text("{}")
    _plan.sweep_stale(tmp_path, None)
    assert not dead.exists() and not reused_pid.exists() and not legacy_old.exists()
    assert alive.exists() and being_made.exists() and stamp_being_written.exists()
    assert (tmp_path / "capabilities.json").exists()


def test_the_sweep_runs_once_per_arena_and_root(tmp_path: Path) -> None:
    _plan.sweep_stale(tmp_path, None)
    late = make_home(tmp_path, "bot-ffffffffffff", "1 1.0")
    _plan.sweep_stale(tmp_path, None)
    assert late.exists(), "a second sweep in the same arena does nothing (it runs at start-up)"


def test_whatever_still_runs_in_a_dead_arenas_cgroup_is_killed(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    base = _plan.capabilities().cgroup
    if base is None:
        pytest.skip(f"no cgroup here: {_plan.capabilities().missing.get('cgroup')}")
    token = secrets.token_hex(6)
    group = base.create(f"bot-{token}", memory_bytes=64 << 20, tasks=8)
    left = subprocess.Popen(["sleep", "300"])
    try:
        for procs in group.procs_files:
            Path(procs).write_text(str(left.pid))
        make_home(tmp_path, f"bot-{token}", "1 1.0")  # its arena is dead (pid 1 never has that start time)
        monkeypatch.setattr(_plan, "ORPHAN_GROUP_AGE_S", -1.0)
        _plan.sweep_stale(tmp_path, base)
        assert left.wait(timeout=10) == -9, "a process of a dead arena's jail was left running"
        assert not any(path.exists() for path in group.dirs.values())
    finally:
        left.kill()
        left.wait()
        group.remove()


def test_a_live_arenas_groups_are_spared_whatever_root_it_uses(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    base = _plan.capabilities().cgroup
    if base is None:
        pytest.skip(f"no cgroup here: {_plan.capabilities().missing.get('cgroup')}")
    mine = base.create(f"bot-{os.getpid()}x{secrets.token_hex(6)}", memory_bytes=64 << 20, tasks=8)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = base.create(f"bot-{int(gone.stdout)}x{secrets.token_hex(6)}", memory_bytes=64 << 20, tasks=8)
    try:
        monkeypatch.setattr(_plan, "ORPHAN_GROUP_AGE_S", -1.0)
        _plan.sweep_stale(tmp_path, base)  # a root where this arena (this process) has no jail home
        assert all(path.exists() for path in mine.dirs.values()), "a live arena's group was swept"
        assert not any(path.exists() for path in dead.dirs.values()), "a dead arena's group was left"
    finally:
        mine.remove()
        dead.remove()


START_A_BOT = """
import sys, trio
from arena.bots.spec import resolve
from arena.supervisor._process import SpawnOptions, bot_environment, open_bot

async def main() -> None:
    spec = resolve(sys.argv[1])
    async with open_bot(spec, SpawnOptions(env=bot_environment(spec))):
        await trio.sleep(60)

trio.run(main)
"""


def _tokens_of(root: Path, pid: int) -> list[str]:
    found = []
    for owner in root.glob("*/" + _plan.OWNER_FILE):
        try:
            if owner.read_text().split()[0] == str(pid):
                found.append(owner.parent.name.rsplit("-", 1)[-1])
        except (OSError, IndexError):
            continue
    return found


@pytest.mark.slow
def test_an_arena_killed_while_it_starts_bots_leaves_no_process(tmp_path: Path) -> None:
    """kill -9 of the arena at moments during a jail's set-up (bubblewrap's included), then a new arena starts."""
    base = _plan.capabilities().cgroup
    if base is None:
        pytest.skip(f"no cgroup to look in here: {_plan.capabilities().missing.get('cgroup')}")
    root = Path(os.environ.get("TMPDIR", "/tmp")) / f"arena-sandbox-{os.geteuid()}"
    bot = str(Path(__file__).resolve().parents[1] / "sample_bots" / "rps-poker" / "minimal-python")
    tokens: list[tuple[int, str]] = []
    for attempt in range(4):
        arena = subprocess.Popen([sys.executable, "-c", START_A_BOT, bot])
        deadline = time.monotonic() + 30
        while not (mine := _tokens_of(root, arena.pid)) and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(attempt * 0.004)  # from the jail's first file to its bot running
        arena.kill()
        arena.wait()
        tokens += [(arena.pid, token) for token in mine]
    assert tokens, "no arena got as far as making a jail"
    time.sleep(0.5)
    groups = [parent / _plan.group_name(pid, token) for pid, token in tokens for parent in base.parents.values()]
    for group in groups:  # old enough for the sweep to take them as left behind
        with contextlib.suppress(OSError):
            os.utime(group, (time.time() - 3600, time.time() - 3600))
    done = subprocess.run([sys.executable, "-c", START_A_BOT.replace("60", "0"), bot], timeout=60, check=False)
    assert done.returncode == 0
    left = {str(group): (group / "cgroup.procs").read_text().split() for group in groups if group.exists()}
    assert not left, f"processes or groups of killed arenas left: {left}"


def test_each_installation_keeps_its_own_capabilities(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two checkouts (or interpreters) side by side probed again by turns when they shared one file.
    files = set()
    for launcher in ("/one/_launch.py@1.0", "/two/_launch.py@1.0"):
        monkeypatch.setattr(_plan, "_cache_key", lambda launcher=launcher: f"boot|release|python|bwrap|{launcher}")
        files.add(_plan._cache_file())
    assert len(files) == 2
