"""A bot folder's content: one walk that both its hash and its build copy are made from.

A build is shared by every bot whose folder hashes the same, so the hash must
cover exactly what the build copy holds: every regular file (its bytes and
whether it is executable), every symbolic link (its target, never followed)
and every empty folder, with the same names left out everywhere
(:data:`SKIPPED`). :func:`walk` lists them; :func:`hash_path` hashes what it
lists, and the build copy (:func:`arena.sandbox._builds.copy_folder`) copies
what it lists and hashes the bytes it copied, so the two cannot drift apart.

The walk goes by file descriptor with ``O_NOFOLLOW`` at each step: a link is
hashed and copied as a link, never followed, so a bot's folder cannot make
the arena read outside it; FIFOs, devices and sockets are left out, so they
cannot make it block.

The hash of a folder of plain files (none executable, no links, no empty
folders) is the one earlier versions of Arena gave it, so stored versions
and results keep matching their bots; anything else is folded in by a second
hash over typed, length-prefixed records.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SKIPPED = frozenset({".arena-build", ".git", "__pycache__"})
"""Names left out of a bot's content wherever they are, whatever they are: outputs of earlier builds (a build
writes its own), version-control history, Python's byte-code caches. Neither hashed nor copied."""
CHUNK = 1 << 20
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_EXTRAS_TAG = b"arena bot content 2\0"


@dataclass(frozen=True)
class Entry:
    """One thing in a bot's folder that is part of its content."""

    kind: str
    """``file``, ``link`` or ``folder``."""
    path: str
    """Relative to the folder, ``/``-separated."""
    name: str
    dir_fd: int
    """The open folder holding it (valid while the walk is at this entry)."""
    info: os.stat_result
    """Its ``lstat``."""
    fd: int = -1
    """For a folder: the folder itself, opened (valid while the walk is inside it)."""

    @property
    def executable(self) -> bool:
        """Whether a file is copied (and hashed) as executable: its owner may execute it."""
        return bool(self.info.st_mode & stat.S_IXUSR)


def walk(folder_fd: int, prefix: str = "") -> Iterator[Entry]:
    """The content of the open folder ``folder_fd``: sorted by name, a folder before what it holds."""
    for name in sorted(os.listdir(folder_fd)):
        if name in SKIPPED:
            continue
        try:
            info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        path = prefix + name
        if stat.S_ISLNK(info.st_mode):
            yield Entry("link", path, name, folder_fd, info)
        elif stat.S_ISREG(info.st_mode):
            yield Entry("file", path, name, folder_fd, info)
        elif stat.S_ISDIR(info.st_mode):
            child = os.open(name, _OPEN_DIR, dir_fd=folder_fd)  # a folder swapped for a link meanwhile: ELOOP
            try:
                yield Entry("folder", path, name, folder_fd, info, child)
                yield from walk(child, path + "/")
            finally:
                os.close(child)


def open_file(entry: Entry) -> int:
    """A file entry opened for reading (never through a link); :class:`OSError` if it is no longer a file."""
    fd = os.open(entry.name, _OPEN_FILE, dir_fd=entry.dir_fd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{entry.path} changed while it was read")
    return fd


class ContentHash:
    """The SHA-256 of a bot's content, fed entry by entry in :func:`walk`'s order."""

    def __init__(self) -> None:
        self._files = hashlib.sha256()
        self._extras = hashlib.sha256()
        self._extra_count = 0
        self._open_folder: bytes | None = None
        """The last folder seen, until an entry inside it shows it is not empty."""

    def add_file(self, path: str, content_sha256: bytes, *, executable: bool) -> None:
        """A regular file with the SHA-256 of its bytes."""
        name = self._seen(path)
        self._files.update(name + b"\0")
        self._files.update(content_sha256)
        if executable:
            self._extra(b"x", name, b"")

    def add_link(self, path: str, target: str) -> None:
        """A symbolic link to ``target``."""
        self._extra(b"l", self._seen(path), os.fsencode(target))

    def add_folder(self, path: str) -> None:
        """A folder (it counts only if nothing inside it does: an empty folder)."""
        self._open_folder = self._seen(path)

    def add(self, entry: Entry, content_sha256: bytes = b"") -> None:
        """Add ``entry`` (a file's bytes' SHA-256 is given by the caller, who read them)."""
        if entry.kind == "file":
            self.add_file(entry.path, content_sha256, executable=entry.executable)
        elif entry.kind == "link":
            self.add_link(entry.path, os.readlink(entry.name, dir_fd=entry.dir_fd))
        else:
            self.add_folder(entry.path)

    def hexdigest(self) -> str:
        """The content's hash."""
        self._seen("")
        if not self._extra_count:
            return self._files.hexdigest()
        return hashlib.sha256(_EXTRAS_TAG + self._files.digest() + self._extras.digest()).hexdigest()

    def _seen(self, path: str) -> bytes:
        name = os.fsencode(path)
        folder = self._open_folder
        if folder is not None and not name.startswith(folder + b"/"):
            self._extra(b"d", folder, b"")  # nothing came inside it: an empty folder
        self._open_folder = None
        return name

    def _extra(self, kind: bytes, name: bytes, data: bytes) -> None:
        self._extra_count += 1
        self._extras.update(kind + len(name).to_bytes(4, "big") + name + len(data).to_bytes(4, "big") + data)


def file_sha256(fd: int) -> bytes:
    """The SHA-256 of what is left to read of ``fd``."""
    digest = hashlib.sha256()
    while chunk := os.read(fd, CHUNK):
        digest.update(chunk)
    return digest.digest()


def hash_folder(folder: Path) -> str:
    """The content hash of ``folder`` (see the module's docstring); :class:`OSError` if it cannot be read."""
    content = ContentHash()
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the organiser named it: may be a link
    try:
        for entry in walk(top):
            if entry.kind != "file":
                content.add(entry)
                continue
            fd = open_file(entry)
            try:
                content.add(entry, file_sha256(fd))
            finally:
                os.close(fd)
    finally:
        os.close(top)
    return content.hexdigest()
