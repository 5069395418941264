"""Helpers of the tests that read the code base itself (layers, architecture): its modules and their imports."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def all_modules() -> dict[str, Path]:
    return {module_name(p): p for root in ("arena", "protocol") for p in sorted((REPO / root).rglob("*.py"))}


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of ``path``'s syntax tree (parsed once a process: the tests that read the code base all walk it,
    and parsing its 1.8 MB took a test 1.4 s on an idle 2-CPU machine)."""
    return tuple(ast.walk(ast.parse(path.read_text(), str(path))))


@functools.cache
def imports_of(name: str, path: Path) -> frozenset[str]:
    """Every arena or protocol module that ``path`` imports, resolved to a module name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    known = all_modules()
    found: set[str] = set()
    for node in nodes(path):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known)
    return frozenset(m for m in found if m.split(".")[0] in ("arena", "protocol") and m != name)
