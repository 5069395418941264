"""What a user reads is self-contained: each game's rules ship in docs/games/, every link resolves,
and nothing points outside the repository (a clone has no shared/ folder)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.samples import rules_file
from arena.games import BUILTIN_GAMES, GAMES

REPO = Path(__file__).resolve().parents[1]
USER_FACING = sorted(
    [REPO / "README.md", REPO / "protocol" / "README.md"]
    + [p for p in (REPO / "docs").rglob("*") if p.is_file()]
    + [p for p in (REPO / "examples").rglob("*") if p.is_file()]
    + [p for p in (REPO / "sample_bots").rglob("*") if p.is_file() and ".arena-build" not in p.parts]
    + [p for p in (REPO / "starters").rglob("*") if p.is_file()]
    + [p for p in (REPO / "arena").rglob("*") if p.suffix in {".py", ".js"}]
    + [p for p in (REPO / "docker").iterdir() if p.is_file()]
)
MARKDOWN = [p for p in USER_FACING if p.suffix == ".md"]
GENERATED = {REPO / "docs" / "reference" / "cli.md"}
"""Pages the site's build writes (scripts/mkdocs_hooks.py), which are no files of the repository."""
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def arena(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=REPO, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.mark.parametrize("game", BUILTIN_GAMES)
def test_every_game_has_its_rules_in_the_repository(game: str) -> None:
    cls = GAMES[game]
    rules = rules_file(game)
    assert rules == REPO / "docs" / "games" / f"{game}.md"
    text = rules.read_text(encoding="utf-8")
    assert text.startswith(f"# {cls.title} (`{cls.id}/{cls.version}`)\n")
    for part in ("Forfeit", "## As a bot", "## Choices Arena made"):
        assert part in text, f"{rules.name} lacks {part!r}"
    for param in cls.params_table:
        assert f"`{param.name}`" in text, f"{rules.name} does not explain the parameter {param.name}"


def test_rps_poker_says_what_a_pair_is() -> None:
    text = rules_file("rps-poker").read_text(encoding="utf-8")
    assert "**same number** as the base card" in text
    assert "the symbols do not matter" in text


@pytest.mark.slow
def test_arena_games_names_each_rules_file_and_prints_it() -> None:
    listing = arena("games")
    for game in BUILTIN_GAMES:
        assert f"rules: docs/games/{game}.md  (or: arena games {game})" in listing
    assert arena("games", "rps-poker") == rules_file("rps-poker").read_text(encoding="utf-8")


def test_the_readme_links_every_game_to_its_rules() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for game in BUILTIN_GAMES:
        assert f"(docs/games/{game}.md)" in readme


def test_nothing_a_user_reads_points_outside_the_repository() -> None:
    # A clone has no shared/ folder, and the published challenge bots are not ours to ship.
    offenders = [
        f"{path.relative_to(REPO)}: {word}"
        for path in USER_FACING
        for word in ("shared/", "koth-bots.js")
        if word in path.read_text(encoding="utf-8", errors="replace")
    ]
    assert not offenders


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_relative_link_resolves() -> None:
    broken = []
    for path in MARKDOWN:
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            if linked in GENERATED:
                continue  # written when the site is built (tests/test_docs_site.py checks its links)
            if not linked.is_file() or not linked.is_relative_to(REPO):
                broken.append(f"{path.relative_to(REPO)}: {target} is not a file of the repository")
            elif anchor and anchor not in anchors(linked):
                broken.append(f"{path.relative_to(REPO)}: {target}: no such heading")
    assert not broken
    assert any("docs/games" in str(p) for p in MARKDOWN)


def anchors(path: Path) -> set[str]:
    """The anchors of the Markdown headings of ``path`` (fenced code blocks left out)."""
    found, fenced = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.add(slug(line.lstrip("#")))
    return found
