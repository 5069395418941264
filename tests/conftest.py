"""Fixtures shared by every test: above all, no bot process may outlive a test."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLE_BOTS = REPO / "sample_bots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
"""The system's chromium, which the browser tests drive through Playwright (nothing is downloaded)."""
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Bytecode is cached even where the environment says not to (PYTHONDONTWRITEBYTECODE, as some shells and containers
# set): the suite starts hundreds of `arena` processes, and each would compile the 40 to 70 modules it imports from
# source, about 0.15 s of CPU more per start (an `arena play` took 0.59 s of CPU against 0.45 s). The caches go to
# __pycache__ folders, which git ignores and every copy the tests make leaves out. Set here, before any test module is
# imported (and pytest rewrites and caches it) and before pytest-xdist starts its workers, which inherit it.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

# The suite runs as a user runs arena, in its activated virtual environment (README: `source .venv/bin/activate`):
# a bot's `python3` is the venv's. ./test.sh starts .venv/bin/python without activating it, so `python3` was whatever
# came first on the machine's PATH: on this project's machines a pyenv shim, whose Python imports certifi at each start
# from a .pth file of its site-packages (43 ms of CPU a start, against 11 ms for the venv's; the suite starts some
# 4,000 Python bots). Set before the workers start, which inherit it.
_VENV_BIN = str(Path(sys.executable).parent)
if sys.prefix != sys.base_prefix and os.environ.get("PATH", "").split(os.pathsep)[0] != _VENV_BIN:
    os.environ["PATH"] = os.pathsep.join((_VENV_BIN, os.environ.get("PATH", "")))


SLOW_FIXTURES = {
    "browser": "drives chromium",
    "clone": "runs the documented commands, `arena` in a shell, in a copy of the repository",
    "cluster": "starts a Dask cluster of worker processes",
    "wheel": "builds the wheel with pip",
}
"""Fixtures whose tests are ``slow`` whatever their own markers say, as are the tests marked ``cluster`` and those of
the ``*_browser.py`` files: the quick subset (``-m "not slow"``, docs/development.md) starts no ``arena`` process,
server, browser or cluster."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if (
            SLOW_FIXTURES.keys() & set(getattr(item, "fixturenames", ()))
            or item.get_closest_marker("cluster")
            or item.path.name.endswith("_browser.py")  # drives chromium, with or without the fixture
        ):
            item.add_marker(pytest.mark.slow)


def _our_bot_processes() -> set[int]:
    """Pids of live processes this test process started for bots (launchers, what they hold, our jails' cgroups)."""
    from arena.sandbox import started_by

    return {proc.pid for proc in started_by(os.getpid())}


@pytest.fixture(autouse=True)
def no_process_left_behind() -> Iterator[None]:
    """Fail a test that leaves a bot process (or any descendant of ours) alive, and kill it."""
    before = psutil.Process().children(recursive=True)
    before_children = {p.pid for p in before}
    # A browser that outlives the test (conftest's module-wide chromium) starts and ends renderers as it likes: its
    # processes are not the test's. A driver the test started itself is new, and is counted with all it holds.
    drivers = {p.pid for p in before if _is_playwright_driver(p)}
    yield
    deadline = time.monotonic() + 2.0
    while True:
        left = _our_bot_processes() | {
            p.pid
            for p in psutil.Process().children(recursive=True)
            if p.pid not in before_children and _alive(p) and not _under(p, drivers)
        }
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    for pid in left:
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).kill()
    assert not left, f"processes left behind: {sorted(left)}"


def _is_playwright_driver(proc: psutil.Process) -> bool:
    try:
        command = proc.cmdline()
    except psutil.Error:
        return False
    return bool(command) and Path(command[0]).parent.name == "driver" and "playwright" in command[0]


def _under(proc: psutil.Process, ancestors: set[int]) -> bool:
    try:
        return any(parent.pid in ancestors for parent in proc.parents())
    except psutil.Error:
        return False


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.fixture
def own_build_root(tmp_path: Path) -> Iterator[Path]:
    """Builds go to a build root of this test's own (they are otherwise kept per content, across runs)."""
    from arena.sandbox import configure, current_policy

    saved = current_policy()
    configure(dataclasses.replace(saved, build_root=tmp_path / "builds"))
    yield tmp_path / "builds"
    configure(saved)


@pytest.fixture
def shared_dir() -> Path:
    """The reference material beside the checkout; skips when absent (a user's clone has none)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is absent (it exists only beside the project's own checkout)")
    return SHARED


def protocol_readme_section(title: str) -> str:
    """The section of protocol/README.md under the heading ``### {title}...`` (up to the next heading)."""
    readme = (REPO / "protocol" / "README.md").read_text(encoding="utf-8")
    return readme.split(f"### {title}", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]


def readme_exchange(title: str) -> list[str]:
    """The JSON lines of a game's example exchange in protocol/README.md (``> {...}`` and ``< {...}``)."""
    return [line[2:] for line in protocol_readme_section(title).splitlines() if line.startswith(("> {", "< {"))]


def seen_by(records: list[dict[str, Any]], seat: str, *, abbreviate_limits: bool = False) -> list[str]:
    """What ``seat`` was sent and answered in a match log, as compact JSON lines, then the ``quit`` it gets.

    With ``abbreviate_limits``, a limits object reads ``{...}``, as the README writes it.
    """
    seen = []
    for record in records:
        if record.get("seat") == seat and record["type"] in ("send", "recv"):
            msg = dict(record["msg"])
            if abbreviate_limits and "limits" in msg:
                msg["limits"] = "..."
            seen.append(json.dumps(msg, separators=(",", ":")).replace('"limits":"..."', '"limits":{...}'))
    return [*seen, '{"type":"quit"}']


def recorded(db: Path) -> int:
    """Matches recorded in the results database ``db`` (read-only: a tournament may be writing it meanwhile)."""
    if not db.exists():
        return 0
    try:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(connection.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        finally:
            connection.close()
    except sqlite3.Error:
        return 0


@contextlib.contextmanager
def launched_chromium() -> Iterator[Any]:
    """A chromium driven by a Playwright of its own, closed after (the test is skipped without them)."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A chromium driven by Playwright, one per test module (the test is skipped without them).

    Launched once for a module's tests (each its own contexts, see :func:`browser`) rather than once a test: a launch
    costs a second or two of CPU. Not once a session: while Playwright's sync API is started, asyncio takes its loop
    to be running in this thread (``sync_playwright()`` in another module would refuse to start). A first page is
    opened and closed at once, so that the helper processes chromium keeps (GPU, network, storage) are started
    before a test counts the processes it leaves behind.
    """
    with launched_chromium() as launched:
        warm = launched.new_page()
        warm.set_content("<p>warm</p>")
        warm.context.close()
        yield launched


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The module's chromium (:func:`chromium`); the contexts and pages a test opens in it are closed after it."""
    yield chromium
    for context in chromium.contexts:
        context.close()
