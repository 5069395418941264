"""Build folders the arena owns, outside every bot's folder, one per bot content.

A bot with a ``build`` command is built in a *copy* of its folder, made by the
arena in ``builds/KEY`` (``KEY`` is the bot's content hash, and its owner's
on a server): the copy holds the bot's content as :mod:`arena.bots.content`
walks it, the same walk its hash is taken from (links copied as links, never
followed; FIFOs and devices left out) and an empty ``.arena-build/``, so existing manifests
(``build = "gcc -o .arena-build/bot bot.c"``, ``run = ".arena-build/bot"``)
work unchanged. The build runs in the bot's jail with that folder writable and
nothing else; afterwards :func:`seal` hands every file back to the arena and
takes away write and set-id bits, and the bot runs from the sealed folder.
The bot's own folder is only ever read.

Everything here walks folders by file descriptor (``O_NOFOLLOW`` at each
step), so a link or a rename made by a build cannot send the arena, which may
be root, anywhere else.

Where the arena may mount (root, with ``CAP_SYS_ADMIN``), a build runs on a
tmpfs of its quota (:func:`quota_folder`): the kernel refuses a write past it
at once, so a build never puts more than its quota anywhere. Once the build
is over its output is copied to disk (:func:`keep_output`), at most the
quota, and the tmpfs goes.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..bots.content import CHUNK, SKIPPED, ContentHash, Entry, open_file, walk

BUILD_DIR = ".arena-build"
"""The folder a build writes its outputs to, inside the build copy (and so in the bot's view of its folder)."""
assert BUILD_DIR in SKIPPED  # a copy never carries an earlier build's outputs
COPY_BYTES = 256 << 20
"""The largest bot folder the arena copies (bytes of regular files)."""
COPY_ENTRIES = 100_000
"""The most files, folders and links a copied bot folder may hold."""
DONE_SUFFIX = ".ok"
"""Beside ``builds/KEY``: present once that build succeeded (the folder is then sealed)."""

_OPEN_ENTRY = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def build_root(configured: Path | None) -> Path:
    """The folder holding every build (``$TMPDIR/arena-builds-EUID`` unless configured), made ``0711``.

    Bots may pass through it (their UID must reach their own build) but not
    list it, as for the jails' homes.
    """
    root = configured or Path(os.environ.get("TMPDIR", "/tmp")) / f"arena-builds-{os.geteuid()}"
    root.mkdir(mode=0o711, parents=True, exist_ok=True)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise OSError(f"{root} is not a folder of this user: choose another build root")
    if stat.S_IMODE(info.st_mode) != 0o711:
        root.chmod(0o711)
    return root


def built(root: Path, key: str) -> Path | None:
    """The sealed build folder for ``key``, or ``None`` if that content was never built successfully."""
    folder = root / key
    return folder if (root / (key + DONE_SUFFIX)).is_file() and folder.is_dir() else None


def copy_folder(source: Path, target: Path) -> str:
    """Copy the bot folder ``source`` into the new folder ``target`` (see the module's docstring); its content hash.

    The hash is of what was copied, taken in the same walk from the same
    bytes (:mod:`arena.bots.content`): a build made from the copy is of
    exactly the content that hash names. Raises :class:`OSError` when the
    folder is over :data:`COPY_BYTES` or :data:`COPY_ENTRIES`.
    """
    copied = ContentHash()
    counted = {"bytes": 0, "entries": 0}
    os.mkdir(target, 0o755)
    source_fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the organiser named it: may be a link
    try:
        for entry in walk(source_fd):
            counted["entries"] += 1
            if counted["entries"] > COPY_ENTRIES:
                raise OSError(f"bot folder holds more than {COPY_ENTRIES} entries")
            where = target / entry.path
            if entry.kind == "link":
                os.symlink(os.readlink(entry.name, dir_fd=entry.dir_fd), where)
                copied.add(entry)
            elif entry.kind == "folder":
                os.mkdir(where, 0o755)
                copied.add(entry)
            else:
                counted["bytes"] += entry.info.st_size
                if counted["bytes"] > COPY_BYTES:
                    raise OSError(f"bot folder is over {COPY_BYTES >> 20} MiB")
                copied.add(entry, _copy_file(entry, where))
    finally:
        os.close(source_fd)
    return copied.hexdigest()


def _copy_file(entry: Entry, target: Path) -> bytes:
    """Copy a file entry to ``target`` (executable or not, nothing else of its mode); the SHA-256 of its bytes."""
    fd = open_file(entry)
    try:
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o755 if entry.executable else 0o644)
        digest = hashlib.sha256()
        try:
            while chunk := os.read(fd, CHUNK):
                digest.update(chunk)
                os.write(out, chunk)
        finally:
            os.close(out)
    finally:
        os.close(fd)
    return digest.digest()


def _entries(folder: Path) -> Iterator[tuple[int, str, os.stat_result]]:
    """Every entry under ``folder`` as (its folder's fd, name, lstat), parents before children, no link followed.

    A folder is entered by fd opened with ``O_NOFOLLOW``: swapping it for a
    link meanwhile makes the walk skip it, never follow it.
    """
    top = os.open(folder, _OPEN_DIR)
    stack = [top]
    try:
        while stack:
            dir_fd = stack.pop()
            try:
                for name in os.listdir(dir_fd):
                    try:
                        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    yield dir_fd, name, info
                    if stat.S_ISDIR(info.st_mode):
                        with contextlib.suppress(OSError):
                            stack.append(os.open(name, _OPEN_DIR, dir_fd=dir_fd))
            finally:
                if dir_fd != top:
                    os.close(dir_fd)
    finally:
        for fd in [top, *stack]:
            with contextlib.suppress(OSError):
                os.close(fd)


def _set(dir_fd: int, name: str, *, mode: int | None, owner: tuple[int, int] | None) -> None:
    """chmod/chown one entry exactly (never what a link names): through an ``O_PATH`` fd of it."""
    if owner is not None:
        os.chown(name, *owner, dir_fd=dir_fd, follow_symlinks=False)
    if mode is not None:
        fd = os.open(name, _OPEN_ENTRY, dir_fd=dir_fd)
        try:
            if not stat.S_ISLNK(os.fstat(fd).st_mode):
                os.chmod(f"/proc/self/fd/{fd}", mode)
        finally:
            os.close(fd)


def usage(folder: Path, most_entries: int) -> tuple[int, int]:
    """Bytes on disk and entries under ``folder``, counting stopped once past ``most_entries``."""
    total = entries = 0
    with contextlib.suppress(OSError):
        for _, _, info in _entries(folder):
            entries += 1
            total += info.st_blocks * 512
            if entries > most_entries:
                break
    return total, entries


def lend(folder: Path, uid: int) -> None:
    """Make ``folder`` (just copied by the arena) and everything in it belong to ``uid``, for a build."""
    os.chown(folder, uid, uid, follow_symlinks=False)
    for dir_fd, name, _ in _entries(folder):
        os.chown(name, uid, uid, dir_fd=dir_fd, follow_symlinks=False)


def seal(folder: Path, builder: int | None) -> None:
    """Take ``folder`` back after a build that ran as ``builder`` (``None``: as the arena's own user).

    Every entry ends owned by the arena, writable only by it, readable by
    all (bots run as other UIDs), without set-id bits. Entries the builder
    did not own (a hard link to someone else's file) and FIFOs or sockets are
    removed. Run it only once the build's processes are all dead.
    """
    owner = (os.geteuid(), os.getegid()) if builder is not None else None
    doomed: list[tuple[int, str]] = []
    fds: list[int] = []
    try:
        for dir_fd, name, info in _entries(folder):
            kind = stat.S_IFMT(info.st_mode)
            foreign = builder is not None and info.st_uid != builder
            if foreign or kind not in (stat.S_IFREG, stat.S_IFDIR, stat.S_IFLNK):
                if kind != stat.S_IFDIR:
                    kept = os.dup(dir_fd)
                    fds.append(kept)
                    doomed.append((kept, name))
                continue
            executable = kind == stat.S_IFDIR or info.st_mode & stat.S_IXUSR
            _set(dir_fd, name, mode=0o755 if executable else 0o644, owner=owner)
        for dir_fd, name in doomed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=dir_fd)
    finally:
        for fd in fds:
            os.close(fd)
    if owner is not None:
        os.chown(folder, *owner, follow_symlinks=False)
    folder.chmod(0o755)


_libc = ctypes.CDLL(None, use_errno=True)
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MNT_DETACH = 2, 4, 4096, 2
QUOTA_SUFFIX = ".quota"
"""Beside ``builds/KEY``: the tmpfs of the build's quota while it runs (``KEY`` is a folder of it, bound there)."""


def _mount(source: bytes, target: Path, fstype: bytes | None, flags: int, options: bytes | None) -> bool:
    return bool(_libc.mount(source, os.fsencode(target), fstype, flags, options) == 0)


def quota_folder(folder: Path, quota: int) -> Path | None:
    """A folder on a new tmpfs of ``quota`` bytes, to be bound on ``folder`` (:func:`bind_quota`); ``None``: no mounts.

    The bot is copied into it, then it is bound where the build runs: the
    copy counts against the quota as the bot's files always did.
    """
    if os.geteuid() != 0:
        return None
    stage = folder.with_name(folder.name + QUOTA_SUFFIX)
    stage.mkdir(mode=0o700)
    if not _mount(b"arena-build", stage, b"tmpfs", _MS_NOSUID | _MS_NODEV, f"size={max(quota, 4096)}".encode()):
        stage.rmdir()
        return None
    return stage / "build"


def bind_quota(inside: Path, folder: Path) -> None:
    """Make the new folder ``folder`` the tmpfs folder ``inside`` (where the bot was copied)."""
    folder.mkdir(mode=0o755)
    if not _mount(os.fsencode(inside), folder, None, _MS_BIND, None):
        raise OSError(ctypes.get_errno(), f"cannot bind the build's tmpfs on {folder}")


def unmount(folder: Path) -> None:
    """Detach what is mounted on ``folder`` (a build's tmpfs, or its bind), if anything is."""
    if os.path.ismount(folder):
        _libc.umount2(os.fsencode(folder), _MNT_DETACH)


@functools.cache
def quota_mounts() -> bool:
    """Whether builds here run on a tmpfs of their quota (the arena may mount: root with ``CAP_SYS_ADMIN``)."""
    if os.geteuid() != 0:
        return False
    try:
        with tempfile.TemporaryDirectory(prefix="arena-quota-probe-") as name:
            inside = quota_folder(Path(name, "probe"), 1 << 20)
            if inside is None:
                return False
            remove_tree(Path(name, "probe"))
    except OSError:  # no temporary folder to try it in: say no
        return False
    return True


def held_bytes(folder: Path) -> tuple[int, int]:
    """(bytes used, bytes in all) of the filesystem ``folder`` is on: a build's tmpfs, for its fault's reason."""
    fs = os.statvfs(folder)
    return (fs.f_blocks - fs.f_bfree) * fs.f_frsize, fs.f_blocks * fs.f_frsize


def keep_output(folder: Path, quota: int) -> None:
    """Copy a sealed build on its tmpfs (bound on ``folder``) to disk in its place, at most ``quota`` bytes.

    Every file, folder and link is copied (links as links); hard links and
    sparse files are copied whole, so the copy is counted by its files'
    sizes and stops with :class:`OSError` past ``quota``.
    """
    kept = folder.with_name(folder.name + ".kept")
    remove_tree(kept)
    os.mkdir(kept, 0o755)
    source_fd = os.open(folder, _OPEN_DIR)
    try:
        _copy_output(source_fd, kept, [quota])
        remove_tree(folder)
        kept.rename(folder)
    finally:
        os.close(source_fd)
        remove_tree(kept)


def _copy_output(source_fd: int, target: Path, left: list[int]) -> None:
    for name in sorted(os.listdir(source_fd)):
        info = os.stat(name, dir_fd=source_fd, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            os.symlink(os.readlink(name, dir_fd=source_fd), target / name)
        elif stat.S_ISDIR(info.st_mode):
            child = os.open(name, _OPEN_DIR, dir_fd=source_fd)
            try:
                os.mkdir(target / name, 0o755)
                _copy_output(child, target / name, left)
            finally:
                os.close(child)
        elif stat.S_ISREG(info.st_mode):
            left[0] -= info.st_size
            if left[0] < 0:
                raise OSError("its files come to more than the quota (links and sparse files count whole)")
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=source_fd)
            try:
                out = os.open(
                    target / name,
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                    0o755 if info.st_mode & stat.S_IXUSR else 0o644,
                )
                try:
                    while chunk := os.read(fd, 1 << 20):
                        os.write(out, chunk)
                finally:
                    os.close(out)
            finally:
                os.close(fd)


def remove_tree(folder: Path) -> None:
    """Remove ``folder``, whatever its builder left in it (folders without write or search bits included).

    A build's tmpfs still mounted (its arena was killed) is detached first, and goes with it.
    """
    unmount(folder)
    stage = folder.with_name(folder.name + QUOTA_SUFFIX)
    if not folder.name.endswith(QUOTA_SUFFIX) and stage.is_dir():
        unmount(stage)
        shutil.rmtree(stage, ignore_errors=True)
    if os.geteuid() != 0 and folder.is_dir() and not folder.is_symlink():
        # Root removes anything; the owner first gives itself back the bits a build may have taken away.
        with contextlib.suppress(OSError):
            folder.chmod(0o700)
            for dir_fd, name, info in _entries(folder):
                if stat.S_ISDIR(info.st_mode):
                    _set(dir_fd, name, mode=0o700, owner=None)
    shutil.rmtree(folder, ignore_errors=True)
