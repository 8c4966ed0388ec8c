"""Replay of recorded runs: a Rumen trace's, an SLS job file's or a Spark application's jobs, with
each task's recorded time, through the simulator.

`replay(read_rumen_attempts(path))` asks how close the simulator comes to what a real cluster
did when it is given what the cluster was given: the same jobs, arriving when they got going,
each task taking the time it took, on the cluster the trace ran on. The difference per job is
the simulator's error. (The records are read by `planner.io.rumen_attempts`,
`planner.io.sls_jobs` and `planner.io.spark.logs`: proofs take what `planner.io` read and never
read trace files themselves.) Every format becomes a `planner.proof.recording.Recording` (Rumen
and SLS: `mapreduce_recording`; Spark: `planner.proof.spark_replay.spark_recording`) and
`replay_recording` replays it, and reports per job what the trace does not explain: the
start-up's part with free slots, a negative start-up (a clock effect), and the longest wait of
a task with a recorded slot free (`longest_free_wait`).

What is replayed (see docs/proving-plans.md, "Replay of recorded runs"):

- A job's clock starts at its *ready* time, the start of its first successful attempt: the
  simulated job is submitted then. ``startup`` (ready - submit) is the recorded time before it
  (the ApplicationMaster's start, the setup task), which the simulator has no part of.
  ``recorded`` is the last successful attempt's finish minus ready; ``simulated`` is the
  simulated finish minus the same ready time; ``error`` = simulated / recorded - 1.
- A map takes finish - start of its successful attempt. A reduce takes the part of its
  attempt after the job's last map finished (all of it when it started later): in the
  simulator a reducer copies while the maps run and computes from the last map on, which is
  where the recorded shuffle that overlapped the maps goes. Tasks launch in their recorded
  order (each kind sorted by start).
- The cluster, unless one is given: a node per host, racks from the host names, a node's map
  (reduce) slots the most map (reduce) attempts one host ran at once, and the totals at most
  the most the whole cluster ran at once (on YARN each job's ApplicationMaster holds a
  container on some host, so the hosts' peaks add up to more slots than any job had). The
  heartbeat is the trace's own (``yarn.nodemanager.heartbeat.interval-ms``), else 3 s (Hadoop
  0.20's TaskTracker minimum, the `Cluster` default); reduce slowstart the trace's, else 0.05
  (Hadoop's default). Locality slowdowns are off (the recorded times already hold them) and
  on up to `FULL_REPLICATION_NODES` nodes every block is on every node, so that locality
  does not reorder the maps.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import statistics
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models import Cluster, InvalidInput, InvalidType, Job, Workload
from models.checks import as_float, as_instance, as_int, as_str, key_name
from models.fileio import csv_text, write_atomic
from models.limits import MAX_SECONDS, MIN_TASK_SECONDS
from planner.proof.recording import (
    FULL_REPLICATION_NODES,
    ComparedJob,
    Recording,
    free_at,
    free_steps,
    seconds_free,
)

if TYPE_CHECKING:  # proofs take what planner.io read; they do not read files themselves
    from planner.io.rumen_attempts import RecordedJob, RumenAttempt
    from planner.io.spark.conf import SparkPool
    from planner.io.spark.records import SparkApplication
    from planner.simulator.schedulers.base import Scheduler

#: The heartbeat of a trace that does not say (Hadoop 0.20's minimum TaskTracker interval, s).
MRV1_HEARTBEAT = 3.0
#: Reduce slowstart of a trace that does not say (Hadoop's mapreduce.job.reduce.slowstart.completedmaps).
DEFAULT_SLOWSTART = 0.05
HEARTBEAT_KEYS = ("yarn.nodemanager.heartbeat.interval-ms",)
SLOWSTART_KEYS = ("mapreduce.job.reduce.slowstart.completedmaps", "mapred.reduce.slowstart.completed.maps")
#: Waits shorter than this (s) stay in their columns but are not named in notes and the summary.
NOTED_WAIT = 0.1
#: Fields of a job's record.
JOB_FIELDS = ("job", "maps", "reduces", "submit", "startup", "startup_busy", "startup_unexplained",
              "unexplained_wait", "recorded", "simulated", "error", "adjusted_error", "note")


class ReplayWarning(UserWarning):
    """A recorded job could not be replayed and was left out."""


@dataclass(frozen=True)
class ReplayReport:
    """What a replay measured: ``jobs``, one flat record per job (`JOB_FIELDS`; times in s on the
    trace's clock, errors as fractions):

    - job, maps, reduces, submit;
    - ``startup``: first task's start - submit (negative: a clock effect, the hosts' clocks
      disagree), ``startup_busy``: the part of it in which every recorded slot of the kind the
      first task needed was busy (waiting for the recording's other jobs), ``startup_unexplained``:
      the rest (the ApplicationMaster or driver starting, other applications);
    - ``unexplained_wait``: seconds of the job's run in which a task of it was waiting while the
      recording shows a slot of its kind free, less a heartbeat per such stretch
      (`longest_free_wait`): time the trace does not explain (other applications on the cluster,
      the ApplicationMaster);
    - ``recorded``, ``simulated``, ``error`` = simulated / recorded - 1, and ``adjusted_error`` =
      simulated / (recorded - unexplained_wait) - 1, the error once that wait is taken out (waits
      under `NOTED_WAIT` are not taken out);
    - ``note``: the above in words, "" when the trace explains the job.

    ``notes``: what the replay leaves out of the recording (a Spark log's failed or killed
    attempts, skipped stages, executors that came and went ...).

    ``cluster`` is what the jobs ran on (for Rumen and SLS: nodes, racks, map_slots and
    reduce_slots in all, heartbeat, slowstart, and ``turnaround``: the recorded mean seconds from
    an attempt's finish to the next attempt's start in the slot it freed, within a job)."""

    trace: str | None
    scheduler: str
    cluster: dict[str, Any]
    jobs: list[dict[str, Any]]
    notes: tuple[str, ...] = ()

    @property
    def median_error(self) -> float:
        """The median of the jobs' absolute errors."""
        return float(statistics.median(abs(job["error"]) for job in self.jobs))

    @property
    def worst_error(self) -> float:
        """The largest absolute error."""
        return max(abs(job["error"]) for job in self.jobs)

    @property
    def worst_job(self) -> str:
        """The job of the largest absolute error (the first such)."""
        return max(self.jobs, key=lambda job: abs(job["error"]))["job"]

    def errors(self) -> list[dict[str, Any]]:
        """Three records (kind, job, absolute_error): the median absolute error, the worst with its job,
        and the median once the jobs' unexplained waits are taken out ("median_adjusted")."""
        return [{"kind": "median", "job": None, "absolute_error": self.median_error},
                {"kind": "worst", "job": self.worst_job, "absolute_error": self.worst_error},
                {"kind": "median_adjusted", "job": None, "absolute_error": self.median_adjusted_error}]

    @property
    def median_adjusted_error(self) -> float:
        """The median of the jobs' absolute errors once their unexplained wait is taken out."""
        return float(statistics.median(abs(job["adjusted_error"]) for job in self.jobs))

    def unexplained(self) -> list[dict[str, Any]]:
        """The jobs the trace does not explain (a clock effect, start-up or waits with free slots), as
        records (job, startup, startup_busy, startup_unexplained, unexplained_wait, note)."""
        keys = ("job", "startup", "startup_busy", "startup_unexplained", "unexplained_wait", "note")
        return [{key: job[key] for key in keys} for job in self.jobs if job["note"]]

    def summary(self) -> dict[str, Any]:
        """One flat record: trace, scheduler, jobs, median_error, worst_error, worst_job,
        median_adjusted_error, unexplained_wait (the jobs' sum, s), waiting_jobs (the jobs with an
        unexplained wait of `NOTED_WAIT` or more, comma-separated, None if none) and clock_effects (the jobs whose first task
        started before their submission, likewise)."""
        waiting = [job["job"] for job in self.jobs if job["unexplained_wait"] >= NOTED_WAIT]
        clock = [job["job"] for job in self.jobs if job["startup"] < 0]
        return {"trace": self.trace, "scheduler": self.scheduler, "jobs": len(self.jobs),
                "median_error": self.median_error, "worst_error": self.worst_error, "worst_job": self.worst_job,
                "median_adjusted_error": self.median_adjusted_error,
                "unexplained_wait": math.fsum(job["unexplained_wait"] for job in self.jobs),
                "waiting_jobs": ", ".join(waiting) or None, "clock_effects": ", ".join(clock) or None}

    def to_json(self) -> str:
        """``{"summary": summary(), "cluster": cluster, "jobs": jobs, "notes": notes}`` as JSON text."""
        return json.dumps({"summary": self.summary(), "cluster": self.cluster, "jobs": self.jobs,
                           "notes": list(self.notes)}, indent=1) + "\n"

    def write(self, folder: str | Path) -> dict[str, Path]:
        """Write replay.csv (the job records) and replay.json (`to_json`) into ``folder``, atomically."""
        folder = Path(folder)
        paths = {"csv": folder / "replay.csv", "json": folder / "replay.json"}
        write_atomic(paths["csv"], csv_text(self.jobs, JOB_FIELDS))
        write_atomic(paths["json"], self.to_json())
        return paths


def replay(
    trace: Sequence[RecordedJob] | SparkApplication,
    cluster: Cluster | None = None,
    scheduler: str | Scheduler | None = None,
    *,
    seed: int = 0,
    heartbeat: float | None = None,
    source: str | None = None,
    pools: Sequence[SparkPool] | None = None,
) -> ReplayReport:
    """Run a recorded run's jobs in the simulator with their recorded task times.

    ``trace`` is the recorded jobs of a Rumen trace (``read_rumen_attempts(path)``,
    `planner.io.rumen_attempts`) or of an SLS job file (``read_sls_jobs(path)``,
    `planner.io.sls_jobs`), or a Spark application (``read_spark_application(path)``,
    `planner.io.spark.logs`; see `planner.proof.spark_replay`). ``cluster`` None builds the
    cluster the run had (module docstring); a given cluster is used with its slots and heartbeat.
    ``heartbeat`` replaces either's. ``scheduler`` is a name or a `Scheduler`; None is the
    recorded one (a Spark application's mode, FIFO in job order; "fifo" for Rumen and SLS, whose
    files do not say). ``seed`` drives block placement on clusters of more than
    `FULL_REPLICATION_NODES` nodes; ``source`` names the trace in the report and in errors;
    ``pools``: a Spark application's allocation file read (`planner.io.spark.conf.SparkPool`: its
    log names the file but does not hold it; Spark applications only). Jobs without a successful
    map attempt (task) are left out with a `ReplayWarning`.
    """
    from planner.io.spark.records import SparkApplication

    if cluster is not None:
        as_instance(cluster, Cluster, "cluster")
    if source is not None:
        as_str(source, "source")
    as_int(seed, "seed", minimum=0)
    if heartbeat is not None:
        heartbeat = as_float(heartbeat, "heartbeat", minimum=0.0)
    if isinstance(trace, SparkApplication):
        from planner.proof.spark_replay import spark_recording

        recording = spark_recording(trace, cluster, heartbeat=heartbeat, source=source or trace.source,
                                    pools=_spark_pools(pools))
        return replay_recording(recording, scheduler, seed=seed)
    if pools is not None:
        raise InvalidInput("pools", "are a Spark application's (its allocation file): a Rumen or SLS trace has none")
    if isinstance(trace, (str, bytes, Path)) or not isinstance(trace, Sequence):
        raise InvalidType("trace", "must be the recorded jobs, e.g. read_rumen_attempts(path), "
                                   f"or a SparkApplication, got {type(trace).__name__}")
    from planner.io.rumen_attempts import RecordedJob

    recorded = [as_instance(job, RecordedJob, f"trace[{i}]") for i, job in enumerate(trace)]
    return replay_recording(mapreduce_recording(recorded, cluster, heartbeat=heartbeat, source=source),
                            scheduler, seed=seed)


def replay_recording(recording: Recording, scheduler: str | Scheduler | None = None, *, seed: int = 0) -> ReplayReport:
    """Simulate a `Recording` and compare each job (the one replay of every format)."""
    from planner.simulator import simulate

    chosen = recording.scheduler if scheduler is None else scheduler
    result = simulate(recording.workload, recording.cluster, chosen, seed=seed, slots=recording.slots,
                      options=recording.options)
    finishes = {job["name"]: job["finish"] for job in result.jobs}
    origin = min(job.ready for job in recording.compared)
    steps = {kind: free_steps(recording.capacity.get(kind, ()), recording.busy.get(kind, ()))
             for kind in set(recording.capacity) | set(recording.busy)}
    records = []
    for job in recording.compared:
        recorded_seconds = max(job.finish - job.ready, MIN_TASK_SECONDS)
        simulated_seconds = max(finishes[name] for name in job.members) - min(job.ready - origin, MAX_SECONDS)
        first = job.ready if job.first_start is None else job.first_start
        startup = first - job.submit
        busy = seconds_free(steps.get(job.first_kind), job.submit, first, full=True) if startup > 0 else 0.0
        waited = longest_free_wait(job.waits, steps, job.ready, job.finish, recording.grace)
        adjusted = max(recorded_seconds - (waited if waited >= NOTED_WAIT else 0.0), MIN_TASK_SECONDS)
        records.append({
            "job": job.name, "maps": job.maps, "reduces": job.reduces, "submit": job.submit, "startup": startup,
            "startup_busy": busy, "startup_unexplained": max(startup - busy, 0.0), "unexplained_wait": waited,
            "recorded": recorded_seconds, "simulated": simulated_seconds,
            "error": simulated_seconds / recorded_seconds - 1.0, "adjusted_error": simulated_seconds / adjusted - 1.0,
            "note": _note(startup, busy, waited, recorded_seconds, recording.grace)})
    name = chosen if isinstance(chosen, str) else result.scheduler.get("name", type(chosen).__name__)
    return ReplayReport(recording.source, result.scheduler.get("name", name), recording.described, records,
                        recording.notes)


def mapreduce_recording(recorded: Sequence[RecordedJob], cluster: Cluster | None = None, *,
                        heartbeat: float | None = None, source: str | None = None) -> Recording:
    """A Rumen trace's or SLS file's recorded jobs made ready to replay (module docstring)."""
    from planner.simulator import SimOptions

    kept = []
    for job in recorded:
        if not job.of_kind("map"):
            warnings.warn(f"{source or 'trace'}: {key_name(job.name)}: no successful map attempts, skipped",
                          ReplayWarning, stacklevel=3)
            continue
        kept.append((job, _first_per_task(job.of_kind("map")), _first_per_task(job.of_kind("reduce"))))
    if not kept:
        raise InvalidInput("", "no job with a successful map attempt to replay", source=source)
    slots: tuple[int, int] | None = None
    if cluster is None:
        cluster, slots = trace_cluster([job for job, _, _ in kept], heartbeat=heartbeat)
    elif heartbeat is not None:
        cluster = cluster.with_changes(heartbeat=heartbeat)
    if cluster.nodes <= FULL_REPLICATION_NODES:
        cluster = cluster.with_changes(replication=cluster.nodes)
    ready = {job.name: min(a.start for a in (*maps, *reduces)) for job, maps, reduces in kept}
    origin = min(ready.values())
    slowstart = _slowstart(recorded)
    specs, times, compared = [], {}, []
    for job, maps, reduces in kept:
        start = ready[job.name]
        last_map = max(a.finish for a in maps)
        map_times = [max(a.finish - a.start, MIN_TASK_SECONDS) for a in maps]
        reduce_times = [max(a.finish - max(a.start, last_map), MIN_TASK_SECONDS) for a in reduces]
        times[job.name] = {"map": map_times, "reduce": reduce_times}
        specs.append(Job(job.name, len(maps), len(reduces), math.fsum(map_times) / len(map_times),
                         math.fsum(reduce_times) / len(reduce_times) if reduces else 0.0,
                         submit=min(start - origin, MAX_SECONDS), pool=job.pool, priority=job.priority))
        # a reduce's replayed time starts at the last map's finish: only a wait after it counts
        compared.append(ComparedJob(
            job.name, len(maps), len(reduces), job.submit, start, max(a.finish for a in (*maps, *reduces)),
            (job.name,), "map",
            tuple(("map", start, a.start) for a in maps) + tuple(("reduce", last_map, a.start) for a in reduces)))
    try:
        workload = Workload(specs, name=Path(source).stem if source else None)
    except InvalidInput as error:  # e.g. two jobs of one name
        raise InvalidInput(error.field, error.problem, source=source) from None
    ones = dict.fromkeys(("cpu", "balanced", "io"), 1.0)
    options = SimOptions(reduce_slowstart=slowstart, rack_factor=ones, off_rack_factor=ones, task_times=times)
    totals = slots or (cluster.total_map_slots, cluster.total_reduce_slots)
    attempts = [a for job, maps, reduces in kept for a in (*maps, *reduces)]
    described = {"nodes": cluster.nodes, "racks": cluster.racks, "map_slots": totals[0], "reduce_slots": totals[1],
                 "heartbeat": cluster.heartbeat, "slowstart": slowstart,
                 "turnaround": turnaround([job for job, _, _ in kept])}
    return Recording(
        source, workload, cluster, slots, options, "fifo", described, tuple(compared),
        {"map": ((-math.inf, totals[0]),), "reduce": ((-math.inf, totals[1]),)},
        {kind: tuple((a.start, a.finish) for a in attempts if a.kind == kind) for kind in ("map", "reduce")},
        cluster.heartbeat)


def longest_free_wait(tasks: Sequence[tuple[str, float, float]], steps: Mapping[str, tuple[list[float], list[int]]],
                      begin: float, end: float, grace: float) -> float:
    """The longest a task of a job waited for a slot that the recording shows free, less ``grace``
    (a heartbeat: the wait a freed slot takes before it is offered), within ``[begin, end]``.

    A task is (kind, eligible, start): it could have run from ``eligible`` and ran from ``start``.
    The job's waiting tasks of a kind queue in the order they started; at any moment the first
    *f* of them, where *f* is the recorded free slots of that kind, had a slot they did not get.
    A task's wait is the time it spent so; the job's is the longest (a single task waiting in
    front of free slots delays the job by as much; many tasks each waiting briefly for staggered
    slots, as on any busy cluster, do not add up)."""
    kinds: dict[str, list[tuple[float, float]]] = {}
    for kind, eligible, start in tasks:
        eligible, start = max(eligible, begin), min(start, end)
        if start > eligible:
            kinds.setdefault(kind, []).append((start, eligible))
    longest = 0.0
    for kind, waiting in kinds.items():
        waiting.sort()
        times = steps.get(kind, ([], []))[0]
        cuts = sorted({*(t for pair in waiting for t in pair),
                       *times[bisect.bisect_right(times, begin):bisect.bisect_left(times, end)]})
        arrivals = sorted(range(len(waiting)), key=lambda i: waiting[i][1])
        queue: list[int] = []  # waiting tasks by their place in the start order
        waited = [0.0] * len(waiting)
        next_arrival = 0
        for left, right in itertools.pairwise(cuts):
            while next_arrival < len(arrivals) and waiting[arrivals[next_arrival]][1] <= left:
                bisect.insort(queue, arrivals[next_arrival])
                next_arrival += 1
            while queue and waiting[queue[0]][0] <= left:  # started (the queue is in start order)
                queue.pop(0)
            for task in queue[:max(free_at(steps.get(kind), left), 0)]:
                waited[task] += right - left
        longest = max(longest, *waited)
    return max(longest - grace, 0.0)


def _note(startup: float, busy: float, waited: float, recorded: float, grace: float) -> str:
    """What the trace does not explain about a job, in words ("" when nothing)."""
    notes = []
    if startup < 0:
        notes.append(f"clock effect: first task {-startup:.1f} s before its submission")
    elif startup - busy > 0 and busy > 0:
        notes.append(f"start-up {startup:.1f} s, {busy:.1f} s of it with every recorded slot busy")
    if waited >= NOTED_WAIT:
        notes.append(f"{waited:.1f} s ({waited / recorded:.0%} of its runtime) waiting with recorded slots free")
    return "; ".join(notes)


def trace_cluster(jobs: Sequence[RecordedJob], *, heartbeat: float | None = None) -> tuple[Cluster, tuple[int, int]]:
    """The cluster the jobs ran on and its (map, reduce) slot totals (module docstring)."""
    attempts = [a for job in jobs for a in job.attempts]
    hosts: dict[str, str | None] = {}
    for attempt in attempts:
        hosts.setdefault(attempt.host or "(unknown)", attempt.rack)
    peaks = {kind: [peak([a for a in attempts if (a.host or "(unknown)") == host and a.kind == kind])
                    for host in hosts] for kind in ("map", "reduce")}
    totals = tuple(min(sum(peaks[kind]), peak([a for a in attempts if a.kind == kind])) for kind in ("map", "reduce"))
    if heartbeat is None:
        heartbeat = _heartbeat(jobs)
    cluster = Cluster(nodes=len(hosts), racks=len(set(hosts.values())), map_slots=max(peaks["map"]),
                      reduce_slots=max(1, *peaks["reduce"]), heartbeat=heartbeat)
    return cluster, (totals[0], totals[1])


def peak(attempts: Sequence[RumenAttempt]) -> int:
    """The most of these attempts running at once (one ending as another starts: one slot)."""
    events = sorted([(a.start, 1) for a in attempts] + [(a.finish, -1) for a in attempts])
    running = most = 0
    for _, change in events:
        running += change
        most = max(most, running)
    return most


def turnaround(jobs: Sequence[RecordedJob]) -> float | None:
    """Mean recorded seconds from an attempt's finish to the next start in the slot it freed.

    Per job, host and kind: the first ``peak`` attempts fill the host's slots; the i-th attempt
    after them started in the slot the i-th finish freed. None when no slot was reused."""
    gaps: list[float] = []
    for job in jobs:
        groups: dict[tuple[str | None, str], list[RumenAttempt]] = {}
        for attempt in job.attempts:
            groups.setdefault((attempt.host, attempt.kind), []).append(attempt)
        for group in groups.values():
            slots = peak(group)
            starts = sorted(a.start for a in group)[slots:]
            finishes = sorted(a.finish for a in group)
            gaps += [start - finish for start, finish in zip(starts, finishes, strict=False)]
    return math.fsum(gaps) / len(gaps) if gaps else None


def _first_per_task(attempts: list[RumenAttempt]) -> list[RumenAttempt]:
    """One attempt per task (the first to finish), in order of start."""
    chosen: dict[int, RumenAttempt] = {}
    for attempt in attempts:
        if attempt.task not in chosen or attempt.finish < chosen[attempt.task].finish:
            chosen[attempt.task] = attempt
    return sorted(chosen.values(), key=lambda a: (a.start, a.task))


def _setting(jobs: Sequence[RecordedJob], keys: Sequence[str]) -> float | None:
    """The first job's numeric value of the first of ``keys`` it has."""
    for job in jobs:
        for key in keys:
            try:
                value = float(job.properties[key])
            except (KeyError, ValueError):
                continue
            if math.isfinite(value) and value >= 0:
                return value
    return None


def _heartbeat(jobs: Sequence[RecordedJob]) -> float:
    milliseconds = _setting(jobs, HEARTBEAT_KEYS)
    return MRV1_HEARTBEAT if milliseconds is None else min(milliseconds / 1000.0, 3_600.0)


def _slowstart(jobs: Sequence[RecordedJob]) -> float:
    value = _setting(jobs, SLOWSTART_KEYS)
    return DEFAULT_SLOWSTART if value is None or value > 1 else value


def _spark_pools(pools: object) -> tuple[SparkPool, ...] | None:
    """``pools`` checked: None, or a sequence of `planner.io.spark.conf.SparkPool`."""
    from planner.io.spark.conf import SparkPool

    if pools is None:
        return None
    if isinstance(pools, (str, bytes)) or not isinstance(pools, Sequence):
        raise InvalidType("pools", f"must be a sequence of SparkPool, got {type(pools).__name__}")
    return tuple(as_instance(pool, SparkPool, f"pools[{i}]") for i, pool in enumerate(pools))
