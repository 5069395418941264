"""The competition server through its ASGI app: every route and rule, and every attack of the issue.

Each test runs a real competition (ladder, sandboxed checks) in the test's
trio run and talks to the Starlette app in-process with httpx.
"""

from __future__ import annotations

import base64
import math
import os
import re
import signal
import sqlite3
import tracemalloc
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from starlette.types import Message

from arena._errors import ConfigError
from arena.cli import main
from arena.server import submissions
from arena.server.archive import UploadLimits, unpack
from arena.server.config import load
from arena.server.standings import BOARD_EVERY_S
from arena.server.web import SESSION_COOKIE, STATIC, create_app

from .servertools import (
    MINIMAL_BOT,
    PLAYS_ON,
    RPS,
    Kit,
    bot_archive,
    many_empty_files,
    minimal_bot,
    running,
    write_config,
)

pytestmark = pytest.mark.slow


def minimal_bot_toml() -> str:
    return (MINIMAL_BOT / "bot.toml").read_text()


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def passing_upload(kit: Kit, token: str, data: bytes | None = None) -> dict[str, object]:
    response = await kit.upload(token, data or minimal_bot())
    assert response.status_code == 201, response.text
    result = await kit.wait_submission(token, response.json()["id"])
    assert result["status"] == "passed", (result.get("message"), str(result.get("report"))[:1500])
    return result


# Public pages, headers -----------------------------------------------------------------
async def test_public_pages_and_api_with_safe_headers(tmp_path: Path) -> None:
    async with running(write_config(tmp_path)) as kit:
        await kit.wait_matches(2)
        for path in ("/", "/bots/minimal-python", "/api/standings", "/api/bots", "/api/bots/random-python"):
            response = await kit.client.get(path)
            assert response.status_code == 200, path
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["referrer-policy"] == "no-referrer"
            assert "default-src 'self'" in response.headers["content-security-policy"]
            assert response.headers["x-frame-options"] == "DENY"
        assert "set-cookie" not in (await kit.client.get("/")).headers  # a page without a form starts no session
        standings = (await kit.client.get("/api/standings")).json()
        assert {row["participant"] for row in standings["standings"]} == {"minimal-python", "random-python"}
        await kit.login(kit.participant("alice"))
        assert "Log out alice" in (await kit.client.get("/")).text  # not the page everyone else gets
        kit.client.cookies.clear()
        assert "Log out" not in (await kit.client.get("/")).text
        key = await kit.played_out()  # (while its other leg is to play, its replay is no one's but the organiser's)
        assert (await kit.client.get(f"/matches/{key}")).status_code == 200
        assert (await kit.client.get(f"/api/matches/{key}")).json()["replay"] == f"/matches/{key}/replay"
        replay = await kit.client.get(f"/matches/{key}/replay")
        assert replay.status_code == 200 and "<!DOCTYPE html>" in replay.text
        assert replay.headers["content-security-policy"].startswith("default-src 'none'")
        assert "sandbox allow-scripts" in replay.headers["content-security-policy"]
        assert (await kit.client.get("/bots/nobody")).status_code == 404
        assert (await kit.client.get("/matches/nothing")).status_code == 404
        assert (await kit.client.get("/api/bots/organiser")).status_code == 404


async def test_the_pages_assets_are_linked_by_content_hash_and_kept_by_browsers(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), paused=True) as kit:
        page = (await kit.client.get("/")).text
        links = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
        assert {link.split("?")[0] for link in links} == {"/static/style.css", "/static/live.js", "/static/favicon.svg"}
        for link in links:
            name = link.split("?")[0].rsplit("/", 1)[1]
            response = await kit.client.get(link)
            assert response.status_code == 200 and response.content == (STATIC / name).read_bytes()
            assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert response.headers["x-content-type-options"] == "nosniff"
            again = await kit.client.get(link, headers={"if-none-match": response.headers["etag"]})
            assert again.status_code == 304 and not again.content
            unversioned = await kit.client.get(f"/static/{name}")  # an old link: checked again each time
            assert unversioned.status_code == 200 and unversioned.headers["cache-control"] == "no-cache"
            stale = await kit.client.get(f"/static/{name}?v=0000")
            assert stale.headers["cache-control"] == "no-cache"
        assert "text/css" in (await kit.client.get("/static/style.css")).headers["content-type"]
        for path in ("/static/nothing.css", "/static/%2e%2e%2fweb.py", "/static/%2e%2e"):
            assert (await kit.client.get(path)).status_code == 404, path


# Tokens, sessions, CSRF --------------------------------------------------------------------
async def test_a_missing_or_wrong_token_is_401(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), paused=True) as kit:
        token = kit.participant("alice")
        wrong = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
        for headers in (
            {},
            bearer(wrong),
            bearer("2." + token.split(".")[1]),
            bearer("junk"),
            {"authorization": "Basic x"},
        ):
            response = await kit.client.get("/api/submissions", headers=headers)
            assert response.status_code == 401, headers
            assert "error" in response.json()
        assert (await kit.client.get("/api/submissions", headers=bearer(token))).status_code == 200
        page = await kit.client.get("/me")
        assert page.status_code == 401 and 'name="token"' in page.text
        bad = await kit.client.post("/login", data={"token": wrong, "csrf": await kit.csrf()})
        assert bad.status_code == 401 and "not valid" in bad.text
        assert (await kit.client.get("/me")).status_code == 401


async def test_a_session_is_a_signed_httponly_samesite_cookie_that_survives_a_restart(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    async with running(config, paused=True) as kit:
        token = kit.participant("alice")
        response = await kit.client.post("/login", data={"token": token, "csrf": await kit.csrf()})
        cookie = response.headers["set-cookie"].lower()
        assert f"{SESSION_COOKIE}=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
        assert token.split(".")[1].lower() not in cookie
        assert (await kit.client.get("/me")).status_code == 200
        cookies = dict(kit.client.cookies)
    async with running(config, paused=True) as kit:  # a new process on the same data folder
        kit.client.cookies.update(cookies)
        assert (await kit.client.get("/me")).status_code == 200
        tampered = cookies[SESSION_COOKIE][:-3] + "xyz"
        kit.client.cookies.clear()
        kit.client.cookies.set(SESSION_COOKIE, tampered)
        assert (await kit.client.get("/me")).status_code == 401
        kit.client.cookies.clear()
        kit.client.cookies.update(cookies)
        page = await kit.client.get("/me")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf
        assert (await kit.client.post("/logout", data={"csrf": csrf.group(1)})).status_code == 303
        kit.client.cookies.clear()
        kit.client.cookies.update(cookies)  # the old cookie, replayed after logging out
        assert (await kit.client.get("/me")).status_code == 401


async def test_a_login_link_asks_before_logging_in(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), paused=True) as kit:
        token = kit.participant("alice")
        alice = kit.competition.state.by_token(token)
        assert alice
        code = kit.competition.state.new_login_code(alice.id)
        assert (await kit.client.get(f"/login/{token}")).status_code == 401  # a link carries a code, not the token
        page = await kit.client.get(f"/login/{code}")
        assert page.status_code == 200 and "Log in as alice" in page.text
        assert (await kit.client.get("/me")).status_code == 401
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf
        assert (await kit.client.post("/login", data={"code": code, "csrf": csrf.group(1)})).status_code == 303
        assert (await kit.client.get("/me")).status_code == 200
        assert (await kit.client.get(f"/login/{code}")).status_code == 401  # it logs in once
        assert (await kit.client.get("/login/1.nottoken")).status_code == 401


async def test_forms_without_their_csrf_token_are_refused(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), paused=True) as kit:
        alice = kit.participant("alice")
        admin = kit.competition.participants.admin_token()
        assert admin
        await kit.csrf()
        assert (await kit.client.post("/login", data={"token": alice})).status_code == 403
        assert (await kit.client.post("/login", data={"token": alice, "csrf": "forged"})).status_code == 403
        await kit.login(alice)
        files = {"file": ("bot.tar.gz", minimal_bot())}
        assert (await kit.client.post("/me/submit", files=files)).status_code == 403
        assert (await kit.client.post("/me/submit", files=files, data={"csrf": "x"})).status_code == 403
        assert (await kit.client.post("/api/submissions", files=files)).status_code == 403  # cookie, no header
        assert (await kit.client.post("/logout")).status_code == 403
        assert kit.competition.state.submissions() == []
        await kit.login(admin)
        kit.competition.set_paused(False)
        assert (await kit.client.post("/admin/pause")).status_code == 403
        assert (await kit.client.post("/api/admin/pause", json={})).status_code == 403
        assert not kit.competition.paused
        assert (await kit.client.post("/admin/pause", data={"csrf": await kit.csrf()})).status_code == 303
        assert kit.competition.paused


def pairs_in_play(kit: Kit, label: str) -> set[str]:
    """The deals of the ladder's pairs in play with version ``label``."""
    ladder = kit.competition.host.ladder
    assert ladder is not None
    return {pair.deal for pair in ladder.state.busy if label in (pair.first, pair.second)}


# Uploads --------------------------------------------------------------------------------------
async def test_an_upload_is_checked_and_its_pass_replaces_the_previous_version(tmp_path: Path) -> None:
    # (PLAYS_ON: the ladder keeps playing, for the 4 more matches awaited twice)
    async with running(write_config(tmp_path, ladder=PLAYS_ON)) as kit:
        token = kit.participant("alice")
        await kit.login(token)
        response = await kit.client.post(
            "/me/submit", files={"file": ("bot.tar.gz", minimal_bot())}, data={"csrf": await kit.csrf()}
        )
        assert response.status_code == 303
        sid = int(response.headers["location"].rsplit("/", 1)[1])
        first = await kit.wait_submission(token, sid)
        assert first["status"] == "passed" and first["message"] == "version 1"
        page = (await kit.client.get(f"/submissions/{sid}")).text
        assert "PASS  answers every request" in page and "PASS  legal moves" in page
        await kit.wait_matches(len(kit.matches) + 4)
        assert any("alice" in (m.bot_a, m.bot_b) for m in kit.matches)
        single = await kit.upload(token, b"", "empty.py", "python")
        assert single.status_code == 201
        failed = await kit.wait_submission(token, single.json()["id"])
        assert failed["status"] == "failed" and "starts and answers" in str(failed["message"])
        standings = (await kit.client.get("/api/standings")).json()
        assert [r["bot"] for r in standings["standings"] if r["participant"] == "alice"] == ["alice"]  # v1 plays on
        assert standings["not_admitted"] == []
        again = await kit.upload(token, (RPS / "random-python" / "bot.py").read_bytes(), "rnd.py", "python")
        third = await kit.wait_submission(token, again.json()["id"])
        assert third["status"] == "passed" and third["message"] == "version 3"
        versions = (await kit.client.get("/api/bots/alice")).json()["versions"]
        assert [(v["number"], v["retired_at"] is None, v["admission"]) for v in versions] == [
            (3, True, "admitted"), (2, False, "not_admitted"), (1, False, "admitted"),
        ]  # fmt: skip
        assert "starts and answers" in versions[1]["reason"]
        standings = (await kit.client.get("/api/standings")).json()
        assert [r["bot"] for r in standings["standings"] if r["participant"] == "alice"] == ["alice.v3"]
        in_play = pairs_in_play(kit, "alice")  # (nothing awaited from here to ``before``)
        before = len(kit.matches)
        await kit.wait_matches(before + 4)
        old = {v.id for v in kit.competition.versions() if v.row.name == "alice" and v.number < 3}
        late = {m.deal for m in kit.matches[before:] if old & set(m.versions)}
        assert late <= in_play, "the retired version's matches begun before it left may end; no pair of it is taken"
        bob = kit.participant("bob")  # a first version that fails is shown under the board, with why
        crash = b"import sys\nsys.exit('oops: no bot here yet')\n"
        failed = await kit.wait_submission(bob, (await kit.upload(bob, crash, "crash.py", "python")).json()["id"])
        assert failed["status"] == "failed"
        where = [line for check in failed["checks"] for line in check["where"]]
        assert "stderr, last lines (your bot's):" in where and "  oops: no bot here yet" in where, where
        assert not any("checks/" in line or line.startswith("log: ") for line in where), where  # the server's paths
        waiting = (await kit.client.get("/api/standings")).json()["not_admitted"]
        assert [(w["participant"], w["admission"]) for w in waiting] == [("bob", "not_admitted")]
        assert "starts and answers" in waiting[0]["reason"] and "\n" not in waiting[0]["reason"]  # its summary
        page = (await kit.client.get("/")).text
        assert "Not playing" in page and "starts and answers" in page
        public = (await kit.client.get("/api/bots/bob")).json()["versions"][0]["reason"]
        whole = (await kit.client.get("/api/bots/bob", headers=bearer(bob))).json()["versions"][0]["reason"]
        assert whole.startswith(public) and "\n" in whole and "\n" not in public  # the details are its owner's
        assert str(tmp_path) not in whole  # and name no path of the server's


async def test_an_upload_whose_bot_toml_names_another_game_is_refused_saying_so(tmp_path: Path) -> None:
    async with running(write_config(tmp_path)) as kit:  # an rps-poker competition
        token = kit.participant("alice")
        manifest = minimal_bot_toml()
        other = await kit.upload(token, minimal_bot(**{"bot.toml": f'game = "gops"\n{manifest}'}))
        refused = await kit.wait_submission(token, other.json()["id"])
        assert refused["status"] == "failed" and refused["checks"] == []
        said = refused["message"]
        assert said == "bot 'alice' is a gops bot (its bot.toml says game = \"gops\"), but the game here is rps-poker"
        await passing_upload(kit, token, minimal_bot(**{"bot.toml": f'game = "rps-poker"\n{manifest}'}))


@pytest.mark.parametrize(
    ("name", "kind", "said"),
    [
        ("../escape.txt", b"0", "'../escape.txt' has a '..'"),
        ("/tmp/escape.txt", b"0", "has an absolute path"),
        ("link", b"2", "'link' is a symbolic link"),
        ("hard", b"1", "'hard' is a hard link"),
        ("dev", b"3", "'dev' is a device"),
    ],
)
async def test_hostile_archives_are_refused_naming_the_entry(tmp_path: Path, name: str, kind: bytes, said: str) -> None:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as archive:
        manifest = b'run = "python3 bot.py"\n'
        info = tarfile.TarInfo("bot.toml")
        info.size = len(manifest)
        archive.addfile(info, io.BytesIO(manifest))
        evil = tarfile.TarInfo(name)
        evil.type = kind
        evil.linkname = "/etc/passwd"
        data = b"pwned" if kind == b"0" else b""
        evil.size = len(data)
        archive.addfile(evil, io.BytesIO(data))
    async with running(write_config(tmp_path), paused=True) as kit:
        token = kit.participant("alice")
        response = await kit.upload(token, buffer.getvalue())
        assert response.status_code == 201
        result = await kit.wait_submission(token, response.json()["id"])
        assert result["status"] == "refused" and said in str(result["message"])
        assert not (tmp_path / "data" / "bots" / "escape.txt").exists()
        assert not Path("/tmp/escape.txt").exists() or Path("/tmp/escape.txt").read_bytes() != b"pwned"


async def asgi_post(app: Any, path: str, headers: dict[str, str], body: Iterator[bytes]) -> tuple[int, bytes]:
    """POST ``body`` chunk by chunk straight into the ASGI app (as a server would); its status and body."""
    chunks = iter(body)
    sent: list[Message] = []

    async def receive() -> Message:
        chunk = next(chunks, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 1), "server": ("testserver", 80),
    }  # fmt: skip
    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


async def test_a_1gb_upload_is_refused_while_it_streams_and_memory_stays_flat(tmp_path: Path) -> None:
    chunk = b"\0" * (1 << 20)
    read = 0

    def gigabyte() -> Iterator[bytes]:
        nonlocal read
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\n\r\n'
        for _ in range(1024):
            read += 1
            yield chunk

    async with running(write_config(tmp_path, uploads="max_bytes = 2_000_000"), paused=True) as kit:
        token = kit.participant("alice")
        app = create_app(kit.competition)
        headers = {**bearer(token), "content-type": "multipart/form-data; boundary=b"}
        tracemalloc.start()
        try:
            status, body = await asgi_post(app, "/api/submissions", headers, gigabyte())
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert status == 413 and b"larger than" in body
        assert read <= 4, f"read {read} MiB of a 2 MB limit"
        assert peak < 16 << 20, f"peak {peak} bytes"
        read = 0
        status, _ = await asgi_post(app, "/api/submissions", {**headers, "content-length": str(1 << 30)}, gigabyte())
        assert status == 413 and read == 0  # refused on its declared length, before a byte is read
        assert kit.competition.state.submissions() == []
        assert list((tmp_path / "data" / "incoming").iterdir()) == []


async def test_an_archive_of_100000_tiny_files_is_refused(tmp_path: Path) -> None:
    archive = many_empty_files(tmp_path / "many.tar.gz", 100_000)
    async with running(write_config(tmp_path, uploads="max_files = 200"), paused=True) as kit:
        token = kit.participant("alice")
        response = await kit.upload(token, archive.read_bytes())
        result = await kit.wait_submission(token, response.json()["id"])
        assert result["status"] == "refused" and "more than the 200 entries" in str(result["message"])
        left = list((tmp_path / "data" / "bots").rglob("*"))
        assert len(left) < 10


async def test_a_flood_of_uploads_is_rate_limited(tmp_path: Path) -> None:
    async with running(write_config(tmp_path, uploads="per_hour = 3"), paused=True) as kit:
        token = kit.participant("alice")
        junk = bot_archive({"readme.txt": "no manifest"})
        for _ in range(3):
            response = await kit.upload(token, junk)
            assert response.status_code == 201
            await kit.wait_submission(token, response.json()["id"])
        flood = await kit.upload(token, junk)
        assert flood.status_code == 429 and "3 uploads an hour" in flood.json()["error"]
        other = kit.participant("bob")
        assert (await kit.upload(other, junk)).status_code == 201


async def test_uploads_streamed_in_parallel_cannot_slip_past_the_rate_limit(tmp_path: Path) -> None:
    async with running(write_config(tmp_path, uploads="per_hour = 2"), paused=True) as kit:
        token = kit.participant("alice")
        junk = bot_archive({"readme.txt": "no manifest"})
        statuses: list[int] = []

        async def one() -> None:
            statuses.append((await kit.upload(token, junk)).status_code)

        async with trio.open_nursery() as nursery:
            for _ in range(6):
                nursery.start_soon(one)
        accepted = statuses.count(201)
        assert 1 <= accepted <= 2 and statuses.count(429) == 6 - accepted
        assert len(kit.competition.state.submissions()) == accepted


async def test_one_address_registers_a_few_names_an_hour(tmp_path: Path) -> None:
    async with running(write_config(tmp_path, access='registration = "open"'), paused=True) as kit:
        codes = []
        allowed = kit.competition.config.registrations_per_hour  # 5 by default
        for n in range(allowed + 1):
            kit.client.cookies.clear()
            response = await kit.client.post("/register", data={"name": f"user{n}", "csrf": await kit.csrf()})
            codes.append(response.status_code)
        assert allowed == 5 and codes == [200] * allowed + [429]


async def test_one_check_at_a_time_per_participant(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), paused=True) as kit:
        token = kit.participant("alice")
        first = await kit.upload(token, minimal_bot())
        assert first.status_code == 201
        second = await kit.upload(token, minimal_bot())
        assert second.status_code == 429 and "still being checked" in second.json()["error"]
        await kit.wait_submission(token, first.json()["id"])


async def test_uploads_while_paused_are_checked_and_play_once_resumed(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), paused=True) as kit:
        token = kit.participant("alice")
        await passing_upload(kit, token)
        await trio.sleep(1.0)
        assert kit.matches == []
        kit.competition.set_paused(False)
        await kit.wait_matches(4)
        kit.competition.set_frozen(True)
        frozen = await kit.upload(token, minimal_bot())
        assert frozen.status_code == 409 and "frozen" in frozen.json()["error"]


# Privacy ----------------------------------------------------------------------------------
async def test_another_participants_private_pages_are_out_of_reach(tmp_path: Path) -> None:
    async with running(write_config(tmp_path, ladder=PLAYS_ON)) as kit:  # (PLAYS_ON: for 4 more matches)
        alice = kit.participant("alice")
        bob = kit.participant("bob")
        result = await passing_upload(kit, alice)
        sid = result["id"]
        await kit.wait_matches(len(kit.matches) + 4)
        stderr = next((tmp_path / "data" / "logs" / "stderr").glob("alice.*.log")).name
        private = ["/bots/alice/v1/files", "/bots/alice/v1/files/bot.py", f"/bots/alice/stderr/{stderr}"]
        for path in private:
            assert (await kit.client.get(path)).status_code == 401, path
        await kit.login(bob)
        for path in private:
            assert (await kit.client.get(path)).status_code == 403, path
        assert (await kit.client.get(f"/submissions/{sid}")).status_code == 404
        assert (await kit.client.get(f"/api/submissions/{sid}", headers=bearer(bob))).status_code == 404
        assert "submissions" not in (await kit.client.get("/api/bots/alice")).json()
        assert "Stderr of its processes" not in (await kit.client.get("/bots/alice")).text
        kit.client.cookies.clear()
        await kit.login(alice)
        for path in private:
            assert (await kit.client.get(path)).status_code == 200, path
        assert "import json" in (await kit.client.get("/bots/alice/v1/files/bot.py")).text
        for path in ("/bots/alice/v1/files/../../../server.sqlite", "/bots/alice/stderr/..%2Fserver.sqlite"):
            assert (await kit.client.get(path)).status_code == 404
        organiser = kit.competition.participants.admin_token()
        assert organiser
        kit.client.cookies.clear()
        await kit.login(organiser)
        for path in [*private, f"/submissions/{sid}"]:
            assert (await kit.client.get(path)).status_code == 200, path


async def test_a_build_is_shown_to_its_owner_and_a_link_it_leaves_is_never_followed(tmp_path: Path) -> None:
    manifest = 'run = "python3 bot.py"\nbuild = "sh -c \'echo compiled fine; ln -s /etc/passwd .arena-build/leak\'"\n'
    async with running(write_config(tmp_path), paused=True) as kit:
        alice = kit.participant("alice")
        bob = kit.participant("bob")
        await passing_upload(kit, alice, minimal_bot(**{"bot.toml": manifest}))
        await kit.login(bob)
        assert (await kit.client.get("/bots/alice/v1/build.log")).status_code == 403
        kit.client.cookies.clear()
        await kit.login(alice)
        listing = (await kit.client.get("/bots/alice/v1/files")).text
        assert "leak" not in listing and "bot.toml" in listing
        assert (await kit.client.get("/bots/alice/v1/files/.arena-build/leak")).status_code == 404
        log = await kit.client.get("/bots/alice/v1/build.log")
        assert log.status_code == 200 and "compiled fine" in log.text and "root:" not in log.text


@pytest.mark.parametrize("rule", ["public", "owners", "after-end"])
async def test_replay_visibility_follows_the_config(tmp_path: Path, rule: str) -> None:
    async with running(write_config(tmp_path, access=f'replays = "{rule}"')) as kit:
        owner = kit.participant("minimal-python")  # the house bot's owner, given a token for this test
        key = await kit.played_out()
        anonymous = (await kit.client.get(f"/matches/{key}/replay")).status_code
        assert anonymous == (200 if rule == "public" else 403)
        await kit.login(owner)
        mine = await kit.client.get(f"/matches/{key}/replay")
        assert mine.status_code == 200
        page = (await kit.client.get(f"/matches/{key}")).text
        assert ("what your bot (seat" in page) == (rule == "after-end")
        kit.competition.set_frozen(True)
        kit.client.cookies.clear()
        after = (await kit.client.get(f"/matches/{key}/replay")).status_code
        assert after == (403 if rule == "owners" else 200)


# Hostile bots -----------------------------------------------------------------------------------
HOSTILE_LATER = """\
import json, sys
hostile = False
started = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "match_start":  # a check's ids look like the ladder's: hostile from a process's 3rd match
        started += 1
        hostile = started > 2
    if message["type"] == "quit":
        break
    if "id" in message:
        print("not json at all" if hostile else json.dumps({"id": message["id"], "action": 0}), flush=True)
"""


async def test_a_bot_that_turns_hostile_on_the_ladder_is_disqualified_and_the_ladder_goes_on(tmp_path: Path) -> None:
    # (PLAYS_ON: the ladder keeps playing after the disqualification, for the newcomer's 4 matches)
    async with running(write_config(tmp_path, extra="max_faults = 2", ladder=PLAYS_ON)) as kit:
        token = kit.participant("mallory")
        await passing_upload(kit, token, minimal_bot(**{"bot.py": HOSTILE_LATER}))
        with trio.fail_after(120):
            while "mallory" in kit.competition.field():
                await trio.sleep(0.1)
        # Nothing awaited from here to ``before``: the pairs of mallory's in play now were all taken before it left.
        in_play = pairs_in_play(kit, "mallory")
        before = len(kit.matches)
        with trio.fail_after(30):  # the standings are computed in the background (a second late at most)
            while not any(
                r["participant"] == "mallory" and sum(r["faults"].values()) >= 3
                for r in (await kit.client.get("/api/standings")).json()["standings"]
            ):
                await trio.sleep(0.1)
        standings = (await kit.client.get("/api/standings")).json()["standings"]
        mallory = next(r for r in standings if r["participant"] == "mallory")
        assert mallory["status"] == "disqualified" and "more than the 2 allowed" in mallory["reason"]
        assert set(mallory["faults"]) == {"invalid_json"}
        assert standings[-1]["participant"] == "mallory"
        # The ladder goes on: a newcomer's placement pairs are played (the house bots' own pair may be settled).
        await passing_upload(kit, kit.participant("bob"))
        with trio.fail_after(120):
            while sum("bob" in (m.bot_a, m.bot_b) for m in kit.matches[before:]) < 4:
                await trio.sleep(0.1)
        # Matches of mallory's begun before it left may end and count; no pair of it is taken after.
        late = {m.deal for m in kit.matches[before:] if "mallory" in (m.bot_a, m.bot_b)}
        assert late <= in_play, (late, in_play)
        worker = kit.competition.host.worker
        assert worker is None or worker.restarts == 0  # a bot's faults are in its matches, never the worker's death


MARKUP = "<script>alert(1)</script>"


def replay_data(response: httpx.Response) -> str:
    """The match data a replay page carries (compressed in the page), as text."""
    assert response.status_code == 200
    found = re.search(r'<script id="match-data" type="application/octet-stream">([^<]+)</script>', response.text)
    assert found, "no match data in the replay page"
    return zlib.decompress(base64.b64decode(found.group(1))).decode()


async def test_markup_in_names_files_and_stderr_is_escaped_everywhere(tmp_path: Path) -> None:
    say = "sys.stderr.write('" + MARKUP + "\\n'); sys.stderr.flush()\n"
    noisy = (
        "import sys\n"
        + say
        + (RPS / "minimal-python" / "bot.py")
        .read_text()
        .replace("for line in sys.stdin:\n", "for line in sys.stdin:\n    " + say)
    )  # at start (its stderr log) and at each line (any match's: its first process may start before its match)
    bot = minimal_bot(**{
        "bot.toml": f'name = "{MARKUP}"\nrun = "python3 bot.py"\nreuse = true\n',
        "bot.py": noisy,
        f"{MARKUP}.txt": MARKUP,
    })  # fmt: skip
    # (PLAYS_ON: the ladder keeps playing, for 4 more matches)
    async with running(write_config(tmp_path, access='registration = "open"', ladder=PLAYS_ON)) as kit:
        token = kit.participant("alice")
        response = await kit.client.post(
            "/api/submissions", headers=bearer(token), files={"file": (f"{MARKUP}\x1b[2J\u202e.tar.gz", bot)}
        )
        result = await kit.wait_submission(token, response.json()["id"])
        assert result["status"] == "passed", (result.get("message"), str(result.get("report"))[:1500])
        assert result["filename"] == f"{MARKUP}\\x1b[2J\\u202e.tar.gz"  # control characters escaped, kept visible
        await kit.wait_matches(len(kit.matches) + 4)
        organiser = kit.competition.participants.admin_token()
        assert organiser
        with trio.fail_after(60):  # a process of alice's may have just started, its first words not yet written
            while not (logs := [p for p in (tmp_path / "data" / "logs" / "stderr").glob("alice.*.log")
                                if MARKUP in p.read_text()]) or not any(
                "alice" in (m.bot_a, m.bot_b) for m in kit.matches
            ):  # fmt: skip
                await trio.sleep(0.1)
        stderr = logs[0]
        key = await kit.played_out("alice")
        pages = [
            "/", "/bots/alice", "/me", f"/submissions/{result['id']}", "/bots/alice/v1/files",
            "/bots/alice/v1/files/bot.toml", "/bots/alice/v1/files/bot.py", f"/bots/alice/stderr/{stderr.name}",
            f"/matches/{key}",
        ]  # fmt: skip
        for who in (token, organiser):
            kit.client.cookies.clear()
            await kit.login(who)
            for path in [*pages[:2], *pages[3:], "/admin"] if who == organiser else pages:
                response = await kit.client.get(path)
                assert response.status_code == 200, path
                assert "<script>alert" not in response.text, path
            assert "&lt;script&gt;" in (await kit.client.get(f"/bots/alice/stderr/{stderr.name}")).text
        kit.client.cookies.clear()
        assert "alert(1)" not in replay_data(await kit.client.get(f"/matches/{key}/replay"))  # stderr is private
        await kit.login(token)
        assert "alert(1)" in replay_data(await kit.client.get(f"/matches/{key}/replay"))  # its owner sees it
        kit.client.cookies.clear()
        registered = await kit.client.post("/register", data={"name": MARKUP, "csrf": await kit.csrf()})
        assert registered.status_code == 400 and "<script>alert" not in registered.text
        assert "&lt;script&gt;" in registered.text


# The organiser --------------------------------------------------------------------------------------
async def test_the_organisers_switches_and_downloads(tmp_path: Path) -> None:
    async with running(write_config(tmp_path)) as kit:
        await kit.wait_matches(4)
        alice = kit.participant("alice")
        organiser = kit.competition.participants.admin_token()
        assert organiser
        await kit.login(alice)
        assert (await kit.client.get("/admin")).status_code == 403
        assert (await kit.client.post("/api/admin/pause", headers=bearer(alice))).status_code == 403
        kit.client.cookies.clear()
        await kit.login(organiser)
        assert (await kit.client.get("/admin")).status_code == 200
        csrf = await kit.csrf()
        await kit.client.post("/admin/pause", data={"csrf": csrf})
        assert kit.competition.paused and "paused by the organiser" in (await kit.client.get("/")).text
        await kit.client.post("/admin/resume", data={"csrf": csrf})
        assert not kit.competition.paused
        await kit.client.post("/admin/disqualify", data={"csrf": csrf, "name": "random-python", "reason": "colluding"})
        assert "random-python" not in kit.competition.field()
        ladder = kit.competition.host.ladder
        assert ladder is not None
        with trio.fail_after(60):
            while any("random-python" in (pair.first, pair.second) for pair in ladder.state.busy):
                await trio.sleep(0.05)
        idle = await kit.competition.host.idle_processes()
        assert idle.get("minimal-python")  # the field's other bot keeps its processes
        assert not idle.get("random-python")  # no process of it is kept waiting for a match it will not play
        row = next(
            r
            for r in (await kit.client.get("/api/standings")).json()["standings"]
            if r["participant"] == "random-python"
        )
        assert row["status"] == "disqualified" and "colluding" in row["reason"]
        await kit.client.post("/admin/readmit", data={"csrf": csrf, "name": "random-python"})
        assert "random-python" in kit.competition.field()
        api = await kit.client.post("/api/admin/freeze", headers=bearer(organiser))
        assert api.json()["frozen"] is True and kit.competition.field() == {}
        assert (await kit.client.post("/api/admin/nonsense", headers=bearer(organiser))).status_code == 404
        csv = await kit.client.get("/admin/download/results.csv")
        assert csv.status_code == 200 and csv.text.startswith("rank,bot,")
        db = await kit.client.get("/admin/download/server.sqlite")
        assert db.status_code == 200 and db.content.startswith(b"SQLite format 3")
        copy = tmp_path / "copy.sqlite"
        copy.write_bytes(db.content)
        with sqlite3.connect(copy) as check:
            assert check.execute("SELECT COUNT(*) FROM matches").fetchone()[0] >= 4
        assert main(["results", str(copy)]) == 0
        assert list((tmp_path / "data" / "incoming").iterdir()) == []


async def test_arena_results_reads_the_live_server_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with running(write_config(tmp_path)) as kit:
        await kit.wait_matches(4)
        assert main(["results", str(tmp_path / "data" / "server.sqlite")]) == 0
        out = capsys.readouterr().out
        assert "minimal-python" in out and "random-python" in out
        for row in (await kit.client.get("/api/standings")).json()["standings"]:
            assert f"{row['participant']} " in out  # the same field as the pages
        assert main(["results", str(tmp_path / "data" / "server.sqlite"), "--history"]) == 0
    history = capsys.readouterr().out
    assert "Versions:" in history and "house bot minimal-python: version 1" in history


async def test_the_live_standings_kept_result_by_result_equal_arena_results_on_the_database(tmp_path: Path) -> None:
    # (PLAYS_ON: three bots' pairs could all be settled before 40 matches, and a newcomer's 12 need the ladder on)
    config = write_config(tmp_path, house=("minimal-python", "random-python", "tsh-py"), ladder=PLAYS_ON)
    async with running(config) as kit:
        await kit.wait_matches(40)  # (enough deals for error bars)
        alice = kit.participant("alice")
        await passing_upload(kit, alice)  # the field grows by a new bot: its totals are added to
        await standings_agree(kit, "alice")
        await passing_upload(kit, alice)  # a version leaves: the totals are counted anew
        await standings_agree(kit, "alice.v2")


async def standings_agree(kit: Kit, newcomer: str) -> None:
    """Once ``newcomer`` has played 12 matches, the ladder paused, the live standings are ``arena results``'s."""
    from arena.competition.results import board_from_store

    kit.competition.set_paused(False)
    version = next(v for v in kit.competition.versions() if v.label == newcomer)
    with trio.fail_after(60):
        while sum(version.id in m.versions for m in kit.matches) < 12:
            await trio.sleep(0.05)
    kit.competition.set_paused(True)
    ladder = kit.competition.host.ladder
    assert ladder is not None
    with trio.fail_after(60):  # the pairs in play end, and the standings catch up with them
        standings = kit.competition.standings
        while ladder.state.busy or (table := standings.snapshot) is None or table.seen != len(kit.matches):
            await trio.sleep(0.05)
    live = kit.competition.board().board
    whole = board_from_store(kit.competition.store, kit.competition.tid)
    playing = {v.id for v in kit.competition.versions() if v.playing}
    assert live.matches == whole.matches == sum(set(m.versions) <= playing for m in kit.matches)
    assert all(not math.isnan(r.rating_error) for r in whole.standings if r.bot != version.row.name)
    assert version.row.name in [r.bot for r in whole.standings]
    fields = ("bot", "rank", "matches", "wins", "draws", "losses", "faults", "deals")
    assert [[getattr(r, f) for f in fields] for r in live.standings] == [
        [getattr(r, f) for f in fields] for r in whole.standings
    ]
    # The live fit starts from the last one's strengths, arena results' from scratch: the same to 1e-9.
    for mine, theirs in zip(live.standings, whole.standings, strict=True):
        for name in ("rating", "rating_error", "points"):
            a, b = getattr(mine, name), getattr(theirs, name)
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-9), (mine.bot, name)


async def test_open_registration_gives_a_token_once(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), paused=True) as kit:
        assert (await kit.client.get("/register")).status_code == 403
    async with running(write_config(tmp_path, access='registration = "open"'), paused=True) as kit:
        assert (await kit.client.get("/register")).status_code == 200
        page = await kit.client.post("/register", data={"name": "carol", "csrf": await kit.csrf()})
        assert page.status_code == 200
        token = re.search(r'<pre class="secret">([^<]+)</pre>', page.text)
        assert token and kit.competition.state.by_token(token.group(1)) is not None
        assert (await kit.client.get("/me")).status_code == 200
        taken = await kit.client.post("/register", data={"name": "carol", "csrf": await kit.csrf()})
        assert taken.status_code == 409


async def test_the_bot_page_shows_versions_opponents_and_a_rating_chart(tmp_path: Path) -> None:
    # (PLAYS_ON: the chart's second point needs the ladder to keep playing)
    config = write_config(tmp_path, house=("minimal-python", "random-python", "simple-py"), ladder=PLAYS_ON)
    async with running(config) as kit:
        versions = {v.label: v.id for v in kit.competition.versions()}
        with trio.fail_after(120):  # the chart gets a point about every HISTORY_EVERY matches, as standings refresh
            while len(kit.competition.state.rating_history(versions["random-python"])) < 2:
                await trio.sleep(0.2)
        await trio.sleep(BOARD_EVERY_S)  # the standings shown lag the results by up to this
        page = (await kit.client.get("/bots/random-python")).text
        assert "<polyline" in page and "v1" in page and "/bots/minimal-python" in page
        data = (await kit.client.get("/api/bots/random-python")).json()
        assert len(data["rating_history"]) >= 2 and set(data["opponents"]) == {"minimal-python", "simple-py"}
        assert (await kit.client.get("/api/matches?bot=random-python&limit=3")).json()["matches"][0]["key"]


async def test_a_bot_page_draws_its_chart_again_after_each_new_snapshot_of_the_ratings(tmp_path: Path) -> None:
    # The page and the API keep what they read of a version's history until the next snapshot is kept.
    config = write_config(tmp_path, house=("minimal-python", "random-python"))
    async with running(config, paused=True) as kit:
        version = next(v.id for v in kit.competition.versions() if v.row.name == "random-python" and v.playing)
        state = kit.competition.state
        state.add_ratings(10, [(version, 5.0, 20.0)])
        state.add_ratings(20, [(version, 7.0, 18.0)])
        assert "From match 10 to 20" in (await kit.client.get("/bots/random-python")).text
        assert len((await kit.client.get("/api/bots/random-python")).json()["rating_history"]) == 2
        state.add_ratings(30, [(version, 9.0, 15.0)])
        assert "From match 10 to 30" in (await kit.client.get("/bots/random-python")).text
        assert len((await kit.client.get("/api/bots/random-python")).json()["rating_history"]) == 3


async def test_a_restart_finishes_a_half_played_pair_and_rechecks_an_interrupted_submission(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    async with running(config) as kit:
        await kit.wait_matches(4)
        kit.competition.set_paused(True)
        token = kit.participant("alice")
    # Make the state a kill -9 leaves: the last match of a pair lost, and a submission caught mid-check.
    db = sqlite3.connect(tmp_path / "data" / "server.sqlite")
    last = db.execute(  # the second leg of a pair (a pair's legs are played one after the other)
        "SELECT id, match_key, deal FROM matches WHERE deal IN (SELECT deal FROM matches GROUP BY deal"
        " HAVING COUNT(*) = 2) ORDER BY id DESC LIMIT 1"
    ).fetchone()
    db.execute("DELETE FROM faults WHERE match_id = ?", (last[0],))
    db.execute("DELETE FROM matches WHERE id = ?", (last[0],))
    db.commit()
    db.close()
    async with running(config) as kit:
        state = kit.competition.state
        alice = state.by_token(token)
        assert alice is not None
        lost = state.add_submission(alice.id, filename="lost.tar.gz", language="", size=1)  # killed while unpacking
        folder = tmp_path / "data" / "bots" / "alice" / "s-test"
        folder.parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "up.tar.gz").write_bytes(minimal_bot())
        unpack(tmp_path / "up.tar.gz", folder, UploadLimits())
        caught = state.add_submission(alice.id, filename="bot.tar.gz", language="", size=1)  # killed mid-check
        state.update_submission(caught, status="checking", folder=str(folder))
        kit.competition.set_paused(False)
        with trio.fail_after(120):  # the lost match is played again, under its own key
            while last[1] not in (keys := [m.key for m in kit.matches]):
                await trio.sleep(0.1)
        assert len(keys) == len(set(keys))
        deals = [m.deal for m in kit.matches]
        assert deals.count(last[2]) == 2
    async with running(config, paused=True) as kit:
        result = await kit.wait_submission(token, lost)
        assert result["status"] == "refused" and "stopped while unpacking" in str(result["message"])
        result = await kit.wait_submission(token, caught)
        assert result["status"] == "passed" and result["message"] == "version 1"


@pytest.mark.parametrize("workers", [1, 0], ids=["in-the-match-worker", "in-the-servers-process"])
async def test_a_persistent_house_bot_plays_one_match_at_a_time_in_one_process(tmp_path: Path, workers: int) -> None:
    # (PLAYS_ON: three bots' pairs could all be settled before 16 matches)
    house = ("minimal-python", "random-python", "tsh-py")
    config = write_config(tmp_path, house=house, extra=f"workers = {workers}", ladder=PLAYS_ON)
    async with running(config, jobs=4) as kit:
        assert (kit.competition.host.worker is not None) == bool(workers)
        await kit.wait_matches(16)
        kit.competition.set_paused(True)
        ladder = kit.competition.host.ladder
        assert ladder is not None
        while ladder.state.busy:
            await trio.sleep(0.1)
        theirs = [m for m in kit.matches if "tsh-py" in (m.bot_a, m.bot_b)]
        assert len(theirs) >= 4 and not any(f.bot == "tsh-py" for m in theirs for f in m.faults)
        seeds = [m.seed for m in theirs]
        assert len(set(seeds)) == len(seeds)  # it never meets a deal twice
        assert all(m.deal == m.key for m in theirs)
        others = [m for m in kit.matches if m not in theirs]
        assert all(m.deal != m.key for m in others)  # the other pairs still play each deal twice
        processes = list((tmp_path / "data" / "logs" / "stderr").glob("tsh-py.*.log"))
        assert len(processes) == 1, processes  # one process kept its state through every match


async def test_a_match_worker_that_dies_is_replaced_and_its_matches_are_played_again(tmp_path: Path) -> None:
    said: list[str] = []
    # (a pair that never settles: with its ratings apart after a few pairs the ladder would go idle, rightly, and
    # wait for a new version, and the new worker would have nothing to play)
    config = write_config(tmp_path, extra="workers = 1", ladder=PLAYS_ON)
    async with running(config, say=said.append) as kit:
        worker = kit.competition.host.worker
        assert worker is not None and worker.pid is not None and worker.pid != os.getpid()
        await kit.wait_matches(6)
        ladder = kit.competition.host.ladder
        assert ladder is not None
        with trio.fail_after(60):
            while not ladder.state.busy:  # kill it while it plays
                await trio.sleep(0.01)
        first = worker.pid
        os.kill(first, signal.SIGKILL)
        with trio.fail_after(60):
            while worker.pid in (None, first):
                await trio.sleep(0.05)
        assert worker.restarts == 1
        lines = [line for line in said if "match worker" in line]
        assert len(lines) == 1 and f"match worker (pid {first})" in lines[0] and "played again" in lines[0], said
        await kit.wait_matches(len(kit.matches) + 6)  # the ladder goes on in the new worker
        kit.competition.set_paused(True)
        with trio.fail_after(60):
            while ladder.state.busy:
                await trio.sleep(0.05)
        keys = [m.key for m in kit.matches]
        assert len(keys) == len(set(keys))  # nothing recorded twice
        legs = Counter(m.deal for m in kit.matches)
        assert all(count <= 2 for count in legs.values())
        assert not [key for key in ladder.state.book.partial]  # every pair the dead worker left was finished
        assert worker.restarts == 1 and not any(f.kind for m in kit.matches for f in m.faults)


async def test_the_config_chooses_where_matches_are_played(tmp_path: Path) -> None:
    async with running(write_config(tmp_path, extra="workers = 0"), paused=True) as kit:
        assert kit.competition.host.worker is None  # played in the server's process
    async with running(write_config(tmp_path, extra="# workers: the default"), jobs=1, paused=True) as kit:
        assert kit.competition.host.worker is None  # one match at a time: no worker (unless workers = 1)
    bad = write_config(tmp_path, extra="workers = 2")
    with pytest.raises(ConfigError, match=r"workers.*0 .*or 1"):
        load(bad)


async def test_a_check_that_breaks_fails_that_upload_and_the_server_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.checks.bot import Report
    from arena.checks.bot import check_bot as real

    broken = [True]

    async def once_broken(*args: Any, **kwargs: Any) -> Report:
        if broken.pop() if broken else False:
            raise RuntimeError("a bug of the arena's")
        return await real(*args, **kwargs)

    monkeypatch.setattr("arena.server.submissions.check_bot", once_broken)
    async with running(write_config(tmp_path)) as kit:
        token = kit.participant("alice")
        first = await kit.upload(token, minimal_bot())
        done = await kit.wait_submission(token, first.json()["id"])
        assert (done["status"], done["message"]) == ("failed", submissions.CHECK_BROKE), done
        (version,) = kit.competition.versions()[-1:]
        assert (version.admission, version.reason) == ("not_admitted", submissions.CHECK_BROKE)  # not "pending" forever
        second = await kit.upload(token, minimal_bot(**{"notes.txt": "again"}))
        assert (await kit.wait_submission(token, second.json()["id"]))["status"] == "passed"


def test_a_server_refuses_a_game_that_is_not_duplicable_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena import ConfigError
    from arena.games import get_game
    from arena.server.config import load

    from .servertools import write_config

    monkeypatch.setattr(type(get_game("rps-poker")), "duplicate_deals", False)  # as a plugin game may say
    with pytest.raises(ConfigError, match=r"rps-poker is not duplicable .* a ladder plays every deal twice"):
        load(write_config(tmp_path))


def test_a_rating_is_shown_rounded_with_its_sign_and_never_as_minus_zero() -> None:
    from arena.replay.report import _signed as report_signed
    from arena.server.web import _signed

    # A rating of 0 comes out of a fit as -1.6e-15 on one CPU and 1.0e-15 on another (numpy's BLAS): the same page.
    assert [_signed(v) for v in (-1.6e-15, 1.0e-15, -0.3, 0.49, -12.6, None, math.nan)] == [
        "+0", "+0", "+0", "+0", "-13", "-", "-",
    ]  # fmt: skip
    assert _signed(math.inf) == "+inf"
    assert [report_signed(v) for v in (-1.6e-15, -12.6, 7.0)] == ["+0", "\u221213", "+7"]


def test_the_apis_json_is_the_standard_librarys_byte_for_byte() -> None:
    """The API encodes with msgspec (six times quicker on the server's loop): what Starlette's encoder wrote,
    byte for byte, for what the API answers (names in any script, ratings, nested lists, numbers as keys); a
    float's exponent apart (``1e-7``, not ``1e-07``), the same number."""
    import json
    import math

    from starlette.responses import JSONResponse as Standard

    from arena.server._text import JSONResponse

    content = {
        "name": 'Ünïcødé ボット \u2212 "quoted" \\ <tag> \n',
        "rating": 1623.4567890123,
        "big": 12345678901234.5,
        "whole": 3.0,
        "negative": -0.5,
        "ints": [0, -1, 2**40],
        "nested": {"a": [{"b": None, "c": True, "d": False}], 7: "int key"},
        "empty": {},
    }
    assert JSONResponse(content).body == Standard(content).body
    tiny = {"small": 1e-7, "huge": 1e22}
    assert json.loads(JSONResponse(tiny).body) == json.loads(Standard(tiny).body) == tiny
    assert json.loads(JSONResponse({"nan": math.nan}).body) == {"nan": None}  # (the standard one refused it)
    from markupsafe import Markup

    class Count(int):
        pass

    subclassed = {"html": Markup("<b>a &amp; b</b>"), "count": Count(3), "at": {1: [Markup("x")]}}  # (a live view)
    assert JSONResponse(subclassed).body == Standard(subclassed).body
    unknown = {"thing": object()}  # what neither knows: refused, as before
    with pytest.raises(TypeError):
        JSONResponse(unknown)


async def test_while_the_leaderboard_is_read_each_new_table_is_put_into_html_before_anyone_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first reader after each new table waited while it was put into HTML (12 ms of CPU at 300 bots, four
    times that under a busy ladder; one reader in six at a million matches): once someone has asked for the
    leaderboard, the server's loop does it as each table comes, for ``BOARD_READY_FOR_S``, and no longer."""
    from arena.server import web

    async with running(write_config(tmp_path), paused=True) as kit:
        app = create_app(kit.competition)
        pages = app.state.pages
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            competition = kit.competition
            competition.results_changed()  # (a table drawn: nobody has asked for the leaderboard yet)
            await trio.sleep(1.5 * BOARD_EVERY_S)
            assert pages._fragment is None
            assert (await client.get("/")).status_code == 200
            for _ in range(2):
                stamp = competition.stamp
                competition.results_changed()  # a new table
                with trio.fail_after(30):
                    while pages._fragment is None or pages._fragment[0] == stamp:
                        await trio.sleep(0.02)
                assert pages._fragment[0] == competition.stamp
            monkeypatch.setattr(web, "BOARD_READY_FOR_S", 0.0)  # long since anyone asked
            competition.results_changed()
            with trio.fail_after(30):
                while pages._readying:
                    await trio.sleep(0.02)
            stamp = competition.stamp
            competition.results_changed()
            await trio.sleep(1.5 * BOARD_EVERY_S)
            assert pages._fragment[0] < competition.stamp  # no longer made unasked
