"""Starter bots and ``arena new``; a manifest's ``game`` as the game of ``arena check`` and ``arena play``.

Every game x language: ``arena new GAME LANGUAGE`` makes a folder that passes
``arena check`` with no ``--game`` (its ``bot.toml`` names the game), built
and run in the sandbox as any bot. The compiled languages' builds make those
cases slow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena._errors import ConfigError
from arena.bots.spec import BotSpec, game_of, load_folder, resolve
from arena.bots.starters import LANGUAGES, Language, for_game, games_in
from arena.cli import main
from arena.games import BUILTIN_GAMES, GAMES
from arena.sandbox._programs import SYSTEM_FOLDERS

REPO = Path(__file__).resolve().parents[1]
STARTERS = REPO / "starters"
COMPILED = {"c", "cpp", "java", "go", "rust"}
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
SHORTER = {"badugi": ["--param", "hands=10"], "six-card-poker": ["--param", "deals=10"]}
"""Fewer hands than a match's default: each request is answered alike, and bash or Ruby take a while over 100."""


def usable(lang: Language, monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip unless ``lang``'s tools are installed where the sandbox reaches them (the system's copy preferred)."""
    for tool in lang.tools:
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} is not installed ({lang.title} starter; .ci/run installs it)")
        if not Path(found).resolve().is_relative_to("/usr") and not found.startswith(SYSTEM_FOLDERS):
            # a rustup or other toolchain in a home folder: a jailed build may not read it; the system's may
            if shutil.which(tool, path=SYSTEM_PATH) is None:
                pytest.skip(f"{tool} is {found}, outside the system's folders, and there is no system copy")
            monkeypatch.setenv("PATH", f"{SYSTEM_PATH}:{os.environ.get('PATH', '')}")


CASES = [
    pytest.param(game, language, marks=[pytest.mark.slow] if language in COMPILED else [], id=f"{game}-{language}")
    for language in LANGUAGES
    for game in BUILTIN_GAMES
]


@pytest.mark.parametrize(("game", "language"), CASES)
@pytest.mark.slow
def test_arena_new_makes_a_bot_that_passes_arena_check(
    game: str, language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    usable(LANGUAGES[language], monkeypatch)
    folder = tmp_path / "my-bot"
    assert main(["new", game, language, str(folder)]) == 0
    said = capsys.readouterr().out
    assert said.rstrip().endswith(f"arena check {folder}"), said  # it ends with the next command
    assert load_folder(folder).game == game
    status = main(["check", str(folder), "--matches", "2", "--log-dir", str(tmp_path / "logs"), *SHORTER.get(game, [])])
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"at {GAMES[game].title} ({game}/" in out  # the game came from its bot.toml
    assert "all checks passed" in out and "PASS  plays several matches in one process" in out
    logged = "".join(p.read_text(errors="replace") for p in (tmp_path / "logs").rglob("match-*.stderr.log"))
    assert "check-1" in logged, "the starter logs each match_start to stderr"


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_starter_has_a_part_for_every_game_and_a_manifest(language: str) -> None:
    lang = LANGUAGES[language]
    folder = STARTERS / language
    assert games_in((folder / lang.source).read_text()) == set(BUILTIN_GAMES)
    spec = load_folder(folder)
    assert spec.game == "" and spec.reuse  # arena new adds the game; a starter plays many matches per process
    for game in BUILTIN_GAMES:
        text = for_game((folder / lang.source).read_text(), game)
        assert games_in(text) == set() and "end game" not in text


def test_a_starter_for_one_game_keeps_only_that_games_part() -> None:
    text = for_game((STARTERS / "python" / "bot.py").read_text(), "gops")
    assert "gops_bid" in text
    assert not any(word in text for word in ("draft_pick", "jitsu_play", "poker_set", "badugi_act"))
    assert 'raise ValueError(f"this bot has no answer' in text  # what follows the parts stays


def test_arena_new_names_the_folder_after_game_and_language_and_takes_aliases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "gops", "JS"]) == 0
    assert sorted(p.name for p in (tmp_path / "gops-javascript").iterdir()) == ["bot.js", "bot.toml"]
    assert capsys.readouterr().out.rstrip().endswith("arena check gops-javascript")
    assert main(["new", "badugi", "c++"]) == 0
    assert (tmp_path / "badugi-cpp" / "bot.cpp").is_file()
    (tmp_path / "empty").mkdir()
    assert main(["new", "gops", "bash", "empty"]) == 0  # an empty folder is filled
    assert (tmp_path / "empty" / "bot.sh").stat().st_mode & 0o100, "the bash starter stays executable"


def test_arena_new_overwrites_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "bot.py").write_text("my work\n")
    assert main(["new", "gops", "python", str(folder)]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert (folder / "bot.py").read_text() == "my work\n" and not (folder / "bot.toml").exists()
    file = tmp_path / "a-file"
    file.write_text("x")
    assert main(["new", "gops", "python", str(file)]) == 2
    assert "is not a folder" in capsys.readouterr().err and file.read_text() == "x"


def test_arena_new_names_the_languages_it_has(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "gops", "cobol", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "no starter in 'cobol'" in err and all(name in err for name in LANGUAGES)
    assert not (tmp_path / "b").exists()


# The game in bot.toml ---------------------------------------------------------------------
def gops_bot(tmp_path: Path, name: str = "gops-bot", game: str = "gops") -> Path:
    folder = tmp_path / name
    assert main(["new", "gops", "python", str(folder)]) == 0
    if game != "gops":
        text = (folder / "bot.toml").read_text().replace('game = "gops"', f'game = "{game}"' if game else "")
        (folder / "bot.toml").write_text(text)
    return folder


def test_a_check_whose_game_differs_from_bot_toml_is_an_error_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = gops_bot(tmp_path)
    capsys.readouterr()
    assert main(["check", str(folder), "--game", "badugi", "--log-dir", str(tmp_path / "logs")]) == 2
    err = capsys.readouterr().err
    assert "'gops-bot' is a gops bot (its bot.toml says game = \"gops\"), but the game here is badugi" in err
    assert not (tmp_path / "logs").exists(), "nothing ran"
    assert main(["check", str(folder), "--game", "gops/1", "--matches", "1", "--log-dir", str(tmp_path)]) == 0


@pytest.mark.slow
def test_a_check_without_a_game_that_times_out_says_which_games_request_went_unanswered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = gops_bot(tmp_path, "my-gops-bot", game="")  # no game in bot.toml: checked at rps-poker
    # it answers GOPS bids only: at another game's request it says nothing (the starter would crash)
    (folder / "bot.py").write_text(
        "import sys\nfor line in sys.stdin:\n    if 'gops_bid' in line:\n        print('{}', flush=True)\n"
    )
    limits = ["--startup-time", "0.4", "--move-time", "0.2", "--log-dir", str(tmp_path / "logs")]  # (it never answers)
    assert main(["check", str(folder), *limits]) == 1
    out = capsys.readouterr().out
    assert "timeout" in out
    assert (
        "hint: got rps-poker's draft_pick (no game was given: rps-poker is the default):"
        " is this a GOPS bot? use --game gops" in out
    )
    (folder.rename(tmp_path / "nameless"))  # nothing in its name says which game: the hint names them all
    (tmp_path / "nameless" / "bot.toml").write_text('run = "python3 bot.py"\n')
    assert main(["check", str(tmp_path / "nameless"), *limits]) == 1
    out = capsys.readouterr().out
    assert "got rps-poker's draft_pick" in out and 'use --game GAME or say game = "GAME" in its bot.toml' in out
    assert main(["check", str(tmp_path / "nameless"), "--game", "rps-poker", *limits]) == 1
    assert "no game was given" not in capsys.readouterr().out  # a game named on the command line: no guess


def test_play_takes_the_game_from_bot_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = gops_bot(tmp_path)
    capsys.readouterr()
    reference = str(REPO / "sample_bots" / "gops" / "random-python")
    assert main(["play", str(folder), reference, "--seed", "3", "--no-log"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("GOPS (gops/1), seed 3") and "Result: gops-bot" in out
    assert main(["play", "rps-poker", str(folder), reference, "--no-log"]) == 2
    err = capsys.readouterr().err
    assert 'is a gops bot (its bot.toml says game = "gops"), but the game here is rps-poker' in err
    assert main(["play", reference, reference, "--no-log"]) == 2  # neither names a game
    assert "name the game (arena play GAME BOT_A BOT_B)" in capsys.readouterr().err


def test_a_manifest_names_a_known_game_and_two_bots_agree(tmp_path: Path) -> None:
    folder = gops_bot(tmp_path, game="go-fish")
    with pytest.raises(ConfigError, match="game 'go-fish' is not one of rps-poker, gops"):
        load_folder(folder)
    gops = BotSpec("a", ("true",), tmp_path, game="gops")
    badugi = BotSpec("b", ("true",), tmp_path, game="badugi")
    plain = resolve(f"{sys.executable} -c pass")
    assert game_of(None, [gops, plain]) == "gops" and game_of(None, [plain]) is None
    assert game_of("gops", [gops, plain]) == "gops"
    with pytest.raises(ConfigError, match="'a' plays gops and 'b' plays badugi"):
        game_of(None, [gops, badugi])


def test_a_starter_run_at_another_game_fails_loudly_and_the_check_says_which_game_it_may_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = gops_bot(tmp_path, "gops_bot", game="")  # its bot.toml names no game: checked at rps-poker
    assert main(["check", str(folder), "--log-dir", str(tmp_path / "logs")]) == 1
    out = capsys.readouterr().out
    assert "FAIL  starts and answers its first request: crash" in out
    assert "this bot has no answer for a 'draft_pick' request" in out  # its stderr, shown
    assert "hint: got rps-poker's draft_pick (no game was given: rps-poker is the default): is this a GOPS bot?" in out


def test_the_c_starters_stderr_lines_end_with_a_newline_when_a_match_start_is_cut(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed (.ci/run installs it)")
    program = tmp_path / "bot"
    subprocess.run(["gcc", "-O0", "-o", str(program), str(STARTERS / "c" / "bot.c")], check=True)
    long_start = '{"type":"match_start","match_id":"check-1","opponent":"' + "x" * 200 + '"}\n'
    short_start = '{"type":"match_start","match_id":"check-2"}\n'
    done = subprocess.run([str(program)], input=long_start + short_start, capture_output=True, text=True, timeout=60)
    assert done.stderr.splitlines() == [f"new match: {long_start[:120]}", f"new match: {short_start.rstrip()}"]
