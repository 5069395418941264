"""The replay page of every game in a real headless browser (Debian's chromium driven by Playwright).

CI installs ``chromium`` (apt) and ``playwright`` (PyPI, no browser download):
the tests skip, saying why, only where either is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from arena.cli import main
from arena.games import get_game
from arena.supervisor.matchlog import read_log, strip_times
from arena.supervisor.play import play_match
from protocol import Limits

from .browsertools import BIG_SEED, GAMES, faces, open_page, play


def first_request(log: Path, seat: str) -> dict[str, Any]:
    return next(r["msg"] for r in read_log(log) if r["type"] == "send" and r["seat"] == seat and "id" in r["msg"])


def told_in_first_step(log: Path, seat: str) -> set[str]:
    """Every string and number sent to ``seat`` before its second request."""
    told: set[str] = set()
    requests = 0
    for record in read_log(log):
        if record["type"] != "send" or record["seat"] != seat:
            continue
        requests += "id" in record["msg"]
        if requests == 2:
            break
        for value in record["msg"].values():
            for item in value if isinstance(value, list) else [value]:
                told.add(str(item))
    return told


def own_cards(msg: dict[str, Any]) -> list[str]:
    cards = msg.get("cards", msg.get("hand", []))
    return [str(c) for c in cards]


def hash_of(page: Any) -> str:
    """The page's address fragment as the page itself has it (``page.url`` learns of a ``replaceState`` late)."""
    return str(page.evaluate("location.hash"))


@pytest.mark.parametrize("game_id", list(GAMES))
def test_each_games_table_steps_switches_seat_view_and_follows_step_links(
    game_id: str, browser: Any, tmp_path: Path
) -> None:
    log = play(game_id, tmp_path)
    out = tmp_path / "match.html"
    assert main(["replay", str(log), "--html", str(out)]) == 0
    assert out.stat().st_size < 1_000_000
    page = open_page(browser, out)
    steps = int(page.text_content("#counter").split("/")[1])
    # It opens at the first step with something to tell (step 1, the start, is an empty table in most games).
    assert "Nothing to tell" not in page.text_content("#story")
    page.keyboard.press("Home")
    assert page.text_content("#counter") == f"step 1 / {steps}"
    page.keyboard.press("ArrowRight")
    assert page.text_content("#counter") == f"step 2 / {steps}"
    assert hash_of(page) == "#step=2"
    # Step 2 is the first request: each seat's cards, as the log sent them, are on the table.
    first = {seat: first_request(log, seat) for seat in "AB"}
    for seat in "AB":
        shown = faces(page, f"#seat-{seat} .zone:first-child .card")
        if game_id == "gops":
            shown = [face[1:] for face in shown]
        assert shown == own_cards(first[seat]), (seat, shown, first[seat])
    assert page.text_content("#outcome") or game_id == "badugi", "a simultaneous step says what it decided"
    # As A saw it: B's hidden cards are face down, and not in the document at all.
    page.click("#views button[data-view='A']")
    assert hash_of(page) == "#step=2&view=A"
    seat_b = faces(page, "#seat-B .zone:first-child .card")
    hidden = set(own_cards(first["B"])) - told_in_first_step(log, "A")
    if GAMES[game_id][2]:
        assert seat_b and set(seat_b) == {"?"}
        assert not hidden & set(faces(page, "#seat-B [data-card]"))
        if game_id in ("rps-poker", "badugi"):  # (cards are unique in these decks)
            assert not hidden & set(faces(page, "[data-card]"))
    elif game_id == "gops":
        assert seat_b == [f"h{c}" for c in own_cards(first["B"])], "GOPS hands are public"
    else:
        assert seat_b == own_cards(first["B"]), "shown down at the end of the step"
    assert faces(page, "#seat-A .zone:first-child .card")[: len(own_cards(first["A"]))] != []
    page.keyboard.press("e")
    assert hash_of(page) == "#step=2"
    # The last step shows the result; the score matches the log's.
    page.keyboard.press("End")
    points = next(r for r in read_log(log) if r["type"] == "result")["points"]
    assert page.text_content("#counter") == f"step {steps} / {steps}"
    assert "Result:" in page.text_content("#story")
    assert "".join(f"{p:g}" for p in points[:1]) in page.text_content("#result")
    # A #step= link opens the page at that step.
    target = min(4, steps)
    linked = open_page(browser, out, f"#step={target}")
    assert linked.text_content("#counter") == f"step {target} / {steps}"
    linked.keyboard.press("ArrowLeft")
    assert linked.text_content("#counter") == f"step {target - 1} / {steps}"
    # The score chart (every game; Card-Jitsu's counts cards won) jumps: a click at its right end opens the step
    # that decided the last turn or hand (the result follows it).
    box = linked.locator("#track").bounding_box()
    linked.mouse.click(box["x"] + box["width"] - 8, box["y"] + box["height"] / 2)
    assert linked.text_content("#counter") == f"step {steps - 1} / {steps}"
    for p in (page, linked):
        assert not p.errors
        assert all(url.startswith("file://") for url in p.requested), p.requested
        p.close()


def test_a_seat_page_holds_nothing_the_seat_was_not_told(browser: Any, tmp_path: Path) -> None:
    log = play("badugi", tmp_path)
    out = tmp_path / "seat-a.html"
    assert main(["replay", str(log), "--seat", "A", "--html", str(out)]) == 0
    page = open_page(browser, out, "#step=2")
    assert [b.text_content() for b in page.query_selector_all("#views button")] == ["As A saw it"]
    assert set(faces(page, "#seat-B .zone:first-child .card")) == {"?"}
    # B's first hand never reaches A unless it was shown down: no step of A's page draws it.
    records = read_log(log)
    shown = {
        c
        for r in records
        if r["type"] == "send" and r["seat"] == "A" and r["msg"]["type"] == "badugi_showdown"
        for c in r["msg"]["opponent_cards"]
    }
    hidden = set(own_cards(first_request(log, "B"))) - shown
    steps = int(page.text_content("#counter").split("/")[1])
    for _ in range(steps):
        assert not hidden & set(faces(page, "[data-card]"))
        page.keyboard.press("ArrowRight")
    assert not page.errors
    page.close()


def test_the_pages_seed_replays_the_same_match(browser: Any, tmp_path: Path) -> None:
    log = play("rps-poker", tmp_path / "first")
    out = tmp_path / "match.html"
    assert main(["replay", str(log), "--html", str(out)]) == 0
    page = open_page(browser, out)
    seed = page.text_content("#seed")
    in_meta = page.get_attribute("meta[name='arena-seed']", "content")
    page.close()
    assert seed == in_meta == str(BIG_SEED)
    again = play("rps-poker", tmp_path / "again", seed=int(seed))

    def messages(path: Path) -> list[dict[str, Any]]:
        return [r for r in strip_times(read_log(path)) if r["type"] in ("send", "recv", "result")]

    assert messages(again) == messages(log)


def test_stderr_lines_and_faults_show_at_their_step(browser: Any, tmp_path: Path) -> None:
    faulty = Path(__file__).with_name("faulty") / "bot.py"
    import sys

    from arena.bots.spec import BotSpec

    chatty = BotSpec(name="chatty", command=(sys.executable, str(faulty), "chatty"), cwd=faulty.parent)
    bad = BotSpec(name="bad-index", command=(sys.executable, str(faulty), "bad_index"), cwd=faulty.parent)
    record = trio.run(
        lambda: play_match(get_game("rps-poker"), (chatty, bad), seed=3, limits=Limits(), log_dir=tmp_path)
    )
    out = tmp_path / "match.html"
    assert main(["replay", str(record.log_path), "--html", str(out)]) == 0
    page = open_page(browser, out)
    steps = int(page.text_content("#counter").split("/")[1])
    turn1 = next(i for i in range(1, steps + 1) if open_step(page, i) and "turn 1" in page.text_content("#step-title"))
    assert "A> turn 1: playing index 0" in page.text_content("#stderr")
    assert "illegal_move" in page.text_content("#seat-B .fault")
    assert "faulted" in (page.get_attribute("#seat-B", "class") or "")
    open_step(page, turn1 - 1)
    assert page.is_hidden("#stderr-box")
    page.click("#views button[data-view='B']")
    open_step(page, turn1)
    assert page.is_hidden("#stderr-box"), "B's view shows only B's stderr"
    assert not page.errors
    page.close()


def open_step(page: Any, n: int) -> bool:
    page.evaluate(f"location.hash = '#step={n}'")
    page.wait_for_function(f"document.getElementById('counter').textContent.startsWith('step {n} ')")
    return True


def test_the_page_needs_no_network(tmp_path: Path) -> None:
    log = play("gops", tmp_path)
    out = tmp_path / "match.html"
    assert main(["replay", str(log), "--html", str(out)]) == 0
    text = out.read_text()
    assert "http://" not in text.replace("http://www.w3.org/", "") and "https://" not in text
    assert "<link" not in text and "src=" not in text
