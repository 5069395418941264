"""Uploads to bot folders: every hostile archive entry is refused by name, limits hold while unpacking."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from arena._errors import UploadRefused
from arena.bots import starters
from arena.cli import main
from arena.server import archive as archive_module
from arena.server.archive import LANGUAGES, UploadLimits, kind_of, unpack
from arena.server.client import EXTENSIONS

from .servertools import many_empty_files
from .test_starters import COMPILED, STARTERS, usable

LIMITS = UploadLimits(max_bytes=1 << 20, max_files=50, max_unpacked_bytes=1 << 20)
MANIFEST = b'run = "python3 bot.py"\n'


def tar_gz(tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], name: str = "up.tar.gz") -> Path:
    path = tmp_path / name
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(info)
    return path


def member(name: str, kind: bytes = tarfile.REGTYPE, **extra: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = 0o644
    for key, value in extra.items():
        setattr(info, key, value)
    return info


def zip_file(tmp_path: Path, entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    path = tmp_path / "up.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return path


def refused(upload: Path, dest: Path, limits: UploadLimits = LIMITS, **kw: str) -> str:
    with pytest.raises(UploadRefused) as caught:
        unpack(upload, dest, limits, **kw)
    return str(caught.value)


def test_a_tar_gz_bot_folder_unpacks(tmp_path: Path) -> None:
    up = tar_gz(tmp_path, [(member("bot.toml"), MANIFEST), (member("lib/helper.py"), b"x = 1\n")])
    folder = unpack(up, tmp_path / "out", LIMITS)
    assert folder == tmp_path / "out"
    assert (folder / "lib" / "helper.py").read_text() == "x = 1\n"


def test_a_single_top_folder_is_the_bot_folder(tmp_path: Path) -> None:
    up = zip_file(tmp_path, [("mybot/bot.toml", MANIFEST), ("mybot/bot.py", b"print()\n")])
    assert unpack(up, tmp_path / "out", LIMITS) == tmp_path / "out" / "mybot"


def test_macos_resource_forks_are_left_out(tmp_path: Path) -> None:
    up = zip_file(tmp_path, [("mybot/bot.toml", MANIFEST), ("__MACOSX/mybot/._bot.toml", b"junk")])
    assert unpack(up, tmp_path / "out", LIMITS) == tmp_path / "out" / "mybot"
    assert not (tmp_path / "out" / "__MACOSX").exists()


def test_an_archive_without_bot_toml_is_refused(tmp_path: Path) -> None:
    up = zip_file(tmp_path, [("bot.py", b"print()\n")])
    assert "no bot.toml" in refused(up, tmp_path / "out")


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("../x", "'../x' has a '..'"),
        ("a/../../x", "has a '..'"),
        ("/etc/passwd", "'/etc/passwd' has an absolute path"),
        ("C:/x", "has an absolute path"),
        ("a\\..\\x", "backslash"),
        ("a\nb", "control character"),
    ],
)
def test_tar_entries_outside_the_folder_are_refused_by_name(tmp_path: Path, name: str, said: str) -> None:
    up = tar_gz(tmp_path, [(member("bot.toml"), MANIFEST), (member(name), b"pwned")])
    assert said in refused(up, tmp_path / "out")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(("name", "said"), [("../x", "has a '..'"), ("/tmp/x", "has an absolute path")])
def test_zip_entries_outside_the_folder_are_refused_by_name(tmp_path: Path, name: str, said: str) -> None:
    info = zipfile.ZipInfo("placeholder")
    info.filename = name  # ZipInfo would strip a leading '/' or '..'; a hostile archive has them raw
    path = tmp_path / "up.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("bot.toml", MANIFEST)
        archive.writestr(info, b"pwned")
    assert said in refused(path, tmp_path / "out")


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        (tarfile.SYMTYPE, "is a symbolic link"),
        (tarfile.LNKTYPE, "is a hard link"),
        (tarfile.CHRTYPE, "is a device"),
        (tarfile.BLKTYPE, "is a device"),
        (tarfile.FIFOTYPE, "is a FIFO"),
    ],
)
def test_links_devices_and_fifos_in_a_tar_are_refused(tmp_path: Path, kind: bytes, said: str) -> None:
    odd = member("evil", kind, linkname="/etc/passwd", devmajor=1, devminor=3)
    up = tar_gz(tmp_path, [(member("bot.toml"), MANIFEST), (odd, None)])
    message = refused(up, tmp_path / "out")
    assert "'evil'" in message and said in message
    assert not (tmp_path / "out" / "evil").exists()


def test_a_symlink_in_a_zip_is_refused(tmp_path: Path) -> None:
    link = zipfile.ZipInfo("evil")
    link.create_system = 3
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    up = zip_file(tmp_path, [("bot.toml", MANIFEST), (link, b"/etc/passwd")])
    assert "'evil' is a symbolic link" in refused(up, tmp_path / "out")


def test_duplicate_names_are_refused(tmp_path: Path) -> None:
    up = tar_gz(tmp_path, [(member("bot.toml"), MANIFEST), (member("a.py"), b"1"), (member("./a.py"), b"2")])
    assert "'./a.py' appears twice" in refused(up, tmp_path / "out")


def test_a_file_then_a_folder_of_the_same_name_is_refused(tmp_path: Path) -> None:
    up = tar_gz(tmp_path, [(member("bot.toml"), MANIFEST), (member("a"), b"1"), (member("a/b"), b"2")])
    assert "'a' is a file, not a folder" in refused(up, tmp_path / "out")


def test_non_utf8_names_are_refused_in_tar_and_zip(tmp_path: Path) -> None:
    raw = b"caf\xe9.py"
    tar_path = tmp_path / "up.tar"
    with tarfile.open(tar_path, "w", format=tarfile.GNU_FORMAT, encoding="latin-1") as archive:
        info = member(raw.decode("latin-1"))
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))
    assert "not UTF-8" in refused(tar_path, tmp_path / "out1")
    zip_path = tmp_path / "up.zip"
    with zipfile.ZipFile(zip_path, "w") as archive:
        archive.writestr("bot.toml", MANIFEST)
    data = zip_path.read_bytes()
    # Rename bot.toml to a latin-1 name of the same length (flag 0x800 unset: not UTF-8).
    zip_path.write_bytes(data.replace(b"bot.toml", b"b\xe9t.toml"))
    message = refused(zip_path, tmp_path / "out2")
    assert "not UTF-8" in message and "\\xe9" in message


def test_a_tar_of_many_empty_files_is_read_as_such(tmp_path: Path) -> None:
    with tarfile.open(many_empty_files(tmp_path / "few.tar.gz", 3)) as archive:
        assert archive.getnames() == ["f000000", "f000001", "f000002"]


def test_too_many_entries_stops_early(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = many_empty_files(tmp_path / "many.tar.gz", 100_000)
    read = 0
    real = archive_module._tar_entries

    def counted(*args: Any) -> Iterator[Any]:
        nonlocal read
        for entry in real(*args):
            read += 1
            yield entry

    monkeypatch.setattr(archive_module, "_tar_entries", counted)
    message = refused(path, tmp_path / "out", UploadLimits(max_files=500))
    assert "more than the 500 entries allowed" in message
    assert len(os.listdir(tmp_path / "out")) <= 500
    assert read <= 501  # it stops at entry 501, not after 100,000


def test_a_zip_bomb_stops_at_the_unpacked_limit(tmp_path: Path) -> None:
    up = zip_file(tmp_path, [("bot.toml", MANIFEST), ("big.bin", b"\0" * (8 << 20))])
    assert up.stat().st_size < 100_000
    assert "unpacks to more than" in refused(up, tmp_path / "out")
    assert sum(f.stat().st_size for f in (tmp_path / "out").rglob("*") if f.is_file()) <= LIMITS.max_unpacked_bytes


def test_the_sizes_an_archive_claims_are_not_trusted(tmp_path: Path) -> None:
    up = tar_gz(tmp_path, [(member("bot.toml"), MANIFEST), (member("big"), b"\0" * (2 << 20))])
    assert "unpacks to more than" in refused(up, tmp_path / "out")


def test_a_single_file_needs_a_language_and_gets_a_manifest(tmp_path: Path) -> None:
    source = tmp_path / "mine.c"
    source.write_text("int main(void) { return 0; }\n")
    assert kind_of(source) == "file"
    assert "needs its language" in refused(source, tmp_path / "out0")
    folder = unpack(source, tmp_path / "out", LIMITS, language="c")
    assert (folder / "bot.c").read_text() == source.read_text()
    manifest = (folder / "bot.toml").read_text()
    assert LANGUAGES["c"].build in manifest and 'run = ".arena-build/bot"' in manifest
    assert "reuse = true" in manifest.splitlines()  # a starter's file plays many matches in one process


def test_nothing_is_written_through_a_link_even_if_one_were_there(tmp_path: Path) -> None:
    # Defence in depth: files are created with O_EXCL | O_NOFOLLOW, so a link planted where a file
    # goes (which the checks above never let an archive make) fails the write instead of following it.
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "bot.toml").symlink_to(tmp_path / "target")
    writer = archive_module._Writer(dest, LIMITS)
    entry = archive_module._Entry(PurePosixPath("bot.toml"), "'bot.toml'", False, open=lambda: io.BytesIO(MANIFEST))
    with pytest.raises(FileExistsError):
        writer.add(entry)
    assert not (tmp_path / "target").exists()


@pytest.mark.parametrize(
    "language",
    [pytest.param(lang, marks=[pytest.mark.slow] if lang in COMPILED else []) for lang in starters.LANGUAGES],
)
@pytest.mark.slow
def test_a_starter_uploaded_as_its_one_source_file_passes_arena_check(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every language `arena new` makes a bot in may be uploaded as its one file: `arena submit bot.go` too."""
    lang = starters.LANGUAGES[language]
    source = tmp_path / lang.source
    source.write_text(starters.for_game((STARTERS / language / lang.source).read_text(), "gops"))
    assert EXTENSIONS[source.suffix] == language, "arena submit names the language from the file's extension"
    folder = unpack(source, tmp_path / "out", LIMITS, language=language)
    usable(lang, monkeypatch)
    status = main(["check", str(folder), "--game", "gops", "--matches", "2", "--log-dir", str(tmp_path / "logs")])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "PASS  plays several matches in one process: 2 matches in one process" in out
