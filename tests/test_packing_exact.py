"""The exact packing method "milp" (set partitioning over phases, solvers/packing/exact.py) and its
column machinery (solvers/packing/columns.py), checked against brute force.

The reference is `shortest_phases`: for every set of jobs, the shortest phase holding exactly
that set, found by trying every role and VM count of every member. From it follow the most
weight a phase of each length can hold (what `best_by_level` prices), each set's cheapest
phase, the phases of small reduced cost (what `enumerate_phases` lists) and, over all set
partitions, the optimum of a batch (what "milp" solves), also by number of phases.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest

import solvers.packing.exact as packing_exact
from models import Cluster, Job
from solvers import SolveStatus, evaluate_phases, pack_phases
from solvers.base import Stopwatch
from solvers.packing.columns import best_by_level, best_phase, cheapest_phase, level_tables
from solvers.packing.listing import enumerate_phases
from solvers.packing.lp import CountRow, generate_columns, initial_pool
from solvers.packing.methods import _greedy
from solvers.packing.problem import Placement, _check_placements, packing_instance
from tests.support.packing import CLUSTER, brute_force, job

INTENSITIES = ("cpu", "io", "balanced")
#: N = 6, r = 2, alpha = 1.3.
C3 = Cluster(nodes=3, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)
#: N = 4, r = 1, alpha = 1: extras cost nothing but their host VMs.
TIGHT = Cluster(nodes=2, disks=2, primaries_per_extra=1, overcommit_penalty=1.0)


class Bowl:
    """A non-monotone runtime profile, a + c (n - 2)^2: fastest on 2 VMs."""

    def __init__(self, a: float, c: float) -> None:
        self.a, self.c = a, c

    def __call__(self, n):
        return self.a + self.c * (n - 2) ** 2


def batch(seed, n, intensities=INTENSITIES, low=20.0, high=200.0):
    rng = np.random.default_rng(seed)
    return [job(f"j{i}", float(rng.uniform(low, high)), float(rng.uniform(-1, 0)), str(rng.choice(intensities)))
            for i in range(n)]


def with_bowl(jobs, index, intensity):
    """The batch with job ``index`` replaced by one whose profile is the non-monotone Bowl(40, 10):
    50, 40, 50, 80 s on 1..4 VMs."""
    jobs = list(jobs)
    jobs[index] = Job("bowl", intensity=intensity, profile=Bowl(40.0, 10.0))
    return jobs


# ---------------------------------------------------------------- brute force

def _options(instance, j):
    roles = ["primary"] + (["host"] if instance.can_host[j] else []) + (["extra"] if instance.can_extra[j] else [])
    return [(v, role) for role in roles for v in range(1, instance.vms + 1)]


def follows_rules(instance, phase) -> bool:
    """One phase by the model's rules, checked here independently of solvers.packing.problem."""
    jobs = [p.job for p in phase]
    if len(set(jobs)) != len(jobs):
        return False
    for p in phase:
        if not 1 <= p.vms <= instance.vms or p.role not in ("primary", "host", "extra"):
            return False
        if (p.role == "host" and not instance.can_host[p.job]) or (p.role == "extra" and not instance.can_extra[p.job]):
            return False
    primary_and_host = sum(p.vms for p in phase if p.role != "extra")
    hosts = sum(p.vms for p in phase if p.role == "host")
    extras = sum(p.vms for p in phase if p.role == "extra")
    return primary_and_host <= instance.vms and instance.per_extra * extras <= hosts


def check_with_model(instance, phase) -> None:
    """The project's own checker on the phase, completed to a schedule (every other job alone on N VMs)."""
    inside = {p.job for p in phase}
    others = [[Placement(j, instance.vms, "primary")] for j in range(instance.jobs) if j not in inside]
    _check_placements([list(phase), *others], instance)


def length(instance, phase) -> float:
    return max(instance.time(p.job, p.vms, p.role) for p in phase)


def shortest_phases(instance) -> dict[frozenset, float]:
    """For every non-empty set of jobs, the shortest phase holding exactly it (inf if none)."""
    shortest = {}
    for size in range(1, instance.jobs + 1):
        for members in itertools.combinations(range(instance.jobs), size):
            best = math.inf
            for choice in itertools.product(*(_options(instance, j) for j in members)):
                phase = [Placement(j, v, role) for j, (v, role) in zip(members, choice, strict=True)]
                if follows_rules(instance, phase):
                    best = min(best, length(instance, phase))
            shortest[frozenset(members)] = best
    return shortest


def set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first], *partition]
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1:]]


def optimum_by_phase_count(shortest, jobs: int) -> dict[int, float]:
    """The best schedule with exactly K phases, for every K (inf when none exists)."""
    best: dict[int, float] = {}
    for partition in set_partitions(list(range(jobs))):
        total = sum(shortest[frozenset(block)] for block in partition)
        best[len(partition)] = min(best.get(len(partition), math.inf), total)
    return best


# ---------------------------------------------------------------- the instances of the column tests

#: (seed, jobs, cluster, the Bowl job's intensity or None): mixed batches, N = 4 and 6, r = 1 and 2,
#: alpha = 1, 1.3 and 1.5, and non-monotone hosts and extras.
CASES = [
    (0, 2, CLUSTER, None), (1, 3, CLUSTER, None), (2, 4, CLUSTER, None), (3, 4, C3, None), (4, 4, TIGHT, None),
    (5, 3, CLUSTER, "io"), (6, 4, CLUSTER, "cpu"), (7, 3, TIGHT, "io"), (8, 4, C3, "io"), (9, 4, TIGHT, "cpu"),
]


def case(seed, n, cluster, bowl):
    jobs = batch(seed, n)
    if bowl is not None:
        jobs = with_bowl(jobs, seed % n, bowl)
    instance = packing_instance(jobs, cluster)
    return jobs, instance, level_tables(instance), shortest_phases(instance)


def test_a_non_monotone_callable_is_a_profile():
    """Any callable is a profile: packing_instance evaluates Bowl(40, 10) (a class) and the same
    function as a lambda to F = 50, 40, 50, 80 on 1..4 VMs and alpha F = 75, 60, 75, 120 (alpha = 1.5)."""
    for profile in (Bowl(40.0, 10.0), lambda n: 40 + 10 * (n - 2) ** 2):
        instance = packing_instance([Job("bowl", intensity="io", profile=profile)], CLUSTER)
        assert instance.times[0, :, 0].tolist() == [50.0, 40.0, 50.0, 80.0]
        assert instance.times[0, :, 1].tolist() == pytest.approx([75.0, 60.0, 75.0, 120.0])
    tables = level_tables(packing_instance([Job("bowl", intensity="io", profile=Bowl(40.0, 10.0))], CLUSTER))
    k = int(np.flatnonzero(tables.levels == 75.0)[0])
    assert tables.host_ok[0, :, k].tolist() == [True, True, True, False]  # 120 s on 4 VMs is over 75


# ---------------------------------------------------------------- 1. pricing

@pytest.mark.parametrize(("seed", "n", "cluster", "bowl"), CASES)
def test_best_by_level_is_the_brute_force_knapsack(seed, n, cluster, bowl):
    """At every candidate length L, the most weight of a set of jobs fitting one phase of length <= L."""
    _, _, tables, shortest = case(seed, n, cluster, bowl)
    rng = np.random.default_rng(100 + seed)
    for weights in (rng.uniform(1, 10, n), np.where(np.arange(n) == 0, 0.0, rng.uniform(0.1, 50, n))):
        held = best_by_level(tables, weights)
        assert held.shape == tables.levels.shape
        for k, level in enumerate(tables.levels):
            expected = max([0.0] + [weights[list(s)].sum() for s, shortest_length in shortest.items()
                                    if shortest_length <= level])
            assert held[k] == pytest.approx(expected, rel=1e-12), (k, level)


@pytest.mark.parametrize(("seed", "n", "cluster", "bowl"), CASES)
def test_best_phase_traces_back_a_valid_phase_of_that_weight(seed, n, cluster, bowl):
    _, instance, tables, _ = case(seed, n, cluster, bowl)
    weights = np.random.default_rng(200 + seed).uniform(1, 10, n)
    held = best_by_level(tables, weights)
    for k, level in enumerate(tables.levels):
        phase = best_phase(tables, weights, k)
        if held[k] == 0.0:
            assert phase == []
            continue
        assert follows_rules(instance, phase), phase
        check_with_model(instance, phase)
        assert all(instance.time(p.job, p.vms, p.role) <= level for p in phase)
        assert weights[[p.job for p in phase]].sum() == pytest.approx(held[k], rel=1e-12)


# ---------------------------------------------------------------- 2. cheapest phase of a set

@pytest.mark.parametrize(("seed", "n", "cluster", "bowl"), CASES)
def test_cheapest_phase_of_every_set(seed, n, cluster, bowl):
    _, instance, tables, shortest = case(seed, n, cluster, bowl)
    for members, expected in shortest.items():
        cheapest = cheapest_phase(tables, sorted(members))
        if expected == math.inf:
            assert cheapest is None, members
            continue
        assert cheapest is not None, members
        phase_length, phase = cheapest
        assert phase_length == pytest.approx(expected, rel=1e-12)
        assert {p.job for p in phase} == members and len(phase) == len(members)
        assert follows_rules(instance, phase)
        assert length(instance, phase) == pytest.approx(expected, rel=1e-12)


def test_cheapest_phase_by_hand():
    """N = 4, r = 2, alpha = 1.5. Two flat 50-s jobs share 1 + 1 VMs: 50 s. The io job 120/n and the cpu
    job 60/n: split, max(120/3, 60/1) = 60 s or max(120/2, 60/2) = 60 s; overcommitted, 1.5 max(120/4,
    60/2) = 45 s. The io job, the cpu job and a flat 50-s job cannot share: the flat job takes a primary
    VM, so the io job hosts on at most 3 (60 s) and the cpu job rides on 1 extra VM (90 s); all primary:
    120/2, 60/1, 50: 60 s; best 60 s. All four: as primaries on 1 VM each, 120 s (the io job); with the
    io job hosting on 2 VMs (1.5 x 60 = 90 s), the cpu job on 1 extra VM (90 s) and the flat jobs on the
    other 2 primaries: 90 s."""
    jobs = [job("a", 50, 0), job("b", 50, 0), job("io", 120, -1, "io"), job("cpu", 60, -1, "cpu")]
    tables = level_tables(packing_instance(jobs, CLUSTER))
    assert cheapest_phase(tables, [0, 1])[0] == 50.0
    phase_length, phase = cheapest_phase(tables, [2, 3])
    assert phase_length == pytest.approx(45.0)
    assert sorted((p.job, p.vms, p.role) for p in phase) == [(2, 4, "host"), (3, 2, "extra")]
    assert cheapest_phase(tables, [0, 2, 3])[0] == pytest.approx(60.0)
    phase_length, phase = cheapest_phase(tables, [0, 1, 2, 3])
    assert phase_length == pytest.approx(90.0)
    assert sorted((p.job, p.vms, p.role) for p in phase) == [(0, 1, "primary"), (1, 1, "primary"), (2, 2, "host"),
                                                            (3, 1, "extra")]


# ---------------------------------------------------------------- 3. enumeration

def _duals(instance, shortest, seed):
    """Duals of the scale of the jobs' own shortest phases (a few zero), so sets of every size qualify."""
    rng = np.random.default_rng(300 + seed)
    alone = np.array([shortest[frozenset([j])] for j in range(instance.jobs)])
    return np.where(rng.random(instance.jobs) < 0.15, 0.0, alone * rng.uniform(0.4, 1.3, instance.jobs))


def _enumerate(tables, duals, slack, limit=10**6, deadline=1e9):
    return enumerate_phases(tables, duals, slack, limit=limit, deadline=deadline, clock=Stopwatch())


def _qualifying(shortest, duals, slack):
    return {s: shortest_length for s, shortest_length in shortest.items()
            if shortest_length < math.inf and shortest_length - duals[list(s)].sum() <= slack + 1e-9}


def _check_sound(instance, shortest, duals, slack, found, complete=True):
    """Every listed phase is valid, of reduced cost within the slack, listed once, and (when the list is
    complete) at its set's shortest length. A search cut short by its limit may list a set at a length
    it had not yet improved on: still a good phase, as the docstring promises, so only L >= shortest."""
    sets = [frozenset(p.job for p in phase) for _, phase in found]
    assert len(set(sets)) == len(sets)
    for (phase_length, phase), members in zip(found, sets, strict=True):
        assert follows_rules(instance, phase), phase
        if complete:
            assert phase_length == pytest.approx(shortest[members], rel=1e-12), (members, phase_length)
        else:
            assert phase_length >= shortest[members] * (1 - 1e-12), (members, phase_length)
        assert length(instance, phase) <= phase_length * (1 + 1e-12)
        assert phase_length - duals[list(members)].sum() <= slack + 1e-9 * max(1.0, phase_length)
    return {members: phase_length for (phase_length, _), members in zip(found, sets, strict=True)}


@pytest.mark.parametrize(("seed", "n", "cluster", "bowl"), CASES)
def test_enumerated_phases_are_sound_and_exact_when_complete(seed, n, cluster, bowl):
    """Whatever the instance, each phase listed qualifies; a list that says it is complete is exactly the
    brute-force list (a wrongly complete list would let "milp" claim optimality falsely)."""
    _, instance, tables, shortest = case(seed, n, cluster, bowl)
    duals = _duals(instance, shortest, seed)
    scale = float(tables.levels[-1])
    for slack in (0.0, 0.05 * scale, 0.5 * scale, 10 * scale):
        found, complete = _enumerate(tables, duals, slack)
        listed = _check_sound(instance, shortest, duals, slack, found, complete)
        if complete:
            assert listed == pytest.approx(_qualifying(shortest, duals, slack), rel=1e-12)


#: Monotone profiles and no cpu jobs (so no extra VMs): the enumeration must be complete and exact.
NO_EXTRAS = [(20, 3, CLUSTER), (21, 4, CLUSTER), (22, 4, C3), (23, 4, TIGHT), (24, 2, C3)]


@pytest.mark.parametrize(("seed", "n", "cluster"), NO_EXTRAS)
def test_enumeration_without_extras_is_complete_and_exact(seed, n, cluster):
    instance = packing_instance(batch(seed, n, ("io", "balanced")), cluster)
    tables, shortest = level_tables(instance), shortest_phases(instance)
    duals = _duals(instance, shortest, seed)
    scale = float(tables.levels[-1])
    for slack in (0.0, 0.05 * scale, 0.5 * scale, 10 * scale):
        found, complete = _enumerate(tables, duals, slack)
        assert complete
        assert _check_sound(instance, shortest, duals, slack, found) == pytest.approx(
            _qualifying(shortest, duals, slack), rel=1e-12)


def test_enumeration_with_extras_is_complete_and_exact():
    """Mixed batches with monotone profiles: nothing can stop the enumeration (no limit, no deadline,
    every host count from the fewest up is allowed), so it must finish complete and exact."""
    incomplete = []
    for seed, n, cluster in [(30, 3, CLUSTER), (31, 4, CLUSTER), (32, 4, C3), (33, 4, TIGHT), (34, 3, TIGHT)]:
        instance = packing_instance(batch(seed, n), cluster)
        tables, shortest = level_tables(instance), shortest_phases(instance)
        duals = _duals(instance, shortest, seed)
        for slack in (0.0, 10 * float(tables.levels[-1])):
            found, complete = _enumerate(tables, duals, slack)
            listed = _check_sound(instance, shortest, duals, slack, found, complete)
            if not complete or listed != pytest.approx(_qualifying(shortest, duals, slack), rel=1e-12):
                incomplete.append((seed, slack))
    assert incomplete == []


def test_enumeration_by_hand_with_an_extra():
    """N = 4, r = 2, alpha = 1.5; a flat 30-s cpu job (45 s on extra VMs) and a flat 50-s job; duals 30, 30,
    slack 0. Reduced costs: {cpu} 30 - 30 = 0, {flat} 50 - 30 = 20, {cpu, flat} 50 - 60 = -10 (1 + 1
    primary VMs). So exactly {cpu} at 30 s and {cpu, flat} at 50 s, and the list is complete."""
    jobs = [job("cpu", 30, 0, "cpu"), job("flat", 50, 0)]
    tables = level_tables(packing_instance(jobs, CLUSTER))
    found, complete = _enumerate(tables, np.array([30.0, 30.0]), 0.0)
    assert sorted((phase_length, tuple(sorted(p.job for p in phase))) for phase_length, phase in found) == [
        (30.0, (0,)), (50.0, (0, 1))]
    assert complete


def test_enumeration_lists_a_phase_whose_reduced_cost_ties_the_slack_to_the_ulp():
    """Two jobs, duals 56.5 and 98.3, and the slack set so that the pair's phase at 181.83 s has
    reduced cost exactly slack + tolerance when its duals are summed first (at the search's root
    and leaf) but one ulp more when the length loses them one at a time (the middle node). The
    search carries only the lengths still open; one closed by that ulp at the middle node lost the
    phase (found in review). It is listed, as by a search over every length."""
    from planner.examples.workloads import crosscheck_cases

    jobs, cluster = crosscheck_cases(60, seed=7, jobs=(2, 4))[32]
    tables = level_tables(packing_instance(jobs, cluster))
    duals = np.array([56.5, 98.3])
    k = int(np.flatnonzero(np.isclose(tables.levels, 181.83395810463492))[0])
    tolerance = 1e-9 * max(1.0, float(tables.levels[-1]))
    at_root, in_the_middle = (tables.levels[k] - (56.5 + 98.3)) - 0.0, (tables.levels[k] - 56.5) - 98.3
    slack = 27.033957922800948
    assert at_root <= slack + tolerance < in_the_middle  # the tie this test is about
    found, complete = _enumerate(tables, duals, slack)
    assert complete
    assert (float(tables.levels[k]), (0, 1)) in {(length, tuple(sorted(p.job for p in phase))) for length, phase in found}


def test_enumeration_stops_at_the_limit_and_the_deadline():
    instance = packing_instance(batch(40, 4, ("io", "balanced")), CLUSTER)
    tables, shortest = level_tables(instance), shortest_phases(instance)
    duals = _duals(instance, shortest, 40)
    slack = 10 * float(tables.levels[-1])  # every feasible set qualifies
    expected = _qualifying(shortest, duals, slack)
    assert len(expected) == 15  # all 2^4 - 1 sets fit one phase (1 VM each)
    found, complete = _enumerate(tables, duals, slack, limit=len(expected))
    assert complete and len(found) == len(expected)
    for limit in (1, 5, len(expected) - 1):
        found, complete = _enumerate(tables, duals, slack, limit=limit)
        assert not complete and len(found) <= limit
        _check_sound(instance, shortest, duals, slack, found, complete)  # what it did find is still good
    # A deadline already passed: the search gives up (it looks at the clock every few thousand nodes).
    big = packing_instance(batch(41, 16, ("io", "balanced"), low=20.0, high=40.0), Cluster(nodes=8, disks=2))
    big_tables = level_tables(big)
    started = time.perf_counter()
    found, complete = _enumerate(big_tables, np.full(16, 100.0), 1e9, deadline=-1.0)
    assert not complete and time.perf_counter() - started < 5.0


# ---------------------------------------------------------------- 4. method agreement

def _solved(jobs, cluster, name, **options):
    schedule = pack_phases(jobs, cluster, name, **options)
    assert evaluate_phases(schedule, jobs, cluster) == pytest.approx(schedule.objective, rel=1e-12)
    return schedule


@pytest.mark.parametrize(("seed", "n", "cluster"), [
    (0, 4, CLUSTER), (1, 5, CLUSTER), (2, 6, CLUSTER), (3, 4, C3), (4, 5, C3), (5, 6, C3),
])
def test_milp_agrees_with_the_compact_model(seed, n, cluster):
    jobs = batch(seed, n)
    exact = _solved(jobs, cluster, "milp", time_limit=60)
    compact = _solved(jobs, cluster, "milp-compact", time_limit=60)
    greedy = _solved(jobs, cluster, "greedy")
    assert exact.status is SolveStatus.OPTIMAL and compact.status is SolveStatus.OPTIMAL
    assert exact.objective == pytest.approx(compact.objective, rel=1e-6)
    assert exact.bound == exact.objective and exact.gap == 0.0
    assert exact.objective <= greedy.objective + 1e-9
    if n == 4:
        instance = packing_instance(jobs, cluster)
        assert exact.objective == pytest.approx(min(optimum_by_phase_count(shortest_phases(instance), n).values()))


@pytest.mark.parametrize(("seed", "cluster", "bowl"), [(10, CLUSTER, None), (11, C3, None), (12, TIGHT, None),
                                                       (13, CLUSTER, "io"), (14, CLUSTER, "cpu")])
def test_milp_equals_brute_force_on_three_jobs(seed, cluster, bowl):
    jobs = batch(seed, 3)
    if bowl is not None:
        jobs = with_bowl(jobs, 1, bowl)
    optimum = brute_force(jobs, cluster)
    # The subset brute force of this file agrees with test_packing's, which it stands in for on 4 jobs.
    assert min(optimum_by_phase_count(shortest_phases(packing_instance(jobs, cluster)), 3).values()) == \
        pytest.approx(optimum, rel=1e-12)
    schedule = _solved(jobs, cluster, "milp", time_limit=60)
    assert schedule.status is SolveStatus.OPTIMAL
    assert schedule.objective == pytest.approx(optimum, rel=1e-9)


def test_milp_proves_a_five_job_optimum():
    """Four flat cpu jobs (21, 749, 402, 467 s) and a balanced 1578/n job on N = 4: the optimum (the compact
    model's) is 1143.5 s = 749 (the four cpu jobs side by side on 1 VM each) + 394.5 (1578/4). "milp" must
    find it and prove it (a cpu job alone on extra VMs, with no host, once made its enumeration give up)."""
    jobs = [job("j0", 21, 0, "cpu"), job("j1", 749, 0, "cpu"), job("j2", 402, 0, "cpu"), job("j3", 1578, -1),
            job("j4", 467, 0, "cpu")]
    compact = _solved(jobs, CLUSTER, "milp-compact", time_limit=60)
    assert compact.status is SolveStatus.OPTIMAL and compact.objective == pytest.approx(1143.5)
    schedule = _solved(jobs, CLUSTER, "milp", time_limit=30)
    assert schedule.objective == pytest.approx(1143.5)
    assert schedule.status is SolveStatus.OPTIMAL


#: Nine jobs (a, b, intensity) on TIGHT where "milp" gets the incumbent to its bound inside `prove`.
NINE = [(611.0, 0.0, "io"), (1208.2, 0.0, "balanced"), (129.2, 0.0, "cpu"), (1133.3, -0.85, "balanced"),
        (1345.2, 0.0, "cpu"), (1935.5, -0.317, "io"), (390.8, 0.0, "io"), (1784.6, -0.224, "balanced"),
        (1849.9, 0.0, "io")]


def test_milp_calls_a_closed_gap_optimal(monkeypatch):
    """A schedule whose objective equals its proven bound is optimal, whatever the enumeration managed.
    The enumeration limit is cut to 5 phases so that it is incomplete here by design; the integer program over what it found still reaches the bound, 2564.24 s,
    the compact model's optimum."""
    monkeypatch.setattr(packing_exact, "ENUMERATION_LIMIT", 5)
    jobs = [job(f"j{i}", a, b, intensity) for i, (a, b, intensity) in enumerate(NINE)]
    schedule = _solved(jobs, TIGHT, "milp", time_limit=30)
    assert schedule.bound is not None and schedule.bound <= schedule.objective + 1e-6
    assert schedule.status is SolveStatus.OPTIMAL or schedule.gap > 1e-6, (schedule.status, schedule.gap)


# ---------------------------------------------------------------- 5. by hand

def test_hand_worked_optimum():
    """N = 4, r = 2, alpha = 1.1. io: 200/n (host: 220/n); cpu: 100/n (extra: 110/n); h1, h2: 40 sqrt(2/n)
    = 56.6, 40, 32.7, 28.3 s on 1..4 VMs.

    - {io host on 4, cpu extra on 2}: 1.1 max(50, 50) = 55 s; {h1 on 2, h2 on 2}: 40 s. Total 95 s.
    - Nothing beats it. If the io job runs alone on 4 primaries (50 s, its fastest), no host is left for
      the cpu job, and {cpu, h1, h2} as primaries need at least 56.6 s (in one phase some job has one
      VM: h 56.6 or cpu 100; apart, at least 25 + 40): >= 106.6 s. If the io phase holds an h job, the
      io job has at most 3 VMs (>= 66.7 s) and the cpu job and the other h job need >= 50 s (together
      2 + 2: 50; apart 25 + 28.3), or >= 110 s when the cpu job rides along: > 95 s. Otherwise the io
      phase lasts >= 55 s (host on 4; other counts are slower) and the h jobs, outside it, >= 40 s
      (in one phase one of them has at most 2 VMs; apart 2 x 28.3 = 56.6): >= 95 s.
    - And it is unique: the io phase at 55 s is the io job hosting on all 4 VMs, the cpu job needs both
      extra VMs (1 VM: 110 s), and the h jobs at 40 s need 2 VMs each.
    """
    cluster = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.1)
    jobs = [job("io", 200, -1, "io"), job("cpu", 100, -1, "cpu"), job("h1", 40 * math.sqrt(2), -0.5),
            job("h2", 40 * math.sqrt(2), -0.5)]
    assert brute_force(jobs, cluster) == pytest.approx(95.0)
    schedule = _solved(jobs, cluster, "milp", time_limit=30)
    assert schedule.status is SolveStatus.OPTIMAL and schedule.objective == pytest.approx(95.0)
    assert schedule.phases == (
        (Placement(0, 4, "host"), Placement(1, 2, "extra")),
        (Placement(2, 2, "primary"), Placement(3, 2, "primary")),
    )
    assert schedule.sequential_baseline == pytest.approx(50 + 25 + 2 * 40 / math.sqrt(2))


# ---------------------------------------------------------------- 6. time limit

def test_time_limit_is_honest():
    """25 jobs on N = 18 with half a second: a valid schedule, a true bound, and no overrun. (The
    seconds bound is a sanity bound, not a performance floor.)"""
    rng = np.random.default_rng(1)
    jobs = [job(f"j{i}", float(rng.uniform(500, 5000)), float(rng.uniform(-1, -0.3)), str(rng.choice(INTENSITIES)))
            for i in range(25)]
    cluster = Cluster(nodes=9, disks=2)
    started = time.perf_counter()
    schedule = pack_phases(jobs, cluster, "milp", time_limit=0.5)
    wall = time.perf_counter() - started
    assert schedule.status in (SolveStatus.TIME_LIMIT, SolveStatus.OPTIMAL)
    assert evaluate_phases(schedule, jobs, cluster) == pytest.approx(schedule.objective, rel=1e-12)
    assert schedule.bound is None or schedule.bound <= schedule.objective + 1e-6
    assert schedule.seconds < 10 and wall < 10
    # It starts from "greedy" and never returns anything worse.
    assert schedule.objective <= pack_phases(jobs, cluster, "greedy").objective + 1e-9
    assert schedule.objective <= schedule.sequential_baseline + 1e-9


# ---------------------------------------------------------------- 7. determinism

def test_same_inputs_same_schedule():
    jobs = batch(50, 10)
    first = pack_phases(jobs, C3, "milp", time_limit=30, seed=3)
    again = pack_phases(jobs, C3, "milp", time_limit=30, seed=3)
    assert again.phases == first.phases
    assert (again.objective, again.status, again.bound) == (first.objective, first.status, first.bound)


# ---------------------------------------------------------------- 8. bounds

@pytest.mark.parametrize("seed", [60, 61])
def test_milp_bound_is_below_the_compact_optimum(seed):
    jobs = batch(seed, 8)
    compact = _solved(jobs, CLUSTER, "milp-compact", time_limit=60)
    assert compact.status is SolveStatus.OPTIMAL
    exact = _solved(jobs, CLUSTER, "milp", time_limit=60)
    assert exact.bound is not None and exact.bound <= compact.objective + 1e-6
    assert exact.bound <= exact.objective + 1e-6
    assert exact.objective >= compact.objective - 1e-6 * compact.objective


@pytest.mark.parametrize(("seed", "cluster", "bowl"), [(70, CLUSTER, None), (71, C3, None), (72, TIGHT, None),
                                                       (73, CLUSTER, "io")])
def test_column_generation_bounds_every_phase_count(seed, cluster, bowl):
    """The root LP bound is at most the optimum, the bound with exactly K phases is at most the best
    schedule of exactly K phases, and the bound with at most / at least m phases of length >= lambda
    is at most the best such schedule (brute force over the set partitions of 4 jobs)."""
    jobs = batch(seed, 4)
    if bowl is not None:
        jobs = with_bowl(jobs, 2, bowl)
    instance = packing_instance(jobs, cluster)
    shortest = shortest_phases(instance)
    by_count = optimum_by_phase_count(shortest, 4)
    greedy = _greedy(instance, time_limit=10, seed=0)
    tables = level_tables(instance)

    def bound(rows=()):
        lp = generate_columns(instance, initial_pool(instance, greedy), tables, deadline=30, clock=Stopwatch(),
                              seed=0, rows=rows)
        assert lp.converged
        return lp.bound

    assert bound() <= min(by_count.values()) * (1 + 1e-9)
    for count in range(1, 5):
        assert bound((CountRow(0.0, count, count),)) <= by_count[count] * (1 + 1e-9), count
    partitions = [[shortest[frozenset(block)] for block in p] for p in set_partitions(list(range(4)))]
    for threshold in sorted({length for lengths in partitions for length in lengths if math.isfinite(length)})[::3]:
        for lower, upper in ((0.0, 0.0), (0.0, 1.0), (1.0, np.inf), (2.0, np.inf)):
            best = min((sum(lengths) for lengths in partitions
                        if lower <= sum(length >= threshold for length in lengths) <= upper), default=math.inf)
            assert bound((CountRow(threshold, lower, upper),)) <= best * (1 + 1e-9), (threshold, lower, upper)


def test_partial_pricing_sees_the_same_lengths_and_converges_to_the_same_bound(monkeypatch):
    """Restricting the tables to some lengths prices those lengths exactly as the full tables do, and
    column generation that prices a sample of lengths first (forced here by a tiny sample size)
    still converges to the LP bound of full pricing: it prices every length before it stops."""
    import solvers.packing.lp as packing_lp
    from solvers.packing.columns import restricted

    cluster = Cluster(nodes=4, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)
    instance = packing_instance(batch(81, 7), cluster)
    tables = level_tables(instance)
    weights = np.random.default_rng(81).uniform(0, 100, instance.jobs)
    ks = np.arange(0, tables.levels.size, 5)
    assert best_by_level(restricted(tables, ks), weights) == pytest.approx(best_by_level(tables, weights)[ks])
    greedy = _greedy(instance, time_limit=10, seed=0)
    full = generate_columns(instance, initial_pool(instance, greedy), tables, deadline=60, clock=Stopwatch(), seed=0)
    monkeypatch.setattr(packing_lp, "PARTIAL_LEVELS", 4)
    sampled = generate_columns(instance, initial_pool(instance, greedy), tables, deadline=60, clock=Stopwatch(),
                               seed=0)
    assert tables.levels.size > 8 * 4 and full.converged and sampled.converged
    assert sampled.bound == pytest.approx(full.bound, rel=1e-7)


# ---------------------------------------------------------------- 7. issue 18: one pass per round, warm LP, root enumeration

@pytest.mark.parametrize(("seed", "n", "cluster", "bowl"), CASES)
def test_best_phases_traces_every_level_in_one_pass(seed, n, cluster, bowl):
    """`best_phases` over every level at once (asked in descending order, answered in that order):
    at each, a valid phase within that length holding the most weight `best_by_level` says."""
    from solvers.packing.columns import best_phases

    _, instance, tables, _ = case(seed, n, cluster, bowl)
    weights = np.random.default_rng(300 + seed).uniform(1, 10, n)
    held = best_by_level(tables, weights)
    levels = list(range(tables.levels.size))[::-1]
    for k, phase in zip(levels, best_phases(tables, weights, levels), strict=True):
        assert follows_rules(instance, phase), phase
        if phase:
            check_with_model(instance, phase)
        assert all(instance.time(p.job, p.vms, p.role) <= tables.levels[k] for p in phase)
        assert weights[[p.job for p in phase]].sum() == pytest.approx(held[k], rel=1e-12)


def test_the_pool_matrix_from_a_column_on_is_a_slice_of_the_whole():
    from solvers.packing.lp import ColumnPool

    instance = packing_instance(batch(31, 6), CLUSTER)
    pool = initial_pool(instance, _greedy(instance, time_limit=10, seed=0))
    whole = pool.matrix().toarray()
    for start in (0, 1, len(pool.costs) // 2, len(pool.costs)):
        assert np.array_equal(pool.matrix(start).toarray(), whole[:, start:])
    assert ColumnPool(instance).matrix().shape == (instance.jobs, 0)


def test_the_warm_lp_matches_a_cold_solve_after_every_batch_of_columns():
    """Covering LPs grown in three batches of random columns: after each, the warm LP's value is a
    cold `solve_arrays` of every column so far, and its duals are feasible (no column prices below 0)."""
    from scipy import sparse

    from solvers.backends.milp import WarmLp, solve_arrays

    rng = np.random.default_rng(32)
    for _ in range(5):
        rows = 8
        batches = [(rng.uniform(10, 100, 15), (rng.uniform(size=(rows, 15)) < 0.3).astype(float)) for _ in range(3)]
        batches[0][1][:, :rows] = np.eye(rows)  # every row covered: feasible from the start
        lp = WarmLp(np.ones(rows), np.full(rows, np.inf), unit=100.0)
        costs, columns = np.zeros(0), np.zeros((rows, 0))
        for cost, block in batches:
            lp.add_columns(cost, sparse.csc_matrix(block), np.zeros(cost.size), np.full(cost.size, np.inf))
            costs, columns = np.append(costs, cost), np.hstack([columns, block])
            warm = lp.solve(10.0)
            cold = solve_arrays(
                costs,
                sparse.csc_matrix(columns),
                np.ones(rows),
                np.full(rows, np.inf),
                np.zeros(costs.size),
                np.full(costs.size, np.inf),
                integer=False,
            )
            assert warm.status is SolveStatus.OPTIMAL and warm.objective == pytest.approx(cold.objective, rel=1e-9)
            assert np.all(costs - warm.duals @ columns >= -1e-7 * costs.max())


def _claims_match_exhaustive_search(mip_gap: float = 1e-6) -> None:
    """On 200 seeded batches of 3-5 jobs (those exhaustive search takes), every "optimal" of
    "milp" is the exhaustive optimum (within ``mip_gap`` when it is loose), no schedule is below
    it and every bound is at most it."""
    from models import InvalidInput
    from planner.examples.workloads import crosscheck_cases

    wrong = []
    for index, (jobs, cluster) in enumerate(crosscheck_cases(200, seed=34, jobs=(3, 5))):
        try:
            reference = pack_phases(jobs, cluster, method="exhaustive").objective
        except InvalidInput:  # too many combinations for the reference
            continue
        schedule = pack_phases(jobs, cluster, method="milp", time_limit=30, mip_gap=mip_gap)
        if schedule.status is SolveStatus.OPTIMAL and not (
            schedule.objective == pytest.approx(reference, rel=1e-9) or schedule.objective <= reference * (1 + mip_gap)
        ):
            wrong.append((index, schedule.objective, reference))
        assert schedule.objective >= reference * (1 - 1e-9)
        assert schedule.bound is not None and schedule.bound <= reference * (1 + 1e-9)
    assert wrong == []


def test_a_root_enumeration_proof_is_never_wrong(monkeypatch):
    """With branching switched off, "optimal" can only come from the root: no gap, or its gap closed
    by the enumeration. On 200 seeded batches of 3-5 jobs (those exhaustive search takes) every
    such claim is the exhaustive optimum, and every bound is below it. (Listing only phases within
    30% of the slack made two of these claims wrong: the check can see a short list.)"""
    def no_branching(self, root, deadline):
        return self.lower, None

    monkeypatch.setattr(packing_exact._Search, "branch", no_branching)
    proofs = []
    real_prove = packing_exact._Search.prove

    def counted(self, regions, *args, **kwargs):
        proven = real_prove(self, regions, *args, **kwargs)
        proofs.append(proven)
        return proven

    monkeypatch.setattr(packing_exact._Search, "prove", counted)
    _claims_match_exhaustive_search()
    assert sum(proofs) >= 10, proofs


@pytest.mark.parametrize("mip_gap", [1e-6, 0.05])
def test_a_region_closed_by_its_own_list_is_never_wrong(monkeypatch, mip_gap):
    """With the root's and the last enumeration switched off, "optimal" comes from branching: its
    bounds, or a region closed by listing its phases (`_Search._listed`, tried here on every
    region). On 200 seeded batches of 3-5 jobs every such claim is the exhaustive optimum (within
    a loose ``mip_gap``), every bound is below it, and regions were closed that way. With a loose
    gap HiGHS stops short of the pool's optimum, so a closed region's bound is the pool's certified
    bound, not the incumbent (taking the incumbent put bounds above the optimum)."""
    monkeypatch.setattr(packing_exact._Search, "prove", lambda self, regions, *args, **kwargs: False)
    monkeypatch.setattr(packing_exact, "NODE_RETRY", math.inf)
    closed = []
    real_listed = packing_exact._Search._listed

    def counted(self, node, deadline, **kwargs):
        result = real_listed(self, node, deadline, **kwargs)
        closed.append(result)
        return result

    monkeypatch.setattr(packing_exact._Search, "_listed", counted)
    _claims_match_exhaustive_search(mip_gap)
    assert sum(closed) >= 10, closed


# ---------------------------------------------------------------- 9. seed 2: bounds at any duals, profile branching, lists

@pytest.mark.parametrize(("seed", "cluster", "bowl"), [(90, CLUSTER, None), (91, C3, None), (92, TIGHT, None),
                                                       (93, CLUSTER, "io")])
def test_an_early_stop_bounds_and_its_slack_covers_every_phase_of_a_cheaper_schedule(seed, cluster, bowl):
    """Column generation stopped at its first bound (cutoff 0: duals far from optimal, so phases may
    price below 0 and Farley's bound is above the Lagrangian one) still bounds every schedule of its
    region (brute force over the set partitions of 4 jobs), with count rows too, and ``slack(c)`` is
    at least the reduced cost, under those duals, of every phase of every region schedule costing at
    most c: what listing a region relies on."""
    jobs = batch(seed, 4)
    if bowl is not None:
        jobs = with_bowl(jobs, 1, bowl)
    instance = packing_instance(jobs, cluster)
    shortest, tables = shortest_phases(instance), level_tables(instance)
    greedy = _greedy(instance, time_limit=10, seed=0)
    partitions = [[frozenset(block) for block in p] for p in set_partitions(list(range(4)))]
    partitions = [p for p in partitions if all(math.isfinite(shortest[b]) for b in p)]
    middle = float(np.median([shortest[b] for p in partitions for b in p]))
    for rows in ((), (CountRow(middle, 1.0, np.inf),), (CountRow(middle, 0.0, 1.0),)):
        lp = generate_columns(instance, initial_pool(instance, greedy), tables, deadline=30, clock=Stopwatch(), seed=0,
                              rows=rows, cutoff=0.0)
        assert lp.duals is not None and np.isfinite(lp.lagrange)
        inside = [p for p in partitions
                  if all(row.lower <= sum(shortest[b] >= row.threshold for b in p) <= row.upper for row in rows)]
        costs = [sum(shortest[b] for b in p) for p in inside]
        assert lp.bound <= min(costs) * (1 + 1e-9)
        for p, cost in zip(inside, costs, strict=True):
            for block in p:
                k = int(np.searchsorted(tables.levels, shortest[block]))
                reduced = shortest[block] - lp.duals[list(block)].sum() - lp.shift[k]
                assert reduced <= lp.slack(cost) + 1e-9 * cost, (rows, sorted(block))


def test_a_cutoff_stops_column_generation_once_the_bound_reaches_it():
    """A region whose bound reaches the incumbent needs no more columns: with a cutoff at 95% of the
    converged bound (205.5), generation stops (not converged) with a bound of at least the cutoff
    (197.2: the bound rises in steps) and at most the converged one (an LP bound is the most any
    duals prove)."""
    instance = packing_instance(batch(94, 9), CLUSTER)
    tables, greedy = level_tables(instance), _greedy(instance, time_limit=10, seed=0)
    full = generate_columns(instance, initial_pool(instance, greedy), tables, deadline=60, clock=Stopwatch(), seed=0)
    cutoff = 0.95 * full.bound
    early = generate_columns(instance, initial_pool(instance, greedy), tables, deadline=60, clock=Stopwatch(), seed=0,
                             cutoff=cutoff)
    assert full.converged and not early.converged
    assert cutoff <= early.bound < full.bound


def test_branching_settles_the_longest_phases_first():
    """Counts of phases at least lambda long, from an LP using phases of 100, 90, 50 and 20 s at
    0.2, 0.5, 0.8 and 0.5: 0.2 (>= 100), 0.7 (>= 90), 1.5 (>= 50), 2.0 (>= 20). The most fractional
    count is at 50 s (1.5), but the longest phase's length is still open: of the thresholds whose
    count lies in (0, 1), 90 s (0.7) is the nearest to 1/2. Once every count up to some place is
    whole, the next place's thresholds are split: counts 1.0 (>= 100) and 1.3, 1.8 below it pick 1.3."""
    from types import SimpleNamespace

    from solvers.packing.lp import LpBound, branching_row

    def lp(values):
        return LpBound(0.0, None, None, True, np.array(values), ())

    pool = SimpleNamespace(costs=[100.0, 90.0, 50.0, 20.0])
    assert branching_row(lp([0.2, 0.5, 0.8, 0.5]), pool) == (90.0, pytest.approx(0.7))
    assert branching_row(lp([1.0, 0.3, 0.5, 0.2]), pool) == (90.0, pytest.approx(1.3))
    assert branching_row(lp([1.0, 1.0, 0.0, 3.0]), pool) is None  # every count whole: no split


def test_a_probe_lists_the_whole_list_when_half_the_slack_holds_few_phases():
    """`PhaseLister.probe` returns what `within` lists at the full slack when the list within half of it
    is short, and stops (incomplete, at most limit / PROBE phases) when it is not."""
    from solvers.packing.listing import PROBE, PhaseLister

    _, instance, tables, shortest = case(*CASES[4])  # 5 phases within the slack, 2 within half of it
    duals = _duals(instance, shortest, CASES[4][0])
    slack = 0.1 * float(tables.levels[-1])
    lister = PhaseLister(tables, duals, slack)
    whole, complete = lister.within(slack, limit=10**6, deadline=1e9, clock=Stopwatch())
    half, _ = lister.within(slack / 2, limit=10**6, deadline=1e9, clock=Stopwatch())
    assert complete and 1 < len(half) < len(whole)
    probed, done = lister.probe(limit=PROBE * len(half), deadline=1e9, clock=Stopwatch())
    assert done and sorted(length for length, _ in probed) == sorted(length for length, _ in whole)
    cut, done = lister.probe(limit=PROBE * (len(half) - 1), deadline=1e9, clock=Stopwatch())
    assert not done and len(cut) <= len(half) - 1
    with pytest.raises(ValueError, match="slack"):
        lister.within(2 * slack, limit=10, deadline=1e9, clock=Stopwatch())


def test_the_pool_prices_and_restricts_its_columns():
    """`ColumnPool.reduced_costs` is each column's real length less its jobs' duals and the rows' shift
    at that length; `holding` finds columns by job set; `cheapest(among)` keeps the cheapest of each
    set among the columns given only."""
    from solvers.packing.lp import ColumnPool, LpBound

    instance = packing_instance(batch(95, 3), CLUSTER)
    tables = level_tables(instance)
    pool = ColumnPool(instance)
    a, b = [Placement(0, 4, "primary")], [Placement(0, 1, "primary"), Placement(1, 3, "primary")]
    slow_a = [Placement(0, 1, "primary")]
    for phase in (a, b, slow_a):
        pool.add(phase)
    duals = np.array([10.0, 20.0, 30.0])
    shift = np.where(tables.levels >= length(instance, b), 5.0, 0.0)
    reduced = pool.reduced_costs(LpBound(0.0, duals, shift, True, None, ()), tables.levels)
    expected = [length(instance, a) - 10 - (5.0 if length(instance, a) >= length(instance, b) else 0.0),
                length(instance, b) - 30 - 5, length(instance, slow_a) - 10 - 5 * (length(instance, slow_a) >=
                                                                                    length(instance, b))]
    assert reduced == pytest.approx(expected)
    assert pool.holding([a]).tolist() == [0, 2] and pool.holding([b, a]).tolist() == [0, 1, 2]
    kept, costs = pool.cheapest(np.array([2, 1]))
    assert kept.tolist() == [1, 2] and costs == pytest.approx([length(instance, b), length(instance, slow_a)])
    assert pool.cheapest()[0].tolist() == [0, 1]  # job 0 alone on 4 VMs beats it on 1
