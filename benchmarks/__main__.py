"""Run the benchmark suite and write benchmarks/results/."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

import benchmarks
from benchmarks.registry import BENCHMARKS, SUITES, Row
from models.fileio import csv_text, write_atomic

RESULTS = Path(__file__).resolve().parent / "results"
COLUMNS = ("instance", "method", "objective", "bound", "gap", "seconds", "status", "floor_seconds", "floor_gap",
           "floor_objective", "floor_least", "meets_floor")


def load_all() -> None:
    for module in pkgutil.iter_modules(benchmarks.__path__):
        if module.name.startswith("bench_"):
            importlib.import_module(f"benchmarks.{module.name}")


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _missed(row: Row) -> str:
    """What a row missed: each floor it has, with its value."""
    parts = []
    if row.floor_seconds is not None:
        parts.append(f"{row.seconds:.3g} s (floor {row.floor_seconds:g} s)")
    if row.floor_gap is not None:
        parts.append(f"gap {row.gap} (floor {row.floor_gap:g})")
    if row.floor_objective is not None:
        parts.append(f"objective {row.objective} (at most {row.floor_objective:g})")
    if row.floor_least is not None:
        parts.append(f"objective {row.objective} (at least {row.floor_least:g})")
    return ", ".join(parts)


def markdown(name: str, description: str, suite: str, rows: list[Row]) -> str:
    lines = [f"# {name}", "", description, "", f"Suite: {suite}. Seconds are medians over the repeats.", ""]
    lines.append("| " + " | ".join(COLUMNS) + " | detail |")
    lines.append("|" + "---|" * (len(COLUMNS) + 1))
    for row in rows:
        record = row.record()
        lines.append("| " + " | ".join(_cell(record[c]) for c in COLUMNS) + f" | {row.detail} |")
    return "\n".join(lines) + "\n"


def write_results(name: str, description: str, suite: str, rows: list[Row], folder: Path = RESULTS) -> None:
    write_atomic(folder / f"{name}.csv", csv_text([row.record() for row in rows], COLUMNS))
    write_atomic(folder / f"{name}.md", markdown(name, description, suite, rows))


def main(argv: list[str] | None = None) -> int:
    load_all()
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=benchmarks.__doc__)
    parser.add_argument("--suite", choices=SUITES, default="quick")
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS), help="run only these benchmarks")
    parser.add_argument("--results", type=Path, default=RESULTS, help="folder for the CSV and Markdown files")
    args = parser.parse_args(argv)
    missed = []
    for name, bench in sorted(BENCHMARKS.items()):
        if (args.only and name not in args.only) or (not args.only and args.suite not in bench.suites):
            continue
        rows = bench.run(args.suite)
        write_results(name, bench.description, args.suite, rows, args.results)
        if bench.figure is not None:
            bench.figure(rows, args.results)
        print(markdown(name, bench.description, args.suite, rows))
        missed += [f"{name}: {r.instance} / {r.method}: {_missed(r)}" for r in rows if not r.meets_floor]
    for line in missed:
        print(f"FLOOR MISSED {line}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
