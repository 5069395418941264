"""Turning an upload into a bot folder, refusing anything that could reach outside it.

An upload is a single source file (with the language the participant chose)
or an archive (``.zip``, ``.tar.gz``, ``.tar``) holding a bot folder with
``bot.toml``. The format is told by the file's first bytes, not its name.

Every archive entry is checked before a byte of it is written: an absolute
path, a ``..`` component, a backslash, a control character, a name that is not
UTF-8, a symbolic or hard link, a device, a FIFO, an encrypted entry or a name
seen twice is refused with a message that names the entry. The number of
entries and the bytes actually written (not the sizes the archive claims, so
a zip bomb stops at the limit) are bounded. Files are created with
``O_EXCL | O_NOFOLLOW`` in folders this module made, so nothing can be
written through a link even if a check above were missed.

Whatever goes wrong reading the archive (a bad CRC, a compression method
Python does not read, such as deflate64, a truncated stream) refuses the
upload with a one-line reason: nothing a participant sends raises anything
but :class:`UploadRefused`.
"""

from __future__ import annotations

import contextlib
import lzma
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from .._errors import UploadRefused
from ..bots.spec import MANIFEST

CHUNK = 1 << 16
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
IGNORED_TOP = "__MACOSX"
"""Resource forks macOS's archiver adds beside the real files; never part of a bot."""
UNREADABLE = (
    zipfile.BadZipFile, tarfile.TarError, zlib.error, lzma.LZMAError, EOFError, OSError, NotImplementedError,
    RuntimeError, ValueError, UnicodeError,
)  # fmt: skip
"""What reading a damaged or unusual archive raises: zipfile's CRC and method errors (``NotImplementedError``
for deflate64), tarfile's, the decompressors', a truncated stream's ``EOFError``, an encrypted member's
``RuntimeError``."""


@dataclass(frozen=True)
class UploadLimits:
    """How much one upload may hold."""

    max_bytes: int = 5 << 20
    """The upload itself, as sent."""
    max_files: int = 500
    """Entries (files and folders) in an archive."""
    max_unpacked_bytes: int = 50 << 20
    """All files of the bot folder, once unpacked."""


@dataclass(frozen=True)
class Language:
    """How a single uploaded source file becomes a bot folder."""

    key: str
    title: str
    file: str
    run: str
    build: str = ""


LANGUAGES: dict[str, Language] = {
    lang.key: lang
    for lang in (
        Language("python", "Python 3", "bot.py", "python3 bot.py"),
        Language("javascript", "JavaScript (node)", "bot.js", "node bot.js"),
        Language("ruby", "Ruby", "bot.rb", "ruby bot.rb"),
        Language("bash", "bash", "bot.sh", "bash bot.sh"),
        Language("c", "C (gcc)", "bot.c", ".arena-build/bot", "gcc -O2 -o .arena-build/bot bot.c -lm"),
        Language("cpp", "C++ (g++)", "bot.cpp", ".arena-build/bot", "g++ -O2 -o .arena-build/bot bot.cpp"),
        Language(
            "java",
            "Java (a class named Bot)",
            "Bot.java",
            "java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp .arena-build Bot",
            "javac -d .arena-build Bot.java",
        ),
        # No module (go.mod) and no cargo: a build in the sandbox cannot download one, as in the starters.
        Language("go", "Go", "bot.go", ".arena-build/bot", "go build -o .arena-build/bot bot.go"),
        Language(
            "rust", "Rust (rustc)", "bot.rs", ".arena-build/bot", "rustc --edition 2021 -O -o .arena-build/bot bot.rs"
        ),
    )
}
"""The languages a single-file upload may be in; an archive with its own ``bot.toml`` may use anything."""


def kind_of(path: Path) -> str:
    """``zip``, ``tar.gz``, ``tar`` or ``file``, from the upload's first bytes."""
    with path.open("rb") as file:
        head = file.read(512)
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if head[:2] == b"\x1f\x8b":
        return "tar.gz"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    return "file"


def unpack(upload: Path, dest: Path, limits: UploadLimits, *, language: str = "") -> Path:
    """Unpack ``upload`` into the new folder ``dest`` and return the bot folder (the one with ``bot.toml``).

    A single file needs ``language`` (a key of :data:`LANGUAGES`); it becomes
    ``dest/<the language's file name>`` with a ``bot.toml`` written for it (``reuse = true``, as a starter's).
    Raises :class:`UploadRefused` with a message for the participant.
    """
    dest.mkdir(mode=0o755)
    kind = kind_of(upload)
    if kind == "file":
        return _single_file(upload, dest, limits, language)
    writer = _Writer(dest, limits)
    entries = _zip_entries(upload, limits) if kind == "zip" else _tar_entries(upload, kind, limits)
    for entry in entries:  # each generator turns its own read errors into refusals; a write error is the server's
        writer.add(entry)
    return _bot_folder(dest)


@contextlib.contextmanager
def _reading(shown: str) -> Iterator[None]:
    """Turn an error reading the archive (at entry ``shown``, if known) into a refusal with its one-line reason."""
    try:
        yield
    except UNREADABLE as exc:
        where = f" (at entry {shown})" if shown else ""
        raise UploadRefused(f"the archive cannot be read{where}: {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


# Single files -------------------------------------------------------------------
def _single_file(upload: Path, dest: Path, limits: UploadLimits, language: str) -> Path:
    lang = LANGUAGES.get(language)
    if lang is None:
        known = ", ".join(LANGUAGES)
        raise UploadRefused(f"a single file needs its language (one of {known}), or upload a .zip or .tar.gz")
    if upload.stat().st_size > limits.max_unpacked_bytes:
        raise UploadRefused(f"the file is larger than the {_size(limits.max_unpacked_bytes)} allowed")
    with upload.open("rb") as source, _create(dest / lang.file, executable=False) as target:
        while chunk := source.read(CHUNK):
            target.write(chunk)
    manifest = f"run = {_toml_string(lang.run)}\n"
    if lang.build:
        manifest += f"build = {_toml_string(lang.build)}\n"
    manifest += "reuse = true\n"  # as every starter's: one process plays many matches (the check shows it does)
    with _create(dest / MANIFEST, executable=False) as target:
        target.write(manifest.encode())
    return dest


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Archive entries ----------------------------------------------------------------
@dataclass
class _Entry:
    """One archive member, checked: its path, what it is, and how to read its bytes."""

    path: PurePosixPath
    shown: str
    is_dir: bool
    executable: bool = False
    open: object = None
    """For a file: a callable returning a readable binary stream."""


def _zip_entries(upload: Path, limits: UploadLimits) -> Iterator[_Entry]:
    try:
        archive = zipfile.ZipFile(upload)
    except UNREADABLE as exc:
        raise UploadRefused(f"the zip archive cannot be read: {_reason(exc)}") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_files:
            raise UploadRefused(f"the archive holds {len(infos)} entries, more than the {limits.max_files} allowed")
        for info in infos:
            name = info.filename
            if not info.flag_bits & 0x800:  # not marked UTF-8: Python decoded it as cp437; get the bytes back
                raw = name.encode("cp437")
                try:
                    name = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise UploadRefused(
                        f"archive entry {_shown(raw.decode('utf-8', 'backslashreplace'))}: its name is not UTF-8"
                    ) from None
            shown = _shown(name)
            mode = info.external_attr >> 16 if info.create_system == 3 else 0
            kind = _odd_kind(mode)
            if kind:
                raise UploadRefused(f"archive entry {shown} is {kind}; only files and folders are taken")
            if info.flag_bits & 0x1:
                raise UploadRefused(f"archive entry {shown} is encrypted")
            path = _checked_path(name, shown)
            if path is None:
                continue
            is_dir = name.endswith("/") or stat.S_ISDIR(mode)
            yield _Entry(
                path,
                shown,
                is_dir,
                executable=bool(mode & 0o111),
                open=(lambda info=info: archive.open(info)),
            )


def _tar_entries(upload: Path, kind: str, limits: UploadLimits) -> Iterator[_Entry]:
    count = 0
    try:
        # A stream: members are read one at a time, never all listed first.
        with tarfile.open(upload, mode="r|gz" if kind == "tar.gz" else "r|") as archive:
            for member in archive:
                count += 1
                if count > limits.max_files:
                    raise UploadRefused(f"the archive holds more than the {limits.max_files} entries allowed")
                shown = _shown(member.name)
                if _has_surrogates(member.name):
                    raise UploadRefused(f"archive entry {shown}: its name is not UTF-8")
                if member.issym():
                    raise UploadRefused(f"archive entry {shown} is a symbolic link; only files and folders are taken")
                if member.islnk():
                    raise UploadRefused(f"archive entry {shown} is a hard link; only files and folders are taken")
                if member.ischr() or member.isblk():
                    raise UploadRefused(f"archive entry {shown} is a device; only files and folders are taken")
                if member.isfifo():
                    raise UploadRefused(f"archive entry {shown} is a FIFO; only files and folders are taken")
                if not (member.isfile() or member.isdir()):
                    raise UploadRefused(f"archive entry {shown} is not a file or a folder")
                path = _checked_path(member.name, shown)
                if path is None:
                    continue
                yield _Entry(
                    path,
                    shown,
                    member.isdir(),
                    executable=bool(member.mode & 0o111),
                    open=(lambda member=member: archive.extractfile(member)),
                )
    except UNREADABLE as exc:
        raise UploadRefused(f"the archive cannot be read: {_reason(exc)}") from None


def _odd_kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return ""


def _checked_path(name: str, shown: str) -> PurePosixPath | None:
    """The entry's path inside the bot folder, or ``None`` for an entry to leave out (``__MACOSX/``)."""
    if not name or not name.strip("/"):
        if name.startswith("/"):
            raise UploadRefused(f"archive entry {shown} has an absolute path")
        raise UploadRefused("an archive entry has an empty name")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise UploadRefused(f"archive entry {shown}: its name holds a control character")
    if "\\" in name:
        raise UploadRefused(f"archive entry {shown}: its name holds a backslash (archive paths use /)")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UploadRefused(f"archive entry {shown} has an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UploadRefused(f"archive entry {shown} has a '..' in its path")
    if len(name.encode()) > MAX_PATH_BYTES or any(len(part.encode()) > MAX_NAME_BYTES for part in parts):
        raise UploadRefused(f"archive entry {shown}: its name is too long")
    if not parts:
        raise UploadRefused(f"archive entry {shown} names the archive's top folder itself")
    if parts[0] == IGNORED_TOP:
        return None
    return PurePosixPath(*parts)


def _has_surrogates(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


# Writing ------------------------------------------------------------------------
class _Writer:
    """Writes checked entries under ``dest``, refusing duplicates and counting every byte."""

    def __init__(self, dest: Path, limits: UploadLimits) -> None:
        self.dest = dest
        self.limits = limits
        self.files: set[PurePosixPath] = set()
        self.dirs: set[PurePosixPath] = set()
        self.listed_dirs: set[PurePosixPath] = set()
        self.written = 0

    def add(self, entry: _Entry) -> None:
        path = entry.path
        if path in self.files or (entry.is_dir and path in self.listed_dirs):
            raise UploadRefused(f"archive entry {entry.shown} appears twice")
        for parent in reversed(path.parents[:-1]):
            if parent in self.files:
                raise UploadRefused(f"archive entry {entry.shown}: {_shown(str(parent))} is a file, not a folder")
            self._mkdir(parent)
        if entry.is_dir:
            self._mkdir(path)
            self.listed_dirs.add(path)
            return
        if path in self.dirs:
            raise UploadRefused(f"archive entry {entry.shown} appears twice (as a folder and as a file)")
        self.files.add(path)
        opener = entry.open
        assert callable(opener)
        with _reading(entry.shown):
            source: IO[bytes] | None = opener()
        if source is None:
            raise UploadRefused(f"archive entry {entry.shown} cannot be read")
        with source, _create(self.dest.joinpath(*path.parts), executable=entry.executable) as target:
            while chunk := _read(source, entry.shown):
                self.written += len(chunk)
                if self.written > self.limits.max_unpacked_bytes:
                    raise UploadRefused(
                        f"the archive unpacks to more than the {_size(self.limits.max_unpacked_bytes)} allowed"
                        f" (at entry {entry.shown})"
                    )
                target.write(chunk)

    def _mkdir(self, path: PurePosixPath) -> None:
        if path in self.dirs:
            return
        os.mkdir(self.dest.joinpath(*path.parts), 0o755)  # a fresh folder we made: no link can be in the way
        self.dirs.add(path)


def _read(source: IO[bytes], shown: str) -> bytes:
    """The next chunk of an entry: a read error is the archive's (a write error, below, is the server's own)."""
    with _reading(shown):
        return source.read(CHUNK)


def _create(path: Path, *, executable: bool) -> IO[bytes]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o755 if executable else 0o644)
    return os.fdopen(fd, "wb")


def _bot_folder(dest: Path) -> Path:
    """``dest`` when it holds ``bot.toml``, else its single top folder when that does."""
    if (dest / MANIFEST).is_file():
        return dest
    entries = list(dest.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and (entries[0] / MANIFEST).is_file():
        return entries[0]
    raise UploadRefused(
        f"no {MANIFEST} at the top of the archive (or in its single top folder): a bot folder needs one,"
        ' such as: run = "python3 bot.py"'
    )


def _shown(name: str) -> str:
    """An entry's name as a message shows it: quoted, with anything unprintable escaped."""
    return repr(name[:200] + ("..." if len(name) > 200 else ""))


def _size(count: int) -> str:
    return f"{count / (1 << 20):g} MiB" if count >= 1 << 20 else f"{count} bytes"
