"""Sample bots in every language play real matches; challenge-format JavaScript runs unchanged."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.bots.js import HOST_JS
from arena.bots.spec import BotSpec, resolve
from arena.games import get_game
from arena.supervisor.match import MatchRecord
from arena.supervisor.play import play_match
from protocol import Limits

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_bots" / "rps-poker"
ORIGINALS = Path(__file__).resolve().parents[2] / "shared" / "games" / "rps-poker-koth-bots.js"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

LANGUAGES = {
    "pair-or-high-c": "gcc",
    "counter-java": "javac",
    "save-pairs-ruby": "ruby",
    "high-card-js": "node",
    "minimal-js": "node",
    "tsh-py": "python3",
    "minimal-bash": "bash",
}
STRATEGIES = ["pair-or-high-c", "counter-java", "save-pairs-ruby", "high-card-js"]
"""Bots in other languages than Python that play a real strategy, not only a valid one."""


def sample(name: str) -> BotSpec:
    tool = LANGUAGES.get(name, "python3")
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    return resolve(str(SAMPLES / name))


async def match(a: BotSpec, b: BotSpec, seed: int, tmp_path: Path | None = None) -> MatchRecord:
    return await play_match(get_game("rps-poker"), (a, b), seed=seed, limits=Limits(), log_dir=tmp_path)


@pytest.mark.parametrize("name", list(LANGUAGES))
async def test_each_language_plays_a_full_match(name: str) -> None:
    record = await match(sample(name), sample("random-python"), seed=5)
    assert record.faults == []
    assert sum(record.result.points) == 10
    assert record.stats[0].requests == 15  # five draft picks and ten plays


@pytest.mark.parametrize("name", STRATEGIES)
@pytest.mark.slow
async def test_strategy_bots_beat_the_minimal_bot(name: str) -> None:
    # Index 0 always: a real strategy takes most of the turns over a few deals, seats swapped.
    bot, minimal = sample(name), sample("minimal-python")
    won = lost = 0.0
    for seed in range(3):
        for flip in (False, True):
            record = await match(minimal, bot, seed) if flip else await match(bot, minimal, seed)
            assert record.faults == []
            points = record.result.points[::-1] if flip else record.result.points
            won, lost = won + points[0], lost + points[1]
    assert won > lost, f"{name} took {won} turns, minimal-python {lost}"


def host(bot_file: Path, *name: str) -> BotSpec:
    return resolve(" ".join(["node", str(HOST_JS), str(bot_file), *name]))


@needs_node
@pytest.mark.skipif(not ORIGINALS.is_file(), reason=f"the original bots are not at {ORIGINALS}")
@pytest.mark.parametrize("name", ["MinimalValid", "Simple", "BasicOdds", "ObviousStrats", "tsh"])
async def test_the_published_bots_play_unchanged(name: str) -> None:
    record = await match(host(ORIGINALS, name), sample("random-python"), seed=11)
    assert record.faults == []
    assert sum(record.result.points) == 10


CHALLENGE_BOT = """{
  name: 'Thrower',
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(cards, base) { %s },
  mainPostprocess(card) {},
}
"""


@needs_node
@pytest.mark.parametrize(
    ("body", "kind", "stderr_says"),
    [
        ("throw new Error('out of ideas');", "crash", "Error: out of ideas"),
        ("return cards.length;", "illegal_move", "Thrower.mainPlay returned 3, not an index 0..2"),
        ("return undefined;", "illegal_move", "returned undefined"),
        ("return '0';", "illegal_move", 'returned "0"'),
    ],
)
async def test_a_challenge_bot_fault_is_judged_with_the_js_error_in_stderr(
    body: str, kind: str, stderr_says: str, tmp_path: Path
) -> None:
    bot_file = tmp_path / "thrower.js"
    bot_file.write_text(CHALLENGE_BOT % body)
    record = await match(host(bot_file), sample("minimal-python"), seed=3, tmp_path=tmp_path / "logs")
    assert [(f.seat, f.kind, f.request_type) for f in record.faults] == [("A", kind, "main_play")]
    (stderr_log,) = (tmp_path / "logs").glob("*.A.stderr.log")
    assert stderr_says in stderr_log.read_text()


def run_host(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess[str]:
    bot_file = tmp_path / "bots.js"
    bot_file.write_text(source)
    request = '{"type":"draft_pick","id":4,"round":1,"cards":["R1","S9"]}\n'
    return subprocess.run(
        ["node", str(HOST_JS), str(bot_file), *args], input=request, capture_output=True, text=True, timeout=30
    )


TWO_BOTS = """
const first = { name: 'First', draftPick() { return 0; }, draftReceive() {}, mainPlay() { return 0; },
  mainPostprocess() {} };
const second = { name: 'Second', draftPick(cards) { return fullDeck.indexOf(cards[1]) === 29 ? 1 : 0; },
  draftReceive() {}, mainPlay() { return 0; }, mainPostprocess() {} };
%s
"""


@needs_node
@pytest.mark.parametrize(
    "definition",
    ["const bots = [first, second];", "module.exports = [first, second];", "module.exports = { first, second };"],
)
def test_the_host_finds_a_bot_by_name_however_the_file_defines_them(definition: str, tmp_path: Path) -> None:
    run = run_host(tmp_path, TWO_BOTS % definition, "Second")
    assert (run.returncode, run.stdout) == (0, '{"id":4,"action":1}\n')
    unnamed = run_host(tmp_path, TWO_BOTS % definition)
    assert unnamed.returncode == 2
    assert "defines 2 bots; name one: First, Second" in unnamed.stderr
    unknown = run_host(tmp_path, TWO_BOTS % definition, "Third")
    assert unknown.returncode == 2 and 'no bot named "Third"' in unknown.stderr


@needs_node
def test_the_host_runs_a_bare_object_literal_and_keeps_stdout_for_the_protocol(tmp_path: Path) -> None:
    source = "{ name: 'Chatty', draftPick(c) { console.log('thinking'); return 1; }, draftReceive() {},"
    source += " mainPlay() { return 0; }, mainPostprocess() {} }"
    run = run_host(tmp_path, source)
    assert (run.returncode, run.stdout) == (0, '{"id":4,"action":1}\n')
    assert "thinking" in run.stderr
