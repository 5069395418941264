"""The layers of the code base: imports point down only, and no module imports itself round a circle.

Every import is found by walking each module's syntax tree, including imports
made inside functions (a lazy import is still a dependency).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .codetools import all_modules, imports_of

LAYERS: list[tuple[str, ...]] = [
    ("protocol",),
    ("arena._errors", "arena._lazy"),
    ("arena.games",),
    ("arena.bots",),
    ("arena.sandbox",),
    ("arena.supervisor",),
    ("arena.checks",),
    ("arena.competition",),
    ("arena.replay",),
    ("arena.server",),
    ("arena.cli", "arena.__main__", "arena"),
]
"""Lowest first. A module may import its own layer's modules and any layer below, never one above."""


def layer_of(name: str) -> int:
    best = -1, -1  # (layer, length of the matching prefix): the longest prefix decides
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best[1]:
                best = index, len(prefix)
    assert best[0] >= 0, f"{name} belongs to no layer: add it to LAYERS"
    return best[0]


def test_every_module_belongs_to_a_layer() -> None:
    for name in all_modules():
        layer_of(name)


def test_no_module_imports_a_higher_layer() -> None:
    upward = []
    for name, path in all_modules().items():
        for target in imports_of(name, path):
            if layer_of(target) > layer_of(name):
                upward.append(f"{name} imports {target}")
    assert not upward, "imports that point up a layer:\n" + "\n".join(sorted(upward))


def test_packages_import_each_other_in_one_direction() -> None:
    """Within a layer too: two packages never import each other (directly or round a longer circle)."""
    graph: dict[str, set[str]] = {}
    for name, path in all_modules().items():
        graph.setdefault(package_of(name), set()).update(
            package_of(t) for t in imports_of(name, path) if package_of(t) != package_of(name)
        )
    assert not find_cycle(graph), "packages import each other: " + " -> ".join(find_cycle(graph))


def test_modules_import_no_circle() -> None:
    graph = {name: imports_of(name, path) for name, path in all_modules().items()}
    graph = {
        name: {t for t in targets if t in graph and not name.startswith(t + ".")} for name, targets in graph.items()
    }
    cycle = find_cycle(graph)
    assert not cycle, "modules import each other: " + " -> ".join(cycle)


def package_of(name: str) -> str:
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == "arena" and len(parts) > 1 else parts[0]


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """A circle of edges in ``graph`` as a path that ends where it starts, or ``[]``."""
    state: dict[str, int] = {}  # 1 = on the path being walked, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


@pytest.mark.parametrize(
    ("graph", "has_cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, False),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True),
        ({"a": {"a"}}, True),
    ],
)
def test_find_cycle_finds_circles(graph: dict[str, set[str]], has_cycle: bool) -> None:
    assert bool(find_cycle(graph)) is has_cycle


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    """The walk sees a lazy import inside a function, and resolves it relative to its package."""
    source = tmp_path / "mod.py"
    source.write_text("def f():\n    from ..competition.store import Store\n")
    assert "arena.competition.store" in imports_of("arena.sandbox.mod", source)
    assert layer_of("arena.competition.store") > layer_of("arena.sandbox.mod")
