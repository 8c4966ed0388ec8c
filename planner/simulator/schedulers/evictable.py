"""Which running attempts Natjam may evict now: the walk over the slots behind every eviction.

Natjam looks for a victim at most instants while production (or the most urgent) work waits,
and each look walks every slot; this module is compiled with the simulator's core (setup.py)
so that the walk costs what the core's own loops do, while `Natjam` stays a Python plug-in.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from planner.simulator.jobs import JobRun
from planner.simulator.layout import MAP

if TYPE_CHECKING:
    from planner.simulator.state import SimState


def evictable(sim: SimState, includes: Callable[[JobRun], bool], now: float, min_run: float, banks: float,
              rule4: bool, maps: bool, protected: float) -> tuple[dict[int, list[int]], dict[int, JobRun], float]:
    """The attempts of victim jobs (``includes``) that may be evicted at ``now``, by job index in
    slot order, those jobs, and the first time a protected one may be (``protected`` or earlier).

    An attempt may be evicted once it has run ``min_run``; with ``rule4`` (MLF with suspensions)
    also once it has computed ``banks`` seconds, never while a reducer is copying. Maps only when
    ``maps``. A suspending attempt is not running."""
    held: dict[int, list[int]] = {}
    holders: dict[int, JobRun] = {}
    verdicts: dict[int, bool] = {}  # job index -> whether it is a victim
    suspending = sim.suspending
    for slot, run in enumerate(sim.slot_run):
        if run is None or slot in suspending:
            continue
        job: JobRun = run[0]
        kind: int = run[1]
        start: float = run[3]
        ready = start + min_run
        if kind == MAP:
            if not maps:
                continue  # a map ends soon on its own (the paper evicts reduces only)
            if rule4 and start + banks > ready:
                ready = start + banks
        elif rule4:  # a reducer computes once the job's last map ends: an event settle will see
            map_done = job.map_done
            if slot in job.copying or map_done is None:
                ready = math.inf
            elif (start if start >= map_done else map_done) + banks > ready:
                ready = (start if start >= map_done else map_done) + banks
        if now < ready and ready >= protected:
            continue
        index = job.index
        victim = verdicts.get(index)
        if victim is None:
            victim = verdicts[index] = bool(includes(job))
        if not victim:
            continue
        if now >= ready:  # the very sum settle asks to be woken at
            held.setdefault(index, []).append(slot)
            holders[index] = job
        else:
            protected = ready
    return held, holders, protected
