"""A Spark application's recorded run made ready to replay (`planner.proof.replay.replay` of a
`SparkApplication`).

- **Jobs.** Each stage that ran becomes a simulated job of its tasks, each task taking its
  recorded time; a stage waits (`Job.after`) for its parent stages that ran, in its own Spark job
  or in an earlier one (a stage shared by two jobs runs once, in the first). A Spark job's stages
  are submitted at the job's *ready* time, its first task's launch, and the job is compared from
  then to its last successful task's finish, as a Rumen job is. Skipped stages (their shuffle
  was computed by an earlier job) are not run and not waited for.
- **Task times.** A task (a partition of a stage) takes its successful attempt's finish - launch,
  plus the time of its failed attempts before it (a retry runs after the failure); killed
  attempts (speculative copies that lost) are left out, their cores' time missing.
- **Cluster.** Containers (a core runs any task): one node per executor, the cores the most
  executors alive at once held, spread evenly over them; heartbeat 0 (Spark's scheduler offers a
  core the moment it frees); locality off and every block on every node.
- **Scheduler.** The recorded mode: FIFO in order of job id, then stage id (Spark's), or FAIR
  with the jobs' recorded pools (equal weights: the log does not hold the allocation file).
- **Unexplained wait.** A task could run from its stage's submission (a retry: from its failed
  attempt's end); the free cores are the executors' cores less every recorded attempt.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

from models import Cluster, InvalidInput, Job, Workload
from models.limits import MAX_SECONDS, MIN_TASK_SECONDS
from planner.proof.replay import ComparedJob, Recording, ReplayWarning

if TYPE_CHECKING:
    from planner.io.spark_records import SparkApplication, SparkTask


def spark_recording(app: SparkApplication, cluster: Cluster | None = None, *, heartbeat: float | None = None,
                    source: str | None = None) -> Recording:
    """The application's stages as simulated jobs, its executors as the cluster (module docstring)."""
    from planner.simulator import SimOptions
    from planner.simulator.schedulers.fifo import Fifo

    by_stage: dict[int, list[SparkTask]] = {}
    for task in app.tasks:
        if task.finish is not None:
            by_stage.setdefault(task.stage, []).append(task)
    stage_submit: dict[int, float] = {}
    parents: dict[int, set[int]] = {}
    owners: dict[int, set[int]] = {}
    for stage in app.stages:
        parents.setdefault(stage.stage, set()).update(stage.parents)
        owners.setdefault(stage.stage, set()).update(stage.jobs)
        if stage.submit is not None:
            stage_submit[stage.stage] = min(stage_submit.get(stage.stage, math.inf), stage.submit)
    for job in app.jobs:
        for stage_id in job.stages:
            owners.setdefault(stage_id, set()).add(job.job)
    spark_jobs = {job.job: job for job in app.jobs}
    ran: dict[int, list[int]] = {}  # Spark job -> the stages it ran (with a successful task)
    times: dict[int, list[float]] = {}
    for stage_id, tasks in sorted(by_stage.items()):
        task_times = _task_times(tasks)
        if not task_times:
            continue
        jobs = sorted(owners.get(stage_id, ()) & set(spark_jobs))
        if not jobs:
            warnings.warn(f"{source}: stage {stage_id}: in no job of the log, skipped", ReplayWarning, stacklevel=3)
            continue
        ran.setdefault(jobs[0], []).append(stage_id)
        times[stage_id] = task_times
    for job in app.jobs:
        if job.job not in ran:
            warnings.warn(f"{source}: job {job.job}: no stage of its own with a successful task, skipped",
                          ReplayWarning, stacklevel=3)
    if not ran:
        raise InvalidInput("", "no Spark job with a successful task to replay", source=source)
    owner = {stage_id: job_id for job_id, stages in ran.items() for stage_id in stages}
    stage_tasks = {stage_id: by_stage[stage_id] for stage_id in owner}
    ready = {job_id: min(t.launch for s in stages for t in stage_tasks[s]) for job_id, stages in ran.items()}
    origin = min(ready.values())
    names = {stage_id: f"job {owner[stage_id]} stage {stage_id}" for stage_id in owner}
    specs, task_times, compared = [], {}, []
    for job_id in sorted(ran):
        spark_job = spark_jobs[job_id]
        for stage_id in ran[job_id]:
            after = tuple(sorted(names[p] for p in parents.get(stage_id, ()) if p in names))
            mean = math.fsum(times[stage_id]) / len(times[stage_id])
            specs.append(Job(names[stage_id], len(times[stage_id]), 0, mean,
                             submit=min(ready[job_id] - origin, MAX_SECONDS), pool=spark_job.pool, after=after))
            task_times[names[stage_id]] = {"map": times[stage_id], "reduce": []}
        tasks = [t for s in ran[job_id] for t in stage_tasks[s]]
        successes = [t for t in tasks if t.status == "success"]
        kinds = {s: stage_tasks[s][0].kind for s in ran[job_id]}
        compared.append(ComparedJob(
            f"job {job_id}", sum(len(times[s]) for s in ran[job_id] if kinds[s] == "shuffle_map"),
            sum(len(times[s]) for s in ran[job_id] if kinds[s] == "result"), spark_job.submit, ready[job_id],
            max(t.finish for t in successes if t.finish is not None),
            tuple(names[s] for s in ran[job_id]), "core", _eligible(tasks, stage_submit)))
    try:
        workload = Workload(specs, name=app.app_id)
    except InvalidInput as error:
        raise InvalidInput(error.field, error.problem, source=source) from None
    executors = {e.executor: e for e in app.executors}
    capacity = tuple((e.added, e.cores) for e in executors.values()) + tuple(
        (e.removed, -e.cores) for e in executors.values() if e.removed is not None)
    cores = _peak(capacity)
    if cluster is None:
        if not executors or cores < 1:
            raise InvalidInput("executors", "the log records no executor with cores: nothing to replay on",
                               source=source)
        nodes = len(executors)
        cluster = Cluster(nodes=nodes, map_slots=max(1, math.ceil(cores / nodes)), reduce_slots=1,
                          heartbeat=0.0 if heartbeat is None else heartbeat, replication=min(nodes, 32))
        slots: tuple[int, int] | None = (cores, 0)
    else:
        slots = None
        if heartbeat is not None:
            cluster = cluster.with_changes(heartbeat=heartbeat)
        capacity = ((-math.inf, cluster.total_slots),)
        cores = cluster.total_slots
    ones = dict.fromkeys(("cpu", "balanced", "io"), 1.0)
    options = SimOptions(containers=True, reduce_slowstart=1.0, rack_factor=ones, off_rack_factor=ones,
                         task_times=task_times)
    if app.scheduler_mode.upper() == "FAIR":
        scheduler: object = "fair"
    else:  # Spark's FIFO: job id, then stage id
        scheduler = Fifo(order=[names[s] for s in sorted(owner, key=lambda s: (owner[s], s))])
    described = {"nodes": cluster.nodes, "racks": cluster.racks, "map_slots": cores, "reduce_slots": 0,
                 "heartbeat": cluster.heartbeat, "slowstart": 1.0, "turnaround": None}
    busy = tuple((t.launch, t.finish) for t in app.tasks if t.finish is not None)
    return Recording(source, workload, cluster, slots, options, scheduler, described,  # type: ignore[arg-type]
                     tuple(compared), {"core": capacity}, {"core": busy}, cluster.heartbeat)


def _task_times(tasks: list[SparkTask]) -> list[float]:
    """Per task index, in order of its success's launch: the successful attempt's duration plus the
    failed attempts' that ended before it launched."""
    found = []
    by_index: dict[tuple[int, int], list[SparkTask]] = {}
    for task in tasks:
        by_index.setdefault((task.stage_attempt, task.index), []).append(task)
    done: set[int] = set()
    for (_, index), attempts in sorted(by_index.items()):
        successes = sorted((t for t in attempts if t.status == "success"), key=lambda t: t.finish or 0.0)
        if not successes or index in done:
            continue
        success = successes[0]
        failed = [t for t in tasks if t.index == index and t.status == "failed" and t.finish is not None
                  and t.finish <= success.launch]
        seconds = (success.finish or success.launch) - success.launch + math.fsum(
            (t.finish or t.launch) - t.launch for t in failed)
        found.append((success.launch, max(seconds, MIN_TASK_SECONDS)))
        done.add(index)
    return [seconds for _, seconds in sorted(found)]


def _eligible(tasks: list[SparkTask], stage_submit: dict[int, float]) -> tuple[tuple[str, float, float], ...]:
    """Each attempt as (kind, eligible, start): from its stage's submission, a retry from the end of
    the attempt of its task before it."""
    found = []
    previous: dict[tuple[int, int], float] = {}
    for task in sorted(tasks, key=lambda t: (t.stage, t.index, t.launch)):
        key = (task.stage, task.index)
        eligible = previous.get(key, stage_submit.get(task.stage, task.launch))
        found.append(("core", min(eligible, task.launch), task.launch))
        previous[key] = task.finish if task.finish is not None else task.launch
    return tuple(found)


def _peak(steps: tuple[tuple[float, int], ...]) -> int:
    """The most cores alive at once (removals before additions at one instant)."""
    level = most = 0
    for _, change in sorted(steps, key=lambda step: (step[0], step[1])):
        level += change
        most = max(most, level)
    return most



