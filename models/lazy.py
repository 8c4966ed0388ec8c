"""Names a package serves on first use (PEP 562): the package imports fast, each name imports
its module only when it is first looked up. `models` and `planner` use it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, public: dict[str, str], namespace: dict[str, Any]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's ``__getattr__`` and ``__dir__`` serving ``public`` (name -> defining module, or
    ``module:attribute`` where the package's name differs); a served name is stored in
    ``namespace`` (the package's globals), so later lookups are plain."""

    def __getattr__(name: str) -> Any:
        where = public.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = where.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
