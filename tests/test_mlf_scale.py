"""Natjam-R MLF keeps its order (`schedulers.natjam_laxity`) instead of sorting every job by laxity
at each decision: the kinetic tournament of lines against a brute-force minimum, the line bounds
against the laxity they bound, the kept order against a full sort at every decision, whole runs
against the full-sort path (the one MLF keeps for the network model), and the work per decision
staying flat as the waiting jobs grow.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
import random

import pytest

from models import Cluster, Job
from planner.examples.workloads import set_a_batch
from planner.simulator import Natjam, SimOptions, simulate
from planner.simulator.layout import ANY
from planner.simulator.schedulers.kinetic import KineticLines
from planner.simulator.schedulers.natjam_laxity import FLOOR, LaxityOrder, _tangent

CONTAINERS = SimOptions(containers=True)


def test_kinetic_lines_follow_a_brute_force_minimum():
    """Random lines put, replaced and removed while the clock moves forward (with ties and equal
    slopes): the root is a least line at every time, and `ordered` steps through every line once, in
    increasing value (up to rounding)."""
    rng = random.Random(3)
    lines = KineticLines(37)
    present: dict[int, tuple[float, float, float]] = {}
    now = 0.0
    for _ in range(4_000):
        now += rng.choice([0.0, 0.001, 0.5, 3.0, 40.0])
        lines.advance(now)
        leaf = rng.randrange(37)
        if rng.random() < 0.25:
            present.pop(leaf, None)
            lines.remove(leaf)
        else:
            line = (rng.choice([0.0, 100.0, rng.uniform(-500, 500)]), rng.choice([0.0, 1.0, rng.uniform(-2, 5)]),
                    now - rng.choice([0.0, rng.uniform(0, 50)]))
            present[leaf] = line
            lines.put(leaf, *line)
        values = {leaf: d - b * (now - s) for leaf, (d, b, s) in present.items()}
        order, listed = lines.ordered(), []
        while order.step():
            listed.append((order.value, order.leaf))
        assert sorted(leaf for _, leaf in listed) == sorted(values)
        if values:
            least = min(values.values())
            assert values[lines.win[1]] == pytest.approx(least, abs=1e-9)
            shown = [values[leaf] for _, leaf in listed]
            assert all(b >= a - 1e-9 for a, b in itertools.pairwise(shown))


def test_tangents_and_chords_stay_below_the_laxity_over_their_window():
    """deadline - left (t - start) / (total - left), left falling by ``computing`` per second: the
    line `_tangent` gives is below it from now to the window's end (convex or concave alike)."""
    rng = random.Random(5)
    for _ in range(20_000):
        total = rng.uniform(10, 5_000)
        start = rng.uniform(0, 1e5)
        now = start + rng.choice([rng.uniform(0.01, 3_000), rng.uniform(1e-6, 0.01)])
        left = rng.uniform(0.01, 0.999 * total)
        computing = rng.randint(1, 40)
        end = now + rng.choice([rng.uniform(0.001, 100), rng.uniform(1e-9, 1e-3)])
        late = left - computing * (end - now)
        if late <= 0:
            continue
        deadline = rng.uniform(-1e4, 1e6)
        value, fall, origin = _tangent(deadline, start, now, end, left, late, total, computing)
        for step in range(5):
            at = now + (end - now) * step / 4
            remaining = left - computing * (at - now)
            spread = remaining * (at - start) / (total - remaining)
            laxity = deadline - spread
            assert value - fall * (at - origin) <= laxity + 1e-12 * (1 + abs(deadline) + abs(at) + spread)


def _jobs(count: int, *, spread: float = 0.0, no_deadline: int = 0) -> list[Job]:
    jobs = []
    for i, job in enumerate(set_a_batch(count)):
        deadline = None if no_deadline and i % no_deadline == 3 else 3_600.0 * (1 + i % 7) + 50.0 * i
        jobs.append(dataclasses.replace(job, priority=1 if i % 5 == 0 else 0, deadline=deadline,
                                        submit=spread * i))
    return jobs


class FullSortMLF(Natjam):
    """MLF ranking every job at each decision (its path with the network model on)."""

    def bind(self, sim) -> None:
        super().bind(sim)
        self._laxity_order = None
        sim.changed = None


class AuditedMLF(Natjam):
    """MLF whose kept order is checked against a full sort before every decision."""

    checks = 0

    def _audit(self, now: float) -> None:
        order = self._laxity_order
        assert isinstance(order, LaxityOrder)
        assert order.listed(now) == [job for job in self.ranked(now) if job.pending(ANY)]
        self.checks += 1

    def pick(self, node, kind, now):
        self._audit(now)
        return super().pick(node, kind, now)

    def settle(self, now):
        self._audit(now)
        return super().settle(now)


CASES = {
    "suspend": (lambda: _jobs(14), {}, Cluster(nodes=4, map_slots=2, reduce_slots=2), SimOptions(containers=True)),
    "kill, hb 0": (lambda: _jobs(12, spread=40.0, no_deadline=4), {"mode": "kill"},
                   Cluster(nodes=4, map_slots=2, reduce_slots=2, heartbeat=0.0, racks=2),
                   SimOptions(containers=True, task_time_cv=0.3)),
    "maps, random": (lambda: _jobs(10, spread=15.0), {"evict_maps": True, "task_eviction": "random"},
                     Cluster(nodes=3, map_slots=2, reduce_slots=2), SimOptions(containers=True, task_time_cv=0.5)),
    "slow start, hb 0": (lambda: _jobs(12, spread=5.0), {"min_run": 1.0},
                         Cluster(nodes=3, map_slots=2, reduce_slots=2, heartbeat=0.0),
                         SimOptions(containers=True, reduce_slowstart=0.3, task_time_cv=0.4)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_kept_order_is_a_full_sort_at_every_decision(case):
    make_jobs, settings, cluster, options = CASES[case]
    scheduler = AuditedMLF(deadline_policy="MLF", **settings)
    simulate(make_jobs(), cluster, scheduler, options=options)
    assert scheduler.checks > 500


def _digest(result) -> str:
    return hashlib.sha256(repr([tuple(attempt) for attempt in result.attempts]).encode()).hexdigest()


@pytest.mark.parametrize("case", sorted(CASES))
def test_runs_match_the_full_sort_attempt_for_attempt(case):
    make_jobs, settings, cluster, options = CASES[case]
    kept = simulate(make_jobs(), cluster, Natjam(deadline_policy="MLF", **settings), options=options)
    full = simulate(make_jobs(), cluster, FullSortMLF(deadline_policy="MLF", **settings), options=options)
    assert _digest(kept) == _digest(full) and kept.makespan == full.makespan
    assert kept.suspensions + kept.kills > 0


def test_a_decision_computes_a_few_laxities_however_many_jobs_wait():
    """The scale benchmark's MLF workload (every fifth job production, deadlines 3,600 (1 + i mod
    7) + 50 i): the exact laxities computed per decision stay a handful from 40 to 160 waiting jobs
    (a full sort computes one per job), and the kept order's heaps stay compact. (The order is
    compiled with the core: a subclass counts, its methods are called through the class.)"""
    counted = {"exact": 0, "scans": 0}

    class Counting(LaxityOrder):
        def exact(self, job, now, share):
            counted["exact"] += 1
            return super().exact(job, now, share)

        def scan(self, now, attempt):
            counted["scans"] += 1
            assert self.floors.size <= 2 * self.live[FLOOR] + 65
            return super().scan(now, attempt)

    class CountingMLF(Natjam):
        def _new_laxity_order(self, sim):
            return Counting(sim, self.jobs)

    per_decision = []
    for count in (40, 160):
        counted.update(exact=0, scans=0)
        scheduler = CountingMLF(deadline_policy="MLF")
        simulate(_jobs(count), Cluster(nodes=10, map_slots=2, reduce_slots=2), scheduler, options=CONTAINERS)
        assert isinstance(scheduler._laxity_order, Counting) and counted["scans"] > 0 and counted["exact"] > 0
        per_decision.append(counted["exact"] / counted["scans"])
    assert max(per_decision) < 3.0
    assert per_decision[1] < 1.5 * per_decision[0] + 0.5


def test_the_network_model_keeps_the_full_sort():
    """With the network on, attempts' ends move without the simulation saying so: MLF ranks every
    job at each decision there (no kept order)."""
    scheduler = Natjam(deadline_policy="MLF")
    result = simulate(_jobs(4), Cluster(nodes=2, map_slots=2, reduce_slots=2), scheduler,
                      options=SimOptions(containers=True, network=True))
    assert scheduler._laxity_order is None and math.isfinite(result.makespan)
