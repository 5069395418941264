"""The sixth game, Kuhn poker, shipped as a package of its own in ``examples/kuhn-poker``.

Its rules and bots are tested here without installing it; one slow test
installs it with pip (into a folder put on ``PYTHONPATH``) and plays it
through ``arena games``, ``check-game``, ``play``, ``tournament`` and
``replay --verify``.
"""

from __future__ import annotations

import base64
import importlib
import importlib.util
import itertools
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import REPO

PACKAGE = REPO / "examples" / "kuhn-poker"
BOTS = PACKAGE / "kuhn_poker" / "bots"


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_package_s_own_rules_tests_pass() -> None:
    # In a child process: the package's message Structs must not join this one's protocol (its schema is compared
    # with the committed copy of the built-in games').
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=PACKAGE,
        env={**os.environ, "PYTHONPATH": str(PACKAGE)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout


def test_the_equilibrium_bot_plays_kuhn_s_strategy_and_its_value_is_minus_one_eighteenth() -> None:
    bench = load("bench_kuhn", REPO / "benchmarks" / "bench_kuhn.py")
    table = load("kuhn_equilibrium", BOTS / "equilibrium" / "bot.py").BET_PROBABILITY
    assert len(table) == 12 and all(0 <= p <= 1 for p in table.values())

    def equilibrium(player: int, history: str, card: str) -> float:
        return float(table[player, history, card])

    assert bench.exact_value(equilibrium, equilibrium) == pytest.approx(-1 / 18)
    # Neither player gains by leaving it: every pure strategy of the one against the other's equilibrium.
    for bets in itertools.product((0.0, 1.0), repeat=6):
        first = dict(zip(itertools.product(("", "pb"), "JQK"), bets, strict=True))
        second = dict(zip(itertools.product(("b", "p"), "JQK"), bets, strict=True))
        assert bench.exact_value(lambda p, h, c, first=first: first[h, c], equilibrium) <= -1 / 18 + 1e-12
        assert bench.exact_value(equilibrium, lambda p, h, c, second=second: second[h, c]) >= -1 / 18 - 1e-12
    always = bench.exact_value(lambda p, h, c: 1.0, equilibrium), bench.exact_value(equilibrium, lambda p, h, c: 1.0)
    assert always[0] < 0 < always[1], "always betting loses in both seats"


def arena(*args: str, site: Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.mark.slow
def test_installed_with_pip_it_is_listed_checked_played_in_tournaments_and_replayed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(PACKAGE)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    listed = arena("games", site=site).stdout
    assert "kuhn-poker/1  Kuhn poker: " in listed and "[package arena-kuhn-poker 1.0.0]" in listed
    assert '{"type":"kuhn_act"' in arena("games", "kuhn-poker", site=site).stdout
    checked = arena("check-game", "kuhn-poker", "--requests", "4000", site=site).stdout
    assert "kuhn-poker: all checks passed" in checked, checked
    bots = site / "kuhn_poker" / "bots"
    played = arena(
        "play",
        "--no-log",
        "--seed",
        "4",
        "--param",
        "hands=5",
        str(bots / "equilibrium"),
        str(bots / "random"),
        site=site,
    )
    assert "Kuhn poker (kuhn-poker/1), seed 4" in played.stdout and "Result: kuhn-equilibrium " in played.stdout
    logs, db = tmp_path / "logs", tmp_path / "r.sqlite"
    run = [str(bots / name) for name in ("equilibrium", "always-bet", "random")]
    toured = arena(
        "tournament", "kuhn-poker", *run, "--param", "hands=50", "--cycles", "1", "--progress", "none",
        "--db", str(db), "--log-dir", str(logs), "--seed", "3", site=site,
    )  # fmt: skip
    assert "Played 6 matches" in toured.stdout and "duplicate deals" in toured.stdout
    log = sorted((logs / "tournament-1").glob("*.jsonl.gz"))[0]
    verified = arena("replay", "--verify", str(log), site=site)
    assert verified.stdout.startswith(f"verified: {log} (kuhn-poker/1, seed ")
    # Its replay (the generic table: the game has no view) lists, heads and charts its steps by the hand its
    # rules show, not by request ("kuhn_act hand 3 hands 100") and step.
    page = tmp_path / "replay.html"
    arena("replay", str(log), "--html", str(page), site=site)
    packed = page.read_text().split('<script id="match-data" type="application/octet-stream">')[1].split("<")[0]
    data = json.loads(zlib.decompress(base64.b64decode(packed)))
    assert [p["n"] for p in data["periods"]] == list(range(1, 51)) and {p["k"] for p in data["periods"]} == {"Hand"}
    assert data["track"]["by"] == "period" and data["track"]["n"] == 50
