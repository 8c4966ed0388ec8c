"""How fast the command starts: CPU seconds of `planner --help` against `import numpy`, side by side.

Issue 15 sets the floor: `planner --help` in under 0.5 s of CPU. Each row is the median over the
repeats of the child process's user + system time (what `time` reports), so a loaded machine
changes it less than wall time would.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys

from benchmarks.registry import Row, register

FLOOR_CPU_SECONDS = 0.5


def child_cpu_seconds(argv: list[str]) -> float:
    """User + system CPU seconds of one run of ``argv`` (its output discarded)."""
    before = os.times()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


@register("startup")
def startup(suite: str) -> list[Row]:
    """CPU seconds to start: `planner --help`, `--version` and a command's help (floor 0.5 s each)
    and, for scale, `python -c "import numpy"` and a bare `python -c pass`, in the same run."""
    repeats = 3 if suite == "quick" else 7
    cases = [
        ("python -c pass", [sys.executable, "-c", "pass"], None),
        ("python -c 'import numpy'", [sys.executable, "-c", "import numpy"], None),
        ("planner --help", [sys.executable, "-m", "planner", "--help"], FLOOR_CPU_SECONDS),
        ("planner --version", [sys.executable, "-m", "planner", "--version"], FLOOR_CPU_SECONDS),
        ("planner simulate --help", [sys.executable, "-m", "planner", "simulate", "--help"], FLOOR_CPU_SECONDS),
        ("python -c 'import planner'", [sys.executable, "-c", "import planner"], None),
        # What a sweep's worker process imports before its first run (validation and compare runs).
        ("worker: import planner.proof.validate", [sys.executable, "-c", "import planner.proof.validate"], None),
        ("worker: import planner.proof.compare", [sys.executable, "-c", "import planner.proof.compare"], None),
    ]
    rows = []
    for label, argv, floor in cases:
        seconds = statistics.median(child_cpu_seconds(argv) for _ in range(repeats))
        rows.append(Row("startup", label, "cpu seconds", seconds, None, None, seconds, "ok", repeats, floor,
                        "user + system CPU of the process, median"))
    return rows
