"""``arena sandbox``: run a canary bot under the sandbox in force and say what holds, property by property.

The canary (:mod:`arena.sandbox.canary`) is started through the supervisor's
real path (:func:`arena.supervisor._process.open_bot`), so what it reports is
what a bot in a match meets.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import socket
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from protocol import Limits

from .._errors import BotFault
from ..bots.spec import BotSpec
from ..sandbox import PROPERTIES, capabilities, summary

CANARY = Path(__file__).resolve().parents[1] / "sandbox" / "canary.py"
CANARY_LIMITS = Limits(memory_bytes=128 << 20, processes=32, line_bytes=1 << 16, move_output_bytes=1 << 18)


@dataclass
class Verdict:
    """What the canary showed for one property."""

    held: bool
    detail: str


def _canary(prop: str, *args: str) -> BotSpec:
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    return BotSpec(name=f"canary-{prop}", command=(python, str(CANARY), prop, *args), cwd=CANARY.parent)


async def _run(spec: BotSpec, *, watch_memory: bool = False) -> tuple[dict[str, Any] | None, str]:
    """Start the canary, read its one report; returns (report, what happened)."""
    from ..supervisor._process import SpawnOptions, bot_environment, open_bot

    options = SpawnOptions(env=bot_environment(spec), line_bytes=CANARY_LIMITS.line_bytes, limits=CANARY_LIMITS)
    async with open_bot(spec, options) as bot:
        try:
            with trio.fail_after(20):
                while True:
                    with trio.move_on_after(0.05):
                        line = await bot.read_line(output_budget=CANARY_LIMITS.output_bytes)
                        return json.loads(line), "reported"
                    fault = bot.memory_fault() if watch_memory else None
                    if fault is not None:
                        return None, f"{fault.kind}: {fault.reason}"
        except BotFault as fault:
            return None, f"{fault.kind}: {fault.reason}"
        except trio.TooSlowError:
            return None, "no report within 20 s"


async def verify() -> dict[str, Verdict]:
    """Run the canary once per property under the sandbox in force; judge each from outside."""
    verdicts: dict[str, Verdict] = {}
    with contextlib.ExitStack() as stack:
        listener = stack.enter_context(socket.socket())
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        udp = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
        udp.bind(("127.0.0.1", port))
        udp.setblocking(False)
        report, what = await _run(_canary("network", str(port)))
        reached = []
        with contextlib.suppress(BlockingIOError):
            listener.accept()[0].close()
            reached.append("TCP")
        with contextlib.suppress(BlockingIOError):
            udp.recv(64)
            reached.append("UDP")
        detail = f"reached the arena by {' and '.join(reached)}" if reached else ""
        verdicts["network"] = Verdict(
            not reached, detail or f"TCP and UDP to the arena's loopback failed ({_short(report, what)})"
        )

        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-canary-")))
        folder.chmod(0o777)
        secret = folder / "secret.txt"
        secret.write_text(token := secrets.token_hex(8))
        secret.chmod(0o644)
        report, what = await _run(_canary("secret", str(secret).encode().hex()))
        leaked = report is not None and report.get("read") == token
        verdicts["secret"] = Verdict(not leaked, "read a world-readable file outside its folder" if leaked
                                     else f"could not read it ({_short(report, what)})")  # fmt: skip

        target = folder / "written.txt"
        report, what = await _run(_canary("write_outside", str(target).encode().hex()))
        verdicts["write_outside"] = Verdict(not target.exists(), "wrote into a world-writable folder"
                                            if target.exists() else f"could not ({_short(report, what)})")  # fmt: skip

    count = CANARY_LIMITS.processes * 3
    report, what = await _run(_canary("fork_bomb", str(count)))
    started = report.get("started", count) if report else 0
    verdicts["fork_bomb"] = Verdict(started < count, f"started {started} of {count} processes (limit "
                                    f"{CANARY_LIMITS.processes})" + ("" if report else f"; {what}"))  # fmt: skip

    limit_mib = CANARY_LIMITS.memory_bytes >> 20
    report, what = await _run(_canary("memory_hog", str(limit_mib * 3)), watch_memory=True)
    if report is None:
        verdicts["memory_hog"] = Verdict(True, what)
    else:
        got = int(report.get("allocated_mib", 0))
        error = f"; {report['error']}" if "error" in report else ""
        verdicts["memory_hog"] = Verdict(
            got < limit_mib * 3, f"allocated {got} of {limit_mib * 3} MiB (limit {limit_mib} MiB){error}"
        )

    verdicts["cpu_children"] = await _cpu_children()
    verdicts["escape"] = await _escape()
    report, what = await _run(_canary("stdout_flood", "64"))
    verdicts["stdout_flood"] = Verdict(report is None and "output_limit" in what, what)
    return verdicts


async def _cpu_children() -> Verdict:
    from ..supervisor._process import SpawnOptions, bot_environment, open_bot

    spec = _canary("cpu_children", "0.5")
    async with open_bot(spec, SpawnOptions(env=bot_environment(spec), limits=CANARY_LIMITS)) as bot:
        before = bot.cpu_seconds() or 0.0
        with trio.move_on_after(20):
            await bot.read_line(output_budget=1 << 16)
        used = (bot.cpu_seconds() or 0.0) - before
    return Verdict(used >= 0.8, f"two children burned 1.0 s of CPU; the arena counted {used:.2f} s")


async def _escape() -> Verdict:
    from ..supervisor._process import SpawnOptions, bot_environment, open_bot

    token = f"0.000{secrets.randbelow(10**9):09d}"
    spec = _canary("escape", token)
    async with open_bot(spec, SpawnOptions(env=bot_environment(spec), limits=CANARY_LIMITS)) as bot:
        with trio.move_on_after(20):
            await bot.read_line(output_budget=1 << 16)
    await trio.sleep(0.2)
    survivors = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                if token.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    survivors.append(int(name))
    for pid in survivors:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    return Verdict(not survivors, f"a setsid double-forked daemon survived the match (pid {survivors})"
                   if survivors else "the setsid double-forked daemon died with the match")  # fmt: skip


def _short(report: dict[str, Any] | None, what: str) -> str:
    if report is None:
        return what
    text = "; ".join(f"{k}: {v}" for k, v in report.items())
    return text[:160]


def render(verdicts: dict[str, Verdict] | None) -> str:
    """The report ``arena sandbox`` prints."""
    info = summary()
    lines = [f"Sandbox level here: {info['level']} (euid {info['euid']})", "Layers in force:"]
    lines += [f"  {name:9} {how}" for name, how in info["layers"].items()]
    if info["missing"]:
        lines.append("Not available:")
        lines += [f"  {name:9} {why}" for name, why in info["missing"].items()]
    lines.append("Properties (canary verdict, then the mechanisms that hold it here):")
    for prop, mechanisms in info["properties"].items():
        verdict = verdicts.get(prop) if verdicts else None
        mark = "    " if verdict is None else ("HELD" if verdict.held else "FAIL")
        lines.append(f"  {mark}  {prop:13} {PROPERTIES[prop][0]}")
        if verdict is not None:
            lines.append(f"        canary: {verdict.detail}")
        lines.append(f"        by: {'; '.join(mechanisms) if mechanisms else 'NOTHING holds this here'}")
    return "\n".join(lines)


def cmd_sandbox(args: argparse.Namespace) -> int:
    """Verify the sandbox with the canary and print what holds."""
    if args.refresh:
        with contextlib.suppress(OSError):
            from ..sandbox._plan import _cache_file

            _cache_file().unlink()
    capabilities()
    verdicts = None if args.no_canary else trio.run(verify)
    if args.json:
        data = summary()
        if verdicts:
            data["canary"] = {k: {"held": v.held, "detail": v.detail} for k, v in verdicts.items()}
        print(json.dumps(data, indent=2))
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
