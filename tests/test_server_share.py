"""Sharing the server among strangers (issue 36, item 3): games against bots and live streams capped per person
and address with no 503 for everyone else; registration by invitation, approval or open, limited per address."""

from __future__ import annotations

import contextlib
import io
import selectors
import socket
import time
from pathlib import Path

import httpx
import pytest
import trio

from arena._errors import ConfigError
from arena.cli import main
from arena.server import human
from arena.server.config import load
from arena.server.live import StreamShares

from .servertools import SLOW_BOT, Kit, in_play, minimal_bot, running, server_process, write_config

PROXY = 'trusted_proxies = ["127.0.0.1"]'
"""The test client connects from 127.0.0.1: as a trusted proxy, its X-Forwarded-For says who each person is."""


def test_live_streams_are_shared_evenly_and_a_new_viewer_always_gets_in() -> None:
    shares = StreamShares(64, 4)
    flood = [shares.take(f"10.0.0.{n}") for n in range(16) for _ in range(4)]
    assert len(shares) == 64
    with pytest.raises(Exception, match="at most 4 live matches") as refused:
        shares.take("10.0.0.3")  # the flooder's own share is full
    assert getattr(refused.value, "status_code", None) == 429
    newcomer = shares.take("192.0.2.1")  # the 65th viewer: one of the flood's streams ends for it
    assert len(shares) == 64 and not newcomer.ended
    assert sum(stream.ended for stream in flood) == 1
    second = shares.take("192.0.2.2")
    assert sum(stream.ended for stream in flood) == 2 and not second.ended
    even = StreamShares(4, 4)
    for n in range(4):
        even.take(f"10.0.1.{n}")
    with pytest.raises(Exception, match="shared out evenly") as full:
        even.take("192.0.2.9")  # one stream each: nobody's is taken, and the refusal is a 429, not a 503
    assert getattr(full.value, "status_code", None) == 429


async def person(kit: Kit, name: str) -> tuple[httpx.AsyncClient, str]:
    """A new person's browser, logged in as ``name``; and its CSRF token."""
    client = kit.person()
    token = kit.participant(name)
    page = await client.get("/login")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    answer = await client.post("/login", data={"token": token, "csrf": csrf})
    assert answer.status_code == 303
    page = await client.get("/login")
    return client, page.text.split('name="csrf" value="')[1].split('"')[0]


async def start_game(client: httpx.AsyncClient, csrf: str, address: str) -> httpx.Response:
    return await client.post(
        "/bots/random-python/play", data={"csrf": csrf, "seat": "A"}, headers={"x-forwarded-for": address}
    )


async def until_asked(client: httpx.AsyncClient, game: str) -> None:
    """Until the game awaits the person's move (the bot has started and the person was asked)."""
    with trio.fail_after(60):
        while 'id="moves"' not in (await client.get(game)).text:
            await trio.sleep(0.1)


@pytest.mark.slow
async def test_unanswered_games_keep_no_one_out_and_one_address_is_refused_with_a_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(human, "ROOM_IDLE_S", 0.5)
    config = write_config(tmp_path, server=f"{PROXY}\nhuman_games = 4\nhuman_games_per_address = 2")
    async with running(config, jobs=1, paused=True) as kit:
        house = kit.competition.state.participant_named("random-python")
        assert house is not None
        kit.competition.state.set_setting(human.ALLOWED.format(house.id), "1")
        people = [await person(kit, f"p{n}") for n in range(6)]
        games = []
        for (client, csrf), address in zip(people[:2], ["10.0.0.1", "10.0.0.1"], strict=True):
            started = await start_game(client, csrf, address)
            assert started.status_code == 303
            games.append((client, started.headers["location"]))
        third = await start_game(*people[2], "10.0.0.1")
        assert third.status_code == 429  # a third game from one address: refused, saying why
        assert "at most 2 games against bots at once from one address" in third.text
        for (client, csrf), address in zip(people[2:4], ["10.0.0.3", "10.0.0.4"], strict=True):
            started = await start_game(client, csrf, address)
            assert started.status_code == 303, started.text
            games.append((client, started.headers["location"]))
        for client, game in games:
            await until_asked(client, game)  # four games, none answered
        with trio.fail_after(30):  # once a person has been silent for ROOM_IDLE_S (the old server: 2 minutes)
            while (fifth := await start_game(*people[4], "10.0.0.5")).status_code == 503:
                await trio.sleep(0.1)
        assert fifth.status_code == 303, fifth.text
        with trio.fail_after(30):
            while True:
                pages = [(await client.get(game)).text for client, game in games]
                ended = [page for page in pages if "someone else was waiting to play" in page]
                if ended:
                    break
                await trio.sleep(0.1)
        assert len(ended) == 1 and "game-over" in ended[0]  # one game made room (the longest silent), no more
        for client, _ in people:
            await client.aclose()


@pytest.mark.slow
async def test_a_person_who_stops_answering_loses_after_the_configured_idle_time(tmp_path: Path) -> None:
    config = write_config(tmp_path, server="human_idle_s = 1")
    async with running(config, jobs=1, paused=True) as kit:
        house = kit.competition.state.participant_named("random-python")
        assert house is not None
        kit.competition.state.set_setting(human.ALLOWED.format(house.id), "1")
        client, csrf = await person(kit, "dawdler")
        started = await start_game(client, csrf, "")
        assert started.status_code == 303
        with trio.fail_after(60):
            while "game-over" not in (page := (await client.get(started.headers["location"])).text):
                await trio.sleep(0.1)
        assert "timeout" in page, page
        await client.aclose()


async def register(client: httpx.AsyncClient, name: str, *, code: str = "", address: str = "") -> httpx.Response:
    page = await client.get("/register" + (f"?code={code}" if code else ""))
    assert page.status_code == 200, page.text
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    headers = {"x-forwarded-for": address} if address else {}
    return await client.post("/register", data={"csrf": csrf, "name": name, "code": code}, headers=headers)


async def test_invite_registration_takes_one_time_codes_from_the_organiser(tmp_path: Path) -> None:
    config = write_config(tmp_path, access='registration = "invite"')
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(["serve", str(config), "--invite", "2", "--url", "http://arena.example"]) == 0
    links = [line.split()[1] for line in printed.getvalue().splitlines() if line.startswith("invitation: ")]
    assert len(links) == 2 and all(link.startswith("http://arena.example/register?code=") for link in links)
    async with running(config, paused=True) as kit:
        assert (await kit.client.get("/register")).status_code == 403  # no code: by invitation only
        assert (await kit.client.get("/register?code=made-up")).status_code == 403
        code = links[0].split("code=")[1]
        registered = await register(kit.client, "carol", code=code)
        assert registered.status_code == 200 and "carol" in registered.text
        again = await register(kit.person(), "mallory", code=links[1].split("code=")[1])
        assert again.status_code == 200
        spent = await kit.person().get(f"/register?code={code}")
        assert spent.status_code == 403  # spent
        organiser = kit.competition.participants.admin_token()
        made = await kit.client.post("/api/admin/invite", headers={"authorization": f"Bearer {organiser}"})
        assert made.status_code == 200
        fresh = made.json()["invite"].split("code=")[1]
        assert (await register(kit.person(), "dave", code=fresh)).status_code == 200
        assert {p.name for p in kit.competition.state.participants()} >= {"carol", "mallory", "dave"}


async def test_approve_registration_holds_uploads_until_the_organiser_approves(tmp_path: Path) -> None:
    config = write_config(tmp_path, access='registration = "approve"')
    async with running(config, paused=True) as kit:
        registered = await register(kit.client, "erin")
        assert registered.status_code == 200 and 'id="awaiting"' in registered.text
        token = registered.text.split('<pre class="secret">')[1].split("</pre>")[0]
        refused = await kit.upload(token, minimal_bot())
        assert refused.status_code == 409 and "not approved your account yet" in refused.text
        organiser = kit.competition.participants.admin_token()
        admin = {"authorization": f"Bearer {organiser}"}
        page = await kit.client.get("/admin", headers=admin)
        assert "Approve erin" in page.text
        approved = await kit.client.post("/api/admin/approve", headers=admin, json={"name": "erin"})
        assert approved.status_code == 200
        accepted = await kit.upload(token, minimal_bot())
        assert accepted.status_code == 201, accepted.text


async def test_open_registration_is_limited_per_address_and_reads_only_a_trusted_proxys_word(tmp_path: Path) -> None:
    access = 'registration = "open"\nregistrations_per_hour = 2'
    for server, behind_proxy in (("", False), (PROXY, True)):
        folder = tmp_path / ("proxy" if behind_proxy else "direct")
        folder.mkdir()
        async with running(write_config(folder, access=access, server=server), paused=True) as kit:
            for n in range(2):
                assert (await register(kit.person(), f"u{n}", address="198.51.100.1")).status_code == 200
            third = await register(kit.person(), "u2", address="198.51.100.1")
            assert third.status_code == 429 and "at most 2 registrations an hour" in third.text
            other = await register(kit.person(), "u3", address="198.51.100.2")
            # Behind a trusted proxy another address is another person; without, the header is the client's own
            # word, and the connection's address (the same for all) is what counts.
            assert other.status_code == (200 if behind_proxy else 429)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('[access]\nregistration = "closed"', "access.registration: must be one of invite, open, approve"),
        ('[server]\ntrusted_proxies = ["proxy.local"]', "'proxy.local' is not an IP address or network"),
        ("[server]\ntrusted_proxies = [1]", "server.trusted_proxies: must be a list of addresses or networks"),
        ("[server]\nhuman_idle_s = 0", "server.human_idle_s: must be more than 0 seconds"),
        ("[access]\nregistrations_per_hour = -1", "access.registrations_per_hour: must be at least 0"),
    ],
)
def test_bad_sharing_settings_are_one_line_errors(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "server.toml"
    path.write_text(f'game = "rps-poker"\n{line}\n')
    with pytest.raises(ConfigError, match=message) as error:
        load(path)
    assert "\n" not in str(error.value)


@pytest.mark.slow
def test_64_live_streams_from_16_addresses_leave_room_for_a_65th_viewer(tmp_path: Path) -> None:
    config = write_config(tmp_path, house=("minimal-python", str(SLOW_BOT)))
    with server_process(config) as server:
        key = in_play(server.url, "slow-python", "minimal-python", timeout=120)
        host, port = server.url.removeprefix("http://").rsplit(":", 1)
        request = f"GET /matches/{key}/live/events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()

        def watch(address: str) -> socket.socket:
            sock = socket.create_connection((host, int(port)), timeout=30, source_address=(address, 0))
            sock.sendall(request)
            return sock

        streams = []
        try:
            for n in range(64):
                streams.append(watch(f"127.0.2.{n // 4 + 1}"))  # 16 addresses, 4 streams each
            heads = [sock.recv(4096).split(b"\r\n", 1)[0] for sock in streams]
            assert heads == [b"HTTP/1.1 200 "] * 64
            fifth = watch("127.0.2.1")
            assert fifth.recv(4096).startswith(b"HTTP/1.1 429 "), "an address's fifth stream is refused"
            fifth.close()
            newcomer = watch("127.0.3.1")
            streams.append(newcomer)
            assert newcomer.recv(4096).startswith(b"HTTP/1.1 200 ")  # the old server: 503, for everyone else too
            ended: list[socket.socket] = []
            with selectors.DefaultSelector() as selector:
                for sock in streams[:64]:
                    selector.register(sock, selectors.EVENT_READ)
                deadline = time.monotonic() + 30
                while not ended and time.monotonic() < deadline:
                    for ready, _ in selector.select(timeout=1):
                        stream = ready.fileobj
                        assert isinstance(stream, socket.socket)
                        if b"event: ended" in stream.recv(65536):
                            ended.append(stream)
            assert len(ended) == 1, "one of the flood's streams made room, saying why"
        finally:
            for sock in streams:
                sock.close()
