"""Which program a bot's command runs, found the way the organiser's shell would, and what it needs to read.

A jail with its own UID or bubblewrap runs a bot with the system's ``PATH``,
so ``python3`` would be ``/usr/bin/python3`` even where the organiser's shell
finds a virtual environment with numpy in it. :func:`find_program` looks the
command up in the organiser's ``PATH`` instead (absolute entries only; a
pyenv shim is followed to the version it would run), and :func:`installation`
names what that program needs to read: its own file, and the installation it
belongs to (a Python venv and the Python it was made from, a conda or other
Python prefix, a node or JDK prefix), never a user's whole home folder. The
jail then lets the bot read those, and only those, read-only.
"""

from __future__ import annotations

import os
import pwd
import shutil
from functools import cache
from pathlib import Path

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Folders every jail reads anyway: a program there needs nothing more."""


def find_program(command: str, path: str, cwd: Path) -> Path | None:
    """The file ``command`` names on ``path`` (absolute folders only), a pyenv shim followed; else ``None``."""
    folders = os.pathsep.join(part for part in path.split(os.pathsep) if part.startswith("/"))
    found = shutil.which(command, path=folders) if folders else None
    if found is None:
        return None
    program = Path(found)
    return _through_pyenv(program, cwd) or program


def _through_pyenv(program: Path, cwd: Path) -> Path | None:
    """What a pyenv shim would run, read from pyenv's own files (no pyenv is run): its version, its command."""
    if program.parent.name != "shims":
        return None
    # ROOT/shims, or ROOT/plugins/pyenv-virtualenv/shims
    root = program.parents[3] if program.parent.parent.name == "pyenv-virtualenv" else program.parent.parent
    if not (root / "versions").is_dir():
        return None
    for version in _pyenv_versions(root, cwd):
        candidate = root / "versions" / version / "bin" / program.name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _pyenv_versions(root: Path, cwd: Path) -> list[str]:
    """pyenv's choice of versions: ``PYENV_VERSION``, a ``.python-version`` here or above, then its global file."""
    chosen = os.environ.get("PYENV_VERSION", "")
    if not chosen:
        for folder in [cwd, *cwd.parents]:
            if (folder / ".python-version").is_file():
                chosen = _read(folder / ".python-version")
                break
    if not chosen:
        chosen = _read(root / "version")
    return [v for v in chosen.replace(":", " ").split() if v and v != "system" and "/" not in v and v != ".."]


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[:1000]
    except OSError:
        return ""


def is_system(path: Path) -> bool:
    """Whether ``path`` lies in a folder every jail reads anyway."""
    text = str(path)
    return any(text == top or text.startswith(top + "/") for top in SYSTEM_FOLDERS)


@cache
def installation(program: Path) -> tuple[Path, ...]:
    """What running ``program`` needs to read: its file (and a link's target) and the installation(s) it is in.

    An installation is the folder above a ``bin/`` holding the program that
    is recognisably one: a venv (``pyvenv.cfg``, and then the Python named by
    its ``home``), a Python prefix (``lib/python3*``), a node prefix
    (``lib/node_modules``) or a JDK (``release`` beside ``lib/``). Never a
    user's home folder, nor ``/``.
    """
    resolved = program.resolve()
    found: list[Path] = [resolved]
    prefixes = [exe.parent.parent for exe in (program, resolved) if exe.parent.name == "bin"]
    for prefix in list(prefixes):
        for line in _read(prefix / "pyvenv.cfg").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip().startswith("/"):
                home = Path(value.strip())
                prefixes.append(home.parent if home.name == "bin" else home)
    homes = _homes()
    for prefix in prefixes:
        if prefix not in found and prefix != Path("/") and prefix not in homes and _is_installation(prefix):
            found.append(prefix)
    return tuple(found)


def _is_installation(prefix: Path) -> bool:
    lib = prefix / "lib"
    return (
        (prefix / "pyvenv.cfg").is_file()
        or any(lib.glob("python3*"))
        or (lib / "node_modules").is_dir()
        or ((prefix / "release").is_file() and lib.is_dir())
    )


@cache
def _homes() -> frozenset[Path]:
    return frozenset(Path(entry.pw_dir) for entry in pwd.getpwall())
