"""What docs/architecture.md and the packages' docstrings say about the code, checked against the code.

- a private module (``_name.py``) is imported only inside its own package:
  other packages go through the package's public names;
- each package's docstring names every module in it, and no module that is gone;
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from .codetools import REPO, all_modules, imports_of, nodes

SYNC_WAIT = {"arena.competition.worker", "arena.competition.cluster", "arena.server.serve"}
"""The modules that still set the supervisor's global ``_process.SYNC_WAIT_S`` (a setting passed where it is used
replaces it: issue 37, another change)."""


def _private_package(module: str) -> str | None:
    """The package a private module belongs to (``arena.supervisor`` for ``arena.supervisor._pool``), or None."""
    package, _, last = module.rpartition(".")
    return package if last.startswith("_") and not last.startswith("__") and package else None


def test_private_modules_are_imported_only_inside_their_package() -> None:
    reaching = []
    for name, path in all_modules().items():
        own = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for target in imports_of(name, path):
            package = _private_package(target)
            if package is None or own == package or own.startswith(package + "."):
                continue
            if target == "arena.supervisor._process" and name in SYNC_WAIT:
                continue
            reaching.append(f"{name} imports {target}")
    assert not reaching, "import the package's public names instead:\n" + "\n".join(sorted(reaching))


def test_no_module_imports_a_private_name_of_another_package() -> None:
    # ``from ..sandbox._plan import _cache_file`` and the like: a private function is its module's own.
    reaching = []
    for name, path in all_modules().items():
        for node in nodes(path):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                reaching += [
                    f"{name}: {alias.name} from {'.' * node.level}{node.module}"
                    for alias in node.names
                    if alias.name.startswith("_")
                    and not alias.name.startswith("__")
                    and alias.name not in ("_process", "_percent")  # (results.py is being reshaped: issue 37)
                ]
    assert not reaching, "\n".join(reaching)


def test_the_checks_find_what_they_look_for() -> None:
    assert _private_package("arena.supervisor._pool") == "arena.supervisor"
    assert _private_package("arena.supervisor.play") is None
    assert _private_package("arena._errors") == "arena"
    assert (REPO / "arena" / "supervisor" / "_pool.py").is_file()


PACKAGES = sorted({p.parent for root in ("arena", "protocol") for p in (REPO / root).rglob("__init__.py")})


def _named_modules(package: Path) -> set[str]:
    """The modules of ``package`` that its docstring names (``:mod:`~arena.server.web```)."""
    dotted = ".".join(package.relative_to(REPO).parts)
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    return {m.removeprefix(dotted + ".") for m in re.findall(r":mod:`~?([\w.]+)`", doc) if m.startswith(dotted + ".")}


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: ".".join(p.relative_to(REPO).parts))
def test_each_package_docstring_lists_its_modules(package: Path) -> None:
    modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    packages = {p.parent.name for p in package.glob("*/__init__.py")}
    named = _named_modules(package)
    assert modules <= named, f"the docstring of {package.name}/__init__.py does not name {sorted(modules - named)}"
    assert named <= modules | packages, f"{package.name}/__init__.py names modules that are gone: {named - modules}"


PAGE = REPO / "docs" / "architecture.md"


def _hops() -> list[tuple[str, str, str]]:
    """The hops of a match's result the page's table names: (number, module path, function)."""
    return re.findall(r"^\| (\d+) \| `(arena/[\w/]+\.py)` \| `([\w.]+)` \|", PAGE.read_text(), re.MULTILINE)


def test_the_paths_the_architecture_page_names_exist() -> None:
    text = PAGE.read_text()
    named = set(re.findall(r"`((?:arena|protocol|tests|benchmarks|docs)/[\w/.-]*?)`", text))
    named |= set(re.findall(r"\b((?:supervisor|competition|server)/\w+\.py)\b", text))
    missing = [
        path for path in named
        if not (REPO / path).exists() and not (REPO / "arena" / path).exists()
    ]  # fmt: skip
    assert len(named) > 30
    assert not missing, f"docs/architecture.md names paths that do not exist: {sorted(missing)}"


def test_each_hop_of_a_result_is_a_real_function_in_the_diagram() -> None:
    hops = _hops()
    assert [int(number) for number, _, _ in hops] == list(range(1, len(hops) + 1)) and len(hops) >= 6
    diagram = PAGE.read_text().split("```mermaid")[2].split("```")[0]
    for _, path, function in hops:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        found: object = module
        for part in function.split("."):
            found = getattr(found, part, None)
            assert found is not None, f"hop {function}: no {part} in {path}"
        assert callable(found), function
        assert f"{function}<br/>{path.removeprefix('arena/')}" in diagram, f"the diagram does not show hop {function}"


def test_the_page_leaves_the_database_layer_its_section() -> None:
    assert "\n## The database layer\n" in PAGE.read_text()
