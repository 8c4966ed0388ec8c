"""The build: setuptools, with the simulator's hot path compiled by mypyc (C extensions beside the
modules, the same code) unless ``BATCHPLAN_PURE=1``. The modules are listed in
planner/simulator/compiled.txt. A compiled build records each module's source hash in
planner/simulator/_build.json, so that an edited source is never shadowed by its old extension
without a word (`planner.simulator.native.check_build`)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent
LISTED = Path("planner") / "simulator" / "compiled.txt"
RECORD = Path("planner") / "simulator" / "_build.json"


def compiled_sources(root: Path = ROOT) -> list[str]:
    lines = (root / LISTED).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def pure_build(root: Path = ROOT) -> None:
    """A pure build in place: extensions left by an earlier compiled build would shadow the sources."""
    for source in compiled_sources(root):
        path = root / source
        for extension in path.parent.glob(path.stem + ".cpython-*.so"):
            extension.unlink()
    for runtime in (root / "planner" / "simulator").glob("*__mypyc*.so"):
        runtime.unlink()
    (root / RECORD).unlink(missing_ok=True)


def extensions(root: Path = ROOT) -> list:
    if os.environ.get("BATCHPLAN_PURE") == "1":
        pure_build(root)
        return []
    from mypyc.build import mypycify

    sources = compiled_sources(root)
    hashes = {source: hashlib.sha256((root / source).read_bytes()).hexdigest() for source in sources}
    (root / RECORD).write_text(json.dumps({"compiled": hashes}, indent=1) + "\n")
    return mypycify(sources, opt_level="3", group_name="planner.simulator.native_core")


if __name__ == "__main__":
    from setuptools import setup

    setup(ext_modules=extensions())
