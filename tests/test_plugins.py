"""Games as plugins: a game installed as a package (entry point ``arena.games``) or loaded from a file.

The package is installed for real in the way that matters to Arena: a
``dist-info`` folder with ``entry_points.txt`` on the path, which is all
``importlib.metadata`` reads (pip writes the same; one slow test runs pip).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena._errors import GamePluginError
from arena.games import BUILTIN, BUILTIN_GAMES, GAMES, ParamError, get_game
from arena.games._registry import BUILTIN_ENTRY_POINTS, Origin, Registry, provide

REPO = Path(__file__).resolve().parents[1]
HIGHCARD = REPO / "tests" / "plugins" / "highcard"
BOTS = HIGHCARD / "highcard_game" / "bots"


def install(site: Path, dist: str, entry_points: dict[str, str], *, packages: tuple[str, ...] = ()) -> Path:
    """Install ``dist`` into the folder ``site`` as pip would: its packages, and a dist-info naming its games."""
    site.mkdir(parents=True, exist_ok=True)
    for package in packages:
        shutil.copytree(HIGHCARD / package, site / package, dirs_exist_ok=True)
    info = site / f"{dist.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[arena.games]\n{lines}")
    return site


@pytest.fixture
def highcard_site(tmp_path: Path) -> Path:
    """A folder where the package ``highcard-game`` is installed (put it on PYTHONPATH)."""
    return install(
        tmp_path / "site", "highcard-game", {"high-card": "highcard_game:HighCard"}, packages=("highcard_game",)
    )


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
    source = HIGHCARD / "highcard_game" / "__init__.py"
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


def test_play_with_a_game_module_file() -> None:
    module = str(HIGHCARD / "highcard_game" / "__init__.py")
    done = arena("play", "--game-module", module, "--no-log", "--seed", "3", "high", "low", cwd=BOTS)
    assert "High card (high-card/1), seed 3" in done.stdout
    assert "Result: high 1 : 2 low: B (low) wins" in done.stdout
    assert get_game("gops").id == "gops"
