"""The documentation site builds, strictly: a broken link or anchor, a page missing from the nav, a nav entry
without its page, or a missing included file fails here (and so in CI), as ``mkdocs build --strict`` does."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mkdocs_hooks", REPO / "scripts" / "mkdocs_hooks.py")
assert _spec is not None and _spec.loader is not None
mkdocs_hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mkdocs_hooks)  # scripts/ is not a package


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have mkdocs and mkdocs-material (the test extra of pyproject.toml)")
        pytest.skip("mkdocs or mkdocs-material is not installed (./test.sh installs them)")
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stderr}"
    return out


@pytest.mark.slow
def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    for page in ("index.html", "getting-started/index.html", "bots/protocol/index.html", "reference/cli/index.html"):
        assert (site / page).is_file(), page
    pages = {p.relative_to(REPO / "docs").with_suffix("") for p in (REPO / "docs").rglob("*.md")}
    built = {p.parent.relative_to(site) for p in site.rglob("index.html")}
    missing = [
        str(page)
        for page in pages
        if "_incoming" not in page.parts and (page.parent if page.name == "index" else page) not in built
    ]
    assert not missing, f"pages not built: {missing}"
    assert not (site / "_incoming").exists(), "docs/_incoming/ holds notes for the maintainers, not pages"


@pytest.mark.slow
def test_the_protocol_page_is_protocol_readme(site: Path) -> None:
    html = (site / "bots" / "protocol" / "index.html").read_text(encoding="utf-8")
    headings = re.findall(r"^#{2,3} (.+)$", (REPO / "protocol" / "README.md").read_text(encoding="utf-8"), re.M)
    assert len(headings) > 10
    for heading in headings:
        words = re.sub(r"`", "", heading).split(" (")[0]
        assert words in html, f"the protocol page lacks {heading!r}"
    # Links to protocol/README.md by its path in the repository land on the protocol's page.
    gops = (site / "games" / "gops" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../bots/protocol/#gops-gops1"' in gops


def test_the_cli_reference_has_every_command_and_option(site: Path) -> None:
    html = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    parser = build_parser()
    commands = [prog for prog, _ in mkdocs_hooks._subcommands(parser)]
    assert {"arena play", "arena tournament", "arena serve", "arena submit"} <= set(commands)
    for prog, command in mkdocs_hooks._subcommands(parser):
        assert f'id="{prog.replace(" ", "-")}"' in html, f"no section for {prog}"
        for action in command._actions:
            for option in action.option_strings:
                assert option in html, f"{prog} {option} is not in the reference"


def test_protocol_links_are_repointed_only_when_they_name_the_protocol() -> None:
    text = "[a](../../protocol/README.md#gops-gops1) [b](../tournaments/index.md) [c](https://x.org/protocol/README.md)"
    assert mkdocs_hooks.protocol_links(text, "games/gops.md") == (
        "[a](../bots/protocol.md#gops-gops1) [b](../tournaments/index.md) [c](https://x.org/protocol/README.md)"
    )
    assert mkdocs_hooks.protocol_links("[p](../protocol/README.md)", "index.md") == "[p](bots/protocol.md)"
    assert mkdocs_hooks.protocol_links("[p](../../protocol/README.md)", "bots/index.md") == "[p](protocol.md)"
