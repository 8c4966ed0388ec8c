"""What a Spark application recorded: its executors, jobs, stages and task attempts, as flat records.

`planner.io.spark.logs.read_spark_application` builds a `SparkApplication` from an event log
(`planner.io.spark.events` streams its listener events); importing it as a batch
(`planner.io.spark.logs.spark_batch`), replaying it (`planner.proof.replay`) and fitting task
overheads from it (`planner.io.fitting`) all start from these records, never from the events.

Times are seconds from the application's start (``SparkListenerApplicationStart``'s timestamp,
else the earliest timestamp of the log), as floats; durations are seconds; sizes are bytes.
Identifiers are Spark's own (job and stage ids are integers, executor ids strings: "driver",
"0", "1", ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

#: How a task attempt ended: Spark's ``Task End Reason`` "Success", a failure of any kind
#: (ExceptionFailure, FetchFailed, ExecutorLostFailure, TaskResultLost, ...), or killed
#: (TaskKilled: a speculative copy that lost, a job cancelled).
TaskStatus = Literal["success", "failed", "killed"]
#: Spark's task types: a shuffle map task writes a shuffle for a later stage; a result task
#: computes the job's action.
TaskKind = Literal["shuffle_map", "result"]


@dataclass(frozen=True)
class SparkExecutor:
    """An executor: ``cores`` task slots on ``host`` from ``added`` to ``removed`` (None: to the
    end of the log); ``reason`` is Spark's ``Removed Reason``."""

    executor: str
    host: str
    cores: int
    added: float
    removed: float | None = None
    reason: str | None = None


@dataclass(frozen=True)
class SparkTask:
    """One task attempt (``SparkListenerTaskEnd``; an attempt whose end is missing from the log, a
    log cut short or an executor lost, comes from its ``SparkListenerTaskStart`` with ``finish``
    None, ``status`` "failed" and ``reason`` "no SparkListenerTaskEnd in the log").

    - ``launch``/``finish``: the attempt's ``Launch Time`` and ``Finish Time``;
    - ``run_time``: ``Executor Run Time``; ``deserialize_time``: ``Executor Deserialize Time``;
      ``result_serialize_time``: ``Result Serialization Time``; ``getting_result_time``: the
      driver fetching a large result; ``fetch_wait_time``: ``Shuffle Read Metrics``'s ``Fetch Wait
      Time`` (the run time includes it); ``gc_time``: ``JVM GC Time``. None where the log has no
      metrics (a failed attempt often has none);
    - ``input_bytes`` (``Input Metrics``), ``shuffle_read_bytes`` (local plus remote) and
      ``shuffle_write_bytes``; None where the log does not say; ``output_bytes``: ``Output
      Metrics``'s ``Bytes Written`` (added at the end: None where the log does not say);
    - ``partition`` (added at the end): ``Partition ID``, the partition the attempt computes
      (Spark 3.3 and later; None in older logs, where ``index`` is the task's place in its stage
      attempt: a resubmitted stage runs only the missing partitions, indexed from 0 again).
    """

    stage: int
    stage_attempt: int
    task: int
    index: int
    attempt: int
    kind: TaskKind
    executor: str
    host: str
    locality: str
    launch: float
    finish: float | None
    status: TaskStatus
    speculative: bool = False
    reason: str | None = None
    run_time: float | None = None
    deserialize_time: float | None = None
    result_serialize_time: float | None = None
    getting_result_time: float | None = None
    fetch_wait_time: float | None = None
    gc_time: float | None = None
    input_bytes: int | None = None
    shuffle_read_bytes: int | None = None
    shuffle_write_bytes: int | None = None
    output_bytes: int | None = None
    partition: int | None = None

    @property
    def duration(self) -> float | None:
        """``finish - launch``: the time the attempt held its core (None when it has no end)."""
        return None if self.finish is None else self.finish - self.launch

    @property
    def overhead(self) -> float | None:
        """The part of ``duration`` outside the task's own run (launch, deserialization, result
        serialization and fetch): ``duration - run_time``, at least 0; None without both."""
        if self.finish is None or self.run_time is None:
            return None
        return max(0.0, self.finish - self.launch - self.run_time)


@dataclass(frozen=True)
class SparkStage:
    """One attempt of a stage: ``tasks`` planned, ``parents`` the stage ids it reads the shuffles
    of, ``submit``/``complete`` (None: skipped, never submitted, or the log ends first), and
    ``failure`` (Spark's ``Failure Reason``, None when it succeeded). ``jobs``: the jobs whose
    ``Stage IDs`` hold it (a stage shared by two jobs runs once), in the order they were
    submitted. ``rdds`` (added at the end): the ids of the RDDs the stage computes (its ``RDD
    Info``), sorted; a skipped stage has the same as the earlier stage that wrote its shuffle."""

    stage: int
    attempt: int
    name: str
    tasks: int
    parents: tuple[int, ...] = ()
    jobs: tuple[int, ...] = ()
    submit: float | None = None
    complete: float | None = None
    failure: str | None = None
    rdds: tuple[int, ...] = ()


@dataclass(frozen=True)
class SparkJob:
    """A job (one action): submitted at ``submit``, ended at ``end`` (None: the log ends first)
    with ``result`` ("JobSucceeded", "JobFailed"), in ``pool`` (the job's ``spark.scheduler.pool``
    property, "default" without one). ``stages``: the ids of its stages, the ones that ran and the
    ones Spark skipped because an earlier job computed them; ``description`` and ``group`` are the
    ``spark.job.description`` and ``spark.jobGroup.id`` properties; ``properties`` all of them."""

    job: int
    submit: float
    end: float | None
    result: str | None
    pool: str
    stages: tuple[int, ...]
    description: str | None = None
    group: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SparkApplication:
    """One application's log, whole: its identity, its configuration (``properties``: the
    ``Spark Properties`` of ``SparkListenerEnvironmentUpdate``), its ``scheduler_mode`` ("FIFO" or
    "FAIR", from ``spark.scheduler.mode``, FIFO by default as in Spark) and its records, each in
    the order the log has them. ``start``/``end`` are the application's start (0.0) and end (None:
    the log ends first); ``epoch_ms`` is the start as Spark's own timestamp (ms since 1970)."""

    app_id: str
    name: str
    spark_version: str | None
    source: str
    epoch_ms: int
    end: float | None
    properties: Mapping[str, str]
    scheduler_mode: str
    executors: tuple[SparkExecutor, ...]
    jobs: tuple[SparkJob, ...]
    stages: tuple[SparkStage, ...]
    tasks: tuple[SparkTask, ...]
    user: str | None = None


def partition_key(task: SparkTask) -> tuple[int, int]:
    """What a task attempt computes: ``(-1, partition)`` where the log says (Spark 3.3 and later),
    else ``(stage attempt, index)``: a resubmitted stage indexes its missing partitions from 0
    again."""
    return (-1, task.partition) if task.partition is not None else (task.stage_attempt, task.index)
