"""What a simulation run reports: flat records and the summary numbers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from models.checks import as_float, as_instance, as_int, as_str
from models.errors import InvalidInput, InvalidType
from planner.simulator.attempt_log import AttemptLog
from planner.simulator.jobs import NODE_LOCAL, OFF_RACK, RACK_LOCAL
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.records import DONE_FATE, KILLED_FATE, Attempt, task_records

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from planner.simulator.core import Simulation


@dataclass(frozen=True, eq=False)
class SimResult:
    """One run: ``jobs`` records (name, submit, ready, held_by, start, map_done,
    finish, response), task attempts (``attempts`` tuples, `tasks` flat records), and
    summary numbers, computed on first use:

    - ``ready`` is when the job was submitted to the scheduler: its submit time, or later when it
      waits for other jobs (``Job.after``) that finished later (plus their delays); ``held_by``
      names the predecessor whose finish (plus delay) set it, the first to finish among those that
      set the same time (None: its submit time is not earlier than any of them). ``submit`` is the
      workload's and ``response`` counts from it.
    - ``makespan``: last finish minus first submission, in seconds.
    - ``locality``: fractions of completed map tasks that ran node-local,
      rack-local and off-rack.
    - ``utilization``: busy slot-seconds over (slots * makespan).
    - ``fairness``: FRESH's overall fairness (see `overall_fairness`).
    - ``busy_slot_seconds``: time slots held attempts, as counted by the slots
      during the run; ``killed_work``: slot-seconds of attempts that were killed.
    - ``suspensions``, ``kills``, ``wasted_work`` (killed work plus suspend and
      resume overheads), ``deadline_misses``; job records carry ``deadline``
      and ``margin`` (deadline minus finish, None without a deadline).
    - ``network_bytes`` (with ``SimOptions.network``): bytes read by remote maps
      (``remote_reads``) and received by reducers that completed their copy, over
      the network (``shuffle_remote``) and from their own node (``shuffle_local``);
      ``moved``: every byte that crossed a link, lost transfers included.
    """

    scheduler: dict[str, Any]
    seed: int
    slots: int
    jobs: list[dict[str, Any]]
    makespan: float
    busy_slot_seconds: float
    attempt_log: AttemptLog = field(repr=False)
    job_names: list[str] = field(repr=False)
    options: dict[str, Any] = field(repr=False, default_factory=dict)
    cluster: dict[str, Any] = field(repr=False, default_factory=dict)
    workload: str | None = None
    suspensions: int = 0
    kills: int = 0
    overhead_seconds: float = 0.0
    network_bytes: dict[str, float] | None = None
    #: The batch's dependencies as (predecessor, job, delay) (`Job.after`), for the job-level Gantt chart.
    dependencies: tuple[tuple[str, str, float], ...] = field(repr=False, default=())

    def __post_init__(self) -> None:
        """Each field of its type and every number finite (a NaN or inf given is refused, naming the field)."""
        put = object.__setattr__
        for name in ("scheduler", "options", "cluster"):
            as_instance(getattr(self, name), dict, name)
        for name in ("jobs", "job_names"):
            as_instance(getattr(self, name), list, name)
        as_instance(self.attempt_log, AttemptLog, "attempt_log")
        if self.workload is not None:
            as_instance(self.workload, str, "workload")
        for name in ("seed", "slots", "suspensions", "kills"):
            put(self, name, as_int(getattr(self, name), name, minimum=0))
        for name in ("makespan", "busy_slot_seconds", "overhead_seconds"):
            put(self, name, as_float(getattr(self, name), name, minimum=0.0))
        if self.network_bytes is not None:
            for key, count in as_instance(self.network_bytes, dict, "network_bytes").items():
                as_float(count, f"network_bytes.{key}", minimum=0.0)
        for number, edge in enumerate(as_instance(self.dependencies, tuple, "dependencies")):
            where = f"dependencies[{number}]"
            if not isinstance(edge, tuple) or len(edge) != 3:
                raise InvalidType(where, f"must be a (predecessor, job, delay) tuple, got {type(edge).__name__}")
            as_str(edge[0], f"{where}[0]")
            as_str(edge[1], f"{where}[1]")
            as_float(edge[2], f"{where}[2]", minimum=0.0)

    @classmethod
    def from_simulation(cls, sim: Simulation) -> SimResult:
        runs = sorted(sim.jobs, key=lambda run: run.index)
        jobs = [
            {
                "name": run.name,
                "submit": run.job.submit,
                "ready": sim.ready_at[run.index],
                "held_by": None if sim.held_by[run.index] < 0 else sim.workload.jobs[sim.held_by[run.index]].name,
                "start": run.start,
                "map_done": run.map_done,
                "finish": run.finish,
                "response": run.finish - run.job.submit,
                "deadline": run.deadline,
                "margin": None if run.deadline is None else run.deadline - run.finish,
            }
            for run in runs
        ]
        return cls(
            scheduler=sim.scheduler.describe(),
            seed=sim.seed,
            slots=sim.layout.slots,
            jobs=jobs,
            makespan=max(run.finish for run in runs) - min(run.job.submit for run in runs),
            busy_slot_seconds=float(sum(sim.slot_busy)),
            attempt_log=sim.attempt_log,
            job_names=[job.name for job in sim.workload],
            options=sim.options.to_dict(),
            cluster={**sim.cluster.to_dict(), "map_slots_total": sim.layout.count(MAP),
                     "reduce_slots_total": sim.layout.count(REDUCE), "containers_total": sim.layout.count(ANY)},
            workload=sim.workload.name,
            suspensions=sim.counts["suspensions"],
            kills=sim.counts["kills"],
            overhead_seconds=sim.overhead_seconds,
            network_bytes=None if sim.network is None else {**sim.network_bytes, "moved": sim.network.moved},
            dependencies=tuple((dependency.job, job.name, dependency.delay) for job in sim.workload
                               for dependency in job.after),
        )

    @cached_property
    def critical_chain(self) -> list[str]:
        """The run's critical chain, first to last: the last job to finish and, back from it, the
        predecessor that held each one last (``held_by``; `critical_chain`)."""
        return critical_chain(self.jobs) if self.jobs else []

    @cached_property
    def attempts(self) -> list[Attempt]:
        """Every task attempt as an `Attempt` tuple, in the order they ended (built on first
        use from the columns: a million attempts take about 200 MB as tuples)."""
        return [Attempt(*row) for row in self.attempt_log.rows()]

    @property
    def attempt_count(self) -> int:
        return len(self.attempt_log)

    def columns(self) -> dict[str, np.ndarray]:
        """The attempts' fields as numpy arrays (job, kind, task, node, slot, start, end,
        locality, fate; codes as in `Attempt`), in the order the attempts ended."""
        return self.attempt_log.columns()

    @cached_property
    def locality(self) -> dict[str, float]:
        table = self.columns()
        maps = table["locality"][(table["kind"] == MAP) & (table["fate"] == DONE_FATE)]
        total = max(len(maps), 1)
        return {
            name: float(np.count_nonzero(maps == level)) / total
            for name, level in (("node", NODE_LOCAL), ("rack", RACK_LOCAL), ("off", OFF_RACK))
        }

    @property
    def utilization(self) -> float:
        return self.busy_slot_seconds / (self.slots * self.makespan) if self.makespan > 0 else 0.0

    @cached_property
    def fairness(self) -> float:
        table = self.columns()
        # Job records follow the workload's order, so an attempt's job index is its record's position.
        return overall_fairness(self.jobs, table["job"], table["start"], table["end"])

    def fairness_over_time(self) -> list[dict[str, float]]:
        """FRESH's overall fairness at each job completion: records (time, fairness, jobs_in_system)
        with time measured from the first submission."""
        table = self.columns()
        samples, jain = fairness_timeline(self.jobs, table["job"], table["start"], table["end"])
        first = min(job["submit"] for job in self.jobs)
        # In the system at T: submitted before T and not finished before it (a job finishes after
        # it is submitted). Counted from the sorted times: a jobs x samples table is 600 MB for a day.
        submit = np.sort(np.array([job["submit"] for job in self.jobs]))
        finish = np.sort(np.array([job["finish"] for job in self.jobs]))
        present = np.searchsorted(submit, samples, side="left") - np.searchsorted(finish, samples, side="left")
        return [{"time": float(t - first), "fairness": float(f), "jobs_in_system": int(n)}
                for t, f, n in zip(samples, jain, present, strict=True)]

    @cached_property
    def killed_work(self) -> float:
        table = self.columns()
        return float((table["end"] - table["start"])[table["fate"] == KILLED_FATE].sum())

    @cached_property
    def tasks(self) -> list[dict[str, Any]]:
        """One flat record per task attempt, in order of start time (then slot, then end)."""
        return task_records(self.attempt_log.rows(self.attempt_log.start_order()), self.job_names)

    def job(self, name: str) -> dict[str, Any]:
        for record in self.jobs:
            if record["name"] == name:
                return record
        raise KeyError(name)

    @property
    def mean_response(self) -> float:
        return sum(job["response"] for job in self.jobs) / len(self.jobs)

    def summary(self) -> dict[str, Any]:
        """The headline numbers as one flat record."""
        return {
            "scheduler": self.scheduler["name"],
            "jobs": len(self.jobs),
            "attempts": len(self.attempt_log),
            "makespan": self.makespan,
            "mean_response": self.mean_response,
            "node_local": self.locality["node"],
            "rack_local": self.locality["rack"],
            "off_rack": self.locality["off"],
            "utilization": self.utilization,
            "fairness": self.fairness,
            "killed_work": self.killed_work,
            "suspensions": self.suspensions,
            "kills": self.kills,
            "wasted_work": self.wasted_work,
            "deadline_misses": self.deadline_misses,
        }

    @property
    def wasted_work(self) -> float:
        """Slot-seconds lost to eviction: killed attempts' work plus suspend and resume overheads."""
        return self.killed_work + self.overhead_seconds

    @property
    def deadline_misses(self) -> int:
        """Jobs that finished after their deadline."""
        return sum(1 for job in self.jobs if job["margin"] is not None and job["margin"] < 0)

    def to_dict(self, *, tasks: bool = True) -> dict[str, Any]:
        """The result as plain data; ``tasks=False`` leaves out the attempts' records."""
        data = {
            "summary": self.summary(),
            "scheduler": self.scheduler,
            "seed": self.seed,
            "slots": self.slots,
            "cluster": self.cluster,
            "workload": self.workload,
            "options": self.options,
            "jobs": self.jobs,
        }
        if tasks:
            data["tasks"] = self.tasks
        if self.network_bytes is not None:  # with the network model only: other files stay as they were
            data["network_bytes"] = self.network_bytes
        return data

    def to_json(self, *, tasks: bool = True) -> str:
        """The whole result as JSON text: same inputs and seed give the same bytes
        (`planner.io.results.write_result_json` writes them to a file, the task records a chunk
        at a time)."""
        return json.dumps(self.to_dict(tasks=tasks), indent=1, sort_keys=True)

    def plot_gantt(self, ax: Axes | None = None, *, max_slots: int | None = 200, rows: str | None = None) -> Axes:
        """Task attempts as bars by slot (`planner.plots.plot_attempts`, the first ``max_slots``
        slots), or jobs as rows with their dependencies as arrows and the critical chain
        (`planner.plots.plot_jobs`); ``rows`` "slots" or "jobs", None: "jobs" when the batch has
        dependencies."""
        from planner.plots import plot_attempts, plot_gantt

        if rows == "slots" or (rows is None and not self.dependencies):
            return plot_attempts(self, ax=ax, max_slots=max_slots)
        return plot_gantt(self, ax, rows=rows)


def critical_chain(jobs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The critical chain of a run's job records (``name``, ``finish``, ``held_by``), first to last:
    the last job to finish (the first such in the records' order on a tie) and, back from it, the
    job that held each one last."""
    if not jobs:
        raise InvalidInput("jobs", "a run without jobs has no critical chain")
    index = {}
    for position, record in enumerate(jobs):
        if "held_by" not in record:
            raise InvalidInput("jobs", f"job {record['name']!r} has no held_by: this run does not record what "
                                       "held its jobs")
        index[record["name"]] = position
    at: int | None = max(range(len(jobs)), key=lambda p: (jobs[p]["finish"], -p))
    chain: list[str] = []
    while at is not None and len(chain) < len(jobs):
        chain.append(jobs[at]["name"])
        held = jobs[at]["held_by"]
        if held is not None and held not in index:
            raise InvalidInput("jobs", f"job {jobs[at]['name']!r} was held by {held!r}, not a job of this run")
        at = None if held is None else index[held]
    chain.reverse()
    return chain


def overall_fairness(jobs: list[dict[str, Any]], owner: np.ndarray, start: np.ndarray, end: np.ndarray) -> float:
    """FRESH's overall fairness of a run.

    At each job completion time T, every job i submitted before T and not
    finished before T has ``r_i(T)`` = slot-seconds (map and reduce) it has
    received since its submission / (T - submit_i): the average number of
    slots it held while in the system. Jain's index of those values,
    ``(sum r)^2 / (n * sum r^2)``, is 1 when all are equal. The run's fairness
    is the mean of the indices weighted by the time since the previous sample
    (the first interval starts at the first submission). ``owner``, ``start``
    and ``end`` describe the attempts (owner = the job's position in ``jobs``).
    """
    samples, jain = fairness_timeline(jobs, owner, start, end)
    first = min(job["submit"] for job in jobs)
    widths = np.diff(np.concatenate(([first], samples)))
    if widths.sum() <= 0:
        return float(jain.mean())
    return float((jain * widths).sum() / widths.sum())


#: Jobs whose attempts `fairness_timeline` groups at once.
_FAIRNESS_BLOCK = 2048


def fairness_timeline(
    jobs: list[dict[str, Any]], owner: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The completion times T of a run and Jain's index of the r_i(T) at each (`overall_fairness`)."""
    samples = np.unique(np.array([job["finish"] for job in jobs], dtype=float))
    total = np.zeros(len(samples))
    squares = np.zeros(len(samples))
    count = np.zeros(len(samples))
    # The attempts grouped by job, a block of jobs at a time: a whole-run argsort of the owners
    # (8 bytes an attempt, and its merge buffer) added 170 MB to a day's peak of 1 GB. A job's
    # sums read its attempts' times sorted (`_sum_min`), so the order inside a group is immaterial.
    for first in range(0, len(jobs), _FAIRNESS_BLOCK):
        last = min(first + _FAIRNESS_BLOCK, len(jobs))
        inside = np.flatnonzero((owner >= first) & (owner < last))
        order = inside[np.argsort(owner[inside], kind="stable")]
        bounds = np.searchsorted(owner[order], np.arange(first, last + 1))
        for position in range(first, last):
            job = jobs[position]
            lo = int(np.searchsorted(samples, job["submit"], side="right"))
            hi = int(np.searchsorted(samples, job["finish"], side="left")) + 1
            when = samples[lo:hi]
            if len(when) == 0:
                continue
            mine = order[bounds[position - first] : bounds[position - first + 1]]
            # Service by time T: sum of min(end, T) - min(start, T), from sorted prefix sums.
            share = (_sum_min(end[mine], when) - _sum_min(start[mine], when)) / (when - job["submit"])
            total[lo:hi] += share
            squares[lo:hi] += share * share
            count[lo:hi] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        jain = np.where(squares > 0, total * total / (count * squares), 1.0)
    return samples, jain


def _sum_min(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """For each t in ``at``: sum over ``values`` of min(value, t)."""
    ordered = np.sort(values)
    prefix = np.concatenate(([0.0], np.cumsum(ordered)))
    below = np.searchsorted(ordered, at, side="right")
    return prefix[below] + (len(ordered) - below) * at
