"""Delay scheduling (Zaharia et al.): wait a little for a node-local slot."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from models.checks import as_float, as_list, as_str
from models.errors import InvalidInput
from models.job import INTENSITIES
from planner.simulator.jobs import NODE_LOCAL, OFF_RACK, RACK_LOCAL, JobRun


class DelayScheduling:
    """A job that cannot launch a node-local map is skipped; once it has been
    skipped for ``node_wait`` seconds it may launch rack-local, after a further
    ``rack_wait`` seconds off-rack. Launching a task sets the job's level to that
    task's locality (so a node-local launch resets it). ``intensities`` limits
    the waiting to jobs of those kinds (IO-rate biasing: delay only "io" jobs);
    the others launch anywhere at once.
    """

    # Any: the values are checked here, so that a wrong one raises our InvalidInput, not a compiled TypeError.
    def __init__(self, node_wait: Any, rack_wait: Any, intensities: Any = None) -> None:
        self.node_wait = as_float(node_wait, "delay.node_wait", minimum=0.0)
        self.rack_wait = as_float(rack_wait, "delay.rack_wait", minimum=0.0)
        if intensities is None:
            self.intensities: frozenset[str] | None = None
        else:
            kinds = [intensities] if isinstance(intensities, str) else as_list(
                intensities, "delay.intensities", what="an intensity or a list of them"
            )
            self.intensities = frozenset(as_str(item, "delay.intensities", choices=INTENSITIES) for item in kinds)

    def __reduce__(self) -> tuple[type[DelayScheduling], tuple[float, float, list[str] | None]]:
        # Compiled (setup.py), the class keeps no __dict__ for copy and pickle to read: rebuild it instead.
        return (DelayScheduling, (self.node_wait, self.rack_wait, self._kinds()))

    def __repr__(self) -> str:
        return f"DelayScheduling({self.node_wait:g}, {self.rack_wait:g}, intensities={self._kinds()})"

    def _kinds(self) -> list[str] | None:
        return None if self.intensities is None else sorted(self.intensities)

    def describe(self) -> dict[str, Any]:
        return {"node_wait": self.node_wait, "rack_wait": self.rack_wait, "intensities": self._kinds()}

    def allowed(self, job: JobRun, now: float) -> int:
        """The least local level ``job`` may launch at now."""
        if self.intensities is not None and job.intensity not in self.intensities:
            return OFF_RACK
        level = job.level
        since = job.wait_since
        if since is not None:
            # Written as now >= since + wait, the very sum `skipped` returns as the wake-up time
            # (now - since >= wait can be false at that time by a rounding error).
            if level == NODE_LOCAL and now >= since + self.node_wait:
                level, since = RACK_LOCAL, now
            if level == RACK_LOCAL and now >= since + self.rack_wait:
                level, since = OFF_RACK, now
            job.level, job.wait_since = level, since
        return level

    def launched(self, job: JobRun, locality: int) -> None:
        job.level = locality
        job.wait_since = None

    def skipped(self, job: JobRun, now: float) -> float:
        """Note that ``job`` was passed over; returns when its level next rises."""
        if job.wait_since is None:
            job.wait_since = now
        return self.wait_ends(job)

    def wait_ends(self, job: JobRun) -> float:
        """When the level of ``job`` next rises (never while it is not waiting)."""
        since = job.wait_since
        if since is None:
            return math.inf
        return since + (self.node_wait if job.level == NODE_LOCAL else self.rack_wait)


#: What a scheduler's ``delay`` setting takes: delay scheduling, its ``(node_wait, rack_wait)`` in
#: seconds (a pair: a tuple, or a list read from a file), or None (none). The pair is typed a Sequence
#: too because mypyc checks a tuple argument of a compiled function with its own TypeError, while it
#: leaves a Sequence to the code: a wrong value meets `as_delay`'s InvalidInput.
DelaySetting = DelayScheduling | tuple[float, float] | Sequence[float] | None


def as_delay(value: DelaySetting) -> DelayScheduling | None:
    """``value`` as delay scheduling: a `DelayScheduling`, ``(node_wait, rack_wait)`` or None."""
    if value is None or isinstance(value, DelayScheduling):
        return value
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return DelayScheduling(value[0], value[1])
    raise InvalidInput("delay", f"must be (node_wait, rack_wait) in seconds, got {value!r}")
