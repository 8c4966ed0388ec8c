"""The SWIM importer: Facebook workload traces (tab-separated bytes per job) as a `Workload`.

Like every importer in `planner.io`, it returns a `Workload` whose jobs carry task counts, mean task
times and submit times. Problems in a file raise `InvalidInput` naming the
file, the place (line or job) and the field, e.g.
``fb.tsv: line 2.submit: must be a number, got 'soon'``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from models import InvalidInput, Job, Workload
from models.checks import as_bool, as_float, as_int, as_path, shown
from models.fileio import read_text
from models.limits import MAX_BYTES, MAX_JOBS, MAX_NUMBER_CHARS, MAX_SECONDS, MIN_TASK_SECONDS
from planner.io.json_traces import trace_workload

__all__ = ["CONVERSION_SETTINGS", "GiB", "MiB", "SWIM_COLUMNS", "SwimConversion", "read_swim"]

MiB = 1 << 20
GiB = 1 << 30

SWIM_COLUMNS = ("job_id", "submit", "gap", "map_input_bytes", "shuffle_bytes", "reduce_output_bytes")


@dataclass(frozen=True)
class SwimConversion:
    """How SWIM's byte counts become task counts and task times.

    SWIM records bytes only. A job gets ``max(1, ceil(input / block_size))``
    map tasks and ``ceil(shuffle / bytes_per_reduce)`` reduce tasks (0 when the
    shuffle is empty: a map-only job). A task takes a fixed start-up cost plus
    its share of the bytes at a per-task rate:

    - map_time = map_startup + (input / maps) / map_rate, plus
      (output / maps) / output_rate for a map-only job (its maps write the output);
    - reduce_time = reduce_startup + (shuffle / reduces) / shuffle_rate
      + (output / reduces) / output_rate.

    With the defaults a full 128 MiB block maps in 5 + 25.6 = 30.6 s and a reduce
    of 1 GiB of shuffle takes 5 + 102.4 = 107.4 s before writing its output,
    typical of Hadoop clusters of the SWIM traces' era.
    """

    block_size: float = 128 * MiB
    bytes_per_reduce: float = 1 * GiB
    map_startup: float = 5.0
    map_rate: float = 5 * MiB
    reduce_startup: float = 5.0
    shuffle_rate: float = 10 * MiB
    output_rate: float = 20 * MiB

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name.endswith("_startup"):
                checked = as_float(value, item.name, minimum=0.0, maximum=MAX_SECONDS)
            else:  # sizes in bytes and rates in bytes per second: below one byte is a typo (and overflows)
                checked = as_float(value, item.name, above=0.0, maximum=float(MAX_BYTES))
                if checked < 1.0:
                    raise InvalidInput(item.name, f"must be >= 1 (bytes), got {shown(value)}")
            object.__setattr__(self, item.name, checked)

    def job(self, name: str, submit: float, input_bytes: int, shuffle_bytes: int, output_bytes: int,
            split_output: bool = True, **extra: Any) -> Job:
        maps = max(1, math.ceil(input_bytes / self.block_size))
        reduces = math.ceil(shuffle_bytes / self.bytes_per_reduce) if shuffle_bytes > 0 else 0
        if split_output and not reduces:
            # A map-only job's maps write its output: one block of output per map at most, as
            # Hadoop would run a job that writes more than it reads (FB-2010's job22447 writes
            # 5 TB from 2 MB: one map of 254,252 s unsplit, 37,880 maps of 32 s split).
            maps = max(maps, math.ceil(output_bytes / self.block_size))
        map_time = self.map_startup + input_bytes / maps / self.map_rate
        reduce_time = 0.0
        if reduces:
            reduce_time = (self.reduce_startup + shuffle_bytes / reduces / self.shuffle_rate
                           + output_bytes / reduces / self.output_rate)
        else:
            map_time += output_bytes / maps / self.output_rate
        # zero start-up and (almost) no bytes: keep the task, give it the shortest time a task takes
        map_time = max(map_time, MIN_TASK_SECONDS)
        reduce_time = max(reduce_time, MIN_TASK_SECONDS) if reduces else 0.0
        return Job(name, maps, reduces, map_time, reduce_time, submit=submit, input_bytes=input_bytes,
                   shuffle_bytes=shuffle_bytes, output_bytes=output_bytes, **extra)


#: The conversion's parameters by name: what ``read_swim(..., NAME=VALUE)`` and
#: ``planner import swim --set NAME=VALUE`` set.
CONVERSION_SETTINGS = tuple(item.name for item in fields(SwimConversion))


def read_swim(
    path: str | Path,
    *,
    limit: int | None = None,
    pool: str = "default",
    intensity: str = "balanced",
    window: tuple[float, float] | None = None,
    split_output: bool = True,
    **conversion: Any,
) -> Workload:
    """Import a SWIM workload trace (tab-separated, no header; see `SWIM_COLUMNS`).

    ``conversion`` overrides the `SwimConversion` parameters; ``limit`` keeps the
    first jobs only; ``window=(start, end)`` keeps the jobs submitted in [start, end)
    seconds, their submit times counted from ``start`` (``limit`` counts kept jobs).
    ``split_output`` (on by default) gives a map-only job at least ceil(output / block)
    maps: its maps write its output, a block each at most.
    """
    path = as_path(path, "path")
    split_output = as_bool(split_output, "split_output")
    try:
        convert = SwimConversion(**conversion)
    except TypeError as error:
        raise InvalidInput("conversion", str(error)) from None
    if limit is not None:
        limit = as_int(limit, "limit", minimum=1, maximum=MAX_JOBS)
    start, end = submit_window(window)
    source = str(path)
    jobs: list[Job] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if limit is not None and len(jobs) >= limit:
            break
        cells = line.rstrip("\r\n").split("\t")
        where = f"line {number}"
        if len(cells) != len(SWIM_COLUMNS):
            raise InvalidInput(where, f"expected {len(SWIM_COLUMNS)} tab-separated columns, got {len(cells)}",
                               source=source)
        name = cells[0].strip()
        if not name:
            raise InvalidInput(f"{where}.job_id", "must not be empty", source=source)
        if name in seen:
            raise InvalidInput(f"{where}.job_id", f"duplicate job id {shown(name)} (also line {seen[name]})",
                               source=source)
        if len(jobs) >= MAX_JOBS:
            raise InvalidInput(where, f"a workload has at most {MAX_JOBS:,} jobs; --limit takes the first ones",
                               source=source)
        seen[name] = number
        try:
            submit = as_float(_number(cells[1], "submit"), "submit", minimum=0.0, maximum=MAX_SECONDS)
            if not start <= submit < end:
                continue
            submit -= start
            counts = [as_int(_number(cells[i], SWIM_COLUMNS[i]), SWIM_COLUMNS[i], minimum=0, maximum=MAX_BYTES)
                      for i in (3, 4, 5)]
            jobs.append(convert.job(name, submit, *counts, split_output, pool=pool, intensity=intensity))
        except InvalidInput as error:
            raise InvalidInput(f"{where}.{error.field}", error.problem, source=source) from None
    if not jobs:
        where = "" if window is None else f" submitted in the window [{start:g}, {end:g}) s"
        raise InvalidInput("" if window is None else "window", f"no jobs in the trace{where}", source=source)
    return trace_workload(jobs, source, [f"line {line}" for line in seen.values()])


def _number(text: str, field: str) -> float | int:
    cleaned = text.strip()
    if len(cleaned) > MAX_NUMBER_CHARS:
        raise InvalidInput(field, f"a number of {len(cleaned):,} characters; numbers may have at most "
                                  f"{MAX_NUMBER_CHARS}")
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        return float(cleaned)
    except ValueError:
        raise InvalidInput(field, f"must be a number, got {shown(text)}") from None


def submit_window(window: object) -> tuple[float, float]:
    """(start, end) seconds of a submit-time window; everything without one."""
    if window is None:
        return 0.0, math.inf
    if not isinstance(window, (tuple, list)) or len(window) != 2:
        raise InvalidInput("window", f"must be (start, end) in seconds, got {shown(window)}")
    start = as_float(window[0], "window.start", minimum=0.0, maximum=MAX_SECONDS)
    end = as_float(window[1], "window.end", minimum=0.0, maximum=MAX_SECONDS)
    if end <= start:
        raise InvalidInput("window", f"must end after it starts, got {start:g},{end:g}")
    return start, end
