"""Validation: a plan run through the simulator many times under profile noise, against baselines.

The fluid models behind a plan see exact profiles and no cluster: no
heartbeats, no data locality, no task granularity. `validate` measures what
that costs. Each run draws an independent bias for every job, a factor
``1 + u`` with ``u`` uniform in [-noise, +noise] (FRESH evaluated its plans
with +-30% profile errors), applied to its map and reduce task times and to
its runtime profile, and simulates the plan and every baseline on the same
biased batch (common random numbers: run r of every configuration sees the
same biases and the same simulation seed, so their differences are the
configurations' own).

The batch is tonight's: the jobs arrive at their submit times, as the plan
assumed, and the plan (and its curve points) submits them by its strict
schedule (`planner.io.hadoop.applied.submission_schedule`: in its order, never
before a job's arrival); a plan made with ``ready_now`` (and VM plans, robust
plans, plan files before version 4) runs every job from time 0. Each run
counts the jobs that finish after their deadline (or the batch window's end,
``plan.window``), and each configuration reports the mean of those misses and
the fraction of runs whose last job finishes by the window. Makespans count from
the batch's first arrival, however late a setup submits its first job.

- Slot plans ("slots", "slots+johnson") run under FRESH-static with the
  plan's split, admission order and k; "johnson" plans under FIFO in the
  plan's order on the cluster's split (FIFO has no admission limit, so their
  prediction here is the fluid model with k = 1, `fluid_curve`). Baselines: Fair with static map:reduce
  ratios 1:3, 2:2 and 3:1 of the same total, the dynamic schedulers on the same
  total as untyped containers (Fair, and FRESH with dynamic slots, the plan's k
  and order; no prediction: the fluid models are of static splits), and FIFO in
  submission order on the cluster's split. The static baselines' predictions are
  the plan's fluid model in submission order, with every job admitted at once
  (k = jobs) for Fair and one at a time (k = 1) for FIFO.
- VM plans ("pairs", "packing") run through VM-level execution
  (`simulate_vms`) with phase barriers, and with backfill as a variant.
  Baseline: sequential execution, each job alone on all N VMs in submission
  order (predicted: the plan's ``baseline_makespan``).

The relative error of a prediction is ``(predicted - simulated mean) /
simulated mean``: positive when the model is pessimistic.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from models import Cluster, InvalidInput, Workload
from models.checks import as_bool, as_float, as_instance, as_int, as_paths, as_str
from models.fingerprints import cluster_fingerprint, workload_fingerprint
from planner.defaults import CURVE_SPLITS, DEFAULT_NOISE, LARGE_BATCH_TASKS
from planner.io.hadoop.conf import conf_files, hadoop_settings
from planner.limits import MAX_CURVE_SPLITS, MAX_RUNS
from planner.plans.arguments import check_planned
from planner.plans.files import TARGET_STRATEGY
from planner.plans.plan import Plan
from planner.proof.adaptive import AUTO, AutoRuns, in_rounds, runs_choice
from planner.proof.deployed import METRICS, Measured, deployed_setup, job_outcomes, measure, target_baselines
from planner.proof.setups import (
    Setup,
    exported_folder_setup,
    first_arrival,
    fluid_curve,
    plan_batch,
    planned_run,
    run_setup,
    slot_setups,
    vm_setups,
)
from planner.proof.sweep import ExecutorChoice, ProgressOption, Spec, sweep
from planner.simulator import SimResult, VmResult
from planner.simulator.effort import check_simulations
from planner.simulator.run import Run

#: Runs per point of the makespan-vs-map-slots curve (at most).
CURVE_RUNS = 10


def statistics(values: Sequence[float]) -> dict[str, float]:
    data = np.asarray(values, dtype=float)
    p5, p50, p90, p95 = np.percentile(data, [5, 50, 90, 95])
    return {"mean": float(data.mean()), "std": float(data.std(ddof=1)) if len(data) > 1 else 0.0,
            "p5": float(p5), "p50": float(p50), "p90": float(p90), "p95": float(p95)}


def _mean(records: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in records if r[key] is not None]
    return float(np.mean(values)) if values else None


def summarize(setup: Setup, samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The flat record of one configuration over its runs."""
    record = setup.record()
    stats = statistics([s["makespan"] for s in samples])
    record.update(runs=len(samples), **stats)
    predicted = setup.predicted
    record["error"] = None if predicted is None or stats["mean"] <= 0 else (predicted - stats["mean"]) / stats["mean"]
    record.update(mean_response=_mean(samples, "mean_response"), fairness=_mean(samples, "fairness"),
                  node_local=_mean(samples, "node_local"), deadline_misses=_mean(samples, "deadline_misses"),
                  by_window=None if setup.window is None else
                  sum(1 for s in samples if s["last_finish"] <= setup.window) / len(samples))
    return record


@dataclass(frozen=True)
class ValidationReport:
    """What `validate` measured: ``setups`` (one flat record per configuration: predicted,
    simulated mean, std, p5, p50, p90, p95, relative error, fairness, locality), ``samples``
    (one record per configuration and run), the plan's summary, ``kind`` ("slots" or "vms"),
    ``curve`` (the fluid prediction for 1..S-1 map slots, slot plans), the workload's name and
    job count and the cluster. ``seconds`` is the validation's wall time: the one field that is
    not a function of the inputs and the seed, so it is in neither `summary` nor `to_json`."""

    plan: dict[str, Any]
    kind: str
    runs: int
    noise: float
    seed: int
    seconds: float
    setups: list[dict[str, Any]]
    samples: list[dict[str, Any]] = field(repr=False)
    curve: list[float] = field(default_factory=list, repr=False)
    workload: str | None = None
    jobs: int | None = None
    cluster: dict[str, Any] | None = None
    #: The plan's whole admission order, and its phases as [(job, vms, role), ...] (VM plans).
    order: list[str] = field(default_factory=list)
    phases: list[list[tuple[str, int, str]]] = field(default_factory=list)
    #: The per-run measure the setups' mean and the paired comparisons are of (a target plan's
    #: objective, `planner.proof.deployed.METRICS`), and each job's outcome under the plan.
    metric: str = "makespan"
    jobs_outcome: list[dict[str, Any]] = field(default_factory=list, repr=False)
    #: Which jobs delayed the end: over the plan's runs, how often each job was on the simulated
    #: critical chain, held the last job, or was it (`planner.proof.critical.chain_counts`; a workload
    #: with dependencies and task-level runs only, else empty).
    critical_jobs: list[dict[str, Any]] = field(default_factory=list, repr=False)
    #: ``--runs auto``: the stopping rule, the runs after each round, the reason the runs stopped
    #: and each comparison's last look (`planner.proof.adaptive.in_rounds`); None for fixed runs.
    stopping: dict[str, Any] | None = None
    #: Whether the runs came in antithetic pairs (`planner.proof.setups.biased`): the paired
    #: comparisons then resample pairs.
    antithetic: bool = False

    def __post_init__(self) -> None:
        """Each field of its type and every number finite (a NaN or inf given is refused, naming the field)."""
        put = object.__setattr__
        for name in ("plan", "cluster"):
            if name == "plan" or self.cluster is not None:
                as_instance(getattr(self, name), dict, name)
        for name in ("setups", "samples", "curve", "order", "phases", "jobs_outcome", "critical_jobs"):
            as_instance(getattr(self, name), list, name)
        as_str(self.kind, "kind")
        as_str(self.metric, "metric")
        if self.workload is not None:
            as_str(self.workload, "workload")
        put(self, "runs", as_int(self.runs, "runs", minimum=0, maximum=MAX_RUNS))
        put(self, "noise", as_float(self.noise, "noise", minimum=0.0))
        put(self, "seed", as_int(self.seed, "seed", minimum=0))
        put(self, "seconds", as_float(self.seconds, "seconds", minimum=0.0))
        if self.jobs is not None:
            put(self, "jobs", as_int(self.jobs, "jobs", minimum=0))
        if self.stopping is not None:
            as_instance(self.stopping, dict, "stopping")
        put(self, "antithetic", as_bool(self.antithetic, "antithetic"))

    def setup(self, role: str) -> list[dict[str, Any]]:
        return [record for record in self.setups if record["role"] == role]

    @cached_property
    def paired(self) -> list[dict[str, Any]]:
        """The plan against each baseline, run for run (`planner.proof.paired`), computed once."""
        from planner.proof.paired import paired_comparisons

        return paired_comparisons(self)

    @property
    def planned(self) -> dict[str, Any]:
        return self.setup("plan")[0]

    @property
    def best_baseline(self) -> dict[str, Any]:
        """The baseline with the smallest simulated mean makespan (ties by name)."""
        return min(self.setup("baseline"), key=lambda r: (r["mean"], r["setup"]))

    def summary(self) -> dict[str, Any]:
        plan, best = self.planned, self.best_baseline
        return {
            "workload": self.workload, "strategy": self.plan["strategy"], "plan": plan["setup"],
            "predicted": plan["predicted"],
            "simulated_mean": plan["mean"],
            "p5": plan["p5"],
            "p95": plan["p95"],
            "error": plan["error"],
            "best_baseline": best["setup"],
            "baseline_mean": best["mean"],
            "gain": 1.0 - plan["mean"] / best["mean"] if best["mean"] > 0 else 0.0,
            "plan_wins": plan["mean"] <= min(r["mean"] for r in self.setup("baseline")),
            "measure": self.metric,
            "runs": self.runs,
            "stopped": None if self.stopping is None else self.stopping["reason"],
            "antithetic": self.antithetic,
            "noise": self.noise,
            "seed": self.seed,
        }

    def table(self) -> list[dict[str, Any]]:
        """The plan, variants and baselines (not the curve points) as flat records."""
        return [r for r in self.setups if r["role"] != "curve"]

    def brief(self) -> list[dict[str, Any]]:
        """`table` narrowed to a terminal: setup, predicted, mean, p5, p95, error, fairness, node-local,
        deadline misses (mean per run) and the fraction of runs done by the window (None without one)."""
        keys = ("setup", "predicted", "mean", "p5", "p95", "error", "fairness", "node_local", "deadline_misses",
                "by_window")
        return [{key: record[key] for key in keys} for record in self.table()]

    def to_dict(self) -> dict[str, Any]:
        """Everything but the wall time ``seconds``: a function of the inputs and the seed."""
        return {"summary": self.summary(), "plan": self.plan, "kind": self.kind, "setups": self.setups, "paired":
                self.paired, "samples": self.samples, "curve": self.curve, "jobs": self.jobs, "cluster":
                self.cluster, "order": self.order, "phases": self.phases, "metric": self.metric,
                "jobs_outcome": self.jobs_outcome, "critical_jobs": self.critical_jobs, "stopping": self.stopping,
                "antithetic": self.antithetic}

    def to_json(self) -> str:
        """`to_dict` as JSON text: the same inputs and seed give the same bytes."""
        return json.dumps(self.to_dict(), indent=1, sort_keys=True)


def validate(
    plan: Plan,
    workload: Workload,
    cluster: Cluster,
    *,
    runs: int | str | AutoRuns = AUTO,
    noise: float = DEFAULT_NOISE,
    seed: int = 0,
    executor: ExecutorChoice = None,
    curve_splits: int | None = None,
    progress: ProgressOption = False,
    hadoop_conf: Sequence[str | Path] | None = None,
    target: str | None = None,
    antithetic: bool | None = None,
) -> ValidationReport:
    """Run ``plan`` and its baselines ``runs`` times each on biased copies of tonight's batch
    (module docstring) and report predicted against simulated makespans. ``runs`` is a number, or
    "auto" (the default) or an `AutoRuns`: rounds of runs until every comparison with a baseline
    is settled (`planner.proof.adaptive`); the report's ``stopping`` says how many and why.
    ``antithetic`` runs come in mirrored pairs (`planner.proof.setups.biased`; the comparisons
    resample pairs): by default on with "auto", off with a number (which must then be even).

    ``curve_splits`` slot splits besides the plan's are also simulated (slot plans; at most
    ``min(runs, 10)`` runs each, the first round's with "auto") for the makespan-vs-map-slots
    figure; by default (None) `CURVE_SPLITS`, or none for a batch of more than
    `LARGE_BATCH_TASKS` tasks (`curve_splits_for`). A plan made without its whole fluid curve (a
    batch too large for it) and validated without curve points has no figure of the curve
    (``report.curve`` is empty) and its predictions are computed at their splits alone. ``executor`` goes to `sweep` (default: local processes);
    the report is the same on every executor for the same seed. ``hadoop_conf`` (Hadoop's
    configuration files, `hadoop_settings`) adds the cluster as configured as a baseline of slot
    plans: the batch run by the cluster's own scheduler, slots and nodes; a folder `planner
    export` wrote among them is run as the plan's variant "as exported (FOLDER)". ``target``
    names the target whose export is the plan's variant (default mrv1).

    A plan for a target (strategy "target", `planner.planning.deploy.plan_for_target`) is
    validated as it was chosen (`validate_target`): its configuration as exported against the
    configuration as it is, FIFO and Fair on the same resources, on its objective.
    """
    check_planned(plan, workload, cluster)
    runs = runs_for(runs, workload)
    antithetic = antithetic_choice(antithetic, runs)
    noise = check_noise(noise)
    seed = as_int(seed, "seed", minimum=0)
    curve_splits = curve_splits_for(workload, curve_splits)
    if hadoop_conf is not None:
        hadoop_conf = as_paths(hadoop_conf, "hadoop_conf")
        if hadoop_conf:
            conf_files(hadoop_conf, "hadoop_conf")  # an empty folder is no configuration: named here
    if target is not None:
        as_str(target, "target")
    check_plan(plan, workload, cluster)
    if plan.strategy == TARGET_STRATEGY:
        if target is not None and target != plan.target:
            raise InvalidInput("target", f"the plan was made for {plan.target}, not {target}: make one for {target}")
        return validate_target(plan, workload, cluster, runs=runs, noise=noise, seed=seed, executor=executor,
                               progress=progress, hadoop_conf=hadoop_conf, antithetic=antithetic)
    configs, exports = split_exports(hadoop_conf or [])
    night = plan_batch(plan, workload, cluster)
    if plan.phases:
        kind, setups, curve = "vms", vm_setups(plan, night, cluster), []
    else:
        # a plan too large for its whole curve (`planner.planning.curves.CURVE_ENTRIES`) has none: without
        # curve points nothing needs it, and computing it would take minutes for a figure's line
        curve = fluid_curve(plan, workload) if plan.curve or curve_splits else []
        kind, setups = "slots", slot_setups(plan, workload, cluster, curve_splits, curve,
                                            target=target or "mrv1")
        for folder in exports:
            setups.insert(1, exported_folder_setup(folder, plan, workload, cluster))
        if configs:
            machines, scheduler, options = hadoop_settings(configs, cluster)
            as_configured = Setup("the cluster as configured", "baseline", None,
                                  Run(night, machines, scheduler, options=options), origin=first_arrival(night))
            setups.insert(2 if setups[1].role == "variant" else 1, as_configured)
    setups = [replace(setup, window=plan.window) for setup in setups]
    clock = time.perf_counter()
    auto = runs if isinstance(runs, AutoRuns) else None
    most, first_round = (runs, runs) if auto is None else (auto.schedule(pairs=antithetic)[-1], auto.first_round())
    curve_limit = min(first_round, CURVE_RUNS)  # figure only: the first round's runs
    check_simulations(((setup.run.effort("validate"), curve_limit if setup.role == "curve" else most)
                       for setup in setups), "validate")
    # the plan's runs also give each job's finish (its outcome per job); the others' do not
    # and, with dependencies, each run's simulated critical chain (a few names a run)
    chains = workload.has_dependencies
    collected: list[list[dict[str, Any]]] = [[] for _ in setups]

    def run_more(first: int, last: int) -> None:
        specs, owners = [], []
        for index, setup in enumerate(setups):
            for run in range(first, min(last, curve_limit) if setup.role == "curve" else last):
                specs.append(Spec(run_setup, (setup, noise, seed, run),
                                  {"finishes": setup.role == "plan",
                                   **({"chain": True} if chains and setup.role == "plan" else {}),
                                   **({"antithetic": True} if antithetic else {})},
                                  label=f"{setup.name} #{run}"))
                owners.append(index)
        made = sweep(specs, executor, progress=progress, description=f"validating ({len(specs)} runs)") if specs else []
        for index, sample in zip(owners, made, strict=True):
            collected[index].append(sample)

    stopping = None
    if auto is None:
        run_more(0, most)
    else:
        baselines = [index for index, setup in enumerate(setups) if setup.role == "baseline"]

        def comparisons() -> list[tuple[str, np.ndarray, np.ndarray]]:
            mine = np.array([sample["makespan"] for sample in collected[0]])
            return [(setups[index].name, mine, np.array([sample["makespan"] for sample in collected[index]]))
                    for index in baselines]

        stopping = in_rounds(auto, run_more, comparisons, "median", seed, antithetic)
    planned = Measured(setups[0].name, "plan", tuple(collected[0]))
    outcomes = job_outcomes(planned, night, plan.window)
    critical = critical_jobs(planned)
    samples = [{k: v for k, v in sample.items() if k not in ("finishes", "chain")} for per in collected
               for sample in per]
    records = [summarize(setup, [{k: v for k, v in sample.items() if k not in ("finishes", "chain")}
                                 for sample in per]) for setup, per in zip(setups, collected, strict=True)]
    return ValidationReport(plan=plan.summary(), kind=kind, runs=len(collected[0]), noise=noise, seed=seed,
                            seconds=time.perf_counter() - clock, setups=records, samples=samples,
                            curve=curve, workload=workload.name, jobs=len(workload), cluster=cluster.to_dict(),
                            order=list(plan.order), phases=[[tuple(p) for p in phase] for phase in plan.phases],
                            jobs_outcome=outcomes, critical_jobs=critical, stopping=stopping, antithetic=antithetic)


def runs_for(runs: object, workload: Workload) -> int | AutoRuns:
    """``runs`` as a validation of ``workload`` takes it (`runs_choice`); "auto" with its first round
    by the batch's size (`AutoRuns.for_batch`)."""
    chosen = runs_choice(runs)
    return chosen.for_batch(workload.tasks) if isinstance(chosen, AutoRuns) else chosen


def curve_splits_for(workload: Workload, curve_splits: object) -> int:
    """The other splits a slot plan's validation simulates for its figure: ``curve_splits`` (0 to
    `MAX_CURVE_SPLITS`), or when None `CURVE_SPLITS` for a batch of at most `LARGE_BATCH_TASKS`
    tasks and none for a larger one (a production day: the figure's points would cost as much as
    the comparisons)."""
    if curve_splits is None:
        return CURVE_SPLITS if workload.tasks <= LARGE_BATCH_TASKS else 0
    return as_int(curve_splits, "curve_splits", minimum=0, maximum=MAX_CURVE_SPLITS)


def antithetic_choice(antithetic: object, runs: int | AutoRuns) -> bool:
    """Antithetic pairs (`planner.proof.setups.biased`): by default with ``runs`` "auto" only; a fixed
    number of antithetic runs must be even (whole pairs)."""
    chosen = isinstance(runs, AutoRuns) if antithetic is None else as_bool(antithetic, "antithetic")
    if chosen and isinstance(runs, int) and runs % 2:
        raise InvalidInput("runs", f"antithetic runs come in pairs: give an even number, got {runs}")
    return chosen


def critical_jobs(planned: Measured) -> list[dict[str, Any]]:
    """Which jobs delayed the end over the plan's runs (`planner.proof.critical.chain_counts` of the
    runs' ``chain``); empty when the runs recorded none."""
    from planner.proof.critical import chain_counts

    chains = [sample["chain"] for sample in planned.samples if "chain" in sample]
    return chain_counts(chains) if chains else []


def check_noise(noise: object) -> float:
    """A bias bound in [0, 1): a bias of -100% would stop a job."""
    value = as_float(noise, "noise", minimum=0.0)
    if value >= 1.0:
        raise InvalidInput("noise", f"must be below 1 (a bias of -100% would stop a job), got {noise!r}")
    return value


def check_plan(plan: Plan, workload: Workload, cluster: Cluster) -> None:
    """The plan must have been made for this workload and cluster (its fingerprints)."""
    if plan.workload_fingerprint != workload_fingerprint(workload):
        raise InvalidInput("workload_fingerprint", "the plan was made for another workload (its jobs or their "
                           "times differ); make a new plan for this one")
    if plan.cluster_fingerprint != cluster_fingerprint(cluster):
        raise InvalidInput("cluster_fingerprint", "the plan was made for another cluster; make a new plan for this one")
    names = [job.name for job in workload]
    if sorted(plan.order) != sorted(names):
        unknown = sorted(set(plan.order) - set(names)) or sorted(set(names) - set(plan.order))
        raise InvalidInput("order", f"must name each of the workload's {len(names)} jobs once; "
                           f"{unknown[0]!r} is {'not a job' if unknown[0] not in names else 'missing'}")
    if not plan.phases:
        total = cluster.total_slots
        if plan.map_slots + plan.reduce_slots != total:
            raise InvalidInput("map_slots", f"{plan.map_slots} + reduce_slots {plan.reduce_slots} must make the "
                               f"cluster's {total} slots")
        if plan.curve and len(plan.curve) != total - 1:
            raise InvalidInput("curve", f"has {len(plan.curve)} points; {total} slots need {total - 1}")


def example_run(plan: Plan, workload: Workload, cluster: Cluster, *, seed: int = 0,
                hadoop_conf: Sequence[str | Path] | None = None) -> SimResult | VmResult:
    """The plan simulated once on tonight's batch without bias (for Gantt charts and fairness over
    time): a `SimResult` for slot plans and plans for a target (as exported into the configuration
    it was made from, ``hadoop_conf``), a `VmResult` (phase barriers) for VM plans."""
    check_plan(plan, workload, cluster)
    if plan.strategy == TARGET_STRATEGY:
        run = target_run(plan, workload, cluster, hadoop_conf)
    else:
        run = planned_run(plan, workload, cluster)
    return run.simulate(as_int(seed, "seed", minimum=0))


def target_run(plan: Plan, workload: Workload, cluster: Cluster,
               hadoop_conf: Sequence[str | Path] | None = None) -> Run:
    """A plan for a target as it runs once applied: an exported folder among ``hadoop_conf`` read
    back, else its levers written into the configuration it was made from (``hadoop_conf``; the
    target's stock configuration when it was made without) and read back; the jobs in
    ``workload``'s order."""
    from planner.io.hadoop.conf import hadoop_run
    from planner.io.hadoop.merge import default_config, deployed_run, merged_files, read_current

    if plan.target is None or plan.levers is None:
        raise InvalidInput("strategy", "a target plan needs its target and levers")
    configs, exports = split_exports(hadoop_conf or [])
    if exports:
        run = hadoop_run([exports[0]], workload, cluster)  # the schedule keeps the workload's order
        _check_export(plan, run, workload, exports[0])
        return run
    made_from = (plan.simulated or {}).get("configuration")
    if not configs and made_from != "default":
        raise InvalidInput("hadoop_conf", f"the plan was made from {', '.join(made_from or [])}: give those files "
                                          "(or the folder `planner export` wrote) with --hadoop-conf")
    current = read_current(configs) if configs else default_config(plan.target, cluster)
    if current.fingerprint != plan.config_fingerprint:
        raise InvalidInput("hadoop_conf", "is not the configuration the plan was made from (fingerprints differ; "
                           f"it was made from {made_from if made_from != 'default' else 'the target default'})")
    return deployed_run(merged_files(current, plan.levers, workload, cluster, plan.target, ready_now=plan.ready_now),
                        workload, cluster)


def split_exports(paths: Sequence[str | Path]) -> tuple[list[Path], list[Path]]:
    """Hadoop configuration paths, and the folders among them that `planner export` wrote (they
    hold a submissions.tsv or phases.tsv)."""
    configs, exports = [], []
    for path in (Path(p) for p in paths):
        is_export = path.is_dir() and any((path / name).is_file() for name in ("submissions.tsv", "phases.tsv"))
        (exports if is_export else configs).append(path)
    if len(exports) > 1:
        raise InvalidInput("hadoop_conf", f"give one exported folder, got {len(exports)}", source=str(exports[1]))
    return configs, exports


def validate_target(
    plan: Plan, workload: Workload, cluster: Cluster, *, runs: int | str | AutoRuns = AUTO, noise: float = DEFAULT_NOISE,
    seed: int = 0, executor: ExecutorChoice = None, progress: ProgressOption = False,
    hadoop_conf: Sequence[str | Path] | None = None, antithetic: bool | None = None,
) -> ValidationReport:
    """A plan for a target, validated as it was chosen (`planner.proof.deployed`): its levers written
    into the configuration it was made from (``hadoop_conf``; the target's stock one when it was made
    without), read back and simulated ``runs`` times (a number, or "auto" / an `AutoRuns`: in rounds
    until every comparison is settled, `planner.proof.adaptive`), paired with the configuration as it is and
    FIFO and Fair on the same resources, measured by the plan's objective. With the same runs,
    noise and seed the plan's mean is the figure `plan_for_target` printed. An exported folder
    among ``hadoop_conf`` is run as the plan instead (what is deployed); without the configuration
    it was made from, the "as configured" baseline is left out (the report says so in its setups).
    """
    from planner.io.hadoop.merge import default_config, deployed_run, merged_files, read_current
    from planner.plans.levers import Levers
    from planner.proof.setups import all_ready

    if plan.target is None or plan.levers is None or plan.simulated is None:
        raise InvalidInput("strategy", "a target plan needs its target, levers and simulated record")
    clock = time.perf_counter()
    planned = target_run(plan, workload, cluster, hadoop_conf)  # checks the configuration's fingerprint
    configs, exports = split_exports(hadoop_conf or [])
    made_from_default = plan.simulated.get("configuration") == "default"
    current = (read_current(configs) if configs else default_config(plan.target, cluster) if made_from_default
               else None)  # an exported folder alone: the configuration it was merged into is not known
    if current is not None and current.fingerprint != plan.config_fingerprint:
        raise InvalidInput("hadoop_conf", "is not the configuration the plan was made from (fingerprints differ)")
    night = all_ready(workload) if plan.ready_now else workload
    arrived = {job.name: job.submit for job in night}
    window = plan.window
    name = f"plan ({plan.simulated['chosen']}, as exported)" if exports else f"plan ({plan.simulated['chosen']})"
    setups = [deployed_setup(name, "plan", planned, night, window=window, arrivals=arrived)]
    resources = planned
    # the queues the baselines submit to: the configuration's (a plan may move jobs to a queue of its
    # own, the small-jobs queue); plan files from before they were recorded hold the plan's
    queues = plan.simulated.get("configured_queues") or plan.levers.queues
    if current is not None:
        resources = deployed_run(merged_files(current, Levers(queues=queues), workload, cluster,
                                              plan.target, ready_now=plan.ready_now), workload, cluster)
        setups.append(deployed_setup("as configured", "baseline", resources, night, window=window,
                                     arrivals=arrived))
    setups += target_baselines(night, resources, plan.target, queues, window=window, arrivals=arrived)
    objective = plan.objective
    runs = runs_for(runs, workload)
    antithetic = antithetic_choice(antithetic, runs)
    chains = workload.has_dependencies
    stopping = None
    if isinstance(runs, AutoRuns):
        check_simulations(((setup.run.effort("validating"), runs.schedule(pairs=antithetic)[-1]) for setup in setups),
                          "validating")
        measured = [Measured(setup.name, setup.role, ()) for setup in setups]

        def run_more(first: int, last: int) -> None:
            more = measure(setups, runs=last, first=first, noise=noise, seed=seed, executor=executor,
                           progress=progress, description="validating", chains=chains, antithetic=antithetic)
            measured[:] = [replace(old, samples=old.samples + new.samples)
                           for old, new in zip(measured, more, strict=True)]

        def comparisons() -> list[tuple[str, np.ndarray, np.ndarray]]:
            mine = measured[0].values(objective)
            return [(other.name, mine, other.values(objective)) for other in measured if other.role == "baseline"]

        stopping = in_rounds(runs, run_more, comparisons, "mean", seed, antithetic)
    else:
        measured = measure(setups, runs=runs, noise=noise, seed=seed, executor=executor, progress=progress,
                           description="validating", chains=chains, antithetic=antithetic)
    records = []
    for setup, result in zip(setups, measured, strict=True):
        record = {**setup.record(), **result.record(objective)}
        values = result.values(objective)
        stats = statistics(values)
        predicted = plan.simulated["mean"] if setup.role == "plan" else None
        # "predicted" is the planner's simulated figure, not a model's: no model error to report
        record.update(std=stats["std"], p50=stats["p50"], p90=stats["p90"], predicted=predicted, error=None,
                      fairness=_mean(list(result.samples), "fairness"),
                      node_local=_mean(list(result.samples), "node_local"),
                      deadline_misses=_mean(list(result.samples), "deadline_misses"),
                      by_window=record["p_window"])
        records.append(record)
    samples = [{k: v for k, v in sample.items() if k not in ("finishes", "chain")} for result in measured
               for sample in result.samples]
    return ValidationReport(plan=plan.summary(), kind="target", runs=len(measured[0].samples), noise=noise, seed=seed,
                            seconds=time.perf_counter() - clock, setups=records, samples=samples,
                            workload=workload.name, jobs=len(workload), cluster=cluster.to_dict(),
                            order=list(plan.order), metric=METRICS[objective],
                            jobs_outcome=job_outcomes(measured[0], night, window),
                            critical_jobs=critical_jobs(measured[0]), stopping=stopping, antithetic=antithetic)



def _check_export(plan: Plan, run: Run, workload: Workload, folder: str | Path) -> None:
    """An exported folder given for a plan for a target must be that plan's export: its target's
    kind of scheduler and resources, every job in the plan's queue at the plan's time."""
    from planner.io.hadoop.queue_map import scheduler_kind

    levers = plan.levers
    if levers is None or plan.target is None:
        return
    containers = bool(run.options is not None and run.options.containers)
    kind = scheduler_kind(run.scheduler)
    expected = {"mrv1": not containers, "yarn-fair": containers and kind == "fair",
                "yarn-capacity": containers and kind == "capacity"}.get(plan.target, False)
    if not expected:
        raise InvalidInput("hadoop_conf", f"is not an export for {plan.target} (it configures the {kind} scheduler "
                                          f"on {'containers' if containers else 'slots'}): not this plan's export",
                           source=str(folder))
    own = {job.name: 0.0 if plan.ready_now else job.submit for job in workload}
    for job in run.workload:
        queue, at = levers.queues.get(job.name), levers.submits.get(job.name, own[job.name])
        if (queue is not None and job.pool != queue) or abs(job.submit - at) > 1e-6:
            raise InvalidInput("hadoop_conf", f"is not this plan's export: job {job.name!r} is submitted at "
                                              f"{job.submit:g} s into {job.pool!r}, the plan says {at:g} s into "
                                              f"{queue!r}", source=str(folder))
