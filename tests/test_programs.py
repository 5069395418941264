"""A bot's ``python3`` is the organiser's: found on the organiser's PATH, its installation readable in the jail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import play_match, resolve
from arena.bots.spec import BotSpec, load_folder
from arena.games import get_game
from arena.sandbox import SandboxPolicy, _programs, capabilities, configure, current_policy, summary
from arena.sandbox._plan import SYSTEM_PATH
from arena.sandbox._programs import find_program, installation
from arena.supervisor.build import BuildError, ensure_built
from protocol import Limits

from .conftest import SAMPLE_BOTS

BOT = """import json, sys
import only_in_this_venv  # a module the system's Python does not have

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": only_in_this_venv.ACTION}), flush=True)
"""


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A virtual environment with a module of its own, first on the organiser's PATH (as once activated)."""
    folder = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    site = next(folder.glob("lib/python3*/site-packages"))
    (site / "only_in_this_venv.py").write_text("ACTION = 0\n")
    monkeypatch.setenv("PATH", f"{folder / 'bin'}:{os.environ.get('PATH', '')}")
    yield folder


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "numpy-like-bot"
    folder.mkdir()
    (folder / "bot.toml").write_text('run = "python3 bot.py"\n')
    (folder / "bot.py").write_text(BOT)
    return folder


async def test_a_bot_runs_with_the_python_the_organisers_path_finds(tmp_path: Path, venv: Path) -> None:
    opponent = resolve(str(SAMPLE_BOTS / "rps-poker" / "minimal-python"))
    record = await play_match(get_game("rps-poker"), (resolve(str(bot_folder(tmp_path))), opponent), seed=5,
                              limits=Limits(), log_dir=tmp_path)  # fmt: skip
    assert record.faults == [], record.faults


async def test_a_command_line_bot_naming_a_venvs_python_by_its_path_runs_in_that_venv(
    tmp_path: Path, venv: Path
) -> None:
    # (the venv's bin/python is a link to the Python it was made from: run by the link's target, the bot would not
    # find the venv's packages; `arena tournament rps-poker "/path/to/venv/bin/python bot.py" ...` did so)
    script = tmp_path / "scripts" / "bot.py"
    script.parent.mkdir()
    script.write_text(BOT)
    assert (venv / "bin" / "python").is_symlink()
    bot = BotSpec(name="venv-bot", command=(str(venv / "bin" / "python"), "bot.py"), cwd=script.parent)
    opponent = resolve(str(SAMPLE_BOTS / "rps-poker" / "minimal-python"))
    record = await play_match(get_game("rps-poker"), (bot, opponent), seed=5, limits=Limits(), log_dir=tmp_path)
    assert record.faults == [], record.faults
    # ... and a link elsewhere than in an installation still runs its target (the jail reads that, not the link)
    link = tmp_path / "links" / "my-bot"
    link.parent.mkdir()
    executable = script.with_name("run-bot")
    plain = [line.replace("only_in_this_venv.ACTION", "0") for line in BOT.splitlines() if "import only" not in line]
    executable.write_text("\n".join(["#!/usr/bin/env python3", *plain, ""]))
    executable.chmod(0o755)
    link.symlink_to(executable)
    linked = BotSpec(name="linked-bot", command=(str(link),), cwd=link.parent)
    record = await play_match(get_game("rps-poker"), (linked, opponent), seed=5, limits=Limits(), log_dir=tmp_path)
    assert record.faults == [], record.faults


async def test_where_the_jail_cannot_read_that_python_a_crash_says_which_ran(tmp_path: Path, venv: Path) -> None:
    saved = current_policy()
    for layer in ("uid", "rlimits"):
        if layer not in capabilities().available:
            pytest.skip(f"layer {layer!r} is not available here")
    configure(SandboxPolicy(layers=frozenset({"uid", "rlimits"})))  # a UID of its own, no bubblewrap or Landlock
    try:
        assert "bwrap" not in summary()["layers"]
        tmp_path.chmod(0o700)  # the venv is in a private folder
        opponent = resolve(str(SAMPLE_BOTS / "rps-poker" / "minimal-python"))
        record = await play_match(get_game("rps-poker"), (resolve(str(bot_folder(tmp_path))), opponent), seed=5,
                                  limits=Limits(), log_dir=tmp_path)  # fmt: skip
    finally:
        configure(saved)
    (fault,) = record.faults
    assert fault.kind == "crash"
    assert f"the one your PATH finds, {venv / 'bin' / 'python3'}, is in a folder" in fault.reason
    assert "python3 is /usr" in fault.reason


def test_a_pyenv_shim_is_followed_to_the_version_it_would_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "pyenv"
    (root / "shims").mkdir(parents=True)
    shim = root / "shims" / "python3"
    shim.write_text("#!/bin/sh\nexec pyenv exec python3\n")
    shim.chmod(0o755)
    for version in ("3.11.7", "3.12.1"):
        real = root / "versions" / version / "bin" / "python3"
        real.parent.mkdir(parents=True)
        real.write_text("")
        real.chmod(0o755)
        (root / "versions" / version / "lib" / f"python{version[:4]}").mkdir(parents=True)
    (root / "version").write_text("3.11.7\n")
    monkeypatch.delenv("PYENV_VERSION", raising=False)
    bot = tmp_path / "bot"
    bot.mkdir()
    path = f"{root / 'shims'}:relative/ignored:/usr/bin"
    assert find_program("python3", path, bot) == root / "versions" / "3.11.7" / "bin" / "python3"
    (bot / ".python-version").write_text("3.12.1\n")
    assert find_program("python3", path, bot) == root / "versions" / "3.12.1" / "bin" / "python3"
    monkeypatch.setenv("PYENV_VERSION", "system")
    assert find_program("python3", path, bot) == shim, "'system': the shim itself, which no installation backs"
    assert installation(root / "versions" / "3.11.7" / "bin" / "python3")[1] == root / "versions" / "3.11.7"


def test_an_installation_is_a_venv_and_its_python_never_a_home(
    tmp_path: Path, venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs = installation(venv / "bin" / "python3")
    assert venv in needs and Path(sys.base_prefix).resolve() in [p.resolve() for p in needs]
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / "lib" / "python3.11").mkdir(parents=True)  # looks like a Python prefix, but it is someone's home
    (home / "bin" / "python3").write_text("")
    monkeypatch.setattr(_programs, "_homes", lambda: frozenset({home}))
    assert installation(home / "bin" / "python3") == ((home / "bin" / "python3").resolve(),)


def confined() -> None:
    """Skip unless bots run confined here (a UID of their own, bubblewrap or Landlock): else they use the PATH as is."""
    if not {"uid", "bwrap", "landlock"} & set(summary()["layers"]):
        pytest.skip("no layer here confines what a bot reads")


def dispatcher(tmp_path: Path, *names: str, program: str = "dispatch", hard: bool = False) -> Path:
    """As rustup in ~/.cargo/bin: one program that ``names`` link to, which acts by the name it is run as."""
    folder = tmp_path / "cargo" / "bin"
    folder.mkdir(parents=True)
    (folder / program).write_text('#!/bin/sh\necho "dispatch run as $0: needs its home folders" >&2\nexit 3\n')
    (folder / program).chmod(0o755)
    for name in names:
        if hard:
            os.link(folder / program, folder / name)
        else:
            (folder / name).symlink_to(program)
    return folder


def builder(tmp_path: Path, build: str) -> BotSpec:
    folder = tmp_path / "built-bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(f'build = "{build}"\nrun = "true"\n')
    return load_folder(folder)


async def test_a_link_to_a_program_of_another_name_runs_the_systems_copy_and_a_failure_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    confined()
    folder = dispatcher(tmp_path, "python3", "arena-no-such-tool")
    monkeypatch.setenv("PATH", f"{folder}:{os.environ.get('PATH', '')}")
    with pytest.raises(BuildError) as failed:  # the system's python3 runs the build (and fails, as told)
        await ensure_built(builder(tmp_path, "python3 -c 'import sys; sys.exit(5)'"))
    said = str(failed.value)
    system = shutil.which("python3", path=SYSTEM_PATH)
    assert f"build failed with exit status 5 (the system's {system} ran: python3 on your PATH is " in said
    assert f"{folder / 'python3'}, a link to {folder / 'dispatch'}, which needs more than the jail gives it)" in said
    (tmp_path / "built-bot").rename(tmp_path / "first")
    with pytest.raises(BuildError) as failed:  # no system copy: it says which it tried and what to do
        await ensure_built(builder(tmp_path, "arena-no-such-tool --version"))
    said = str(failed.value)
    assert f"arena-no-such-tool on your PATH is {folder / 'arena-no-such-tool'}, a link to " in said
    assert "install the system's arena-no-such-tool, or put its own installation first on your PATH" in said


async def test_an_older_rustups_hard_linked_proxy_runs_the_systems_copy_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    confined()
    folder = dispatcher(tmp_path, "python3", program="rustup", hard=True)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ.get('PATH', '')}")
    with pytest.raises(BuildError) as failed:
        await ensure_built(builder(tmp_path, "python3 -c 'import sys; sys.exit(5)'"))
    assert f"python3 on your PATH is {folder / 'python3'}, a link to {folder / 'rustup'}, which" in str(failed.value)
