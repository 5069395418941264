"""``arena serve`` and the sandbox: its level at start, ``sandbox_min``, data kept out of the jails, the self-check.

The level is forced lower with ``ARENA_SANDBOX_LAYERS`` (the layers a bot may
get), as an organiser's machine without them would have it.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena._errors import ConfigError
from arena.sandbox import SandboxPolicy, capabilities, unheld
from arena.server.config import load

from .conftest import REPO, SAMPLE_BOTS
from .servertools import server_process, write_config

WEAK = "landlock,seccomp,rlimits"
"""Layers that hold less than every property (no namespaces: two bots of a match can find each other)."""
EXAMPLE = REPO / "examples" / "rps-poker-server.toml"


def serve(config: Path, *extra: str, layers: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_SANDBOX_LAYERS": layers} if layers else dict(os.environ)
    env.pop("ARENA_DATA_DIR", None)
    return subprocess.run([sys.executable, "-m", "arena", "serve", str(config), *extra], capture_output=True,
                          text=True, env=env, timeout=timeout, check=False)  # fmt: skip


def weak_here() -> None:
    missing = [layer for layer in WEAK.split(",") if layer not in capabilities().available]
    if missing:
        pytest.skip(f"layers {missing} are not available here")
    if not unheld(SandboxPolicy(layers=frozenset(WEAK.split(",")))):
        pytest.skip(f"{WEAK} holds every property here")


@pytest.mark.slow
def test_serve_prints_its_sandbox_level_at_start(tmp_path: Path) -> None:
    if unheld():
        pytest.skip(f"the sandbox here does not hold {unheld()}: arena serve refuses (the next test)")
    with server_process(write_config(tmp_path)) as server:
        lines = [line for line in server.output if line.startswith("sandbox: ")]
    assert lines and re.match(r"sandbox: (all|strong) \(every property held; layers: ", lines[0]), server.output


@pytest.mark.slow
def test_serve_refuses_strangers_below_sandbox_min_and_makes_nothing(tmp_path: Path) -> None:
    weak_here()
    config = write_config(tmp_path)
    done = serve(config, layers=WEAK)
    assert done.returncode != 0
    message = done.stderr.strip().splitlines()
    assert len(message) == 1, done.stderr  # one line, no traceback
    assert "below sandbox_min = 'all'" in message[0] and "collusion" in message[0], message[0]
    assert "SYS_ADMIN" in message[0] and f"set sandbox_min lower in {config}" in message[0]
    assert not (tmp_path / "data").exists(), "a refused server made its data folder"


@pytest.mark.slow
def test_serve_serves_below_all_when_the_config_accepts_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    weak_here()
    monkeypatch.setenv("ARENA_SANDBOX_LAYERS", WEAK)
    config = write_config(tmp_path, extra='sandbox_min = "basic"')
    with server_process(config) as server:
        lines = [line for line in server.output if line.startswith("sandbox: ")]
    assert lines and "not held: " in lines[0] and "collusion" in lines[0], server.output
    assert "sandbox_min = 'basic'" in lines[0]


@pytest.mark.slow
def test_a_wrong_sandbox_min_is_a_config_error_naming_the_levels(tmp_path: Path) -> None:
    done = serve(write_config(tmp_path, extra='sandbox_min = "paranoid"'))
    assert done.returncode != 0 and "sandbox_min" in done.stderr
    assert "none, basic, isolated, all, strong" in done.stderr


@pytest.mark.slow
def test_serve_refuses_a_data_dir_in_a_folder_every_jail_reads(tmp_path: Path) -> None:
    # Issue 27 item 4: in the Docker layout data_dir was under /opt, which bubblewrap binds into every jail.
    if "bwrap" not in capabilities().available and "landlock" not in capabilities().available:
        pytest.skip("no layer confines what a jail reads here: sandbox_min refuses it instead")
    inside = Path(sys.prefix) / f"arena-test-data-{secrets.token_hex(4)}"  # the arena's Python: read by every jail
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace(f'data_dir = "{tmp_path / "data"}"', f'data_dir = "{inside}"'))
    try:
        done = serve(config, "--port", "0", timeout=60)
    finally:
        shutil.rmtree(inside, ignore_errors=True)
    assert done.returncode != 0
    (message,) = done.stderr.strip().splitlines()
    assert f"data_dir {inside} lies in " in message and "any bot could read" in message, message
    assert "--data-dir" in message


def example_without_seed(tmp_path: Path) -> Path:
    """The shipped example server config, its data in ``tmp_path``, without the seed (the server keeps its own)."""
    text = EXAMPLE.read_text()
    text = re.sub(r"^seed = .*\n", "", text, flags=re.MULTILINE)
    text = text.replace('"../sample_bots/', f'"{SAMPLE_BOTS}/')
    text = re.sub(r"^data_dir = .*$", f'data_dir = "{tmp_path / "data"}"', text, flags=re.MULTILINE)
    path = tmp_path / "server.toml"
    path.write_text(text)
    return path


@pytest.mark.slow
def test_the_self_check_passes_on_the_example_server_config(tmp_path: Path) -> None:
    if unheld():
        pytest.skip(f"the sandbox here does not hold {unheld()}")
    done = serve(example_without_seed(tmp_path), "--self-check")
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    checks = [line for line in lines if line.startswith(("PASS", "FAIL"))]
    assert checks and all(line.startswith("PASS") for line in checks), lines
    names = " ".join(checks)
    for name in ("no seed in the config", "no seed on the pages", "data unreadable from a jail",
                 "sandbox canary collusion", "sandbox level shown by the canary"):  # fmt: skip
        assert name in names


@pytest.mark.slow
def test_the_self_check_fails_a_seed_and_data_a_jail_can_read(tmp_path: Path) -> None:
    config = example_without_seed(tmp_path)
    text = 'sandbox_min = "none"\n' + config.read_text()
    config.write_text("seed = 2021\n" + text)
    done = serve(config, "--self-check")
    assert done.returncode == 2 and "seed: a server keeps its deals' seed secret" in done.stderr, done.stderr
    config.write_text(text)
    done = serve(config, "--self-check", layers="rlimits")  # no layer confines what the bot reads
    assert done.returncode == 1, done.stdout + done.stderr
    failed = {line.split(":")[0] for line in done.stdout.splitlines() if line.startswith("FAIL")}
    assert "FAIL  data unreadable from a jail" in failed, done.stdout
    assert "FAIL  sandbox canary secret" in failed
    assert done.stdout.splitlines()[-1].startswith(f"{config}: FAILED: ")


def test_the_servers_cpu_weight_is_the_configs_from_1_to_8(tmp_path: Path) -> None:
    """``server_weight``: how many times its bots the server weighs for the CPU (4 by default: pages first; 1 for
    an organiser who wants the ladder's matches first); anything else is one line naming the key."""
    assert load(write_config(tmp_path)).server_weight == 4
    assert load(write_config(tmp_path, extra="server_weight = 1")).server_weight == 1
    for wrong in ("0", "9", '"high"'):
        with pytest.raises(ConfigError, match="server_weight"):
            load(write_config(tmp_path, extra=f"server_weight = {wrong}"))
