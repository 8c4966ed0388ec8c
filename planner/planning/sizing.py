"""How many machines tonight: the cheapest cluster that meets the window with a stated
probability, proven (`size_cluster`, ``planner size``).

The sizes are ``min_nodes`` to ``max_nodes`` machines of one kind (a `models.Node`). Each size
that is simulated is *planned and proven* as `planner.planning.deploy.plan_for_target` plans a
fixed cluster (the target's levers, candidates simulated as exported, paired with the cluster as
configured): its P(meet) is the share of the plan's runs whose last job ended by the window. The
search does not simulate every size:

1. **Bounds bracket the answer** (`planner.planning.arrivals.makespan_bounds`: total work over
   the slots the configuration gives a node, and the critical path, with the profiles' times). A
   window before the critical path on unlimited machines (every job one wave) is refused: no size
   meets it. A size whose bound ends after the window is not planned (`plan_for_target` refuses
   such a window) and no P(meet) is claimed for it ("decided by the bound"). The **fluid model's
   makespan** (`fluid_end`: the jobs in submission order sharing the slots continuously, at the
   best of up to `FLUID_SPLITS` map/reduce splits) is the bracket's other end: not a bound, an
   estimate that ignores waves, stragglers and the noise, so the search starts there.
2. **The search starts at the fluid model's size**, the smallest size whose fluid makespan ends by
   the window (within the bracket): if it meets the confidence, the answer is at or below it;
   else larger sizes are tried, one more node, then two, four, ... (galloping) up to the largest
   size, and if even the largest misses, the request is refused in one line naming its P(meet).
3. **Bisection** between the largest size that missed (or the smallest the bounds allow) and the
   smallest that met, on P(meet) >= confidence. Every size uses the same seed, so its runs are the
   same biased copies of the batch (common random numbers: `planner.proof.setups.biased` depends
   on the seed and the run only).
4. **Monotonicity is checked, not assumed**: P(meet) of the simulated sizes must not fall by more
   than one run's share as the size grows (a planner that picks other levers at another size, or
   list-scheduling anomalies, can make it fall). Where it does, the result says so and every size
   of the bracket up to the answer is simulated; the check is made again over every simulated
   size at the end.
5. **Cost** (with ``price``, per node and hour): a size costs ``price x nodes x billed(makespan) /
   3600`` for its simulated mean makespan (from the batch's first arrival), ``billed(t) = ceil(t /
   billing) x billing``. With coarse billing a larger cluster can be cheaper (it may drop a billed
   hour): sizes above the smallest one that meets the confidence are simulated, in the order of
   their cost's lower bound (the bound's makespan billed), while that bound is below the best
   cost found and the budget (a third of the sizes, `BUDGET_SHARE`, the bisection's included)
   lasts; the others are reported as not examined, with the reason, and a size left out for the
   budget leaves the answer unproven.
6. **The proof** (`prove_size`, `SizingResult.proof`): the answer's plan and the next smaller
   size run again, paired run for run, on ``validation_runs`` fresh runs (another seed:
   `FRESH_SEED_OFFSET`), the smaller size with its own plan or, where the bounds rule a plan out,
   with the answer's: the answer must reach the confidence and the smaller size fall short (with
   a price: or cost more). An answer that falls short on the fresh runs moves up a size. The
   paired difference of their misses, with its 95% interval, and the jobs that decide the end
   (most often on the critical chain) come with it.

The figures are the simulator's (every P(meet), makespan and cost), except the bounds, which are
labelled as such. `SizingResult.records` is one flat record per size, for a DataFrame.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from models import Cluster, InvalidInput, Workload
from models.checks import as_bool, as_float, as_instance, as_int, as_str
from models.cluster import Node
from planner.defaults import DEFAULT_K, DEFAULT_NOISE, DEFAULT_TARGET_RUNS
from planner.limits import MAX_RUNS, MAX_SEED
from planner.planning import arrivals
from planner.plans.plan import Plan
from planner.proof.sweep import ExecutorChoice, ProgressOption
from solvers.machine_count import MACHINE_PROBLEMS, MAX_MACHINE_COUNTS, MachineCount, billed

#: The confidence asked by default: P(finish by the window) at least 0.95.
DEFAULT_CONFIDENCE = 0.95
#: Billing granularity by default (seconds): per second.
DEFAULT_BILLING = 1.0
#: The most sizes one request may span (``max_nodes - min_nodes + 1``).
MAX_SIZES = 10_000
#: The most a node may cost per hour.
MAX_PRICE = 1e6
#: The longest billing granularity (seconds): a day.
MAX_BILLING = 86_400.0
#: The proof's runs by default: at least this many (and at least the search's runs).
VALIDATION_RUNS_FLOOR = 40
#: The proof's runs are made with ``seed + FRESH_SEED_OFFSET``: seed + 1 already screens the
#: small-jobs queue candidates (`planner.planning.deploy`), so the proof's runs are none of the
#: runs that chose a plan.
FRESH_SEED_OFFSET = 1_000
#: The share of the sizes the search may simulate in all, the bisection's included, when with a
#: ``price`` it tries larger sizes for a lower cost: a third.
BUDGET_SHARE = 1 / 3
#: By default the largest size is this many times the smallest size the bounds allow (and at
#: least twice the fluid model's size).
DEFAULT_MAX_FACTOR = 4
#: The fluid model's makespan of a size is the best of at most this many map/reduce splits
#: (evenly spaced): a production day's every split would take minutes per size.
FLUID_SPLITS = 64
#: The targets a size is planned for (Spark: a node's slots are its executors' cores).
SIZING_TARGETS = ("mrv1", "yarn-fair", "yarn-capacity", "spark")


@dataclass(frozen=True)
class SizeRecord:
    """One size: ``nodes``, its ``slots`` (containers, cores), ``bound_end`` (the earliest any
    schedule ends with the profiles' times, absolute s: `arrivals.makespan_bounds`),
    ``fluid_end`` (the fluid model's end, absolute s, where the search computed it: a model's
    figure, not a bound; `fluid_end`), ``decided_by`` ("bound": after the window, so not planned and no P(meet) claimed;
    "simulation": planned and proven; "not examined"), and for a simulated size
    ``p_meet``, the plan's ``makespan`` (mean, s) and ``makespan_p95``, ``chosen`` (the plan's
    setup) and ``keep``; ``cost`` (with a price) and ``cost_bound`` (its lower bound);
    ``note`` (why a size was not examined)."""

    nodes: int
    slots: int
    bound_end: float
    decided_by: str
    fluid_end: float | None = None
    p_meet: float | None = None
    makespan: float | None = None
    makespan_p95: float | None = None
    chosen: str | None = None
    keep: bool | None = None
    cost: float | None = None
    cost_bound: float | None = None
    note: str = ""

    def record(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SizingResult:
    """The answer (`size_cluster`): ``answer`` (nodes), its ``cluster`` and ``plan``, every size's
    record (`SizeRecord`, ``sizes``), the ``proof`` (module docstring, 6), whether P(meet) was
    ``monotone`` over the simulated sizes, ``notes``, and the request: ``target``, ``window``,
    ``confidence``, ``price``, ``billing``, ``runs``, ``validation_runs``, ``noise``, ``seed``, the
    ``node``, ``ready_now`` and the ``configuration`` files; ``plans`` holds each simulated size's plan."""

    answer: int
    cluster: Cluster
    plan: Plan
    sizes: tuple[SizeRecord, ...]
    proof: dict[str, Any]
    monotone: bool
    notes: tuple[str, ...]
    target: str
    objective: str
    window: float
    confidence: float
    price: float | None
    billing: float
    runs: int
    validation_runs: int
    noise: float
    seed: int
    node: Node | None = None
    ready_now: bool = False
    configuration: tuple[str, ...] = ()
    plans: Mapping[int, Plan] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        as_int(self.answer, "answer", minimum=1)
        as_instance(self.cluster, Cluster, "cluster")
        as_instance(self.plan, Plan, "plan")
        for index, size in enumerate(self.sizes):
            as_instance(size, SizeRecord, f"sizes[{index}]")
        as_instance(self.proof, dict, "proof")
        as_bool(self.monotone, "monotone")
        as_str(self.target, "target", choices=SIZING_TARGETS)
        as_float(self.window, "window", above=0.0)
        _confidence(self.confidence)
        _price_and_billing(self.price, self.billing)
        as_int(self.runs, "runs", minimum=2, maximum=MAX_RUNS)
        as_int(self.validation_runs, "validation_runs", minimum=2, maximum=MAX_RUNS)
        if as_float(self.noise, "noise", minimum=0.0) >= 1.0:
            raise InvalidInput("noise", f"must be below 1, got {self.noise:g}")
        as_int(self.seed, "seed", minimum=0, maximum=MAX_SEED)

    def records(self) -> list[dict[str, Any]]:
        """One flat record per size, smallest first."""
        return [size.record() for size in self.sizes]

    @property
    def simulated(self) -> int:
        """How many sizes the search simulated (planned and proven)."""
        return sum(1 for size in self.sizes if size.decided_by == "simulation")

    def size(self, nodes: int) -> SizeRecord:
        """The record of ``nodes`` (`InvalidInput` for a size outside the request's range)."""
        found = next((size for size in self.sizes if size.nodes == nodes), None)
        if found is None:
            raise InvalidInput("nodes", f"{nodes} is not a size of this answer ({self.sizes[0].nodes}-"
                                        f"{self.sizes[-1].nodes})")
        return found

    def summary(self) -> dict[str, Any]:
        """The answer in one flat record: the request, the answer, its P(meet) and cost, the next
        smaller size and why it fails, the fresh proof's figures and the search's effort."""
        answer = self.size(self.answer)
        proof = self.proof
        return {"target": self.target, "window": self.window, "confidence": self.confidence,
                "answer": self.answer, "slots": answer.slots, "p_meet": answer.p_meet, "cost": answer.cost,
                "makespan": answer.makespan, "chosen": answer.chosen,
                "smaller": proof.get("smaller"), "smaller_p_meet": proof.get("smaller_p_meet"),
                "smaller_decided_by": proof.get("smaller_decided_by"),
                "fresh_p_meet": proof.get("p_meet"), "smaller_fresh_p_meet": proof.get("smaller_fresh_p_meet"),
                "proven": proof.get("proven"), "sizes": len(self.sizes), "simulated": self.simulated,
                "monotone": self.monotone}


def node_cost(price: float | None, nodes: int, seconds: float | None, billing: float) -> float | None:
    """``price`` (per node and hour) x ``nodes`` x ``seconds`` billed (`billed`), or None."""
    if price is None or seconds is None:
        return None
    return price * nodes * billed(seconds, billing) / 3600.0


def _confidence(value: object) -> float:
    """A probability strictly between 0 and 1."""
    confidence = as_float(value, "confidence", minimum=0.0, maximum=1.0)
    if not 0.0 < confidence < 1.0:
        raise InvalidInput("confidence", f"must be strictly between 0 and 1, got {confidence:g}")
    return confidence


def _price_and_billing(price: object, billing: object) -> tuple[float | None, float]:
    """A price per node and hour (>= 0, or None) and a billing granularity (s, > 0), within limits."""
    return (None if price is None else as_float(price, "price", minimum=0.0, maximum=MAX_PRICE),
            as_float(billing, "billing", above=0.0, maximum=MAX_BILLING))


def _as_node(node: Node | Cluster) -> Node:
    """``node``, or a cluster's machine (`Node.of`)."""
    return as_instance(Node.of(node) if isinstance(node, Cluster) else node, Node, "node")


def _node_range(node: Node, min_nodes: object, max_nodes: object, most: int, what: str) -> tuple[int, int | None]:
    """``min_nodes`` and ``max_nodes`` (None: not given) within `node_limit`, at most ``most``
    ``what`` between them."""
    low = as_int(min_nodes, "min_nodes", minimum=1, maximum=node_limit(node))
    high = None if max_nodes is None else as_int(max_nodes, "max_nodes", minimum=1, maximum=node_limit(node))
    if high is not None and high < low:
        raise InvalidInput("max_nodes", f"must be >= min_nodes ({low}), got {high}")
    if high is not None and high - low + 1 > most:
        raise InvalidInput("max_nodes", f"{high - low + 1:,} {what}; at most {most:,} per request")
    return low, high


def _checked(node: Node | Cluster, window: object, confidence: object, price: object, billing: object,
             min_nodes: object, max_nodes: object) -> tuple[Node, float, float, float | None, float, int, int | None]:
    node = _as_node(node)
    window = arrivals.check_window(window)
    if window is None:
        raise InvalidInput("window", "sizing needs a window: the time (absolute seconds, as submit times) the batch "
                                     "must be done by")
    low, high = _node_range(node, min_nodes, max_nodes, MAX_SIZES, "sizes")
    return (node, window, _confidence(confidence), *_price_and_billing(price, billing), low, high)


def node_limit(node: Node) -> int:
    """The most nodes of this kind a cluster may have (`models.limits`: nodes, slots, VMs)."""
    from models.limits import MAX_NODES, MAX_TOTAL_SLOTS, MAX_VMS

    per_node = node.template.map_slots + node.template.reduce_slots
    return min(MAX_NODES, MAX_TOTAL_SLOTS // max(per_node, 1), MAX_VMS // max(node.template.disks, 1))


def size_cluster(
    workload: Workload,
    node: Node | Cluster,
    target: str,
    *,
    window: float,
    confidence: float = DEFAULT_CONFIDENCE,
    price: float | None = None,
    billing: float = DEFAULT_BILLING,
    min_nodes: int = 1,
    max_nodes: int | None = None,
    objective: str = "window",
    runs: int = DEFAULT_TARGET_RUNS,
    validation_runs: int | None = None,
    noise: float = DEFAULT_NOISE,
    seed: int = 0,
    ready_now: bool = False,
    hadoop_conf: Sequence[str | Path] | None = None,
    spark_conf: Sequence[str | Path] | None = None,
    queue_map: Mapping[str, str] | None = None,
    executor: ExecutorChoice = None,
    progress: ProgressOption = False,
) -> SizingResult:
    """The cheapest number of ``node`` machines on which ``target``'s plan finishes ``workload``
    by ``window`` (absolute seconds) with probability at least ``confidence`` (module docstring).
    ``node`` is a `models.Node` (or a `Cluster`, whose machine and nodes per rack are used);
    ``price`` is per node and hour, ``billing`` the billing granularity (s); ``min_nodes`` and
    ``max_nodes`` the sizes to consider (default largest: `DEFAULT_MAX_FACTOR` times the smallest
    size the bounds allow). Each simulated size is planned by `plan_for_target` with ``objective``
    (default "window": the least chance to miss it), ``runs`` runs, ``noise`` and ``seed`` (the
    same at every size); the proof uses ``validation_runs`` fresh runs (default ``runs``, at least
    `VALIDATION_RUNS_FLOOR`).
    Configuration files (``hadoop_conf``, ``spark_conf``) must not fix the number of nodes."""
    from planner.planning.deploy import plan_for_target
    from planner.planning.request import target_request

    as_instance(workload, Workload, "workload")
    target = as_str(target, "target", choices=SIZING_TARGETS)
    node, window, confidence, price, billing, low, high = _checked(node, window, confidence, price, billing,
                                                                   min_nodes, max_nodes)
    if target == "spark" and hadoop_conf:
        raise InvalidInput("hadoop_conf", "a Spark cluster is sized from Spark's files: give them as spark_conf")
    if target != "spark" and spark_conf:
        raise InvalidInput("spark_conf", f"applies to sizing for spark, not {target}: give Hadoop's files as "
                                         "hadoop_conf")
    conf = spark_conf if target == "spark" else hadoop_conf
    on_conf = _configured_slots(conf, target)
    asked = target_request(workload, node.cluster(low), conf, "spark_conf" if target == "spark" else "hadoop_conf",
                           queue_map, objective, window, runs, noise, seed, ready_now)
    runs, noise, seed, night = asked.runs, asked.noise, asked.seed, asked.night
    validation_runs = (max(runs, VALIDATION_RUNS_FLOOR) if validation_runs is None
                       else as_int(validation_runs, "validation_runs", minimum=2, maximum=MAX_RUNS))
    first = min((job.submit for job in night), default=0.0)
    reach = arrivals.makespan_bounds(night, _unlimited_slots(night))["critical_path"]
    if window < first + reach:
        raise InvalidInput("window", f"{window:,.0f} s is before {first + reach:,.0f} s, the critical path with every "
                                     "job in one wave (the longest job, or chain of jobs that wait for jobs, from its "
                                     "arrival, with the profiles' times): no size meets it")
    def slots_of(nodes: int) -> int:
        return on_conf(node.cluster(nodes)).total_slots

    def bound_end(nodes: int) -> float:
        """The earliest any schedule ends on ``nodes`` with the profiles' times
        (`arrivals.makespan_bounds`: work over the slots, the critical path). A plan for a
        window before it is refused (`plan_for_target`); a run whose jobs are faster than their
        profiles (the noise) may still end by the window, which the proof measures."""
        return first + arrivals.makespan_bounds(night, slots_of(nodes))["makespan"]

    smallest = _first_within(low, node_limit(node), lambda n: bound_end(n) <= window)
    fluid = FluidEnds(night, slots_of)
    guess = None if smallest is None else _first_within(smallest, node_limit(node), lambda n: fluid(n) <= window)
    if high is None:
        high = max(low, min(node_limit(node), max(DEFAULT_MAX_FACTOR * (smallest or low), 2 * (guess or 0)),
                            low + MAX_SIZES - 1))
    if smallest is None or smallest > high:
        needed = "" if smallest is None else f": the bounds need at least {smallest:,} nodes"
        raise InvalidInput("max_nodes", f"even {high:,} nodes cannot end by {window:,.0f} s: no schedule ends before "
                                        f"{bound_end(high):,.0f} s on them with the profiles' times{needed}")
    count = high - low + 1
    budget = max(2, math.ceil(BUDGET_SHARE * count))
    plans: dict[int, Plan] = {}
    notes: list[str] = []

    def simulate(nodes: int) -> Plan:
        if nodes not in plans:
            plans[nodes] = plan_for_target(workload, node.cluster(nodes), target, objective=objective, window=window,
                                           ready_now=ready_now, runs=runs, noise=noise, seed=seed,
                                           executor=executor, progress=progress, queue_map=queue_map,
                                           hadoop_conf=hadoop_conf, spark_conf=spark_conf)
            fluid(nodes)  # every simulated size's record shows the model's figure beside the simulation's
        return plans[nodes]

    def p_meet(nodes: int) -> float:
        value = simulate(nodes).simulated["p_window"]
        return 0.0 if value is None else float(value)

    def refuse_at_high() -> NoReturn:
        raise InvalidInput("max_nodes", f"even {high:,} nodes meet the window with P = {p_meet(high):.2f} "
                                        f"(< {confidence:g}, {runs} runs): more nodes than that are needed")

    start = min(max(guess if guess is not None else high, smallest), high)
    if p_meet(start) >= confidence:
        lowest, top = smallest, start
    else:  # galloping up from the fluid model's size: 1, 2, 4, ... nodes more
        missed, step = start, 1
        while True:
            if missed >= high:
                refuse_at_high()
            larger = min(high, missed + step)
            if p_meet(larger) >= confidence:
                lowest, top = missed + 1, larger
                break
            missed, step = larger, 2 * step
    while lowest < top:  # P(meet) >= confidence holds at top
        middle = (lowest + top) // 2
        if p_meet(middle) >= confidence:
            top = middle
        else:
            lowest = middle + 1
    answer = top
    if smallest <= answer - 1:  # the next smaller size: compared in the proof and in the price search
        p_meet(answer - 1)
    monotone, fall = _monotone(plans, p_meet, runs)
    if not monotone:
        notes.append(f"P(meet) is not monotone in the size: {fall}; every size from {smallest} up to the answer was "
                     "simulated")
        answer = min((n for n in range(smallest, answer + 1) if p_meet(n) >= confidence), default=answer)
    fresh = (seed + FRESH_SEED_OFFSET) % (MAX_SEED + 1)
    while True:
        skipped = 0
        if price is not None:
            answer, skipped = _cheapest(answer, high, plans, p_meet, bound_end, price, billing, confidence, budget,
                                        first)
        if smallest <= answer - 1:
            p_meet(answer - 1)
        sizes = tuple(_record(n, slots_of(n), bound_end(n), fluid.known(n), window, plans, price, billing, first, answer,
                              confidence) for n in range(low, high + 1))
        result = SizingResult(answer, node.cluster(answer), plans[answer], sizes, {}, monotone, tuple(notes), target,
                              objective, window, confidence, price, billing, runs, validation_runs, noise, seed, node,
                              bool(ready_now), tuple(str(path) for path in conf or ()), dict(plans))
        proof = prove_size(result, workload, runs=validation_runs, seed=fresh, executor=executor, progress=progress)
        if skipped:
            proof["proven"] = False
            notes.append(f"{skipped} larger size(s) whose cost's lower bound is below the answer's cost were not "
                         f"simulated: the search's budget ({budget} simulated sizes, a third of {count}) was spent; "
                         "the answer is the cheapest of the sizes examined")
        if proof["p_meet"] >= confidence or answer >= high:
            break
        # the fresh runs fall short: the search's runs were kind to this size; the next size up
        notes.append(f"{answer} nodes met the window on {proof['p_meet']:.0%} of the proof's {validation_runs} fresh "
                     f"runs (the search's {runs}: {p_meet(answer):.0%}): the answer moved up to {answer + 1}")
        answer += 1
        p_meet(answer)
    monotone, fall = _monotone(plans, p_meet, runs)  # again, over every size simulated
    if not monotone and not any(note.startswith("P(meet) is not monotone") for note in notes):
        notes.append(f"P(meet) is not monotone in the size: {fall}")
    return replace(result, proof=proof, monotone=monotone, notes=tuple(notes), plans=dict(plans))


def _unlimited_slots(night: Workload) -> int:
    """Enough slots for every job to run each stage in one wave: the critical path's floor."""
    return max([1, *(max(job.map_tasks, job.reduce_tasks) for job in night)])


class FluidEnds:
    """The fluid model's end of the batch ``night`` on each size (absolute s, memoized): the jobs in
    submission order (each after the jobs it waits for), from their arrivals, sharing
    ``slots_of(nodes)`` slots continuously (`solvers.slots.fluid`, model "fresh", ``DEFAULT_K``
    jobs at once), at the best of at most `FLUID_SPLITS` evenly spaced map/reduce splits. It
    ignores waves, stragglers and the noise: an estimate that starts the search, never a bound."""

    def __init__(self, night: Workload, slots_of: Any) -> None:
        self.night = night
        self.slots_of = slots_of
        self._ends: dict[int, float] = {}
        self._phases: Any = None

    def __call__(self, nodes: int) -> float:
        if nodes not in self._ends:
            self._ends[nodes] = self._end(self.slots_of(nodes))
        return self._ends[nodes]

    def known(self, nodes: int) -> float | None:
        """The end of ``nodes`` if the search computed it, else None."""
        return self._ends.get(nodes)

    def _end(self, slots: int) -> float:
        from solvers.ordering.admission_orders import submission_order
        from solvers.slots.fluid import fluid_makespans
        from solvers.slots.work import PhaseWork

        jobs = list(self.night)
        first = min((job.submit for job in jobs), default=0.0)
        if not jobs or slots < 2:  # no split: one slot runs every task in turn
            return first + sum(job.map_work + job.reduce_work for job in jobs)
        if self._phases is None:
            self._phases = PhaseWork.from_jobs(jobs, np.array(submission_order(self.night), dtype=np.int64),
                                               arrivals.releases_of(self.night, False))
        splits = np.unique(np.linspace(1, slots - 1, min(FLUID_SPLITS, slots - 1)).round().astype(np.int64))
        return first + float(fluid_makespans(self._phases, slots, min(DEFAULT_K, len(jobs)), splits, "fresh").min())


def _first_within(low: int, high: int, ok: Any) -> int | None:
    """The smallest n in [low, high] with ok(n), for ok monotone (False then True); None if none."""
    if low > high or not ok(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if ok(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _monotone(plans: Mapping[int, Plan], p_meet: Any, runs: int) -> tuple[bool, str]:
    """Whether P(meet) never falls by more than one run's share from a simulated size to a larger
    one; else the first such fall, in words."""
    sizes = sorted(plans)
    tolerance = 1.0 / runs + 1e-9
    for index, smaller in enumerate(sizes):
        for larger in sizes[index + 1:]:
            if p_meet(smaller) - p_meet(larger) > tolerance:
                return False, (f"{p_meet(smaller):.2f} at {smaller} nodes, {p_meet(larger):.2f} at {larger}")
    return True, ""


def _cheapest(answer: int, high: int, plans: dict[int, Plan], p_meet: Any, bound_end: Any, price: float,
              billing: float, confidence: float, budget: int, first: float) -> tuple[int, int]:
    """The cheapest size meeting the confidence (module docstring, 5), and how many sizes whose
    cost's lower bound is below it were left unsimulated for the budget."""
    def cost(nodes: int) -> float:
        return node_cost(price, nodes, plans[nodes].simulated["makespan"], billing) or 0.0

    def cost_bound(nodes: int) -> float:
        return node_cost(price, nodes, bound_end(nodes) - first, billing) or 0.0

    best = min((n for n in plans if p_meet(n) >= confidence), key=lambda n: (cost(n), n))
    waiting = sorted((n for n in range(answer + 1, high + 1) if n not in plans), key=lambda n: (cost_bound(n), n))
    skipped = 0
    for nodes in waiting:
        if (cost_bound(nodes), nodes) > (cost(best), best):  # neither cheaper nor, at the same cost, smaller
            break
        if len(plans) >= budget:
            skipped += 1
            continue
        if p_meet(nodes) >= confidence and (cost(nodes), nodes) < (cost(best), best):
            best = nodes
    return best, skipped


def _record(nodes: int, slots: int, end: float, fluid_end: float | None, window: float, plans: Mapping[int, Plan],
            price: float | None, billing: float, first: float, answer: int, confidence: float) -> SizeRecord:
    bound_cost = node_cost(price, nodes, end - first, billing)
    if nodes in plans:
        simulated = plans[nodes].simulated
        return SizeRecord(nodes, slots, end, "simulation", fluid_end=fluid_end, p_meet=float(simulated["p_window"] or 0.0),
                          makespan=simulated["makespan"], makespan_p95=simulated["makespan_p95"],
                          chosen=simulated["chosen"], keep=bool(simulated["keep"]),
                          cost=node_cost(price, nodes, simulated["makespan"], billing), cost_bound=bound_cost)
    if end > window:
        return SizeRecord(nodes, slots, end, "bound", fluid_end=fluid_end, cost_bound=bound_cost,
                          note=f"no schedule ends before {end:,.0f} s with the profiles' times: not planned")
    first_met = min((n for n, plan in plans.items() if (plan.simulated["p_window"] or 0.0) >= confidence),
                    default=answer)
    if nodes < first_met:
        note = "below the smallest simulated size that meets the confidence (P(meet) monotone over the simulated sizes)"
    elif price is None:
        note = "larger than the answer"
    else:
        best = node_cost(price, answer, plans[answer].simulated["makespan"], billing) or 0.0
        note = ("larger than the answer, and its cost's lower bound is not below the answer's cost"
                if (bound_cost or 0.0) >= best else "larger than the answer; not examined: the search's budget")
    return SizeRecord(nodes, slots, end, "not examined", fluid_end=fluid_end, cost_bound=bound_cost, note=note)


def _configured_slots(conf: Sequence[str | Path] | None, target: str) -> Any:
    """How the configuration sets a cluster's slots (Hadoop's files: a node's containers from
    yarn-site.xml, its slots from mapred-site.xml; `planner.io.hadoop.conf.HadoopSetup.on`), so that
    the bounds count the slots the plans run on; Spark's cores are the node's. Files that fix the
    machines (an SLS nodes file, a slot group's hosts file), given alone or in a folder, are
    refused: the size is the decision."""
    if target == "spark" or not conf:
        return lambda cluster: cluster
    from planner.io.hadoop.conf import conf_files, read_hadoop_conf

    files = conf_files(conf, "hadoop_conf")
    fixed = next((path for path in files if path.suffix.lower() in (".hosts", ".json")), None)
    if fixed is not None:  # a slot group's hosts, an SLS nodes file
        raise InvalidInput("hadoop_conf", f"{fixed.name} names the cluster's machines; sizing decides them: leave "
                                          "it out", source=str(fixed))
    setup = read_hadoop_conf(files, warn=False)
    if "nodes" in setup.cluster or setup.slots is not None:
        raise InvalidInput("hadoop_conf", "the files fix the cluster's nodes or slots; sizing decides them: leave "
                                          "them out")
    return setup.on


def _deployed(plan: Plan, workload: Workload, cluster: Cluster, target: str,
              conf: Sequence[str | Path] | None) -> Any:
    """The plan as it runs once applied on ``cluster``."""
    if target == "spark":
        from planner.io.spark.target import spark_plan_run

        return spark_plan_run(plan, workload, cluster, conf)
    from planner.proof.validate import target_run

    return target_run(plan, workload, cluster, conf)


def prove_size(result: SizingResult, workload: Workload, *, runs: int, seed: int, executor: ExecutorChoice = None,
               progress: ProgressOption = False) -> dict[str, Any]:
    """The answer's plan and the next smaller size's plan (module docstring, 6) run again on
    ``runs`` runs of ``seed``, paired run for run: ``p_meet`` and ``smaller_fresh_p_meet``,
    ``smaller_decided_by`` ("simulation" or "bound"), ``paired`` (`planner.proof.paired.paired_mean`
    of the misses: the smaller size's extra misses), ``critical_jobs`` (the answer's runs' critical
    chains, `planner.proof.validate.critical_jobs`) and ``proven``: the answer reaches the
    confidence, and the smaller size falls short, or (with a price) costs more. `size_cluster`
    runs it with ``validation_runs`` and seed + `FRESH_SEED_OFFSET`; a benchmark can run it again
    with other seeds."""
    from planner.proof.deployed import deployed_setup, measure
    from planner.proof.paired import paired_mean
    from planner.proof.setups import all_ready
    from planner.proof.validate import critical_jobs

    as_instance(result, SizingResult, "result")
    runs = as_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    seed = as_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    if result.node is None:
        raise InvalidInput("result", "has no node: make it with size_cluster")

    node, answer, smaller = result.node, result.answer, result.answer - 1
    night = all_ready(workload) if result.ready_now else workload
    arrived = {job.name: job.submit for job in night}
    conf = list(result.configuration) or None
    setups = [deployed_setup(f"{answer} nodes", "plan",
                             _deployed(result.plans[answer], workload, node.cluster(answer), result.target, conf),
                             night, window=result.window, arrivals=arrived)]
    below = result.size(smaller) if any(size.nodes == smaller for size in result.sizes) else None
    if below is not None and below.decided_by not in ("simulation", "bound"):
        raise InvalidInput("result", f"{smaller} nodes were neither simulated nor ruled out by the bounds: "
                                     "cannot compare the answer with them")
    if below is not None:  # its own plan; or, where the bounds rule a plan out, the answer's plan on it
        plan = result.plans.get(smaller, result.plans[answer])
        setups.append(deployed_setup(f"{smaller} nodes", "baseline",
                                     _deployed(plan, workload, node.cluster(smaller), result.target, conf),
                                     night, window=result.window, arrivals=arrived))
    measured = measure(setups, runs=runs, noise=result.noise, seed=seed, executor=executor, progress=progress,
                       description="proving the size", chains=True)
    missed = measured[0].values("window")
    proof: dict[str, Any] = {"runs": runs, "seed": seed, "p_meet": float(1.0 - np.mean(missed)),
                             "smaller": smaller if below is not None else None,
                             "critical_jobs": critical_jobs(measured[0])[:5]}
    if below is not None:
        other = measured[1].values("window")
        proof.update(smaller_fresh_p_meet=float(1.0 - np.mean(other)), smaller_decided_by=below.decided_by,
                     smaller_p_meet=below.p_meet,
                     paired=paired_mean(missed, other, seed))  # other - answer: the smaller size's extra misses
    short = proof.get("smaller_fresh_p_meet") is None or proof["smaller_fresh_p_meet"] < result.confidence
    if result.price is not None and below is not None and proof.get("smaller_decided_by") == "simulation":
        # with a price the answer may be larger than the smallest size that meets the window: the
        # next smaller size then meets it too, and costs more
        proof["cost"], proof["smaller_cost"] = result.size(answer).cost, below.cost
        short = short or (below.cost or 0.0) > (proof["cost"] or 0.0)
    proof["proven"] = bool(proof["p_meet"] >= result.confidence and short)
    return proof


def sizing_markdown(result: SizingResult, figure: str | None = None) -> str:
    """The answer in words an operator can hand on (module docstring): the recommended size, its
    cost and P(meet), the next smaller size and why it fails, the jobs that decide the end, the
    search's effort, and every size's record."""
    answer, proof = result.size(result.answer), result.proof
    cost = "" if answer.cost is None else f", at a cost of {answer.cost:,.2f} (its mean makespan billed)"
    lines = [f"# How many nodes: {result.target}, done by {result.window:,.0f} s", "",
             f"**{answer.nodes} nodes** ({answer.slots:,} slots) finish the batch by {result.window:,.0f} s with "
             f"P = {answer.p_meet:.2f} (simulated, {result.runs} runs; {proof['p_meet']:.2f} on {proof['runs']} fresh "
             f"runs){cost}: {'at least' if proof['p_meet'] >= result.confidence else 'BELOW'} the "
             f"{result.confidence:g} asked. The plan there: {answer.chosen}"
             f"{' (keep the configuration)' if answer.keep else ''}.", ""]
    smaller = proof.get("smaller")
    if smaller is None:
        lines.append(f"It is the smallest size considered (--min {answer.nodes}): no smaller size was compared.")
    elif proof.get("smaller_decided_by") == "bound":
        lines.append(f"{smaller} nodes: no schedule ends before {result.size(smaller).bound_end:,.0f} s on them with "
                     f"the profiles' times (total work over the slots, the critical path), after the window, so no "
                     f"plan is made for them; the answer's plan on them meets the window on "
                     f"{proof['smaller_fresh_p_meet']:.0%} of the fresh runs (jobs up to {result.noise:.0%} faster "
                     "than their profiles).")
    else:
        why = (f"meet it with P = {proof['smaller_p_meet']:.2f} (simulated; {proof['smaller_fresh_p_meet']:.2f} on "
               "the fresh runs)")
        paired = proof.get("paired")
        if paired:
            why += (f"; run for run they miss the window {paired['mean_difference']:+.2f} more often (95% interval "
                    f"{paired['ci_low']:+.2f} to {paired['ci_high']:+.2f})")
        if "smaller_cost" in proof and proof["smaller_fresh_p_meet"] >= result.confidence:
            dearer = (proof["smaller_cost"] or 0.0) > (proof["cost"] or 0.0)
            why += (f", but cost more ({proof['smaller_cost']:,.2f})" if dearer else
                    f", and cost no more ({proof['smaller_cost']:,.2f}): not proven")
        lines.append(f"{smaller} nodes {why}.")
    lines += ["", f"Proven: {'yes' if proof['proven'] else 'NO'} (fresh runs, seed {proof['seed']})."]
    if proof.get("critical_jobs"):
        jobs = ", ".join(f"{job['job']} (on the chain in {job['on_chain_share']:.0%} of the runs, last in "
                         f"{job['last_share']:.0%})" for job in proof["critical_jobs"])
        lines += ["", f"The jobs that decide the end (on the runs' critical chain most often): {jobs}."]
    lines += ["", f"Search: {result.simulated} of {len(result.sizes)} sizes simulated (each planned and proven); "
                  f"P(meet) {'monotone' if result.monotone else 'NOT monotone'} over them. In the table, "
                  "bound_end is the bounds' earliest end and fluid_end the fluid model's (a model's estimate, "
                  "where the search computed it: it chose the first size simulated).", *result.notes]
    if figure:
        lines += ["", f"![P(finish by the window) by size]({figure})"]
    columns = ("nodes", "slots", "decided_by", "p_meet", "makespan", "cost", "bound_end", "fluid_end", "chosen", "note")
    return "\n".join([*lines, "", *_table(result.records(), columns)]) + "\n"


def _table(records: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> list[str]:
    """A Markdown table of ``records``' ``columns``."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
            *("| " + " | ".join(_cell(record.get(column)) for column in columns) + " |" for record in records)]


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value).replace("|", "/")


def write_sizing_report(result: SizingResult, directory: str | Path) -> dict[str, Path]:
    """Write the answer into ``directory`` (created if needed), each file atomically: sizing.png
    (`planner.plots.plot_sizing`), report.md (`sizing_markdown`), sizing.json (the summary, the
    proof and every size's record), cluster.yaml (the answer's cluster) and plan.json (its plan)."""
    import planner.plots as plots

    as_instance(result, SizingResult, "result")
    data = {"summary": result.summary(), "proof": result.proof, "sizes": result.records(), "notes": list(result.notes)}
    paths = _write_report(directory, "sizing", lambda ax: plots.plot_sizing(result, ax),
                          sizing_markdown(result, "sizing.png"), data)
    paths.update(cluster=paths["markdown"].with_name("cluster.yaml"), plan=paths["markdown"].with_name("plan.json"))
    result.cluster.to_file(paths["cluster"])
    result.plan.to_file(paths["plan"])
    return paths


def _write_report(directory: str | Path, name: str, draw: Any, markdown: str, data: Mapping[str, Any]) -> dict[str, Path]:
    """``directory``'s NAME.png (``draw`` on a new figure's axes), report.md and NAME.json, each
    written atomically, the figure first (the Markdown links to it); their paths by artefact."""
    import json

    from matplotlib.figure import Figure

    from models.checks import as_path
    from models.fileio import write_atomic
    from planner.proof.report import png

    folder = Path(as_path(directory, "directory"))
    figure = Figure(figsize=(8, 5), layout="constrained")
    draw(figure.add_subplot())
    paths = {"figure": folder / f"{name}.png", "markdown": folder / "report.md", "json": folder / f"{name}.json"}
    write_atomic(paths["figure"], png(figure))
    write_atomic(paths["markdown"], markdown)
    write_atomic(paths["json"], json.dumps(data, indent=1, default=str) + "\n")
    return paths


def size_machines(
    workload: Workload,
    node: Node | Cluster,
    strategy: str,
    *,
    min_nodes: int = 1,
    max_nodes: int,
    price: float | None = None,
    billing: float = DEFAULT_BILLING,
    window: float | None = None,
    solver: str | None = None,
    time_limit: float = 60.0,
    seed: int = 0,
) -> MachineCount:
    """A VM plan's number of machines as a decision (`solvers.machine_count.cheapest_machine_count`):
    ``strategy`` "pairs" or "packing", every P from ``min_nodes`` to ``max_nodes`` machines of
    ``node``'s kind (its disks, primaries per extra VM and overcommit penalty), solved exactly
    (``solver``, default "milp") or pruned by the profiles' bound; ``window`` (s, from the start)
    keeps the P whose schedule ends in time. Jobs without a runtime profile get one derived from
    their tasks once, on the largest cluster (`planner.planning.vm.derived_profiles`), so that every
    P prices the same profiles."""
    from planner.planning.vm import check_solver, derived_profiles
    from solvers.machine_count import cheapest_machine_count
    from solvers.packing.problem import MAX_PACKING_VMS

    as_instance(workload, Workload, "workload")
    strategy = as_str(strategy, "strategy", choices=MACHINE_PROBLEMS)
    node = _as_node(node)
    low, given = _node_range(node, min_nodes, max_nodes, MAX_MACHINE_COUNTS, "machine counts")
    high = as_int(given, "max_nodes")  # required here
    if strategy == "packing" and high * node.template.disks > MAX_PACKING_VMS:
        raise InvalidInput("max_nodes", f"{high:,} machines of {node.template.disks} disks are "
                                        f"{high * node.template.disks:,} VMs; packing plans take at most "
                                        f"{MAX_PACKING_VMS} (at most {MAX_PACKING_VMS // node.template.disks} machines)")
    price, billing = _price_and_billing(price, billing)
    method = check_solver(strategy, solver)
    profiled = derived_profiles(workload, node.cluster(high))
    found = cheapest_machine_count(list(profiled), node.template, range(low, high + 1), problem=strategy,
                                   method=method, price=price, billing=billing, window=window, time_limit=time_limit,
                                   seed=seed)
    if found.machines is not None:
        _warn_outside_fits(profiled, node.cluster(found.machines).vms)
    return found


def _warn_outside_fits(workload: Workload, vms: int) -> None:
    """One warning naming the jobs whose fitted profile the answer's VMs (1 to ``vms``) leave."""
    import warnings

    from models import ExtrapolationWarning

    outside = []
    for job in workload:
        fitted = getattr(job.profile, "n_range_", None)
        if fitted is not None and (vms > fitted[1] or fitted[0] > 1):
            outside.append(f"{job.name} (fitted on {fitted[0]:g}..{fitted[1]:g})")
    if outside:
        warnings.warn(f"the answer's schedule may run jobs on 1 to {vms} VMs, outside the range their profiles were "
                      f"fitted on: {', '.join(outside[:10])}{', ...' if len(outside) > 10 else ''}",
                      ExtrapolationWarning, stacklevel=3)


def machine_count_markdown(result: MachineCount, figure: str | None = None) -> str:
    """A VM plan's number of machines in words (`size_machines`): the answer, its cost and time,
    whether it is proven over the range, and every P's record."""
    unit = "machine-seconds" if result.price is None else "cost"
    lines = [f"# How many machines: the {result.problem} plan", ""]
    if result.machines is None:
        lines.append("No number of machines in the range ends the schedule by the window.")
    else:
        cost = f"{result.cost:,.0f} machine-seconds" if result.price is None else f"a cost of {result.cost:,.2f}"
        lines.append(f"**{result.machines} machines**: the {result.problem} schedule takes {result.makespan:,.0f} s, "
                     f"{cost} ({result.method}; billed in units of {result.billing:g} s).")
        lines.append("")
        lines.append("Proven optimal over the range: every count was solved to optimality or its bound was no cheaper."
                     if result.proven else "NOT proven over the range: some count was not solved to optimality.")
    records = result.records()
    lines += ["", f"Solved {result.solved} of {len(records)} counts; the others were pruned by their bound."]
    if figure:
        lines += ["", f"![{unit} by the number of machines]({figure})"]
    columns = ("machines", "vms", "status", "makespan", "bound", "cost", "cost_bound")
    return "\n".join([*lines, "", *_table(records, columns)]) + "\n"


def write_machine_count_report(result: MachineCount, directory: str | Path) -> dict[str, Path]:
    """Write a `size_machines` answer into ``directory``, each file atomically: machines.png
    (`planner.plots.plot_machine_count`), report.md (`machine_count_markdown`) and machines.json
    (`MachineCount.summary` and every count's record)."""
    import planner.plots as plots

    as_instance(result, MachineCount, "result")
    return _write_report(directory, "machines", lambda ax: plots.plot_machine_count(result, ax),
                         machine_count_markdown(result, "machines.png"),
                         {**result.summary(), "counts": result.records()})
