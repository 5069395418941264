"""What docs/architecture.md and the packages' docstrings say about the code, checked against the code.

- a private module (``_name.py``) is imported only inside its own package:
  other packages go through the package's public names;
"""

from __future__ import annotations

import ast

from .test_layers import REPO, all_modules, imports_of

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
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
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
