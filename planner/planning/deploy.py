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

1. **Models propose** (`proposals`): FIFO in arrival order; Fair (on yarn-capacity, fair
   ordering in each queue: ``ordering-policy`` fair); Johnson's order (the two-stage
   flow shop); shortest total work first (the mean response's order on containers); weighted
   shortest work (work / weight, when weights differ); longest work first (the makespan's list
   rule); with due dates, earliest due date and least slack (due - time alone), and the two-stage
   flow shop with release dates and deadlines for the lateness objectives (exact within its
   reach, `planner.planning.arrivals.release_order`, else its list rule: the record says which);
   on mrv1, the fluid model's best slot split for Johnson's order; on yarn-fair for the response
   and late-jobs objectives, the small-jobs queue (`small_queue_candidates`: the short jobs in a
   queue of their own, the other queues capped to keep containers for them), each threshold and
   reserve screened with `SCREEN_RUNS` runs of another seed and the `SCREEN_KEEP` best kept. An
   order is deployed as priorities (higher first in a FIFO queue: `PRIORITY_LEVELS` levels per
   target; none on yarn-fair, whose scheduler ignores them) and submission times (each job at its
   arrival; jobs arriving together at one priority level `ORDER_GAP` apart in the order, which
   the simulation pays for).
2. **The simulator decides.** Each candidate is exported into the operator's files, read back
   (`planner.io.hadoop.merge.deployed_run`) and simulated ``runs`` times under profile noise,
   paired run for run with the baselines (`planner.proof.deployed`): the configuration as it is,
   FIFO and Fair on the same resources. The `SLOWSTART_LEADERS` best candidates by mean
   objective (ties: mean makespan) are then tried with other reduce slow-starts, and the best
   with running-application limits (`RUNNING_LIMITS`, where the scheduler has them: Hadoop
   counts a running job from its first task to its last).
3. **Never worse than doing nothing.** The recommendation must beat the configuration as it is
   run for run (the 95% interval of the mean difference excludes zero) by at least `MIN_GAIN` of
   its own mean objective (`_gain_scale`); otherwise the plan is "keep your configuration" and its
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

import importlib
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from models import Cluster, InvalidInput, Workload
from models.checks import as_bool, as_instance, as_int, as_paths, as_str, as_str_mapping
from models.fingerprints import cluster_fingerprint, workload_fingerprint
from planner.defaults import DEFAULT_NOISE, DEFAULT_TARGET_RUNS
from planner.io.hadoop.applied import HADOOP_TARGETS, SUBMIT_GAP
from planner.io.hadoop.conf import conf_files
from planner.io.hadoop.merge import (
    CurrentConfig,
    config_queues,
    default_config,
    deployed_run,
    map_queues,
    merged_files,
    read_current,
)
from planner.io.hadoop.plan_files import arrival_floors
from planner.io.hadoop.queue_map import scheduler_kind
from planner.limits import MAX_RUNS, MAX_SEED
from planner.planning import arrivals, pipelines
from planner.plans.files import TARGET_OBJECTIVES, TARGET_STRATEGY
from planner.plans.levers import Levers
from planner.plans.plan import Plan
from planner.proof.deployed import (
    Measured,
    check_objective,
    compare,
    deployed_setup,
    job_outcomes,
    measure,
    target_baselines,
)
from planner.proof.setups import Setup, all_ready
from planner.proof.sweep import ExecutorChoice, ProgressOption
from planner.proof.validate import check_noise
from planner.simulator import Capacity, Fair, Fifo, SimOptions
from planner.simulator.layout import ANY
from planner.simulator.run import Run
from solvers.base import Stopwatch
from solvers.bounds import alone

__all__ = ["plan_for_target", "decide", "small_queue_candidates", "PRIORITY_LEVELS", "SLOWSTARTS", "SMALL_QUANTILES",
           "SMALL_RESERVES"]

#: Priority levels an order is spread over, per target: MRv1 has five (VERY_LOW..VERY_HIGH, -2..2);
#: YARN's capacity scheduler takes integers from 0 up to `yarn.cluster.max-application-priority`.
#: YARN's fair scheduler does not order applications by priority: on yarn-fair the order is the
#: submission times alone.
PRIORITY_LEVELS = {"mrv1": (-2, 2), "yarn-capacity": (0, 99)}
#: Reduce slow-starts tried on the best candidates of the first round (Hadoop's default is 0.05),
#: and how many of them.
SLOWSTARTS = (0.05, 0.8, 1.0)
SLOWSTART_LEADERS = 3
#: Running-application limits tried on the first round's best (fair and mrv1-fair targets).
RUNNING_LIMITS = (2, 5, 10)
#: The least a change must gain to be recommended, as a fraction of the configuration's own mean
#: objective (the makespan's for the maximum lateness; none for late jobs and the window, where
#: being better run for run is enough): a lever is changed only when it pays.
MIN_GAIN = 0.01
#: Seconds the exact two-stage order with releases and deadlines may take, per candidate.
ORDER_TIME_LIMIT = 10.0
#: Seconds between the submissions of jobs that arrive together at one priority level: their order
#: rests on their submission times alone, and a submit command (a JVM starting) takes a while to
#: reach the scheduler. The simulation submits them so, and so pays for the spacing.
ORDER_GAP = 1.0
#: The small-jobs queue (yarn-fair, for the response and late-jobs objectives): jobs whose time alone
#: on the cluster is at most a threshold go to a queue of their own, and every other queue the batch
#: uses is capped (maxResources) so that a reserve of containers is left to them: without
#: preemption a short job that arrives while long tasks hold every container waits for one to end.
#: Thresholds are these quantiles of the batch's times alone, reserves these fractions of the
#: containers; each pair is screened with `SCREEN_RUNS` runs and the `SCREEN_KEEP` best go on as
#: candidates.
SMALL_QUANTILES = (0.5, 0.8, 0.9, 0.95)
SMALL_RESERVES = (0.1, 0.3, 0.5, 0.7)
SMALL_OBJECTIVES = ("mean_response", "weighted_response", "late_jobs")
SCREEN_RUNS = 4
SCREEN_KEEP = 2
#: The scheduler each target runs (mrv1: the configured one).
TARGET_SCHEDULERS = {"yarn-fair": "fair", "yarn-capacity": "capacity"}


@dataclass(frozen=True)
class Candidate:
    """A deployable configuration: its name, what proposed it, its levers and (slot splits) the
    fluid model's own makespan."""

    name: str
    proposer: str
    levers: Levers
    model_makespan: float | None = None


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
        # spark_deploy builds on this module's candidates and decision: imported by name, on use
        plan_for_spark = importlib.import_module("planner.planning.spark_deploy").plan_for_spark
        return plan_for_spark(workload, cluster, spark_conf=spark_conf, queue_map=queue_map, objective=objective,
                              window=window, ready_now=ready_now, runs=runs, noise=noise, seed=seed,
                              executor=executor, progress=progress)
    if spark_conf:
        raise InvalidInput("spark_conf", f"applies to a plan for spark, not {target}: give Hadoop's files as "
                                         "hadoop_conf")
    if hadoop_conf is not None:
        hadoop_conf = as_paths(hadoop_conf, "hadoop_conf")
        if hadoop_conf:
            conf_files(hadoop_conf, "hadoop_conf")  # an empty folder is no configuration: named here
    if queue_map is not None:
        queue_map = as_str_mapping(queue_map, "queue_map")
    objective = as_str(objective, "objective", choices=TARGET_OBJECTIVES)
    window = arrivals.check_window(window)
    runs = as_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    noise = check_noise(noise)
    seed = as_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    ready_now = as_bool(ready_now, "ready_now")
    if not len(workload):
        raise InvalidInput("jobs", "need at least one job")
    night = all_ready(workload) if ready_now else workload
    check_objective(objective, night, window)
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
        ranks = sorted(range(len(small_queues)), key=lambda i: _rank(screened[i], objective, i))
        candidates += [small_queues[i] for i in ranks[:SCREEN_KEEP]]
    first = [setup(c.name, "candidate", c.levers) for c in candidates]
    measured = measure([*baselines, *first], runs=runs, noise=noise, seed=seed, executor=executor,
                       progress=progress, description="planning")
    by_name = {m.name: m for m in measured}
    scale = _gain_scale(by_name[configured.name], objective)
    pool = [c for c in candidates]
    best = _best([by_name[c.name] for c in pool], objective)
    # second round: the best candidates with other reduce slow-starts
    ranked = sorted(enumerate(candidates), key=lambda item: _rank(by_name[item[1].name], objective, item[0]))
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
        challenger = _best(more, objective)
        if _pays(compare(challenger, [best], objective, seed)[0], objective, scale):
            best = challenger
            chosen = next(c for c in variants if c.name == challenger.name)
    configured_runs = by_name[configured.name]
    against_configured = compare(best, [configured_runs], objective, seed)[0]
    others = [by_name[b.name] for b in baselines if b.name != configured.name]
    keep_it, beaten_by = decide(best, configured_runs, others, objective, scale, seed)
    if keep_it:
        short = (against_configured["verdict"] == "plan better"
                 and against_configured["mean_difference"] < MIN_GAIN * scale)
        because = (f"better run for run, but by less than the {MIN_GAIN:.0%} ({MIN_GAIN * scale:,.1f}"
                   f"{UNITS[objective]}) a change must gain" if short else "not better run for run")
        reason = (f"no candidate gains enough over the configuration as it is on {objective}: the best, "
                  f"{chosen.name}, is {because} ({_verdict_words(against_configured)}): keep your configuration")
        chosen, best = Candidate("as configured", "the configuration as it is", keep), configured_runs
    elif beaten_by:
        reason = (f"{chosen.name} beats the configuration as it is run for run on {objective}, by less than the "
                  f"{MIN_GAIN:.0%} a change must gain; but {' and '.join(beaten_by)} "
                  f"beat{'s' if len(beaten_by) == 1 else ''} the configuration as it is run for run, so keeping "
                  f"it would be beaten, and no baseline beats {chosen.name}: {_verdict_words(against_configured)}")
    else:
        reason = (f"{chosen.name} beats the configuration as it is run for run on {objective}: "
                  f"{_verdict_words(against_configured)}")
    records = [by_name[m].record(objective) | {"proposer": _proposer(m, pool)} for m in by_name]
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
        order=chosen.levers.order or _arrival_order(night),
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


def decide(best: Measured, configured: Measured, others: Sequence[Measured], objective: str, scale: float,
           seed: int) -> tuple[bool, tuple[str, ...]]:
    """Whether to keep the configuration rather than apply ``best`` (module docstring, step 3), and
    the baselines whose beating the configuration as it is waived `MIN_GAIN` (empty unless
    waived). ``others`` are the baselines besides the configuration; ``scale`` is `_gain_scale`'s."""
    against = compare(best, [configured], objective, seed)[0]
    if _pays(against, objective, scale):
        return False, ()
    # A baseline that beats the configuration as it is run for run would beat "keep": then a
    # candidate better than the configuration run for run and beaten by no baseline is recommended
    # whatever its gain (`MIN_GAIN` guards against changes for nothing, not against that).
    beaten_by = tuple(r["against"] for r in compare(configured, others, objective, seed) if r["verdict"] == "plan worse")
    if (beaten_by and against["verdict"] == "plan better"
            and not any(r["verdict"] == "plan worse" for r in compare(best, others, objective, seed))):
        return False, beaten_by
    return True, ()


def _gain_scale(configured: Measured, objective: str) -> float:
    """What `MIN_GAIN` is a fraction of: the configuration's own mean of the objective (the
    makespan's for the maximum lateness, which may be near zero or negative); 0 for counts and
    chances (late jobs, the window), where being better run for run is enough."""
    if objective in ("late_jobs", "window"):
        return 0.0
    measure = "makespan" if objective == "max_lateness" else objective
    return abs(float(np.mean(configured.values(measure))))


def _pays(record: dict[str, Any], objective: str, scale: float) -> bool:
    """Whether a change pays: better run for run (the interval excludes zero) by at least
    `MIN_GAIN` x ``scale`` (`_gain_scale`)."""
    return record["verdict"] == "plan better" and record["mean_difference"] >= MIN_GAIN * scale


#: The unit of each objective's measure, for sentences.
UNITS = {"makespan": " s", "mean_response": " s", "weighted_response": " s", "max_lateness": " s",
         "late_jobs": " late jobs", "window": " of the runs missing the window"}


def _verdict_words(record: dict[str, Any]) -> str:
    unit = UNITS[record["objective"]]
    return (f"mean difference {record['mean_difference']:,.2f}{unit}, 95% interval [{record['ci_low']:,.2f}, "
            f"{record['ci_high']:,.2f}], better in {record['plan_wins']} of {record['runs']} runs")


def _proposer(name: str, pool: Sequence[Candidate]) -> str:
    return next((c.proposer for c in pool if c.name == name), "baseline")


def _rank(measured: Measured, objective: str, position: int) -> tuple[float, float, int]:
    """How candidates rank: the smaller mean objective, then mean makespan, then the first proposed."""
    return (float(np.mean(measured.values(objective))), float(np.mean(measured.values("makespan"))), position)


def _best(measured: Sequence[Measured], objective: str) -> Measured:
    """The best by `_rank`."""
    return min(enumerate(measured), key=lambda item: _rank(item[1], objective, item[0]))[1]


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


def proposals(night: Workload, as_configured: Run, target: str, queues: Mapping[str, str], kind: str,
              switch: str | None, *, objective: str, window: float | None, seed: int) -> list[Candidate]:
    """The candidates the models propose (module docstring), each as deployable levers."""
    jobs = list(night)
    slots = as_configured.total_slots
    names = [job.name for job in jobs]
    used = sorted(set(queues.values()))
    fifo_policies = {queue: "fifo" for queue in used} if kind == "fair" else {}
    scheduler = as_configured.scheduler
    ordered = {queue.name: queue.ordering for queue in scheduler.queues} if isinstance(scheduler, Capacity) else {}
    if kind == "capacity":  # a capacity queue is FIFO unless configured otherwise: say fifo where it is not
        fifo_policies = {queue: "fifo" for queue in used if ordered.get(queue, "fifo") != "fifo"}
    base = {"scheduler": switch, "queues": dict(queues)}
    candidates = [
        Candidate("FIFO, arrival order", "FIFO in each queue, jobs in arrival order",
                  Levers(**base, policies=fifo_policies, order=_arrival_order(night))),
    ]
    if kind == "capacity" and any(ordered.get(queue, "fifo") != "fair" for queue in used):
        candidates.append(Candidate("fair ordering", "fair ordering in each queue (ordering-policy fair: the "
                                    "job using the fewest containers first)",
                                    Levers(**base, policies={queue: "fair" for queue in used},
                                           order=_arrival_order(night))))
    if kind == "fair":
        candidates.append(Candidate("Fair", "fair sharing in each queue",
                                    Levers(**base, policies={queue: "fair" for queue in used},
                                           order=_arrival_order(night))))
        if len(used) > 1:
            work = {queue: sum(job.work for job in jobs if queues[job.name] == queue) for queue in used}
            least = min(w for w in work.values() if w > 0) if any(work.values()) else 1.0
            candidates.append(Candidate("Fair, queue weights by work", "each queue's weight proportional to its "
                                        "work, so that the queues finish together",
                                        Levers(**base, policies={queue: "fair" for queue in used},
                                               weights={q: max(w / least, 1.0) for q, w in work.items()},
                                               order=_arrival_order(night))))
    elif target == "mrv1" and kind == "fifo":
        candidates.append(Candidate("Fair", "the fair scheduler instead of FIFO (a pool per queue, fair inside)",
                                    Levers(scheduler="fair", queues=dict(queues), order=_arrival_order(night))))
    orders: list[tuple[str, str, list[int]]] = []
    from solvers.ordering.admission_orders import johnson_admission

    machines = as_configured.cluster
    orders.append(("Johnson order", "Johnson's rule on the two-stage flow shop (map stage, reduce stage)",
                   johnson_admission(night, machines)))
    orders.append(("shortest work first", "total work ascending (mean response's order on one shared machine)",
                   sorted(range(len(jobs)), key=lambda i: (jobs[i].work, names[i]))))
    if len({job.weight for job in jobs}) > 1:
        orders.append(("weighted shortest work first", "work / weight ascending (Smith's rule)",
                       sorted(range(len(jobs)), key=lambda i: (jobs[i].work / jobs[i].weight, names[i]))))
    orders.append(("longest work first", "total work descending (the makespan's list rule)",
                   sorted(range(len(jobs)), key=lambda i: (-jobs[i].work, names[i]))))
    own_due = due = [job.deadline if job.deadline is not None else window for job in jobs]
    if night.has_dependencies:  # each job due early enough for the jobs waiting for it (latest finish)
        due = pipelines.latest_due_dates(night, due, slots)
    if any(d is not None for d in due):
        late = math.inf
        orders.append(("earliest due date", "due date ascending (EDD: optimal for max lateness on one machine)",
                       sorted(range(len(jobs)), key=lambda i: (due[i] if due[i] is not None else late, names[i]))))
        orders.append(("least slack", "due date minus the job's time alone, ascending",
                       sorted(range(len(jobs)), key=lambda i: ((due[i] if due[i] is not None else late)
                                                               - alone(jobs[i], slots), names[i]))))
        if objective in ("max_lateness", "late_jobs") and not night.has_dependencies:  # else: the order solver's
            orders.append(_release_order(night, as_configured, objective, due, seed))
    if night.has_dependencies:
        orders = [(name, proposer, pipelines.respecting(night, order)) for name, proposer, order in orders]
        orders.append(("critical path", "the longest remaining path first (each job's time alone on the cluster "
                       "plus the longest chain of the jobs waiting for it), ties by Johnson's order",
                       pipelines.critical_path_order(night, slots, orders[0][2])))
        solved, record = pipelines.solver_order(night, machines, releases=arrivals.releases_of(night, False),
                                                due=_due_array(night, own_due), objective=objective
                                                if objective in ("makespan", "max_lateness", "late_jobs")
                                                else "makespan", time_limit=ORDER_TIME_LIMIT, seed=seed)
        orders.append(("order solver", f"the two-stage flow shop with precedence and release dates "
                       f"({record['method']}, {record['status']})", pipelines.respecting(night, solved)))
    for name, proposer, order in orders:
        candidates.append(Candidate(name, proposer, _ordered(night, order, target, base, fifo_policies)))
    if target == "mrv1":
        candidates.extend(_split_candidates(night, as_configured, orders[0][2], base, fifo_policies))
    return candidates


def small_queue_candidates(night: Workload, as_configured: Run, queues: Mapping[str, str],
                           configured: Sequence[str]) -> list[Candidate]:
    """The small-jobs queue (`SMALL_QUANTILES`), one candidate per threshold and reserve: jobs whose
    time alone is at most the threshold go to a new queue (fair inside, named by `_free_queue_name`),
    every other queue of the batch is capped at the containers less the reserve (a queue the
    configuration already caps lower keeps its cap). None when every job is small."""
    jobs = list(night)
    slots = as_configured.total_slots
    times = np.asarray([alone(job, slots) for job in jobs], dtype=float)
    # thresholds up to a tenth of a second (names say them so), reserves in whole containers, each once
    thresholds = sorted({math.ceil(float(np.quantile(times, q, method="lower")) * 10.0) / 10.0
                         for q in SMALL_QUANTILES})
    reserves = sorted(reserve for reserve in {max(1, round(fraction * slots)) for fraction in SMALL_RESERVES}
                      if reserve < slots)
    name = _free_queue_name("small", [*configured, *queues.values()])
    scheduler = as_configured.scheduler
    pools = scheduler.pools if isinstance(scheduler, Fair) else {}
    candidates = []
    for threshold in thresholds:
        small = {job.name for job, time in zip(jobs, times, strict=True) if time <= threshold}
        if len(small) == len(jobs):
            continue
        others = sorted({queues[job.name] for job in jobs if job.name not in small})
        for reserve in reserves:
            cap = slots - reserve
            caps = {queue: cap for queue in others
                    if queue not in pools or pools[queue].max_share(ANY) is None or pools[queue].max_share(ANY) > cap}
            moved = {job: (name if job in small else queue) for job, queue in queues.items()}
            levers = Levers(queues=moved, policies={name: "fair"}, caps=caps, order=_arrival_order(night))
            kept = f"{reserve} container{'s' if reserve > 1 else ''} kept"
            seconds = f"{threshold:,.1f}".removesuffix(".0")
            candidates.append(Candidate(
                f"small-jobs queue (alone <= {seconds} s, {kept})",
                f"the {len(small)} jobs taking at most {seconds} s alone in a queue {name!r} of their own, "
                f"the other queues capped at {cap} of {slots} containers (maxResources) unless capped lower "
                "already", levers))
    return candidates


def _free_queue_name(stem: str, taken: Sequence[str]) -> str:
    """``stem``, else ``stem_1``, ``stem_2``...: the first that is neither a queue (leaf, or parent of
    one: "a" of "a.b") nor a pool jobs are submitted to."""
    used = {".".join(parts[:end]) for parts in (queue.split(".") for queue in taken) for end in range(1, len(parts) + 1)}
    return next(candidate for i in range(len(used) + 1)
                if (candidate := stem if i == 0 else f"{stem}_{i}") not in used)


def _release_order(night: Workload, as_configured: Run, objective: str, due: list[float | None],
                   seed: int) -> tuple[str, str, list[int]]:
    """The two-stage flow shop with release dates and deadlines: exact within its reach, else its
    list rule (the proposer says which)."""
    machines = as_configured.cluster
    if as_configured.slots is not None:
        machines = machines.with_changes(map_slots=max(1, as_configured.slots[0] // machines.nodes),
                                         reduce_slots=max(1, as_configured.slots[1] // machines.nodes))
    releases = arrivals.releases_of(night, False)
    dates = np.asarray([d if d is not None else np.inf for d in due], dtype=float)
    if releases is not None:
        dates = dates - min(job.submit for job in night)
    order, record = arrivals.release_order(night, machines, releases=releases, due=dates, objective=objective,
                                           time_limit=ORDER_TIME_LIMIT, seed=seed)
    bound = "" if record["bound"] is None else f", bound {record['bound']:,.1f}"
    return ("two-stage order with deadlines",
            f"two-stage flow shop with release dates, {objective}: {record['method']} ({record['status']}{bound})",
            order)


def _arrival_order(night: Workload) -> tuple[str, ...]:
    """Jobs by arrival (then name); with dependencies by earliest submission (`arrival_floors`), so
    that every job comes after the jobs it waits for."""
    floors = arrival_floors(night, SUBMIT_GAP)
    return tuple(job.name for job in sorted(night, key=lambda job: (floors[job.name], job.name)))


def _due_array(night: Workload, due: Sequence[float | None]) -> np.ndarray | None:
    """Due dates on the releases' clock (counted from the first arrival), inf for none; None when none."""
    if all(d is None for d in due):
        return None
    origin = min(job.submit for job in night)
    return np.array([np.inf if d is None else d - origin for d in due], dtype=float)


def _ordered(night: Workload, order: Sequence[int], target: str, base: dict[str, Any],
             policies: Mapping[str, str], **more: Any) -> Levers:
    """An order deployed (module docstring): priorities spread over the target's levels in the
    order, each job submitted at its arrival, jobs arriving together a gap apart in the order."""
    jobs = list(night)
    low, high = PRIORITY_LEVELS.get(target, (0, 0))
    levels = min(high - low + 1, len(jobs))
    rank = {int(i): position for position, i in enumerate(order)}
    priorities = ({} if target not in PRIORITY_LEVELS else
                  {jobs[i].name: high - (rank[i] * levels) // len(jobs) for i in range(len(jobs))})
    submits: dict[str, float] = {}
    seen: dict[tuple[float, int], int] = {}
    for i in order:
        job = jobs[int(i)]
        group = (job.submit, priorities.get(job.name, 0))  # jobs arriving together at one level
        count = seen.get(group, 0)
        seen[group] = count + 1
        # a job that waits for others is submitted after them (the order lists them first)
        submits[job.name] = max([job.submit + count * ORDER_GAP, *(submits[d.job] + SUBMIT_GAP for d in job.after)])
    position = {jobs[i].name: rank[i] for i in range(len(jobs))}
    rows = tuple(sorted(submits, key=lambda name: (submits[name], position[name])))
    for before, after in itertools.pairwise(rows):  # no ties: the simulator breaks them by name, not by the order
        if submits[after] <= submits[before]:
            submits[after] = submits[before] + SUBMIT_GAP
    return Levers(**base, policies=dict(policies), order=rows, priorities=priorities, submits=submits, **more)


def _split_candidates(night: Workload, as_configured: Run, order: Sequence[int], base: dict[str, Any],
                      policies: Mapping[str, str]) -> list[Candidate]:
    """mrv1: the fluid model's best split of the slots for the order, run as FIFO (k = 1, the fluid
    form of FIFO), its prediction labelled as the model's."""
    from solvers import configure_slots

    machines = as_configured.cluster
    total = as_configured.total_slots
    configured = as_configured.slots[0] if as_configured.slots else machines.total_map_slots
    releases = arrivals.releases_of(night, False)
    solved = configure_slots(list(night), total, 1, [int(i) for i in order], "fresh", releases=releases)
    if solved.map_slots == configured or not 1 <= solved.map_slots < total:
        return []
    levers = _ordered(night, order, "mrv1", base, policies, slots=(solved.map_slots, total - solved.map_slots))
    return [Candidate(f"Johnson order, {solved.map_slots}:{total - solved.map_slots} slots",
                      "the fluid model's best map:reduce split for Johnson's order (FRESH Algorithm 1, k = 1)",
                      levers, float(solved.makespan))]
