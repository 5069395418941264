"""Showing a bot's own files to its owner, without ever following a link out of its folder.

A bot's build runs bot code (in the jail, but still): it may leave symbolic
links in its folder pointing anywhere, such as at the server's own files.
So every path is opened one component at a time relative to the folder's
descriptor with ``O_NOFOLLOW``, and only regular files are read.

The server's own folders are made private (:func:`private_folder`): no bot's
UID may enter them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_SHOWN = 256 << 10
"""How much of a file a page shows (the end of it for logs)."""
MAX_LISTED = 500


def bot_files(folder: Path) -> list[tuple[str, int]]:
    """``(relative path, size)`` of every regular file in ``folder`` (links and special files left out)."""
    out: list[tuple[str, int]] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(root, d)))
        for name in sorted(files):
            path = os.path.join(root, name)
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):
                out.append((os.path.relpath(path, folder), info.st_size))
            if len(out) >= MAX_LISTED:
                return out
    return out


def read_bot_file(folder: Path, relative: str) -> str:
    """The text of ``folder/relative`` (its first 256 KiB), refusing links and anything but a regular file.

    Raises ``FileNotFoundError`` for anything that is not a plain file inside ``folder``.
    """
    parts = [p for p in relative.split("/") if p not in ("", ".")]
    if not parts or ".." in parts or any("\x00" in p for p in parts):
        raise FileNotFoundError(relative)
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(folder, flags | os.O_DIRECTORY)
    except OSError:
        raise FileNotFoundError(relative) from None
    try:
        for part in parts[:-1]:
            try:
                next_fd = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            except OSError:
                raise FileNotFoundError(relative) from None
            os.close(fd)
            fd = next_fd
        try:
            file_fd = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fd)
        except OSError:
            raise FileNotFoundError(relative) from None
    finally:
        os.close(fd)
    with os.fdopen(file_fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise FileNotFoundError(relative)
        data = file.read(MAX_SHOWN + 1)
    text = data[:MAX_SHOWN].decode("utf-8", "replace")
    return text + ("\n[... cut at 256 KiB]" if len(data) > MAX_SHOWN else "")


def tail_of(path: Path) -> str:
    """The last 256 KiB of the log at ``path`` (not followed if it is a link)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        raise FileNotFoundError(path) from None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise FileNotFoundError(path)
        if info.st_size > MAX_SHOWN:
            file.seek(info.st_size - MAX_SHOWN)
        data = file.read(MAX_SHOWN)
    prefix = "[... the start is cut]\n" if info.st_size > MAX_SHOWN else ""
    return prefix + data.decode("utf-8", "replace")


def private_folder(folder: Path) -> Path:
    """``folder``, made (or made again) ``0700``: only the server's own user may enter it.

    A bot runs as a UID of its own (as root): even if a jail could see the
    server's data folder (a bind of a folder above it), it could not enter
    it. A bot reads its own files through the bind of its own folder, which
    its jail makes (see :meth:`~arena.server.submissions.Submissions.take_upload`).
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if stat.S_IMODE(folder.stat().st_mode) != 0o700:
        folder.chmod(0o700)
    return folder
