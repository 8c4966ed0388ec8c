"""Benchmark registry, result rows and timing."""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SUITES = ("quick", "full")



def core_build(compiled: int | None = None) -> str:
    """How the simulator ran: its hot path compiled by mypyc (how many modules) or pure Python."""
    if compiled is None:
        from planner.simulator.native import compiled_modules

        compiled = len(compiled_modules())
    return f"simulator core compiled (mypyc, {compiled} modules)" if compiled else "simulator core pure Python"


def child_record(module: str, *args: str, what: str) -> dict[str, Any]:
    """Run ``python -m module args`` in a fresh process (its own peak memory, its own CPU) from the
    project's root and return the JSON record its last line of output prints; ``what`` names the
    run in the error when it fails."""
    done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parent.parent)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])

@dataclass(frozen=True)
class Row:
    """One measured result, flat so that a list of rows is a DataFrame.

    ``seconds`` is the median wall time over the repeats; ``floor_seconds`` is the
    limit an issue sets (None when there is none); ``floor_gap`` the largest
    relative gap it allows (0 means proven optimal); ``floor_objective`` and
    ``floor_least`` the most and the least the objective may be; ``meets_floor`` says
    whether the median stayed within the time, the gap and the objective within theirs.
    """

    benchmark: str
    instance: str
    method: str
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    status: str
    repeats: int
    floor_seconds: float | None = None
    detail: str = ""
    floor_gap: float | None = None
    #: The most the objective may be (a floor on something other than time, e.g. peak memory).
    floor_objective: float | None = None
    #: The least the objective may be (a floor from below, e.g. a share of a predicted gain).
    floor_least: float | None = None

    @property
    def meets_floor(self) -> bool:
        in_time = self.floor_seconds is None or self.seconds <= self.floor_seconds
        close_enough = self.floor_gap is None or (self.gap is not None and self.gap <= self.floor_gap + 1e-12)
        small_enough = self.floor_objective is None or (
            self.objective is not None and self.objective <= self.floor_objective)
        large_enough = self.floor_least is None or (self.objective is not None and self.objective >= self.floor_least)
        return in_time and close_enough and small_enough and large_enough

    def record(self) -> dict[str, Any]:
        return {**asdict(self), "meets_floor": self.meets_floor}


@dataclass(frozen=True)
class Benchmark:
    name: str
    run: Callable[[str], list[Row]]
    suites: tuple[str, ...]
    description: str
    figure: Callable[[list[Row], Path], None] | None = None


BENCHMARKS: dict[str, Benchmark] = {}


def register(
    name: str, *, suites: tuple[str, ...] = SUITES, figure: Callable[[list[Row], Path], None] | None = None,
) -> Callable[[Callable[[str], list[Row]]], Callable]:
    """Register ``run(suite) -> rows`` under ``name`` for the given suites; ``figure(rows, folder)``,
    when given, draws the rows into the results folder."""

    def decorate(run: Callable[[str], list[Row]]) -> Callable[[str], list[Row]]:
        if name in BENCHMARKS:
            raise ValueError(f"benchmark {name!r} is registered twice")
        unknown = set(suites) - set(SUITES)
        if unknown:
            raise ValueError(f"benchmark {name!r}: unknown suites {sorted(unknown)}")
        BENCHMARKS[name] = Benchmark(name, run, suites, (run.__doc__ or "").strip().splitlines()[0], figure)
        return run

    return decorate


def timed(function: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median wall time of ``repeats`` calls and the last call's result."""
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def cpu_seconds(function: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of one call of ``function`` (garbage collected first, outside the timing) and its
    result: for comparisons run side by side in one process, which wall time lets the machine's
    load move."""
    gc.collect()
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def save_figure(fig: Any, path: Path) -> None:
    """Write a matplotlib figure as PNG (110 dpi, trimmed) atomically, and close it."""
    import io

    import matplotlib.pyplot as plt

    from models.fileio import write_atomic

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    write_atomic(path, buffer.getvalue())
