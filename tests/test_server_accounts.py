"""Names and tokens on a real ``arena serve``, as hostile participants and careless logs would have them.

Names are unique whatever their case and the organiser's and house bots' are
reserved; printed login links log in once, within a week, and never carry the
token; ``arena submit`` takes its token from ``ARENA_TOKEN`` or a file.
"""

from __future__ import annotations

import io
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from arena.cli import main
from arena.server.config import load

from .servertools import MINIMAL_BOT, server_process, write_config

pytestmark = pytest.mark.slow
SUBMIT = [sys.executable, "-m", "arena", "submit"]


def register(url: str, name: str) -> httpx.Response:
    """Register ``name`` through the open registration form, in a browser session of its own."""
    with httpx.Client(base_url=url, timeout=30) as client:
        page = client.get("/register")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf, page.text
        return client.post("/register", data={"name": name, "csrf": csrf.group(1)})


def added(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """``arena serve ARGS --add ...``'s login link and token."""
    assert main(["serve", *args]) == 0
    out = capsys.readouterr().out
    return re.findall(r"(http://\S+/login/\S+)", out)[0], out.split("token: ")[1].split()[0]


def test_names_are_unique_whatever_their_case_and_house_and_organiser_names_are_reserved(tmp_path: Path) -> None:
    config = write_config(tmp_path, access='registration = "open"')
    with server_process(config, ladder=False) as server:  # (accounts only: no match)
        first = register(server.url, "victim2")
        assert first.status_code == 200
        victim = re.search(r'<pre class="secret">([^<]+)</pre>', first.text)
        assert victim
        twin = register(server.url, "Victim2")
        assert twin.status_code == 409 and "taken" in twin.text
        assert victim.group(1) not in twin.text
        for name in ("Random-Python", "ORGANISER"):  # a house bot's, the organiser's (taken already)
            assert register(server.url, name).status_code == 409, name
        for name in ("simple-py", "Organizer"):  # a sample bot's (a house bot to come), the organiser's
            refused = register(server.url, name)
            assert refused.status_code == 409 and "reserved" in refused.text, name
        with httpx.Client(base_url=server.url, timeout=30) as client:
            mine = client.get("/api/submissions", headers={"authorization": f"Bearer {victim.group(1)}"})
            assert mine.status_code == 200  # victim2's token still works
    assert main(["serve", str(config), "--add", "Minimal-python"]) == 2
    # The sample bot nobody could take joins as a house bot later: the server starts with it.
    later = write_config(tmp_path, house=("minimal-python", "random-python", "simple-py"))
    with server_process(later, ladder=False) as server:
        assert "house bot simple-py: version 1" in "".join(server.output)
    with sqlite3.connect(load(config).data_dir / "server.sqlite") as db:
        names = [name for (name,) in db.execute("SELECT name FROM participants")]
    assert len({name.casefold() for name in names}) == len(names)


def test_a_printed_login_link_logs_in_once_within_a_week_and_carries_no_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    with server_process(config, ladder=False) as server:  # (logins only: no match)
        output = "".join(server.output)
        organiser = re.search(r"(http://\S+/login/(\S+))", output)
        assert organiser and "token: " not in output  # what is printed, a container's logs keep
        link, token = added([str(config), "--add", "alice"], capsys)
        assert link.startswith(server.url) and token not in link  # the link has the port served, not the config's
        code = link.rsplit("/", 1)[1]
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for link_code in (code, organiser.group(2)):  # a link's code is no token
                assert (
                    client.get("/api/submissions", headers={"authorization": f"Bearer {link_code}"}).status_code == 401
                )
            page = client.get(f"/login/{code}")
            assert page.status_code == 200 and "Log in as alice" in page.text
            assert client.get(f"/login/{code}").status_code == 200  # looking at it (a link preview) spends nothing
            csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
            assert csrf
            logged = client.post("/login", data={"code": code, "csrf": csrf.group(1)})
            assert logged.status_code == 303
            assert client.get("/me").status_code == 200
            assert client.get(f"/login/{code}").status_code == 401  # spent
            with httpx.Client(base_url=server.url, timeout=30) as thief:
                again = thief.get("/login")
                csrf = re.search(r'name="csrf" value="([^"]+)"', again.text)
                assert csrf
                assert thief.post("/login", data={"code": code, "csrf": csrf.group(1)}).status_code == 401
            assert client.get("/me").status_code == 200  # the session the link gave stays
            organiser_code = organiser.group(2)
            data_dir = load(config).data_dir
            with sqlite3.connect(data_dir / "server.sqlite") as db:
                db.execute("UPDATE login_codes SET expires_at = '2000-01-01T00:00:00+00:00'")
            assert client.get(f"/login/{organiser_code}").status_code == 401  # expired


def test_arena_submit_takes_its_token_from_arena_token_or_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path)
    _, token = added([str(config), "--add", "alice"], capsys)
    (tmp_path / "token").write_text(token + "\n")
    (tmp_path / "empty").write_text("\n")
    with server_process(config) as server:
        by_file = subprocess.run(
            [*SUBMIT, server.url, str(MINIMAL_BOT), "--token-file", str(tmp_path / "token")],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert by_file.returncode == 0, by_file.stdout + by_file.stderr
        assert token not in by_file.stdout + by_file.stderr
        env = {"ARENA_TOKEN": token}
        by_env = subprocess.run(
            [*SUBMIT, server.url, str(MINIMAL_BOT), "--no-wait"],
            capture_output=True, text=True, timeout=300, env={**os.environ, **env},
        )  # fmt: skip
        assert by_env.returncode in (0, 1) and "token" not in by_env.stderr.lower(), by_env.stderr
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["submit", "http://127.0.0.1:9", str(MINIMAL_BOT), "--token-file", str(tmp_path / "empty")]) == 2
    assert main(["submit", "http://127.0.0.1:9", str(MINIMAL_BOT)]) == 2
    said = capsys.readouterr().err + err.getvalue()
    assert "is empty: put your token in it" in said and "ARENA_TOKEN" in said
