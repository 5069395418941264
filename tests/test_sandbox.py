"""Each isolation layer on its own, checked with the canary bot; and the whole sandbox as an unprivileged user.

A layer the machine lacks is skipped with the reason the probe gave.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.checks.sandbox import verify
from arena.sandbox import SandboxPolicy, capabilities, configure, current_policy, level, summary

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def only() -> Iterator[object]:
    saved = current_policy()

    def use(*layers: str) -> None:
        for layer in layers:
            if layer not in capabilities().available:
                pytest.skip(f"layer {layer!r} is not available here: {capabilities().missing.get(layer)}")
        configure(SandboxPolicy(layers=frozenset(layers)))

    yield use
    configure(saved)


@pytest.mark.parametrize(
    ("layers", "props"),
    [
        (("landlock",), ("secret", "write_outside")),
        (("netns",), ("network",)),
        (("seccomp",), ("network",)),
        (("pidns",), ("escape",)),
        (("cgroup",), ("fork_bomb", "memory_hog", "cpu_children", "escape")),
        (("uid", "rlimits"), ("fork_bomb",)),
        (("bwrap",), ("network", "secret", "write_outside", "escape")),
        ((), ("stdout_flood", "cpu_children")),
    ],
)
async def test_a_layer_alone_holds_its_properties(layers: tuple[str, ...], props: tuple[str, ...], only) -> None:  # type: ignore[no-untyped-def]
    only(*layers)
    verdicts = await verify()
    for prop in props:
        assert verdicts[prop].held, f"{prop} under {layers}: {verdicts[prop].detail}"


async def test_with_no_layer_the_canary_breaks_out(only) -> None:  # type: ignore[no-untyped-def]
    only()
    verdicts = await verify()
    # The canary is honest: without layers it reads, writes and reaches the network.
    assert not verdicts["secret"].held and not verdicts["write_outside"].held and not verdicts["network"].held
    assert level() in ("none", "basic")


def test_summary_names_a_mechanism_for_every_property_or_says_nothing_holds_it() -> None:
    info = summary()
    assert set(info["properties"]) >= {"network", "secret", "escape", "stdout_flood"}
    assert info["properties"]["stdout_flood"], "the arena's own output caps always hold"
    json.dumps(info)


def test_below_the_minimum_untrusted_bots_need_the_explicit_flag(only) -> None:  # type: ignore[no-untyped-def]
    from arena._errors import ConfigError
    from arena.sandbox import check_minimum

    only()
    with pytest.raises(ConfigError, match="--allow-weak-sandbox"):
        check_minimum("isolated", allow_weak=False)
    check_minimum("isolated", allow_weak=True)


def test_the_whole_sandbox_holds_for_an_unprivileged_user() -> None:
    setpriv, python = shutil.which("setpriv"), "/usr/bin/python3"
    if os.geteuid() != 0 or setpriv is None or not Path(python).exists():
        pytest.skip("needs root, setpriv and /usr/bin/python3 to run the arena as uid 65534")
    with tempfile.TemporaryDirectory(prefix="arena-unprivileged-") as folder:
        Path(folder).chmod(0o777)  # pytest's own tmp_path is private to root
        _run_unprivileged(Path(folder), setpriv, python)


def _run_unprivileged(tmp_path: Path, setpriv: str, python: str) -> None:
    site = next(Path(sys.prefix, "lib").glob("python3*/site-packages"))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(tmp_path),
           "PYTHONPATH": f"{REPO}:{site}"}  # fmt: skip
    done = subprocess.run(
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python, "-m", "arena", "sandbox", "--json"],
        capture_output=True, env=env, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert report["euid"] == 65534
    failed = {k: v["detail"] for k, v in report["canary"].items() if not v["held"]}
    held_by_something = {k for k, v in report["properties"].items() if v}
    assert not (set(failed) & held_by_something), failed
