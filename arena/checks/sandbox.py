"""``arena sandbox``: run a canary bot under the sandbox in force and say what holds, property by property.

The canary (:mod:`arena.sandbox.canary`) is started through the supervisor's
real path (:func:`arena.supervisor._process.open_bot`, and for ``build``
:func:`arena.supervisor.build.ensure_built`), so what it reports is what a
bot in a match meets. Each property is judged from outside where it can be
(what reached the arena's sockets, which file appeared, which process
survived, what the arena counted), and a property is HELD only when its canary
run showed it. The level printed is rated on those verdicts.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import secrets
import shutil
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import trio

from protocol import Limits

from .._errors import BotFault, BuildError
from ..bots.spec import BotSpec, load_folder
from ..sandbox import (
    EVERY_PROPERTY,
    PROPERTIES,
    SandboxPolicy,
    capabilities,
    current_policy,
    forget_capabilities,
    level,
    serving_level,
    summary,
)

if TYPE_CHECKING:
    from ..supervisor import BotProcess

CANARY = Path(__file__).resolve().parents[1] / "sandbox" / "canary.py"
OPEN_ON_A_SHARED_KERNEL = "open:"
"""Begins the name of what the collusion canary reads that no mask closes (the canary's constant of that name)."""
CANARY_LIMITS = Limits(
    memory_bytes=128 << 20, processes=32, line_bytes=1 << 16, move_output_bytes=1 << 18, disk_bytes=16 << 20
)
AT_ONCE = 4
"""How many canaries run at the same time."""
ALONE = ("fork_bomb",)
"""Canaries run when no other runs: a fork bomb takes every process its UID may have, and where the bots share
one UID (an arena without root) another canary's fork would fail with it."""


@dataclass
class Verdict:
    """What the canary showed for one property."""

    held: bool
    detail: str


def _python() -> str:
    return "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


def _canary(prop: str, *args: str) -> BotSpec:
    return BotSpec(name=f"canary-{prop}", command=(_python(), str(CANARY), prop, *args), cwd=CANARY.parent)


def _options(spec: BotSpec) -> Any:
    from ..supervisor import SpawnOptions, bot_environment

    return SpawnOptions(env=bot_environment(spec), line_bytes=CANARY_LIMITS.line_bytes, limits=CANARY_LIMITS)


async def _run(
    spec: BotSpec, *, watch_memory: bool = False, lines: int = 1, to_the_end: bool = False
) -> tuple[list[dict[str, Any]], str]:
    """Start the canary and read its reports (up to ``lines``); returns (reports, what ended the reading).

    With ``to_the_end`` the match ends when the canary's output does, not at its last report, so what the canary
    does after reporting (kill its launcher) is not cut short by the arena closing the match.
    """
    from ..supervisor import open_bot

    reports: list[dict[str, Any]] = []
    async with open_bot(spec, _options(spec)) as bot:
        try:
            with trio.fail_after(30):
                while len(reports) < lines:
                    with trio.move_on_after(0.05):
                        reports.append(json.loads(await bot.read_line(output_budget=CANARY_LIMITS.output_bytes)))
                        continue
                    fault = bot.memory_fault() if watch_memory else None
                    if fault is not None:
                        return reports, f"{fault.kind}: {fault.reason}"
                while to_the_end:
                    await bot.read_line(output_budget=CANARY_LIMITS.output_bytes)
                return reports, "reported"
        except BotFault as fault:
            return reports, f"{fault.kind}: {fault.reason}"
        except trio.TooSlowError:
            return reports, "no report within 30 s"


async def _run_one(spec: BotSpec, **options: Any) -> tuple[dict[str, Any] | None, str]:
    reports, what = await _run(spec, **options)
    return (reports[0] if reports else None), what


async def verify(policy: SandboxPolicy | None = None) -> dict[str, Verdict]:
    """Run the canary once per property under the sandbox in force (or ``policy``); judge each from outside."""
    from ..sandbox import configure

    saved = current_policy()
    if policy is not None:
        configure(policy)
    verdicts: dict[str, Verdict] = {}
    checks: dict[str, Callable[[], Awaitable[Verdict]]] = {
        "network": _network, "secret": _secret, "write_outside": _write_outside, "disk_quota": _disk_quota,
        "fork_bomb": _fork_bomb, "memory_hog": _memory_hog, "cpu_children": _cpu_children, "escape": _escape,
        "stdout_flood": _stdout_flood, "kernel_surface": _kernel_surface, "collusion": _collusion, "build": _build,
        "cpu_idle": _cpu_idle, "memory_shared": _memory_shared, "build_quota": _build_quota,
    }  # fmt: skip
    limiter = trio.CapacityLimiter(AT_ONCE)

    async def check(name: str) -> None:
        async with limiter:
            verdicts[name] = await checks[name]()

    try:
        async with trio.open_nursery() as nursery:
            for name in checks:
                if name not in ALONE:
                    nursery.start_soon(check, name)
        for name in ALONE:
            await check(name)
    finally:
        configure(saved)
    return {name: verdicts[name] for name in PROPERTIES}


@contextlib.contextmanager
def _listener() -> Any:
    """A TCP and a UDP socket of the arena's on one loopback port."""
    with socket.socket() as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        tcp.setblocking(False)
        udp.bind(("127.0.0.1", tcp.getsockname()[1]))
        udp.setblocking(False)
        yield tcp, udp


def _reached(tcp: socket.socket, udp: socket.socket) -> list[str]:
    reached = []
    with contextlib.suppress(BlockingIOError):
        tcp.accept()[0].close()
        reached.append("TCP")
    while True:
        try:
            reached.append(udp.recv(64).decode(errors="replace").replace("canary ", "") + " datagram")
        except BlockingIOError:
            return reached


async def _network() -> Verdict:
    with _listener() as (tcp, udp):
        report, what = await _run_one(_canary("network", str(tcp.getsockname()[1])))
        reached = _reached(tcp, udp)
    if reached:
        return Verdict(False, f"reached the arena: {', '.join(reached)}")
    tried = "TCP, UDP, io_uring and odd socket calls to the arena's loopback failed"
    return Verdict(True, f"{tried} ({_short(report, what)})")


@contextlib.contextmanager
def _folder() -> Any:
    """A world-writable folder in the arena's temporary folder, as open as a careless organiser's files."""
    with tempfile.TemporaryDirectory(prefix="arena-canary-") as name:
        folder = Path(name)
        folder.chmod(0o777)
        yield folder


async def _secret() -> Verdict:
    with _folder() as folder:
        secret = folder / "secret.txt"
        secret.write_text(token := secrets.token_hex(8))
        secret.chmod(0o644)
        report, what = await _run_one(_canary("secret", str(secret).encode().hex()))
    leaked = report is not None and report.get("read") == token
    return Verdict(not leaked, "read a world-readable file outside its folder" if leaked
                   else f"could not read it ({_short(report, what)})")  # fmt: skip


async def _write_outside() -> Verdict:
    with _folder() as folder:
        target = folder / "written.txt"
        report, what = await _run_one(_canary("write_outside", str(target).encode().hex()))
        wrote = target.exists()
    return Verdict(not wrote, "wrote into a world-writable folder" if wrote else f"could not ({_short(report, what)})")


async def _disk_quota() -> Verdict:
    """Fill scratch to twice the quota (and every other writable place): capped, refused, or ended for it."""
    from ..supervisor import open_bot

    quota = CANARY_LIMITS.disk_bytes >> 20
    spec = _canary("disk_quota", str(quota * 2))
    reports: list[dict[str, Any]] = []
    async with open_bot(spec, _options(spec)) as bot:
        with contextlib.suppress(BotFault), trio.move_on_after(30):
            while len(reports) < 2:
                reports.append(json.loads(await bot.read_line(output_budget=CANARY_LIMITS.output_bytes)))
        with trio.move_on_after(2):  # where the arena measures, it ends the bot once it sees it over
            while bot.breach is None and bot.process.poll() is None:
                await trio.sleep(0.05)
        ended = f"; then ended: {bot.breach.reason}" if bot.breach is not None else ""
    others = {place: seen["mib"] for place, seen in (reports[0].items() if reports else ()) if seen["mib"] > 0}
    if others:
        places = ", ".join(f"{mib} MiB in {place}" for place, mib in others.items())
        return Verdict(False, f"wrote outside scratch, where no quota holds: {places}")
    if len(reports) < 2:
        return Verdict(bool(ended), f"no report of scratch{ended or ' (and not ended for its disk)'}")
    scratch = reports[1]["scratch"]
    error = f", then: {scratch['error']}" if scratch["error"] else ""
    held = scratch["mib"] <= quota or bool(ended)
    return Verdict(held, f"wrote {scratch['mib']} of {quota * 2} MiB into scratch (quota {quota} MiB){error}{ended}; "
                         "nothing elsewhere")  # fmt: skip


async def _fork_bomb() -> Verdict:
    count = CANARY_LIMITS.processes * 3
    report, what = await _run_one(_canary("fork_bomb", str(count)))
    started = report.get("started", count) if report else 0
    return Verdict(started < count, f"started {started} of {count} processes (limit {CANARY_LIMITS.processes})"
                   + ("" if report else f"; {what}"))  # fmt: skip


async def _memory_hog() -> Verdict:
    limit_mib = CANARY_LIMITS.memory_bytes >> 20
    report, what = await _run_one(_canary("memory_hog", str(limit_mib * 3)), watch_memory=True)
    if report is None:
        return Verdict(True, what)
    got = int(report.get("allocated_mib", 0))
    error = f"; {report['error']}" if "error" in report else ""
    return Verdict(got < limit_mib * 3, f"allocated {got} of {limit_mib * 3} MiB (limit {limit_mib} MiB){error}")


async def _cpu_children() -> Verdict:
    from ..supervisor import open_bot

    spec = _canary("cpu_children", "0.5")
    async with open_bot(spec, _options(spec)) as bot:
        before = bot.cpu_seconds() or 0.0
        line = b""
        with trio.move_on_after(30):
            line = await bot.read_line(output_budget=1 << 16)
        used = (bot.cpu_seconds() or 0.0) - before
    error = _reported_error(line)
    if error:
        return Verdict(False, f"the canary could not start its children: {error}")
    return Verdict(used >= 0.8, f"two children burned 1.0 s of CPU; the arena counted {used:.2f} s")


IDLE_LIMITS = msgspec.structs.replace(CANARY_LIMITS, startup_s=0.3, move_s=0.1, time_bank_s=0.1)
"""The ``cpu_idle`` canary's limits: its next move could use 0.5 s of CPU (start-up, a move, the bank)."""


async def _cpu_idle() -> Verdict:
    """Busy loops left running while no request is pending: frozen where a cgroup freezer is, else charged and ended."""
    from ..supervisor import SpawnOptions, bot_environment, open_bot

    spec = _canary("cpu_idle", "2")
    options = SpawnOptions(env=bot_environment(spec), line_bytes=IDLE_LIMITS.line_bytes, limits=IDLE_LIMITS)
    fault = None
    frozen_cpu: float | None = None
    async with open_bot(spec, options) as bot:
        line = b""
        with contextlib.suppress(BotFault), trio.move_on_after(30):
            line = await bot.read_line(output_budget=1 << 16)
            bot.freeze()  # as after an answer: no request is pending now
            if bot.frozen:
                frozen_cpu = await _cpu_while_frozen(bot)
            while fault is None and not bot.frozen:  # what the pool does to a process idle in it (BotPool.watch_idle)
                await trio.sleep(0.1)
                fault = bot.idle_cpu_fault()
        used = bot.idle_cpu_s() or 0.0
    error = _reported_error(line)
    if error:
        return Verdict(False, f"the canary could not start its busy loops: {error}")
    if frozen_cpu is not None:
        held = frozen_cpu < FROZEN_CPU_S
        said = f"they used {frozen_cpu:.3f}s of CPU in {FROZEN_WATCH_S:g}s"
        return Verdict(held, f"two busy loops, no request pending, frozen (cgroup freezer): {said}")
    if fault is None:
        return Verdict(False, f"two busy loops ran 30 s while no request was pending; the arena counted {used:.2f} s")
    return Verdict(True, f"two busy loops, no request pending: ended once over its next move's CPU ({fault.reason})")


FROZEN_WATCH_S = 1.0
"""How long the ``cpu_idle`` canary watches its frozen busy loops."""
FROZEN_CPU_S = 0.05
"""The most CPU its frozen loops may use in that time (the freeze itself takes the kernel a moment)."""


async def _cpu_while_frozen(bot: BotProcess) -> float:
    """CPU seconds the frozen ``bot`` uses over ``FROZEN_WATCH_S`` (once the kernel reports the freeze done)."""
    with trio.move_on_after(1.0):
        while bot.jail is not None and bot.jail.cgroup is not None and not bot.jail.cgroup.frozen():
            await trio.sleep(0.005)
    before = bot.cpu_seconds() or 0.0
    await trio.sleep(FROZEN_WATCH_S)
    return (bot.cpu_seconds() or 0.0) - before


async def _memory_shared() -> Verdict:
    """Four children with ``MAP_SHARED`` memory, three times the limit in all, and a memfd: counted and ended."""
    limit_mib = CANARY_LIMITS.memory_bytes >> 20
    reports, what = await _run(_canary("memory_shared", str(limit_mib * 3)), watch_memory=True, lines=2)
    got = int(reports[0].get("mib", 0)) if reports else 0
    if len(reports) < 2:
        return Verdict(True, f"ended holding {got} of {limit_mib * 3} MiB (limit {limit_mib} MiB): {what}")
    refused = got < limit_mib * 3
    memfd = reports[0].get("memfd_mib", 0)
    return Verdict(refused, f"held {got} MiB of MAP_SHARED memory in four children and a {memfd} MiB memfd for 2 s "
                            f"(limit {limit_mib} MiB){'' if refused else ' with no fault'}")  # fmt: skip


def _reported_error(line: bytes) -> str:
    """The error a canary's report line carries, if any."""
    with contextlib.suppress(ValueError, AttributeError):
        return str(json.loads(line).get("error") or "")
    return ""


def _processes_with(token: str) -> list[int]:
    """Processes whose command line holds ``token``, killed on the way."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                if token.encode() in Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0"):
                    found.append(int(name))
                    os.kill(int(name), 9)
    return found


async def _escape() -> Verdict:
    token = f"0.000{secrets.randbelow(10**9):09d}"
    report, _what = await _run_one(_canary("escape", token), to_the_end=True)
    await trio.sleep(0.3)
    survivors = _processes_with(token)
    killed = report is not None and report.get("parent", 0) > 1
    tried = " after killing its launcher" if killed else ""
    return Verdict(not survivors, f"a setsid double-forked daemon survived the match{tried} (pid {survivors})"
                   if survivors else f"the setsid double-forked daemon died with the match{tried}")  # fmt: skip


async def _stdout_flood() -> Verdict:
    report, what = await _run_one(_canary("stdout_flood", "64"))
    return Verdict(report is None and "output_limit" in what, what)


async def _kernel_surface() -> Verdict:
    report, what = await _run_one(_canary("kernel_surface"))
    if report is None:
        return Verdict(False, f"no report ({what})")
    made = [name for name, seen in report.items() if not str(seen).startswith("refused")]
    if made:
        return Verdict(False, "; ".join(f"{name}: {report[name]}" for name in made))
    return Verdict(True, _short(report, what))


async def _collusion() -> Verdict:
    """Two canaries in two jails, as the two seats of a match: a sender switches shared state, an observer looks."""
    from ..supervisor import open_bot

    token = secrets.token_hex(8)
    sender_spec, observer_spec = _canary("collusion", "sender", token), _canary("collusion", "observer", token)

    async def ask(bot: Any, line: str) -> dict[str, Any]:
        if line:
            await bot.send(line.encode() + b"\n")
        return dict(json.loads(await bot.read_line(output_budget=CANARY_LIMITS.output_bytes)))

    try:
        with trio.fail_after(60):
            async with open_bot(sender_spec, _options(sender_spec)) as sender, \
                    open_bot(observer_spec, _options(observer_spec)) as observer:  # fmt: skip
                await ask(sender, "")
                await ask(observer, "")
                await ask(sender, "set 1")
                seen_on = await ask(observer, "observe")
                await ask(sender, "set 0")
                seen_off = await ask(observer, "observe")
    except (BotFault, trio.TooSlowError, ValueError) as exc:
        return Verdict(False, f"the canaries did not finish their exchange ({exc})")
    judged_apart = ("sees_other_process", "signal_other_process", "pid1_paths")
    leaks = [key for key in seen_on if key not in judged_apart and not key.startswith(OPEN_ON_A_SHARED_KERNEL)
             and seen_on[key] != seen_off.get(key)]  # fmt: skip
    shown = sorted({*seen_on.get("pid1_paths", []), *seen_off.get("pid1_paths", [])}, key=len, reverse=True)
    if shown:
        leaks.append(f"PID 1's command line names the host's {', '.join(shown[:3])}" + (" ..." if shown[3:] else ""))
    if seen_on.get("sees_other_process") or seen_off.get("sees_other_process"):
        leaks.append("sees the other's process in /proc")
    if "allowed" in (seen_on.get("signal_other_process"), seen_off.get("signal_other_process")):
        leaks.append("may signal the other's process")
    still_open = _still_open(seen_on, seen_off)
    if leaks:
        return Verdict(False, "a bit passed between the two jails through: " + ", ".join(leaks) + still_open)
    return Verdict(True, f"none of {len(seen_on)} shared objects carried a bit (locks, file notices, abstract "
                         "sockets, System V IPC, message queues, shared folders, futexes, /proc, signals, the "
                         "machine's counters, /proc/fs, ptys, the page cache) and PID 1 names no host path"
                         + still_open)  # fmt: skip


def _still_open(seen_on: dict[str, Any], seen_off: dict[str, Any]) -> str:
    """What moved among the kernel-wide numbers no mask closes on a shared kernel (said, not judged)."""
    moved = [key.removeprefix(OPEN_ON_A_SHARED_KERNEL) for key in seen_on
             if key.startswith(OPEN_ON_A_SHARED_KERNEL) and seen_on[key] != seen_off.get(key)]  # fmt: skip
    if not moved:
        return ""
    return f"; open on a shared kernel, as documented: {', '.join(moved)} moved"


async def _build() -> Verdict:
    """Build a canary bot whose build command tries the breaches, in a build root of its own."""
    from ..supervisor.build import ensure_built

    token = f"0.000{secrets.randbelow(10**9):09d}"
    with _folder() as folder, _listener() as (tcp, udp):
        secret = folder / "secret.txt"
        secret.write_text(word := secrets.token_hex(8))
        secret.chmod(0o644)
        outside = folder / "open"
        outside.mkdir(mode=0o777)
        outside.chmod(0o777)
        bot = folder / "bot"
        bot.mkdir()
        shutil.copy(CANARY, bot / "canary.py")
        args = [str(secret).encode().hex(), str(outside).encode().hex(), str(tcp.getsockname()[1]), token]
        (bot / "bot.toml").write_text(f'build = "{_python()} canary.py build {" ".join(args)}"\nrun = "true"\n')
        policy = dataclasses.replace(current_policy(), build_root=folder / "builds")
        problem = ""
        try:
            await ensure_built(load_folder(bot), policy=policy)
        except BuildError as exc:
            problem = f" (the build failed: {str(exc).splitlines()[0][:120]})"
        await trio.sleep(0.3)
        survivors = _processes_with(token)
        logs = b"".join(path.read_bytes() for path in (folder / "builds").glob("*.log"))
        breaches = [what for what, happened in (
            ("read a secret", word.encode() in logs), ("wrote outside", (outside / "built.txt").exists()),
            ("reached the network", bool(_reached(tcp, udp))), (f"left a daemon (pid {survivors})", bool(survivors)),
        ) if happened]  # fmt: skip
    if breaches:
        return Verdict(False, f"the build {', '.join(breaches)}{problem}")
    return Verdict(True, f"the build could not read a secret, write outside, connect, or leave a daemon{problem}")


async def _build_quota() -> Verdict:
    """A build that ``fallocate``s twice its folder's quota: refused at the quota, never more on disk at any instant."""
    from ..sandbox import usage
    from ..supervisor.build import ensure_built

    quota = 16 << 20
    most = 0
    with _folder() as folder:
        bot, builds = folder / "bot", folder / "builds"
        bot.mkdir()
        shutil.copy(CANARY, bot / "canary.py")
        (bot / "bot.toml").write_text(
            f'build = "{_python()} canary.py build_quota {(quota >> 20) * 2}"\nrun = "true"\n'
        )
        policy = dataclasses.replace(current_policy(), build_root=builds, build_disk_bytes=quota)

        async def watch() -> None:
            nonlocal most
            while True:  # the build's folder as the host's disk holds it
                for place in builds.iterdir() if builds.is_dir() else ():
                    if place.is_dir():
                        most = max(most, usage(place, 1 << 16)[0])
                await trio.sleep(0.005)

        problem = ""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            try:
                await ensure_built(load_folder(bot), policy=policy)
            except BuildError as exc:
                problem = str(exc)
            nursery.cancel_scope.cancel()
        logs = b"".join(path.read_bytes() for path in builds.glob("*.log"))
    said = [line for line in logs.splitlines() if line.startswith(b'{"fallocated_mib"')]
    report: dict[str, Any] = json.loads(said[-1]) if said else {"fallocated_mib": -1, "error": ""}
    got = int(report["fallocated_mib"])
    how = f"its folder held at most {most >> 20} MiB (quota {quota >> 20} MiB); it fallocated {got} MiB"
    if most <= quota and 0 <= got <= quota >> 20:
        return Verdict(True, f"{how}, then: {report['error'] or (problem.splitlines() or ['stopped'])[0][:160]}")
    return Verdict(False, f"{how}: over its quota before anything stopped it")


async def read_from_jail(paths: list[Path]) -> tuple[dict[str, str], str]:
    """A jailed canary (the sandbox in force) tries to list or read each of ``paths``: what it got, path by path.

    The paths go hex-encoded, so naming them does not grant them (as a path
    on a bot's command line is). Returns the report and what ended the run.
    """
    report, what = await _run_one(_canary("read_data", *(str(path).encode().hex() for path in paths)))
    return {str(k): str(v) for k, v in (report or {}).items()}, what


def _short(report: dict[str, Any] | None, what: str) -> str:
    if report is None:
        return what
    text = "; ".join(f"{k}: {v}" for k, v in report.items())
    return text[:200]


def render(verdicts: dict[str, Verdict] | None) -> str:
    """The report ``arena sandbox`` prints."""
    info = summary()
    if verdicts is None:
        lines = [f"Sandbox level here: {serving_level()} (claimed by the layers in force; not verified: --no-canary)"]
    else:
        rated = serving_level(verified={name: v.held for name, v in verdicts.items()})
        lines = [f"Sandbox level here: {rated} (euid {info['euid']}; verified by the canary)"]
        if rated != serving_level():
            lines.append(f"  (the layers in force claim {serving_level()!r}: the canary showed less)")
        if rated == EVERY_PROPERTY:
            lines.append("  (every property held; strong also needs a UID of each bot's own and cgroups)")
    lines.append("Layers in force:")
    lines += [f"  {name:9} {how}" for name, how in info["layers"].items()]
    if info["missing"]:
        lines.append("Not available:")
        lines += [f"  {name:9} {why}" for name, why in info["missing"].items()]
    lines.append("Properties (canary verdict, then the mechanisms that hold it here):")
    for prop, mechanisms in info["properties"].items():
        verdict = verdicts.get(prop) if verdicts else None
        mark = "    " if verdict is None else ("HELD" if verdict.held else "FAIL")
        lines.append(f"  {mark}  {prop:14} {PROPERTIES[prop]}")
        if verdict is not None:
            lines.append(f"        canary: {verdict.detail}")
        lines.append(f"        by: {'; '.join(mechanisms) if mechanisms else 'NOTHING holds this here'}")
    return "\n".join(lines)


def as_data(verdicts: dict[str, Verdict] | None) -> dict[str, Any]:
    """What ``arena sandbox --json`` prints: :func:`arena.sandbox.summary`, with the canary's verdicts if any."""
    data = summary()
    if verdicts:
        data["canary"] = {k: {"held": v.held, "detail": v.detail} for k, v in verdicts.items()}
        data["verified_level"] = level(verified={name: v.held for name, v in verdicts.items()})
    return data


def cmd_sandbox(args: argparse.Namespace) -> int:
    """Verify the sandbox with the canary and print what holds."""
    if args.refresh:
        forget_capabilities()
    capabilities()
    verdicts = None if args.no_canary else trio.run(verify)
    if args.json:
        print(json.dumps(as_data(verdicts), indent=2))
    else:
        print(render(verdicts))
    failed = [k for k, v in (verdicts or {}).items() if not v.held]
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena sandbox``."""
    parser = sub.add_parser("sandbox", help="run a canary bot and report which isolation holds here")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--no-canary", action="store_true", help="only say which layers are in force")
    parser.add_argument("--refresh", action="store_true", help="probe the machine again (forget the cached probe)")
    parser.set_defaults(handler=cmd_sandbox)
