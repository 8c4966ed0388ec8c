"""The Hadoop Fair Scheduler design document (2012): its stated behaviours, each run on a small
cluster built for it. The document reports no measurements, so every "paper value" is what its
text says must happen (a share of slots, an order, a threshold), worked out by hand for the set-up.

Set-up: 30 map slots (5 nodes x 6, one rack), heartbeat 0 (a freed slot is offered at once),
map-only jobs whose maps run their nominal time wherever they land (locality factors 1), so that
every count is exact. Delay scheduling (section 3.7) is left to the network-model work, with the
Zaharia et al. claims.
"""

from __future__ import annotations

import numpy as np

from benchmarks.fidelity_claims.claims import Claim, Settings, claim_group
from models import Cluster, Job
from planner.simulator import Fair, Fifo, Pool, Preemption, SimOptions, SimResult, fair_shares, simulate

SOURCE = "HFS design"
CLUSTER = Cluster(nodes=5, map_slots=6, reduce_slots=1, heartbeat=0)  # 30 map slots; the reduce slots stay idle
EXACT = SimOptions(rack_factor={"balanced": 1.0}, off_rack_factor={"balanced": 1.0})
SETUP = "30 map slots, heartbeat 0, map-only jobs"


def running_at(result: SimResult, moment: float) -> dict[str, int]:
    """Attempts running at ``moment``, by job."""
    counts: dict[str, int] = {}
    for task in result.tasks:
        if task["start"] <= moment < task["end"]:
            counts[task["job"]] = counts.get(task["job"], 0) + 1
    return counts


def _share_claim(claim_id: str, text: str, paper: float, ours: float, setup: str) -> Claim:
    return Claim(claim_id, SOURCE, text, paper, ours, "exact", abs(ours - paper) < 1e-9, setup)


@claim_group("hfs-sharing", SOURCE)
def sharing(settings: Settings) -> list[Claim]:
    """Sections 3.1-3.6 and 4.4: weights, priorities as weights, FIFO pools, minimum shares."""
    del settings
    claims = []
    weighted = simulate([Job("a", 300, 0, 10.0, pool="A"), Job("b", 300, 0, 10.0, pool="B")], CLUSTER,
                        Fair(pools=[Pool("A", weight=2.0), Pool("B")]), options=EXACT)
    now = running_at(weighted, 55.0)
    claims.append(_share_claim("HFS-weights", "3.6: a pool of weight 2 gets 2x the share of a pool of weight 1 "
                               "(slots of the weight-2 pool)", 20.0, float(now.get("a", 0)),
                               f"{SETUP}; two pools, one 300-map job each; at t = 55 s; weight-1 pool: "
                               f"{now.get('b', 0)}"))
    prioritized = simulate([Job("high", 300, 0, 10.0, priority=1), Job("normal", 300, 0, 10.0)], CLUSTER, Fair(),
                           options=EXACT)
    now = running_at(prioritized, 55.0)
    claims.append(_share_claim("HFS-priority", "3.5: in a fair pool a high-priority job gets weight 2.0, 2x the "
                               "share (slots of the high-priority job)", 20.0, float(now.get("high", 0)),
                               f"{SETUP}; one pool, two 300-map jobs; at t = 55 s; normal job: {now.get('normal', 0)}"))
    fifo_pool = simulate([Job("x", 60, 0, 10.0), Job("y", 30, 0, 10.0, submit=1.0),
                          Job("z", 30, 0, 10.0, submit=2.0, priority=1)], CLUSTER,
                         Fair(pools=[Pool("default", mode="fifo")]), options=EXACT)
    starts = {record["name"]: record["start"] for record in fifo_pool.jobs}
    ordered = starts["z"] < starts["y"] and fifo_pool.job("z")["finish"] <= starts["y"]
    claims.append(Claim(
        "HFS-fifo-pool", SOURCE, "3.5: a FIFO pool orders jobs by priority, then submit time", None, None,
        "the later high-priority job runs first", ordered,
        f"{SETUP}; x (60 maps) at 0, y at 1 s, z (priority 1) at 2 s",
        paper_text="z before y", ours_text=f"z starts {starts['z']:.0f} s, y {starts['y']:.0f} s"))
    below_min = simulate([Job("a", 600, 0, 10.0, pool="A"), Job("b", 300, 0, 10.0, pool="B", submit=5.0),
                          Job("c", 300, 0, 10.0, pool="C", submit=5.0)], CLUSTER,
                         Fair(pools=[Pool("B", min_map=18)]), options=EXACT)
    now = running_at(below_min, 15.0)
    claims.append(_share_claim("HFS-min-share-first", "3.2, 4.4: a pool below its min share gets free slots first "
                               "(slots of the pool with min share 18)", 18.0, float(now.get("b", 0)),
                               f"{SETUP}; A fills the cluster, B (min 18) and C arrive at 5 s; at t = 15 s: "
                               f"A {now.get('a', 0)}, C {now.get('c', 0)}"))
    idle_min = simulate([Job("a", 300, 0, 10.0, pool="A")], CLUSTER, Fair(pools=[Pool("B", min_map=10)]),
                        options=EXACT)
    claims.append(_share_claim("HFS-inactive-min-share", "3.2: an inactive pool's min share is not reserved "
                               "(slots the active pool runs)", 30.0, float(running_at(idle_min, 5.0).get("a", 0)),
                               f"{SETUP}; pool B (min 10) has no job"))
    scaled = fair_shares(100, [100, 100, 100], [90, 60, 0])
    claims.append(_share_claim("HFS-min-shares-scaled", "3.2, 4.6: min shares above the cluster are scaled down "
                               "in proportion (share of the pool with min share 90)", 60.0, scaled[0],
                               f"fair_shares(100 slots, demands 100 each, min shares 90, 60, 0) = "
                               f"{', '.join(f'{s:.0f}' for s in scaled)}"))
    return claims


def _doc_fair_shares(total: float, demands: list[float], mins: list[float], weights: list[float]) -> list[float]:
    """Section 4.6 as written: binary search on r for f(r) = sum min(d_i, max(r w_i, m_i)) = t,
    from 0 up to the first of r = 1, 2, 4, ... that uses more than t slots or meets every demand;
    25 iterations."""

    def used(ratio: float) -> float:
        return sum(min(d, max(ratio * w, m)) for d, w, m in zip(demands, weights, mins, strict=True))

    high = 1.0
    while used(high) < total and used(high) < sum(demands):
        high *= 2
    low = 0.0
    for _ in range(25):
        middle = (low + high) / 2
        low, high = (middle, high) if used(middle) < total else (low, middle)
    return [min(d, max(high * w, m)) for d, w, m in zip(demands, weights, mins, strict=True)]


@claim_group("hfs-fair-share-computation", SOURCE)
def computation(settings: Settings) -> list[Claim]:
    """Section 4.6: the fair shares are min(d_i, max(r w_i, m_i)) for the r with f(r) = t, found by
    binary search; our exact computation against the document's search on random pools whose
    minimum shares fit in the cluster (above that the document scales the min shares instead)."""
    del settings
    rng = np.random.default_rng(0)
    worst = 0.0
    cases = 500
    for _ in range(cases):
        count = int(rng.integers(1, 8))
        total = float(rng.integers(1, 200))
        demands = [float(d) for d in rng.integers(0, 120, count)]
        weights = [float(w) for w in rng.choice([0.5, 1.0, 2.0, 3.0], count)]
        mins = [float(m) for m in rng.integers(0, 40, count)]
        if sum(mins) > total:
            mins = [m * total / sum(mins) / 2 for m in mins]
        ours = fair_shares(total, demands, mins, weights)
        doc = _doc_fair_shares(total, demands, mins, weights)
        worst = max(worst, *(abs(a - b) for a, b in zip(ours, doc, strict=True)))
    hand = fair_shares(100, [10, 50, 80], [0, 40, 0], [1, 1, 2])
    return [
        Claim("HFS-fair-share-search", SOURCE, "4.6: shares agree with the document's binary search on r "
              "(largest difference, slots)", 0.0, worst, "at most 1e-4 slots (25 bisection steps on r)",
              worst <= 1e-4, f"{cases} random pools of 1-7 schedulables, seed 0"),
        Claim("HFS-fair-share-example", SOURCE, "4.6: 100 slots, demands 10, 50, 80, min shares 0, 40, 0, weights "
              "1, 1, 2 give 10, 40, 50 (worked by hand: r = 25)", None, None, "exact", hand == [10.0, 40.0, 50.0],
              "fair_shares", paper_text="10, 40, 50", ours_text=", ".join(f"{s:g}" for s in hand)),
    ]


@claim_group("hfs-preemption-and-limits", SOURCE)
def preemption_and_limits(settings: Settings) -> list[Claim]:
    """Sections 2, 3.3, 3.4, 4.5, 4.7: min-share and fair-share preemption (below half the fair
    share), killing the most recently launched tasks, running-job limits, small jobs beside big."""
    del settings
    claims = []
    min_share = Fair(pools=[Pool("B", min_map=10)], preemption=Preemption(min_share_timeout=30.0,
                                                                          fair_share_timeout=None))
    result = simulate([Job("a", 30, 0, 1000.0, pool="A"), Job("b", 30, 0, 100.0, pool="B", submit=5.0)], CLUSTER,
                      min_share, options=EXACT)
    before, after = running_at(result, 34.9).get("b", 0), running_at(result, 35.0).get("b", 0)
    claims.append(_share_claim("HFS-min-share-preemption", "3.2, 3.3: after its timeout a pool below its min share "
                               "kills tasks to reach it (slots at the timeout)", 10.0, float(after),
                               f"{SETUP}; A holds all 30 slots, B (min 10, timeout 30 s) arrives at 5 s; "
                               f"B runs {before} just before 35 s"))
    for short, starved in ((5, True), (9, False)):
        times = {"a": {"map": [1000.0] * (30 - short) + [5.0] * short}}
        options = SimOptions(rack_factor={"balanced": 1.0}, off_rack_factor={"balanced": 1.0}, task_times=times)
        run = simulate([Job("a", 30, 0, 1000.0, pool="A"), Job("b", 60, 0, 1000.0, pool="B", submit=1.0)], CLUSTER,
                       Fair(preemption=Preemption(min_share_timeout=None, fair_share_timeout=60.0)), options=options)
        held = running_at(run, 100.0).get("b", 0)
        expected = 15 if starved else short
        claims.append(_share_claim(
            f"HFS-fair-share-{'below' if starved else 'above'}-half",
            f"3.3: fair-share preemption acts only below half the fair share: a pool at {short} of 15 "
            f"{'is raised to its fair share' if starved else 'is left alone'} (slots at 100 s)",
            float(expected), float(held),
            f"{SETUP}; B (fair share 15) holds {short} slots freed at 5 s; timeout 60 s; kills {run.kills}"))
    newest = simulate([Job("a1", 10, 0, 1000.0, pool="A"), Job("a2", 20, 0, 1000.0, pool="A", submit=20.0),
                       Job("b", 10, 0, 1000.0, pool="B", submit=30.0)], CLUSTER,
                      Fair(pools=[Pool("B", min_map=5)],
                           preemption=Preemption(min_share_timeout=10.0, fair_share_timeout=None)), options=EXACT)
    killed = [task for task in newest.tasks if task["fate"] == "killed"]
    latest = max(task["start"] for task in newest.tasks if task["job"] in ("a1", "a2") and task["start"] < 30.0)
    claims.append(Claim(
        "HFS-kill-newest", SOURCE, "3.3, 4.5: preemption kills the most recently launched tasks", None,
        float(len(killed)), "every victim launched at the latest launch time", bool(killed) and all(
            task["start"] == latest for task in killed), f"{SETUP}; A's tasks launched at 0 and 20 s, B (min 5) "
        "at 30 s, timeout 10 s", paper_text="newest first",
        ours_text=f"{len(killed)} killed, launched at " + ", ".join(f"{t:g}" for t in sorted({t["start"] for t in killed}))
        + " s"))
    limited = simulate([Job(f"j{i}", 10, 0, 10.0, submit=float(i)) for i in range(4)]
                       + [Job("late", 10, 0, 10.0, submit=4.0, priority=1)], CLUSTER,
                       Fair(pools=[Pool("default", max_running=2)]), options=EXACT)
    spans = [(record["start"], record["finish"]) for record in limited.jobs]
    concurrent = max(sum(start <= moment < end for start, end in spans) for moment, _ in spans)
    claims.append(_share_claim("HFS-job-limit", "3.4, 4.7: at most max_running jobs of a pool run at once "
                               "(most running together)", 2.0, float(concurrent),
                               f"{SETUP}; five 10-map jobs 1 s apart, max_running 2"))
    order = [record["name"] for record in sorted(limited.jobs, key=lambda r: (r["start"], r["name"]))]
    claims.append(Claim(
        "HFS-job-limit-order", SOURCE, "3.4: jobs beyond the limit run in order of priority and submit time", None,
        None, "exact order", order == ["j0", "j1", "late", "j2", "j3"],
        f"{SETUP}; 'late' (priority 1) submitted last", paper_text="j0, j1, late, j2, j3", ours_text=", ".join(order)))
    jobs = [Job("big", 300, 0, 60.0), Job("small", 10, 0, 10.0, submit=30.0)]
    fifo, fair = simulate(jobs, CLUSTER, Fifo(), options=EXACT), simulate(jobs, CLUSTER, Fair(), options=EXACT)
    claims.append(Claim(
        "HFS-small-jobs", SOURCE, "2: fair sharing runs a small job quickly beside a large one, unlike FIFO "
        "(small job's response, Fair over FIFO)", None, fair.job("small")["response"] / fifo.job("small")["response"],
        "Fair's response shorter", fair.job("small")["response"] < fifo.job("small")["response"],
        f"{SETUP}; 300 maps x 60 s at 0, 10 maps x 10 s at 30 s; Fair {fair.job('small')['response']:.0f} s, "
        f"FIFO {fifo.job('small')['response']:.0f} s", paper_text="Fair < FIFO"))
    grown = fair.job("big")["response"] / fifo.job("big")["response"]
    claims.append(Claim(
        "HFS-no-starving", SOURCE, "2: ... without starving the large job (its response, Fair over FIFO)", None, grown,
        "at most 10% longer", grown <= 1.10, f"{SETUP}; same runs; Fair {fair.job('big')['response']:.0f} s, "
        f"FIFO {fifo.job('big')['response']:.0f} s", paper_text="not starved"))
    return claims
