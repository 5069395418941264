"""Packaging: a wheel (``pip install .``, as the Docker image does) carries the sample bots, the starters
and the rules, ``arena new`` and ``arena check`` find them in it, and an editable install (what ./demo.sh and ./test.sh
make) prints no warning from the build backend.

These build with pip from the checkout (the build backend comes from the package index, as for a user).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from arena.bots.starters import LANGUAGES
from arena.games import BUILTIN_GAMES

ROOT = Path(__file__).resolve().parents[1]
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
MACHINE_NOTES = ("is ignored: it is neither a file nor a directory",)
"""pip's notes about this machine's own index configuration, not about Arena's build."""


def warnings_in(output: str) -> list[str]:
    return [line for line in output.splitlines() if "warn" in line.lower() and not line.endswith(MACHINE_NOTES)]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([*PIP, "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{done.stdout}\n{done.stderr}")
    (found,) = out.glob("arena-*.whl")
    return found


def test_the_wheel_carries_the_sample_bots_the_rules_and_the_data_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for manifest in sorted(ROOT.glob("sample_bots/*/*/bot.toml")):
        shipped = "arena/" + manifest.relative_to(ROOT).as_posix()
        assert shipped in names, f"the wheel lacks {shipped}"
    for game in BUILTIN_GAMES:
        assert f"arena/rules/{game}.md" in names, f"the wheel lacks the rules of {game}"
    # The built-in games are plugins like any other: the wheel's metadata declares them.
    (entry_points,) = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
    declared = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[arena.games]" in declared and all(f"{game} = arena.games." in declared for game in BUILTIN_GAMES)
    for lang in LANGUAGES.values():
        for file in (lang.source, "bot.toml"):
            assert f"arena/starters/{lang.name}/{file}" in names, f"the wheel lacks the {lang.title} starter"
    for data in ("arena/bots/js/host.js", "protocol/schema.json", "protocol/README.md"):
        assert data in names
    leftovers = [n for n in names if ".arena-build/" in n or "__pycache__" in n or "node_modules/" in n]
    assert not leftovers, f"build outputs in the wheel: {leftovers[:3]}"


@pytest.mark.slow
def test_new_and_check_find_their_starters_and_reference_bots_in_a_non_editable_install(
    wheel: Path, tmp_path: Path
) -> None:
    target = tmp_path / "site"
    install = [*PIP, "install", "-q", "--no-deps", "--target", str(target), str(wheel)]
    done = subprocess.run(install, capture_output=True)
    assert done.returncode == 0, done.stderr
    bot = tmp_path / "my-bot"
    env = {**os.environ, "PYTHONPATH": str(target)}  # before the checkout, which the venv's .pth adds
    new = [sys.executable, "-m", "arena", "new", "rps-poker", "python", str(bot)]  # the wheel's starter
    made = subprocess.run(new, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert made.returncode == 0 and (bot / "bot.py").is_file(), made.stdout + made.stderr
    where = subprocess.run(
        [sys.executable, "-c", "import arena; print(arena.__file__)"], env=env, cwd=tmp_path, capture_output=True
    )
    assert Path(where.stdout.decode().strip()).is_relative_to(target), "the test must run the installed copy"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "check", str(bot), "--matches", "1", "--log-dir", str(tmp_path / "logs")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "against random-python" in done.stdout
    log = next((tmp_path / "logs").rglob("check-1.jsonl"))
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    shipped = target / "arena" / "sample_bots"
    assert any(Path(bot["cwd"]).is_relative_to(shipped) for bot in header["bots"]), "the reference came from the wheel"


@pytest.mark.slow
def test_an_editable_install_prints_no_build_warning(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    done = subprocess.run(
        [venv / "bin/python", "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "-e", ROOT],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert warnings_in(done.stdout + done.stderr) == []
    pth = [p for p in (venv / "lib").glob("python3*/site-packages/*.pth") if "arena" in p.name]
    assert [p.read_text(encoding="utf-8").strip() for p in pth] == [str(ROOT)], "only the checkout goes on sys.path"


def test_build_backend_is_declared_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["build-system"]["build-backend"] == "hatchling.build"
    assert "setuptools" not in project.get("tool", {}), "leftover setuptools settings would be ignored silently"
