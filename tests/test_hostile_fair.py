"""Fairness on a competition server, as hostile participants try it: no bot may learn a deal it is not entitled to.

Each test runs real bot processes (and, for the server, ``arena serve`` on a
real socket with a real HTTP client) and fails on an arena that let the
attack through: a seed from the config, a check's deal that follows from the
submission's number, ids that say "check", seeds published while their deal
is still to be played, the two legs of a deal played at once.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import httpx
import pytest

from arena._errors import ConfigError
from arena.cli import main
from arena.server.config import load

from .servertools import bot_archive, server_process, write_config

HOSTILE = Path(__file__).parent / "hostile"
KNOWS_DEALS = HOSTILE / "knows-deals"


def add_participant(config: Path, name: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Add ``name`` with ``arena serve CONFIG --add NAME``; its token."""
    assert main(["serve", str(config), "--add", name]) == 0
    return capsys.readouterr().out.split("token: ")[1].split()[0]


def upload_and_wait(client: httpx.Client, token: str, archive: bytes, *, timeout: float = 180) -> dict[str, object]:
    """Upload ``archive`` through the API; the submission once checked."""
    headers = {"authorization": f"Bearer {token}"}
    response = client.post("/api/submissions", headers=headers, files={"file": ("bot.tar.gz", archive)})
    assert response.status_code in (200, 201, 202), response.text
    sid = response.json()["id"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data: dict[str, object] = client.get(f"/api/submissions/{sid}", headers=headers).json()
        if data["done"]:
            return data
        time.sleep(0.3)
    raise AssertionError(f"submission {sid} was not checked in {timeout} s")


def wait_for_matches(client: httpx.Client, bot: str, count: int, *, timeout: float = 240) -> list[dict[str, object]]:
    """The matches of ``bot`` listed by ``/api/matches`` once there are ``count`` of them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        matches: list[dict[str, object]] = client.get("/api/matches", params={"bot": bot}).json()["matches"]
        if len(matches) >= count:
            return matches
        time.sleep(0.5)
    raise AssertionError(f"{bot} played fewer than {count} matches in {timeout} s")


def said_in(folder: Path, marker: str) -> list[str]:
    """Every line holding ``marker`` in the files under ``folder`` (the bots' stderr logs are there)."""
    lines = []
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix == ".log":
            lines += [line for line in path.read_text(errors="replace").splitlines() if marker in line]
    return lines


@pytest.mark.slow
def test_a_bot_cannot_deal_its_own_cards_from_the_config_its_name_or_the_match_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The attack: a participant's bot that knows the published config, its own and its opponent's names and the
    # match id recomputes the deal (the ladder's derivation, or a check's seed from the submission's number) and
    # compares it with the offers it is dealt; it says KNEW-DEAL on stderr when it found its deal, KNEW-CHECK when
    # its match id or opponent says it is being checked.
    config = write_config(tmp_path)
    token = add_participant(config, "knows-deals", capsys)
    files = {name: (KNOWS_DEALS / name).read_text() for name in ("bot.py", "bot.toml")}
    files["public.toml"] = config.read_text()  # the organiser published the config
    data_dir = load(config).data_dir
    with server_process(config) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        checked = upload_and_wait(client, token, bot_archive(files))
        assert checked["status"] == "passed", checked
        wait_for_matches(client, "knows-deals", 8)
        output = "".join(server.output)
    with sqlite3.connect(data_dir / "server.sqlite") as db:
        (seed,) = db.execute("SELECT seed FROM tournaments").fetchone()
    told = said_in(data_dir, "candidate deals from what I was told")
    assert len(told) >= 8 + 2, "the bot's stderr is where this test reads what it learnt"  # ladder and check
    assert said_in(data_dir, "KNEW-") == []
    assert str(seed) not in output, "the server printed its secret seed"


def test_a_server_config_with_a_seed_is_refused_with_what_to_do(tmp_path: Path) -> None:
    config = write_config(tmp_path, extra="seed = 2021")
    with pytest.raises(ConfigError, match=r"server\.toml:\d+: seed: a server keeps its deals' seed secret.*remove"):
        load(config)


def test_the_shipped_server_config_and_compose_service_set_no_seed() -> None:
    repo = Path(__file__).resolve().parents[1]
    example = repo / "examples" / "rps-poker-server.toml"
    load(example)  # a seed would be refused
    assert "rps-poker-server.toml" in (repo / "docker" / "compose.yaml").read_text()  # the service runs that config
