"""Making a plan (`make_plan`): the strategies, from the solvers' optimum or chosen by simulation.

Slot plans (FRESH: split of the slots, admission order and limit) and VM-level plans (Packing
paper: pairs or phases of jobs on VMs) are both `planner.plans.plan.Plan` records. The pieces:
`planner.planning.curves` (fluid makespan-vs-split curves), `arrivals` (release dates, windows
and deadline orders), `robust` (candidates chosen by simulated p90) and `vm` (pair and packing
solutions turned into phases).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from models import Cluster, InvalidInput, Workload
from models.checks import as_bool, as_float, as_instance, as_int, as_str
from models.fingerprints import cluster_fingerprint, workload_fingerprint
from planner.defaults import DEFAULT_K, DEFAULT_NOISE, DEFAULT_TIME_LIMIT, ROBUST_RUNS
from planner.limits import MAX_RUNS, MAX_SEED
from planner.planning import arrivals, pipelines
from planner.planning.curves import SlotCurves
from planner.planning.robust import choose_robust, robust_candidates
from planner.planning.vm import check_solver, derived_profiles, solve_vm, warn_extrapolation
from planner.plans.files import OBJECTIVES, SLOT_STRATEGIES, STRATEGIES
from planner.plans.phases import VM_STRATEGIES
from planner.plans.plan import Plan
from planner.proof.setups import all_ready
from planner.proof.sweep import ExecutorChoice, ProgressOption
from planner.proof.validate import check_noise
from solvers import MAX_TIME_LIMIT, SLOT_MODELS, fluid_makespan
from solvers.base import Stopwatch
from solvers.ordering.admission_orders import johnson_admission, submission_order
from solvers.packing.precedence import precedence_pairs
from solvers.pairs.problem import refuse_dependencies

__all__ = ["make_plan"]


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
    executor: ExecutorChoice = None,
    progress: ProgressOption = False,
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
    5% of each optimum; `planner.planning.robust`) with the best simulated 90th
    percentile makespan over ``runs`` runs on batches biased by up to
    ``noise`` (seeded by ``seed``; `executor` and `progress` go to `sweep`).
    The plan says so in ``robust`` and `selection`. Otherwise ``progress`` hears each fluid
    curve's splits (`planner.planning.curves.SlotCurves`; a large batch's best split comes from a
    bounded search of a few hundred splits, and its plan keeps no curve: ``curve`` is empty).

    Time (slot strategies; `planner.planning.arrivals`): jobs are released at their ``submit``
    times unless ``ready_now``; ``window`` is the batch window's end (absolute seconds), the due
    date of jobs without a ``deadline``; ``objective`` ("makespan", "max_lateness" or
    "late_jobs") is what the order minimizes. With releases or a deadline objective the order
    ("johnson", "slots+johnson") comes from the two-stage flow shop with release dates, solved
    within ``time_limit`` (the plan's ``ordering`` records the solve); "slots" keeps submission
    order. A batch with dependencies is ordered as the flow shop with precedence and release dates
    (`solvers.ordering.precedence`), releases or not; submission order puts each job after those it
    waits for. VM plans and robust plans treat every job as ready at 0 and say so (``ready_now``).
    """
    as_instance(workload, Workload, "workload")
    as_instance(cluster, Cluster, "cluster")
    strategy = as_str(strategy, "strategy", choices=STRATEGIES)
    model = as_str(model, "model", choices=SLOT_MODELS)
    k = as_int(k, "k", minimum=1)
    time_limit = as_float(time_limit, "time_limit", above=0.0, maximum=MAX_TIME_LIMIT)
    seed = as_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    robust = as_bool(robust, "robust")
    ready_now = as_bool(ready_now, "ready_now")
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
    submitted = pipelines.respecting(workload, submission_order(workload))
    releases = arrivals.releases_of(workload, ready_now)
    due = arrivals.due_dates(workload, window, ready_now)
    if window is not None and len(workload):
        night = all_ready(workload) if ready_now else workload
        arrivals.check_window_reachable(window, arrivals.batch_bounds(night, total, window))
    # the cluster's split: the baseline's (submission order) and a "johnson" plan's
    curves = SlotCurves(jobs, total, k, model, releases, progress, also=(cluster.total_map_slots,))
    if strategy == "slots":
        arrivals.makespan_only(objective, "\"slots\" (submission order)")
        order, ordering = submitted, None
    elif workload.has_dependencies:  # the orders kept where the dependencies allow, and the critical path's
        order, ordering = _pipeline_order(workload, cluster, strategy, releases=releases, due=due,
                                          objective=objective, time_limit=time_limit, seed=seed)
        if strategy == "slots+johnson":
            from solvers.ordering.two_stage import stage_times

            a, b = stage_times(jobs, cluster.total_map_slots, cluster.total_reduce_slots)
            order, ordering = arrivals.no_worse_than_submission(
                order, ordering, submitted, curves.best,
                lambda o: pipelines.two_stage_values(a, b, releases, due, o, workload)["makespan"])
    elif releases is None and objective == "makespan":
        order, ordering = johnson_admission(workload, cluster), None
    else:
        order, ordering = arrivals.release_order(workload, cluster, releases=releases, due=due, objective=objective,
                                                 time_limit=time_limit, seed=seed)
        from solvers.ordering.releases import release_schedule
        from solvers.ordering.two_stage import stage_times

        a, b = stage_times(jobs, cluster.total_map_slots, cluster.total_reduce_slots)
        order, ordering = arrivals.no_worse_than_submission(
            order, ordering, submitted, curves.best,
            lambda o: release_schedule(a, b, np.zeros(len(jobs)) if releases is None else releases, o).makespan)
    best = curves.best(order)
    baseline = curves.value(submitted, cluster.total_map_slots)
    if strategy == "johnson":
        map_slots = cluster.total_map_slots
        predicted = curves.value(order, map_slots)
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
        pipeline=workload.has_dependencies,
        cluster_fingerprint=cluster_fingerprint(cluster),
        curve=tuple(float(v) for v in np.asarray(best.makespans)),
        bound=None if bound is None else float(bound),
        gap=None if gap is None else float(gap),
        ready_now=ready_now,
        ordering=ordering,
        **timing,
    ), workload)


def _pipeline_order(workload: Workload, cluster: Cluster, strategy: str, *, releases: np.ndarray | None,
                    due: np.ndarray | None, objective: str, time_limit: float, seed: int) -> tuple[list[int], dict]:
    """A slot plan's order when jobs wait for jobs (`planner.planning.pipelines`): "johnson" is
    Johnson's order kept where the dependencies allow; "slots+johnson" the best, by the two-stage
    model with dependencies, of that, the critical-path order and the order solver's."""
    # The order solver of the flow shop with precedence (`pipelines.solver_order`) is one of the
    # candidates: it is not asked twice through the release model's order.
    proposed, proposer = johnson_admission(workload, cluster), "Johnson's order"
    if strategy == "johnson":
        return pipelines.pipeline_order(workload, cluster, proposed, proposer, releases=releases, due=due,
                                        objective=objective, time_limit=time_limit, seed=seed, repaired_only=True)
    return pipelines.pipeline_order(workload, cluster, proposed, proposer, releases=releases, due=due,
                                    objective=objective, time_limit=time_limit, seed=seed)


def _vm_plan(
    workload: Workload, cluster: Cluster, strategy: str, *, k: int, model: str, solver: str, time_limit: float,
    seed: int,
) -> Plan:
    if not len(workload):
        raise InvalidInput("jobs", "need at least one job")
    if strategy == "pairs":  # before profiles are derived: the pair model cannot honour dependencies
        refuse_dependencies(list(workload))
    else:  # packing refuses a dependency's delay
        precedence_pairs(list(workload))
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
        pipeline=workload.has_dependencies,
        cluster_fingerprint=cluster_fingerprint(cluster),
        phases=schedule.phases,
        bound=schedule.bound,
        gap=schedule.gap,
    )


def _robust_plan(
    workload: Workload, cluster: Cluster, strategy: str, *, k: int, runs: int, noise: float, seed: int,
    executor: ExecutorChoice, progress: ProgressOption,
) -> Plan:
    clock = Stopwatch()
    if len(workload) == 0:
        raise InvalidInput("jobs", "need at least one job")
    candidates = robust_candidates(workload, cluster, strategy, k)
    chosen, records = choose_robust(candidates, workload, cluster, strategy, k, runs=runs, noise=noise, seed=seed,
                                    executor=executor, progress=progress)
    baseline = fluid_makespan(list(workload), cluster.total_map_slots, cluster.total_reduce_slots, k,
                              pipelines.respecting(workload, submission_order(workload)), chosen.model)
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
        pipeline=workload.has_dependencies,
        cluster_fingerprint=cluster_fingerprint(cluster),
        curve=chosen.curve,
        # "johnson" searches no split: the curve's optimum is another split's (as in make_plan)
        bound=None if strategy == "johnson" else optimum,
        gap=None if strategy == "johnson" else
        (chosen.predicted - optimum) / chosen.predicted if chosen.predicted > 0 else 0.0,
        robust={"runs": runs, "noise": noise, "seed": seed, "statistic": "p90", "chosen": chosen.label(),
                "p90": measured["p90"], "mean": measured["mean"], "candidates": records},
    )
