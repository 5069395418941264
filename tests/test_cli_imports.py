"""Every command imports only what it uses: checked on ``sys.modules`` in a fresh interpreter, never by timing."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import COMMANDS, build_parser

REPO = Path(__file__).resolve().parents[1]

HEAVY = ("trio", "msgspec", "psutil", "protocol", "rich", "starlette", "hypercorn", "matplotlib", "dask", "sqlite3")
"""Packages the top of the command line has no use for (each costs milliseconds to tens of them to import)."""
GOLDEN = REPO / "tests" / "golden"
TOURNAMENT_MACHINERY = (
    "arena.competition.plan",
    "arena.competition.runner",
    "arena.competition.playing",
    "arena.server",
    "starlette",
    "matplotlib",
    "dask",
)
"""What ``arena results`` and ``arena replay`` have no use for (``arena.competition.plan`` alone took 0.3 s)."""
TOURNAMENT_AND_SERVER = ("arena.competition", "arena.server", "arena.replay", "starlette", "matplotlib", "dask")
"""What ``arena play`` has no use for."""

_PROBE = """
import json, sys
from arena.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def imported_by(*words: str) -> set[str]:
    """The top-level packages and ``arena`` modules a fresh interpreter holds after ``arena WORDS...``."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *words], capture_output=True, text=True, cwd=REPO, timeout=120, check=True
    )
    names: list[str] = json.loads(done.stderr.splitlines()[-1])
    return {name.split(".")[0] for name in names} | {name for name in names if name.startswith("arena.")}


@pytest.mark.parametrize("words", [["--help"], ["--version"], [], ["no-such-command"]])
def test_the_top_of_the_command_line_imports_no_command(words: list[str]) -> None:
    imported = imported_by(*words)
    assert not imported & set(HEAVY), f"arena {' '.join(words)} imported {sorted(imported & set(HEAVY))}"
    assert {name for name in imported if name.startswith("arena.")} <= {"arena.cli", "arena._errors", "arena._lazy"}


def test_arena_play_imports_no_tournament_server_or_replay() -> None:
    imported = imported_by("play", "--help")
    assert "arena.supervisor.options" in imported  # the probe does see what a command imports
    assert not {name for name in imported if name.startswith(TOURNAMENT_AND_SERVER)}


def test_arena_results_imports_no_tournament_machinery_and_no_replay_page() -> None:
    imported = imported_by("results", str(GOLDEN / "store_readers.sqlite"))
    assert "arena.competition.render" in imported  # it drew the leaderboard
    assert not {name for name in imported if name.startswith((*TOURNAMENT_MACHINERY, "arena.replay._", "trio"))}


def test_arena_replay_imports_no_tournament_machinery_and_no_leaderboard() -> None:
    imported = imported_by("replay", "--verify", str(GOLDEN / "rps-poker-seed7.jsonl"))
    assert "arena.replay._verify" in imported  # it verified the match (with the supervisor's judging: trio too)
    assert not {name for name in imported if name.startswith((*TOURNAMENT_MACHINERY, "arena.competition.board"))}


def test_a_command_of_its_own_module_imports_no_other_command_module() -> None:
    imported = imported_by("new", "--help")
    assert "arena.bots.starters" in imported
    assert not {name for name in imported if name.startswith(TOURNAMENT_AND_SERVER)}
    assert "trio" not in imported


def test_the_table_names_every_command_with_its_parsers_help_in_order() -> None:
    sub = _subcommands(build_parser())
    registered = {choice.dest: choice.help for choice in sub._choices_actions}
    assert list(registered) == list(COMMANDS), "a command is missing from arena.cli.COMMANDS, or out of order"
    assert registered == {name: command.help for name, command in COMMANDS.items()}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_commands_own_parser_is_the_one_of_the_whole_command_line(name: str) -> None:
    # The table's modules for a command are all that add to it (replay adds `arena results --html`).
    alone, whole = _subparser(build_parser(command=name), name), _subparser(build_parser(), name)
    assert alone.format_help() == whole.format_help()


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    return _subcommands(parser).choices[name]


def test_a_lazy_name_whose_module_fails_to_import_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `from package import name` turns an AttributeError out of the package's __getattr__ into "cannot import name",
    # dropping it: an AttributeError raised while the name's module imports (a library's missing function, say)
    # must still reach the reader, as it did when the package imported its modules at once.
    package = tmp_path / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from arena._lazy import lazy_names\n__getattr__ = lazy_names(__name__, {'thing': '.broken'}, globals())\n"
    )
    (package / "broken.py").write_text("import math\nmath.no_such_function()\nthing = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="no_such_function") as caught:
        exec("from lazypkg import thing")
    assert isinstance(caught.value.__cause__, AttributeError)
