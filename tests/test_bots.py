import os
from pathlib import Path

import pytest

from arena import ConfigError, resolve
from arena.bots.spec import hash_path, load_folder

from .conftest import SAMPLE_BOTS


def test_folder_with_manifest(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "x"\nrun = "python3 -u bot.py --fast"\nreuse = true\n')
    (tmp_path / "bot.py").write_text("print()")
    spec = resolve(str(tmp_path))
    assert (spec.name, spec.command, spec.cwd, spec.reuse) == (
        "x",
        ("python3", "-u", "bot.py", "--fast"),
        tmp_path,
        True,
    )
    assert spec.profile == "python" and len(spec.digest) == 64


def test_folder_digest_changes_with_content_and_ignores_build_output(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('run = "./bot"\n')
    (tmp_path / "bot.c").write_text("int main(){}")
    first = hash_path(tmp_path)
    (tmp_path / ".arena-build").mkdir()
    (tmp_path / ".arena-build" / "bot").write_text("binary")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_text("cache")
    assert hash_path(tmp_path) == first
    (tmp_path / "bot.c").write_text("int main(){return 1;}")
    assert hash_path(tmp_path) != first


def test_executable_file(tmp_path: Path) -> None:
    bot = tmp_path / "mybot.bin"
    bot.write_text("#!/bin/sh\n")
    with pytest.raises(ConfigError, match="not executable: chmod \\+x it, give a command line, or make it a folder"):
        resolve(str(bot))
    os.chmod(bot, 0o755)
    spec = resolve(str(bot))
    assert spec.name == "mybot" and spec.command == (str(bot),)


def test_a_plain_source_file_of_a_scripting_language_runs_as_a_server_runs_it_uploaded_alone(tmp_path: Path) -> None:
    for name, interpreter, profile in (("a.py", "python3", "python"), ("b.js", "node", "node"), ("c.sh", "bash", "")):
        (tmp_path / name).write_text("\n")  # not executable, as a file saved from an editor or a browser
        spec = resolve(str(tmp_path / name))
        assert spec.command == (interpreter, str(tmp_path / name)) and spec.name == name[0]
        assert spec.profile == profile or not profile


def test_command_line_names_the_bot_after_its_script() -> None:
    spec = resolve(f"python3 {SAMPLE_BOTS / 'rps-poker' / 'minimal-python' / 'bot.py'}")
    assert spec.name == "bot" and spec.command[0] == "python3"


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("", "'run' must be the command"),
        ('run = "x"\nreuse = "yes"\n', "'reuse' must be false .* or \"persistent\""),
        ('run = "x"\nbuild_timeout_s = -1\n', "positive number"),
        ('run = "x"\nrun_command = "y"\n', "unknown key 'run_command'"),
        ("run = [", "bot.toml"),
    ],
)
def test_bad_manifests(tmp_path: Path, manifest: str, message: str) -> None:
    (tmp_path / "bot.toml").write_text(manifest)
    with pytest.raises(ConfigError, match=message):
        load_folder(tmp_path)


def test_folder_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"has no bot\.toml"):
        resolve(str(tmp_path))


def test_inline_code_command_line_is_a_command_not_a_path() -> None:
    code = "import sys\n" + "# padding\n" * 60 + "print(1)"
    spec = resolve(f"python3 -c '{code}'")
    assert spec.command == ("python3", "-c", code) and spec.name == "python3"


@pytest.mark.parametrize("target", ["/dev/zero", "/proc/kmsg", "elsewhere"])
def test_a_manifest_that_is_a_link_is_refused_not_followed(tmp_path: Path, target: str) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    if target == "elsewhere":
        (tmp_path / "real.toml").write_text('run = "true"\n')
        target = str(tmp_path / "real.toml")
    (folder / "bot.toml").symlink_to(target)
    with pytest.raises(ConfigError, match=r"bot.toml: cannot be read \(a link: it must be a file"):
        load_folder(folder)


def test_a_huge_manifest_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('run = "true"\n' + "# padding\n" * 10_000)
    with pytest.raises(ConfigError, match="is over 64 KiB"):
        load_folder(tmp_path)


@pytest.mark.parametrize(("reuse", "mode"), [("false", "fresh"), ("true", "reused"), ('"persistent"', "persistent")])
def test_the_three_process_modes_of_a_manifest(tmp_path: Path, reuse: str, mode: str) -> None:
    (tmp_path / "bot.toml").write_text(f'run = "python3 bot.py"\nreuse = {reuse}\n')
    spec = load_folder(tmp_path)
    assert spec.process_mode == mode
    assert spec.reuse == (mode != "fresh") and spec.persistent == (mode == "persistent")
    assert not spec.speaking("gops-text").persistent  # a text protocol has no match framing
