"""Names of a package's public surface imported on first use (PEP 562's module ``__getattr__``)."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:  # (not imported: ``arena --help`` imports this module, and nothing it need not)
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_names(package: str, modules: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package`` that imports each name of ``modules`` (name to module, relative
    to ``package`` when it begins with a dot) on first use, and keeps it in ``namespace`` (the package's globals).

    Importing a package then costs only what its importer uses: ``arena results`` imports
    :mod:`arena.competition.store`, not the whole package's tournament machinery with it.
    """

    def __getattr__(name: str) -> object:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            imported = importlib.import_module(module, package)
        except AttributeError as exc:  # (`from package import name` would drop it for "cannot import name")
            raise ImportError(f"{name!r} of {package!r} could not be imported: {exc}", name=package) from exc
        value = getattr(imported, name)
        namespace[name] = value
        return value

    return __getattr__
