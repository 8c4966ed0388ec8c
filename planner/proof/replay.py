"""Replay of recorded runs: a Rumen trace's jobs, with each task's recorded time, through the simulator.

`replay(read_rumen_attempts(path))` asks how close the simulator comes to what a real cluster
did when it is given what the cluster was given: the same jobs, arriving when they got going,
each task taking the time it took, on the cluster the trace ran on. The difference per job is
the simulator's error. (The attempts are read by `planner.io.rumen_attempts`: proofs take what
`planner.io` read and never read trace files themselves.)

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

import json
import math
import statistics
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models import Cluster, InvalidInput, InvalidType, Job, Workload
from models.checks import as_float, as_instance, as_int, as_str, key_name
from models.fileio import csv_text, write_atomic
from models.limits import MAX_SECONDS, MIN_TASK_SECONDS

if TYPE_CHECKING:  # proofs take what planner.io read; they do not read files themselves
    from planner.io.rumen_attempts import RecordedJob, RumenAttempt
    from planner.simulator.schedulers.base import Scheduler

#: The heartbeat of a trace that does not say (Hadoop 0.20's minimum TaskTracker interval, s).
MRV1_HEARTBEAT = 3.0
#: Reduce slowstart of a trace that does not say (Hadoop's mapreduce.job.reduce.slowstart.completedmaps).
DEFAULT_SLOWSTART = 0.05
#: Clusters of up to this many nodes get a replica of every block on every node (launch order kept).
FULL_REPLICATION_NODES = 32
HEARTBEAT_KEYS = ("yarn.nodemanager.heartbeat.interval-ms",)
SLOWSTART_KEYS = ("mapreduce.job.reduce.slowstart.completedmaps", "mapred.reduce.slowstart.completed.maps")
#: Fields of a job's record.
JOB_FIELDS = ("job", "maps", "reduces", "submit", "startup", "recorded", "simulated", "error")


class ReplayWarning(UserWarning):
    """A recorded job could not be replayed and was left out."""


@dataclass(frozen=True)
class ReplayReport:
    """What a replay measured: ``jobs``, one flat record per job (`JOB_FIELDS`: job, maps, reduces,
    submit, startup, recorded, simulated, error; times in s from the earliest submission, errors
    as fractions), and ``cluster``, what the jobs ran on (nodes, racks, map_slots and
    reduce_slots in all, heartbeat, slowstart, and ``turnaround``: the recorded mean seconds
    from an attempt's finish to the next attempt's start in the slot it freed, within a job)."""

    trace: str | None
    scheduler: str
    cluster: dict[str, Any]
    jobs: list[dict[str, Any]]

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
        """Two records (kind, job, absolute_error): the median absolute error, and the worst with its job."""
        return [{"kind": "median", "job": None, "absolute_error": self.median_error},
                {"kind": "worst", "job": self.worst_job, "absolute_error": self.worst_error}]

    def summary(self) -> dict[str, Any]:
        """One flat record: trace, scheduler, jobs, median_error, worst_error, worst_job."""
        return {"trace": self.trace, "scheduler": self.scheduler, "jobs": len(self.jobs),
                "median_error": self.median_error, "worst_error": self.worst_error, "worst_job": self.worst_job}

    def to_json(self) -> str:
        """``{"summary": summary(), "cluster": cluster, "jobs": jobs}`` as JSON text."""
        return json.dumps({"summary": self.summary(), "cluster": self.cluster, "jobs": self.jobs}, indent=1) + "\n"

    def write(self, folder: str | Path) -> dict[str, Path]:
        """Write replay.csv (the job records) and replay.json (`to_json`) into ``folder``, atomically."""
        folder = Path(folder)
        paths = {"csv": folder / "replay.csv", "json": folder / "replay.json"}
        write_atomic(paths["csv"], csv_text(self.jobs, JOB_FIELDS))
        write_atomic(paths["json"], self.to_json())
        return paths


def replay(
    trace: Sequence[RecordedJob],
    cluster: Cluster | None = None,
    scheduler: str | Scheduler = "fifo",
    *,
    seed: int = 0,
    heartbeat: float | None = None,
    source: str | None = None,
) -> ReplayReport:
    """Run a trace's recorded jobs in the simulator with their recorded task times.

    ``trace`` is the recorded jobs: ``read_rumen_attempts(path)``
    (`planner.io.rumen_attempts`). ``cluster`` None builds the cluster the trace ran on (module
    docstring); a given cluster is used with its slots and heartbeat. ``heartbeat`` replaces
    either's. ``scheduler`` is a name or a `Scheduler`; ``seed`` drives block placement on
    clusters of more than `FULL_REPLICATION_NODES` nodes; ``source`` names the trace in the
    report and in errors. Jobs without a successful map attempt are left out with a
    `ReplayWarning`.
    """
    from planner.simulator import SimOptions, simulate

    if isinstance(trace, (str, bytes, Path)) or not isinstance(trace, Sequence):
        raise InvalidType("trace", "must be the recorded jobs, e.g. read_rumen_attempts(path), "
                                   f"got {type(trace).__name__}")
    from planner.io.rumen_attempts import RecordedJob

    recorded = [as_instance(job, RecordedJob, f"trace[{i}]") for i, job in enumerate(trace)]
    if cluster is not None:
        as_instance(cluster, Cluster, "cluster")
    if source is not None:
        as_str(source, "source")
    as_int(seed, "seed", minimum=0)
    if heartbeat is not None:
        heartbeat = as_float(heartbeat, "heartbeat", minimum=0.0)
    kept = []
    for job in recorded:
        if not job.of_kind("map"):
            warnings.warn(f"{source or 'trace'}: {key_name(job.name)}: no successful map attempts, skipped",
                          ReplayWarning, stacklevel=2)
            continue
        kept.append((job, _first_per_task(job.of_kind("map")), _first_per_task(job.of_kind("reduce"))))
    if not kept:
        raise InvalidInput("", "no job with a successful map attempt to replay", source=source)
    slots: tuple[int, int] | None = None
    if cluster is None:
        cluster, slots = trace_cluster([job for job, _, _ in kept], heartbeat=heartbeat)
    elif not isinstance(cluster, Cluster):
        raise InvalidInput("cluster", f"must be a Cluster, got {type(cluster).__name__}")
    elif heartbeat is not None:
        cluster = cluster.with_changes(heartbeat=heartbeat)
    if cluster.nodes <= FULL_REPLICATION_NODES:
        cluster = cluster.with_changes(replication=cluster.nodes)
    ready = {job.name: min(a.start for a in (*maps, *reduces)) for job, maps, reduces in kept}
    origin = min(ready.values())
    specs, times = [], {}
    for job, maps, reduces in kept:
        start = ready[job.name]
        last_map = max(a.finish for a in maps)
        map_times = [max(a.finish - a.start, MIN_TASK_SECONDS) for a in maps]
        reduce_times = [max(a.finish - max(a.start, last_map), MIN_TASK_SECONDS) for a in reduces]
        times[job.name] = {"map": map_times, "reduce": reduce_times}
        specs.append(Job(job.name, len(maps), len(reduces), math.fsum(map_times) / len(map_times),
                         math.fsum(reduce_times) / len(reduce_times) if reduces else 0.0,
                         submit=min(start - origin, MAX_SECONDS), pool=job.pool, priority=job.priority))
    try:
        workload = Workload(specs, name=Path(source).stem if source else None)
    except InvalidInput as error:  # e.g. two jobs of one name
        raise InvalidInput(error.field, error.problem, source=source) from None
    ones = dict.fromkeys(("cpu", "balanced", "io"), 1.0)
    options = SimOptions(reduce_slowstart=_slowstart(recorded), rack_factor=ones, off_rack_factor=ones,
                         task_times=times)
    result = simulate(workload, cluster, scheduler, seed=seed, slots=slots, options=options)
    records = []
    for (job, maps, reduces), simulated in zip(kept, result.jobs, strict=True):
        begin = ready[job.name]
        recorded_seconds = max(max(a.finish for a in (*maps, *reduces)) - begin, MIN_TASK_SECONDS)
        simulated_seconds = simulated["finish"] - simulated["submit"]
        records.append({"job": job.name, "maps": len(maps), "reduces": len(reduces), "submit": job.submit,
                        "startup": begin - job.submit, "recorded": recorded_seconds,
                        "simulated": simulated_seconds, "error": simulated_seconds / recorded_seconds - 1.0})
    described = {"nodes": cluster.nodes, "racks": cluster.racks,
                 "map_slots": slots[0] if slots else cluster.total_map_slots,
                 "reduce_slots": slots[1] if slots else cluster.total_reduce_slots,
                 "heartbeat": cluster.heartbeat, "slowstart": options.reduce_slowstart,
                 "turnaround": turnaround([job for job, _, _ in kept])}
    return ReplayReport(source, result.scheduler.get("name", str(scheduler)), described, records)


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
