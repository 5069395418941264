"""The masks a jail needs and what they cost nothing to hide: /proc/fs, ptys, and the host's paths at PID 1.

Each test runs a real jail (bubblewrap, or the launcher's own namespaces) and
reads from inside what a bot would; a shape this machine lacks is skipped
with the reason (CI installs bubblewrap).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio

from arena.bots.spec import load_folder, resolve
from arena.checks.sandbox import _collusion
from arena.sandbox import capabilities, configure, current_policy
from arena.server.config import load
from arena.supervisor._process import open_bot
from arena.supervisor.play import spawn_options
from protocol import Limits

from .servertools import bot_archive, server_process, write_config
from .test_hostile_fair import said_in, token_printed, upload_and_wait, wait_for_matches

LIMITS = Limits(startup_s=10.0, move_s=1.0, memory_bytes=256 << 20, processes=32)
JAIL_SHAPES = {"bubblewrap": {"bwrap"}, "the launcher's namespaces": {"pidns", "netns", "mntns"}}
"""The two ways a jail is made, by the layers each needs."""

WHAT_IS_MASKED = r"""
import fcntl, json, os, struct
seen = {}
try:
    seen["proc_fs"] = sorted(os.listdir("/proc/fs"))
except OSError as exc:
    seen["proc_fs"] = exc.strerror
try:
    fd = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
    seen["ptmx"] = "pty %d" % struct.unpack("I", fcntl.ioctl(fd, 0x80045430, b"\0" * 4))[0]
except OSError as exc:
    seen["ptmx"] = exc.strerror
try:
    seen["pts"] = sorted(os.listdir("/dev/pts"))
except OSError as exc:
    seen["pts"] = exc.strerror
with open("/proc/meminfo") as file:
    seen["meminfo"] = file.readline()
print(json.dumps(seen), flush=True)
"""

EVERYTHING_I_CAN_READ = r"""
import json, os
seen = {"environ": dict(os.environ), "cwd": os.getcwd(), "pid": str(os.getpid())}
for pid in sorted(name for name in os.listdir("/proc") if name.isdigit()):
    for name in ("cmdline", "environ", "mountinfo", "cgroup", "status", "stat"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as file:
                seen[f"/proc/{pid}/{name}"] = file.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError as exc:
            seen[f"/proc/{pid}/{name}"] = exc.strerror
    for link in ("cwd", "exe", "root"):
        try:
            seen[f"/proc/{pid}/{link}"] = os.readlink(f"/proc/{pid}/{link}")
        except OSError as exc:
            seen[f"/proc/{pid}/{link}"] = exc.strerror
print(json.dumps(seen), flush=True)
"""


@pytest.fixture(params=sorted(JAIL_SHAPES))
def shape(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each jail shape this machine offers, in force for the test (the other layers as configured)."""
    needs = JAIL_SHAPES[request.param]
    if not needs <= set(capabilities().available):
        pytest.skip(f"{request.param}: this machine lacks {sorted(needs - set(capabilities().available))}")
    saved = current_policy()
    keep = (set(saved.layers) - {"bwrap", "pidns", "netns", "mntns"}) | needs
    configure(dataclasses.replace(saved, layers=frozenset(keep)))
    try:
        yield request.param
    finally:
        configure(saved)


def jailed_report(spec_text: str) -> dict[str, object]:
    """The one JSON line the bot ``spec_text`` prints from its jail."""
    spec = resolve(spec_text)

    async def main() -> str:
        async with open_bot(spec, spawn_options(spec, LIMITS, None)) as bot:
            with trio.fail_after(30):
                line = await bot.read_line(output_budget=1 << 22)
            await bot.shutdown()
        return line.decode()

    seen: dict[str, object] = json.loads(trio.run(main))
    return seen


def test_a_jail_sees_no_file_system_statistics_and_no_terminal(shape: str, tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(WHAT_IS_MASKED)
    seen = jailed_report(f"python3 {tmp_path / 'bot.py'}")
    assert seen["proc_fs"] == [], f"{shape}: /proc/fs shows {seen['proc_fs']}"
    assert not str(seen["ptmx"]).startswith("pty"), f"{shape}: /dev/ptmx gave a terminal ({seen['ptmx']})"
    assert seen["pts"] in ([], "Permission denied"), f"{shape}: /dev/pts lists {seen['pts']}"
    assert str(seen["meminfo"]).startswith("MemTotal:"), "the /proc masks are still readable files"


def test_the_collusion_canary_holds_with_the_new_masks_in_it(shape: str) -> None:
    verdict = trio.run(_collusion)
    assert verdict.held, f"{shape}: {verdict.detail}"
    assert "/proc/fs, ptys" in verdict.detail and "PID 1 names no host path" in verdict.detail, verdict.detail


def test_a_server_bot_reads_no_host_path_at_pid_1_nor_anywhere_but_its_own_folder(shape: str, tmp_path: Path) -> None:
    # Issue 36's leak: the jail's PID 1 (bubblewrap) showed its whole command line, which named the server's data
    # folder, the submission's number, the jail's home and the arena's Python. The bot is laid out as the server
    # lays out an upload (DATA/bots/NAME/sNUMBER) and started as the server starts it (an owner's folder bot).
    data = tmp_path / "data-folder-7f3a"
    folder = data / "bots" / "mallory" / "s4242"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(EVERYTHING_I_CAN_READ)
    (folder / "bot.toml").write_text('name = "mallory"\nrun = "python3 bot.py"\n')
    spec = dataclasses.replace(load_folder(folder), owner="17").with_name("mallory#3")

    async def main() -> str:
        async with open_bot(spec, spawn_options(spec, LIMITS, None)) as bot:
            with trio.fail_after(30):
                line = await bot.read_line(output_budget=1 << 22)
            await bot.shutdown()
        return line.decode()

    seen: dict[str, object] = json.loads(trio.run(main))
    assert seen["/proc/1/cmdline"] not in ("Permission denied", "No such file or directory"), seen["/proc/1/cmdline"]
    # PID 1 and every other process of the jail but the bot: nothing of the host but the bot's own command (their
    # mountinfo is the jail's, the bot's own: judged below).
    others = {
        name: text
        for name, text in seen.items()
        if name.startswith("/proc/") and name.split("/")[2] != seen["pid"] and not name.endswith("/mountinfo")
    }
    for name, text in others.items():
        for secret in (str(data), "s4242", "data-folder-7f3a", str(tmp_path)):
            assert secret not in str(text), f"{shape}: {name} names {secret!r}: {text}"
    # The bot's own view. Under bubblewrap as root its folder is /bot, an overlay whose options name descriptors:
    # nothing of the data folder at all. Elsewhere its folder is where it runs (and mountinfo names the bind's
    # source), nothing more of the data folder.
    if shape == "bubblewrap" and os.geteuid() == 0:
        assert seen["cwd"] == "/bot", seen["cwd"]
        for secret in (str(data), "s4242", "data-folder-7f3a"):
            assert secret not in json.dumps(seen), f"{shape}: the jail names {secret!r}"
    for name, text in seen.items():
        rest = str(text).replace(str(folder), "<own folder>")
        assert str(data) not in rest, f"{shape}: {name} names the data folder beyond the bot's own: {rest}"


WHAT_A_SERVER_BOT_SEES = r"""
import json, os, sys
seen = {"cwd": os.getcwd(), "environ": dict(os.environ), "pid": str(os.getpid())}
for pid in sorted(name for name in os.listdir("/proc") if name.isdigit()):
    for name in ("cmdline", "environ", "mountinfo"):
        if name == "mountinfo" and pid != "1":
            continue  # every process of the jail has the same: PID 1's stands for them
        try:
            with open(f"/proc/{pid}/{name}", "rb") as file:
                seen[f"/proc/{pid}/{name}"] = file.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError as exc:
            seen[f"/proc/{pid}/{name}"] = exc.strerror
print("I-SEE " + json.dumps(seen), file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
    elif message["type"] == "quit":
        break
"""


@pytest.mark.slow
def test_a_bot_on_a_real_server_reads_neither_the_data_folder_nor_its_number_at_pid_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 36's leak, on a real `arena serve`: the bot's check and its ladder matches print what every process
    # of the jail shows; PID 1 (and any process but the bot) names neither the data folder nor the submission's
    # number, and the bot itself reads nothing of the data folder but its own folder's path.
    if "bwrap" not in capabilities().available:
        pytest.skip(f"bubblewrap (the jail whose PID 1 is not the bot): {capabilities().missing.get('bwrap')}")
    config = write_config(tmp_path, extra="workers = 1")
    token = token_printed([str(config), "--add", "peeker"], capsys)
    archive = bot_archive({"bot.py": WHAT_A_SERVER_BOT_SEES, "bot.toml": 'name = "peeker"\nrun = "python3 bot.py"\n'})
    data_dir = load(config).data_dir
    with server_process(config) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        checked = upload_and_wait(client, token, archive)
        assert checked["status"] == "passed", checked
        wait_for_matches(client, "peeker", 2)
    number = f"s{checked['id']}"
    views = [json.loads(line.split("I-SEE ", 1)[1]) for line in said_in(data_dir, "I-SEE ")]
    assert len(views) >= 3, f"only {len(views)} jails reported (a check's and the ladder's expected)"
    for seen in views:
        assert "bwrap --args" in seen["/proc/1/cmdline"], seen["/proc/1/cmdline"]  # PID 1 is bubblewrap
        if os.geteuid() == 0:  # the bot's folder is /bot, an overlay: the data folder is nowhere
            assert seen["cwd"] == "/bot", seen["cwd"]
            assert str(data_dir) not in json.dumps(seen), json.dumps(seen)
            assert not re.search(rf"/{number}(?![0-9])", json.dumps(seen)), json.dumps(seen)
        for name, text in seen.items():
            if name.startswith("/proc/") and name.split("/")[2] != seen["pid"] and not name.endswith("mountinfo"):
                assert str(data_dir) not in text, f"{name} names the data folder: {text}"
                assert not re.search(rf"/{number}(?![0-9])", text), f"{name} names the submission: {text}"
            own = json.dumps(text).replace(json.dumps(seen["cwd"])[1:-1], "<own folder>")
            assert str(data_dir) not in own, f"{name} names the data folder beyond the bot's own: {own}"
