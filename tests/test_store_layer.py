"""The database layer is the one place Arena opens its SQLite file and writes SQL (issue 37)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .codetools import nodes

ARENA = Path(__file__).resolve().parents[1] / "arena"
LAYER = ARENA / "competition" / "database"
_SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX))\b"
)


def _outside_the_layer() -> list[Path]:
    return [path for path in sorted(ARENA.rglob("*.py")) if LAYER not in path.parents]


def test_nothing_outside_the_database_layer_opens_a_connection() -> None:
    found = []
    for path in _outside_the_layer():
        for node in nodes(path):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) == ("sqlite3", "connect")
            ):
                found.append(f"{path.relative_to(ARENA.parent)}:{node.lineno}")
    assert not found, "sqlite3.connect outside arena/competition/database: " + ", ".join(found)


def test_no_sql_outside_the_database_layer() -> None:
    found = []
    for path in _outside_the_layer():
        for node in nodes(path):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL.search(node.value):
                found.append(f"{path.relative_to(ARENA.parent)}:{node.lineno}: {node.value[:60]!r}")
    assert not found, "SQL outside arena/competition/database (move it into a repository):\n" + "\n".join(found)


def test_the_checks_see_sql_and_a_connection() -> None:
    """What the two tests above look for is found where it is."""
    source = (LAYER / "connection.py").read_text()
    assert "sqlite3.connect" in source
    assert any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL.search(node.value)
        for node in ast.walk(ast.parse((LAYER / "matches.py").read_text()))
    )
