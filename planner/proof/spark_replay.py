"""A Spark application's recorded run made ready to replay (`planner.proof.replay.replay` of a
`SparkApplication`), built on the batch `planner.io.spark.logs.spark_batch` makes of it.

- **Jobs.** The batch's jobs: a Spark job of a map stage and a result stage is one job, a job of
  more stages a chain of steps, and a job that reads a stage an earlier job ran waits for it
  (`Job.after`), as recorded. Each batch job is submitted at its Spark job's *ready* time and
  compared from then to its last successful task's finish. Ready is the submission
  (``SparkListenerJobStart``) plus the part of the wait for its first task during which a core was
  free: the driver planning the job and shipping its first stage, which the simulator has no part
  of (reported as the ``startup``, not compared). The part with every core busy is the
  scheduler's doing and is replayed: submitted at its first task's launch instead, a job queued
  behind others starts on time in the replay whatever the simulated queue (on the benchmark's
  24-job FIFO run that gave a median error of 12.1%, against 2.1% so).
- **Stages.** A job's result stage is a step of its own, waiting for its map stage's last task
  plus the recorded wait until Spark submitted the stage (milliseconds, but the core the map
  stage's last task frees goes to another job's tasks meanwhile, as in Spark, where the driver
  hands that core out before it submits the next stage: without it the benchmark's warm FIFO run
  replayed with a worst error of 37%).
- **Task times.** A task (a partition of a stage) takes its successful attempt's finish - launch
  plus the time of its failed attempts before it (a retry runs after the failure, on the core
  the failure freed or another); killed attempts (speculative copies that lost) are left out.
- **Cluster.** The batch's: a node per executor (the driver in local mode), cores as containers,
  heartbeat 0 (Spark offers a core the moment it frees), no locality slowdowns, and on up to
  `FULL_REPLICATION_NODES` nodes every block on every node, so that tasks launch in their recorded
  order (each task's recorded time goes to the task launched in its place).
- **Scheduler.** The recorded mode: FIFO in order of Spark job id, then stage id (Spark's order),
  or FAIR with the recorded pools, inside a FIFO pool by job id then stage id too, and inside a
  FAIR pool Spark's ties between stages by their
  names (`planner.io.spark.conf.spark_ties`, from the recorded stage ids). The log names the allocation file but does not hold it: its
  pools (``pools``, e.g. `planner.io.spark.conf.read_spark_conf`'s) give their mode, weight and
  minShare; a pool it does not list is Spark's default (FIFO inside, weight 1, minShare 0).
- **Unexplained wait.** A task could run from its stage's submission (a retry: from its failed
  attempt's end); the free cores are the executors' cores, from their addition to their removal,
  less every recorded attempt.

What the batch leaves out is in the report's ``notes`` (the batch's `SparkImportWarning` is not
repeated).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from models import Cluster, Dependency, InvalidInput, Job, Workload
from models.limits import MAX_SECONDS, MIN_TASK_SECONDS
from planner.proof.recording import FULL_REPLICATION_NODES, ComparedJob, Recording, free_steps, seconds_free

if TYPE_CHECKING:
    from planner.io.spark.conf import SparkPool
    from planner.io.spark.records import SparkApplication, SparkTask


def spark_recording(app: SparkApplication, cluster: Cluster | None = None, *, heartbeat: float | None = None,
                    source: str | None = None, pools: Sequence[SparkPool] | None = None) -> Recording:
    """The application's batch with its recorded task times, ready to replay (module docstring)."""
    from planner.io.spark.conf import spark_ties
    from planner.io.spark.logs import SparkImportWarning, spark_batch
    from planner.simulator.schedulers.fair import Fair
    from planner.simulator.schedulers.fifo import Fifo

    with warnings.catch_warnings():  # what the batch leaves out goes into the report's notes
        warnings.simplefilter("ignore", SparkImportWarning)
        batch = spark_batch(app)
    tasks_of: dict[int, list[SparkTask]] = {}
    for task in app.tasks:
        if task.finish is not None:
            tasks_of.setdefault(task.stage, []).append(task)
    submits: dict[int, float] = {}
    for stage in app.stages:
        if stage.submit is not None:
            submits[stage.stage] = min(submits.get(stage.stage, math.inf), stage.submit)
    spark_jobs = {job.job: job for job in app.jobs}
    steps = []
    for job, row in zip(batch.workload.jobs, batch.recorded, strict=True):
        stages = [int(stage) for stage in str(row["stages"]).split(",")]
        steps.append((job, row, int(str(row["spark_jobs"]).split(",")[0]), stages))
    used = {t.executor for t in app.tasks}
    executors = [e for e in app.executors if e.executor in used]
    capacity = (tuple((e.added, e.cores) for e in executors)
                + tuple((e.removed, -e.cores) for e in executors if e.removed is not None))
    busy = tuple((t.launch, t.finish) for t in app.tasks if t.finish is not None)
    free = free_steps(capacity, busy) if executors else None
    first_launch: dict[int, float] = {}
    for _, row, spark_job, _ in steps:
        first_launch[spark_job] = min(first_launch.get(spark_job, math.inf), float(row["first_launch"]))
    ready = {spark_job: _ready(spark_jobs[spark_job].submit, launch, free) for spark_job, launch in first_launch.items()}
    origin = min(ready.values())
    taken = {job.name for job, _, _, _ in steps}
    result_of: dict[str, str] = {}  # a job's name -> its result stage's step
    for job, _, _, stages in steps:
        if job.reduce_tasks and len(stages) > 1:
            result_of[job.name] = _free_name(f"{job.name}/result", taken)
    jobs, times, compared, stage_of, ranks = [], {}, [], {}, []
    for job, row, spark_job, stages in steps:
        kinds = {"map": stages[0], "reduce": stages[1] if len(stages) > 1 else None}
        step_times = {}
        for kind, stage_id in kinds.items():
            recorded = _task_times(tasks_of.get(stage_id, [])) if stage_id is not None else []
            wanted = job.map_tasks if kind == "map" else job.reduce_tasks
            step_times[kind] = recorded if len(recorded) == wanted else list(batch.task_times[job.name].get(kind, ()))
        submit = min(ready[spark_job] - origin, MAX_SECONDS)
        after = tuple(Dependency(result_of.get(d.job, d.job), d.delay) for d in job.after)
        result = result_of.get(job.name)
        if result is None:
            times[job.name] = step_times
            jobs.append(job.with_changes(submit=submit, after=after))
            members: tuple[str, ...] = (job.name,)
            stage_of[job.name] = kinds["map"]
            ranks.append(((spark_job, stages[0]), job.name))
        else:  # the result stage waits for its map stage's last task and Spark's stage submission
            times[job.name] = {"map": step_times["map"]}
            times[result] = {"map": step_times["reduce"]}
            last = max((t.finish or t.launch for t in tasks_of.get(stages[0], []) if t.status == "success"),
                       default=submits.get(stages[1], 0.0))
            gap = min(max(submits.get(stages[1], last) - last, 0.0), MAX_SECONDS)
            jobs.append(job.with_changes(reduce_tasks=0, reduce_time=0.0, shuffle_bytes=None, output_bytes=None,
                                         submit=submit, after=after))
            jobs.append(Job(result, map_tasks=job.reduce_tasks, map_time=job.reduce_time, submit=submit, pool=job.pool,
                            after=(Dependency(job.name, gap),)))
            members = (job.name, result)
            stage_of[job.name], stage_of[result] = stages[0], stages[1]
            ranks += [((spark_job, stages[0]), job.name), ((spark_job, stages[1]), result)]
        attempts = [t for stage in stages for t in tasks_of.get(stage, [])]
        compared.append(ComparedJob(job.name, job.map_tasks, job.reduce_tasks, spark_jobs[spark_job].submit,
                                    ready[spark_job], float(row["end"]), members, "core",
                                    _eligible(attempts, submits), first_launch[spark_job]))
    try:
        workload = Workload(jobs, name=batch.workload.name)
    except InvalidInput as error:
        raise InvalidInput(error.field, error.problem, source=source) from None
    if cluster is None:
        cluster = batch.cluster if heartbeat is None else batch.cluster.with_changes(heartbeat=heartbeat)
        if not executors:  # the log adds no executor: the batch's cluster
            capacity = ((-math.inf, cluster.total_slots),)
    else:
        cluster = cluster if heartbeat is None else cluster.with_changes(heartbeat=heartbeat)
        capacity = ((-math.inf, cluster.total_slots),)
    if cluster.nodes <= FULL_REPLICATION_NODES:  # tasks launch in their recorded order, not by block
        cluster = cluster.with_changes(replication=cluster.nodes)
    options = replace(batch.options, task_times=times)
    if batch.scheduler == "fair":
        given = {pool.name: pool.as_pool() for pool in pools or ()}
        recorded = {pool.name: pool for pool in batch.pools}
        chosen = [given.get(name, pool) for name, pool in recorded.items()] + [
            pool for name, pool in given.items() if name not in recorded]
        ties = spark_ties({name: (stage, None) for name, stage in stage_of.items()}) if any(
            pool.mode == "fair" for pool in chosen) else None
        scheduler: Fair | Fifo = Fair(pools=chosen, ties=ties, order=[name for _, name in sorted(ranks)], rules="spark")
    else:  # Spark's FIFO: job id, then stage id
        scheduler = Fifo(order=[name for _, name in sorted(ranks)])
    described = {"nodes": cluster.nodes, "racks": cluster.racks, "map_slots": cluster.total_slots,
                 "reduce_slots": 0, "heartbeat": cluster.heartbeat, "slowstart": options.reduce_slowstart,
                 "turnaround": None}
    # the batch does not replay failed attempts; this replay counts them in their task's time
    failed = sum(1 for t in app.tasks if t.status == "failed" and t.finish is not None)
    notes = tuple(note for note in batch.notes if "failed task attempt" not in note) + (
        (f"{failed} failed task attempt(s) replayed as part of their task's time (a retry runs after its "
         "failure)",) if failed else ())
    return Recording(source, workload, cluster, None, options, scheduler, described, tuple(compared),
                     {"core": capacity}, {"core": busy}, cluster.heartbeat, notes)


def _task_times(tasks: list[SparkTask]) -> list[float]:
    """Per partition (`planner.io.spark.records.partition_key`), in order of its successful
    attempt's launch: that attempt's finish - launch plus the time of the failed attempts of the
    partition that ended before it launched."""
    from planner.io.spark.records import partition_key

    chosen: dict[tuple[int, int], SparkTask] = {}
    for task in sorted((t for t in tasks if t.status == "success"), key=lambda t: (t.finish or 0.0, t.task)):
        chosen.setdefault(partition_key(task), task)
    found = []
    for index, success in chosen.items():
        failed = math.fsum((t.finish or t.launch) - t.launch for t in tasks if partition_key(t) == index
                           and t.status == "failed" and (t.finish or t.launch) <= success.launch)
        found.append((success.launch, success.task,
                      min(max((success.finish or success.launch) - success.launch + failed, MIN_TASK_SECONDS),
                          MAX_SECONDS)))
    return [seconds for _, _, seconds in sorted(found)]


def _eligible(tasks: list[SparkTask], submits: dict[int, float]) -> tuple[tuple[str, float, float], ...]:
    """Each attempt as (kind, eligible, start): from its stage's submission; a retry from the end of
    the attempt of its task before it."""
    from planner.io.spark.records import partition_key

    found = []
    previous: dict[tuple[int, int], float] = {}
    for task in sorted(tasks, key=lambda t: (t.stage, partition_key(t), t.launch)):
        key = (task.stage, partition_key(task))
        eligible = previous.get(key, submits.get(task.stage, task.launch))
        found.append(("core", min(eligible, task.launch), task.launch))
        previous[key] = task.finish if task.finish is not None else task.launch
    return tuple(found)


def _ready(submit: float, first_launch: float, free: tuple[list[float], list[int]] | None) -> float:
    """When a Spark job could first be given a core: its submission plus the part of its wait for a
    first task that had a core free (the driver planning the job and shipping its first stage);
    the rest of the wait, every core busy, is the scheduler's and is replayed."""
    if first_launch <= submit:
        return first_launch
    return submit + seconds_free(free, submit, first_launch, full=False)


def _free_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``, ... the first not in ``taken`` (then taken)."""
    found, number = name, 1
    while found in taken:
        number += 1
        found = f"{name}-{number}"
    taken.add(found)
    return found
