"""Pages that read the history by index: a bot's matches and /api/matches in pages, newest first (keyset)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .servertools import running, write_config


@pytest.mark.slow
async def test_a_bots_matches_come_in_pages_newest_first_each_older_than_the_last(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), jobs=2) as kit:
        await kit.wait_matches(9)
        kit.competition.set_paused(True)
        bot = "random-python"
        owner = kit.competition.state.participant_named(bot)
        assert owner is not None
        mine = {v.id for v in kit.competition.versions(owner.id)}
        want = [m.key for m in reversed(kit.matches) if mine & set(m.versions)]
        got: list[str] = []
        before = ""
        while True:
            page = (await kit.client.get(f"/api/matches?bot={bot}&limit=2{before}")).json()
            got += [m["key"] for m in page["matches"]]
            assert len(page["matches"]) <= 2
            if page["before"] is None:
                break
            before = f"&before={page['before']}"
        assert got == want[: len(got)] and len(got) >= len(want)  # (the ladder may add newer ones meanwhile)
        everyone = (await kit.client.get("/api/matches?limit=1000")).json()
        assert everyone["before"] is None and len(everyone["matches"]) == kit.competition.played
        assert (await kit.client.get("/api/matches?before=x")).status_code == 400

        # The bot page shows its newest matches, and a link to the older ones once there are more than a page.
        from arena.server import bots

        bots.BOT_PAGE_MATCHES, old = 2, bots.BOT_PAGE_MATCHES
        try:
            page = await kit.client.get(f"/bots/{bot}")
            link = re.search(r'href="(/bots/random-python\?before=(\d+))(#matches)?"', page.text)
            assert link and want[0] in page.text and want[2] not in page.text.split("Latest matches")[1]
            older = await kit.client.get(link.group(1))
            assert (
                want[2] in older.text.split("Latest matches")[1]
                and want[0] not in older.text.split("Latest matches")[1]
            )
        finally:
            bots.BOT_PAGE_MATCHES = old

        # Its JSON twin pages the same way: the latest matches, and the cursor of the older ones.
        from arena.server import api

        api.BOT_PAGE_MATCHES, old = 2, api.BOT_PAGE_MATCHES
        try:
            got, before = [], ""
            while True:
                page = (await kit.client.get(f"/api/bots/{bot}{before}")).json()
                got += [m["key"] for m in page["matches"]]
                assert len(page["matches"]) <= 2 and page["name"] == bot
                if page["before"] is None:
                    break
                before = f"?before={page['before']}"
            assert got == want[: len(got)] and len(got) >= len(want)
            assert (await kit.client.get(f"/api/bots/{bot}?before=x")).status_code == 400
        finally:
            api.BOT_PAGE_MATCHES = old
