"""Which jobs decide when a batch with dependencies ends: its critical path and each job's slack,
as two labelled figures, and over validation runs which job most often delays the end.

- **The model's** (`model_slack`): `models.dag.Precedence.schedule` over each job's duration
  estimate, the job alone on the cluster (`solvers.bounds.alone` on all S slots: its map waves,
  then its reduce waves), from its submit time (0 for a plan that takes every job as ready now),
  each job started as soon as its predecessors have finished plus their delays. Slots are not
  shared in this model, so its end is a lower bound: no schedule of the batch ends earlier (the
  critical-path bound, with the dependencies). Its critical path is the last job to finish and,
  back from it, the predecessor that held each one.
- **The simulation's** (`simulated_slack`): one simulated run's job records (`SimResult.jobs`:
  ``ready``, ``start``, ``finish``, ``held_by``). The simulated critical chain (`simulated_chain`)
  is the last job to finish, the predecessor that held it last (``held_by``), that one's, and so on
  back to a job that waited for no predecessor. A job's simulated latest finish is the latest it
  could have finished without delaying the end if every job kept its simulated span from ready to
  finish (its wait for a slot and its run): the end for a job no other waits for, else the
  earliest of its successors' latest finishes less their spans and the dependency's delay
  (`Precedence.latest_finishes`); its slack is that latest finish less its simulated finish. The
  chain's jobs have no slack.
- **Over runs** (`chain_counts`): how often each job was on the simulated chain, was the last
  job's binding predecessor (the one that held the last job), and was the last job; a validation
  keeps only each run's chain (a few names), not its job records.

Every function here is pure and returns flat records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from models import InvalidInput, Workload
from models.dag import Precedence
from planner.simulator.result import critical_chain
from solvers.bounds import alone

__all__ = ["CriticalPath", "chain_counts", "chain_summary", "critical_path", "model_slack", "simulated_chain",
           "simulated_slack"]

#: The model's duration estimate, in words (reports say which figure is which).
MODEL_ESTIMATE = "each job alone on all {slots:,} slots (its map waves, then its reduce waves)"
#: Simulated slack within this many seconds of zero (float rounding of the run's times) is zero.
SLACK_TOLERANCE = 1e-6


def model_slack(workload: Workload, slots: int, *, ready_now: bool = False) -> list[dict[str, Any]]:
    """The model's figure (module docstring), one record per job in the workload's order: ``job``,
    ``duration`` (alone on ``slots`` slots), ``earliest_start`` and ``earliest_finish`` (seconds
    on the workload's clock; from 0 when ``ready_now``), ``latest_finish`` (that does not delay the
    model's end), ``slack``, ``held_by`` (the predecessor whose finish decided the start; None: the
    submit time did) and ``critical`` (on the model's critical path)."""
    if slots < 1:
        raise InvalidInput("slots", f"must be at least 1, got {slots}")
    durations = [alone(job, slots) for job in workload]
    precedence = workload.precedence
    if ready_now:
        precedence = Precedence([job.with_changes(submit=0.0) for job in workload])
    return [{"job": timing.name, "duration": duration, "earliest_start": timing.earliest_start,
             "earliest_finish": timing.earliest_finish, "latest_finish": timing.latest_finish,
             "slack": timing.slack, "held_by": timing.held_by, "critical": timing.critical}
            for timing, duration in zip(precedence.schedule(durations), durations, strict=True)]


def simulated_chain(jobs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The simulated critical chain of a run's job records (each with ``name``, ``finish`` and
    ``held_by``), first to last: the last job to finish (the first such on a tie) and, back from
    it, the predecessor that held each one last (`planner.simulator.result.critical_chain`)."""
    return critical_chain(jobs)


def simulated_slack(jobs: Sequence[Mapping[str, Any]], precedence: Precedence) -> list[dict[str, Any]]:
    """The simulation's figure (module docstring) from a run's job records (``name``, ``ready``,
    ``start``, ``finish``, ``held_by``) and the batch's dependencies, one record per job in
    ``precedence``'s order: ``job``, ``ready``, ``start``, ``finish``, ``wait`` (start - ready:
    the wait for a slot), ``latest_finish``, ``slack``, ``held_by`` and ``critical`` (on the
    simulated chain)."""
    by_name = {record["name"]: record for record in jobs}
    missing = [name for name in precedence.names if name not in by_name]
    if missing or len(by_name) != len(precedence.names):
        raise InvalidInput("jobs", f"the run's jobs are not the batch's ({missing[0]!r} is missing)" if missing
                           else "the run's jobs are not the batch's")
    records = [by_name[name] for name in precedence.names]
    spans = [float(r["finish"]) - float(r["ready"]) for r in records]
    end = max(float(r["finish"]) for r in records)
    latest = precedence.latest_finishes(spans, horizon=end)
    on_chain = set(simulated_chain(records))
    found = []
    for record, latest_finish in zip(records, latest, strict=True):
        slack = latest_finish - float(record["finish"])
        if abs(slack) <= SLACK_TOLERANCE:  # the run's float sums: no slack
            latest_finish, slack = float(record["finish"]), 0.0
        found.append({"job": record["name"], "ready": record["ready"], "start": record["start"],
                      "finish": record["finish"], "wait": float(record["start"]) - float(record["ready"]),
                      "latest_finish": latest_finish, "slack": slack,
                      "held_by": record["held_by"], "critical": record["name"] in on_chain})
    return found


def chain_summary(model: Sequence[Mapping[str, Any]], simulated: Sequence[Mapping[str, Any]] | None,
                  slots: int) -> dict[str, Any]:
    """One flat record of both figures: the model's critical path (``model_path``, its jobs first
    to last joined by " -> "), ``model_end`` and ``model_length`` (its end less the first
    release: a lower bound of the makespan), ``model_estimate`` (what a job lasts in the model);
    the simulated chain (``simulated_path``), ``simulated_end`` and ``simulated_waiting`` (the
    chain's jobs' waits for a slot, summed); the simulated fields are None without a run."""
    path = critical_chain([{"name": r["job"], "finish": r["earliest_finish"], "held_by": r["held_by"]}
                           for r in model]) if model else []
    end = max((r["earliest_finish"] for r in model), default=0.0)
    first = min((r["earliest_start"] for r in model), default=0.0)
    record: dict[str, Any] = {"model_path": " -> ".join(path), "model_end": end,
                              "model_length": end - first, "model_estimate": MODEL_ESTIMATE.format(slots=slots),
                              "simulated_path": None, "simulated_end": None, "simulated_waiting": None}
    if simulated is not None:
        chain = critical_chain([{"name": r["job"], "finish": r["finish"], "held_by": r["held_by"]}
                                for r in simulated])
        wait = {r["job"]: r["wait"] for r in simulated}
        record.update(simulated_path=" -> ".join(chain), simulated_end=max(r["finish"] for r in simulated),
                      simulated_waiting=sum(wait[name] for name in chain))
    return record


@dataclass(frozen=True)
class CriticalPath:
    """A batch's critical path and each job's slack, the model's figure and the simulation's
    (`critical_path`): ``summary`` (`chain_summary`) and ``jobs``, one flat record per job in the
    workload's order, its fields labelled ``model_`` (`model_slack`) and ``simulated_``
    (`simulated_slack`; None without a run)."""

    summary: dict[str, Any]
    jobs: list[dict[str, Any]]

    #: The columns a terminal shows (`brief`).
    BRIEF = ("job", "model_finish", "model_slack", "model_critical", "simulated_finish", "simulated_slack",
             "simulated_held_by", "simulated_critical")

    def brief(self) -> list[dict[str, Any]]:
        """``jobs`` narrowed to a terminal: the model's finish, slack and path, the simulated finish,
        slack, what held the job and the chain."""
        return [{key: record[key] for key in self.BRIEF} for record in self.jobs]

    def least_slack(self, count: int) -> list[dict[str, Any]]:
        """`brief`'s ``count`` jobs with the least simulated slack (else the model's), the chains' first."""
        def key(record: dict[str, Any]) -> tuple[float, float]:
            simulated = record["simulated_slack"]
            return (record["model_slack"] if simulated is None else simulated, record["model_slack"])

        order = sorted(range(len(self.jobs)), key=lambda p: key(self.jobs[p]))[:count]
        brief = self.brief()
        return [brief[p] for p in sorted(order)]


def critical_path(workload: Workload, slots: int, run: Sequence[Mapping[str, Any]] | None = None, *,
                  ready_now: bool = False) -> CriticalPath:
    """Both figures for ``workload`` on ``slots`` slots: the model's (`model_slack`; from 0 when
    ``ready_now``) and, with ``run`` (a simulated run's job records, `SimResult.jobs`), the
    simulation's (`simulated_slack`)."""
    model = model_slack(workload, slots, ready_now=ready_now)
    simulated = None if run is None else simulated_slack(run, workload.precedence)
    jobs = []
    for position, own in enumerate(model):
        record: dict[str, Any] = {"job": own["job"], "model_duration": own["duration"],
                                  "model_start": own["earliest_start"], "model_finish": own["earliest_finish"],
                                  "model_latest_finish": own["latest_finish"], "model_slack": own["slack"],
                                  "model_held_by": own["held_by"], "model_critical": own["critical"]}
        seen = None if simulated is None else simulated[position]
        for key in ("ready", "start", "finish", "wait", "latest_finish", "slack", "held_by", "critical"):
            record[f"simulated_{key}"] = None if seen is None else seen[key]
        jobs.append(record)
    return CriticalPath(chain_summary(model, simulated, slots), jobs)


def chain_counts(chains: Iterable[Sequence[str]]) -> list[dict[str, Any]]:
    """Over runs' simulated chains (`simulated_chain`, first to last), one record per job that was on
    one: ``job``, ``on_chain`` (runs) and ``on_chain_share`` (of the runs), ``binding_last`` (runs in
    which it held the last job: the chain's last but one) and its share, ``last`` (runs in which it
    finished last) and its share. Most often on the chain first, then most often binding, then by
    name."""
    runs = 0
    on: dict[str, int] = {}
    binding: dict[str, int] = {}
    last: dict[str, int] = {}
    for chain in chains:
        runs += 1
        for name in set(chain):
            on[name] = on.get(name, 0) + 1
        if chain:
            last[chain[-1]] = last.get(chain[-1], 0) + 1
        if len(chain) > 1:
            binding[chain[-2]] = binding.get(chain[-2], 0) + 1
    records = [{"job": name, "on_chain": count, "on_chain_share": count / runs,
                "binding_last": binding.get(name, 0), "binding_last_share": binding.get(name, 0) / runs,
                "last": last.get(name, 0), "last_share": last.get(name, 0) / runs}
               for name, count in on.items()]
    records.sort(key=lambda r: (-r["on_chain"], -r["binding_last"], r["job"]))
    return records
