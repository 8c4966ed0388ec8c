"""The benchmark suite: ``python -m benchmarks --suite quick|full [--only NAME]``.

Each benchmark is a function registered by name (`register`) that returns flat
`Row` records; the runner writes them to ``benchmarks/results/<name>.csv`` and a
Markdown table per benchmark to ``benchmarks/results/<name>.md``. Floors named
in the issues are checked here, never in unit tests: a row carries its floor
and whether it was met, and the runner exits 1 when any floor is missed.
"""

from __future__ import annotations

from benchmarks.registry import BENCHMARKS, Benchmark, Row, register, timed

__all__ = ["BENCHMARKS", "Benchmark", "Row", "register", "timed"]
