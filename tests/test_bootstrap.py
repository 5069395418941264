"""``scripts/bootstrap.sh`` (run by ./demo.sh and ./test.sh): what it shows of pip's output."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FAKE_PIP = """#!/bin/sh
# Stands in for .venv/bin/python -m pip: the warnings of a machine whose pip.conf names a missing index, and one
# line of pip's own.
for i in 1 2 3; do
  echo "WARNING: Location 'file:///opt/missing/simple/pkg$i/' is ignored: it is neither a file nor a directory." >&2
done
echo "WARNING: a warning about the install itself" >&2
"""


def test_pip_warnings_about_the_machines_own_configuration_are_counted_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "bootstrap.sh", tmp_path / "scripts")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    fake = tmp_path / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text(FAKE_PIP)
    fake.chmod(0o755)
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "bootstrap.sh")],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHON": sys.executable},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert not any("Location" in line for line in lines), lines
    assert lines.count("WARNING: a warning about the install itself") == 2  # pip's own lines stay (two installs)
    assert sum("pip warned 3 times of a package index or folder" in line for line in lines) == 2, lines
    assert (tmp_path / ".venv" / ".arena-installed").is_file()


def test_what_the_set_up_and_the_docs_build_make_is_ignored_by_git() -> None:
    clone = subprocess.run(["git", "-C", str(REPO), "rev-parse"], capture_output=True) if shutil.which("git") else None
    if clone is None or clone.returncode:
        pytest.skip("not a git clone")
    made = ["site/index.html", ".venv/bin/python", "arena-runs/results.sqlite"]  # mkdocs build --site-dir site
    done = subprocess.run(["git", "-C", str(REPO), "check-ignore", "--no-index", *made], capture_output=True, text=True)
    assert done.stdout.split() == made
