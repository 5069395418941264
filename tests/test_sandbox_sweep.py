"""What a killed arena leaves (jail homes, scratch folders) is cleared by the next arena."""

import os
import subprocess
import sys
import time
from pathlib import Path

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
