"""What models propose to deploy on a target: `Candidate` configurations (step 1 of
`planner.planning.deploy`), from the orders of the models (`proposals`) and the small-jobs queue
(`small_queue_candidates`).

Shared by every target's planning (`planner.planning.deploy` for Hadoop's, `planner.planning.spark_deploy`
for Spark's); each candidate is a set of `planner.plans.levers.Levers` that the target's export
writes and the simulator then runs as exported.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from models import Workload
from planner.io.hadoop.applied import SUBMIT_GAP
from planner.io.hadoop.plan_files import arrival_floors
from planner.planning import arrivals, pipelines
from planner.plans.levers import Levers
from planner.simulator import Capacity, Fair
from planner.simulator.layout import ANY
from planner.simulator.run import Run
from solvers.bounds import alone

#: Priority levels an order is spread over, per target: MRv1 has five (VERY_LOW..VERY_HIGH, -2..2);
#: YARN's capacity scheduler takes integers from 0 up to `yarn.cluster.max-application-priority`.
#: YARN's fair scheduler does not order applications by priority: on yarn-fair the order is the
#: submission times alone.
PRIORITY_LEVELS = {"mrv1": (-2, 2), "yarn-capacity": (0, 99)}

#: Seconds the exact two-stage order with releases and deadlines may take, per candidate.
ORDER_TIME_LIMIT = 10.0
#: Seconds between the submissions of jobs that arrive together at one priority level: their order
#: rests on their submission times alone, and a submit command (a JVM starting) takes a while to
#: reach the scheduler. The simulation submits them so, and so pays for the spacing.
ORDER_GAP = 1.0
#: The same gap where a target's submissions are not commands (`ORDER_GAP` otherwise). Spark: the
#: submission script (`planner.io.spark.submit`) calls each job's action from a thread of its own
#: in one driver, so no JVM starts; but threads due 1 ms apart may reach Spark's scheduler in either
#: order, and Spark's FIFO follows the job ids they get. 0.1 s apart, the ids followed the order in
#: every run of the spark benchmark (`benchmarks/bench_spark.py` checks it per run).
ORDER_GAPS = {"spark": 0.1}
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


@dataclass(frozen=True)
class Candidate:
    """A deployable configuration: its name, what proposed it, its levers and (slot splits) the
    fluid model's own makespan."""

    name: str
    proposer: str
    levers: Levers
    model_makespan: float | None = None


def proposer_of(name: str, pool: Sequence[Candidate]) -> str:
    return next((c.proposer for c in pool if c.name == name), "baseline")


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
                  Levers(**base, policies=fifo_policies, order=arrival_order(night))),
    ]
    if kind == "capacity" and any(ordered.get(queue, "fifo") != "fair" for queue in used):
        candidates.append(Candidate("fair ordering", "fair ordering in each queue (ordering-policy fair: the "
                                    "job using the fewest containers first)",
                                    Levers(**base, policies={queue: "fair" for queue in used},
                                           order=arrival_order(night))))
    if kind == "fair":
        candidates.append(Candidate("Fair", "fair sharing in each queue",
                                    Levers(**base, policies={queue: "fair" for queue in used},
                                           order=arrival_order(night))))
        if len(used) > 1:
            work = {queue: sum(job.work for job in jobs if queues[job.name] == queue) for queue in used}
            least = min(w for w in work.values() if w > 0) if any(work.values()) else 1.0
            candidates.append(Candidate("Fair, queue weights by work", "each queue's weight proportional to its "
                                        "work, so that the queues finish together",
                                        Levers(**base, policies={queue: "fair" for queue in used},
                                               weights={q: max(w / least, 1.0) for q, w in work.items()},
                                               order=arrival_order(night))))
    elif target == "mrv1" and kind == "fifo":
        candidates.append(Candidate("Fair", "the fair scheduler instead of FIFO (a pool per queue, fair inside)",
                                    Levers(scheduler="fair", queues=dict(queues), order=arrival_order(night))))
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
            levers = Levers(queues=moved, policies={name: "fair"}, caps=caps, order=arrival_order(night))
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


def arrival_order(night: Workload) -> tuple[str, ...]:
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
    order, each job submitted at its arrival, jobs arriving together a gap apart in the order
    (`ORDER_GAPS`, else `ORDER_GAP`)."""
    jobs = list(night)
    low, high = PRIORITY_LEVELS.get(target, (0, 0))
    levels = min(high - low + 1, len(jobs))
    rank = {int(i): position for position, i in enumerate(order)}
    priorities = ({} if target not in PRIORITY_LEVELS else
                  {jobs[i].name: high - (rank[i] * levels) // len(jobs) for i in range(len(jobs))})
    submits: dict[str, float] = {}
    seen: dict[tuple[float, int], int] = {}
    gap = ORDER_GAPS.get(target, ORDER_GAP)
    for i in order:
        job = jobs[int(i)]
        group = (job.submit, priorities.get(job.name, 0))  # jobs arriving together at one level
        count = seen.get(group, 0)
        seen[group] = count + 1
        # a job that waits for others is submitted after them (the order lists them first)
        # (rounded to the microsecond: 0.1 s steps would otherwise print as 0.30000000000000004)
        submits[job.name] = round(max([job.submit + count * gap, *(submits[d.job] + SUBMIT_GAP for d in job.after)]), 6)
    position = {jobs[i].name: rank[i] for i in range(len(jobs))}
    rows = tuple(sorted(submits, key=lambda name: (submits[name], position[name])))
    for before, after in itertools.pairwise(rows):  # no ties: the simulator breaks them by name, not by the order
        if submits[after] <= submits[before]:
            submits[after] = round(submits[before] + SUBMIT_GAP, 6)
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
