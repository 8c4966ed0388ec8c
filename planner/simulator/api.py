"""`simulate`: run a workload on a cluster under a scheduler."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from models import Cluster, Job, Workload
from models.checks import as_instance, as_int, as_list
from models.errors import InvalidInput
from models.limits import MAX_JOBS
from planner.limits import check_heartbeats
from planner.simulator.attempt_log import CHUNK
from planner.simulator.core import Simulation
from planner.simulator.effort import check_simulation
from planner.simulator.options import SimOptions
from planner.simulator.progress import Progress
from planner.simulator.result import SimResult
from planner.simulator.schedulers.base import Scheduler
from planner.simulator.schedulers.catalog import make_scheduler


def simulate(
    workload: Workload | Iterable[Job],
    cluster: Cluster,
    scheduler: str | Scheduler = "fifo",
    *,
    seed: int = 0,
    slots: tuple[int, int] | None = None,
    options: SimOptions | None = None,
    progress: Callable[[Progress], None] | None = None,
    progress_every: int = CHUNK,
) -> SimResult:
    """Simulate ``workload`` on ``cluster`` task by task and report what happened.

    ``scheduler`` is a registered name ("fifo", "fair", "capacity", ...) or a
    scheduler instance (e.g. ``Fair(pools=[...], delay=(15, 15))``).
    ``slots=(s_m, s_r)`` replaces the cluster's map and reduce slot totals,
    spread over the nodes as evenly as possible. ``seed`` drives block
    placement and task-time noise: the same inputs and seed give the same
    result, byte for byte. A scheduler that types slots itself
    (``wants_containers``, e.g. FRESH with dynamic slots) runs on containers:
    ``options.containers`` is switched on for it. ``progress`` (a function of a
    `Progress`) hears how far the run has got every ``progress_every`` ended attempts.
    """
    if isinstance(workload, Workload):
        jobs = workload
    else:
        listed = as_list(workload, "workload", what="a Workload or a list of Jobs", maximum=MAX_JOBS)
        jobs = Workload([as_instance(job, Job, f"workload[{i}]") for i, job in enumerate(listed)])
    as_instance(cluster, Cluster, "cluster")
    chosen = make_scheduler(scheduler)
    if chosen.wants_containers and not (options or SimOptions()).containers:
        # Schedulers that type slots themselves (FRESH's dynamic slots, Natjam) run on containers.
        if options is not None and options.copy_compute is not None:
            raise InvalidInput(
                "options.copy_compute",
                f"the {chosen.name} scheduler runs on containers; copy-compute splitting needs typed reduce slots",
            )
        options = replace(options or SimOptions(), containers=True)
    if isinstance(cluster, Cluster):  # a run estimated over a limit of time or memory is refused before it is built
        check_simulation(jobs, cluster, chosen, slots=slots, options=options)
    sim = Simulation(
        jobs,
        cluster,
        chosen,
        seed=as_int(seed, "seed", minimum=0),
        slots=slots,
        options=options,
        progress=progress,
        progress_every=progress_every,
    )
    # A run whose heartbeats alone would take hours is refused before it starts (MAX_HEARTBEATS).
    check_heartbeats(jobs.jobs, cluster, tuple(slots) if slots is not None else None)
    sim.run()
    return SimResult.from_simulation(sim)
