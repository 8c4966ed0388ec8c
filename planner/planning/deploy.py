"""A plan made for a target: the levers of the cluster the operator runs, chosen by simulating what
is deployed, and never worse than the configuration as it is (`plan_for_target`).

The target ("mrv1", "yarn-fair", "yarn-capacity"; "spark": `planner.planning.spark_deploy`) says what runs the plan and so what it can
change (`planner.plans.levers.Levers`): the submission order and job priorities, queue policies
and weights, reduce slow-start, and only on mrv1 the per-node slot split. The plan starts from
the operator's configuration files (``hadoop_conf``), or the target's stock configuration for the
cluster when none is given (`planner.io.hadoop.merge.default_config`). Jobs go to the
configuration's queues by `planner.io.hadoop.merge.map_queues`'s rule (their pool, or
``queue_map``).

How the plan is chosen:

1. **Models propose** (`planner.planning.candidates.proposals`): FIFO in arrival order; Fair (on yarn-capacity, fair
   ordering in each queue: ``ordering-policy`` fair); Johnson's order (the two-stage
   flow shop); shortest total work first (the mean response's order on containers); weighted
   shortest work (work / weight, when weights differ); longest work first (the makespan's list
   rule); with due dates, earliest due date and least slack (due - time alone), and the two-stage
   flow shop with release dates and deadlines for the lateness objectives (exact within its
   reach, `planner.planning.arrivals.release_order`, else its list rule: the record says which);
   on mrv1, the fluid model's best slot split for Johnson's order; on yarn-fair for the response
   and late-jobs objectives, the small-jobs queue (`planner.planning.candidates.small_queue_candidates`: the short jobs in a
   queue of their own, the other queues capped to keep containers for them), each threshold and
   reserve screened with `SCREEN_RUNS` runs of another seed and the `SCREEN_KEEP` best kept. An
   order is deployed as priorities (higher first in a FIFO queue: `PRIORITY_LEVELS` levels per
   target; none on yarn-fair, whose scheduler ignores them) and submission times (each job at its
   arrival; jobs arriving together at one priority level `ORDER_GAP` apart in the order, 0.1 s on
   Spark, `ORDER_GAPS`, which the simulation pays for).
2. **The simulator decides.** Each candidate is exported into the operator's files, read back
   (`planner.io.hadoop.merge.deployed_run`) and simulated ``runs`` times under profile noise,
   paired run for run with the baselines (`planner.proof.deployed`): the configuration as it is,
   FIFO and Fair on the same resources. The `SLOWSTART_LEADERS` best candidates by mean
   objective (ties: mean makespan) are then tried with other reduce slow-starts, and the best
   with running-application limits (`RUNNING_LIMITS`, where the scheduler has them: Hadoop
   counts a running job from its first task to its last).
3. **Never worse than doing nothing.** The recommendation must beat the configuration as it is
   run for run (the 95% interval of the mean difference excludes zero) by at least `MIN_GAIN` of
   its own mean objective (`gain_scale`); otherwise the plan is "keep your configuration" and its
   levers change nothing. A slow-start variant replaces its candidate on the same terms. The gain
   is waived when a baseline beats the configuration as it is run for run (keeping it would be
   beaten): then a candidate better than the configuration and beaten by no baseline is enough.

Jobs that wait for jobs (`Job.after`; `planner.planning.pipelines`): every proposed order is kept
where the dependencies allow and repaired where not, the critical-path order (longest remaining
path first) is proposed too, due dates are each job's latest finish, and a job is submitted at
least `SUBMIT_GAP` after the jobs it waits for; spread in such an order, a job others wait for
never has a lower priority than they do. Running-application limits cannot deadlock: a job that
waits is not submitted yet and holds no place. The simulator waits for predecessors.

The figures the plan records are simulated (mean, p5, p95 over the runs) for the configuration
as exported; the bounds (`solvers.bounds`) say how far any schedule could go. A model's own
figure (the fluid prediction of a slot split) is labelled as the model's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from models import Cluster, InvalidInput, Workload
from models.checks import as_instance, as_str
from models.fingerprints import cluster_fingerprint, workload_fingerprint
from planner.defaults import DEFAULT_NOISE, DEFAULT_TARGET_RUNS
from planner.io.hadoop.applied import HADOOP_TARGETS
from planner.io.hadoop.merge import (
    CurrentConfig,
    config_queues,
    default_config,
    deployed_run,
    map_queues,
    merged_files,
    read_current,
)
from planner.io.hadoop.queue_map import scheduler_kind
from planner.limits import MAX_SEED
from planner.planning import arrivals
from planner.planning.candidates import (
    PRIORITY_LEVELS,
    SCREEN_KEEP,
    SCREEN_RUNS,
    SMALL_OBJECTIVES,
    SMALL_QUANTILES,
    SMALL_RESERVES,
    Candidate,
    arrival_order,
    proposals,
    proposer_of,
    small_queue_candidates,
)
from planner.planning.decision import (
    best_measured,
    decide,
    gain_scale,
    pays,
    rank,
    settle,
)
from planner.planning.request import target_request
from planner.planning.spark_deploy import plan_for_spark
from planner.plans.files import TARGET_STRATEGY
from planner.plans.levers import Levers
from planner.plans.plan import Plan
from planner.proof.deployed import (
    compare,
    deployed_setup,
    job_outcomes,
    measure,
    target_baselines,
)
from planner.proof.setups import Setup
from planner.proof.sweep import ExecutorChoice, ProgressOption
from planner.simulator import Capacity, Fair, Fifo, SimOptions
from planner.simulator.run import Run
from solvers.base import Stopwatch

__all__ = ["plan_for_target", "decide", "small_queue_candidates", "PRIORITY_LEVELS", "SLOWSTARTS", "SMALL_QUANTILES",
           "SMALL_RESERVES"]
#: Reduce slow-starts tried on the best candidates of the first round (Hadoop's default is 0.05),
#: and how many of them.
SLOWSTARTS = (0.05, 0.8, 1.0)
SLOWSTART_LEADERS = 3
#: Running-application limits tried on the first round's best (fair and mrv1-fair targets).
RUNNING_LIMITS = (2, 5, 10)
#: The scheduler each target runs (mrv1: the configured one).
TARGET_SCHEDULERS = {"yarn-fair": "fair", "yarn-capacity": "capacity"}


def plan_for_target(
    workload: Workload,
    cluster: Cluster,
    target: str,
    *,
    hadoop_conf: Sequence[str | Path] | None = None,
    queue_map: Mapping[str, str] | None = None,
    objective: str = "makespan",
    window: float | None = None,
    ready_now: bool = False,
    runs: int = DEFAULT_TARGET_RUNS,
    noise: float = DEFAULT_NOISE,
    seed: int = 0,
    executor: ExecutorChoice = None,
    progress: ProgressOption = False,
    spark_conf: Sequence[str | Path] | None = None,
) -> Plan:
    """The plan for ``target`` (module docstring): a "target" `Plan` whose ``levers`` are what to
    change of the configuration (``hadoop_conf``, else the target's stock one) and whose
    ``simulated`` holds what was measured: every candidate and baseline, the paired comparisons,
    the bounds, each job's predicted finish and lateness, and ``keep`` (True: keep your
    configuration). ``objective`` is one of `TARGET_OBJECTIVES`; ``window`` (absolute seconds) is
    the due date of jobs without a deadline; ``queue_map`` maps job names or pools to queues
    ("*": the rest). For "spark" (`planner.planning.spark_deploy.plan_for_spark`) the configuration
    is ``spark_conf`` (spark-defaults.conf and fairscheduler.xml), not ``hadoop_conf``."""
    clock = Stopwatch()
    as_instance(workload, Workload, "workload")
    as_instance(cluster, Cluster, "cluster")
    target = as_str(target, "target", choices=(*HADOOP_TARGETS, "spark"))
    if target == "spark":
        if hadoop_conf:
            raise InvalidInput("hadoop_conf", "a plan for spark starts from Spark's files: give them as spark_conf")
        return plan_for_spark(workload, cluster, spark_conf=spark_conf, queue_map=queue_map, objective=objective,
                              window=window, ready_now=ready_now, runs=runs, noise=noise, seed=seed,
                              executor=executor, progress=progress)
    if spark_conf:
        raise InvalidInput("spark_conf", f"applies to a plan for spark, not {target}: give Hadoop's files as "
                                         "hadoop_conf")
    asked = target_request(workload, cluster, hadoop_conf, "hadoop_conf", queue_map, objective, window, runs, noise,
                           seed, ready_now)
    hadoop_conf, queue_map, objective, window = list(asked.conf), asked.queue_map, asked.objective, asked.window
    runs, noise, seed, ready_now, night = asked.runs, asked.noise, asked.seed, asked.ready_now, asked.night
    current = read_current(hadoop_conf) if hadoop_conf else default_config(target, cluster)
    if current.default and queue_map is None:  # the stock configuration's queue takes every job
        queue_map = {"*": "default"}
    queues = map_queues(workload, current, target, queue_map)
    arrived = {job.name: job.submit for job in night}
    keep = Levers(queues=queues)
    as_configured = deployed_run(merged_files(current, keep, workload, cluster, target, ready_now=ready_now),
                                 workload, cluster)
    _check_kind(as_configured, target, current)
    slots = as_configured.total_slots
    bounds = arrivals.batch_bounds(night, slots, window)
    arrivals.check_window_reachable(window, bounds)

    def setup(name: str, role: str, levers: Levers) -> Setup:
        files = merged_files(current, levers, workload, cluster, target, ready_now=ready_now)
        return deployed_setup(name, role, deployed_run(files, workload, cluster), night, window=window,
                              arrivals=arrived)

    kind = _scheduler_kind(as_configured)
    if target in TARGET_SCHEDULERS and kind != TARGET_SCHEDULERS[target]:
        other = next(name for name, runs in TARGET_SCHEDULERS.items() if runs == kind) if kind != "fifo" else None
        where = ", ".join(current.sources) or "the configuration"
        raise InvalidInput("target", f"{where} configures YARN's {kind} scheduler, not {target}'s: "
                                     + (f"plan for {other}" if other else "give the scheduler's files"))
    switch = None
    candidates = proposals(night, as_configured, target, queues, kind, switch, objective=objective,
                           window=window, seed=seed)
    configured = deployed_setup("as configured", "baseline", as_configured, night, window=window, arrivals=arrived)
    baselines = [configured, *target_baselines(night, as_configured, target, queues, window=window,
                                               arrivals=arrived)]
    if target == "yarn-fair" and objective in SMALL_OBJECTIVES:
        small_queues = small_queue_candidates(night, as_configured, queues, config_queues(current, target))
        # screened on runs of their own (another seed), so that the runs that judge them did not pick them
        screened = measure([setup(c.name, "candidate", c.levers) for c in small_queues],
                           runs=min(SCREEN_RUNS, runs), noise=noise, seed=(seed + 1) % (MAX_SEED + 1),
                           executor=executor, progress=progress, description="planning: small-jobs queue")
        ranks = sorted(range(len(small_queues)), key=lambda i: rank(screened[i], objective, i))
        candidates += [small_queues[i] for i in ranks[:SCREEN_KEEP]]
    first = [setup(c.name, "candidate", c.levers) for c in candidates]
    measured = measure([*baselines, *first], runs=runs, noise=noise, seed=seed, executor=executor,
                       progress=progress, description="planning")
    by_name = {m.name: m for m in measured}
    scale = gain_scale(by_name[configured.name], objective)
    pool = [c for c in candidates]
    best = best_measured([by_name[c.name] for c in pool], objective)
    # second round: the best candidates with other reduce slow-starts
    ranked = sorted(enumerate(candidates), key=lambda item: rank(by_name[item[1].name], objective, item[0]))
    current_slowstart = (as_configured.options or SimOptions()).reduce_slowstart
    variants = [Candidate(f"{leader.name}, slow-start {value:g}", f"{leader.proposer}; reduce slow-start {value:g}",
                          replace(leader.levers, slowstart=value))  # the model made no figure for it
                for _, leader in ranked[:SLOWSTART_LEADERS]
                for value in SLOWSTARTS if not math.isclose(value, current_slowstart)]
    top = ranked[0][1]
    if target != "yarn-capacity" and (kind == "fair" or top.levers.scheduler == "fair"):
        # the running-application limit, as Hadoop counts it: a job holds its place from its first
        # task to its last (YARN's maxRunningApps, MRv1's maxRunningJobs), in each of its queues
        used = sorted(set(top.levers.queues.values()))
        variants += [Candidate(f"{top.name}, at most {limit} running", f"{top.proposer}; at most {limit} running "
                               "jobs per queue (maxRunningApps / maxRunningJobs)",
                               replace(top.levers, max_running={queue: limit for queue in used}))
                     for limit in RUNNING_LIMITS if limit < len(workload)]
    chosen = next(c for c in candidates if c.name == best.name)
    if variants:
        more = measure([setup(c.name, "candidate", c.levers) for c in variants], runs=runs, noise=noise, seed=seed,
                       executor=executor, progress=progress, description="planning: slow-start, limits")
        by_name.update((m.name, m) for m in more)
        pool += variants
        # a lever changes only when it pays: the variant must beat the first round's best run for run
        challenger = best_measured(more, objective)
        if pays(compare(challenger, [best], objective, seed)[0], objective, scale):
            best = challenger
            chosen = next(c for c in variants if c.name == challenger.name)
    configured_runs = by_name[configured.name]
    others = [by_name[b.name] for b in baselines if b.name != configured.name]
    keep_it, reason = settle(best, configured_runs, others, chosen.name, objective, scale, seed)
    if keep_it:
        chosen, best = Candidate("as configured", "the configuration as it is", keep), configured_runs
    records = [by_name[m].record(objective) | {"proposer": proposer_of(m, pool)} for m in by_name]
    for record in records:
        model = next((c.model_makespan for c in pool if c.name == record["setup"]), None)
        record["model_makespan"] = model
    comparisons = compare(best, [by_name[b.name] for b in baselines], objective, seed)
    jobs = job_outcomes(best, night, window)
    summary = best.record(objective)
    configured_split = (as_configured.slots if as_configured.slots else
                        (as_configured.cluster.total_map_slots, as_configured.cluster.total_reduce_slots))
    split = chosen.levers.slots or configured_split  # the plan's split (mrv1 may change it)
    return Plan(
        strategy=TARGET_STRATEGY,
        model="fresh",
        k=min(chosen.levers.max_running.values(), default=len(workload)),
        map_slots=split[0],
        reduce_slots=split[1],
        order=chosen.levers.order or arrival_order(night),
        predicted_makespan=summary["makespan"],
        baseline_makespan=configured_runs.record(objective)["makespan"],
        status="keep" if keep_it else "improved",
        solver="simulation",
        seconds=clock.seconds,
        workload_fingerprint=workload_fingerprint(workload),
        pipeline=workload.has_dependencies,
        cluster_fingerprint=cluster_fingerprint(cluster),
        objective=objective,
        ready_now=ready_now,
        window=window,
        target=target,
        levers=chosen.levers,
        config_fingerprint=current.fingerprint,
        simulated={"objective": objective, "runs": runs, "noise": noise, "seed": seed, "chosen": chosen.name,
                   "proposer": chosen.proposer, "keep": keep_it, "reason": reason,
                   "configuration": "default" if current.default else list(current.sources),
                   "configured_queues": dict(queues),
                   "mean": summary["mean"], "p5": summary["p5"], "p95": summary["p95"],
                   "makespan": summary["makespan"], "makespan_p5": summary["makespan_p5"],
                   "makespan_p95": summary["makespan_p95"], "p_window": summary["p_window"],
                   "bounds": bounds, "candidates": records, "comparisons": comparisons, "jobs": jobs},
    )




def _scheduler_kind(run: Run) -> str:
    """The configured scheduler's kind (`planner.io.hadoop.queue_map.scheduler_kind`); a scheduler
    no target runs is refused."""
    if not isinstance(run.scheduler, (Capacity, Fair, Fifo)):
        raise InvalidInput("hadoop_conf", f"configures the {run.scheduler.name} scheduler, which no target runs")
    return scheduler_kind(run.scheduler)


def _check_kind(run: Run, target: str, current: CurrentConfig) -> None:
    """MRv1 configurations have typed slots; YARN's containers."""
    containers = bool(run.options is not None and run.options.containers)
    where = ", ".join(current.sources) or "the configuration"
    if target == "mrv1" and containers:
        raise InvalidInput("target", f"{where} configures YARN (containers): plan for yarn-fair or yarn-capacity")
    if target != "mrv1" and not containers:
        raise InvalidInput("target", f"{where} configures MRv1 slots: plan for mrv1, or give YARN's files")
