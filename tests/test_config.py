from __future__ import annotations

from pathlib import Path

import pytest

from arena import ConfigError
from arena.competition.config import DEFAULT_MAX_FAULTS, line_of, load

from .conftest import REPO, SAMPLE_BOTS

GOOD = """\
name = "test"
game = "rps-poker"
cycles = 2
seed = 7
bots = ["{bots}/minimal-python", {{ bot = "{bots}/random-python", name = "rnd" }}]

[limits]
move_s = 1.5

[output]
db = "out/results.sqlite"
logs = false
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_paths_above_the_config_are_shown_without_dot_dot(tmp_path: Path) -> None:
    # As examples/*.toml write them: db = "../arena-runs/...", shown as arena-runs/..., not examples/../arena-runs.
    (tmp_path / "examples").mkdir()
    text = GOOD.format(bots=SAMPLE_BOTS / "rps-poker").replace('"out/results.sqlite"', '"../arena-runs/r.sqlite"')
    path = tmp_path / "examples" / "t.toml"
    path.write_text(text + 'log_dir = "../arena-runs/logs"\n', encoding="utf-8")
    config = load(path)
    assert config.db == tmp_path.resolve() / "arena-runs" / "r.sqlite" and ".." not in config.db.parts
    assert config.log_dir == tmp_path.resolve() / "arena-runs" / "logs"


def test_a_good_config_loads_with_paths_relative_to_the_file(tmp_path: Path) -> None:
    config = load(write(tmp_path, GOOD.format(bots=SAMPLE_BOTS / "rps-poker")))
    assert config.game == "rps-poker"
    assert config.cycles == 2
    assert config.seed == 7
    assert config.limits.move_s == 1.5
    assert config.db == tmp_path / "out" / "results.sqlite"
    assert config.logs is False
    assert config.max_faults == DEFAULT_MAX_FAULTS
    assert [b.name for b in config.bots] == ["", "rnd"]


@pytest.mark.parametrize(
    ("change", "line", "words"),
    [
        (("cycles = 2", "cycles = 0"), 3, "cycles: must be at least 1"),
        (("cycles = 2", 'cycles = "two"'), 3, "cycles: must be an integer"),
        (("seed = 7", "sede = 7"), 4, "sede: unknown key"),
        (("move_s = 1.5", "move_s = -1"), 8, "limits.move_s: must be more than 0"),
        (("move_s = 1.5", "move_secs = 1"), 8, "limits.move_secs: unknown key"),
        (("move_s = 1.5", "move_s = true"), 8, "limits.move_s: must be"),
        (("logs = false", "logs = 1"), 12, "output.logs: must be true or false"),
        (("logs = false", "log = false"), 12, "output.log: unknown key"),
        (('name = "test"', 'format = "swiss"'), 1, "format: must be one of round-robin, gauntlet"),
        (('game = "rps-poker"', 'game = "chess"'), 2, "game: unknown game"),
        (("[limits]", "[params]\nfoo = 1\n[limits]"), 8, "params.foo: unknown parameter"),
    ],
)
def test_a_bad_key_or_value_is_an_error_naming_the_key_and_its_line(
    tmp_path: Path, change: tuple[str, str], line: int, words: str
) -> None:
    text = GOOD.format(bots=SAMPLE_BOTS / "rps-poker").replace(*change)
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert f"{path}:{line}: {words}" in str(caught.value)


def test_toml_syntax_errors_keep_tomllibs_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="line 2"):
        load(write(tmp_path, 'game = "rps-poker"\ncycles = = 3\n'))


def test_missing_bots_and_too_few_bots_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="'bots' is missing"):
        load(write(tmp_path, 'game = "rps-poker"\n'))
    with pytest.raises(ConfigError, match=r"t.toml:2: bots: a tournament needs at least two bots, found 1"):
        load(write(tmp_path, f'game = "rps-poker"\nbots = ["{SAMPLE_BOTS}/rps-poker/minimal-python"]\n'))


def test_a_glob_names_every_bot_folder_it_matches(tmp_path: Path) -> None:
    config = load(write(tmp_path, f'game = "rps-poker"\nbots = ["{SAMPLE_BOTS}/rps-poker/minimal-*"]\n'))
    found = [Path(b.text).name for b in config.bots]
    assert found == sorted(found)
    assert "minimal-python" in found and "minimal-bash" in found


def test_line_of_finds_table_keys_dotted_keys_and_inline_tables() -> None:
    text = 'a = 1\n[limits]\n# move_s = 3\nmove_s = 2\n[output]\ndb = "x"\n'
    assert line_of(text, ("a",)) == 1
    assert line_of(text, ("limits", "move_s")) == 4
    assert line_of(text, ("output",)) == 5
    assert line_of(text, ("output", "db")) == 6
    assert line_of("limits.move_s = 1\n", ("limits", "move_s")) == 1
    assert line_of("x = 1\nlimits = { startup_s = 1, move_s = 2 }\n", ("limits", "move_s")) == 2
    assert line_of(text, ("nowhere",)) is None


def test_the_shipped_example_config_loads() -> None:
    config = load(REPO / "examples" / "rps-poker-round-robin.toml")
    assert config.game == "rps-poker"
    assert len(config.bots) >= 5


@pytest.mark.parametrize("make", ["binary", "folder", "missing"])
def test_a_config_that_is_not_a_readable_text_file_is_a_one_line_error(tmp_path: Path, make: str) -> None:
    from arena.server.config import load as load_server

    path = tmp_path / "config.toml"
    if make == "binary":
        path.write_bytes(b"\xff\xfe\x00game")
    elif make == "folder":
        path.mkdir()
    for reader, what in ((load, "tournament config"), (load_server, "server config")):
        with pytest.raises(
            ConfigError, match=f"not UTF-8 text.*a {what}" if make == "binary" else f"cannot read {what}"
        ):
            reader(path)


def test_command_line_output_options_override_the_config_file(tmp_path: Path) -> None:
    from arena.cli import build_parser
    from arena.competition.cli import config_from_args

    config_file = REPO / "examples" / "rps-poker-round-robin.toml"
    words = ["tournament", str(config_file), "--log-dir", str(tmp_path / "logs"), "--db", str(tmp_path / "r.db")]
    config = config_from_args(build_parser().parse_args(words))
    assert config.log_dir == tmp_path / "logs"
    assert config.db == tmp_path / "r.db"
    assert (
        config_from_args(build_parser().parse_args(["tournament", str(config_file)])).log_dir
        == load(config_file).log_dir
    )
