"""A plan made for Spark: the levers Spark has, chosen by simulating the configuration as exported,
and never worse than the configuration as it is (`plan_for_spark`, behind
``plan_for_target(..., target="spark")``).

Spark's levers (`planner.plans.levers.Levers`): the scheduler mode (FIFO or FAIR), the
submission order and times, each job's pool, and per pool its schedulingMode, weight and
minShare. No priorities, slow-start, slot split, running-job limits or caps: Spark has none.
The plan starts from the operator's files (``spark_conf``: spark-defaults.conf and
fairscheduler.xml) or Spark's stock configuration (FIFO). Jobs go to their pools
(`planner.io.spark.merge.spark_queues`, with ``queue_map``).

Candidates (`spark_proposals`), each exported (`planner.io.spark.merge.spark_merged_files`),
read back (`spark_deployed_run`) and simulated ``runs`` times paired with the baselines (the
configuration as it is, and FIFO and Fair as Spark runs them on the same cores: the same
submission schedule, delay scheduling and offers, `spark_baselines`):

- FIFO in the orders the models propose (arrival, Johnson's, shortest and longest work first,
  weighted shortest work, with due dates EDD and least slack, with dependencies the critical
  path: `planner.planning.deploy.proposals`), jobs arriving together 0.1 s apart
  (`planner.planning.candidates.ORDER_GAPS`: Spark's job ids then follow the order);
- FAIR with the jobs' pools, fair inside, and FIFO inside; with several pools, weights by work;
- FAIR with a pool per job class: the small jobs (time alone at most the 50th or 80th
  percentile) in a pool of their own, fair inside, owed `SMALL_MIN_SHARE` of the cores (minShare),
  the others FIFO in their pools.

The recommendation must beat the configuration as it is run for run by `MIN_GAIN`
(`planner.planning.deploy.decide`); otherwise the plan says "keep your configuration".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from models import Cluster, Workload
from models.fingerprints import cluster_fingerprint, workload_fingerprint
from planner.io.spark.merge import (
    config_setup,
    read_spark_current,
    spark_default_config,
    spark_deployed_run,
    spark_merged_files,
    spark_queues,
)
from planner.planning import arrivals
from planner.planning.candidates import Candidate, arrival_order, proposals, proposer_of
from planner.planning.decision import best_measured, gain_scale, settle
from planner.planning.request import target_request
from planner.plans.files import TARGET_STRATEGY
from planner.plans.levers import Levers
from planner.plans.plan import Plan
from planner.proof.deployed import compare, deployed_setup, job_outcomes, measure
from planner.proof.setups import Setup
from planner.proof.sweep import ExecutorChoice, ProgressOption
from planner.simulator.run import Run
from solvers.base import Stopwatch
from solvers.bounds import alone

#: The small jobs' pool: thresholds (quantiles of the jobs' times alone) and its minShare (a
#: fraction of the cores).
SPARK_SMALL_QUANTILES = (0.5, 0.8)
SMALL_MIN_SHARE = 0.3


def plan_for_spark(workload: Workload, cluster: Cluster, *, spark_conf: Sequence[str | Path] | None = None,
                   queue_map: Mapping[str, str] | None = None, objective: str = "makespan",
                   window: float | None = None, ready_now: bool = False, runs: int = 10, noise: float = 0.1,
                   seed: int = 0, executor: ExecutorChoice = None, progress: ProgressOption = False) -> Plan:
    """The plan for Spark (module docstring); arguments as `planner.planning.deploy.plan_for_target`'s,
    ``spark_conf`` being the operator's Spark files (None: Spark's stock configuration)."""
    clock = Stopwatch()
    asked = target_request(workload, cluster, spark_conf, "spark_conf", queue_map, objective, window, runs, noise,
                           seed, ready_now)
    spark_conf, queue_map, objective, window = list(asked.conf), asked.queue_map, asked.objective, asked.window
    runs, noise, seed, ready_now, night = asked.runs, asked.noise, asked.seed, asked.ready_now, asked.night
    current = read_spark_current(spark_conf) if spark_conf else spark_default_config()
    configured = config_setup(current.files)
    queues = spark_queues(workload, queue_map, [pool.name for pool in configured.pools])
    arrived = {job.name: job.submit for job in night}

    def deployed(levers: Levers) -> Run:
        files = spark_merged_files(current, levers, workload, ready_now=ready_now, queues=queues)
        return spark_deployed_run(files, workload, cluster)

    keep = Levers(queues=queues)
    as_configured = deployed(keep)
    bounds = arrivals.batch_bounds(night, as_configured.total_slots, window)
    arrivals.check_window_reachable(window, bounds)
    mode = configured.mode
    candidates = spark_proposals(night, as_configured, queues, mode, objective=objective, window=window, seed=seed)
    configured = deployed_setup("as configured", "baseline", as_configured, night, window=window, arrivals=arrived)
    baselines = [configured, *spark_baselines(night, as_configured, queues, window=window, arrivals=arrived)]
    first = [deployed_setup(c.name, "candidate", deployed(c.levers), night, window=window, arrivals=arrived)
             for c in candidates]
    measured = measure([*baselines, *first], runs=runs, noise=noise, seed=seed, executor=executor,
                       progress=progress, description="planning for spark")
    by_name = {m.name: m for m in measured}
    scale = gain_scale(by_name[configured.name], objective)
    best = best_measured([by_name[c.name] for c in candidates], objective)
    chosen = next(c for c in candidates if c.name == best.name)
    configured_runs = by_name[configured.name]
    others = [by_name[b.name] for b in baselines if b.name != configured.name]
    keep_it, reason = settle(best, configured_runs, others, chosen.name, objective, scale, seed)
    if keep_it:
        chosen, best = Candidate("as configured", "the configuration as it is", keep), configured_runs
    records = [by_name[m].record(objective) | {"proposer": proposer_of(m, candidates), "model_makespan": None}
               for m in by_name]
    summary = best.record(objective)
    machines = as_configured.cluster
    return Plan(
        strategy=TARGET_STRATEGY, model="fresh", k=len(workload), map_slots=machines.total_map_slots,
        reduce_slots=machines.total_reduce_slots, order=chosen.levers.order or arrival_order(night),
        predicted_makespan=summary["makespan"], baseline_makespan=configured_runs.record(objective)["makespan"],
        status="keep" if keep_it else "improved", solver="simulation", seconds=clock.seconds,
        workload_fingerprint=workload_fingerprint(workload), pipeline=workload.has_dependencies,
        cluster_fingerprint=cluster_fingerprint(cluster), objective=objective, ready_now=ready_now, window=window,
        target="spark", levers=chosen.levers, config_fingerprint=current.fingerprint,
        simulated={"objective": objective, "runs": runs, "noise": noise, "seed": seed, "chosen": chosen.name,
                   "proposer": chosen.proposer, "keep": keep_it, "reason": reason,
                   "configuration": "default" if current.default else list(current.sources),
                   "configured_queues": dict(queues),
                   "mean": summary["mean"], "p5": summary["p5"], "p95": summary["p95"],
                   "makespan": summary["makespan"], "makespan_p5": summary["makespan_p5"],
                   "makespan_p95": summary["makespan_p95"], "p_window": summary["p_window"],
                   "bounds": bounds, "candidates": records,
                   "comparisons": compare(best, [by_name[b.name] for b in baselines], objective, seed),
                   "jobs": job_outcomes(best, night, window)},
    )


def spark_baselines(night: Workload, as_configured: Run, queues: Mapping[str, str], *, window: float | None,
                    arrivals: dict[str, float]) -> list[Setup]:
    """"FIFO on spark" and "Fair on spark" as Spark runs them: the configuration's run (its
    submission schedule, each job in its pool at priority 0; its executors' cores as containers
    offered as soon as they are free; its delay scheduling) under Spark's FIFO mode, and under
    FAIR mode with one pool per job's pool, each weight 1 and fair inside. On a FIFO
    configuration "FIFO on spark" is the configuration as it is, run for run."""
    from dataclasses import replace

    from planner.simulator.schedulers.fair import Fair
    from planner.simulator.schedulers.fifo import Fifo
    from planner.simulator.schedulers.pools import Pool

    delay = as_configured.scheduler.delay if as_configured.scheduler is not None else None
    pools = [Pool(pool, mode="fair") for pool in sorted(set(queues.values()))]
    schedulers = (("FIFO on spark", Fifo(delay=delay)), ("Fair on spark", Fair(pools=pools, delay=delay)))
    return [deployed_setup(name, "baseline", replace(as_configured, scheduler=scheduler), night, window=window,
                           arrivals=arrivals) for name, scheduler in schedulers]


def spark_proposals(night: Workload, as_configured: Run, queues: Mapping[str, str], mode: str, *,
                    objective: str, window: float | None, seed: int) -> list[Candidate]:
    """The candidates for Spark (module docstring), each as deployable levers; ``mode`` is the
    configuration's (FIFO or FAIR): a candidate in that mode leaves spark.scheduler.mode as it is."""
    fifo = None if mode == "FIFO" else "fifo"
    fair = None if mode == "FAIR" else "fair"
    candidates = [replace_scheduler(c, fifo) for c in proposals(night, as_configured, "spark", queues, "fifo", None,
                                                                objective=objective, window=window, seed=seed)]
    candidates = [Candidate(c.name if c.name.startswith("FIFO") else f"FIFO, {c.name}", c.proposer, c.levers)
                  for c in candidates]
    jobs = list(night)
    used = sorted(set(queues.values()))
    order = arrival_order(night)
    base = {"scheduler": fair, "queues": dict(queues), "order": order}
    candidates.append(Candidate("FAIR, fair pools", "Spark's FAIR mode, each pool FAIR inside",
                                Levers(**base, policies={q: "fair" for q in used})))
    candidates.append(Candidate("FAIR, FIFO pools", "Spark's FAIR mode, each pool FIFO inside",
                                Levers(**base, policies={q: "fifo" for q in used})))
    if len(used) > 1:
        work = {q: sum(job.work for job in jobs if queues[job.name] == q) for q in used}
        least = min((w for w in work.values() if w > 0), default=1.0)
        candidates.append(Candidate("FAIR, pool weights by work", "each pool's weight its work over the least "
                                    "pool's (whole numbers), so that the pools finish together",
                                    Levers(**base, policies={q: "fair" for q in used},
                                           weights={q: max(1, round(w / least)) for q, w in work.items()})))
    cores = as_configured.total_slots
    times = np.asarray([alone(job, cores) for job in jobs], dtype=float)
    name = _free_pool("small", used)
    reserve = max(1, round(SMALL_MIN_SHARE * cores))
    for threshold in sorted({math.ceil(float(np.quantile(times, q, method="lower")) * 10.0) / 10.0
                             for q in SPARK_SMALL_QUANTILES}):
        small = {job.name for job, time in zip(jobs, times, strict=True) if time <= threshold}
        if not small or len(small) == len(jobs):
            continue
        moved = {job: (name if job in small else pool) for job, pool in queues.items()}
        others = sorted({pool for job, pool in moved.items() if pool != name})
        seconds = f"{threshold:,.1f}".removesuffix(".0")
        candidates.append(Candidate(
            f"FAIR, small-jobs pool (alone <= {seconds} s, minShare {reserve})",
            f"the {len(small)} jobs taking at most {seconds} s alone in a pool {name!r} of their own (FAIR inside, "
            f"minShare {reserve} of {cores} cores), the others FIFO in their pools",
            Levers(scheduler=fair, queues=moved, order=order, policies={name: "fair", **{q: "fifo" for q in others}},
                   min_shares={name: reserve})))
    return candidates


def replace_scheduler(candidate: Candidate, scheduler: str | None) -> Candidate:
    """``candidate`` with its levers' scheduler set to ``scheduler`` and no pool settings (FIFO)."""
    from dataclasses import replace

    return replace(candidate, levers=replace(candidate.levers, scheduler=scheduler, policies={}))


def _free_pool(stem: str, taken: Sequence[str]) -> str:
    return next(name for i in range(len(taken) + 1) if (name := stem if i == 0 else f"{stem}_{i}") not in taken)
