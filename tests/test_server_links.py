"""The login links ``arena serve CONFIG --add NAME`` prints before any server has run: what address they assume."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main

from .servertools import write_config


def test_links_printed_before_the_first_start_say_they_use_the_configs_address_and_how_to_change_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    assert main(["serve", str(config), "--add", "alice"]) == 0
    said = capsys.readouterr()
    assert "alice: http://127.0.0.1:" in said.out
    address = said.out.split("alice: ")[1].split("/login/")[0]
    assert f"the links use the config's address, {address}, as no server has run from" in said.err
    assert "add --url URL to this command" in said.err
    assert main(["serve", str(config), "--add", "bob", "--url", "https://arena.example.org"]) == 0
    said = capsys.readouterr()
    assert "bob: https://arena.example.org/login/" in said.out and said.err == ""
