"""The configurations a validation simulates: the plan, its baselines, its variants and the
points of its makespan-vs-map-slots curve, each a `Setup` (a name, a role, a prediction and one
`Run`), and one biased run of one of them (`run_setup`).

See `planner.proof.validate` for what the runs mean; this module holds what each setup is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from models import Cluster, Job, Workload
from planner.io.hadoop.applied import PLAN_POOL, submission_schedule
from planner.io.targets import plan_run
from planner.plans.plan import Plan
from planner.simulator import Fair, Fifo, Fresh, Scheduler, SimOptions
from planner.simulator.run import Run
from solvers import configure_slots, fluid_makespan
from solvers.ordering.admission_orders import job_names, release_times, submission_order

#: Fair baselines: map slots are this many quarters of the total.
FAIR_RATIOS = ((1, 3), (2, 2), (3, 1))
#: The last entropy word of antithetic pairs (`biased`): their draws are none of the independent runs'.
ANTITHETIC = 2


@dataclass(frozen=True)
class ScaledProfile:
    """A runtime profile times a constant factor (a biased job's F(n))."""

    profile: Any
    factor: float

    def __call__(self, n: float) -> float:
        return self.factor * float(self.profile(n))


def all_ready(workload: Workload) -> Workload:
    """The workload with every job ready now: submitted at 0, in the file's order."""
    return Workload([job.with_changes(submit=0.0) for job in workload], name=workload.name)


def plan_batch(plan: Plan, workload: Workload, cluster: Cluster) -> Workload:
    """The batch a plan runs on: the jobs as they arrive, or all at 0 (`all_ready`) when the plan
    takes every job as ready now (``plan.ready_now``: plans made so, VM and robust plans, and
    plan files before version 4); for a VM plan, jobs without a runtime profile get the one
    planning derived from their tasks (deterministic: `with_wave_profiles`)."""
    night = all_ready(workload) if plan.ready_now else workload
    if not plan.phases:
        return night
    from models.profiles.derived import with_wave_profiles  # scikit-learn: only for VM plans

    return with_wave_profiles(night, cluster)[0]


def biased(workload: Workload, noise: float, seed: int, run: int, stream: int = 0, *,
           antithetic: bool = False) -> tuple[Workload, int]:
    """Run ``run``'s batch (every job's times and profile times 1 + U[-noise, noise]) and its
    simulation seed, both drawn from SeedSequence([seed, run]); another ``stream`` (> 0) draws
    from SeedSequence([seed, run, stream]): independent runs for the same seed (robust plans
    are chosen on stream 1, so that validating them on stream 0 is a fresh sample).

    ``antithetic``: runs come in pairs, 2m and 2m + 1, drawn from SeedSequence([seed, m, stream,
    `ANTITHETIC`]): run 2m's factors are 1 + u, run 2m + 1's are 1 - u (the mirror image), with the
    same simulation seed. A job that runs long in one runs short in the other, so a pair's mean
    varies less than two independent runs' (a variance reduction; the pair is then the
    independent unit, `planner.proof.paired.resampled`)."""
    if antithetic:
        bias_sequence, simulation_sequence = np.random.SeedSequence([seed, run // 2, stream, ANTITHETIC]).spawn(2)
        draws = np.random.default_rng(bias_sequence).uniform(-noise, noise, len(workload))
        factors = 1.0 - draws if run % 2 else 1.0 + draws
        jobs = [_scaled(job, float(factor)) for job, factor in zip(workload, factors, strict=True)]
        return Workload(jobs, name=workload.name), int(simulation_sequence.generate_state(1)[0])
    entropy = [seed, run] if stream == 0 else [seed, run, stream]
    bias_sequence, simulation_sequence = np.random.SeedSequence(entropy).spawn(2)
    factors = 1.0 + np.random.default_rng(bias_sequence).uniform(-noise, noise, len(workload))
    jobs = [_scaled(job, float(factor)) for job, factor in zip(workload, factors, strict=True)]
    return Workload(jobs, name=workload.name), int(simulation_sequence.generate_state(1)[0])


def _scaled(job: Job, factor: float) -> Job:
    profile = None if job.profile is None else ScaledProfile(job.profile, factor)
    return job.with_changes(map_time=job.map_time * factor, reduce_time=job.reduce_time * factor, profile=profile)


@dataclass(frozen=True)
class Setup:
    """One configuration to simulate: the plan, a baseline, a variant, a candidate or a point of the
    curve. ``run`` is its simulation on the unbiased batch (`run_setup` runs it on biased copies);
    ``window`` is the batch window's end (the due date of jobs without a deadline, for counting
    misses) and ``origin`` when makespans count from: the batch's first arrival, whenever this
    setup submits its first job (None: its own first submission); ``arrivals`` (job -> second)
    when each job arrived, where its response counts from (None: its submission in ``run``: a
    setup that holds a job back from its arrival must say so, or its responses look shorter)."""

    name: str
    role: str
    predicted: float | None
    run: Run
    window: float | None = None
    origin: float | None = None
    arrivals: Mapping[str, float] | None = None

    def record(self) -> dict[str, Any]:
        run = self.run
        scheduler = run.scheduler.name if run.scheduler is not None else ("vm-backfill" if run.backfill else "vm")
        return {"setup": self.name, "role": self.role, "scheduler": scheduler,
                "map_slots": run.slots[0] if run.slots else None,
                "reduce_slots": run.slots[1] if run.slots else None, "predicted": self.predicted}


def first_arrival(workload: Workload) -> float:
    """When the batch's first job arrives (0 for an empty one): where its makespans count from."""
    return min((job.submit for job in workload), default=0.0)


def run_setup(setup: Setup, noise: float, seed: int, run: int, stream: int = 0, *,
              finishes: bool = False, chain: bool = False, antithetic: bool = False) -> dict[str, Any]:
    """Simulate ``setup``'s run on run ``run``'s biased batch (of ``stream``, `biased`, antithetic
    or not): one flat record (with ``finishes``: and each job's finish, job -> second; with
    ``chain``: and the run's simulated critical chain, `planner.proof.critical.simulated_chain`,
    a task-level run's only)."""
    jobs, simulation_seed = biased(setup.run.workload, noise, seed, run, stream, antithetic=antithetic)
    origin = first_arrival(jobs) if setup.origin is None else setup.origin
    result = setup.run.with_workload(jobs).simulate(simulation_seed)
    record: dict[str, Any] = {"setup": setup.name, "run": run}
    if setup.run.phases:
        vm_finishes = [job["finish"] for job in result.jobs]
        record.update(makespan=result.makespan, mean_response=sum(vm_finishes) / len(vm_finishes),
                      fairness=None, node_local=None)
    else:
        record.update(makespan=max(job["finish"] for job in result.jobs) - origin if result.jobs else 0.0,
                      mean_response=result.mean_response, fairness=result.fairness,
                      node_local=result.locality["node"])
    finish = {job["name"]: job["finish"] for job in result.jobs}
    record["last_finish"] = max(finish.values(), default=0.0)
    due = {job.name: job.deadline if job.deadline is not None else setup.window for job in jobs}
    record["deadline_misses"] = sum(1 for name, at in due.items() if at is not None and finish[name] > at)
    record.update(job_measures(jobs, finish, due, setup.arrivals))
    if finishes:
        record["finishes"] = finish
    if chain and not setup.run.phases and result.jobs:
        from planner.proof.critical import simulated_chain

        record["chain"] = simulated_chain(result.jobs)
    return record


def job_measures(jobs: Workload, finish: Mapping[str, float], due: Mapping[str, float | None],
                 arrivals: Mapping[str, float] | None) -> dict[str, float | None]:
    """A run's per-job measures: the mean response counted from each job's arrival (``arrivals``,
    else its submission), the weighted one (job weights), and the largest lateness (finish - due,
    None when no job has a due date)."""
    since = arrivals if arrivals is not None else {job.name: job.submit for job in jobs}
    responses = [(finish[job.name] - since[job.name], job.weight) for job in jobs if job.name in finish]
    total_weight = sum(weight for _, weight in responses)
    lateness = [finish[name] - at for name, at in due.items() if at is not None and name in finish]
    return {"arrival_response": sum(r for r, _ in responses) / len(responses) if responses else 0.0,
            "weighted_response": sum(r * w for r, w in responses) / total_weight if responses else 0.0,
            "max_lateness": max(lateness) if lateness else None}


def resubmitted(workload: Workload, submits: Sequence[float] | None, pool: str | None = None) -> Workload:
    """``workload`` with the submit times ``submits`` (in its job order; None: its own) and, with
    ``pool``, every job in that pool at the default priority (an exported plan's run)."""
    if submits is None and pool is None:
        return workload
    at = submits if submits is not None else [job.submit for job in workload]
    pooled = {} if pool is None else {"pool": pool, "priority": 0}
    return Workload([job.with_changes(submit=when, **pooled) for job, when in zip(workload, at, strict=True)],
                    name=workload.name)


def plan_submits(plan: Plan, workload: Workload) -> tuple[float, ...] | None:
    """The plan's strict submission schedule (`planner.io.hadoop.applied.submission_schedule`) as submit
    times in the batch's job order; None for a plan that takes every job as ready now."""
    if plan.ready_now:
        return None
    at = {s.job: s.at for s in submission_schedule(plan, workload)}
    return tuple(at[job.name] for job in workload)


def slot_setups(plan: Plan, workload: Workload, cluster: Cluster, curve_splits: int,
                curve: Sequence[float] | None = None, *, target: str = "mrv1") -> list[Setup]:
    """The plan, the baselines and the curve points of a slot plan (module docstring), each run on
    the batch the plan runs on (`plan_batch`); ``curve`` is `fluid_curve`'s, when the caller has
    it (a "johnson" plan's takes minutes on a day's batch), or empty when it is not computed (the
    predictions are then `fluid_point`'s); the plan's variant is its export to ``target``."""
    jobs = list(workload)
    night = plan_batch(plan, workload, cluster)
    total = plan.map_slots + plan.reduce_slots
    if curve is None:
        curve = fluid_curve(plan, workload)

    def predicted_at(map_slots: int) -> float:  # an empty curve: not computed (a batch too large for it)
        return curve[map_slots - 1] if curve else fluid_point(plan, workload, map_slots)

    scheduler, label = planned_scheduler(plan.strategy, plan.k, plan.order)
    planned = resubmitted(night, plan_submits(plan, workload))
    setups = [Setup(f"plan ({label}, {plan.map_slots}:{plan.reduce_slots})", "plan", predicted_at(plan.map_slots),
                    Run(planned, cluster, scheduler, (plan.map_slots, plan.reduce_slots)))]
    exported = exported_setup(plan, workload, cluster, target)
    if exported is not None:
        setups.append(exported)
    order = submission_order(workload)
    releases = release_times(workload, plan.ready_now)  # the baselines see the arrivals the plan saw
    splits = set()
    for maps, reduces in FAIR_RATIOS:
        map_slots = min(max(1, round(total * maps / (maps + reduces))), total - 1)
        if map_slots in splits:  # on a few slots two ratios round to one split: run it once
            continue
        splits.add(map_slots)
        predicted = fluid_makespan(jobs, map_slots, total - map_slots, len(jobs), order, plan.model,
                                   releases=releases)
        setups.append(Setup(f"Fair {maps}:{reduces} ({map_slots}:{total - map_slots})", "baseline", predicted,
                            Run(night, cluster, Fair(), (map_slots, total - map_slots))))
    # Dynamic schedulers on the same slots, untyped: what a static split gives up (no prediction:
    # the fluid models are of static splits).
    same = (plan.map_slots, plan.reduce_slots)
    setups.append(Setup(f"Fair on containers ({total})", "baseline", None,
                        Run(night, cluster, Fair(), same, SimOptions(containers=True))))
    setups.append(Setup(f"FRESH dynamic (k={plan.k}, {total} containers)", "baseline", None,
                        Run(night, cluster, Fresh(k=plan.k, dynamic=True, order=list(plan.order)), same)))
    cluster_split = (cluster.total_map_slots, cluster.total_reduce_slots)
    predicted = fluid_makespan(jobs, *cluster_split, 1, order, plan.model, releases=releases)
    setups.append(Setup(f"FIFO, submission order ({cluster_split[0]}:{cluster_split[1]})", "baseline", predicted,
                        Run(night, cluster, Fifo(order=job_names(workload, order)), cluster_split)))
    for map_slots in curve_points(total, plan.map_slots, curve_splits):
        setups.append(Setup(f"curve {map_slots}:{total - map_slots}", "curve", predicted_at(map_slots),
                            Run(planned, cluster, scheduler, (map_slots, total - map_slots))))
    origin = first_arrival(night)  # whenever a setup submits its first job
    return [replace(setup, origin=origin) for setup in setups]


def exported_setup(plan: Plan, workload: Workload, cluster: Cluster, target: str = "mrv1") -> Setup | None:
    """The plan as its export to ``target`` runs it (`planner.io.targets.plan_run`; mrv1: a fair
    scheduler pool in FIFO mode with at most k running jobs), submitted in the plan's order, on the
    batch the plan runs on (in its job order); None for an mrv1 export of a "johnson" plan, which is
    the FIFO run the plan itself is."""
    if plan.strategy == "johnson" and target == "mrv1":
        return None
    exported = plan_run(plan, workload, cluster, target)  # a ready-now plan's schedule starts at 0
    at = {job.name: job.submit for job in exported.workload}
    night = resubmitted(plan_batch(plan, workload, cluster), [at[job.name] for job in workload], PLAN_POOL)
    limit = "" if plan.strategy == "johnson" or target == "yarn-capacity" else f", <= {plan.k} running jobs"
    return Setup(f"plan as exported ({target}{limit})", "variant", None,
                 Run(night, exported.cluster, exported.scheduler, exported.slots, exported.options))


def exported_folder_setup(folder: str | Path, plan: Plan, workload: Workload, cluster: Cluster) -> Setup:
    """The plan as an exported folder (`planner export`) runs it, read back as `planner simulate
    --hadoop-conf FOLDER` reads it, on the batch the plan runs on (in its job order)."""
    from planner.io.hadoop.conf import hadoop_run

    night = plan_batch(plan, workload, cluster)
    exported = hadoop_run([folder], night, cluster)  # its schedule keeps the batch's job order
    return Setup(f"plan as exported ({Path(folder).name})", "variant", None, exported, origin=first_arrival(night))


def planned_scheduler(strategy: str, k: int, order: Sequence[str]) -> tuple[Scheduler, str]:
    """The scheduler a slot plan runs under as planned (its exported files configure another:
    `planner.io.hadoop.applied`), and its label: FIFO in the plan's order for "johnson", FRESH-static
    with the plan's k and order otherwise. Runs simulate with copies (`Run.simulate`), so setups
    may share it."""
    if strategy == "johnson":
        return Fifo(order=list(order)), "FIFO, plan order"
    return Fresh(k=k, dynamic=False, order=list(order)), f"FRESH-static k={k}"


def planned_run(plan: Plan, workload: Workload, cluster: Cluster) -> Run:
    """A slot plan's run as planned, on the batch it runs on (`plan_batch`), or a VM plan's phases
    with barriers."""
    night = plan_batch(plan, workload, cluster)
    if plan.phases:
        return Run(night, cluster, phases=tuple(tuple(phase) for phase in plan.phases))
    scheduler, _ = planned_scheduler(plan.strategy, plan.k, plan.order)
    return Run(resubmitted(night, plan_submits(plan, workload)), cluster, scheduler,
               (plan.map_slots, plan.reduce_slots))


def _fluid_inputs(plan: Plan, workload: Workload) -> tuple[list[Job], int, list[int], list[float] | None]:
    """What the fluid prediction of a slot plan's runs reads: the jobs, k (1 for "johnson" plans,
    which run under FIFO: the fluid form of FIFO), the plan's order as job positions, and the
    release times the plan saw."""
    jobs = list(workload)
    index = {job.name: i for i, job in enumerate(jobs)}
    k = 1 if plan.strategy == "johnson" else plan.k
    return jobs, k, [index[name] for name in plan.order], release_times(workload, plan.ready_now)


def fluid_point(plan: Plan, workload: Workload, map_slots: int) -> float:
    """`fluid_curve`'s value at one split (``map_slots`` of the plan's slots): the same model,
    order and k, for a batch whose whole curve is not computed."""
    jobs, k, order, releases = _fluid_inputs(plan, workload)
    total = plan.map_slots + plan.reduce_slots
    return float(fluid_makespan(jobs, map_slots, total - map_slots, k, order, plan.model, releases=releases))


def fluid_curve(plan: Plan, workload: Workload) -> list[float]:
    """The fluid prediction of the plan's runs for 1..S-1 map slots: the plan's own curve, except
    for "johnson" plans, which run under FIFO (no admission limit): their curve is the same model
    with k = 1, one job per phase at a time, the fluid form of FIFO."""
    if plan.strategy != "johnson" and plan.curve:
        return list(plan.curve)
    jobs, k, order, releases = _fluid_inputs(plan, workload)
    solved = configure_slots(jobs, plan.map_slots + plan.reduce_slots, k, order, plan.model, releases=releases)
    return [float(v) for v in solved.makespans]


def curve_points(total: int, planned: int, count: int) -> list[int]:
    """``count`` map-slot counts spread over the middle of 1..total-1 (from an eighth of the
    slots to seven eighths: the extremes take long to simulate and no plan picks them),
    without the plan's own."""
    if count <= 0 or total < 3:
        return []
    edge = max(1, total // 8)
    points = {int(v) for v in np.rint(np.linspace(edge, total - edge, count))}
    return sorted(points - {planned})


def vm_setups(plan: Plan, workload: Workload, cluster: Cluster) -> list[Setup]:
    """A VM plan's phases with barriers and with backfill, and each job alone on all VMs in
    submission order, on ``workload`` (the batch the plan runs on, `plan_batch`)."""
    groups = tuple(tuple(phase) for phase in plan.phases)
    sequential = tuple(((name, cluster.vms, "primary"),) for name in job_names(workload, submission_order(workload)))
    return [
        Setup(f"plan ({plan.strategy}, {len(groups)} phases, barriers)", "plan", plan.predicted_makespan,
              Run(workload, cluster, phases=groups)),
        Setup(f"plan ({plan.strategy}, backfill)", "variant", None, Run(workload, cluster, phases=groups, backfill=True)),
        Setup("sequential (each job alone on all VMs)", "baseline", plan.baseline_makespan,
              Run(workload, cluster, phases=sequential)),
    ]
