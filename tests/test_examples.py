"""examples/: every config loads and runs (with small sizes), the class's gauntlet pits each student against
each reference bot and never against another student, and the limits example shows the fault policy."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from unittest import mock

import pytest

from arena._errors import ConfigError
from arena.competition import config as config_mod
from arena.competition.plan import prepare
from arena.competition.schedule import count_schedule, make_schedule
from arena.competition.store import Store

from .inprocess import arena_here

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SERVER_CONFIGS = ["rps-poker-server.toml"]
"""Configs of ``arena serve`` (a competition server), not of tournaments."""
CONFIGS = sorted(
    p.relative_to(EXAMPLES).as_posix()
    for p in EXAMPLES.rglob("*.toml")
    if p.name not in ("bot.toml", "pyproject.toml") and p.name not in SERVER_CONFIGS
)
SMALL = {r"^hands = \d+": "hands = 4", r"^deals = \d+": "deals = 5"}
"""Game sizes made small for a test (the config's own numbers are for a real run)."""
NEEDS = {"node": ("-js", "-node", "bob"), "ruby": ("-ruby",)}


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """A copy of examples/ beside the sample bots (as in a clone), with small game sizes."""
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy)
    (tmp_path / "sample_bots").symlink_to(REPO / "sample_bots")
    for config in copy.rglob("*.toml"):
        text = config.read_text(encoding="utf-8")
        for pattern, small in SMALL.items():
            text = re.sub(pattern, small, text, flags=re.MULTILINE)
        config.write_text(text, encoding="utf-8")
    return copy


def tournament(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``arena tournament CONFIG --quiet EXTRA`` in the config's folder, 200 columns wide (in this process: see
    tests/inprocess.py)."""
    with mock.patch.dict(os.environ, {"COLUMNS": "200"}):
        return arena_here("tournament", str(config), "--quiet", *extra, cwd=config.parent)


def latest(store: Store) -> int:
    row = store.tournament()
    assert row is not None
    return row.id


def test_there_is_a_config_per_game_one_for_a_class_and_one_for_limits() -> None:
    games = {config_mod.load(EXAMPLES / name).game for name in CONFIGS}
    assert games == {"rps-poker", "gops", "card-jitsu", "six-card-poker", "badugi", "high-card"}
    assert "class/class.toml" in CONFIGS and "limits-and-faults.toml" in CONFIGS
    listed = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for name in [*CONFIGS, *SERVER_CONFIGS]:
        assert f"`{name}`" in listed, f"examples/README.md does not say what {name} shows"


@pytest.mark.parametrize("name", SERVER_CONFIGS)
def test_each_server_config_loads_with_its_house_bots(name: str) -> None:
    from arena.bots.spec import resolve
    from arena.server.config import load as load_server

    config = load_server(EXAMPLES / name)
    assert len(config.house_bots) >= 2 and config.data_dir.is_relative_to(REPO)  # its data stays in the clone
    assert ".." not in config.data_dir.parts  # as messages show it
    for text, base in config.house_bots:
        assert resolve(text, base=base).cwd.is_dir()


@pytest.mark.parametrize("name", [n for n in CONFIGS if n not in ("class/class.toml", "limits-and-faults.toml")])
@pytest.mark.slow
def test_each_game_config_runs(name: str, examples: Path) -> None:
    config = config_mod.load(examples / name)
    texts = " ".join(entry.text for entry in config.bots)
    missing = [tool for tool, marks in NEEDS.items() if any(m in texts for m in marks) and not shutil.which(tool)]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {', '.join(missing)}")
        pytest.skip(f"needs {', '.join(missing)}")
    done = tournament(examples / name, "--cycles", "1", "--no-duplicate")
    assert done.returncode == 0, done.stdout + done.stderr
    board = done.stdout.split("Leaderboard", 1)[1]
    names = {entry.name or Path(entry.text).name for entry in config.bots}
    assert all(n in board for n in names), board
    with Store.open(config.db, readonly=True) as store:
        matches = store.matches(latest(store))
    assert matches and not [m for m in matches if m.faults], "the sample bots play without a fault"


def test_the_class_gauntlet_pits_every_student_against_every_reference_and_no_student_against_another() -> None:
    plan = prepare(config_mod.load(EXAMPLES / "class" / "class.toml"))
    students = {p.name for p in (EXAMPLES / "class" / "students").iterdir()}
    assert set(plan.challengers) == students
    references = set(plan.names) - students
    assert references == {"random-python", "simple-py", "basic-odds-py"}
    schedule = make_schedule(
        plan.names, seed=1, cycles=plan.cycles, duplicate=plan.duplicate, fmt="gauntlet", challenger=plan.challenger
    )
    met = {frozenset((m.bot_a, m.bot_b)) for m in schedule}
    assert met == {frozenset((s, r)) for s in students for r in references}
    assert len(schedule) == 10 * 2 * len(students) * len(references)  # cycles, both seats
    assert len(schedule) == count_schedule(
        plan.names, cycles=plan.cycles, duplicate=plan.duplicate, fmt="gauntlet", challengers=len(students)
    )


@pytest.mark.slow
def test_the_class_runs_and_the_buggy_student_alone_is_disqualified(examples: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("needs node (bob's bot)")
    done = tournament(examples / "class" / "class.toml", "--cycles", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    # (matches already under way when the sixth fault comes may add one or two)
    assert re.search(r"carol was disqualified: \d+ faults, more than the 5 allowed \(crash x\d+\)", done.stdout)
    assert "alice was disqualified" not in done.stdout and "bob was disqualified" not in done.stdout


@pytest.mark.slow
def test_the_limits_example_shows_each_fault_and_disqualifies(examples: Path) -> None:
    config = config_mod.load(examples / "limits-and-faults.toml")
    assert config.limits.move_wall_s == 1.0 and config.max_faults == 3
    done = tournament(examples / "limits-and-faults.toml", "--cycles", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    disqualified = r"chatty-python was disqualified: \d+ faults, more than the 3 allowed \(invalid_json x\d+\)"
    assert re.search(disqualified, done.stdout)
    with Store.open(config.db, readonly=True) as store:
        faults = [f for m in store.matches(latest(store)) for f in m.faults]
    kinds = {(f.bot, f.kind) for f in faults}
    assert kinds == {("sleepy-python", "timeout"), ("chatty-python", "invalid_json")}


@pytest.mark.parametrize(
    ("bots", "extra", "message"),
    [
        ('[{ bot = "a*", challenger = true }, "c"]', "", 'only a gauntlet has challengers (set format = "gauntlet")'),
        ('[{ bot = "a*", challenger = true }, "c"]', 'format = "gauntlet"\nchallenger = "c"\n', "not both"),
        ('[{ bot = "*", challenger = true }]', 'format = "gauntlet"\n', "a gauntlet needs bots for them to meet"),
        ('[{ bot = "a*", challenger = "yes" }, "c"]', 'format = "gauntlet"\n', "'challenger' must be true or false"),
        ('[{ bot = "a*", name = "x" }, "c"]', "", "names several bots, so it cannot rename them"),
    ],
)
def test_bad_challenger_marks_are_clear_errors(bots: str, extra: str, message: str, tmp_path: Path) -> None:
    for name in ("a1", "a2", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.toml").write_text('run = "python3 bot.py"\n', encoding="utf-8")
    config = tmp_path / "t.toml"
    config.write_text(f'game = "rps-poker"\n{extra}bots = {bots}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(message)):
        config_mod.load(config)
