"""Building a bot before play: its manifest's ``build`` command, run once per content, in the bot's jail.

A bot folder's ``bot.toml`` may name a build command::

    build = "gcc -O2 -o .arena-build/bot bot.c"
    run = ".arena-build/bot"

``ensure_built`` copies the folder into a build folder the arena owns
(``KEY`` under the sandbox's build root, ``KEY`` being the bot's content hash,
with its owner's on a server;
see :mod:`arena.sandbox._builds`) with an empty ``.arena-build/`` in it, and
runs the build command there in the same jail a bot gets: its own UID, no
network, that folder and a scratch folder writable and nothing else. A build
has limits of its own (:meth:`arena.sandbox.SandboxPolicy.build_limits`:
memory, processes, file size, the folder's total size, output kept) and a
time limit, the manifest's ``build_timeout_s`` (120 s by default) capped by
the organiser's ``SandboxPolicy.build_time_s``, judged on the wall clock and
on the CPU time of the whole process tree. When it ends, every process it
started is killed and the folder is sealed; the bot then runs from it. The
bot's own folder is only read, so an unchanged folder is not built again.

A failing or overrunning build raises ``BuildError`` naming the bot, with the
tail of its output; the whole output is kept in ``KEY.log`` beside the folder.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import trio

from .._errors import BotFault, BuildError
from ..bots.spec import BotSpec, hash_path
from ..sandbox import (
    BUILD_DIR,
    DONE_SUFFIX,
    SandboxPolicy,
    bind_quota,
    build_key,
    build_root,
    built_folder,
    copy_folder,
    current_policy,
    held_bytes,
    keep_output,
    quota_folder,
    remove_tree,
)
from ._process import BotProcess, SpawnOptions, bot_environment, open_bot

__all__ = ["BUILD_DIR", "TAIL_LINES", "ensure_built", "is_built"]

TAIL_LINES = 20
"""How many lines of compiler output a ``BuildError`` shows."""


async def ensure_built(
    spec: BotSpec, *, log: Callable[[str], None] | None = None, policy: SandboxPolicy | None = None
) -> None:
    """Build ``spec`` unless its content was built already (see the module's docstring).

    Safe to call from several tasks or processes at once: one builds, the
    others wait and then find the build done. ``policy`` is the sandbox's
    (the one in force by default).
    """
    if not spec.build:
        return
    say = log or (lambda _text: None)
    policy = policy or current_policy()
    try:
        root = build_root(policy.build_root)
    except OSError as exc:
        raise BuildError(f"bot {spec.name!r}: cannot use the build folder: {exc}") from None
    key = await trio.to_thread.run_sync(build_key, spec)
    async with _folder_lock(root / f"{key}.lock"):
        if built_folder(spec, policy) is not None:
            say(f"{spec.name}: build is up to date")
            return
        folder = root / key
        await trio.to_thread.run_sync(remove_tree, folder)  # what a failed or killed build left
        try:
            quota = await trio.to_thread.run_sync(_copy_for_build, spec, folder, policy.build_disk_bytes)
        except OSError as exc:
            await trio.to_thread.run_sync(remove_tree, folder)
            raise BuildError(f"bot {spec.name!r}: cannot copy its folder to build it: {exc}") from None
        say(f"{spec.name}: building ({' '.join(spec.build)})")
        log_path = root / f"{key}.log"
        try:
            problem = await _run_build(spec, folder, log_path, policy, quota=quota)
        except BaseException:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(remove_tree, folder)
            raise
        if problem is None and quota:
            try:
                await trio.to_thread.run_sync(keep_output, folder, policy.build_disk_bytes)
            except OSError as exc:
                problem = f"its output could not be kept ({exc}; the quota is SandboxPolicy.build_disk_bytes)"
        if problem is not None:
            await trio.to_thread.run_sync(remove_tree, folder)
            raise BuildError(f"bot {spec.name!r}: {problem} (full output: {log_path}){_tail(_read_log(log_path))}")
        (root / (key + DONE_SUFFIX)).write_text(" ".join(spec.build) + "\n")  # the folder is sealed: done
        say(f"{spec.name}: built")


def is_built(spec: BotSpec) -> bool:
    """Whether ``spec`` needs no build: it has no build command, or its content was built."""
    return not spec.build or built_folder(spec) is not None


def _copy_for_build(spec: BotSpec, folder: Path, quota: int) -> bool:
    """Copy ``spec``'s folder to build it in, on a tmpfs of ``quota`` bytes where the arena may mount one (``True``).

    :class:`OSError` unless what was copied is the content its build key names.
    """
    inside = quota_folder(folder, quota)
    copied = copy_folder(spec.cwd, inside or folder)
    if inside is not None:
        bind_quota(inside, folder)
    (folder / BUILD_DIR).mkdir(mode=0o755)
    if copied != (spec.digest or hash_path(spec.cwd)):
        raise OSError("it changed while it was being copied; try again")
    return inside is not None


async def _run_build(
    spec: BotSpec, folder: Path, log_path: Path, policy: SandboxPolicy, *, quota: bool = False
) -> str | None:
    """Run the build command in its jail; what went wrong, or ``None`` for a build that worked (folder sealed).

    ``quota``: the folder is a tmpfs of the build's quota (a failure says how full it was).
    """
    limits = policy.build_limits()
    seconds = min(spec.build_timeout_s, policy.build_time_s)
    builder = BotSpec(name=f"{spec.name}.build", command=spec.build, cwd=folder, profile=spec.profile, from_folder=True)
    with contextlib.suppress(FileNotFoundError):
        log_path.unlink()
    options = SpawnOptions(
        env=bot_environment(builder), limits=limits, stderr_path=log_path, stderr_bytes=limits.stderr_bytes,
        sandbox=policy, writable=(folder,), merge_output=True,
    )  # fmt: skip
    try:
        async with open_bot(builder, options) as process:
            problem = await _watch(process, seconds, policy)
            if problem is None and process.breach is not None:
                problem = f"the build went over its folder's size: {process.breach.reason}"
            elif problem is None and process.process.returncode != 0:
                fault = process.memory_fault()
                code = process.process.returncode
                problem = fault.reason if fault is not None else f"build failed with exit status {code}"
                if process.jail is not None and process.jail.note:  # which compiler ran, where it was not the PATH's
                    problem += f" ({process.jail.note})"
                used, size = held_bytes(folder) if quota else (0, 0)
                if fault is None and used * 2 >= size > 0:  # it may well have failed for want of room
                    problem += (f" (its folder held {used >> 20} of its {size >> 20} MiB quota, which the kernel "
                                "enforces: SandboxPolicy.build_disk_bytes)")  # fmt: skip
    except BotFault as fault:  # it could not even start
        return f"cannot run build command {spec.build[0]!r} ({fault.reason})"
    except OSError as exc:  # the folder could not be sealed
        return f"the build's folder could not be taken back ({exc})"
    return problem


async def _watch(process: BotProcess, seconds: float, policy: SandboxPolicy) -> str | None:
    """Wait for the build to end within its limits; what went over, or ``None``."""
    started = trio.current_time()
    cpu_at_start = process.cpu_seconds() or 0.0
    while True:
        with trio.move_on_after(policy.poll_s):
            await process.process.wait()
        if process.process.returncode is not None:
            return None
        cpu = (process.cpu_seconds() or 0.0) - cpu_at_start
        wall = trio.current_time() - started
        if wall > seconds or cpu > seconds:
            return f"build did not finish within {seconds:g} s ({_how_to_raise(seconds, policy)})"
        fault = process.memory_fault()
        if fault is not None:
            return f"the build went over its memory: {fault.reason}"


def _how_to_raise(seconds: float, policy: SandboxPolicy) -> str:
    if seconds < policy.build_time_s:
        return "raise build_timeout_s in bot.toml if it needs longer"
    return "the most the organiser allows: SandboxPolicy.build_time_s"


def _read_log(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _tail(output: bytes) -> str:
    lines = output.decode("utf-8", "replace").rstrip().splitlines()[-TAIL_LINES:]
    if not lines:
        return " (no output)"
    return "; last lines of its output:\n" + "\n".join("  " + line for line in lines)


@contextlib.asynccontextmanager
async def _folder_lock(path: Path) -> AsyncIterator[None]:
    """An exclusive lock on ``path`` across processes, waited for without blocking trio."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
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
