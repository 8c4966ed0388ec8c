"""How many machines (issue 42): the cheapest cluster that meets the window, found without
simulating every size and proven on fresh runs; and the number of machines of a packing plan as
a decision, proven optimal over a range.

Sizing (`planner.planning.sizing.size_cluster`, target yarn-fair, 20 runs a size, noise 0.3,
seed 0, confidence 0.95): the demo batch on the demo cluster's machine (2 + 2 slots), priced
(`PRICE` a node-hour, billed by the hour, so that the cost search runs), and two
FB-2009 windows of the plans benchmark (`benchmarks.bench_plans`: 10:00-12:00 and 01:00-03:00,
all ready at 0 s) on its machine (4 + 2 slots). Each case's window is `WINDOW_SLACK` times the
makespan bound on the case's reference cluster (20 and 10 nodes), and its sizes run from a quarter
to twice the reference, so that the answer is neither the smallest nor the largest size. Rows
per case:

- "answer": objective = the answer (nodes); detail: its P(meet), the next smaller size and its
  P(meet) or bound, cost, the sizes simulated;
- "fresh validation": the answer's and the next smaller size's plans run again on
  `VALIDATION_RUNS` runs of another seed (`VALIDATION_SEED`, none of the search's or the
  proof's), paired (`planner.planning.sizing.prove_size`): objective = the answer's P(meet),
  floor: at least the confidence;
- "smaller misses": objective = the next smaller size's P(meet) on those runs (its own plan, or,
  where the bounds rule a plan out, the answer's plan on it), floor: below the confidence;
- "the answer is inside the range": floor: neither the smallest nor the largest size;
- "sizes simulated": objective = simulated sizes / sizes, floor: at most a third.

Packing (the floor) and pairs with P as a decision (`solvers.machine_count.cheapest_machine_count`,
the Packing paper's W1-W6 on its machine: k = 2, r = 2, alpha = 1.3; P from 4 to 16; billing by
the minute; method milp): objective = the cost (machine-seconds), with the pruned search against
the brute force (every P solved): floor: proven optimal over the range and the same answer
(``gap`` 0 when both hold). The detail gives how many counts the profiles' bound pruned and how
tight it is (bound / optimum over P).
"""

from __future__ import annotations

import time

from benchmarks.bench_plans import FB09_WINDOWS, FB_NODES, fb09_window
from benchmarks.registry import Row, register
from models import Cluster, Node, Workload
from planner.examples.demo import DEMO_CLUSTER, nightly_batch
from planner.examples.workloads import MIXES, packing_workload, paper_cluster
from planner.planning.arrivals import batch_bounds
from planner.proof.setups import all_ready

NAME = "sizing"
TARGET = "yarn-fair"
CONFIDENCE = 0.95
RUNS = 20
#: The fresh validation: runs and a seed none of the search's (0) or the proof's (1,000) runs use.
VALIDATION_RUNS, VALIDATION_SEED = 40, 424_242
#: The window: this many times the makespan bound on the case's reference cluster.
WINDOW_SLACK = 1.3
#: The FB-2009 windows of the plans benchmark sized here (all ready at 0 s).
FB09_CASES = ("fb09-10h-12h", "fb09-1h-3h")
#: The demo's price per node and hour, billed by the hour (the cost search runs on it).
PRICE, HOURLY = 2.0, 3600.0
#: Packing: the machine counts P and the billing granularity (s).
MACHINES, BILLING = range(4, 17), 60.0


def cases(suite: str) -> list[tuple[str, Workload, Cluster, float | None]]:
    """(name, batch, reference cluster, price per node-hour or None)."""
    chosen: list[tuple[str, Workload, Cluster, float | None]] = [("demo", nightly_batch(), DEMO_CLUSTER, None),
                                                                  ("demo", nightly_batch(), DEMO_CLUSTER, PRICE)]
    if suite == "full":
        windows = {name: (start, end) for name, start, end, ready in FB09_WINDOWS if ready}
        chosen += [(name, fb09_window(name, *windows[name]), FB_NODES, None) for name in FB09_CASES]
    return chosen


def window_for(workload: Workload, reference: Cluster) -> float:
    """`WINDOW_SLACK` times the makespan bound of the batch (all ready at 0 s) on ``reference``."""
    bounds = batch_bounds(all_ready(workload), reference.total_slots, None)
    return round(WINDOW_SLACK * bounds["makespan"], 0)


def sizing_rows(name: str, workload: Workload, reference: Cluster, price: float | None = None) -> list[Row]:
    from planner.planning.sizing import prove_size, size_cluster

    window = window_for(workload, reference)
    low, high = max(1, reference.nodes // 4), 2 * reference.nodes
    priced = "" if price is None else f", {price:g} a node-hour billed hourly"
    instance = f"{name} ({len(workload)} jobs), window {window:,.0f} s, {low}-{high} nodes{priced}"
    clock = time.perf_counter()
    result = size_cluster(workload, Node.of(reference), TARGET, window=window, confidence=CONFIDENCE,
                          min_nodes=low, max_nodes=high, runs=RUNS, ready_now=True, seed=0, price=price,
                          billing=HOURLY if price is not None else 1.0)
    seconds = time.perf_counter() - clock
    answer, smaller = result.size(result.answer), result.proof.get("smaller")
    clock = time.perf_counter()
    fresh = prove_size(result, workload, runs=VALIDATION_RUNS, seed=VALIDATION_SEED)
    proving = time.perf_counter() - clock
    below = "none in the range" if smaller is None else (
        f"{smaller} nodes ({result.size(smaller).decided_by})" + (
            "" if result.size(smaller).p_meet is None else f": P(meet) {result.size(smaller).p_meet:.2f}"))
    cost = "" if answer.cost is None else f", cost {answer.cost:,.2f} (mean makespan {answer.makespan:,.0f} s billed)"
    rows = [Row(NAME, instance, "answer", float(result.answer), None, None, round(seconds, 2), "ok", 1,
                detail=f"{result.answer} nodes ({answer.slots} slots): P(meet) {answer.p_meet:.2f} (simulated, {RUNS} "
                       f"runs){cost}, plan {answer.chosen}; next smaller {below}; {result.simulated} of "
                       f"{len(result.sizes)} sizes simulated; monotone {result.monotone}; the proof's fresh runs "
                       f"(seed {result.proof['seed']}): {result.proof['p_meet']:.2f}, proven {result.proof['proven']}")]
    rows.append(Row(NAME, instance, "fresh validation: the answer", round(fresh["p_meet"], 4), None, None,
                    round(proving, 2), "ok" if fresh["p_meet"] >= CONFIDENCE else "below the confidence", 1,
                    detail=f"{result.answer} nodes on {VALIDATION_RUNS} runs of seed {VALIDATION_SEED}; floor: P(meet) "
                           f">= {CONFIDENCE}", floor_least=CONFIDENCE))
    missed = fresh.get("smaller_fresh_p_meet")
    how = fresh.get("smaller_decided_by", "none")
    paired = fresh.get("paired")
    more = "" if not paired else (f"; paired: the smaller size misses {paired['mean_difference']:+.2f} more often "
                                  f"(95% interval {paired['ci_low']:+.2f} to {paired['ci_high']:+.2f})")
    if price is None:
        rows.append(Row(NAME, instance, "fresh validation: the next smaller size misses",
                        None if missed is None else round(missed, 4), None, None, 0.0,
                        "ok" if missed is not None and missed < CONFIDENCE else "does not miss", 1,
                        detail=f"{smaller} nodes ({how}) on the same runs{more}; floor: P(meet) below {CONFIDENCE}",
                        floor_objective=CONFIDENCE - 1e-9))
    else:  # with a price the next smaller size may meet the window and cost more
        smaller_cost = None if smaller is None else result.size(smaller).cost
        short = missed is not None and missed < CONFIDENCE
        dearer = smaller_cost is not None and answer.cost is not None and smaller_cost > answer.cost
        rows.append(Row(NAME, instance, "fresh validation: the next smaller size misses or costs more",
                        1.0 if short or dearer else 0.0, None, None, 0.0, "ok" if short or dearer else "neither", 1,
                        detail=f"{smaller} nodes ({how}): P(meet) {missed if missed is None else f'{missed:.2f}'} on "
                               f"the same runs{more}; cost {smaller_cost if smaller_cost is None else f'{smaller_cost:,.2f}'}"
                               f" against the answer's {answer.cost:,.2f}; floor: one of the two (objective 1)",
                        floor_least=1.0))
    inside = low < result.answer < high
    rows.append(Row(NAME, instance, "the answer is inside the range", 1.0 if inside else 0.0, None, None, 0.0,
                    "ok" if inside else "at an end of the range", 1,
                    detail=f"{result.answer} nodes in {low}-{high}; notes: {'; '.join(result.notes) or 'none'}",
                    floor_least=1.0))
    share = result.simulated / len(result.sizes)
    rows.append(Row(NAME, instance, "sizes simulated", round(share, 4), None, None, 0.0,
                    "ok" if share <= 1 / 3 else "above a third", 1,
                    detail=f"{result.simulated} of {len(result.sizes)}; floor: at most a third", floor_objective=1 / 3))
    return rows


def packing_rows() -> list[Row]:
    from solvers.machine_count import cheapest_machine_count

    rows = []
    for problem, name in [(problem, name) for problem in ("packing", "pairs") for name in MIXES]:
        jobs = packing_workload(name)
        clock = time.perf_counter()
        pruned = cheapest_machine_count(jobs, paper_cluster(1), MACHINES, problem=problem, billing=BILLING)
        seconds = time.perf_counter() - clock
        brute = cheapest_machine_count(jobs, paper_cluster(1), MACHINES, problem=problem, billing=BILLING,
                                       prune=False)
        agree = (pruned.machines, pruned.cost) == (brute.machines, brute.cost)
        ok = agree and pruned.proven and brute.proven
        tightness = [record["bound"] / record["makespan"] for record in brute.records() if record["makespan"]]
        rows.append(Row(NAME, f"{problem} {name}, P {MACHINES.start}-{MACHINES.stop - 1}", "cost over P (milp)",
                        pruned.cost, brute.cost, 0.0 if ok else 1.0, round(seconds, 3),
                        "proven" if ok else "not proven", 1, floor_gap=0.0,
                        detail=f"P = {pruned.machines}: {pruned.makespan:,.0f} s, {pruned.cost:,.0f} machine-seconds "
                               f"(billed by the minute); solved {pruned.solved} of {len(pruned.records())} counts, "
                               f"{len(pruned.records()) - pruned.solved} pruned by the profiles' bound (bound / optimum "
                               f"{min(tightness):.2f}-{max(tightness):.2f} over P); brute force (every P solved): P = "
                               f"{brute.machines}, {brute.cost:,.0f}; both proven: {pruned.proven and brute.proven}"))
    return rows


@register(NAME, suites=("quick", "full"))
def run(suite: str) -> list[Row]:
    """How many machines: the cheapest cluster meeting a window (demo, FB-2009 windows) and packing's P as a decision (W1-W6)."""
    rows = []
    for name, workload, reference, price in cases(suite):
        rows += sizing_rows(name, workload, reference, price)
    return rows + packing_rows()
