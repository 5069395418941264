"""The canary against combinations of layers: what it shows must be what the layers claim; and as an unprivileged user.

A layer the machine lacks is skipped with the reason the probe gave.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arena.checks.sandbox import verify
from arena.sandbox import PROPERTIES, SandboxPolicy, capabilities, configure, current_policy, level, summary

REPO = Path(__file__).resolve().parents[1]
EVERY = tuple(PROPERTIES)


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


ALL = ("uid", "cgroup", "pidns", "netns", "mntns", "landlock", "seccomp", "bwrap", "rlimits")


@pytest.mark.parametrize(
    ("layers", "held"),
    [
        (ALL, EVERY),
        # A root container without namespaces: no abstract socket or /proc of its own.
        (("uid", "cgroup", "landlock", "seccomp", "rlimits"), set(EVERY) - {"collusion"}),
        # Namespaces, no Landlock or bubblewrap: files others may read are readable.
        (("uid", "cgroup", "pidns", "netns", "mntns", "seccomp", "rlimits"), set(EVERY) - {"secret", "build"}),
        (("bwrap", "uid", "cgroup", "rlimits"), set(EVERY) - {"kernel_surface", "collusion"}),
        (("landlock", "seccomp"), ("network", "secret", "write_outside", "disk_quota", "kernel_surface", "build")),
        (("cgroup",), ("fork_bomb", "memory_hog", "cpu_children", "escape")),
        ((), ("stdout_flood", "cpu_children", "memory_hog")),
    ],
    ids=["all", "container", "namespaces", "bwrap-no-seccomp", "landlock-seccomp", "cgroup", "none"],
)
@pytest.mark.slow
async def test_the_canary_shows_what_the_layers_claim(layers: tuple[str, ...], held: tuple[str, ...], only) -> None:  # type: ignore[no-untyped-def]
    only(*layers)
    verdicts = await verify()
    claims = summary()["properties"]
    disagree = {p: f"canary {'HELD' if v.held else 'FAIL'} ({v.detail}); claimed by {claims[p]}"
                for p, v in verdicts.items() if v.held != bool(claims[p])}  # fmt: skip
    assert not disagree, disagree
    missing = {p: verdicts[p].detail for p in held if not verdicts[p].held}
    assert not missing, missing
    rated = level(verified={p: v.held for p, v in verdicts.items()})
    assert rated == level(), "with the canary agreeing, the verified level is the claimed one"
    if layers == ALL and {"uid", "cgroup"} <= set(capabilities().available):
        assert rated == "strong"
    if not layers:
        assert rated in ("none", "basic")


def test_summary_names_a_mechanism_for_every_property_or_says_nothing_holds_it() -> None:
    info = summary()
    assert set(info["properties"]) == set(PROPERTIES)
    assert info["properties"]["stdout_flood"], "the arena's own output caps always hold"
    json.dumps(info)


def test_below_the_minimum_untrusted_bots_need_the_explicit_flag(only) -> None:  # type: ignore[no-untyped-def]
    from arena._errors import ConfigError
    from arena.sandbox import check_minimum

    only()
    with pytest.raises(ConfigError, match="--allow-weak-sandbox"):
        check_minimum("isolated", allow_weak=False)
    check_minimum("isolated", allow_weak=True)


@pytest.mark.slow
def test_the_whole_sandbox_holds_for_an_unprivileged_user() -> None:
    setpriv, python = shutil.which("setpriv"), "/usr/bin/python3"
    if os.geteuid() != 0 or setpriv is None or not Path(python).exists():
        pytest.skip("needs root, setpriv and /usr/bin/python3 to run the arena as uid 65534")
    system = subprocess.run([python, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
    if system.stdout.strip() != str(sys.version_info[:2]):
        pytest.skip(f"{python} is Python {system.stdout.strip()}, the project's packages are built for "
                    f"{sys.version_info[:2]}: uid 65534 could not import them")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="arena-unprivileged-") as folder:
        Path(folder).chmod(0o777)  # pytest's own tmp_path is private to root
        _run_unprivileged(Path(folder), setpriv, python)


IMPORTED = "import sys, arena.checks.sandbox, arena.supervisor.build, pyseccomp; print(*sys.modules)"
CHECK = """
import json, trio
from arena.checks.sandbox import as_data, verify
print(json.dumps(as_data(trio.run(verify))))
"""
"""What ``arena sandbox --json`` does, without the command line's other commands (and their imports)."""


def _readable_copy(folder: Path) -> Path:
    """The project and the packages it imports, copied where uid 65534 can read them.

    The checkout may be in a private folder (``/root``, ``mktemp -d``): the
    unprivileged arena runs from this copy, not from the checkout.
    """
    names = subprocess.run([sys.executable, "-c", IMPORTED], capture_output=True, text=True, check=True).stdout.split()
    copy = folder / "python"
    copy.mkdir()
    site = next(Path(sys.prefix, "lib").glob("python3*/site-packages")).resolve()
    for name in sorted({name.split(".")[0] for name in names}):
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):  # a module made up at run time (Cython's): nothing to copy
            continue
        origin = Path(found.origin).resolve() if found is not None and found.origin else None
        if origin is None or not origin.exists() or not (origin.is_relative_to(REPO) or origin.is_relative_to(site)):
            continue  # the standard library: /usr/bin/python3 has its own
        source = origin.parent if origin.name == "__init__.py" else origin
        if source.is_dir():
            shutil.copytree(source, copy / source.name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, copy / source.name)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
    return copy


def _run_unprivileged(tmp_path: Path, setpriv: str, python: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(tmp_path),
           "PYTHONPATH": str(_readable_copy(tmp_path))}  # fmt: skip
    done = subprocess.run(
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", CHECK],
        capture_output=True, env=env, cwd=tmp_path, timeout=300, check=False,
    )  # fmt: skip
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert report["euid"] == 65534
    disagree = {k: v["detail"] for k, v in report["canary"].items() if v["held"] != bool(report["properties"][k])}
    assert not disagree, disagree
    assert report["verified_level"] == report["level"] and report["level"] in ("isolated", "strong")
    # Without cgroups: shared memory is counted and idle CPU charged by the arena's own polling.
    held = {k for k, v in report["canary"].items() if v["held"]}
    assert {"memory_shared", "cpu_idle"} <= held, {
        k: report["canary"][k]["detail"] for k in ("memory_shared", "cpu_idle")
    }


async def test_the_fork_bomb_canary_runs_while_no_other_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # Where every bot has the arena's UID, the bomb takes the UID's whole process allowance: a canary running
    # beside it failed to fork (cpu_children: EAGAIN).
    from arena.checks import sandbox as checks

    running: set[str] = set()
    beside_the_bomb: set[str] = set()

    def fake(name: str):  # type: ignore[no-untyped-def]
        async def run() -> checks.Verdict:
            running.add(name)
            if "fork_bomb" in running:
                beside_the_bomb.update(running - {"fork_bomb"})
            await trio.sleep(0.01)
            running.discard(name)
            return checks.Verdict(True, "")

        return run

    for name in PROPERTIES:
        monkeypatch.setattr(checks, f"_{name}", fake(name))
    verdicts = await verify()
    assert set(verdicts) == set(PROPERTIES) and not beside_the_bomb
