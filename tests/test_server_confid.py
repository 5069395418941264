"""Strangers on one server (issue 27, items 4, 5, 8, 9, 16): what one participant's uploads and bots cannot do.

Corrupt archives are refused with a reason and lock nobody out; uploads in
flight are bounded per participant and in all, and a slow body times out;
builds are shared only between byte-identical uploads of one owner; a bot
cannot read the server's data; logs keep only what the protocol defines.
Each is tried with real archives, real HTTP clients on a real socket, or
real bot processes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import io
import os
import re
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import trio

from arena._errors import UploadRefused
from arena.bots.spec import hash_path, load_folder
from arena.games import get_game
from arena.sandbox import built_folder, configure, current_policy
from arena.sandbox._builds import copy_folder
from arena.server import accounts, log_upkeep, submissions
from arena.server.archive import UploadLimits, unpack
from arena.server.config import load
from arena.server.serve import run_server
from arena.server.state import State
from arena.server.web import _replay_page
from arena.supervisor.build import ensure_built
from arena.supervisor.matchlog import read_log
from arena.supervisor.play import play_match
from protocol import Limits

from .servertools import MINIMAL_BOT, bot_archive, minimal_bot, running, write_config


# Corrupt archives -----------------------------------------------------------------------------
def zip_with_bad_crc() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("bot.toml", 'run = "python3 bot.py"\n')
        archive.writestr("bot.py", "print('hello world')\n" * 10)
    data = bytearray(buffer.getvalue())
    data[data.find(b"print('hello")] ^= 0x20  # one flipped bit of bot.py: its CRC no longer matches
    return bytes(data)


def zip_in_deflate64() -> bytes:
    """A zip whose entries say they are compressed with deflate64 (method 9), which Python cannot read."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("bot.toml", 'run = "python3 bot.py"\n')
        archive.writestr("bot.py", "print(1)\n")
    data = bytearray(buffer.getvalue())
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):  # local and central headers
        start = 0
        while (at := data.find(signature, start)) >= 0:
            data[at + offset : at + offset + 2] = struct.pack("<H", 9)
            start = at + 4
    return bytes(data)


def truncated_tar_gz() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in (("bot.toml", b'run = "python3 bot.py"\n'), ("bot.py", bytes(range(256)) * 400)):
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    data = buffer.getvalue()
    return data[: len(data) * 2 // 3]


CORRUPT = {
    "bad-crc.zip": (zip_with_bad_crc, "Bad CRC-32"),
    "deflate64.zip": (zip_in_deflate64, "compression method is not supported"),
    "truncated.tar.gz": (truncated_tar_gz, "unexpected end of data"),
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_a_corrupt_archive_is_refused_with_a_one_line_reason(tmp_path: Path, name: str) -> None:
    make, said = CORRUPT[name]
    upload = tmp_path / name
    upload.write_bytes(make())
    with pytest.raises(UploadRefused) as caught:
        unpack(upload, tmp_path / "bot", UploadLimits())
    message = str(caught.value)
    assert message.startswith("the archive cannot be read") and said in message and "\n" not in message


# A real server on a socket ------------------------------------------------------------------------
@dataclass
class Live:
    url: str
    data_dir: Path
    tokens: dict[str, str]

    def client(self, name: str, **kw: object) -> httpx.AsyncClient:
        headers = {"authorization": f"Bearer {self.tokens[name]}"}
        return httpx.AsyncClient(base_url=self.url, headers=headers, timeout=60, **kw)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def live_server(tmp_path: Path, *names: str, extra: str = "", uploads: str = "") -> AsyncIterator[Live]:
    """``arena serve`` (Hypercorn on a port of its own) in this trio run, its ladder paused, ``names`` registered."""
    config = load(write_config(tmp_path, extra=extra, uploads=uploads or "check_matches = 2"))
    state = State(config.data_dir / "server.sqlite")
    tokens = {name: state.add_participant(name)[1] for name in names}
    state.set_setting("paused", "1")
    state.close()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(run_server, config, jobs=2, say=lambda _t: None))
        yield Live(url, config.data_dir, tokens)
        nursery.cancel_scope.cancel()


async def wait_done(client: httpx.AsyncClient, sid: int, timeout: float = 120) -> dict[str, object]:
    with trio.fail_after(timeout):
        while True:
            data: dict[str, object] = (await client.get(f"/api/submissions/{sid}")).json()
            if data["done"]:
                return data
            await trio.sleep(0.2)


@pytest.mark.slow
async def test_corrupt_archives_over_http_are_refused_and_lock_nobody_out(tmp_path: Path) -> None:
    async with (
        live_server(tmp_path, "mallory", uploads="check_matches = 1\nper_hour = 20") as live,
        live.client("mallory") as client,
    ):
        for name in sorted(CORRUPT):
            make, said = CORRUPT[name]
            response = await client.post("/api/submissions", files={"file": (name, make())})
            assert response.status_code == 201, response.text  # not a 500 with a traceback
            result = response.json()
            assert result["status"] == "refused", result
            assert said in str(result["message"]) and "\n" not in str(result["message"])
        # Nothing was left queued: the next upload is taken and checked (not "429 still being checked").
        response = await client.post("/api/submissions", files={"file": ("bot.tar.gz", minimal_bot())})
        assert response.status_code == 201, response.text
        assert (await wait_done(client, response.json()["id"]))["status"] == "passed"


@pytest.mark.slow
async def test_an_unpacking_error_of_the_servers_own_refuses_the_upload_and_leaves_nothing_queued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kw: object) -> Path:
        raise OSError(28, "No space left on device")

    async with live_server(tmp_path, "alice") as live, live.client("alice") as client:
        monkeypatch.setattr(submissions, "unpack", broken)
        response = await client.post("/api/submissions", files={"file": ("bot.tar.gz", minimal_bot())})
        assert response.status_code == 201, response.text
        assert response.json()["status"] == "refused" and response.json()["message"] == submissions.UNPACK_BROKE
        monkeypatch.undo()
        response = await client.post("/api/submissions", files={"file": ("bot.tar.gz", minimal_bot())})
        assert response.status_code == 201, response.text  # the first left nothing "still being checked"


# Uploads in flight ----------------------------------------------------------------------------------
PART_HEAD = b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\n\r\n'


async def start_upload(url: str, token: str, declared: int, sent: bytes = PART_HEAD) -> trio.SocketStream:
    """A POST of an upload of ``declared`` bytes whose body stops after ``sent``: the connection, held open."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    stream = await trio.open_tcp_stream(host, int(port))
    head = (
        f"POST /api/submissions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {declared}\r\n\r\n"
    )
    await stream.send_all(head.encode() + sent)
    return stream


async def status_of(stream: trio.SocketStream) -> tuple[int, str]:
    """The status and body start of the response on ``stream`` (read as it comes, the request still unsent)."""
    received = b""
    while b"\r\n\r\n" not in received or len(received.split(b"\r\n\r\n", 1)[1]) < 20:
        chunk = await stream.receive_some(65536)
        if not chunk:
            break
        received += chunk
    return int(received.split(b" ", 2)[1]), received.split(b"\r\n\r\n", 1)[-1].decode(errors="replace")


async def until_receiving(client: httpx.AsyncClient) -> None:
    """Wait until the server holds an upload of ``client``'s participant (asked by uploads with no file)."""
    with trio.fail_after(30):
        while (await client.post("/api/submissions", files={"other": ("x", b"")})).status_code != 429:
            await trio.sleep(0.05)


@pytest.mark.slow
async def test_uploads_in_flight_are_one_per_participant_capped_in_all_and_timed_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(accounts, "UPLOADS_IN_FLIGHT", 2)
    monkeypatch.setattr(accounts, "UPLOAD_READ_S", 4.0)
    declared = 4_000_000
    async with live_server(tmp_path, "alice", "bob", "carol") as live:
        async with live.client("alice") as alice, live.client("bob") as bob:
            held_alice = await start_upload(live.url, live.tokens["alice"], declared)
            await until_receiving(alice)
            # A second upload of alice's is refused before a byte of its body is sent.
            second = await start_upload(live.url, live.tokens["alice"], declared, sent=b"")
            with trio.fail_after(30):
                status, body = await status_of(second)
            assert status == 429 and "still being received" in body
            held_bob = await start_upload(live.url, live.tokens["bob"], declared)
            await until_receiving(bob)
            # Two in flight in all: carol's is refused, before its body too.
            third = await start_upload(live.url, live.tokens["carol"], declared, sent=b"")
            with trio.fail_after(30):
                status, body = await status_of(third)
            assert status == 503 and "too many uploads" in body
            # The held bodies never come: each is given up after UPLOAD_READ_S, its slot freed.
            for held in (held_alice, held_bob):
                with trio.fail_after(60):
                    status, body = await status_of(held)
                assert status == 408 and "did not arrive within 4 s" in body
            for stream in (held_alice, held_bob, second, third):
                await stream.aclose()
            response = await alice.post("/api/submissions", files={"file": ("bot.tar.gz", minimal_bot())})
            assert response.status_code == 201, response.text
        assert list((live.data_dir / "incoming").iterdir()) == []


# Builds: shared only by byte-identical content of one owner ---------------------------------------
BUILT_MANIFEST = 'run = "python3 bot.py"\nbuild = "sh -c \'echo built > .arena-build/ok\'"\nreuse = true\n'


def write_files(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_the_content_hash_covers_everything_a_build_copies(tmp_path: Path) -> None:
    bot = write_files(tmp_path / "bot", {"bot.py": "print(1)\n", "node_modules/strategy/index.js": "honest\n"})
    seen = {hash_path(bot)}

    def changed() -> str:
        digest = hash_path(bot)
        assert digest not in seen
        seen.add(digest)
        return digest

    (bot / "node_modules/strategy/index.js").write_text("poisoned\n")
    changed()
    (bot / "bot.py").chmod(0o755)
    changed()
    (bot / "link").symlink_to("bot.py")
    changed()
    (bot / "link").unlink()
    (bot / "link").symlink_to("node_modules")
    changed()
    (bot / "empty").mkdir()
    digest = changed()
    (bot / "__pycache__").mkdir()  # left out of the copy, and so of the hash
    (bot / "__pycache__" / "bot.cpython.pyc").write_bytes(b"cache")
    assert hash_path(bot) == digest
    copy = tmp_path / "copy"
    assert copy_folder(bot, copy) == digest  # the copy's own hash, of the bytes it copied
    assert hash_path(copy) == digest
    assert (copy / "link").readlink() == Path("node_modules") and (copy / "empty").is_dir()
    assert not (copy / "__pycache__").exists() and os.access(copy / "bot.py", os.X_OK)


def test_a_folder_of_plain_files_keeps_the_hash_earlier_versions_gave_it(tmp_path: Path) -> None:
    bot = write_files(tmp_path / "bot", {"bot.toml": "run = 'python3 bot.py'\n", "lib/a.py": "x = 1\n", "b.py": ""})
    earlier = hashlib.sha256()  # names and contents, sorted: the stored versions' digests were taken so
    for name in ("b.py", "bot.toml", "lib/a.py"):
        earlier.update(name.encode() + b"\0" + hashlib.sha256((bot / name).read_bytes()).digest())
    assert hash_path(bot) == earlier.hexdigest()


@pytest.mark.usefixtures("own_build_root")
async def test_uploads_differing_only_in_node_modules_or_by_owner_never_share_a_build(tmp_path: Path) -> None:
    files = {"bot.toml": BUILT_MANIFEST, "bot.py": "print(1)\n"}
    honest = write_files(tmp_path / "honest", {**files, "node_modules/strategy/index.js": "honest\n"})
    poisoned = write_files(tmp_path / "poisoned", {**files, "node_modules/strategy/index.js": "poisoned\n"})
    specs = {
        "victim": dataclasses.replace(load_folder(honest), owner="participant 1"),
        "attacker": dataclasses.replace(load_folder(poisoned), owner="participant 2"),
        "attacker-same-bytes": dataclasses.replace(load_folder(honest), owner="participant 2"),
    }
    for spec in specs.values():
        await ensure_built(spec)
    folders = {name: built_folder(spec) for name, spec in specs.items()}
    assert len({str(folder) for folder in folders.values()}) == 3, folders
    for name, folder in folders.items():
        assert folder is not None
        expected = "poisoned\n" if name == "attacker" else "honest\n"
        assert (folder / "node_modules/strategy/index.js").read_text() == expected


@pytest.mark.slow
async def test_two_participants_uploading_the_same_bot_get_a_build_each(tmp_path: Path) -> None:
    files = {"bot.toml": BUILT_MANIFEST, "bot.py": (MINIMAL_BOT / "bot.py").read_text()}
    uploads = {
        "alice": bot_archive({**files, "node_modules/strategy/index.js": "honest\n"}),
        "bob": bot_archive({**files, "node_modules/strategy/index.js": "honest\n"}),
        "mallory": bot_archive({**files, "node_modules/strategy/index.js": "poisoned\n"}),
    }
    async with running(write_config(tmp_path), paused=True) as kit:
        for name, data in uploads.items():
            token = kit.participant(name)
            response = await kit.upload(token, data)
            assert (await kit.wait_submission(token, response.json()["id"]))["status"] == "passed"
        competition = kit.competition
        folders = {}
        for version in competition.versions():
            owner = competition.state.participant(version.participant_id)
            assert owner is not None
            if owner.name in uploads:
                folders[owner.name] = built_folder(competition.specs[version.id])
        assert len({str(folder) for folder in folders.values()}) == 3, folders
        for name, folder in folders.items():
            assert folder is not None
            expected = "poisoned\n" if name == "mallory" else "honest\n"
            assert (folder / "node_modules/strategy/index.js").read_text() == expected


# Logs keep only what the protocol defines ---------------------------------------------------------
PADDING_BOT = """\
import json, os, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        pad = {f"x{i}": os.urandom(1500).hex() for i in range(10)}  # 30 KB of fields of its own, twice
        print(json.dumps({"id": message["id"], **pad, "action": 0, "more": pad}), flush=True)
    elif message["type"] == "quit":
        break
"""


async def test_a_bot_padding_its_answers_pads_neither_the_log_nor_the_replay(tmp_path: Path) -> None:
    padder = write_files(tmp_path / "padder", {"bot.toml": 'run = "python3 bot.py"\n', "bot.py": PADDING_BOT})
    specs = (load_folder(padder), load_folder(MINIMAL_BOT))
    record = await play_match(get_game("rps-poker"), specs, seed=3, limits=Limits(), log_dir=tmp_path / "logs")
    assert not record.faults  # extra fields are not an error: they are dropped
    assert record.log_path is not None
    answers = [r for r in read_log(record.log_path) if r["type"] == "recv" and r["seat"] == "A"]
    assert answers and all(set(r["msg"]) == {"id", "action"} for r in answers)
    assert record.log_path.stat().st_size < 64 << 10, "the log carries the padding"
    page = _replay_page(record.log_path, None, frozenset(), seed_shown=True)
    # (the field's name as a key, in any quoting: "x9" alone may occur by chance in the page's base64 data)
    assert not re.search(r"x9(\\?\"|&quot;|&#34;)", page) and len(page) < 1 << 20


# The server's data is the server's ----------------------------------------------------------------
SNOOPING_BOT = """\
import json, os, sys
read = []
for path in {paths!r}:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            open(path, "rb").read(1)
        read.append(path)
    except OSError as exc:
        print("DENIED", path, exc.strerror, file=sys.stderr, flush=True)
if read:
    print("READ", read, file=sys.stderr, flush=True)
    sys.exit(1)
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        print(json.dumps({{"id": message["id"], "action": 0}}), flush=True)
    elif message["type"] == "quit":
        break
"""


@pytest.fixture
def file_modes_only() -> Iterator[None]:
    """Bots run as UIDs of their own with the host's files in view: only file modes keep them out (as root)."""
    if os.geteuid() != 0:
        pytest.skip("without root a bot runs as the server's own user: file modes cannot keep it out")
    saved = current_policy()
    configure(dataclasses.replace(saved, layers=frozenset({"uid", "rlimits", "cgroup", "pidns", "netns"})))
    yield None
    configure(saved)


@pytest.mark.slow
@pytest.mark.usefixtures("file_modes_only")
async def test_a_bot_of_its_own_uid_cannot_read_the_servers_data_even_with_it_in_view(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="arena-data-"))  # a world-searchable folder, as /srv or /opt would be
    base.chmod(0o755)
    try:
        data = base / "data"
        async with running(write_config(base), paused=True) as kit:
            alice = kit.participant("alice")
            response = await kit.upload(alice, minimal_bot())
            assert (await kit.wait_submission(alice, response.json()["id"]))["status"] == "passed"
            paths = [
                str(data / "server.sqlite"), str(data / "server.sqlite-wal"), str(data / "session.key"),
                str(data / "bots" / "alice" / "s1" / "bot.py"), str(data / "bots" / "alice"),
                str(data / "checks" / "s1"), str(data / "logs"), str(data / "incoming"), str(data),
            ]  # fmt: skip
            snoop = bot_archive({"bot.toml": 'run = "python3 bot.py"\n', "bot.py": SNOOPING_BOT.format(paths=paths)})
            mallory = kit.participant("mallory")
            response = await kit.upload(mallory, snoop)
            result = await kit.wait_submission(mallory, response.json()["id"])
            stderr = "".join(p.read_text() for p in (data / "checks" / "s2").rglob("*stderr*"))
            assert result["status"] == "passed", (result, stderr)  # it ran from its own folder, and read nothing
            assert stderr.count("DENIED") >= len(paths) and "Permission denied" in stderr
        for path in (data, data / "bots", data / "bots" / "alice", data / "logs", data / "logs" / "stderr"):
            assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
        for path in (data / "server.sqlite", data / "session.key", *(data / "checks").rglob("*.log*")):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    finally:
        shutil.rmtree(base, ignore_errors=True)


# Disk per version and per participant ------------------------------------------------------------
SPAMMING_BOT = """\
import json, os, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        sys.stderr.write(os.urandom(8000).hex() + "\\n")  # 16 KB of stderr a move
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
    elif message["type"] == "quit":
        break
"""


@pytest.mark.slow
async def test_a_version_whose_logs_outgrow_its_quota_plays_no_more_and_its_owner_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log_upkeep, "DISK_EVERY_S", 0.5)
    config = write_config(tmp_path)
    config.write_text(config.read_text() + "log_bytes_per_version = 150_000\n")
    async with running(config) as kit:
        mallory = kit.participant("mallory")
        response = await kit.upload(
            mallory, bot_archive({"bot.toml": 'run = "python3 bot.py"\n', "bot.py": SPAMMING_BOT})
        )
        assert (await kit.wait_submission(mallory, response.json()["id"]))["status"] == "passed"
        with trio.fail_after(180):
            while True:
                rows = (await kit.client.get("/api/standings")).json()["standings"]
                row = next((r for r in rows if r["participant"] == "mallory"), None)
                if row is not None and row["status"] == "disqualified":
                    break
                await trio.sleep(0.5)
        assert "its logs take" in row["reason"] and "over the 146 KiB the server keeps per version" in row["reason"]
        assert all(r["status"] == "" for r in rows if r["participant"] != "mallory")  # its opponents play on
        disk = kit.competition.log_upkeep.disk
        assert disk.stderr_bytes.get("mallory", 0) > 0  # its stderr files count, beside its logs
        playing = kit.competition.field()
        assert not any(label.startswith("mallory") for label in playing)
        # Over its owner's quota too (the organiser's cap, lowered here): its owner may upload no more.
        disk.per_participant = 100_000
        response = await kit.upload(mallory, minimal_bot())
        assert response.status_code == 409 and "your bots' logs take" in response.text
