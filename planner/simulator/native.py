"""Whether the simulator's hot path runs compiled, and a guard against a stale build.

setup.py compiles the modules listed in ``compiled.txt`` with mypyc (C extensions beside the
sources, which Python imports in their place) unless ``BATCHPLAN_PURE=1``, and records each
source's hash in ``_build.json``. In an editable install an edited source would be shadowed by
the extension built from the old one, silently; `check_build` refuses that at import.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
from pathlib import Path

from models.errors import PlannerError

ROOT = Path(__file__).resolve().parent.parent.parent
RECORD = Path(__file__).resolve().parent / "_build.json"


class StaleBuild(PlannerError, ImportError):
    """A compiled module is older than its source: rebuild (or install pure Python)."""


def _extension(source: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_suffix(suffix)
        if candidate.exists():
            return candidate
    return None


def _built(record: Path, root: Path) -> dict[str, str]:
    """The recorded modules that have an extension in this tree: source path -> its hash at the build."""
    if not record.exists():
        return {}
    recorded: dict[str, str] = json.loads(record.read_text())["compiled"]
    return {source: digest for source, digest in recorded.items() if _extension(root / source) is not None}


def compiled_modules(record: Path = RECORD, root: Path = ROOT) -> list[str]:
    """The modules of the simulator that run compiled in this install (source paths)."""
    return list(_built(record, root))


def check_build(record: Path = RECORD, root: Path = ROOT) -> None:
    """Raise `StaleBuild` when a compiled module's source changed since it was compiled."""
    for source, digest in _built(record, root).items():
        path = root / source
        if not path.exists():
            continue
        if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            raise StaleBuild(f"{source} changed since it was compiled: rebuild with 'make' (or 'pip install -e .'; "
                             f"BATCHPLAN_PURE=1 for pure Python)")
