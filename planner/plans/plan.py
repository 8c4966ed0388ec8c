"""Plans: what an operator applies tonight, with the prediction that justifies it.

Slot plans (FRESH: split of the slots, admission order and limit) and VM-level
plans (Packing paper: pairs or phases of jobs on VMs) share one `Plan` record
and one JSON file format (reading it: `planner.plans.files`; the VM side:
`planner.plans.vm`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from models import Cluster, InvalidInput, Workload
from models.checks import as_float, as_int, as_str
from models.fileio import read_mapping, write_atomic
from models.fingerprints import cluster_fingerprint, workload_fingerprint
from planner.defaults import DEFAULT_K, DEFAULT_NOISE, DEFAULT_TIME_LIMIT, ROBUST_RUNS
from planner.limits import MAX_RUNS
from planner.plans import arrivals
from planner.plans.curves import SlotCurves
from planner.plans.files import OBJECTIVES, PLAN_VERSION, SLOT_STRATEGIES, STRATEGIES, plan_fields
from planner.plans.robust import choose_robust, robust_candidates
from planner.plans.vm import (
    VM_STRATEGIES,
    Phases,
    check_solver,
    derived_profiles,
    evaluate_plan_phases,
    placement_seconds,
    solve_vm,
    warn_extrapolation,
)
from planner.proof.sweep import Progress
from planner.proof.validate import check_noise
from planner.simulator.layout import node_slots
from solvers import SLOT_MODELS, fluid_makespan
from solvers.base import Stopwatch
from solvers.ordering.admission_orders import johnson_admission, submission_order

__all__ = ["DEFAULT_K", "PLAN_VERSION", "SLOT_STRATEGIES", "STRATEGIES", "VM_STRATEGIES", "Plan", "make_plan"]


@dataclass(frozen=True)
class Plan:
    """A plan: a slot plan (split of the slots, admission order and limit k) or a VM-level plan
    (phases of jobs on VMs).

    ``map_slots`` and ``reduce_slots`` are cluster totals (s_m + s_r = S); on
    the nodes they are spread evenly, the first (s_m mod nodes) nodes taking
    one more map slot (`node_map_slots`). ``order`` names the jobs in admission
    order. ``predicted_makespan`` is the fluid model's; ``baseline_makespan``
    the same model's for the cluster as configured, jobs in submission order.
    ``curve[i]`` is the predicted makespan with i + 1 map slots in this order.

    VM-level plans ("pairs", "packing") keep the slots as configured and no
    curve; ``phases`` run one after another, each a tuple of (job name, VMs,
    role) with role "primary", "host" or "extra"; ``order`` lists the jobs in
    phase order; ``predicted_makespan`` is the sum of phase lengths and
    ``baseline_makespan`` every job alone on all N VMs, one after another.
    ``bound`` and ``gap`` are the solver's proven bound and relative gap (None
    where the method proves none).

    ``robust`` is set when the plan was chosen by simulation (`make_plan(...,
    robust=True)`): how (runs, noise, seed, the statistic), the chosen
    candidate and every candidate's prediction, simulated mean and p90.
    """

    strategy: str
    model: str
    k: int
    map_slots: int
    reduce_slots: int
    order: tuple[str, ...]
    predicted_makespan: float
    baseline_makespan: float
    status: str
    solver: str
    seconds: float
    workload_fingerprint: str
    cluster_fingerprint: str
    curve: tuple[float, ...] = field(default=(), repr=False)
    phases: Phases = ()
    bound: float | None = None
    gap: float | None = None
    robust: dict[str, Any] | None = None
    objective: str = "makespan"
    ready_now: bool = False
    window: float | None = None
    ordering: dict[str, Any] | None = None
    version: int = PLAN_VERSION

    def node_map_slots(self, nodes: int) -> list[int]:
        return node_slots(self.map_slots, self.reduce_slots, nodes)[0]

    def matches(self, workload: Workload, cluster: Cluster) -> bool:
        """Whether the plan was made for exactly this workload and cluster."""
        return (self.workload_fingerprint, self.cluster_fingerprint) == (
            workload_fingerprint(workload),
            cluster_fingerprint(cluster),
        )

    def summary(self) -> dict[str, Any]:
        """One flat record (no curve, order shortened)."""
        shown = ", ".join(self.order[:6]) + (f", ... ({len(self.order)} jobs)" if len(self.order) > 6 else "")
        gain = 1.0 - self.predicted_makespan / self.baseline_makespan if self.baseline_makespan > 0 else 0.0
        return {
            "strategy": self.strategy,
            "model": self.model,
            "k": self.k,
            "map_slots": self.map_slots,
            "reduce_slots": self.reduce_slots,
            "predicted_makespan": self.predicted_makespan,
            "baseline_makespan": self.baseline_makespan,
            "predicted_gain": gain,
            "status": self.status,
            "solver": self.solver,
            "seconds": self.seconds,
            "bound": self.bound,
            "gap": self.gap,
            "phases": len(self.phases),
            "selection": self.selection,
            "objective": self.objective,
            "ready_now": self.ready_now,
            "window": self.window,
            "ordering_status": None if self.ordering is None else self.ordering["status"],
            "order": shown,
        }

    @property
    def selection(self) -> str:
        """How the plan was chosen, in words."""
        if self.robust is None:
            return "solver optimum" if not self.phases else f"solver ({self.status})"
        return (f"robust: best simulated p90 of {len(self.robust['candidates'])} candidates "
                f"({self.robust['runs']} runs, noise {self.robust['noise']:g}): {self.robust['chosen']}")

    def phase_records(self, workload: Workload | None = None, cluster: Cluster | None = None) -> list[dict[str, Any]]:
        """One flat record per placement (phase, job, vms, role), for tables and DataFrames; with the
        workload and cluster, also the job's predicted ``seconds`` there (alpha x F_j(vms) for hosts
        and extras). Phases are numbered from 0, as in the file (``phases[0]``)."""
        if workload is not None and cluster is not None:
            workload = _profiled(workload, cluster)
        jobs = {job.name: job for job in workload} if workload is not None else {}
        records = []
        for p, phase in enumerate(self.phases):
            for name, vms, role in phase:
                record: dict[str, Any] = {"phase": p, "job": name, "vms": vms, "role": role}
                if cluster is not None and name in jobs:
                    record["seconds"] = placement_seconds(jobs[name], vms, role, cluster)
                records.append(record)
        return records

    def evaluate_phases(self, workload: Workload, cluster: Cluster) -> float:
        """Check the phases against every rule of the packing model on ``cluster`` (capacity, hosts,
        roles, every job once; `InvalidPlan` naming the rule) and return their total length."""
        return evaluate_plan_phases(self.phases, _profiled(workload, cluster), cluster)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["order"] = list(self.order)
        data["curve"] = list(self.curve)
        data["phases"] = [[list(entry) for entry in phase] for phase in self.phases]
        return data

    @classmethod
    def from_dict(cls, data: object) -> Plan:
        """Strictly, naming the field path of any problem; version 1 files load too (`plan_io`)."""
        return cls(**plan_fields(data, tuple(cls.__dataclass_fields__)))

    def to_file(self, path: str | Path) -> None:
        """Write the plan as JSON, atomically."""
        if Path(path).suffix.lower() != ".json":
            raise InvalidInput("path", f"plans are JSON files; got {Path(path).name!r}", source=str(path))
        write_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def from_file(cls, path: str | Path) -> Plan:
        data = read_mapping(path)
        try:
            return cls.from_dict(data)
        except InvalidInput as error:
            raise error.in_file(str(path)) from None


def make_plan(
    workload: Workload,
    cluster: Cluster,
    strategy: str = "slots+johnson",
    *,
    k: int = DEFAULT_K,
    model: str = "fresh",
    solver: str | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
    seed: int = 0,
    robust: bool = False,
    runs: int = ROBUST_RUNS,
    noise: float = DEFAULT_NOISE,
    executor: Any = None,
    progress: Progress = False,
    objective: str = "makespan",
    ready_now: bool = False,
    window: float | None = None,
) -> Plan:
    """A plan for the batch.

    Slot strategies (``k`` and ``model`` apply; ``solver`` is refused):

    - "slots": jobs in submission order; the best split of the cluster's S slots
      (`configure_slots`, FRESH Algorithm 1);
    - "johnson": Johnson's order on stage times map_work / total map slots and
      reduce_work / total reduce slots of the cluster as configured, keeping
      its split;
    - "slots+johnson": that Johnson order, then the best split for it.

    VM-level strategies (every job needs a runtime profile; ``solver`` names a
    registered method, "milp" by default; ``time_limit`` in seconds and
    ``seed`` go to it; ``k`` and ``model`` are recorded as given):

    - "pairs": `schedule_pairs`: pairs of jobs, each run sequentially,
      concurrently on a split of the N VMs or overcommitted; an odd one alone;
    - "packing": `pack_phases`: multi-phase overcommit packing.

    ``robust=True`` (slot strategies): instead of the fluid optimum, the
    candidate plan (both admission orders, both fluid models, splits within
    5% of each optimum; `planner.plans.robust`) with the best simulated 90th
    percentile makespan over ``runs`` runs on batches biased by up to
    ``noise`` (seeded by ``seed``; `executor` and `progress` go to `sweep`).
    The plan says so in ``robust`` and `selection`. Otherwise ``progress`` hears each fluid
    curve's splits (`planner.plans.curves.SlotCurves`: a production day's take minutes).

    Time (slot strategies; `planner.plans.arrivals`): jobs are released at their ``submit``
    times unless ``ready_now``; ``window`` is the batch window's end (absolute seconds), the due
    date of jobs without a ``deadline``; ``objective`` ("makespan", "max_lateness" or
    "late_jobs") is what the order minimizes. With releases or a deadline objective the order
    ("johnson", "slots+johnson") comes from the two-stage flow shop with release dates, solved
    within ``time_limit`` (the plan's ``ordering`` records the solve); "slots" keeps submission
    order. VM plans and robust plans treat every job as ready at 0 and say so (``ready_now``).
    """
    strategy = as_str(strategy, "strategy", choices=STRATEGIES)
    model = as_str(model, "model", choices=SLOT_MODELS)
    k = as_int(k, "k", minimum=1)
    time_limit = as_float(time_limit, "time_limit", above=0.0)
    seed = as_int(seed, "seed", minimum=0)
    if not isinstance(robust, bool):
        raise InvalidInput("robust", f"must be true or false, got {robust!r}")
    if not isinstance(ready_now, bool):
        raise InvalidInput("ready_now", f"must be true or false, got {ready_now!r}")
    objective = as_str(objective, "objective", choices=OBJECTIVES)
    window = arrivals.check_window(window)
    timing = {"objective": objective, "window": window}
    if strategy in VM_STRATEGIES:
        if robust:
            raise InvalidInput("robust", f"applies to the slot strategies ({', '.join(SLOT_STRATEGIES)}), "
                               f"not {strategy!r}")
        arrivals.makespan_only(objective, strategy)
        arrivals.warn_vm_arrivals(workload, ready_now)
        return replace(_vm_plan(workload, cluster, strategy, k=k, model=model, solver=check_solver(strategy, solver),
                                time_limit=time_limit, seed=seed), ready_now=True, **timing)
    if solver is not None:
        raise InvalidInput("solver", f"applies to the {' and '.join(VM_STRATEGIES)} strategies only, not {strategy!r}")
    if robust:
        arrivals.makespan_only(objective, "--robust")
        arrivals.warn_vm_arrivals(workload, ready_now, "robust plans")
        return replace(arrivals.warn_task_floor(_robust_plan(workload, cluster, strategy, k=k, runs=as_int(
            runs, "runs", minimum=2, maximum=MAX_RUNS), noise=check_noise(noise), seed=seed, executor=executor,
            progress=progress), workload), ready_now=True, **timing)
    jobs = list(workload)
    total = cluster.total_slots
    submitted = submission_order(workload)
    releases = arrivals.releases_of(workload, ready_now)
    due = arrivals.due_dates(workload, window, ready_now)
    curves = SlotCurves(jobs, total, k, model, releases, progress)
    baseline = fluid_makespan(jobs, cluster.total_map_slots, cluster.total_reduce_slots, k, submitted, model,
                              releases=releases)
    if strategy == "slots":
        arrivals.makespan_only(objective, "\"slots\" (submission order)")
        order, ordering = submitted, None
    elif releases is None and objective == "makespan":
        order, ordering = johnson_admission(workload, cluster), None
    else:
        order, ordering = arrivals.release_order(workload, cluster, releases=releases, due=due, objective=objective,
                                                 time_limit=time_limit, seed=seed)
        order, ordering = arrivals.no_worse_than_submission(order, ordering, submitted, curves.plan)
    best = curves.plan(order)
    if strategy == "johnson":
        map_slots = cluster.total_map_slots
        predicted = float(best.makespans[map_slots - 1])
        # the split is the cluster's, not searched: configure_slots' bound is for another split
        status, solver_name, seconds, bound, gap = "optimal", "johnson", best.seconds, None, None
    else:
        map_slots, predicted = best.map_slots, best.makespan
        status, solver_name, seconds, bound, gap = str(best.status), best.solver, best.seconds, best.bound, best.gap
    return arrivals.warn_task_floor(Plan(
        strategy=strategy,
        model=model,
        k=k,
        map_slots=map_slots,
        reduce_slots=total - map_slots,
        order=tuple(jobs[i].name for i in order),
        predicted_makespan=predicted,
        baseline_makespan=baseline,
        status=status,
        solver=solver_name,
        seconds=seconds,
        workload_fingerprint=workload_fingerprint(workload),
        cluster_fingerprint=cluster_fingerprint(cluster),
        curve=tuple(float(v) for v in np.asarray(best.makespans)),
        bound=None if bound is None else float(bound),
        gap=None if gap is None else float(gap),
        ready_now=ready_now,
        ordering=ordering,
        **timing,
    ), workload)


def _profiled(workload: Workload, cluster: Cluster) -> Workload:
    """Jobs without a runtime profile get the one planning derived for them (deterministic)."""
    from models.profiles.derived import with_wave_profiles  # scikit-learn: only for VM plans

    return with_wave_profiles(workload, cluster)[0]


def _vm_plan(
    workload: Workload, cluster: Cluster, strategy: str, *, k: int, model: str, solver: str, time_limit: float,
    seed: int,
) -> Plan:
    if not len(workload):
        raise InvalidInput("jobs", "need at least one job")
    jobs = list(derived_profiles(workload, cluster))
    schedule = solve_vm(jobs, cluster, strategy, solver, time_limit=time_limit, seed=seed)
    warn_extrapolation(schedule.phases, jobs)
    return Plan(
        strategy=strategy,
        model=model,
        k=k,
        map_slots=cluster.total_map_slots,
        reduce_slots=cluster.total_reduce_slots,
        order=tuple(name for phase in schedule.phases for name, _, _ in phase),
        predicted_makespan=schedule.objective,
        baseline_makespan=schedule.baseline,
        status=schedule.status,
        solver=schedule.solver,
        seconds=schedule.seconds,
        workload_fingerprint=workload_fingerprint(workload),
        cluster_fingerprint=cluster_fingerprint(cluster),
        phases=schedule.phases,
        bound=schedule.bound,
        gap=schedule.gap,
    )


def _robust_plan(
    workload: Workload, cluster: Cluster, strategy: str, *, k: int, runs: int, noise: float, seed: int,
    executor: Any, progress: Progress,
) -> Plan:
    clock = Stopwatch()
    if len(workload) == 0:
        raise InvalidInput("jobs", "need at least one job")
    candidates = robust_candidates(workload, cluster, strategy, k)
    chosen, records = choose_robust(candidates, workload, cluster, strategy, k, runs=runs, noise=noise, seed=seed,
                                    executor=executor, progress=progress)
    baseline = fluid_makespan(list(workload), cluster.total_map_slots, cluster.total_reduce_slots, k,
                              submission_order(workload), chosen.model)
    optimum = min(chosen.curve)
    if strategy != "johnson":
        strategy = "slots+johnson" if chosen.ordering == "johnson" else "slots"
    measured = records[candidates.index(chosen)]
    return Plan(
        strategy=strategy,
        model=chosen.model,
        k=k,
        map_slots=chosen.map_slots,
        reduce_slots=cluster.total_slots - chosen.map_slots,
        order=chosen.order,
        predicted_makespan=chosen.predicted,
        baseline_makespan=baseline,
        status="optimal" if strategy == "johnson" or chosen.predicted <= optimum else "feasible",
        solver=f"robust-p90/fluid-{chosen.model}",
        seconds=clock.seconds,
        workload_fingerprint=workload_fingerprint(workload),
        cluster_fingerprint=cluster_fingerprint(cluster),
        curve=chosen.curve,
        # "johnson" searches no split: the curve's optimum is another split's (as in make_plan)
        bound=None if strategy == "johnson" else optimum,
        gap=None if strategy == "johnson" else
        (chosen.predicted - optimum) / chosen.predicted if chosen.predicted > 0 else 0.0,
        robust={"runs": runs, "noise": noise, "seed": seed, "statistic": "p90", "chosen": chosen.label(),
                "p90": measured["p90"], "mean": measured["mean"], "candidates": records},
    )
