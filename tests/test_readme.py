"""The commands of the README and of the documentation site, run as a reader would run them: this fails
when one no longer works as shown.

Every shell command in the code blocks of README.md and of the site's pages (``docs/**/*.md`` but
``docs/_incoming/``, and ``protocol/README.md``, which the site includes) (``bash`` and ``sh`` blocks, and
plain blocks whose lines start with a command) must be listed in ``COMMANDS`` below, either to be run or with
the reason it cannot run in a test. A command added to a page but not listed fails
``test_every_documented_command_is_listed``, and so does a listed command that left every page: nothing is
left out silently. Commands are written in one form, for the shell a reader has after ``./demo.sh`` or
``./test.sh`` and ``source .venv/bin/activate``: ``arena ...``, never ``.venv/bin/arena ...``.

Commands run through bash, as written (globs, quotes), in a copy of the repository laid out as a fresh
clone, where ``arena`` (and ``python``) on the PATH run this checkout's code, as in the activated venv.
Placeholders (``LOG``, ``KEY``...) are filled with real files, and a few sizes are made small
(``--cycles 1``), as each entry says. Where a page shows a command's output (the plain code block right after
the command's block), the output must match it line by line: a ``...`` line stands for any lines, and times in
ms and time stamps are set aside. The demo's leaderboard that the docs show is what ``./demo.sh`` prints, all
13 bots and 312 matches of it (a slow test).

The other code blocks are checked too: Python blocks run, with each ``# result`` comment compared; the
minimal bots are the sample bots' own code, and the C one compiles and plays; TOML blocks are valid
manifests and configs.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.bots.spec import _MANIFEST_KEYS
from arena.competition import config as config_mod

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = [
    README,
    REPO / "protocol" / "README.md",
    *sorted(p for p in (REPO / "docs").rglob("*.md") if "_incoming" not in p.relative_to(REPO / "docs").parts),
]
"""What a reader reads: the README, and every page of the documentation site."""
COMMAND_WORDS = ("arena ", ".venv/bin/arena ", "./demo.sh", "./test.sh", "node ", "docker ", "dask ", "python")
"""How a line that is a command starts (in a plain block too; in bash and sh blocks every line counts)."""
NOT_COPIED = {".git", ".venv", "arena-runs", "build", "dist", "__pycache__", ".arena-build", "node_modules"}


@dataclass(frozen=True)
class Block:
    """A fenced code block of a page: its language, its lines, the page and the line it starts on."""

    lang: str
    lines: tuple[str, ...]
    line: int
    path: Path = README

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def blocks(path: Path | None = None) -> list[Block]:
    """Every fenced code block of ``path`` (default: of every page), indented ones (in lists) included, with
    the indent removed."""
    if path is None:
        return [block for page in PAGES for block in blocks(page)]
    found, lines = [], path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        fence = re.match(r"^(\s*)```(\w*)\s*$", lines[index])
        index += 1
        if fence is None:
            continue
        indent, lang, start, body = fence[1], fence[2], index, []
        while not lines[index].strip().startswith("```"):
            body.append(lines[index][len(indent) :])
            index += 1
        index += 1
        found.append(Block(lang, tuple(body), start, path))
    return found


def is_bot(block: Block) -> bool:
    """A block that is a bot's program in bash (the minimal bot), not commands to type."""
    return block.lang in ("bash", "sh") and any(line.startswith("while IFS= read -r line") for line in block.lines)


def is_command(block: Block, line: str) -> bool:
    return (
        bool(line.strip())
        and not is_bot(block)
        and (block.lang in ("bash", "sh") or (block.lang == "" and line.startswith(COMMAND_WORDS)))
    )


def command_key(line: str) -> str:
    """A command as a page writes it, its trailing comment and extra spaces left out."""
    return " ".join(re.sub(r"\s+#.*$", "", line).split())


def documented_commands() -> list[tuple[str, Block]]:
    """Each command of the pages (once), with the first block it is in, in the pages' order."""
    seen: dict[str, Block] = {}
    for block in blocks():
        for line in block.lines:
            if is_command(block, line):
                seen.setdefault(command_key(line), block)
    return list(seen.items())


# What to do with each command -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """Run the command: ``fill`` replaces placeholders, ``extra`` is appended (smaller sizes)."""

    fill: dict[str, str] = field(default_factory=dict)
    extra: str = ""
    status: int = 0
    output: bool = False
    """The next code block of each page that shows the command is its output: compare it."""
    says: tuple[str, ...] = ()
    """Text the output must hold (for outputs the pages do not show)."""
    needs: tuple[str, ...] = ()
    """Programs the command needs (installed by .ci/run; skipped elsewhere when missing)."""
    after: str = ""
    """A documented command whose files this one reads: it is run first (once)."""
    creates: str = ""
    """A file the command writes (relative to the clone)."""


@dataclass(frozen=True)
class Skip:
    """A command that cannot run in a test, and why."""

    reason: str


HIGH_CARD = "examples/high-card/high_card.py"
"""The game author's guide's example: a game in one file."""
PLAY_7 = "arena play rps-poker sample_bots/rps-poker/random-python sample_bots/rps-poker/minimal-bash --seed 7"
ROUND_ROBIN = "arena tournament examples/rps-poker-round-robin.toml"
ROUND_ROBIN_NAME = '"RPS Poker: Python sample bots"'
JITSU_3 = "arena play card-jitsu sample_bots/card-jitsu/set-seeker-js sample_bots/card-jitsu/random-python --seed 3"
LOG = {"LOG": "arena-runs/logs/*-card-jitsu-*-3.jsonl"}  # the log of a short match: five rounds, so --speed is quick
COMPARE = "arena compare rps-poker sample_bots/rps-poker/obvious-strats-py sample_bots/rps-poker/simple-py --seed 2024"
NEW_BOT = "arena new rps-poker python my-bot"
SERVER = "arena serve examples/rps-poker-server.toml"
SUITE = "it runs this test suite: running it from here would run the suite inside itself"
SMALLER = "--cycles 1 --no-duplicate --gauntlet"
"""Every bot plays (the first against each other), in 12 matches instead of 156."""
COMMANDS: dict[str, Run | Skip] = {
    "./demo.sh": Run(
        extra=SMALLER, says=("Leaderboard", "random-python", "minimal-python", "source .venv/bin/activate")
    ),
    "./test.sh": Skip(SUITE),
    "./test.sh tests/test_gops.py -x -q": Skip(SUITE),
    './test.sh -m "not slow"': Skip(SUITE),
    './test.sh -k "replay and not browser"': Skip(SUITE),
    "source .venv/bin/activate": Skip(
        "puts .venv/bin on the PATH: every other command here runs with this checkout's arena and python first on"
        " the PATH, as after it (the clone's .venv is a stand-in without the activate script)"
    ),
    PLAY_7: Run(output=True),
    f"arena games --game-module {HIGH_CARD}": Run(says=("high-card/1  High card: ", "/high_card.py]", "[built-in]")),
    "arena play high-card examples/high-card/bots/high examples/high-card/bots/low"
    f" --game-module {HIGH_CARD} --seed 5": Run(output=True),
    "arena tournament examples/high-card/tournament.toml": Run(says=("Leaderboard", "text-middle")),
    NEW_BOT: Run(creates="my-bot/bot.toml", says=("arena check my-bot",)),
    "arena check my-bot": Run(after=NEW_BOT, says=("my-bot: all checks passed",)),
    "arena tournament rps-poker sample_bots/rps-poker/random-python sample_bots/rps-poker/simple-py --watch": Run(
        extra="--cycles 1 --no-duplicate", says=("-- m", "  A asked draft_pick round 1", "  Result: ", "Leaderboard")
    ),
    "arena play rps-poker human sample_bots/rps-poker/random-python": Skip(
        "it waits for a person's moves; tests/test_human_seat.py plays it with its input piped"
    ),
    "arena check path/to/my-bot": Skip(
        "path/to/my-bot stands for the reader's bot; the next command checks a real one"
    ),
    "arena check examples/off-by-one-bot": Run(output=True, status=1),
    "node arena/bots/js/host.js BOT_FILE [BOT_NAME]": Skip("a synopsis with placeholders; the next command runs it"),
    'arena play rps-poker "node arena/bots/js/host.js examples/challenge-bots.js Odds"'
    " sample_bots/rps-poker/tsh-py": Run(
        says=("A: Odds  (node arena/bots/js/host.js examples/challenge-bots.js Odds)", "Result: Odds"), needs=("node",)
    ),
    "arena play gops sample_bots/gops/mimic-ruby sample_bots/gops/planner-python --param scoring=total-points": Run(
        says=("Result: mimic-ruby",), needs=("ruby",)
    ),
    JITSU_3: Run(says=("Result: set-seeker-js",), needs=("node",)),
    "arena play six-card-poker sample_bots/six-card-poker/sorted-python sample_bots/six-card-poker/fictitious-play-js"
    " --param deals=10": Run(says=("Result: sorted-python",), needs=("node",)),
    "arena play badugi sample_bots/badugi/rule-based-python sample_bots/badugi/rule-based-node --param hands=2"
    " --seed 8": Run(output=True, needs=("node",)),
    "arena tournament badugi sample_bots/badugi/* --param hands=50": Run(
        extra="--param hands=2 --no-duplicate --db arena-runs/badugi.sqlite", says=("Leaderboard",), needs=("node",)
    ),
    "arena tournament rps-poker sample_bots/rps-poker/* --cycles 4": Run(
        extra=SMALLER, says=("Leaderboard", "tsh-py", "counter-java"), needs=("node", "ruby", "gcc", "javac")
    ),
    ROUND_ROBIN: Run(extra="--cycles 1 --no-duplicate", says=("Leaderboard", "basic-odds-py")),
    "arena results arena-runs/results.sqlite": Run(says=("Leaderboard", "basic-odds-py"), after=ROUND_ROBIN),
    f"{COMPARE} --report-every 20": Run(output=True),
    COMPARE: Run(says=("H1 accepted after 105 pairs",), after=f"{COMPARE} --report-every 20"),
    "arena results arena-runs/results.sqlite --html report.html": Run(creates="report.html", after=ROUND_ROBIN),
    "arena replay LOG": Run(fill=LOG, says=("set-seeker-js",), after=JITSU_3, needs=("node",)),
    "arena replay LOG --speed 0.5": Run(fill=LOG, says=("set-seeker-js",), after=JITSU_3, needs=("node",)),
    "arena replay LOG --seat A": Run(fill=LOG, says=("jitsu_play",), after=JITSU_3, needs=("node",)),
    "arena replay LOG --verify": Run(fill=LOG, after=JITSU_3, needs=("node",)),
    "arena replay LOG --bot B=./my-bot": Run(
        fill={**LOG, "./my-bot": "sample_bots/card-jitsu/random-python"}, after=JITSU_3, needs=("node",)
    ),
    "arena replay LOG --html match.html": Run(fill=LOG, after=JITSU_3, needs=("node",)),
    "arena replay --db DB KEY": Run(fill={"DB": "arena-runs/results.sqlite", "KEY": "1"}, after=ROUND_ROBIN),
    # Match 1 is the first to finish, which depends on timing: any of the config's bots may play it.
    "arena replay --db arena-runs/results.sqlite 1": Run(says=("RPS Poker (rps-poker/1), seed",), after=ROUND_ROBIN),
    "arena results arena-runs/results.sqlite --list": Run(says=("RPS Poker: Python sample bots",), after=ROUND_ROBIN),
    f"arena results arena-runs/results.sqlite --matches --name {ROUND_ROBIN_NAME}": Run(
        says=("points A : B",), after=ROUND_ROBIN
    ),
    f"arena replay --db arena-runs/results.sqlite 3 --name {ROUND_ROBIN_NAME}": Run(
        says=("RPS Poker (rps-poker/1), seed",), after=ROUND_ROBIN
    ),
    "python benchmarks/bench_challenge.py --no-duplicate --cycles 100": Run(
        extra="--cycles 1", says=("Ranked by total turns won", "basic-odds-py")
    ),
    "dask scheduler --port 8786": Skip(
        "a server that runs until stopped; tests/test_cluster.py starts a local cluster"
    ),
    "dask worker tcp://HOST:8786 --nthreads 2": Skip("HOST stands for the reader's scheduler (tests/test_cluster.py)"),
    "arena tournament rps-poker sample_bots/rps-poker/* --seed 7 --cluster tcp://HOST:8786": Skip(
        "HOST stands for the reader's scheduler; tests/test_cluster.py plays tournaments on a local Dask cluster"
    ),
    f"{SERVER} --add alice": Run(says=("alice: http://127.0.0.1:8000/login/", "token: ")),
    f"{SERVER} --add alice --url https://arena.example.org": Run(
        says=("alice (a new token: the old one no longer works): https://arena.example.org/login/", "token: "),
        after=f"{SERVER} --add alice",
    ),
    f"{SERVER} --admin-token --url https://arena.example.org": Run(
        says=("organiser: https://arena.example.org/login/", "token: ")
    ),
    SERVER: Skip(
        "a server that runs until stopped; tests/test_server_live.py and tests/test_server_browser.py start it"
    ),
    f"{SERVER} --self-check": Run(says=("examples/rps-poker-server.toml: every check passed",)),
    "read -s ARENA_TOKEN && export ARENA_TOKEN": Skip(
        "waits for a participant's token typed on the terminal; the next commands need a running server"
    ),
    "arena submit http://127.0.0.1:8000 my-bot/": Skip(
        "needs a running server and a participant's token; tests/test_server_live.py submits to one"
    ),
    "arena submit http://127.0.0.1:8000 my-bot/ --token-file ~/.arena-token": Skip(
        "needs a running server and a token file; tests/test_server_accounts.py submits with one"
    ),
    f"{SERVER} --backup /backups/arena-2026-11-26": Skip(
        "needs a running server; tests/test_server_retention.py backs one up while it serves and restores it"
    ),
    f"{SERVER} --data-dir /backups/arena-2026-11-26": Skip(
        "serves a backup; tests/test_server_retention.py starts a server from one"
    ),
    f"{SERVER} --vacuum": Skip("needs a server's data folder; tests/test_server_retention.py runs it on one"),
    "docker compose -f docker/compose.yaml up --build": Skip(
        "needs a Docker engine, which CI has not; tests/test_docker.py lints the Dockerfile and checks compose.yaml"
    ),
    "docker compose -f docker/compose.yaml up --build --scale worker=6": Skip("needs a Docker engine (as above)"),
    "docker compose -f docker/compose.yaml exec server arena serve examples/rps-poker-server.toml --self-check": Skip(
        "needs a Docker engine (as above); the same self-check runs on the host above"
    ),
    "docker compose -f docker/compose.yaml run --rm server arena serve /opt/arena/examples/rps-poker-server.toml"
    " --self-check": Skip("needs a Docker engine (as above)"),
    "docker compose -f docker/compose.yaml run --rm coordinator arena results arena-runs/results.sqlite": Skip(
        "needs a Docker engine (as above)"
    ),
    "arena new-game high-low": Run(creates="high-low/pyproject.toml", says=("pip install -e high-low",)),
    "pip install -e high-low": Skip(
        "installs into the reader's environment; tests/test_new_game.py installs a new game with pip install -e"
        " into a virtual environment of its own and runs check-game, check and its tests there"
    ),
    "arena check-game high-low": Skip("needs the game installed (above); tests/test_new_game.py runs it"),
    "arena check high-low/high_low_game/bots/random": Skip(
        "needs the game installed (above); tests/test_new_game.py runs it"
    ),
    "arena check-game gops": Run(says=("PASS  determinism: ", "gops: all checks passed")),
    f"arena new high-card c --game-module {HIGH_CARD}": Run(
        creates="high-card-c/bot.c", says=("from the C starter for High card", "arena check high-card-c")
    ),
    "arena check-game high-card --game-module examples/high-card/high_card.py": Run(
        says=("PASS  hidden information: ", "high-card: all checks passed")
    ),
    "pip install examples/kuhn-poker": Skip(
        "installs into the reader's environment; tests/test_kuhn_example.py installs it with pip into a folder"
        " of its own and lists, checks, plays, runs a tournament of and replays it"
    ),
    "arena games kuhn-poker": Skip("needs the game installed (above); tests/test_kuhn_example.py runs it"),
    "python benchmarks/bench_kuhn.py": Skip(
        "needs the game installed, and plays 60,000 hands of real matches (minutes); the page shows its figures"
    ),
    "python scripts/regen_golden.py": Skip("it rewrites tests/golden/, which tests/test_golden.py checks"),
    "ruff check .": Skip(".ci/run runs it after the suite"),
    "ruff format --check .": Skip(".ci/run runs it after the suite"),
    "mypy": Skip(".ci/run runs it after the suite"),
    "mkdocs build --strict --site-dir site": Skip(
        "tests/test_docs_site.py builds the site so (into a temporary folder rather than site/)"
    ),
}


def test_every_documented_command_is_listed() -> None:
    found = documented_commands()
    unknown = [f"{block.where}: {key}" for key, block in found if key not in COMMANDS]
    assert not unknown, "commands this test does not know (add each to COMMANDS: run it, or say why not):\n" + (
        "\n".join(unknown)
    )
    keys = {key for key, _ in found}
    gone = [key for key in COMMANDS if key not in keys]
    assert not gone, "COMMANDS lists commands no page has any more:\n" + "\n".join(gone)


def test_the_pages_write_commands_in_one_form() -> None:
    # The shell a reader has after the two commands and `source .venv/bin/activate`: `arena`, `python`.
    other = [f"{block.where}: {key}" for key, block in documented_commands() if key.startswith(".venv/")]
    assert not other, "write these as after `source .venv/bin/activate` (arena ..., python ...):\n" + "\n".join(other)
    for script in ("demo.sh", "test.sh"):
        assert "source .venv/bin/activate" in (REPO / script).read_text(encoding="utf-8"), f"{script} does not say it"


# The clone the commands run in ------------------------------------------------------------------------------
@dataclass
class Clone:
    root: Path
    env: dict[str, str]
    done: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)

    def run(self, command: str) -> subprocess.CompletedProcess[str]:
        """Run a documented command (as listed in COMMANDS) once; later calls give the same result."""
        if command not in self.done:
            how = COMMANDS[command]
            assert isinstance(how, Run)
            if how.after:
                self.run(how.after)
            line = command
            for placeholder, value in how.fill.items():
                line = re.sub(rf"(?<![\w/.-]){re.escape(placeholder)}(?![\w/.-])", value, line)
            self.done[command] = subprocess.run(
                ["bash", "-c", f"{line} {how.extra}"],
                cwd=self.root,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=600,
                stdin=subprocess.DEVNULL,
            )
        return self.done[command]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clone]:
    root = tmp_path_factory.mktemp("readme") / "arena"
    shutil.copytree(REPO, root, ignore=lambda folder, names: [n for n in names if n in NOT_COPIED], symlinks=True)
    bin_dir = root.parent / "bin"
    bin_dir.mkdir()
    venv_bin = root / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    arena = f'#!/bin/sh\nexec "{sys.executable}" -m arena "$@"\n'
    for script in (bin_dir / "arena", venv_bin / "arena"):
        script.write_text(arena, encoding="utf-8")
        script.chmod(0o755)
    # The activated venv's python. A script, not a link: a link to the venv's python from another folder
    # finds no pyvenv.cfg, so it runs without the venv's packages, and a script that starts `sys.executable`
    # (bench_challenge.py starts arena so) would too.
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    (bin_dir / "python").chmod(0o755)
    # ./demo.sh sets up .venv first: this stand-in says "already installed" (the stamp scripts/bootstrap.sh
    # writes), and refuses pip, so the test can never install into the venv it runs from.
    python = venv_bin / "python"
    python.write_text(
        f'#!/bin/sh\n[ "$1" = "-m" ] && [ "$2" = "pip" ] && {{ echo "readme test: no pip here" >&2; exit 1; }}\n'
        f'exec "{sys.executable}" "$@"\n',
        encoding="utf-8",
    )
    python.chmod(0o755)
    import hashlib

    stamp = hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()[:16]
    (root / ".venv" / ".arena-installed").write_text(stamp + "\n", encoding="utf-8")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(root), "COLUMNS": "200"}
    env.pop("CI", None)  # the demo's own behaviour, not CI's
    yield Clone(root, env)


def runnable() -> list[str]:
    return [key for key, how in COMMANDS.items() if isinstance(how, Run)]


@pytest.mark.parametrize("command", runnable(), ids=[command[:80] for command in runnable()])
def test_readme_command_works_as_shown(command: str, clone: Clone) -> None:
    how = COMMANDS[command]
    assert isinstance(how, Run)
    missing = [program for program in how.needs if shutil.which(program) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {', '.join(missing)} (.ci/run installs it)")
        pytest.skip(f"needs {', '.join(missing)}, not installed here (CI installs it)")
    done = clone.run(command)
    shown = f"$ {command} {how.extra}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert done.returncode == how.status, shown
    assert "Traceback" not in done.stderr, shown
    for text in how.says:
        assert text in done.stdout, f"{text!r} not in the output\n{shown}"
    if how.creates:
        assert (clone.root / how.creates).stat().st_size > 0, f"{how.creates} was not written\n{shown}"
    if how.output:
        outputs = outputs_shown_after(command)
        assert outputs, f"no page shows the output of {command}"
        for output in outputs:
            mismatch = compare(list(output.lines), done.stdout.splitlines())
            assert mismatch is None, f"{output.where} shows another output ({mismatch}):\n{shown}"


DEMO_RUNTIMES = ("node", "ruby", "gcc", "javac")
"""What the sample bots of the demo need: with all of them, ./demo.sh plays the 13 bots the docs show."""


@pytest.mark.slow
def test_the_demo_leaderboard_shown_is_what_demo_sh_prints(clone: Clone) -> None:
    missing = [program for program in DEMO_RUNTIMES if shutil.which(program) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {', '.join(missing)} (.ci/run installs it)")
        pytest.skip(f"the demo's 13 bots need {', '.join(missing)}, not installed here")
    (shown,) = [b for b in blocks() if b.lines and b.lines[0].startswith("Leaderboard (312 matches of 312)")]
    # The demo as a reader runs it, in an 80-column terminal; its own database, so the other demo run here
    # (made smaller) is not in its way.
    done = subprocess.run(
        ["bash", "-c", "./demo.sh --fresh --db arena-runs/demo-shown.sqlite --log-dir arena-runs/demo-shown-logs"],
        cwd=clone.root,
        env={**clone.env, "COLUMNS": "80"},
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    start = next((n for n, line in enumerate(printed) if line.startswith("Leaderboard (")), None)
    assert start is not None, done.stdout
    got = [normalised(line) for line in printed[start : start + len(shown.lines)]]
    assert got == [normalised(line) for line in shown.lines], (
        f"{shown.where} shows another leaderboard than ./demo.sh prints (run it with COLUMNS=80 and copy it):\n"
        + "\n".join(printed[start:])
    )


def outputs_shown_after(command: str) -> list[Block]:
    """The output each page shows for ``command``: the plain code block right after a block holding it."""
    found = []
    for page in PAGES:
        page_blocks = blocks(page)
        for block, after in itertools.pairwise(page_blocks):
            holds = any(command_key(line) == command for line in block.lines if is_command(block, line))
            if holds and after.lang in ("", "text") and not any(is_command(after, line) for line in after.lines):
                found.append(after)
    return found


def normalised(line: str) -> str:
    """A line with what changes from run to run set aside: times in ms, time stamps, and the CPU count."""
    line = re.sub(r"\d{8}T\d{6}", "<stamp>", line)
    line = re.sub(r"\b\d+ at once\b", "<n> at once", line)  # --jobs defaults to the CPU count
    line = re.sub(r"; \d+ more recorded, in pairs it did not count\)", ")", line)  # compare: what was in play
    return re.sub(r"\b\d+ ms\b", "<n> ms", line).rstrip()


def compare(expected: list[str], actual: list[str]) -> str | None:
    """``None`` when ``actual`` is ``expected`` (where a ``...`` line stands for any lines), else what differs."""
    pattern = [None if line.strip() == "..." else normalised(line) for line in expected]
    got = [normalised(line) for line in actual]

    @functools.cache
    def match(p: int, a: int) -> bool:
        if p == len(pattern):
            return a == len(got)
        if pattern[p] is None:
            return any(match(p + 1, later) for later in range(a, len(got) + 1))
        return a < len(got) and got[a] == pattern[p] and match(p + 1, a + 1)

    if match(0, 0):
        return None
    shown_lines = [line for line in pattern if line is not None]
    first_missing = next((line for line in shown_lines if line not in got), None)
    return (
        f"first line shown but not printed: {first_missing!r}" if first_missing else "the lines come in another order"
    )


# The other code blocks -----------------------------------------------------------------------------------------
def test_python_blocks_run_and_give_the_results_shown() -> None:
    python = [block for block in blocks() if block.lang == "python"]
    checked = 0
    for block in python:
        if any(line.startswith("for line in sys.stdin") for line in block.lines):
            continue  # the minimal bot: test_the_minimal_bots_are_the_sample_bots
        scope: dict[str, object] = {}
        for line in block.lines:
            code, _, comment = line.partition("  # ")
            if not code.strip():
                continue
            if not comment:
                exec(code, scope)
                continue
            value = repr(eval(code, scope))
            shown = comment.split(": ")[0].strip()
            assert value == shown, f"{block.where}: {code.strip()} gives {value}, the page says {shown}"
            checked += 1
    assert checked >= 5


def test_the_minimal_bots_are_the_sample_bots() -> None:
    sample = REPO / "sample_bots" / "rps-poker"
    bots = (("python", "minimal-python", "bot.py"), ("js", "minimal-js", "bot.js"), ("bash", "minimal-bash", "bot.sh"))
    for lang, folder, file in bots:
        shown = [
            b for b in blocks() if b.lang == lang and any("stdin" in line or "read -r" in line for line in b.lines)
        ]
        assert shown, f"no page shows the minimal {lang} bot"
        code = (sample / folder / file).read_text(encoding="utf-8")
        for block in shown:
            assert "\n".join(block.lines).strip() in code, f"the {lang} bot at {block.where} is not {folder}/{file}"


@pytest.mark.slow
def test_the_c_bot_compiles_and_plays(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have gcc")
        pytest.skip("gcc is not installed")
    (c_block,) = [block for block in blocks() if block.lang == "c"]
    (tmp_path / "bot.c").write_text("\n".join(c_block.lines) + "\n", encoding="utf-8")
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", "bot", "bot.c"], cwd=tmp_path, check=True)
    opponent = str(REPO / "sample_bots/rps-poker/minimal-python")
    played = subprocess.run(
        [sys.executable, "-m", "arena", "play", "rps-poker", "./bot", opponent, "--seed", "1", "--no-log", "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert played.returncode == 0 and "Result: bot" in played.stdout and "fault" not in played.stdout, played.stdout


def test_toml_blocks_are_valid_manifests_and_configs(tmp_path: Path) -> None:
    for block in blocks():
        if block.lang != "toml":
            continue
        text = "\n".join(block.lines)
        data = tomllib.loads(text)
        if not set(data) <= _MANIFEST_KEYS:  # a config; its paths are relative to a file in examples/ of a clone
            if not (tmp_path / "sample_bots").exists():
                (tmp_path / "sample_bots").symlink_to(REPO / "sample_bots", target_is_directory=True)
            (tmp_path / "examples").mkdir(exist_ok=True)
            path = tmp_path / "examples" / f"readme-{block.path.stem}-{block.line}.toml"
            path.write_text(text, encoding="utf-8")
            if "house_bots" in data or "server" in data:  # a competition server's
                from arena.server.config import load as load_server

                assert load_server(path).house_bots, f"{block.where}: a server config with no house bot"
            else:
                config = config_mod.load(path)
                assert len(config.bots) >= 2
        else:
            assert set(data) <= _MANIFEST_KEYS, f"{block.where}: not a bot.toml: {sorted(data)}"
            assert "run" in data or "build" in data or "protocol" in data
