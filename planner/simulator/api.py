"""`simulate`: run a workload on a cluster under a scheduler."""

from __future__ import annotations

from collections.abc import Iterable

from models import Cluster, Job, Workload
from models.checks import as_int
from planner.simulator.core import Simulation
from planner.simulator.options import SimOptions
from planner.simulator.result import SimResult
from planner.simulator.schedulers.base import Scheduler, make_scheduler


def simulate(
    workload: Workload | Iterable[Job],
    cluster: Cluster,
    scheduler: str | Scheduler = "fifo",
    *,
    seed: int = 0,
    slots: tuple[int, int] | None = None,
    options: SimOptions | None = None,
) -> SimResult:
    """Simulate ``workload`` on ``cluster`` task by task and report what happened.

    ``scheduler`` is a registered name ("fifo", "fair", "capacity", ...) or a
    scheduler instance (e.g. ``Fair(pools=[...], delay=(15, 15))``).
    ``slots=(s_m, s_r)`` replaces the cluster's map and reduce slot totals,
    spread over the nodes as evenly as possible. ``seed`` drives block
    placement and task-time noise: the same inputs and seed give the same
    result, byte for byte.
    """
    jobs = workload if isinstance(workload, Workload) else Workload(list(workload))
    sim = Simulation(
        jobs,
        cluster,
        make_scheduler(scheduler),
        seed=as_int(seed, "seed", minimum=0),
        slots=slots,
        options=options,
    )
    sim.run()
    return SimResult.from_simulation(sim)
