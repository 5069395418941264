"""Building a bot before play: run its manifest's ``build`` command once.

A bot folder's ``bot.toml`` may name a build command::

    build = "gcc -O2 -o .arena-build/bot bot.c"
    run = ".arena-build/bot"

``ensure_built`` runs it in the bot's folder, with the output captured and a
time limit (``build_timeout_s``, 120 s by default). Build outputs belong in
``.arena-build/`` inside the folder (it is created before the build): that
folder is left out of the bot's content hash, so a stamp kept there says which
content was last built and an unchanged folder is not built again.

A failing or overrunning build raises ``BuildError`` naming the bot, with the
tail of the compiler's output.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import trio

from .._errors import BuildError
from ..bots.spec import BotSpec, hash_path

BUILD_DIR = ".arena-build"
"""Where a bot's build outputs go, inside its folder; never part of its content hash."""
STAMP_FILE = "stamp"
"""Holds the content hash of the last successful build."""
LOG_FILE = "build.log"
"""The last build's full output."""
TAIL_LINES = 20
"""How many lines of compiler output a ``BuildError`` shows."""


async def ensure_built(spec: BotSpec, *, log: Callable[[str], None] | None = None) -> None:
    """Run ``spec``'s build command unless its folder is unchanged since the last successful build.

    Safe to call from several tasks or processes at once: one builds, the
    others wait and then find the stamp up to date.
    """
    if not spec.build:
        return
    say = log or (lambda _text: None)
    build_dir = spec.cwd / BUILD_DIR
    try:
        build_dir.mkdir(exist_ok=True)
    except OSError as exc:
        raise BuildError(f"bot {spec.name!r}: cannot create {build_dir} ({exc.strerror})") from None
    async with _folder_lock(build_dir / ".lock"):
        digest = hash_path(spec.cwd)
        stamp = build_dir / STAMP_FILE
        if _read(stamp) == digest:
            say(f"{spec.name}: build is up to date")
            return
        say(f"{spec.name}: building ({' '.join(spec.build)})")
        output = await _run_build(spec)
        (build_dir / LOG_FILE).write_bytes(output)
        stamp.write_text(digest, encoding="utf-8")
        say(f"{spec.name}: built")


def is_built(spec: BotSpec) -> bool:
    """Whether ``spec`` needs no build: it has no build command, or its stamp matches its folder."""
    if not spec.build:
        return True
    return _read(spec.cwd / BUILD_DIR / STAMP_FILE) == hash_path(spec.cwd)


async def _run_build(spec: BotSpec) -> bytes:
    """Run the build command; its combined output, or ``BuildError``."""
    command = list(spec.build)
    try:
        process = await trio.lowlevel.open_process(
            command,
            cwd=spec.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a timeout kills make's children too
        )
    except OSError as exc:
        raise BuildError(f"bot {spec.name!r}: cannot run build command {command[0]!r} ({exc.strerror})") from None
    chunks: list[bytes | bytearray] = []
    assert process.stdout is not None
    try:
        with trio.move_on_after(spec.build_timeout_s) as scope:
            async for chunk in process.stdout:
                chunks.append(chunk)
            await process.wait()
    finally:
        if process.returncode is None:
            _kill_group(process.pid)
            with trio.CancelScope(shield=True):
                await process.wait()
        await process.stdout.aclose()
    output = b"".join(chunks)
    if scope.cancelled_caught:
        raise BuildError(
            f"bot {spec.name!r}: build did not finish within {spec.build_timeout_s:g} s"
            f" (raise build_timeout_s in bot.toml if it needs longer){_tail(output)}"
        )
    if process.returncode != 0:
        raise BuildError(f"bot {spec.name!r}: build failed with exit status {process.returncode}{_tail(output)}")
    return output


def _tail(output: bytes) -> str:
    lines = output.decode("utf-8", "replace").rstrip().splitlines()[-TAIL_LINES:]
    if not lines:
        return " (no output)"
    return "; last lines of its output:\n" + "\n".join("  " + line for line in lines)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


@contextlib.asynccontextmanager
async def _folder_lock(path: Path) -> AsyncIterator[None]:
    """An exclusive lock on ``path`` across processes, waited for without blocking trio."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                await trio.sleep(0.05)
        yield
    finally:
        os.close(fd)
