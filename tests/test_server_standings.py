"""The server's standings part: when its board is reused and when it is drawn anew, and what it shows."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.competition.records import Record
from arena.competition.store import PlayedMatch, Store
from arena.server.config import load
from arena.server.service import Competition
from arena.server.standings import BOARD_EVERY_S

from .servertools import write_config


@pytest.fixture
def competition(tmp_path: Path) -> Iterator[Competition]:
    house = ("minimal-python", "random-python", "simple-py")
    opened = Competition(load(write_config(tmp_path, house=house)))
    try:
        opened.add_house_bots()
        for version in opened.versions():
            opened.store.set_admission(version.id, "admitted")
        opened.field_changed()
        yield opened
    finally:
        opened.close()


def play(competition: Competition, number: int, winner: str | None) -> None:
    a, b = sorted(competition.field().values(), key=lambda p: p.entrant.name)[:2]
    match = PlayedMatch(
        key=f"m{number}", cycle=0, deal=f"d{number}", leg=0, bot_a=a.entrant.name, bot_b=b.entrant.name, seed=number,
        points=(1.0, 0.0) if winner == "A" else (0.0, 1.0) if winner == "B" else (0.5, 0.5), winner=winner,
        versions=(a.entrant.version_id, b.entrant.version_id),
    )  # fmt: skip
    competition.store.record_match(competition.tid, match)
    competition.played += 1


def test_a_result_reuses_the_board_until_a_new_table_is_drawn(competition: Competition) -> None:
    first = competition.board()
    stamp = competition.stamp
    play(competition, 1, "A")
    competition.results_changed()
    assert competition.stamp == stamp + 1  # the live pages are told
    if time.monotonic() - competition.standings._board_at < BOARD_EVERY_S:  # (a slow machine may be past it)
        assert competition.board() is first  # a result alone: the board of a moment ago
    competition.standings.snapshot = None  # as the standings' task does when it has drawn a new table
    competition.standings.forget_board()
    drawn = competition.board()
    assert drawn is not first and drawn.matches == competition.played == 1
    assert sum(row.standing.matches for row in drawn.rows) == 2


def test_a_change_of_the_field_draws_the_field_and_the_board_anew(competition: Competition) -> None:
    before, field = competition.board(), competition.field()
    assert len(field) == 3 and len(before.rows) == 3
    competition.set_paused(True)  # (a switch: field_changed)
    assert competition.field() == {} and competition.board() is not before and competition.board().paused
    competition.set_paused(False)
    assert competition.field().keys() == field.keys()


def test_ratings_are_the_board_s_and_the_record_counts_matches_and_pairs(competition: Competition) -> None:
    for number, winner in enumerate(["A", "B", None, "A"]):
        play(competition, number, winner)
    competition.standings.snapshot = None
    competition.field_changed()
    rows = {row.version.label: row.standing for row in competition.board().rows}
    ratings = competition.ratings()
    assert ratings.keys() == rows.keys()
    assert all(ratings[label].elo == rows[label].rating for label in rows)
    record = Record()
    record.add_pair(1.0, 0.5)
    record.add_pair(0.5, 0.5)
    record.add_match("L")
    record.unpaired += 1
    assert (record.matches, record.wins, record.draws, record.losses, record.wd, record.dd) == (5, 1, 3, 1, 1, 1)
    assert record.pairs == 2 and record.pentanomial() == (0, 0, 1, 1, 0) and not record.paired


def test_the_ladders_book_at_start_is_read_from_the_totals_not_the_matches(
    competition: Competition, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge once brought back the server's read of every match's key for its ladder's book (1.7 s at 100,000
    matches, on the start's path): the book comes from the field's totals, and the last few matches by LIMIT."""
    for number in range(3):
        play(competition, number, "A")

    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the ladder's start read every match")

    for method in ("match_keys", "finished_keys", "matches"):
        monkeypatch.setattr(Store, method, refused)
    book = competition.host._book()
    assert book.stored_tables is not None and sum(book.met.values()) == 3  # (from the pairs' totals)


def test_the_first_table_starts_its_fit_from_the_last_snapshot_and_fits_the_same(
    competition: Competition, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number, winner in enumerate(["A", "B", None, "A", "A", "B", "A", "A", "B", "A", "A", None]):
        play(competition, number, winner)
    standings = competition.standings
    playing = [v for v in competition.versions() if v.playing]
    cold = standings._tabulate(playing, competition.played, time.time(), None)
    standings._keep_ratings(cold)  # (a snapshot, as the server keeps one every few matches)
    assert len(competition.state.latest_ratings([v.id for v in playing])) == 3
    standings._strengths = None
    started: list[dict[str, float] | None] = []
    drawn = standings._tabulate_apart

    def noted(*args: Any) -> Any:
        started.append(standings._strengths)
        return drawn(*args)

    monkeypatch.setattr(standings, "_tabulate_apart", noted)
    trio.run(standings.draw_first)
    assert started and started[0] is not None and len(started[0]) == 3  # (from the snapshot)
    warm = standings.snapshot
    assert warm is not None
    cold_ratings = {row.bot: row.rating for row in cold.board.standings}
    warm_ratings = {row.bot: row.rating for row in warm.board.standings}
    assert cold_ratings.keys() == warm_ratings.keys()
    assert all(abs(warm_ratings[bot] - rating) < 1e-9 for bot, rating in cold_ratings.items())


def test_a_stop_saves_the_standings_and_the_next_start_draws_from_them_what_a_full_read_draws(tmp_path: Path) -> None:
    """At a million matches the first drawing's read of every pair's and deal's row was most of the start: a clean
    stop saves the arrays, the next start reads them and what changed since (here: matches recorded while it was
    stopped), and draws the board a full read draws."""
    config = write_config(tmp_path, house=("minimal-python", "random-python", "simple-py"))

    def started() -> Competition:
        opened = Competition(load(config))
        opened.add_house_bots()
        for version in opened.versions():
            opened.store.set_admission(version.id, "admitted")
        opened.field_changed()
        return opened

    first = started()
    for number, winner in enumerate(["A", "B", None, "A", "A"]):
        play(first, number, winner)
    trio.run(first.standings.draw_first)
    first.close()  # (saves)
    second = started()
    second.played = 5
    for number, winner in enumerate(["B", "B", None], start=5):  # recorded while it was stopped
        play(second, number, winner)
    trio.run(second.standings.draw_first)  # (in the drawing process, which says whether it read every pair's row)
    restored = second.standings.snapshot
    second.close()
    third = started()
    try:
        third.store.db.connection.execute("DELETE FROM standings_saved")  # (a start with nothing saved)
        third.played = 8
        trio.run(third.standings.draw_first)
        cold = third.standings.snapshot
    finally:
        third.close()
    assert restored is not None and cold is not None
    assert not restored.read_every_pair and cold.read_every_pair
    assert [(r.bot, r.matches, r.wins, r.draws) for r in restored.board.standings] == [
        (r.bot, r.matches, r.wins, r.draws) for r in cold.board.standings
    ]
    assert sum(r.matches for r in cold.board.standings) == 16
    assert all(
        abs(a.rating - b.rating) < 1e-9 for a, b in zip(restored.board.standings, cold.board.standings, strict=True)
    )


def test_a_board_is_as_of_the_first_result_it_does_not_hold(competition: Competition) -> None:
    """``as_of``: the board holds every result recorded before it. A table drawn long ago with no result since is
    current now; once results come, it is as of the first of them (a table drawn at the start of a server that
    took seconds to draw is not seconds behind results that came later)."""
    standings = competition.standings
    playing = [v for v in competition.versions() if v.playing]
    standings.snapshot = standings._tabulate(playing, competition.played, time.time() - 100, None)
    standings.forget_board()
    assert competition.board().as_of > time.time() - 5  # nothing recorded since it was taken
    play(competition, 1, "A")
    standings.recorded(competition.played)
    first = time.time()
    play(competition, 2, "B")
    standings.recorded(competition.played)
    standings.forget_board()
    as_of = competition.board().as_of
    assert first - 5 < as_of <= first  # as of the first result it lacks, not of the second, nor of now
    standings._recorded_at.clear()  # (not known: as of when it was taken)
    standings.forget_board()
    assert competition.board().as_of < time.time() - 90


def test_the_standings_arrays_are_saved_while_they_are_drawn_not_only_at_a_stop(
    competition: Competition, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash leaves no clean stop: the arrays saved every ``SAVE_EVERY_S`` are where its next start begins."""
    from arena.server import standings as standings_module

    monkeypatch.setattr(standings_module, "SAVE_EVERY_S", 0.0)
    play(competition, 1, "A")
    saved = competition.store.repos.saved

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(competition.standings.keep_drawn)
            with trio.fail_after(60):
                while saved.get(competition.tid) is None:
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()

    assert saved.get(competition.tid) is None
    trio.run(main)
    found = saved.get(competition.tid)
    assert found is not None and found.pairs_touched >= 1
