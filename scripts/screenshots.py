"""Regenerate the docs' screenshots: each game's replay table, and a tournament report.

    .venv/bin/python scripts/screenshots.py          # writes docs/screenshots/*.png

Plays one seeded match of each game with the sample bots, writes its replay
page, and photographs a step in the middle with Debian's chromium (through
the playwright package; nothing is downloaded); so too the generic table of
the high-card example (a game without a view); then runs a small RPS Poker
tournament and photographs its report.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "screenshots"
BOTS = REPO / "sample_bots"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
# game, bots, parameters, the step to photograph
MATCHES = [
    ("rps-poker", ("simple-py", "save-pairs-ruby"), [], 10),
    ("gops", ("planner-python", "mimic-ruby"), [], 8),
    ("card-jitsu", ("random-python", "set-seeker-js"), [], 3),
    ("six-card-poker", ("sorted-python", "fictitious-play-js"), ["--param", "deals=20"], 6),
    ("badugi", ("rule-based-python", "calling-station-python"), ["--param", "hands=20"], 12),
]


def arena(*args: str, cwd: Path) -> str:
    run = subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return run.stdout


def generic_table(page: Any, work: Path) -> None:
    """The generic table of a game without a view (the high-card example, a plugin in one file), as A saw it."""
    example = REPO / "examples" / "high-card"
    module = ["--game-module", str(example / "high_card.py")]
    bots = [str(example / "bots" / name) for name in ("high", "low")]
    arena("play", "high-card", *bots, "--seed", "5", "--quiet", "--log-dir", str(work / "high-card"), *module, cwd=work)
    html = work / "high-card.html"
    arena("replay", str(next((work / "high-card").glob("*.jsonl"))), "--html", str(html), *module, cwd=work)
    page.goto(f"{html.as_uri()}#step=3&view=A")
    page.wait_for_selector("body[data-ready='1']")
    page.screenshot(path=str(OUT / "replay-generic-table.png"))
    print(f"wrote {OUT / 'replay-generic-table.png'}")


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("screenshots: chromium is not installed (apt-get install -y chromium)", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as driver:
        work = Path(tmp)
        browser = driver.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": 1360, "height": 860}, device_scale_factor=1)
        for game, (a, b), params, step in MATCHES:
            logs = work / game
            arena("play", game, str(BOTS / game / a), str(BOTS / game / b), "--seed", "7", "--quiet",
                  "--log-dir", str(logs), *params, cwd=work)  # fmt: skip
            log = next(logs.glob("*.jsonl"))
            html = work / f"{game}.html"
            arena("replay", str(log), "--html", str(html), cwd=work)
            shots = [((1360, 860), f"replay-{game}.png", "light"), ((390, 844), f"replay-{game}-phone.png", "light")]
            if game == "badugi":  # (and one in the dark scheme, at both sizes)
                shots += [
                    ((1360, 860), "replay-badugi-dark.png", "dark"),
                    ((390, 844), "replay-badugi-dark-phone.png", "dark"),
                ]
            for size, name, scheme in shots:
                page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
                page.set_viewport_size({"width": size[0], "height": size[1]})
                page.goto(f"{html.as_uri()}#step={step}")
                page.wait_for_selector("body[data-ready='1']")
                page.screenshot(path=str(OUT / name))
                print(f"wrote {OUT / name}")
            page.emulate_media(color_scheme="light")
        page.set_viewport_size({"width": 1360, "height": 860})
        generic_table(page, work)
        rps = BOTS / "rps-poker"
        bots = [
            str(rps / n) for n in ("save-pairs-ruby", "pair-or-high-c", "simple-py", "random-python", "minimal-bash")
        ]
        arena("tournament", "rps-poker", *bots, "--seed", "3", "--cycles", "2", "--quiet", cwd=work)
        arena("results", "arena-runs/results.sqlite", "--html", "report.html", cwd=work)
        reports = [
            ((1360, 1180), "report.png", "light"),
            ((390, 844), "report-phone.png", "light"),
            ((1360, 1180), "report-dark.png", "dark"),
            ((390, 844), "report-dark-phone.png", "dark"),
        ]
        for size, name, scheme in reports:
            page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.goto((work / "report.html").as_uri())
            page.screenshot(path=str(OUT / name))
            print(f"wrote {OUT / name}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
