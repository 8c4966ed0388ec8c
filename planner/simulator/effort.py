"""What a simulation will cost, known before it starts: its tasks, an estimate of its seconds and
of its memory, and the check against the limits of `planner.limits`.

The estimate is linear in what a run holds and does, with the pace measured on this project's
2-core machine (Python 3.11, the simulator compiled by mypyc), one run at a time:

- seconds: each task `NS_PER_TASK` (12 us; 18 us under Natjam, which suspends and resumes; 1 us
  more with ``network``, which moves bytes over links), each input block replica past the first
  three `NS_PER_REPLICA` (4.5 us: a map waits in the list of every node holding a replica), each
  of the least heartbeats (`planner.limits.least_heartbeats`) `NS_PER_HEARTBEAT` (0.6 us);
- bytes: each task `BYTES_PER_TASK` (64) and each input block replica `BYTES_PER_REPLICA` (52):
  220 MB a million maps with three replicas.

`simulate` refuses a run estimated over `MAX_SIMULATION_SECONDS` or `MAX_SIMULATION_BYTES` before it
builds anything, and every command that simulates many runs refuses more than `MAX_TASK_RUNS` tasks
in all before the first starts, each in one line with the limit and the size. A run allowed but
estimated at `ANNOUNCED_SECONDS` or more is announced with its estimate (`announcement`) and shows
its progress with an ETA.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from models import Cluster, InvalidInput, Workload
from planner.limits import (
    MAX_SIMULATION_BYTES,
    MAX_SIMULATION_SECONDS,
    MAX_TASK_RUNS,
    least_heartbeats,
)
from planner.simulator.options import SimOptions
from planner.simulator.progress import duration_text
from planner.simulator.schedulers.base import Scheduler
from planner.simulator.schedulers.natjam import Natjam

#: Nanoseconds of one core per task: plain (FIFO, fair, capacity, FRESH), under Natjam, and the
#: more with ``network`` (measured: 10 jobs of 100,000 maps and 1,000 reduces on
#: examples/cluster.yaml, 11.6, 18.1 and 12.8 us a task). Whole nanoseconds, so that an estimate
#: meets its limit exactly.
NS_PER_TASK = 12_000
NS_PER_NATJAM_TASK = 18_000
NS_PER_NETWORK_TASK = 1_000
#: Nanoseconds per input block replica past the first three (replication 30 and 100 on 40 and 400
#: nodes: 5.0 and 4.3 us each) and per heartbeat (`MAX_HEARTBEATS` is about a minute).
NS_PER_REPLICA = 4_500
COUNTED_REPLICAS = 3
NS_PER_HEARTBEAT = 600
#: Bytes per task and per input block replica (maximum RSS over replication 1, 3, 30 and 100:
#: 112, 214, 1,580 and 5,150 bytes a map).
BYTES_PER_TASK = 64
BYTES_PER_REPLICA = 52
#: A run estimated at this many seconds or more is announced and shows its progress on stderr,
#: a line every `PROGRESS_SECONDS` (off a terminal; a terminal's spinner follows it throughout).
ANNOUNCED_SECONDS = 10.0
PROGRESS_SECONDS = 5.0


@dataclass(frozen=True)
class SimulationEffort:
    """``runs`` simulations of ``tasks`` tasks each (``replicas`` input block replicas,
    ``heartbeats`` at the least): ``seconds`` of one core and ``bytes`` of one run, estimated."""

    tasks: int
    replicas: int
    heartbeats: float
    nanoseconds: int
    bytes: int
    runs: int = 1

    @property
    def seconds(self) -> float:
        """The estimated seconds of one core."""
        return self.nanoseconds / 1e9

    @property
    def task_runs(self) -> int:
        """Tasks times runs: the size `MAX_TASK_RUNS` bounds."""
        return self.tasks * self.runs

    def describe(self) -> str:
        """E.g. ``9,999,990 tasks, about 2 min 30 s and 2.2 GB``."""
        runs = f" x {self.runs:,} runs" if self.runs != 1 else ""
        return (f"{self.tasks:,} tasks{runs}, about {duration_text(self.seconds)} of one core and "
                f"{self.bytes / 1e9:.1f} GB a run")


#: A run that simulates no task (a VM plan's phases: one VM run a job).
NO_EFFORT = SimulationEffort(0, 0, 0.0, 0, 0)


def simulation_effort(workload: Workload, cluster: Cluster, scheduler: Scheduler | None = None, *,
                      slots: tuple[int, int] | None = None, options: SimOptions | None = None) -> SimulationEffort:
    """The estimate of one task-level run (module docstring); ``slots`` as in `simulate` (a total
    that is not a pair of whole numbers counts as the cluster's: `simulate` refuses it anyway)."""
    jobs = workload.jobs
    tasks = workload.tasks
    copies = min(cluster.replication, cluster.nodes)
    replicas = sum(job.map_tasks for job in jobs) * copies
    beats = least_heartbeats(jobs, cluster, slots if _is_split(slots) else None)
    per_task = NS_PER_NATJAM_TASK if isinstance(scheduler, Natjam) else NS_PER_TASK
    if isinstance(options, SimOptions) and options.network:
        per_task += NS_PER_NETWORK_TASK
    extra_replicas = sum(job.map_tasks for job in jobs) * max(copies - COUNTED_REPLICAS, 0)
    nanoseconds = tasks * per_task + extra_replicas * NS_PER_REPLICA + math.ceil(beats * NS_PER_HEARTBEAT)
    return SimulationEffort(tasks, replicas, beats, nanoseconds,
                            tasks * BYTES_PER_TASK + replicas * BYTES_PER_REPLICA)


def check_simulation(workload: Workload, cluster: Cluster, scheduler: Scheduler | None = None, *,
                     slots: tuple[int, int] | None = None, options: SimOptions | None = None,
                     what: str = "simulate") -> SimulationEffort:
    """`simulation_effort`, refused (`InvalidInput`, one line with the limit and the size) when it
    is over `MAX_SIMULATION_SECONDS` or `MAX_SIMULATION_BYTES`."""
    effort = simulation_effort(workload, cluster, scheduler, slots=slots, options=options)
    if effort.nanoseconds > MAX_SIMULATION_SECONDS * 10**9:
        raise InvalidInput("workload", f"{what}: {effort.tasks:,} tasks and {effort.replicas:,} block replicas "
                                       f"make an estimated {effort.seconds:,.0f} s a run; at most "
                                       f"{MAX_SIMULATION_SECONDS:,.0f} s (MAX_SIMULATION_SECONDS)")
    if effort.bytes > MAX_SIMULATION_BYTES:
        raise InvalidInput("workload", f"{what}: {effort.tasks:,} tasks and {effort.replicas:,} block replicas "
                                       f"make an estimated {effort.bytes / 2**30:.1f} GiB ({effort.bytes:,} bytes) a run; "
                                       f"at most {MAX_SIMULATION_BYTES:,} bytes (MAX_SIMULATION_BYTES, "
                                       f"{MAX_SIMULATION_BYTES / 2**30:g} GiB)")
    return effort


def check_simulations(efforts: Iterable[tuple[SimulationEffort, int]], what: str) -> SimulationEffort:
    """Before the first of many runs starts: ``(estimate, count)`` for each distinct run (each
    already checked by `check_simulation`, e.g. `Run.effort`), the tasks of all together at most
    `MAX_TASK_RUNS`. The estimate of them all: the largest run's ``tasks``, ``replicas`` and
    ``bytes``, the ``seconds`` of all, ``runs`` of them."""
    counted = [(effort, count) for effort, count in efforts if count > 0]
    runs = sum(count for _, count in counted)
    task_runs = sum(effort.tasks * count for effort, count in counted)
    if task_runs > MAX_TASK_RUNS:
        raise InvalidInput("runs", f"{what}: {runs:,} simulations of {task_runs:,} tasks in all "
                                   f"({task_runs:.2g}); at most {MAX_TASK_RUNS:.0e} (MAX_TASK_RUNS)")
    largest = max((effort for effort, _ in counted), key=lambda effort: effort.tasks, default=NO_EFFORT)
    return SimulationEffort(largest.tasks, largest.replicas, largest.heartbeats,
                            sum(effort.nanoseconds * count for effort, count in counted),
                            max((effort.bytes for effort, _ in counted), default=0), max(runs, 1))


def announcement(effort: SimulationEffort, what: str) -> str | None:
    """The line a command prints on stderr before a run estimated at `ANNOUNCED_SECONDS` or more
    (None for a shorter one), e.g. ``simulate: 9,999,990 tasks, about 2 min 30 s of one core ...``."""
    if effort.seconds < ANNOUNCED_SECONDS:
        return None
    return f"{what}: {effort.describe()} (estimated); progress follows"


def _is_split(slots: object) -> bool:
    """A map and reduce slot total as `simulate` takes it (a pair of non-negative whole numbers)."""
    return (isinstance(slots, tuple) and len(slots) == 2
            and all(isinstance(part, int) and not isinstance(part, bool) and part >= 0 for part in slots))
