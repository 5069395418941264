"""What the documentation site adds to the files in ``docs/`` when MkDocs builds it (``hooks:`` in ``mkdocs.yml``).

* The CLI reference: the page ``reference/cli.md`` is written at every build from the ``arena`` command's own
  argparse parsers (``arena.cli.build_parser()``), so it cannot drift from the options the code takes. Run
  this file alone to print the page: ``python scripts/mkdocs_hooks.py``.
* The protocol: its one copy is ``protocol/README.md`` (shipped in the wheel, read by the tests), which the
  page ``bots/protocol.md`` includes. Pages link to it by its path in the repository, so the links work on
  GitHub and in ``arena games GAME``'s text; in the site they are pointed at that page instead.
"""

from __future__ import annotations

import argparse
import os
import posixpath
import re
from typing import Any

PAGE = "reference/cli.md"
WIDTH = "76"
"""Columns the help is wrapped to (argparse reads ``COLUMNS``), so the page is the same on every machine."""


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """Each subcommand of ``parser``, depth first, named as it is typed (``arena results``)."""
    found: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if child.prog not in (prog for prog, _ in found):  # an alias names the same parser again
                    found.append((child.prog, child))
                    found.extend(_subcommands(child))
    return found


def markdown() -> str:
    """The reference page: ``arena --help``, then each subcommand's ``--help``, as the command prints them."""
    from arena.cli import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parser = build_parser()
        sections = [("arena", parser), *_subcommands(parser)]
        parts = [
            "# Command-line reference\n",
            "Every command and option of `arena`, as `--help` prints them. This page is written from the\n"
            "command's own argument parsers each time the site is built (`scripts/mkdocs_hooks.py`,\n"
            "an MkDocs hook), so it always matches the code.\n",
        ]
        parts.append("\n".join(f"- [`{prog}`](#{_anchor(prog)})" for prog, _ in sections[1:]) + "\n")
        for prog, command in sections:
            parts.append(f"## `{prog}`\n\n```text\n{command.format_help().rstrip()}\n```\n")
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(parts)


def _anchor(prog: str) -> str:
    """The anchor MkDocs gives the heading ``prog`` in backticks."""
    return prog.replace(" ", "-")


def on_files(files: Any, config: Any, **_: Any) -> Any:
    """MkDocs hook: add the generated page to the site's files."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=markdown()))
    return files


PROTOCOL = "protocol/README.md"
PROTOCOL_PAGE = "bots/protocol.md"
LINK_TARGET = re.compile(r"\]\(([^)\s#]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs hook: a link to ``protocol/README.md`` (by its path in the repository) goes to the protocol's page."""
    return protocol_links(markdown, page.file.src_uri)


def protocol_links(markdown: str, src_uri: str) -> str:
    """``markdown`` of the page ``src_uri`` (``games/gops.md``) with its links to the protocol's file repointed."""
    here = posixpath.dirname(posixpath.join("docs", src_uri))

    def repoint(found: re.Match[str]) -> str:
        target, anchor = found[1], found[2] or ""
        if re.match(r"[a-z]+:", target) or posixpath.normpath(posixpath.join(here, target)) != PROTOCOL:
            return found[0]
        return f"]({posixpath.relpath(PROTOCOL_PAGE, posixpath.dirname(src_uri) or '.')}{anchor})"

    return LINK_TARGET.sub(repoint, markdown)


if __name__ == "__main__":
    print(markdown())
