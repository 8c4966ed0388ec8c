"""CPU/IO intensity classes (Packing paper, section 3)."""

from __future__ import annotations

from models.checks import as_float, shown
from models.errors import InvalidInput


def classify_intensity(
    cpu_utilization: float, io_rate: float, cpu_threshold: float = 0.6, io_threshold: float = 100e6
) -> str:
    """Class of a job from a profiling run (the paper profiles on 6 VMs).

    ``cpu_utilization`` is the mean CPU utilization as a fraction in [0, 1];
    ``io_rate`` is disk bytes per second. A job is "cpu" when its utilization
    reaches ``cpu_threshold`` and its IO rate stays below ``io_threshold``, "io"
    in the opposite case, and "balanced" when both or neither are high: only a
    clear CPU job and a clear IO job gain from sharing a machine by overcommit.
    """
    cpu = as_float(cpu_utilization, "cpu_utilization", minimum=0.0)
    if cpu > 1.0:
        raise InvalidInput("cpu_utilization", f"must be a fraction in [0, 1], got {shown(cpu_utilization)}")
    io = as_float(io_rate, "io_rate", minimum=0.0)
    cpu_high = cpu >= as_float(cpu_threshold, "cpu_threshold", minimum=0.0)
    io_high = io >= as_float(io_threshold, "io_threshold", minimum=0.0)
    if cpu_high and not io_high:
        return "cpu"
    if io_high and not cpu_high:
        return "io"
    return "balanced"
