"""The benchmarks' command lines and what they print, without running their (long) matches."""

from __future__ import annotations

import argparse
import importlib.util
from types import ModuleType

from arena.supervisor.options import sandbox_args

from .conftest import REPO


def bench(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_challenge_takes_the_options_the_readme_gives_it() -> None:
    challenge = bench("bench_challenge")
    args = challenge.parse_args(["--no-duplicate", "--cycles", "100"])  # as the README words it
    assert (args.duplicate, args.cycles) == (False, 100)
    assert challenge.parse_args([]).duplicate is False, "the challenge's format by default"
    assert challenge.parse_args(["--duplicate"]).duplicate is True


def test_bench_challenge_ranks_by_the_turns_won_it_prints() -> None:
    # The order `arena results` gives (by rating) is not the order of turns won.
    by_rating = {"basic-odds-py": 52_000.0, "tsh-py": 50_500.0, "simple-py": 49_000.0, "obvious-strats-py": 49_800.0}
    lines = bench("bench_challenge").ranking(by_rating)
    assert [line.split()[:2] for line in lines] == [
        ["1.", "basic-odds-py"],
        ["2.", "tsh-py"],
        ["3.", "obvious-strats-py"],
        ["4.", "simple-py"],
    ]
    won = [float(line.split()[2]) for line in lines]
    assert won == sorted(won, reverse=True)


def test_disk_option_is_in_mib_and_its_help_says_so() -> None:
    parser = argparse.ArgumentParser()
    sandbox_args(parser.add_argument_group())
    disk = next(action for action in parser._actions if "--disk" in action.option_strings)
    assert disk.metavar == "MIB" and disk.help is not None
    assert disk.help.startswith("MiB ") and "bytes" not in disk.help
