from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import trio

from arena._errors import BuildError
from arena.bots.spec import BotSpec, load_folder
from arena.sandbox import built_folder
from arena.supervisor import build
from arena.supervisor.build import BUILD_DIR, ensure_built, is_built

pytestmark = pytest.mark.usefixtures("own_build_root")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def output(spec: BotSpec, name: str) -> Path:
    """A file the build wrote in ``.arena-build/``, as the bot sees it."""
    folder = built_folder(spec)
    assert folder is not None, "not built"
    return folder / BUILD_DIR / name


HELLO_C = "int main(void) { return 0; }\n"
BROKEN_C = "int main(void) { return not_declared_here; }\n"


def bot_folder(tmp_path: Path, manifest: str, files: dict[str, str]) -> BotSpec:
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    (folder / "bot.toml").write_text(manifest)
    for name, text in files.items():
        (folder / name).write_text(text)
    return load_folder(folder)


C_MANIFEST = 'name = "cbot"\nbuild = "gcc -o .arena-build/bot bot.c"\nrun = ".arena-build/bot"\n'


@needs_gcc
async def test_builds_once_and_again_only_when_the_folder_changes(tmp_path: Path) -> None:
    spec = bot_folder(tmp_path, C_MANIFEST, {"bot.c": HELLO_C})
    said: list[str] = []
    assert not is_built(spec)
    await ensure_built(spec, log=said.append)
    binary = output(spec, "bot")
    assert binary.is_file() and is_built(spec)
    assert not (spec.cwd / BUILD_DIR).exists(), "the bot's own folder is never written"
    first = binary.stat().st_mtime_ns
    await ensure_built(spec, log=said.append)
    assert binary.stat().st_mtime_ns == first
    assert said == ["cbot: building (gcc -o .arena-build/bot bot.c)", "cbot: built", "cbot: build is up to date"]
    (spec.cwd / "bot.c").write_text(HELLO_C + "/* changed */\n")
    spec = load_folder(spec.cwd)
    assert not is_built(spec)
    await ensure_built(spec, log=said.append)
    assert said[-2:] == ["cbot: building (gcc -o .arena-build/bot bot.c)", "cbot: built"]


@needs_gcc
async def test_a_failing_build_names_the_bot_and_shows_the_compiler_output(tmp_path: Path) -> None:
    spec = bot_folder(tmp_path, C_MANIFEST, {"bot.c": BROKEN_C})
    with pytest.raises(BuildError) as caught:
        await ensure_built(spec)
    message = str(caught.value)
    assert message.startswith("bot 'cbot': build failed with exit status 1 (full output: ")
    assert "; last lines of its output:" in message.splitlines()[0]
    assert "not_declared_here" in message
    assert not is_built(spec)
    # A failure leaves no stamp: the next call tries again.
    with pytest.raises(BuildError):
        await ensure_built(spec)


async def test_only_the_tail_of_a_long_output_is_shown(tmp_path: Path) -> None:
    script = "import sys\nfor i in range(100): print('line', i)\nsys.exit(3)\n"
    spec = bot_folder(tmp_path, f'build = "{sys.executable} make.py"\nrun = "true"\n', {"make.py": script})
    with pytest.raises(BuildError) as caught:
        await ensure_built(spec)
    lines = str(caught.value).splitlines()
    assert "exit status 3" in lines[0]
    assert lines[1:] == [f"  line {i}" for i in range(100 - build.TAIL_LINES, 100)]


@pytest.mark.slow
async def test_a_build_over_its_time_limit_is_killed(tmp_path: Path) -> None:
    manifest = 'build = "sh -c \'echo compiling; sleep 30\'"\nrun = "true"\nbuild_timeout_s = 1.5\n'
    spec = bot_folder(tmp_path, manifest, {})
    with pytest.raises(BuildError) as caught:
        await ensure_built(spec)
    assert "did not finish within 1.5 s (raise build_timeout_s in bot.toml" in str(caught.value)
    assert "compiling" in str(caught.value)
    # The autouse fixture fails the test if the shell or its sleep survived.


async def test_a_missing_compiler_is_a_build_error(tmp_path: Path) -> None:
    spec = bot_folder(tmp_path, 'build = "no-such-compiler-xyz bot.c"\nrun = "true"\n', {})
    with pytest.raises(BuildError, match="cannot run build command 'no-such-compiler-xyz'"):
        await ensure_built(spec)


async def test_no_build_command_does_nothing(tmp_path: Path, own_build_root: Path) -> None:
    spec = bot_folder(tmp_path, 'run = "true"\n', {})
    await ensure_built(spec)
    assert not (spec.cwd / BUILD_DIR).exists() and not own_build_root.exists()
    assert is_built(spec)


async def test_concurrent_callers_build_once(tmp_path: Path) -> None:
    script = "import pathlib\np = pathlib.Path('.arena-build/count')\nn = int(p.read_text()) if p.exists() else 0\n"
    script += "import time; time.sleep(0.2)\np.write_text(str(n + 1))\n"
    spec = bot_folder(tmp_path, f'build = "{sys.executable} make.py"\nrun = "true"\n', {"make.py": script})
    async with trio.open_nursery() as nursery:
        for _ in range(3):
            nursery.start_soon(ensure_built, spec)
    assert output(spec, "count").read_text() == "1"


async def test_build_outputs_do_not_change_the_bots_digest(tmp_path: Path) -> None:
    script = "open('.arena-build/out', 'w').write('x')\n"
    spec = bot_folder(tmp_path, f'build = "{sys.executable} make.py"\nrun = "true"\n', {"make.py": script})
    await ensure_built(spec)
    assert load_folder(spec.cwd).digest == spec.digest


FALLOCATE = "import os\nfor n in range(10):\n    fd = os.open(f'.arena-build/f{n}', os.O_CREAT | os.O_WRONLY)\n" \
    "    os.posix_fallocate(fd, 0, 8 << 20)\n    print('allocated', n + 1, flush=True)\n"  # fmt: skip


async def test_a_build_never_puts_more_than_its_quota_on_disk_and_fails_saying_so(
    tmp_path: Path, own_build_root: Path
) -> None:
    # Ten fallocate calls of 8 MiB against a quota of 32 MiB: a poll every 0.1 s saw them only once all were made.
    from arena.sandbox import SandboxPolicy, current_policy
    from arena.sandbox._builds import quota_mounts, usage

    if not quota_mounts():
        pytest.skip("the arena may not mount a tmpfs here (not root, or no CAP_SYS_ADMIN): builds are measured")
    quota = 32 << 20
    policy = SandboxPolicy(layers=current_policy().layers, build_root=own_build_root, build_disk_bytes=quota)
    spec = bot_folder(tmp_path, f'build = "{sys.executable} fill.py"\nrun = "true"\n', {"fill.py": FALLOCATE})
    most = 0

    async def watch() -> None:
        nonlocal most
        while True:  # the build's folder as the host sees it: its tmpfs while it runs
            for folder in own_build_root.iterdir():
                if folder.is_dir():
                    most = max(most, usage(folder, 1 << 20)[0])
            await trio.sleep(0.002)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        with pytest.raises(BuildError) as failed:
            await ensure_built(spec, policy=policy)
        nursery.cancel_scope.cancel()
    assert "quota, which the kernel enforces" in str(failed.value), failed.value
    assert "allocated 3" in str(failed.value) and "allocated 5" not in str(failed.value)
    assert 0 < most <= quota, f"the build's folder held {most >> 20} MiB, over its quota of {quota >> 20} MiB"
    assert [p for p in own_build_root.iterdir() if p.is_dir()] == [], "the failed build's folder is gone"
