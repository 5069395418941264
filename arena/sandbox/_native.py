"""The compiled launcher (``launch.c``): built once per content and machine, at first use, with the system's C compiler.

A jail that bubblewrap builds needs of its launcher only what ``launch.c``
does (join the cgroups, set rlimits, hand over the seccomp program, fork and
watch); started as a Python interpreter (``_launch.py``) that cost 15-20 ms a
start, about as much as everything else of a sandboxed start together. Where
no compiler works (or the cache folder is not safe), :func:`launcher` says so
and the Python launcher is used, with the same layers.

The binary lives in this user's sandbox folder (``$TMPDIR/arena-sandbox-EUID``,
beside the probed capabilities), named by the hash of the source and the
compiler: it runs before the jail exists, as the arena's user, so it is used
only when that folder and the file belong to this user and nobody else may
write them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path

SOURCE = Path(__file__).with_name("launch.c")
COMPILE_TIMEOUT_S = 60.0
_why_not = ""


def folder() -> Path:
    """Where the binary is kept: this user's sandbox folder (made here if needed)."""
    return Path(os.environ.get("TMPDIR", "/tmp")) / f"arena-sandbox-{os.geteuid()}"


def _private(path: Path, *, directory: bool) -> bool:
    """Whether ``path`` is this user's own, nobody else may write it, and it is what it should be (no link)."""
    try:
        info = path.lstat()
    except OSError:
        return False
    kind = stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)
    return kind and info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@cache
def launcher() -> str | None:
    """The compiled launcher's path, built now if needed; ``None`` where it cannot be (:func:`why_not` says why)."""
    global _why_not
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        _why_not = "no C compiler (cc, gcc or clang) on PATH"
        return None
    try:
        source = SOURCE.read_bytes()
    except OSError as exc:
        _why_not = f"cannot read {SOURCE}: {exc.strerror}"
        return None
    where = folder()
    with contextlib.suppress(OSError):
        where.mkdir(mode=0o711, exist_ok=True)
    if not _private(where, directory=True):
        _why_not = f"{where} is not this user's own, or others may write it"
        return None
    binary = binary_path(where, source, compiler)
    if _private(binary, directory=False) and os.access(binary, os.X_OK):
        return _if_it_runs(binary)
    fd, temporary = tempfile.mkstemp(prefix=".launch-", dir=where)
    os.close(fd)
    try:
        done = subprocess.run(
            [compiler, "-O2", "-o", temporary, str(SOURCE)],
            capture_output=True,
            timeout=COMPILE_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            lines = done.stderr.decode(errors="replace").strip().splitlines()
            _why_not = f"{compiler} failed on {SOURCE.name}: {lines[-1] if lines else f'exit {done.returncode}'}"
            return None
        os.chmod(temporary, 0o700)
        os.replace(temporary, binary)  # atomic: arenas building it side by side each put a whole file there
    except (OSError, subprocess.TimeoutExpired) as exc:
        _why_not = f"{compiler} did not build {SOURCE.name}: {exc}"
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return _if_it_runs(binary) if _private(binary, directory=False) else None


def binary_path(where: Path, source: bytes, compiler: str) -> Path:
    """Where the launcher built from ``source`` by ``compiler`` is kept in ``where``."""
    key = hashlib.sha256(source + b"\0" + os.path.realpath(compiler).encode()).hexdigest()[:16]
    return where / f"launch-{key}"


def _if_it_runs(binary: Path) -> str | None:
    """``binary``'s path if it runs a command here (a ``noexec`` temporary folder would refuse it), else ``None``."""
    global _why_not
    try:
        done = subprocess.run(
            [str(binary), "-e", "PATH=/usr/bin:/bin", "-d", "/", "--", "true"],
            capture_output=True,
            timeout=COMPILE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        _why_not = f"{binary} does not run here ({exc}; a noexec {binary.parent.parent}?)"
        return None
    if done.returncode != 0:
        _why_not = f"{binary} does not run here (exit {done.returncode}: {done.stderr.decode(errors='replace')[-200:]})"
        return None
    return str(binary)


def why_not() -> str:
    """Why :func:`launcher` gave ``None`` (``""`` when it gave a path or was not asked)."""
    return _why_not


def command(
    binary: str,
    *,
    argv: list[str],
    env: dict[str, str],
    cwd: str,
    joins: list[str],
    rlimits: dict[int, tuple[int, int]],
    freezer: dict[str, str] | None,
    lifeline: int,
    seccomp: str | None,
    data: Sequence[bytes] = (),
    overlay: dict[str, str] | None = None,
) -> list[str]:
    """The compiled launcher's command line (see ``launch.c``): ``argv`` run in ``cwd`` with exactly ``env``.

    ``argv`` is bubblewrap's command line (its options, ``--``, the bot's
    command); the launcher hands bubblewrap its options in a descriptor
    (``--args``), with ``seccomp`` (a BPF program in hex) as ``--seccomp FD``,
    each ``@data:N`` option as a descriptor holding ``data[N]``, and
    ``@overlaid`` as the ``overlay`` of the bot's folder (see
    ``_launch.overlay_folder``), as the Python launcher does.
    """
    args = [binary]
    for path in joins:
        args += ["-j", path]
    if freezer is not None:
        args += ["-f", freezer["leave"], "-s", freezer["state"], "-t", freezer["thawed"]]
    for resource, (soft, hard) in rlimits.items():
        args += ["-r", f"{resource}:{soft}:{hard}"]
    if lifeline >= 0:
        args += ["-l", str(lifeline)]
    if seccomp is not None:
        args += ["-p", seccomp]
    for blob in data:
        args += ["-x", blob.hex()]
    if overlay is not None:
        args += ["-o", overlay["lower"], "-b", overlay["empty"], "-m", overlay["at"]]
    for name, value in env.items():
        args += ["-e", f"{name}={value}"]
    return [*args, "-d", cwd, "--", *argv]
