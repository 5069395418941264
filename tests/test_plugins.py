"""Games as plugins: a game installed as a package (entry point ``arena.games``) or loaded from a file.

The package is installed for real in the way that matters to Arena: a
``dist-info`` folder with ``entry_points.txt`` on the path, which is all
``importlib.metadata`` reads (pip writes the same; one slow test runs pip).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena._errors import GamePluginError
from arena.games import BUILTIN, BUILTIN_GAMES, GAMES, ParamError, get_game
from arena.games._registry import BUILTIN_ENTRY_POINTS, Origin, Registry, provide

from .browsertools import faces, open_page
from .test_cluster import local_cluster

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "high-card"
"""The high-card game as one file (``high_card.py``), with its rules page and its bots beside it."""
MODULE = EXAMPLE / "high_card.py"
BOTS = EXAMPLE / "bots"


def highcard_package(folder: Path) -> Path:
    """The example's game made a package, ``highcard_game``, in ``folder``: its module, rules and bots inside."""
    package = folder / "highcard_game"
    shutil.copytree(EXAMPLE, package, ignore=shutil.ignore_patterns("*.toml", "__pycache__"), dirs_exist_ok=True)
    shutil.copytree(BOTS, package / "bots", dirs_exist_ok=True)  # bot.toml files: kept
    (package / "high_card.py").rename(package / "__init__.py")
    return package


def install(site: Path, dist: str, entry_points: dict[str, str], *, packages: tuple[str, ...] = ()) -> Path:
    """Install ``dist`` into the folder ``site`` as pip would: its packages, and a dist-info naming its games."""
    site.mkdir(parents=True, exist_ok=True)
    for package in packages:
        assert package == "highcard_game"
        highcard_package(site)
    info = site / f"{dist.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[arena.games]\n{lines}")
    return site


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A Dask cluster of one worker process (test_cluster's has two): all a test of what a worker lacks needs.

    A second worker would cost CPU for nothing: about 0.5 s to start and stop, and an idle cluster of two costs
    about 0.15 s a second. Module-wide, as the processes it leaves (multiprocessing's helpers) are then no test's.
    """
    with local_cluster(workers=1) as running:
        yield running


@pytest.fixture
def highcard_site(tmp_path: Path) -> Path:
    """A folder where the package ``highcard-game`` is installed (put it on PYTHONPATH)."""
    return install(
        tmp_path / "site", "highcard-game", {"high-card": "highcard_game:HighCard"}, packages=("highcard_game",)
    )


def page_data(text: str) -> str:
    """The match data a replay page carries (compressed in the page), as text."""
    found = re.search(r'<script id="match-data" type="application/octet-stream">([^<]+)</script>', text)
    assert found, "no match data in the replay page"
    return zlib.decompress(base64.b64decode(found.group(1))).decode()


def arena(
    *args: str, site: Path | None = None, cwd: Path = REPO, check: bool = True
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


# The registry, in this process ---------------------------------------------------------------------------
def test_the_builtin_games_are_declared_in_pyproject_as_the_registry_knows_them() -> None:
    import tomllib

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]["arena.games"]
    assert list(declared.items()) == list(BUILTIN_ENTRY_POINTS)
    assert list(GAMES)[: len(BUILTIN_GAMES)] == list(BUILTIN_GAMES)
    assert all(GAMES.origin(game) == BUILTIN for game in BUILTIN_GAMES)


def test_importing_the_games_package_imports_no_game() -> None:
    code = "import sys, arena.games; print(sorted(m for m in sys.modules if m.startswith('arena.games.')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "gops" not in done.stdout and "badugi" not in done.stdout, done.stdout


def test_the_command_line_reads_no_entry_point_until_a_game_is_asked_for() -> None:
    # arena --help and --version stay fast (issue 31): building every command's parser finds no game.
    code = (
        "import sys; from arena.cli import build_parser; build_parser()\n"
        "print(sorted(m for m in sys.modules if m == 'importlib.metadata' or m.startswith('arena.games.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = ["arena.games._base", "arena.games._choices", "arena.games._registry", "arena.games._rng"]
    assert done.stdout.strip() == str([*loaded, "arena.games._view"])


def test_asking_for_one_game_loads_no_other(highcard_site: Path) -> None:
    code = "import sys; from arena.games import get_game; get_game('gops'); print('highcard_game' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(highcard_site)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip() == "False"


def test_an_installed_package_s_game_is_found_with_its_origin(
    highcard_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(highcard_site))
    registry = Registry()
    assert "high-card" in registry
    assert registry.origin("high-card/1") == Origin("package", "highcard-game", "0.1.0")
    assert str(registry.origin("high-card")) == "package highcard-game 0.1.0"
    assert registry.problems() == []


def bad_plugins(site: Path) -> Path:
    site.mkdir(parents=True, exist_ok=True)
    (site / "plugin_raises.py").write_text("raise RuntimeError('the database is down')\n")
    (site / "plugin_not_a_game.py").write_text("class NotAGame:\n    pass\n")
    return install(
        site,
        "bad-games",
        {
            "missing": "no_such_module:Game",
            "raises": "plugin_raises:Game",
            "not-a-game": "plugin_not_a_game:NotAGame",
            "gops": "highcard_game:HighCard",  # takes a built-in game's id
            "other-name": "highcard_game:HighCard",  # its class says high-card
        },
        packages=("highcard_game",),
    )


def test_bad_plugins_are_left_out_with_one_line_each_and_the_builtin_games_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(bad_plugins(tmp_path / "site")))
    registry = Registry()
    assert list(registry) == list(BUILTIN_GAMES)
    assert registry["gops"].__module__ == "arena.games.gops"
    problems = registry.problems()
    assert len(problems) == 5, problems
    assert all("\n" not in p and "bad-games 0.1.0" in p for p in problems)
    said = "\n".join(problems)
    assert (
        "'missing' (no_such_module:Game, from package bad-games 0.1.0): cannot be loaded (ModuleNotFoundError" in said
    )
    assert "'raises' (plugin_raises:Game, from package bad-games 0.1.0): cannot be loaded (RuntimeError: the" in said
    assert "which is not a subclass of arena.games.Game" in said
    assert "the game id 'gops' is a built-in game's id; left out (rename the game)" in said
    assert "names a game whose id is 'high-card', not 'other-name'" in said
    with pytest.raises(GamePluginError, match=r"^game plugin 'raises' .*RuntimeError: the database is down\)$"):
        registry.lookup("raises")
    with pytest.raises(ParamError, match=r"unknown game 'nope'; known: .*5 plugin.s. left out: see `arena games`"):
        registry.lookup("nope")


@pytest.mark.slow
def test_arena_games_lists_plugins_with_their_origin_and_warns_of_bad_ones(tmp_path: Path) -> None:
    site = bad_plugins(tmp_path / "site")
    install(site, "highcard-game", {"high-card": "highcard_game:HighCard"})
    done = arena("games", site=site)
    listed = [line for line in done.stdout.splitlines() if not line.startswith(" ")]
    assert [line.split()[0] for line in listed] == [*(f"{g}/1" for g in BUILTIN_GAMES), "high-card/1"]
    assert listed[0].endswith("[built-in]")
    assert (
        listed[-1]
        == "high-card/1  High card: Both play a card at once; the higher takes a point.  [package highcard-game 0.1.0]"
    )
    assert f"rules: {site / 'highcard_game' / 'high-card.md'}  (or: arena games high-card)" in done.stdout
    warnings = done.stderr.splitlines()
    assert len(warnings) == 5 and all(w.startswith("arena: warning: game plugin '") for w in warnings), warnings
    assert arena("games", "high-card", site=site).stdout.startswith("# High card (`high-card/1`)")
    failed = arena("play", "raises", "python3 a.py", "python3 b.py", site=site, check=False)
    assert failed.returncode == 2
    assert failed.stderr.strip().splitlines() == [
        "arena: error: game plugin 'raises' (plugin_raises:Game, from package bad-games 0.1.0): cannot be loaded"
        " (RuntimeError: the database is down)"
    ]


# A game in a file ----------------------------------------------------------------------------------------
def test_a_game_module_file_is_loaded_and_a_bad_one_is_a_one_line_error(tmp_path: Path) -> None:
    registry = Registry()
    source = MODULE
    assert registry.load_file(source) == ["high-card"]
    assert registry.load_file(source) == ["high-card"]  # once only
    assert registry.origin("high-card") == Origin("file", str(source))
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_thing\n")
    with pytest.raises(GamePluginError, match=r"^game module .*broken.py failed to import \(ModuleNotFoundError"):
        registry.load_file(broken)
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    with pytest.raises(GamePluginError, match="defines no Game subclass"):
        registry.load_file(empty)
    clash = tmp_path / "clash.py"
    clash.write_text("from arena.games.gops import Gops as _G\n\nclass Mine(_G):\n    pass\n")
    with pytest.raises(GamePluginError, match="the game id 'gops' is a built-in game's id"):
        registry.load_file(clash)
    with pytest.raises(GamePluginError, match="is not a file"):
        registry.load_file(tmp_path / "nothing.py")


def test_a_worker_is_given_the_game_s_origin_and_names_a_missing_package() -> None:
    with pytest.raises(GamePluginError) as caught:
        provide("kuhn-poker/1", Origin("package", "arena-kuhn", "0.3.0"))
    assert str(caught.value) == (
        "the game 'kuhn-poker' comes from the package arena-kuhn 0.3.0, which is not installed where this process"
        " runs: install it there (pip install arena-kuhn)"
    )
    provide("gops/1", BUILTIN)
    with pytest.raises(ParamError):
        provide("nope", None)


@pytest.mark.slow
def test_play_with_a_game_module_file() -> None:
    module = str(MODULE)
    done = arena("play", "--game-module", module, "--no-log", "--seed", "3", "high", "low", cwd=BOTS)
    assert "High card (high-card/1), seed 3" in done.stdout
    assert "Result: high 1 : 2 low: B (low) wins" in done.stdout
    assert get_game("gops").id == "gops"


# Every command, with the game installed as a package ------------------------------------------------------
@pytest.mark.slow
def test_tournament_compare_replay_report_and_check_play_an_installed_plugin_game(
    highcard_site: Path, tmp_path: Path
) -> None:
    installed = highcard_site / "highcard_game" / "bots"  # the bots the package ships, where it is installed
    high, low = str(installed / "high"), str(installed / "low")
    db, logs = tmp_path / "r.sqlite", tmp_path / "logs"
    common = ["--db", str(db), "--log-dir", str(logs), "--seed", "7"]
    done = arena(
        "tournament", "high-card", high, low, "--cycles", "2", "--progress", "none", *common, site=highcard_site
    )
    assert "Played 4 matches" in done.stdout
    played = sorted((logs / "tournament-1").glob("c1-*.jsonl.gz"))
    assert len(played) == 2
    verified = arena("replay", "--verify", str(played[0]), site=highcard_site)
    assert verified.stdout.startswith(f"verified: {played[0]} (high-card/1, seed ")
    rerun = arena("replay", str(played[0]), "--bot", f"A={low}", site=highcard_site, check=False)
    assert "answers differ" in rerun.stdout, rerun.stdout + rerun.stderr
    report = tmp_path / "report.html"
    arena("results", str(db), "--html", str(report), site=highcard_site)
    pages = sorted((tmp_path / "report-replays").glob("*.html"))
    assert len(pages) == 4 and all('"pile"' in page_data(page.read_text()) for page in pages), "generic tables"
    checked = arena("check", high, "--matches", "2", "--log-dir", str(tmp_path / "check"), site=highcard_site)
    assert "against low" in checked.stdout and "high: all checks passed" in checked.stdout
    compare = ["compare", "high-card", high, low, "--max-matches", "8", "--db", str(tmp_path / "c.sqlite")]
    compared = arena(*compare, "--log-dir", str(logs), site=highcard_site, check=False)
    assert compared.returncode in (0, 1, 2) and "Compare high (new) with low (base) on high-card/1" in compared.stdout
    assert "Traceback" not in compared.stderr, compared.stderr
    # Without the package, the same log cannot be re-run, and says why and what to do.
    missing = arena("replay", "--verify", str(played[0]), check=False)
    assert "the game 'high-card/1' is not in this arena" in missing.stdout + missing.stderr
    assert "install its package, or name its file with --game-module" in missing.stdout + missing.stderr


@pytest.mark.slow
def test_a_server_plays_a_plugin_game_named_in_its_config_in_its_worker_process(tmp_path: Path) -> None:
    import httpx

    from .servertools import server_process

    (tmp_path / "game").mkdir()
    shutil.copy(MODULE, tmp_path / "game" / "high_card.py")
    house = ", ".join(f'"{BOTS / name}"' for name in ("high", "low"))
    config = tmp_path / "server.toml"
    config.write_text(
        f'name = "High card ladder"\ngame = "high-card"\ngame_module = "game/high_card.py"\nhouse_bots = [{house}]\n'
        f"jobs = 2\nworkers = 1\n[ladder]\nplacement_pairs = 1\npair_budget = 4\n"
        f'[server]\ndata_dir = "{tmp_path / "data"}"\nport = 0\n'
    )
    with server_process(config) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        deadline = time.monotonic() + 120
        while not (matches := client.get("/api/matches").json()["matches"]) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert matches, "".join(server.output)
        assert "High card" in client.get("/").text
        key = matches[0]["key"]
        replay = None
        while replay is None and time.monotonic() < deadline:  # a replay is public once both legs are played
            replay = client.get(f"/api/matches/{key}").json()["replay"]
            time.sleep(0.3)
        assert replay is not None
        page = client.get(replay)
        assert page.status_code == 200
        assert '"pile"' in page_data(page.text), "the replay draws the generic table"
    assert "Traceback" not in "".join(server.output)


@pytest.mark.slow
def test_a_bad_game_module_in_a_config_is_a_one_line_error_naming_the_key(tmp_path: Path) -> None:
    (tmp_path / "game.py").write_text("raise ValueError('half written')\n")
    config = tmp_path / "t.toml"
    config.write_text(f'game = "high-card"\ngame_module = "game.py"\nbots = ["{BOTS / "high"}", "{BOTS / "low"}"]\n')
    done = arena("tournament", str(config), check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"arena: error: {config}:2: game_module: game module "), lines
    assert lines[0].endswith("game.py failed to import (ValueError: half written)")


# Replay page in a browser ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_replay_page_draws_the_generic_table_and_a_seat_view_hides_the_other_hand(
    tmp_path: Path,
    browser: Any,
) -> None:
    module = str(MODULE)
    arena(
        "play", "--game-module", module, "--log-dir", str(tmp_path), "--seed", "5", "--quiet", "high", "low", cwd=BOTS
    )
    (log,) = tmp_path.glob("*.jsonl")
    out = tmp_path / "match.html"
    arena("replay", "--game-module", module, "--html", str(out), str(log))
    page = open_page(browser, out, "#step=3")
    hands = {seat: faces(page, f"#seat-{seat} .zone .card") for seat in "AB"}
    assert hands == {"A": ["4"], "B": ["8"]}, hands  # seed 5 deals A 4 5 7 and B 2 6 8; two turns are played
    assert faces(page, "#felt .zone .card") == ["7", "2", "5", "6"]  # the pile: A 7, B 2, then A 5, B 6
    assert "turns played 2" in page.text_content("#felt .info")
    page.screenshot(path=str(tmp_path / "all.png"))
    page.click("#views button[data-view='A']")
    assert faces(page, "#seat-A .zone .card") == ["4"]
    assert faces(page, "#seat-B .zone .card") == [], "B's hand is not drawn for A, not even face down"
    zones = page.locator("#seat-B .zone").all_text_contents()  # (not the seat's info: "took 0.8 ms" holds an 8)
    assert zones and all("hidden" in zone and "8" not in zone for zone in zones), zones
    page.screenshot(path=str(tmp_path / "as-a.png"))
    assert page.errors == []


# A Dask worker without the plugin -------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.cluster
def test_a_dask_worker_without_the_plugin_says_which_package_it_lacks(
    highcard_site: Path,
    tmp_path: Path,
    cluster: Any,  # its worker's path has no highcard-game: only the coordinator's has
) -> None:
    installed = highcard_site / "highcard_game" / "bots"
    done = arena(
        "tournament", "high-card", str(installed / "high"), str(installed / "low"),
        "--cluster", cluster.scheduler_address, "--progress", "none",
        "--db", str(tmp_path / "r.sqlite"), "--log-dir", str(tmp_path / "logs"),
        site=highcard_site, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert re.fullmatch(
        r"arena: error: Dask worker tcp://127\.0\.0\.1:\d+: the game 'high-card' comes from the package highcard-game"
        r" 0\.1\.0, which is not installed where this process runs: install it there \(pip install highcard-game\)",
        lines[-1],
    ), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_game_package_installed_by_pip_is_listed_and_played(tmp_path: Path) -> None:
    # The real thing once: pip builds the package (with setuptools from the index) and writes its dist-info.
    source = tmp_path / "src"
    highcard_package(source)
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "highcard-game"\nversion = "0.2.0"\n\n'
        '[project.entry-points."arena.games"]\nhigh-card = "highcard_game:HighCard"\n\n'
        "[tool.setuptools]\npackages = ['highcard_game']\n"
        "[tool.setuptools.package-data]\nhighcard_game = ['*.md', 'bots/*/*']\n"
    )
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(source)]
    done = subprocess.run(pip, capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No matching distribution found for setuptools" in done.stderr:
        pytest.skip("pip finds no setuptools to build the package with (no package index here)")
    assert done.returncode == 0, done.stderr
    listed = arena("games", site=site).stdout
    assert (
        "high-card/1  High card: Both play a card at once; the higher takes a point.  [package highcard-game 0.2.0]"
        in listed
    )
    bots = site / "highcard_game" / "bots"
    played = arena("play", "high-card", str(bots / "high"), str(bots / "low"), "--no-log", "--seed", "5", site=site)
    assert "Result: high 1 : 2 low" in played.stdout


@pytest.mark.slow
def test_a_game_s_own_text_protocol_carries_a_match_and_judges_a_bad_line(tmp_path: Path) -> None:
    module = str(MODULE)
    text = arena("play", "--game-module", module, "--no-log", "--seed", "5", "text-middle", "low", cwd=BOTS)
    assert "Turn 1: A plays 5, B plays 2" in text.stdout  # hand 4 5 7: the middle card
    junk = tmp_path / "junk.py"
    junk.write_text("import sys\nsys.stdin.readline()\nprint('seven', flush=True)\nsys.stdin.read()\n")
    done = arena(
        "play", "--game-module", module, "--no-log", "--seed", "5", "--protocol-a", "high-card-text",
        f"python3 {junk}", str(BOTS / "low"),
    )  # fmt: skip
    assert "fault: A (junk) protocol_error: high-card-text: expected a card, such as 7, not 'seven'" in done.stdout
    unknown = arena("play", "--game-module", module, "--protocol-a", "gops-txt", "high-card", "python3 a.py",
                    "python3 b.py", check=False)  # fmt: skip
    assert "unknown bot protocol 'gops-txt'; known: gops-text, high-card-text, json" in unknown.stderr


@pytest.mark.slow
def test_the_terminal_replay_shows_the_generic_table_and_one_seat_s_replay_hides_the_other_hand(
    tmp_path: Path,
) -> None:
    module = str(MODULE)
    arena(
        "play", "--game-module", module, "--log-dir", str(tmp_path), "--seed", "5", "--quiet", "high", "low", cwd=BOTS
    )
    (log,) = tmp_path.glob("*.jsonl")
    shown = arena("replay", "--game-module", module, "--speed", "0", "--no-color", str(log)).stdout
    assert "  table: turns played 0 · pile -\n  high: points 0 · cards held 3 · hand 4 5 7\n" in shown
    assert "  low: points 0 · cards held 3 · hand 2 6 8\n" in shown
    as_a = arena("replay", "--game-module", module, "--seat", "A", "--speed", "0", "--no-color", str(log)).stdout
    assert "  high: points 0 · cards held 3 · hand 4 5 7\n  low: points 0 · cards held 3 · hand (hidden)\n" in as_a
    assert "hand 2 6 8" not in as_a and "hand 6 8" not in as_a


def test_a_game_whose_message_type_is_another_game_s_is_refused(tmp_path: Path) -> None:
    text = MODULE.read_text().replace('"high_card_play"', '"gops_bid"').replace('"high-card"', '"copy-cat"')
    (tmp_path / "copy_cat.py").write_text(text)
    with pytest.raises(
        GamePluginError, match=r"copy-cat: its message type 'gops_bid' is also protocol\.gops\.GopsBid's"
    ):
        Registry().load_file(tmp_path / "copy_cat.py")


def test_a_worker_setup_made_anywhere_carries_the_origin_of_its_game() -> None:
    import pickle

    from arena.competition.worker import Setup
    from arena.games import load_game_module
    from arena.sandbox import current_policy
    from protocol import Limits

    load_game_module(str(MODULE))
    setup = Setup("high-card", {}, Limits(), 1, 1, current_policy(), None, "stamp")
    # (the file this process registered the game from first: another test in this process may have loaded a copy
    # of the same file from its own folder, which the registry takes to be the same game)
    assert setup.origin == GAMES.origin("high-card") and setup.origin.kind == "file"
    assert Path(setup.origin.name).read_bytes() == MODULE.read_bytes()
    assert pickle.loads(pickle.dumps(setup)).origin == setup.origin  # as the worker reads it
    assert Setup("gops", {}, Limits(), 1, 1, current_policy(), None, "stamp").origin == BUILTIN


@pytest.mark.slow
def test_a_seat_s_replay_page_carries_nothing_of_the_other_seat_s_private_part(tmp_path: Path) -> None:
    module = str(MODULE)
    arena(
        "play", "--game-module", module, "--log-dir", str(tmp_path), "--seed", "5", "--quiet", "high", "low", cwd=BOTS
    )
    (log,) = tmp_path.glob("*.jsonl")
    out = tmp_path / "a.html"
    arena("replay", "--game-module", module, "--seat", "A", "--html", str(out), str(log))
    data = page_data(out.read_text())
    # B was dealt 2 6 8 and kept 6 8, then 8: A learns each card only as B plays it, on the pile.
    for hand in (["2", "6", "8"], ["6", "8"], ["8"]):
        assert json.dumps({"label": "hand", "cards": hand}, separators=(",", ":")) not in data
    assert json.dumps({"label": "hand", "cards": ["4", "5", "7"]}, separators=(",", ":")) in data  # A's own
