"""Page size and load time of the largest sample replay: a 200-hand Badugi match.

    .venv/bin/python benchmarks/bench_replay_page.py [--hands 200]

Plays one seeded match of the Badugi sample bots, writes its replay page, and
prints the page's size, how long writing it took, and how long Debian's
chromium takes to open it until the table is drawn (and to step to the end),
with the machine's load beside the figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BADUGI = REPO / "sample_bots" / "badugi"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "arena",
                "play",
                "badugi",
                str(BADUGI / "rule-based-python"),
                str(BADUGI / "calling-station-python"),
                "--seed",
                "11",
                "--param",
                f"hands={args.hands}",
                "--quiet",
                "--log-dir",
                str(work),
            ],
            check=True,
            capture_output=True,
        )
        log = next(work.glob("*.jsonl"))
        out = work / "badugi.html"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "arena", "replay", str(log), "--html", str(out)], check=True,
                       capture_output=True)  # fmt: skip
        written = time.perf_counter() - started
        print(f"Badugi, {args.hands} hands: log {log.stat().st_size / 1024:.0f} KiB")
        size = out.stat().st_size / 1024
        print(f"page: {size:.0f} KiB, written in {written:.2f} s (arena replay --html, start-up included)")
        if chromium is None:
            print("chromium is not installed: no load time")
            return 0
        from playwright.sync_api import sync_playwright

        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=chromium, args=FLAGS)
            page = browser.new_page(viewport={"width": 1360, "height": 860})
            times = []
            for _ in range(3):
                started = time.perf_counter()
                page.goto(out.as_uri())
                page.wait_for_selector("body[data-ready='1']")
                times.append(time.perf_counter() - started)
            steps = page.text_content("#counter") or ""
            started = time.perf_counter()
            page.keyboard.press("End")
            total = steps.split("/")[1].strip()
            page.wait_for_function(f"document.getElementById('counter').textContent.startsWith('step {total} ')")
            jump = time.perf_counter() - started
            browser.close()
        print(
            f"load until the table is drawn: best {min(times) * 1000:.0f} ms of 3 ({steps.split('/')[1].strip()} steps)"
        )
        print(f"jump to the last step: {jump * 1000:.0f} ms")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
