"""Upper limits on runs, seeds and simulator settings, in one place so that the README can cite
them (the limits of jobs, clusters and files are in `models.limits`; a solver's time limit,
`solvers.MAX_TIME_LIMIT`, and the VMs a packing takes, `solvers.packing.problem.MAX_PACKING_VMS`, are
the solvers'). The simulator imports this module, so it imports nothing from `solvers`.

The command line checks its options against these before any work starts, and the settings
readers (`planner.simulator.config`, `planner.simulator.options`) check the values of files.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from models import Cluster, InvalidInput, Job
from models.limits import MAX_JOBS, MAX_SECONDS, MIN_HEARTBEAT

#: Simulated runs per configuration (--runs of plan --robust, validate, compare, sweep, demo).
MAX_RUNS = 100_000
#: Seeds, and seed + runs - 1 where a command counts seeds up (NumPy's legacy seeding, which the
#: particle swarm uses, takes at most 2^32 - 1).
MAX_SEED = 2**32 - 1
#: The admission limit k (jobs per phase at once); more than the jobs of a workload means all.
MAX_K = MAX_JOBS
#: Coefficient of variation of simulated task times (lognormal); at 10 a task may already run
#: ten thousand times its mean.
MAX_TASK_TIME_CV = 10.0
#: Slowdown of a rack-local or off-rack map against a node-local one.
MAX_LOCALITY_FACTOR = 100.0
#: The shortest period of a preemption re-check in seconds (a shorter one only adds events;
#: a period that does not advance the clock would never end).
MIN_RECHECK = MIN_HEARTBEAT
#: Any other number in a scheduler settings file (delays, timeouts, overheads, k): at most this
#: in magnitude.
MAX_SETTING = MAX_SECONDS
#: Milliseconds since the epoch in a Rumen or SLS trace (about the year 33658).
MAX_TRACE_MS = 1e15
#: Heartbeats a task-level simulation may need at the least: nodes / heartbeat x the batch's
#: shortest possible length (a node with a free slot heartbeats while work is pending, even work
#: its free slots cannot take). About a minute of simulation at this many.
MAX_HEARTBEATS = 100_000_000


#: What one simulation may take by its estimate (`planner.simulator.effort`): seconds of one core at
#: this machine's measured pace, and bytes of the run's own state (tasks, input block replicas).
#: The FB-2010 day (8,853,623 tasks on 3,000 nodes) is estimated at 158 s (211 s under Natjam) and
#: 1.9 GB; it ran in 104 s.
MAX_SIMULATION_SECONDS = 300
MAX_SIMULATION_BYTES = 4 * 2**30
#: Tasks times simulations of one command (validate, compare, sweep, plan --robust, a target's
#: candidates): the FB-2010 day's documented 150-run validation on a Dask cluster is 1.1e10.
MAX_TASK_RUNS = 20_000_000_000


def least_heartbeats(jobs: Iterable[Job], cluster: Cluster, slots: tuple[int, int] | None = None) -> float:
    """The heartbeats a task-level simulation needs at the least (0 with heartbeat 0, or no jobs).

    The batch lasts at least as long as its last submission, its longest task and its work
    spread over every slot; a heartbeat of h seconds on n nodes gives n / h heartbeats per
    simulated second.
    """
    if cluster.heartbeat == 0:
        return 0.0
    jobs = list(jobs)
    if not jobs:
        return 0.0
    total = sum(slots) if slots is not None else cluster.total_slots
    return cluster.nodes / cluster.heartbeat * _shortest_batch(jobs, total)


def _shortest_batch(jobs: list[Job], total_slots: int) -> float:
    """The least length of the batch in seconds: its last submission, its longest task, its work
    over every slot."""
    work = math.fsum(job.work for job in jobs)
    return max(max(job.submit for job in jobs), max(max(job.map_time, job.reduce_time) for job in jobs),
               work / max(total_slots, 1))


def check_heartbeats(jobs: Iterable[Job], cluster: Cluster, slots: tuple[int, int] | None = None) -> None:
    """Refuse a simulation whose heartbeats alone would take more than `MAX_HEARTBEATS` events
    (`least_heartbeats`). A heartbeat of 0 offers slots without heartbeats and is always fine.
    """
    jobs = list(jobs)
    beats = least_heartbeats(jobs, cluster, slots)
    if beats > MAX_HEARTBEATS:
        shortest = _shortest_batch(jobs, sum(slots) if slots is not None else cluster.total_slots)
        raise InvalidInput(
            "heartbeat", f"the batch runs at least {shortest:.3g} s; heartbeats every {cluster.heartbeat:g} s on "
                         f"{cluster.nodes:,} nodes make {beats:.3g} of them, more than {MAX_HEARTBEATS:.0e} "
                         "(MAX_HEARTBEATS); use heartbeat 0 or a longer one")


#: Slot splits `validate(curve_splits=)` simulates besides the plan's for the makespan-vs-map-slots
#: figure (each split is up to 10 more runs; a curve of 100 points is already finer than a figure shows).
MAX_CURVE_SPLITS = 100
