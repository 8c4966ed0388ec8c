"""A plan as Hadoop runs it once applied: the submission schedule, the scheduler the exported
files configure, and the run that `planner simulate --plan` makes of it.

What stock Hadoop can enforce of a slot plan, by target (`HADOOP_TARGETS`, registered as export
targets by `planner.io.hadoop.targets`):

- "mrv1" (Hadoop 1: JobTracker and TaskTrackers): the split exactly (per-node slot maxima,
  grouped by node when the split is not a multiple of the nodes); the order by submission (the
  script submits the jobs one at a time in the plan's order); the admission limit k as a fair
  scheduler pool in FIFO mode with maxRunningJobs = k ("johnson" plans: the FIFO scheduler, no
  limit). Hadoop's running-job limit counts a job from its first task to its last, where
  FRESH's k counts jobs in the map phase and jobs in the reduce phase apart: the exported run
  admits less at once than the plan's fluid model assumes, and validation shows what that costs.
- "yarn-fair": containers are untyped, so the split cannot be enforced: each node offers its
  slots as containers; the order by submission; k as the queue's maxRunningApps.
- "yarn-capacity": containers as above; one queue "plan" at 100% capacity, FIFO inside; the
  capacity scheduler has no running-application limit, so k is not enforced.

The submission schedule (`submission_schedule`): the job at position p is submitted at
s_p = max(r_p, s_{p-1} + `SUBMIT_GAP`), r_p its release (its ``submit``; 0 with
``ready_now``): a job whose data is not ready holds back the ones after it, so the order stays
the plan's, and the gap (1 ms, the resolution of Hadoop's start times) keeps consecutive
submissions apart so that FIFO order is submission order. Every job is submitted at the default
priority into the pool "plan". With dependencies the plan's order lists every job after the jobs
it waits for (a plan whose order does not is refused), and submit.sh holds each such job until
their submissions have returned (plus the delays): the simulation waits for them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from models import Cluster, InvalidInput, Workload
from models.checks import as_bool, as_float, as_instance, as_str
from models.limits import MAX_SECONDS
from planner.io.hadoop.plan_files import Submission, schedule_after, submitted
from planner.plans.plan import Plan
from planner.simulator import Capacity, Fair, Fifo, SimOptions
from planner.simulator.run import Run
from planner.simulator.schedulers.fair import Pool
from planner.simulator.schedulers.queues import Queue

#: Hadoop's export targets: name -> what it is, in one line.
HADOOP_TARGETS = {
    "mrv1": "Hadoop 1 (JobTracker and TaskTrackers): the slot split, the order and k as a FIFO pool's job limit",
    "yarn-fair": "YARN's fair scheduler: containers, the order and k as the queue's maxRunningApps",
    "yarn-capacity": "YARN's capacity scheduler: containers and the order, in one queue at 100% capacity",
}
#: Seconds between consecutive submissions of the schedule (Hadoop's start times are in ms).
SUBMIT_GAP = 0.001
#: The pool (MRv1) or queue (YARN) the plan's jobs run in.
PLAN_POOL = "plan"


def submission_schedule(plan: Plan, workload: Workload | None, *, ready_now: bool = False,
                        gap: float = SUBMIT_GAP) -> tuple[Submission, ...]:
    """When each job of the plan's order is submitted (module docstring); without the workload
    (or with ``ready_now``, or for a plan that takes every job as ready now) every job is ready
    at 0. ``gap``: the seconds between two submissions, at least 0 and at most `MAX_SECONDS`."""
    as_instance(plan, Plan, "plan")
    if workload is not None:
        as_instance(workload, Workload, "workload")
    ready_now = as_bool(ready_now, "ready_now") or plan.ready_now
    gap = as_float(gap, "gap", minimum=0.0, maximum=MAX_SECONDS)
    jobs = {job.name: job for job in workload} if workload is not None else {}
    missing = [name for name in plan.order if name not in jobs]
    if workload is not None and missing:
        raise InvalidInput("order", f"the plan runs {missing[0]!r}, which is not a job of the workload")
    waits = (schedule_after(workload, plan.order) if workload is not None and workload.has_dependencies
             else [None] * len(plan.order))
    schedule: list[Submission] = []
    for name, after in zip(plan.order, waits, strict=True):
        release = 0.0 if ready_now or workload is None else jobs[name].submit
        at = release if not schedule else max(release, schedule[-1].at + gap)
        schedule.append(Submission(name, at, PLAN_POOL, after=after))
    return tuple(schedule)


def exported_scheduler(plan: Plan, target: str) -> Fair | Fifo | Capacity:
    """The scheduler the exported files configure for ``target`` (module docstring)."""
    target = as_str(target, "target", choices=HADOOP_TARGETS)
    limit = None if plan.strategy == "johnson" else plan.k
    if target == "yarn-capacity":
        return Capacity(queues=[Queue(PLAN_POOL, 1.0, 1.0)])
    if target == "mrv1" and limit is None:
        return Fifo()
    return Fair(pools=[Pool(PLAN_POOL, mode="fifo", max_running=limit)])


def yarn_cluster(cluster: Cluster) -> Cluster:
    """The cluster as YARN sees it: each node's slots as containers, which the site files express
    as half map and half reduce per node (`conf` reads them so)."""
    per_node = cluster.map_slots + cluster.reduce_slots
    return cluster.with_changes(map_slots=per_node - per_node // 2, reduce_slots=per_node // 2)


def hadoop_plan_run(plan: Plan, workload: Workload, cluster: Cluster, target: str = "mrv1", *,
                    ready_now: bool = False, options: SimOptions | None = None) -> Run:
    """The run of ``plan`` as one of Hadoop's targets' exported files configure Hadoop: the same
    run that simulating those files gives (`planner.io.hadoop.conf.hadoop_run`). VM plans run
    their phases with barriers, on profiles derived where jobs have none, whatever the target, every
    job ready at 0 (a VM plan takes them so; `simulate_vms` honours submit times and dependencies)."""
    target = as_str(target, "target", choices=HADOOP_TARGETS)
    if plan.phases:
        from models.profiles.derived import with_wave_profiles  # scikit-learn: only for VM plans

        phases = tuple(tuple(phase) for phase in plan.phases)
        ready = Workload([job.with_changes(submit=0.0) for job in workload], name=workload.name)
        return Run(with_wave_profiles(ready, cluster)[0], cluster, None, phases=phases)
    batch = submitted(workload, submission_schedule(plan, workload, ready_now=ready_now), "the plan")
    chosen = options or SimOptions()
    if target == "mrv1":
        return Run(batch, cluster, exported_scheduler(plan, target),
                           (plan.map_slots, plan.reduce_slots), replace(chosen, containers=False))
    return Run(batch, yarn_cluster(cluster), exported_scheduler(plan, target), None,
                       replace(chosen, containers=True))


def target_notes(plan: Plan, target: str) -> Sequence[str]:
    """What the target cannot enforce of the plan, in words (for the export's README)."""
    notes = []
    if plan.phases:
        return ["VM plans are exported as a submission schedule of phases: each phase starts when every job of "
                "the one before has finished; the VM counts go to each job's submission."]
    if target != "mrv1":
        notes.append(f"YARN's containers are untyped: the plan's split of {plan.map_slots} map and "
                     f"{plan.reduce_slots} reduce slots cannot be enforced; each node offers its slots as "
                     "containers to either kind.")
        notes.append("Each YARN job also holds a container for its ApplicationMaster (and the schedulers cap "
                     "those at maxAMShare or maximum-am-resource-percent, 10% by default for capacity), which "
                     "the simulation does not model: fewer jobs may run at once than simulated.")
    if plan.strategy != "johnson":
        if target == "yarn-capacity":
            notes.append(f"The capacity scheduler has no running-application limit: the plan's admission limit "
                         f"k = {plan.k} is not enforced (only the order is).")
        else:
            notes.append(f"Hadoop's running-job limit (k = {plan.k}) counts a job from its first task to its "
                         "last; the plan's fluid model counts jobs in the map phase and in the reduce phase "
                         "apart, so fewer jobs overlap than it predicts.")
    return notes
