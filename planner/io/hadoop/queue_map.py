"""Which queue each job is submitted to under a Hadoop configuration: the one rule every command
uses (`map_queues` in `planner.io.hadoop.merge` for plans, `hadoop_run(..., queue_map=...)` for
``planner simulate --hadoop-conf``), and ``--queue-map``'s form.

For each job, the first of: ``queue_map[job name]``; ``queue_map[job's pool]``; the job's pool,
when it is a queue of the configuration; ``queue_map["*"]``; then by scheduler: the fair
scheduler (MRv1 or YARN) creates a pool or queue named as the job's pool at submission (Hadoop's
default placement), so the job's pool; the capacity scheduler has no such rule: the job is one
`InvalidInput` naming it, its pool and the configuration's queues. Under the FIFO scheduler
(MRv1's JobQueueTaskScheduler has one queue) every job goes to "default". A ``queue_map`` key that
is neither a job, a pool of the workload nor "*" is refused (a typo), and on the capacity
scheduler so is a value that is not one of its queues.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from models import InvalidInput, Workload
from planner.simulator.schedulers.base import Scheduler
from planner.simulator.schedulers.capacity import Capacity
from planner.simulator.schedulers.fair import Fair

#: The FIFO scheduler's one queue.
FIFO_QUEUE = "default"


def scheduler_kind(scheduler: Scheduler | None) -> str:
    """"fair", "capacity" or "fifo": what decides the queue rule."""
    if isinstance(scheduler, Fair):
        return "fair"
    return "capacity" if isinstance(scheduler, Capacity) else "fifo"


def scheduler_queues(scheduler: Scheduler | None) -> tuple[str, ...]:
    """The queues a configuration's scheduler has: the fair scheduler's pools (a nested YARN queue
    by its path below root, "parent.child"), the capacity scheduler's leaf queues, or the FIFO
    scheduler's one."""
    if isinstance(scheduler, Fair):
        return tuple(scheduler.pools)
    if isinstance(scheduler, Capacity):
        return tuple(queue.name for queue in scheduler.queues)
    return (FIFO_QUEUE,)


def queues_of(workload: Workload, scheduler: Scheduler | None, queue_map: Mapping[str, str] | None = None
              ) -> dict[str, str]:
    """Job name -> its queue under ``scheduler`` (module docstring)."""
    return _mapped(workload, scheduler_kind(scheduler), scheduler_queues(scheduler), dict(queue_map or {}))


def in_queues(workload: Workload, scheduler: Scheduler | None, queue_map: Mapping[str, str] | None = None
              ) -> Workload:
    """``workload`` with every job in its queue (`queues_of`)."""
    queues = queues_of(workload, scheduler, queue_map)
    return Workload([job.with_changes(pool=queues[job.name]) for job in workload], name=workload.name)


def _mapped(workload: Workload, kind: str, queues: tuple[str, ...], queue_map: dict[str, str]) -> dict[str, str]:
    known = {job.name for job in workload} | {job.pool for job in workload} | {"*"}
    for name in queue_map:
        if name not in known:  # a typo would otherwise map nothing, in silence
            raise InvalidInput("queue_map", f"{name}={queue_map[name]}: {name!r} is neither a job nor a pool of "
                                            "the workload (nor *)")
    if kind == "fifo":
        return {job.name: FIFO_QUEUE for job in workload}
    listed = ", ".join(queues)
    if kind == "capacity":
        for name, queue in queue_map.items():
            if queue not in queues:
                raise InvalidInput("queue_map", f"{name}={queue}: no queue named {queue!r}; queues: {listed}")
    mapped = {}
    for index, job in enumerate(workload):
        chosen = queue_map.get(job.name) or queue_map.get(job.pool) or (job.pool if job.pool in queues else None) \
            or queue_map.get("*")
        if chosen is None:
            if kind != "fair":
                raise InvalidInput(f"jobs[{index}].pool", f"no queue named {job.pool!r} (job {job.name!r}); queues: "
                                                          f"{listed}; map it with --queue-map {job.pool}=QUEUE")
            chosen = job.pool
        mapped[job.name] = chosen
    return mapped


def parse_queue_map(items: Sequence[str]) -> dict[str, str]:
    """``--queue-map`` items: ``NAME=QUEUE`` (a job's name or pool), several in one item
    separated by commas, ``*=QUEUE`` for every job mapped otherwise."""
    mapping: dict[str, str] = {}
    for item in items:
        for part in (part.strip() for part in str(item).split(",")):
            if not part:
                continue
            name, equals, queue = (text.strip() for text in part.partition("="))
            if not equals or not name or not queue or "=" in queue:
                raise InvalidInput("queue_map", f"must be NAME=QUEUE (a job or pool, or * for the rest), got {part!r}")
            if mapping.get(name, queue) != queue:
                raise InvalidInput("queue_map", f"{name!r} is mapped twice ({mapping[name]} and {queue})")
            mapping[name] = queue
    return mapping
