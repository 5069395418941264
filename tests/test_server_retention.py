"""The match logs' retention (keep the last deals per pair, pins, a budget), maintenance and the online backup."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from arena._errors import ConfigError
from arena.cli import main
from arena.server.config import load

from .conftest import CHROMIUM, CHROMIUM_FLAGS
from .servertools import Kit, running, server_process, write_config


def retention_config(folder: Path, server: str) -> Path:
    """A test server config with ``server`` lines added to its ``[server]`` table (the last table)."""
    path = write_config(folder)
    path.write_text(path.read_text() + server + "\n")
    return path


def pruned_rows(database: Path) -> dict[int, str]:
    with sqlite3.connect(database) as db:
        return dict(db.execute("SELECT match_id, pruned_why FROM match_logs WHERE pruned_at IS NOT NULL").fetchall())


async def deals_played(kit: Kit, count: int) -> None:
    """Until ``count`` whole deals are recorded; then the ladder is paused and its matches in play finish."""
    with trio.fail_after(180):
        while len({m.deal for m in kit.matches if kit.competition.catalogue.deal_over(m)}) < count:
            await trio.sleep(0.1)
    kit.competition.set_paused(True)
    await trio.sleep(0.5)
    with trio.fail_after(60):
        while any(not kit.competition.catalogue.deal_over(m) for m in kit.matches):
            kit.competition.set_paused(False)  # (an odd leg: let its deal finish)
            await trio.sleep(0.2)
            kit.competition.set_paused(True)
            await trio.sleep(1)


@pytest.mark.slow
async def test_the_pruner_keeps_the_last_deals_of_a_pair_and_the_pinned_and_says_why(tmp_path: Path) -> None:
    config = retention_config(tmp_path, "keep_deals = 1\nlog_budget_bytes = 0\npins_per_participant = 1")
    async with running(config) as kit:
        c = kit.competition
        await deals_played(kit, 4)
        matches = kit.matches
        by_deal: dict[str, list[str]] = {}
        for m in matches:
            by_deal.setdefault(m.deal, []).append(m.key)
        deals = sorted(by_deal, key=lambda d: min(m.row_id for m in matches if m.deal == d))
        oldest, pinned_by_house, newest = deals[0], deals[1], deals[-1]
        admin = {"authorization": f"Bearer {c.participants.admin_token()}"}
        # The organiser pins the oldest deal (through one of its legs) by the API.
        answer = await kit.client.post(f"/api/matches/{by_deal[oldest][1]}/pin", json={"pinned": True}, headers=admin)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"kept": True, "pruned_at": None, "pruned_why": "", "pins": 1}
        # A house bot's owner pins a deal of its own bot: its one pin; a second is refused (pins cannot defeat
        # the budget), and a stranger may pin none.
        owner = c.state.participant_named(matches[0].bot_a)
        assert owner is not None
        first = next(m for m in matches if m.key == by_deal[pinned_by_house][0])
        await c.log_upkeep.pin(first, owner, pinned=True)
        second = next(m for m in matches if m.key == by_deal[newest][0])
        with pytest.raises(Exception, match="pinned 1 deals, the most"):
            await c.log_upkeep.pin(second, owner, pinned=True)
        stranger = {"authorization": f"Bearer {kit.participant('stranger')}"}
        refused = await kit.client.post(f"/api/matches/{second.key}/pin", json={"pinned": True}, headers=stranger)
        assert refused.status_code == 403

        sizes = {m.key: os.stat(m.log_path).st_size for m in matches if m.log_path}
        before = c.store.log_bytes(c.tid)
        done = await trio.to_thread.run_sync(c.log_upkeep.prune)
        kept_deals = {oldest, pinned_by_house, newest}
        gone = [m for m in matches if m.deal not in kept_deals]
        assert done.logs == len(gone) == done.past_keep and done.bytes == sum(sizes[m.key] for m in gone)
        for m in matches:
            assert m.log_path and os.path.exists(m.log_path) == (m.deal in kept_deals), m.key
        # The log quota is credited with what went.
        after = c.store.log_bytes(c.tid)
        assert sum(before.values()) - sum(after.values()) == pytest.approx(done.bytes, abs=len(gone) * 2)
        # Said in the changes, and on the match's row, page and API; its result stands.
        assert any(
            "pruned" in change.line and "past the last 1 deals" in change.line for change in c.store.changes(c.tid)
        )
        victim = gone[0]
        page = await kit.client.get(f"/matches/{victim.key}")
        assert page.status_code == 200 and "log was pruned on" in page.text and "past the last 1 deals" in page.text
        assert "iframe" not in page.text
        data = (await kit.client.get(f"/api/matches/{victim.key}")).json()
        assert data["replay"] is None and data["log"]["pruned_at"] and not data["log"]["kept"]
        assert data["points"] == list(victim.points)
        assert (await kit.client.get(f"/matches/{victim.key}/replay")).status_code == 410
        # A pruned log cannot be pinned; a kept one's replay still shows.
        late = await kit.client.post(f"/api/matches/{victim.key}/pin", json={"pinned": True}, headers=admin)
        assert late.status_code == 409 and "already pruned" in late.text
        assert (await kit.client.get(f"/matches/{by_deal[oldest][0]}/replay")).status_code == 200
        # Unpinned, the oldest deal goes on the next run.
        await kit.client.post(f"/api/matches/{by_deal[oldest][0]}/pin", json={"pinned": False}, headers=admin)
        again = await trio.to_thread.run_sync(c.log_upkeep.prune)
        assert again.logs == len(by_deal[oldest])
        assert pruned_rows(c.store.path).keys() >= {m.row_id for m in matches if m.deal == oldest}


@pytest.mark.slow
async def test_the_budget_prunes_the_oldest_unpinned_deals_first(tmp_path: Path) -> None:
    config = retention_config(tmp_path, "keep_deals = 100\nlog_budget_bytes = 1")
    async with running(config) as kit:
        await deals_played(kit, 3)
        c = kit.competition
        matches = kit.matches
        newest = max(matches, key=lambda m: m.row_id)
        # The organiser pins the newest deal with the match page's button.
        token = c.participants.admin_token()
        assert token is not None
        await kit.login(token)
        page = await kit.client.get(f"/matches/{newest.key}")
        assert "Pin this deal&#39;s logs" in page.text or "Pin this deal's logs" in page.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf is not None
        posted = await kit.client.post(f"/matches/{newest.key}/pin", data={"csrf": csrf[1], "pin": "1"})
        assert posted.status_code == 303
        page = await kit.client.get(f"/matches/{newest.key}")
        assert "Unpin this deal" in page.text and "pinned by 1" in page.text
        forged = await kit.client.post(f"/matches/{newest.key}/pin", data={"csrf": "forged", "pin": "0"})
        assert forged.status_code == 403
        done = await trio.to_thread.run_sync(c.log_upkeep.prune)
        # A budget of one byte: every unpinned log goes (whole deals), the pinned deal stays.
        assert done.over_budget == done.logs == len([m for m in matches if m.deal != newest.deal])
        for m in matches:
            assert m.log_path and os.path.exists(m.log_path) == (m.deal == newest.deal)
        assert set(pruned_rows(c.store.path).values()) == {
            "the oldest unpinned log when all logs took over the 0 KiB budget"
        }


@pytest.mark.slow
def test_a_real_server_prunes_in_time_and_vacuum_refuses_while_it_runs(tmp_path: Path) -> None:
    config = retention_config(tmp_path, "keep_deals = 1\nprune_every_s = 0.5")
    database = load(config).data_dir / "server.sqlite"
    with server_process(config):
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            with sqlite3.connect(database) as db:
                ready = db.execute("SELECT name FROM sqlite_master WHERE name = 'match_logs'").fetchone()
            if ready and pruned_rows(database):
                break
            time.sleep(0.5)
        assert pruned_rows(database), "the pruner never ran"
        refused = subprocess.run(
            [sys.executable, "-m", "arena", "serve", str(config), "--vacuum"], capture_output=True, text=True
        )
        assert refused.returncode != 0 and "in use by a running server" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    done = subprocess.run(
        [sys.executable, "-m", "arena", "serve", str(config), "--vacuum"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "Test ladder: " in done.stdout and "database: " in done.stdout and "freed" in done.stdout


@pytest.mark.slow
def test_a_backup_taken_while_serving_starts_a_server_with_the_same_standings_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    assert main(["serve", str(config), "--admin-token"]) == 0
    admin = {"authorization": "Bearer " + capsys.readouterr().out.split("token: ")[1].split()[0]}
    dest = tmp_path / "copy"
    with server_process(config) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        deadline = time.monotonic() + 180
        while len(client.get("/api/matches").json()["matches"]) < 6 and time.monotonic() < deadline:
            time.sleep(0.3)
        assert client.post("/api/admin/pause", headers=admin).status_code == 200
        settled(client, deadline=time.monotonic() + 180)  # the pairs in play finish, and the standings count them
        standings = client.get("/api/standings").json()
        listed = client.get("/api/matches").json()["matches"]
        assert len(listed) >= 6
        replays = {m["key"]: _replay(client, m["key"]) for m in listed}
        assert any(status == 200 for status, _ in replays.values())
        backup = subprocess.run(
            [sys.executable, "-m", "arena", "serve", str(config), "--backup", str(dest)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "database: " in backup.stdout and "logs: " in backup.stdout
        assert client.get("/api/standings").status_code == 200  # still serving
    for path in [dest, *dest.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o077 == 0, f"{path} is {oct(mode)}"
    (tmp_path / "data").rename(tmp_path / "gone")  # the original's files are not there to be read
    (tmp_path / "second").mkdir()
    copy = write_config(tmp_path / "second")  # the same competition, its data folder given by --data-dir
    with server_process(copy, "--data-dir", str(dest)) as second, httpx.Client(base_url=second.url) as client:
        assert client.get("/api/matches").json()["matches"] == listed
        # The same standings: the ratings to 1e-9 (the copy's fit starts from scratch, the original's from its
        # last fit's strengths: they agree to 1e-9, not to the last bit), everything else exactly.
        assert _ranked(client.get("/api/standings").json()) == _ranked(standings, approx=True)
        for key, replay in replays.items():
            assert _replay(client, key) == replay
    # Another backup into a folder that is not empty is refused, saying so in one line.
    again = subprocess.run(
        [sys.executable, "-m", "arena", "serve", str(config), "--backup", str(dest)], capture_output=True, text=True
    )
    assert again.returncode != 0 and "not an empty folder" in again.stderr


def settled(client: httpx.Client, deadline: float) -> None:
    """Until no match is in play (as the leaderboard's event stream says) and the standings count every match: the
    ladder's count, and the table's rows (drawn a moment later: ci58 read a table of the first match alone)."""
    while time.monotonic() < deadline:
        with client.stream("GET", "/api/events") as events:  # its first event: the board, with the matches in play
            first = next(line for line in events.iter_lines() if line.startswith("data: "))
        in_play = json.loads(first.removeprefix("data: "))["in_play"]
        standings = client.get("/api/standings").json()
        played = len(client.get("/api/matches").json()["matches"])
        in_table = sum(row["matches"] for row in standings["standings"]) // 2
        if in_play == 0 and standings["matches"] == played == in_table:
            return
        time.sleep(0.2)
    raise AssertionError("the ladder did not settle after its pause")


def _ranked(standings: dict[str, Any], *, approx: bool = False) -> dict[str, Any]:
    """The standings without when they were drawn (with ``approx``, their floating-point figures to 1e-9)."""
    rows = [
        {k: pytest.approx(v, rel=1e-9) if approx and isinstance(v, float) else v for k, v in row.items()}
        for row in standings["standings"]
    ]
    return {key: value for key, value in standings.items() if key != "as_of"} | {"standings": rows}


def _replay(client: httpx.Client, key: str) -> tuple[int, str]:
    answer = client.get(f"/matches/{key}/replay")
    return answer.status_code, answer.text


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("keep_deals = -1", "must be at least 0"),
        ("prune_every_s = 0", "must be more than 0 seconds"),
        ('log_budget_bytes = "big"', "log_budget_bytes"),
        ("pins_per_participant = -3", "must be at least 0"),
    ],
)
def test_the_retention_keys_are_checked(tmp_path: Path, line: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        load(retention_config(tmp_path, line))


def test_the_retention_keys_have_defaults(tmp_path: Path) -> None:
    policy = load(retention_config(tmp_path, "keep_deals = 3")).retention
    assert (policy.keep_deals, policy.log_budget_bytes, policy.pins_per_participant, policy.prune_every_s) == (
        3,
        10 << 30,
        50,
        600.0,
    )


@pytest.mark.slow
def test_the_organiser_pins_a_deal_with_the_match_pages_button_in_a_browser(tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    config = write_config(tmp_path)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(["serve", str(config), "--admin-token"]) == 0
    link_path = printed.getvalue().split("/login/")[1].split()[0]
    with server_process(config) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        deadline = time.monotonic() + 120
        while not (listed := client.get("/api/matches").json()["matches"]) and time.monotonic() < deadline:
            time.sleep(0.3)
        key = listed[-1]["key"]
        with sync_api.sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            try:
                page = browser.new_page(viewport={"width": 1000, "height": 800})
                page.goto(f"{server.url}/login/{link_path}")
                with page.expect_navigation():
                    page.click("#login")
                page.goto(f"{server.url}/matches/{key}", wait_until="load")
                # (By the keyboard: the replay's frame above may still be laying itself out, moving the button
                # from under a pointer's click.)
                page.focus("text=Pin this deal's logs")
                page.keyboard.press("Enter")
                # (Not expect_navigation: the replay's frame may set the page's #step as the form goes, and that
                # same-page navigation would be taken for the form's.)
                page.wait_for_selector("text=Unpin this deal's logs")
                shown = page.inner_text("main")
                assert "Unpin this deal's logs" in shown and "pinned by 1" in shown, (page.url, shown)
            finally:
                browser.close()
        assert client.get(f"/api/matches/{key}").json()["log"]["pins"] == 1
