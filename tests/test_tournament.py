from __future__ import annotations

import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import trio

from arena import Crash
from arena.bots.spec import BotSpec, resolve
from arena.cli import main
from arena.competition.board import disqualification
from arena.competition.config import BotEntry, TournamentConfig
from arena.competition.plan import Plan, open_competition, prepare
from arena.competition.render import render
from arena.competition.results import board_from_store
from arena.competition.runner import Summary, run_tournament
from arena.competition.schedule import Entrant, deal_seed, make_schedule, pairing_number, pairs
from arena.competition.standings import leaderboard
from arena.competition.store import PlayedMatch, Store
from arena.games import derive_seed, get_game
from arena.supervisor._pool import BotPool, open_pool
from arena.supervisor._process import BotProcess
from arena.supervisor.matchlog import read_log
from protocol import Limits

from .conftest import SAMPLE_BOTS

RPS = SAMPLE_BOTS / "rps-poker"
FAULTY = Path(__file__).with_name("faulty") / "bot.py"
FAST = Limits(startup_s=10.0, move_s=1.0, time_bank_s=2.0, move_wall_s=5.0)


# The schedule -------------------------------------------------------------------
def test_a_round_robin_meets_every_pair_once_per_cycle_in_fair_rounds() -> None:
    names = ["a", "b", "c", "d", "e"]
    found = pairs(names, "round-robin")
    assert sorted(found) == [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
    # circle method: in the first two rounds (4 pairs) nobody plays twice in a round
    first_round = found[:2]
    assert len({bot for pair in first_round for bot in pair}) == 4


def test_a_gauntlet_meets_the_challenger_with_each_other_bot() -> None:
    assert pairs(["a", "b", "c"], "gauntlet", "b") == [("b", "a"), ("b", "c")]
    assert pairs(["a", "b", "c"], "gauntlet") == [("a", "b"), ("a", "c")]


def test_duplicate_legs_share_the_deal_seed_with_the_seats_swapped() -> None:
    schedule = make_schedule(["x", "y", "z"], seed=99, cycles=2, duplicate=True)
    assert len(schedule) == 3 * 2 * 2
    assert len({m.key for m in schedule}) == len(schedule)
    by_deal: dict[str, list[Any]] = {}
    for match in schedule:
        by_deal.setdefault(match.deal, []).append(match)
    assert len(by_deal) == 6
    for legs in by_deal.values():
        first, second = sorted(legs, key=lambda m: m.leg)
        assert (first.leg, second.leg) == (0, 1)
        assert first.seed == second.seed
        assert (first.bot_a, first.bot_b) == (second.bot_b, second.bot_a)
        slots = sorted(["x", "y", "z"].index(name) for name in (first.bot_a, first.bot_b))
        assert first.seed == derive_seed(99, "deal", first.cycle, pairing_number(*slots))
    assert len({legs[0].seed for legs in by_deal.values()}) == 6


def test_without_duplicates_each_deal_is_played_once_and_seats_alternate_by_cycle() -> None:
    schedule = make_schedule(["x", "y"], seed=1, cycles=2, duplicate=False)
    assert [(m.bot_a, m.bot_b) for m in schedule] == [("x", "y"), ("y", "x")]
    assert schedule[0].seed != schedule[1].seed


def test_deals_come_from_the_place_in_the_schedule_not_from_the_bots_names() -> None:
    # The challenge's bots and their ports, in the same order, meet on the same deals.
    originals = make_schedule(["BasicOdds", "TSH", "Simple"], seed=4, cycles=2, duplicate=True)
    ports = make_schedule(["basic-odds-py", "tsh-py", "simple-py"], seed=4, cycles=2, duplicate=True)
    assert [(m.cycle, m.pairing, m.leg, m.seed) for m in originals] == [
        (m.cycle, m.pairing, m.leg, m.seed) for m in ports
    ]
    assert [m.match_id for m in originals] != [m.match_id for m in ports]


def test_a_bot_joining_later_keeps_everyone_else_s_deals() -> None:
    three = make_schedule(["x", "y", "z"], seed=8, cycles=2, duplicate=True)
    four = make_schedule(["x", "y", "z", "w"], seed=8, cycles=2, duplicate=True)
    by_key = {m.key: m.seed for m in four}
    assert all(by_key[m.key] == m.seed for m in three)
    # its slot (3) gives its pairings new numbers: 3, 4 and 5
    assert {m.pairing for m in four if "w" in (m.bot_a, m.bot_b)} == {3, 4, 5}
    assert pairing_number(0, 3) == 3 and pairing_number(2, 3) == 5 and pairing_number(1, 2) == 2


def test_a_new_version_of_a_bot_replays_its_pairings_on_the_same_deals() -> None:
    first = make_schedule([Entrant("x", 0), Entrant("y", 1)], seed=3, cycles=2, duplicate=True)
    second = make_schedule([Entrant("x", 0, version=2), Entrant("y", 1)], seed=3, cycles=2, duplicate=True)
    assert [m.seed for m in first] == [m.seed for m in second]
    assert [m.key for m in second][:2] == ["c1-x.v2-vs-y-a", "c1-x.v2-vs-y-b"]


def test_a_persistent_bot_never_meets_a_deal_twice() -> None:
    field = [Entrant("keeps", 0, persistent=True), Entrant("y", 1), Entrant("z", 2)]
    schedule = make_schedule(field, seed=5, cycles=3, duplicate=True)
    with_it = [m for m in schedule if "keeps" in (m.bot_a, m.bot_b)]
    assert len(with_it) == 3 * 2 * 2
    assert len({m.seed for m in with_it}) == len(with_it)  # each leg its own deal
    assert all(not m.shares_deal and m.persistent == ("keeps",) for m in with_it)
    others = [m for m in schedule if "keeps" not in (m.bot_a, m.bot_b)]
    assert all(m.shares_deal for m in others) and len({m.seed for m in others}) == 3


def test_a_deals_list_deals_number_c_to_every_pairing_of_cycle_c() -> None:
    schedule = make_schedule(["x", "y", "z"], seed=5, cycles=3, duplicate=True, deals=[11, 22])
    assert {m.cycle: m.seed for m in schedule} == {1: 11, 2: 22, 3: 11}
    assert deal_seed(5, 2, 0, deals=[11, 22]) == 22


def test_match_ids_tell_a_bot_neither_its_leg_nor_its_opponent() -> None:
    schedule = make_schedule(["alpha", "beta"], seed=5, cycles=1, duplicate=True)
    ids = [m.match_id for m in schedule]
    assert len(set(ids)) == 2
    for match_id in ids:
        assert "alpha" not in match_id and "beta" not in match_id
        assert not match_id.endswith(("-a", "-b")) and len(match_id) == 16


# Real tournaments ---------------------------------------------------------------------
def config_for(tmp_path: Path, bots: list[str], **changes: Any) -> TournamentConfig:
    config = TournamentConfig(
        game="rps-poker",
        bots=[BotEntry(text=str(RPS / b)) for b in bots],
        seed=12345,
        limits=FAST,
        db=tmp_path / "results.sqlite",
        log_dir=tmp_path / "logs",
    )
    for key, value in changes.items():
        setattr(config, key, value)
    return config


def play(plan: Plan, *, jobs: int, reuse: bool = True) -> tuple[Summary, list[PlayedMatch]]:
    with Store.open(plan.config.db) as store:
        competition = open_competition(plan, store)
        summary = trio.run(lambda: run_tournament(plan, store, competition, jobs=jobs, reuse=reuse))
        return summary, store.matches(competition.id)


def table(matches: list[PlayedMatch]) -> list[tuple[Any, ...]]:
    return sorted((m.key, m.bot_a, m.bot_b, m.seed, m.points, m.winner, m.forfeit) for m in matches)


@pytest.mark.slow
def test_the_same_seed_gives_the_same_results_at_jobs_1_and_jobs_4(tmp_path: Path) -> None:
    # Bots that reset their state at match_start, as the protocol asks: then which process of a
    # reused bot plays which match cannot matter. (tsh-py and basic-odds-py keep state across matches, like the
    # originals they port, so they are reproducible across --jobs only with --no-reuse.)
    bots = ["random-python", "simple-py", "minimal-valid-py"]
    one = prepare(config_for(tmp_path / "one", bots))
    four = prepare(config_for(tmp_path / "four", bots))
    s1, m1 = play(one, jobs=1)
    s4, m4 = play(four, jobs=4)
    assert s1.played == s4.played == 6
    assert [f for m in m1 + m4 for f in m.faults] == []
    assert table(m1) == table(m4)
    names = one.names
    b1 = render(leaderboard(names, m1, max_faults=10), "json")
    b4 = render(leaderboard(names, sorted(m4, key=lambda m: m.key), max_faults=10), "json")
    assert b1 == b4


@pytest.mark.slow
def test_without_reuse_even_bots_that_keep_state_across_matches_give_the_same_results(tmp_path: Path) -> None:
    bots = ["tsh-py", "basic-odds-py", "random-python"]
    _, m1 = play(prepare(config_for(tmp_path / "one", bots)), jobs=1, reuse=False)
    _, m4 = play(prepare(config_for(tmp_path / "four", bots)), jobs=4, reuse=False)
    assert len(m1) == 6
    assert table(m1) == table(m4)


def test_duplicate_legs_deal_the_same_cards_with_the_seats_swapped(tmp_path: Path) -> None:
    plan = prepare(config_for(tmp_path, ["random-python", "simple-py"]))
    _, matches = play(plan, jobs=2)
    first, second = sorted(matches, key=lambda m: m.leg)
    assert first.deal == second.deal and first.seed == second.seed
    logs = [read_log(Path(m.log_path or "")) for m in (first, second)]
    headers = [log[0] for log in logs]
    assert [b["name"] for b in headers[0]["bots"]] == [b["name"] for b in reversed(headers[1]["bots"])]
    assert headers[0]["seed"] == headers[1]["seed"] == first.seed
    assert (headers[0]["deal"], headers[1]["leg"]) == (first.deal, 1)

    def offers(log: list[dict[str, Any]]) -> list[tuple[str, Any]]:
        # what each seat was offered in draft round 1 (before any choice shapes the deal)
        return [
            (r["seat"], r["msg"]["cards"])
            for r in log
            if r["type"] == "send" and r["msg"]["type"] == "draft_pick" and r["msg"]["round"] == 1
        ]

    assert offers(logs[0]) == offers(logs[1])
    assert len(offers(logs[0])) == 2


@pytest.mark.slow
def test_reusable_bots_keep_their_processes_and_no_reuse_starts_two_per_match(tmp_path: Path) -> None:
    bots = ["random-python", "minimal-python", "simple-py"]
    reused, _ = play(prepare(config_for(tmp_path / "a", bots, cycles=2)), jobs=1)
    assert reused.played == 12
    # two processes per bot at jobs 1: the legs of a duplicate deal never share a process
    assert reused.pool.started == 6
    assert reused.pool.reused == 2 * 12 - 6
    fresh, _ = play(prepare(config_for(tmp_path / "b", bots)), jobs=2, reuse=False)
    assert fresh.pool.started == 2 * fresh.played == 12
    assert fresh.pool.reused == 0
    # most started while the match before played, and none of those was left unplayed
    assert fresh.pool.prepared >= 4


async def test_a_process_started_ahead_is_the_one_its_match_gets() -> None:
    spec = resolve(str(RPS / "minimal-python"))
    fresh = dataclasses.replace(spec, reuse=False)
    async with open_pool() as pool:
        pool.prepare(fresh, FAST)
        pool.prepare(fresh, FAST)  # one waits per bot
        with trio.fail_after(30):
            while not pool.stats.prepared:
                await trio.sleep(0.01)
        asked = trio.current_time()
        bot = await pool.acquire(fresh, FAST, deal=1)
        assert pool.stats.started == pool.stats.prepared == 1
        assert bot.stats.started_at < asked and bot.stats.requests == 0
        pool.release(bot, faulted=False)
        pool.prepare(spec, FAST)  # a reusable bot keeps its processes: nothing started ahead
        pool.prepare(fresh, FAST)  # left unused: stopped with the pool
    assert pool.stats.started == pool.stats.prepared == 2


async def test_processes_started_ahead_for_the_matches_to_come_are_counted_per_seat() -> None:
    fresh = dataclasses.replace(resolve(str(RPS / "minimal-python")), reuse=False)
    other = dataclasses.replace(resolve(str(RPS / "random-python")), reuse=False)
    async with open_pool() as pool:
        pool.prepare_for([fresh, other, fresh, other], FAST)  # two matches ahead: two of each
        pool.prepare_for([fresh, other], FAST)  # the next match's seats: already started ahead
        with trio.fail_after(30):
            while pool.stats.prepared < 4:
                await trio.sleep(0.01)
        taken = [await pool.acquire(spec, FAST, deal=1) for spec in (fresh, other, fresh, other)]
        assert pool.stats.started == pool.stats.prepared == 4  # every match took one started ahead
        assert len({id(bot) for bot in taken}) == 4
        for bot in taken:
            pool.release(bot, faulted=False)


async def test_a_dropped_bot_s_processes_started_ahead_stop() -> None:
    # A retired or disqualified version's matches waiting their turn are withdrawn (BotPool.drop): the processes
    # started ahead for them must not live on, idle, for as long as the server runs.
    fresh = dataclasses.replace(resolve(str(RPS / "minimal-python")), reuse=False)
    other = dataclasses.replace(resolve(str(RPS / "random-python")), reuse=False)

    def alive(pool: BotPool, name: str) -> list[BotProcess]:
        return [held.bot for held in pool._held.values() if held.bot.spec.name == name]

    with trio.fail_after(60):  # (the pool's end waits for every process it holds: none may be forgotten)
        async with open_pool() as pool:
            pool.prepare_for([fresh, other, fresh, other], FAST)
            while pool.stats.prepared < 4:
                await trio.sleep(0.01)
            pool.drop(fresh.name)
            pool.prepare(fresh, FAST)  # one still starting when its bot is dropped: it stops once started
            pool.drop(fresh.name)
            while pool.stats.prepared < 5 or alive(pool, fresh.name):
                await trio.sleep(0.05)
            assert len(alive(pool, other.name)) == 2  # another bot's are kept
            bot = await pool.acquire(fresh, FAST, deal=1)  # a bot dropped and back starts afresh
            assert pool.stats.started == 6
            pool.release(bot, faulted=False)
            pool.prepare(fresh, FAST)
            pool.drop(fresh.name)  # and one dropped as the pool ends, still starting


@pytest.mark.slow
def test_a_fresh_run_starts_the_processes_of_the_next_two_matches_ahead(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[list[str]] = []
    real = BotPool.prepare_for

    def prepare_for(self: BotPool, seats: Any, limits: Limits) -> None:
        seats = list(seats)
        asked.append([spec.name for spec in seats])
        real(self, seats, limits)

    monkeypatch.setattr(BotPool, "prepare_for", prepare_for)
    plan = prepare(config_for(tmp_path, ["random-python", "minimal-python", "simple-py"]))
    summary, _ = play(plan, jobs=1, reuse=False)
    assert summary.played == 6
    ahead = [names for names in asked if len(names) == 4]  # the seats of two matches: asked once a match is seated
    assert len(ahead) >= 3
    assert summary.pool.started == 12 and summary.pool.prepared >= 10


async def test_matches_taking_a_bot_at_once_never_share_the_process_started_ahead() -> None:
    fresh = dataclasses.replace(resolve(str(RPS / "minimal-python")), reuse=False)
    taken = []
    async with open_pool() as pool:
        pool.prepare(fresh, FAST)

        async def take() -> None:
            taken.append(await pool.acquire(fresh, FAST, deal=1))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(take)
            nursery.start_soon(take)
        assert len({id(bot) for bot in taken}) == 2
        assert pool.stats.started == 2 and pool.stats.prepared == 1
        for bot in taken:
            pool.release(bot, faulted=False)


async def test_a_process_started_ahead_that_cannot_start_is_the_taking_match_s_fault(tmp_path: Path) -> None:
    ghost = BotSpec(name="ghost", command=("/nonexistent/ghost-bot",), cwd=tmp_path, digest="g")
    async with open_pool() as pool:
        pool.prepare(ghost, FAST)
        with pytest.raises(Crash, match="could not start"):
            await pool.acquire(ghost, FAST, deal=1)
        assert pool.stats.started == 0


@pytest.mark.slow
def test_the_two_legs_of_a_deal_are_never_played_by_one_process(tmp_path: Path) -> None:
    # A reused process that remembered leg a would know its opponent's hand in leg b (the same cards, seats swapped).
    bots = ["random-python", "minimal-python", "simple-py"]
    _, matches = play(prepare(config_for(tmp_path, bots, cycles=2)), jobs=1)
    process: dict[tuple[str, str], str] = {}  # (match key, bot) -> the stderr file of the process that played it
    for match in matches:
        header = read_log(Path(match.log_path or ""))[0]
        for bot in header["bots"]:
            process[match.key, bot["name"]] = bot["stderr_log"]
    deals: dict[str, list[PlayedMatch]] = {}
    for match in matches:
        deals.setdefault(match.deal, []).append(match)
    assert len(deals) == 6
    for first, second in deals.values():
        for bot in (first.bot_a, first.bot_b):
            assert process[first.key, bot] != process[second.key, bot], (first.key, bot)
    assert len(set(process.values())) == 6  # and yet each process played several matches


def faulty_plan(tmp_path: Path, mode: str, **changes: Any) -> Plan:
    plan = prepare(config_for(tmp_path, ["minimal-python", "random-python"], **changes))
    spec = BotSpec(name="faulty", command=(sys.executable, str(FAULTY), mode), cwd=FAULTY.parent, reuse=True)
    plan.specs = {"faulty": spec, **plan.specs}
    return plan


@pytest.mark.slow
def test_a_process_that_faulted_is_replaced_and_the_fault_costs_only_the_offender(tmp_path: Path) -> None:
    plan = faulty_plan(tmp_path, "bad_index")
    summary, matches = play(plan, jobs=1)
    faulty_matches = [m for m in matches if "faulty" in (m.bot_a, m.bot_b)]
    assert len(faulty_matches) == 4
    for m in faulty_matches:
        seat = "A" if m.bot_a == "faulty" else "B"
        assert [(f.seat, f.bot, f.kind) for f in m.faults] == [(seat, "faulty", "illegal_move")]
        assert m.forfeit == (seat,) and m.winner == ("B" if seat == "A" else "A")
    assert all(not m.faults for m in matches if m not in faulty_matches)
    assert summary.pool.discarded_after_fault == 4
    # faulty started 4 times (never reused); the two good bots twice each at jobs 1 (one process per leg)
    assert summary.pool.started == 4 + 2 * 2
    board = leaderboard(plan.names, matches, max_faults=10)
    assert {r.bot: r.faults for r in board.standings} == {
        "faulty": {"illegal_move": 4},
        "minimal-python": {},
        "random-python": {},
    }


def test_a_bot_that_cannot_start_is_not_admitted_and_the_others_play(tmp_path: Path) -> None:
    plan = prepare(config_for(tmp_path, ["minimal-python", "random-python"]))
    ghost = BotSpec(name="ghost", command=("/nonexistent/ghost-bot",), cwd=tmp_path, reuse=True, digest="g")
    plan.specs = {"ghost": ghost, **plan.specs}
    summary, matches = play(plan, jobs=2)
    assert summary.played == len(matches) == 2
    assert all("ghost" not in (m.bot_a, m.bot_b) for m in matches)
    assert list(summary.not_admitted) == ["ghost"]
    assert "did not pass the handshake" in summary.not_admitted["ghost"]
    with Store.open(plan.config.db, readonly=True) as store:
        board = board_from_store(store)
    assert [row.bot for row in board.standings] == ["minimal-python", "random-python"] or len(board.standings) == 2
    assert "ghost" not in {row.bot for row in board.standings}
    text = render(board, "table")
    assert "Not admitted" in text and "ghost: did not pass the handshake" in text


def test_an_admitted_bot_that_no_longer_starts_forfeits_and_the_tournament_still_ends(tmp_path: Path) -> None:
    # The opponent's process, started first, must go back to the pool, or shutting the pool down waits forever.
    plan = prepare(config_for(tmp_path, ["minimal-python", "random-python"]))
    ghost = BotSpec(name="ghost", command=("/nonexistent/ghost-bot",), cwd=tmp_path, reuse=True, digest="g")
    plan.specs = {"ghost": ghost, **plan.specs}

    async def bounded() -> tuple[Summary, list[PlayedMatch]]:
        with Store.open(plan.config.db) as store:
            competition = open_competition(plan, store)
            for version in competition.field:  # as if each had passed its handshake on an earlier run
                store.set_admission(version.id, "admitted")
            competition.field = store.versions(competition.id, current=True)
            with trio.fail_after(60):
                summary = await run_tournament(plan, store, competition, jobs=2)
            return summary, store.matches(competition.id)

    summary, matches = trio.run(bounded)
    ghost_matches = [m for m in matches if "ghost" in (m.bot_a, m.bot_b)]
    assert len(ghost_matches) == 4 and summary.played == 6
    assert all(
        [f.kind for f in m.faults] == ["crash"] and "could not start" in m.faults[0].reason for m in ghost_matches
    )


@pytest.mark.slow
def test_a_bot_over_the_fault_limit_is_disqualified_and_plays_no_more(tmp_path: Path) -> None:
    plan = faulty_plan(tmp_path, "bad_index", max_faults=1, cycles=2)
    summary, matches = play(plan, jobs=1)
    with_faulty = [m for m in matches if "faulty" in (m.bot_a, m.bot_b)]
    assert len(with_faulty) == 2  # the second fault is one more than allowed
    assert all(f.kind == "illegal_move" for m in with_faulty for f in m.faults)
    assert summary.skipped == 8 - 2
    assert summary.played == 12 - summary.skipped
    assert summary.disqualified == {"faulty": "2 faults, more than the 1 allowed (illegal_move x2)"}


@pytest.mark.slow
def test_the_fault_limit_stops_a_bot_s_matches_and_says_how_many_were_under_way(tmp_path: Path) -> None:
    # Every match of the faulty bot faults; at --jobs 4 some of its matches are under way when it is disqualified.
    plan = faulty_plan(tmp_path, "bad_index", max_faults=1, cycles=3)
    said: list[str] = []
    with Store.open(plan.config.db) as store:
        competition = open_competition(plan, store)
        summary = trio.run(lambda: run_tournament(plan, store, competition, jobs=4, say=said.append))
        matches = store.matches(competition.id)
        board = board_from_store(store, competition.id)
    with_faulty = [m for m in matches if "faulty" in (m.bot_a, m.bot_b)]
    under_way = summary.in_flight_at_disqualification["faulty"]
    # None starts after the second fault: the only matches past it are those already under way.
    assert len(with_faulty) == 2 + under_way
    assert summary.skipped == 12 - len(with_faulty)
    reason = summary.disqualified["faulty"]
    assert reason.startswith(f"{2 + under_way} faults, more than the 1 allowed (illegal_move x{2 + under_way})")
    if under_way:
        assert reason.endswith(f": {under_way} of them in {'a match' if under_way == 1 else 'matches'} already under"
                               " way when fault 2 disqualified it")  # fmt: skip
    line = next(line for line in said if line.startswith("faulty is disqualified"))
    assert ("already under way will finish" in line) == bool(under_way)
    assert {row.bot: row.disqualified for row in board.standings}["faulty"] == reason


@pytest.mark.parametrize(
    ("kinds", "said"),
    [
        ({"timeout": 3}, ""),
        ({"timeout": 4}, "4 faults, more than the 3 allowed (timeout x4)"),
        (
            {"timeout": 3, "invalid_json": 2},
            "5 faults, more than the 3 allowed (invalid_json x2, timeout x3):"
            " 1 of them in a match already under way when fault 4 disqualified it",
        ),
        (
            {"crash": 4},
            "4 faults, more than the 1 allowed (crash x4): 2 of them in matches already under way"
            " when fault 2 disqualified it",
        ),
    ],
)
def test_a_disqualification_past_the_limit_says_why_it_is_past(kinds: dict[str, int], said: str) -> None:
    max_faults = 1 if "crash" in kinds else 3
    assert disqualification(Counter(kinds), max_faults) == said


@pytest.mark.slow
def test_arena_tournament_resumes_and_arena_results_prints_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    args = ["tournament", "rps-poker", str(RPS / "minimal-python"), str(RPS / "random-python"),
            "--seed", "3", "--db", str(db), "--log-dir", str(tmp_path / "logs"), "--jobs", "2"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Competition 'rps-poker round-robin', tournament 1: rps-poker/1\nLeaderboard (2 matches of 2)" in out
    assert "Played 2 matches" in out
    assert main([*args, "--cycles", "2"]) == 0  # the same tournament, with one more cycle
    out = capsys.readouterr().out
    assert "cycles 1 -> 2\nresuming: 2 of 4 recorded" in out
    assert "Played 2 matches" in out and "(4 matches of 4)" in out
    assert main(args) == 0  # fewer cycles again: nothing to play, and the schedule does not shrink
    out = capsys.readouterr().out
    assert "(4 matches of 4)" in out
    assert main(["results", str(db), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] == data["scheduled"] == 4
    assert sum(s["matches"] for s in data["standings"]) == 8
    assert main(["results", str(db), "--format", "csv"]) == 0
    assert capsys.readouterr().out.count("\n") == 3
    assert main(["results", str(tmp_path / "missing.sqlite")]) == 2
    assert "no results database" in capsys.readouterr().err


def test_duplicate_deals_are_refused_on_a_game_that_is_not_duplicable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena import ConfigError

    monkeypatch.setattr(type(get_game("rps-poker")), "duplicate_deals", False)  # as a plugin game may say
    assert not prepare(config_for(tmp_path, ["minimal-python", "random-python"])).duplicate  # its own default
    with pytest.raises(ConfigError, match=r"rps-poker is not duplicable .* leave out duplicate_deals = true"):
        prepare(config_for(tmp_path, ["minimal-python", "random-python"], duplicate_deals=True))
    with pytest.raises(ConfigError, match="arena compare plays duplicate pairs, but rps-poker is not duplicable"):
        prepare(config_for(tmp_path, ["minimal-python", "random-python"], duplicate_deals=True, format="compare"))


def test_config_file_errors_reach_the_user_as_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.toml"
    path.write_text('game = "rps-poker"\njobs = -2\nbots = ["a", "b"]\n', encoding="utf-8")
    assert main(["tournament", str(path)]) == 2
    assert f"{path}:2: jobs: must be 1 or more" in capsys.readouterr().err


def test_same_bot_twice_gets_distinct_names(tmp_path: Path) -> None:
    plan = prepare(config_for(tmp_path, ["minimal-python", "minimal-python"]))
    assert plan.names == ["minimal-python", "minimal-python#2"]
    assert resolve(str(RPS / "minimal-python")).name == "minimal-python"
    assert get_game("rps-poker").duplicate_deals and plan.duplicate
