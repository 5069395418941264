"""Background bots (a server's checks of uploads) get a small CPU weight; every other bot an ordinary one.

The weight is checked where the kernel reads it (the bot's cgroup files and
the groups its process is in), not by timing bots against each other: how
much CPU a weight buys depends on what else the machine runs
(``benchmarks/bench_server.py`` measures what it does for the ladder).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.bots.spec import resolve
from arena.checks.bot import CHECKS, Report
from arena.sandbox import _cgroup, background, capabilities
from arena.sandbox._plan import Jail
from arena.supervisor._process import BotProcess, open_bot
from arena.supervisor.play import spawn_options
from protocol import Limits

from .conftest import SAMPLE_BOTS
from .servertools import minimal_bot, running, write_config

BOT = SAMPLE_BOTS / "rps-poker" / "minimal-python"


def weighting() -> _cgroup.CgroupBase:
    base = capabilities().cgroup
    if base is None:
        pytest.skip(f"no cgroup here: {capabilities().missing.get('cgroup')}")
    if not base.background:
        pytest.skip("this machine's cgroups have no cpu controller the arena may weight")
    return base


def joined(bot: BotProcess) -> bool:
    """Whether the bot's launcher is in each of its groups but the freezer (its waiting half leaves that one)."""
    assert bot.jail is not None and bot.jail.cgroup is not None and bot.process is not None
    pid = str(bot.process.pid)
    groups = [folder for key, folder in bot.jail.cgroup.dirs.items() if key != "freezer"]
    return all(pid in (folder / "cgroup.procs").read_text().split() for folder in groups)


def weight(bot: BotProcess) -> str:
    """The bot's CPU weight as its groups set it, and whether its process is in the weighted group."""
    assert bot.jail is not None and bot.jail.cgroup is not None
    dirs = bot.jail.cgroup.dirs
    if "unified" in dirs:
        group = dirs["unified"]
        found = f"cpu.weight {(group / 'cpu.weight').read_text().strip()}"
    elif "cpu" in dirs and dirs["cpu"].parent.name == _cgroup.BACKGROUND:  # v1, cpu apart from cpuacct: the
        group = dirs["cpu"]  # background bots' common parent carries the weight
        found = f"cpu.shares {(group.parent / 'cpu.shares').read_text().strip()} (parent)"
    elif "cpu" in dirs:
        group = dirs["cpu"]
        found = f"cpu.shares {(group / 'cpu.shares').read_text().strip()}"
    elif (dirs["cpuacct"] / "cpu.shares").exists():  # v1, cpu mounted with cpuacct
        group = dirs["cpuacct"]
        found = f"cpu.shares {(group / 'cpu.shares').read_text().strip()}"
    else:
        return "not in the cpu hierarchy"
    assert bot.process is not None
    inside = str(bot.process.pid) in (group / "cgroup.procs").read_text().split()
    return found + ("" if inside else " (the bot is not in it)")


async def test_bots_started_in_the_background_and_their_tasks_get_a_small_cpu_weight() -> None:
    base = weighting()
    spec = resolve(str(BOT))
    options = spawn_options(spec, Limits(), None)
    weights: dict[str, str] = {}

    async def hold(key: str) -> None:
        async with open_bot(spec, options) as bot:
            assert bot.jail is not None and bot.jail.cgroup is not None and bot.process is not None
            # Until its launcher has joined every group (it writes its pid to each in turn before it runs the
            # bot): in one group only, it may not be in the cpu group yet (a busy machine caught it between).
            with trio.fail_after(30):
                while not joined(bot):
                    await trio.sleep(0.01)
            weights[key] = weight(bot)

    await hold("ordinary")
    with background():
        await hold("background")
        async with trio.open_nursery() as nursery:  # a task started inside inherits it
            nursery.start_soon(hold, "its task")
    await hold("after")
    small = (
        f"cpu.weight {_cgroup.BACKGROUND_WEIGHT}" if base.version == 2
        else f"cpu.shares {_cgroup.BACKGROUND_SHARES}" + (" (parent)" if "cpu" in base.parents else "")
    )  # fmt: skip
    assert weights["background"] == weights["its task"] == small
    assert weights["ordinary"] == weights["after"]
    assert weights["ordinary"] in ("cpu.weight 100", "cpu.shares 1024")


async def test_every_bot_is_in_the_arenas_cpu_group_so_all_of_them_weigh_one_session() -> None:
    """A bot left in the root of the cpu hierarchy is weighed by its session's autogroup, as a session of its own:
    a server answering pages beside four bots got a fifth of the CPU. Inside the arena's group, all the bots
    together weigh what the server's session weighs."""
    base = weighting()
    spec = resolve(str(BOT))
    async with open_bot(spec, spawn_options(spec, Limits(), None)) as bot:
        assert bot.jail is not None and bot.jail.cgroup is not None and bot.process is not None
        with trio.fail_after(30):
            while not joined(bot):
                await trio.sleep(0.01)
        key = "unified" if base.version == 2 else "cpu" if "cpu" in base.parents else "cpuacct"
        group = bot.jail.cgroup.dirs[key]
        assert group.parent == base.parents[key], (group, base.parents)
        assert str(bot.process.pid) in (group / "cgroup.procs").read_text().split()


@pytest.mark.slow
async def test_a_servers_checks_run_in_the_background_and_its_ladder_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[str, bool]] = []
    real = Jail.__init__

    def noting(self: Jail, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append((self.spec.name, self.background))

    monkeypatch.setattr(Jail, "__init__", noting)
    async with running(write_config(tmp_path, extra="workers = 0")) as kit:
        token = kit.participant("alice")
        response = await kit.upload(token, minimal_bot())
        assert (await kit.wait_submission(token, response.json()["id"]))["status"] == "passed"
        await kit.wait_matches(len(kit.matches) + 4)
    checked = {name for name, behind in made if behind}
    assert "alice" in checked and len(checked) >= 2, made  # the upload and the references it played
    assert ("alice", False) in made, made  # on the ladder, once admitted: an ordinary bot
    ladder_before = made[: made.index(("alice", True))]
    assert ladder_before and not any(behind for _name, behind in ladder_before), made


@pytest.mark.slow
async def test_a_check_that_fails_in_the_background_is_judged_again_at_an_ordinary_weight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy ladder may keep a background bot waiting past a wall-clock cap: that alone must not refuse it (and a
    crash, which no CPU weight explains, is not judged again)."""
    from arena.checks.bot import check_bot as real
    from arena.sandbox._plan import _background

    calls: list[bool] = []

    async def busy(*args: Any, **kwargs: Any) -> Report:
        behind = _background.get()
        calls.append(behind)
        report = await real(*args, **kwargs)
        first = report.get(CHECKS[1])
        if behind and first.passed:  # as if starved by the ladder: its first answer came after the wall-clock cap
            first.passed, first.detail = False, "no answer within 25s (wall clock; 0.05s of CPU used)"
            first.machine_may_explain = True  # it was runnable when the cap struck
        return report

    monkeypatch.setattr("arena.server.submissions.check_bot", busy)
    async with running(write_config(tmp_path)) as kit:
        token = kit.participant("alice")
        good = await kit.upload(token, minimal_bot())
        assert (await kit.wait_submission(token, good.json()["id"]))["status"] == "passed"
        assert calls == [True, False]
        calls.clear()
        broken = await kit.upload(token, minimal_bot(**{"bot.py": "import sys\nsys.exit(3)\n"}))
        done = await kit.wait_submission(token, broken.json()["id"])
        assert done["status"] == "failed", done
        assert calls == [True]  # a crash is judged once: no CPU weight explains it
        assert "starts and answers its first request" in str(done["message"]), done


WEIGHED = """
import json, subprocess, sys
from arena.sandbox import weigh_server
line = weigh_server(int(sys.argv[1]))
weight = open(sys.argv[2]).read().strip()  # at once: every server of the machine shares the group, the last sets it
child = subprocess.run(["cat", "/proc/self/cgroup"], capture_output=True, text=True).stdout
# Where a process it starts (the match worker) makes its bots' groups.
BASE = (
    "from arena.sandbox import _cgroup; import json;"
    " print(json.dumps({c: str(p) for c, p in _cgroup.detect()[0].parents.items()}))"
)
bots = json.loads(subprocess.run([sys.executable, "-c", BASE], capture_output=True, text=True, check=True).stdout)
print(json.dumps({"line": line, "weight": weight, "own": open("/proc/self/cgroup").read(), "child": child,
                  "bots": bots}))
"""


@pytest.mark.parametrize(("times", "said"), [(1, "as much as"), (4, "four times")])  # (4 last: the default)
def test_a_server_and_what_it_starts_weigh_server_weight_times_its_bots(times: int, said: str) -> None:
    """A server's pages wait on its process, which weighed what all its bots together weigh: under a busy ladder
    its main thread waited for a CPU 11 s of 30. ``arena serve`` moves itself (a fresh process here: never the
    test's) into a group of ``server_weight`` times the bots' parent's weight (4 by default; 1 for an organiser
    who wants the ladder's matches first), and its children (the match worker, the standings' drawing) are born
    there."""
    base = weighting()
    key, name, weight = ("", "cpu.weight", 100 * times) if base.version == 2 else ("cpu", "cpu.shares", 1024 * times)
    bots = base.parents["unified"] if base.version == 2 else base.parents.get("cpu") or base.parents["cpuacct"]
    group = bots.parent / _cgroup.SERVER_GROUP
    done = subprocess.run(
        [sys.executable, "-c", WEIGHED, str(times), str(group / name)],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1],
    )  # fmt: skip
    found = json.loads(done.stdout)
    assert said in found["line"], found["line"]
    for text in (found["own"], found["child"]):
        groups = {c: path for _, cs, path in (line.split(":", 2) for line in text.splitlines()) for c in cs.split(",")}
        assert groups[key].endswith("/" + _cgroup.SERVER_GROUP), text
    # (read by the process as it set it: a server another test starts meanwhile sets the same group's, ci89)
    assert found["weight"] == str(weight), found
    assert (bots / name).read_text().strip() == str(100 if base.version == 2 else 1024)
    # The worker's bots are where the server's would have been, beside its group: not inside it, weighed against
    # the server's own process (they were, and a page waited up to 89 ms for a CPU).
    assert found["bots"] == {c: str(p) for c, p in base.parents.items()}, found["bots"]


def test_only_a_home_that_describes_where_the_process_is_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's worker makes its bots' groups where the server's own were (ARENA_CGROUP_HOME): only where the
    worker is in those groups or in the server's group beside them. An inherited or mistyped value that says
    something else is not followed: bots' groups outside the arena's own would escape its enclosing limits."""
    home = "12:pids:/user/arena\n4:memory:/user/arena\n1:cpu:/\n"
    worker = "12:pids:/user/arena\n4:memory:/user/arena\n1:cpu:/arena-server\n"
    monkeypatch.delenv(_cgroup.HOME_ENV, raising=False)
    assert _cgroup._home(worker) == worker
    monkeypatch.setenv(_cgroup.HOME_ENV, home)
    assert _cgroup._home(worker) == home
    assert _cgroup._home(home) == home
    for wrong in ("garbage", "0::/../..", "12:pids:/\n4:memory:/\n1:cpu:/\n", home.replace("12:pids", "11:blkio")):
        monkeypatch.setenv(_cgroup.HOME_ENV, wrong)
        assert _cgroup._home(worker) == worker, wrong
    monkeypatch.setenv(_cgroup.HOME_ENV, "0::/user/arena\n")  # v2: the server's group is inside the home
    assert _cgroup._home("0::/user/arena/arena-server\n") == "0::/user/arena\n"
    assert _cgroup._home("0::/elsewhere\n") == "0::/elsewhere\n"
