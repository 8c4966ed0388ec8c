"""Ordering with release times and due dates ("two_stage_release"): hand-worked examples, the reduction to
Johnson's problem, every method against exhaustive search, the lower bound against brute force, certificates,
determinism, bad inputs and time limits."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import solvers.ordering.release_methods as methods_module
from models import InvalidInput
from solvers import (
    PsoOptions,
    ReleaseOrderSolution,
    SolveStatus,
    UncertifiedResult,
    johnson_order,
    methods,
    order_with_releases,
    release_lower_bound,
    release_schedule,
    two_stage_makespan,
)
from solvers.backends.milp import MilpOutcome
from solvers.ordering.release_methods import reversed_instance
from solvers.ordering.releases import johnson_bound, node_bound, release_instance, schedule_of, value_of

OBJECTIVES = ("makespan", "max_lateness", "late_jobs")
SMALL_PSO = PsoOptions(particles=40, iterations=30)

# Three jobs worked by hand below.
A, B, R, DUE = [3.0, 2.0, 4.0], [2.0, 5.0, 1.0], [0.0, 1.0, 6.0], [6.0, 9.0, 12.0]


def brute_force(a, b, r, due, objective: str) -> float:
    """The best objective over all n! orders, by the plain recurrence (independent of the solvers)."""
    best = math.inf
    for order in itertools.permutations(range(len(a))):
        first = second = 0.0
        done = {}
        for j in order:
            first = max(first, r[j]) + a[j]
            second = max(second, first) + b[j]
            done[j] = second
        dated = [j for j in range(len(a)) if due[j] is not None and math.isfinite(due[j])]
        value = {"makespan": second, "max_lateness": max(done[j] - due[j] for j in dated) if dated else 0.0,
                 "late_jobs": sum(done[j] > due[j] for j in dated)}[objective]
        best = min(best, value)
    return best


def random_case(rng: np.random.Generator, n: int):
    """Integer stage times, releases over about half the stage-1 work, due dates r + k (a + b) for k in
    [1, 3], one job in five without a due date (at least one has one)."""
    a, b = rng.integers(1, 20, n).astype(float), rng.integers(1, 20, n).astype(float)
    r = rng.integers(0, int(a.sum() * 0.5) + 1, n).astype(float)
    due: list[float | None] = list(r + np.ceil((a + b) * rng.uniform(1, 3, n)))
    for j in range(n):
        if rng.random() < 0.2:
            due[j] = None
    if all(d is None for d in due):
        due[0] = r[0] + a[0] + b[0] + 3
    return a, b, r, due


def test_three_jobs_by_hand():
    """a = (3, 2, 4), b = (2, 5, 1), r = (0, 1, 6), d = (6, 9, 12).

    Order 0, 1, 2: job 0 ends stage 1 at max(0, 0) + 3 = 3 and stage 2 at 3 + 2 = 5; job 1 at max(3, 1) + 2 = 5
    and max(5, 5) + 5 = 10; job 2 waits for its release: max(5, 6) + 4 = 10, then max(10, 10) + 1 = 11.
    Makespan 11; lateness 5 - 6 = -1, 10 - 9 = 1, 11 - 12 = -1, so L_max = 1 and one job (1) is late.
    Order 1, 0, 2: job 1 at 3 and 8, job 0 at 6 and 10 (4 late), job 2 at 10 and 11: L_max = 4.
    Optimal: makespan 11 = r_2 + a_2 + b_2 (no order beats one job's own path), L_max 1 (job 2 first ends at
    11 and pushes the others past 9); one late job at least (job 0 first makes job 1 end at 10 > 9, job 1
    first makes job 0 end at 10 > 6). The lower bound reaches 11 for the makespan."""
    schedule = release_schedule(A, B, R, [0, 1, 2], DUE)
    assert schedule.completions.tolist() == [5.0, 10.0, 11.0]
    assert (schedule.makespan, schedule.max_lateness, schedule.late_jobs) == (11.0, 1.0, 1)
    other = release_schedule(A, B, R, [1, 0, 2], DUE)
    assert other.completions.tolist() == [10.0, 8.0, 11.0] and other.max_lateness == 4.0
    assert release_lower_bound(A, B, R, DUE) == 11.0
    for objective, optimum in (("makespan", 11.0), ("max_lateness", 1.0), ("late_jobs", 1.0)):
        for name in methods("two_stage_release"):
            found = order_with_releases(A, B, R, DUE, objective=objective, method=name, pso=SMALL_PSO)
            assert found.objective == optimum, (objective, name)
        best = order_with_releases(A, B, R, DUE, objective=objective, method="exhaustive")
        assert best.order.tolist() == [0, 1, 2] and best.status is SolveStatus.OPTIMAL
        assert isinstance(best, ReleaseOrderSolution) and best.criterion == objective


def test_release_schedule_without_due_dates():
    """No due dates: no lateness to report, and nobody is late."""
    schedule = release_schedule(A, B, R, [2, 1, 0])
    assert schedule.max_lateness is None and schedule.late_jobs == 0
    assert schedule.makespan == release_schedule(A, B, R, [2, 1, 0], [None, None, math.inf]).makespan


def test_zero_releases_reduce_to_johnson():
    """With every r_j = 0 the recurrence is two_stage_makespan's, and the optimum is Johnson's makespan,
    which the lower bound (Johnson's rule from t = 0 among its terms) meets, so even the heuristic is optimal."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(1, 12))
        a, b = rng.integers(0, 30, n).astype(float), rng.integers(0, 30, n).astype(float)
        zero = np.zeros(n)
        order = rng.permutation(n)
        assert release_schedule(a, b, zero, order).makespan == two_stage_makespan(a, b, order)
        johnson = two_stage_makespan(a, b, johnson_order(a, b))
        assert release_lower_bound(a, b, zero) == johnson
        for name in ("johnson", "branch_and_bound"):
            found = order_with_releases(a, b, zero, method=name)
            assert found.objective == johnson and found.status is SolveStatus.OPTIMAL, name


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_every_method_against_exhaustive(objective):
    """Seeded instances of 1-7 jobs (the MILP up to 6): exact methods find the optimum and say optimal;
    heuristics are never below it and never claim beyond their bound; nobody is below the brute force."""
    rng = np.random.default_rng({"makespan": 1, "max_lateness": 2, "late_jobs": 3}[objective])
    registered = methods("two_stage_release")
    for index in range(12):
        n = int(rng.integers(1, 8))
        a, b, r, due = random_case(rng, n)
        best = order_with_releases(a, b, r, due, objective=objective, method="exhaustive")
        assert best.objective == brute_force(a, b, r, due, objective)
        for name, found_method in registered.items():
            if name == "milp" and n > 6:
                continue
            found = order_with_releases(a, b, r, due, objective=objective, method=name, time_limit=30, seed=1,
                                        pso=SMALL_PSO)
            label = (index, n, name)
            assert sorted(found.order.tolist()) == list(range(n)), label
            assert found.objective == value_of(release_instance(a, b, r, due, objective),
                                               schedule_of(release_instance(a, b, r, due), found.order)), label
            assert found.objective >= best.objective - 1e-9, label
            assert found.bound is None or found.bound <= best.objective + 1e-9, label
            if found_method.exact:
                assert found.status is SolveStatus.OPTIMAL and found.objective == pytest.approx(best.objective), label
            elif found.status is SolveStatus.OPTIMAL:
                assert found.objective == pytest.approx(best.objective), label


def test_lower_bound_never_above_the_optimum():
    """The bound of the empty prefix, and of random prefixes against their best completion (brute force)."""
    rng = np.random.default_rng(8)
    for _ in range(60):
        n = int(rng.integers(1, 7))
        a, b, r, due = random_case(rng, n)
        for objective in OBJECTIVES:
            assert release_lower_bound(a, b, r, due, objective=objective) <= brute_force(a, b, r, due, objective) + 1e-9
        inst = release_instance(a, b, r, due, "max_lateness")
        prefix = rng.permutation(n)[: int(rng.integers(0, n))].tolist()
        rest = sorted(set(range(n)) - set(prefix), key=lambda j: (r[j], j))
        if not rest:
            continue
        first = second = 0.0
        partial = -math.inf
        for j in prefix:
            first = max(first, r[j]) + a[j]
            second = max(second, first) + b[j]
            partial = max(partial, second - due[j]) if due[j] is not None else partial
        for objective in ("makespan", "max_lateness"):
            inst = release_instance(a, b, r, due, objective)
            best = min(value_of(inst, schedule_of(inst, np.array(prefix + list(tail))))
                       for tail in itertools.permutations(rest))
            start = partial if objective == "max_lateness" else -math.inf
            assert node_bound(inst, first, second, rest, start) <= best + 1e-9
            if objective == "makespan":
                assert johnson_bound(inst, first, second, rest) <= best + 1e-9


def test_reversed_instance_keeps_every_order_value():
    """Read backwards, an order's value in the reversed instance is its value plus the offset."""
    rng = np.random.default_rng(11)
    for _ in range(30):
        n = int(rng.integers(2, 9))
        a, b, r, due = random_case(rng, n)
        for objective in ("makespan", "max_lateness"):
            inst = release_instance(a, b, r, due, objective)
            backwards, offset = reversed_instance(inst)
            order = rng.permutation(n)
            there = value_of(backwards, schedule_of(backwards, order[::-1].copy()))
            assert there - offset == pytest.approx(value_of(inst, schedule_of(inst, order)), abs=1e-9)


def _hard_case():
    """Ten jobs whose L_max optimum (by exhaustive search in the test) lies above our lower bound."""
    rng = np.random.default_rng(21)
    a, b = rng.uniform(1, 100, 7).round(1), rng.uniform(1, 100, 7).round(1)
    r = rng.uniform(0, 0.5 * a.sum(), 7).round(1)
    return a, b, r, list((r + a + b + rng.uniform(0, 0.5 * a.sum(), 7)).round(1))


def test_a_lying_milp_is_not_reported_optimal(monkeypatch):
    """HiGHS says optimal with the objective 10 below what its order costs: refused, with a warning."""
    a, b, r, due = _hard_case()
    optimum = order_with_releases(a, b, r, due, objective="max_lateness", method="exhaustive").objective
    assert release_lower_bound(a, b, r, due, objective="max_lateness") < optimum - 1  # nothing else proves it
    real = methods_module.solve_milp

    def lying(model, **kwargs):
        outcome = real(model, **kwargs)
        return MilpOutcome(SolveStatus.OPTIMAL, outcome.objective - 10.0, outcome.objective - 10.0, 0.0,
                           outcome.seconds, "convergenceCriteriaSatisfied")

    monkeypatch.setattr(methods_module, "solve_milp", lying)
    with pytest.warns(UncertifiedResult, match="release milp"):
        found = order_with_releases(a, b, r, due, objective="max_lateness", method="milp")
    assert found.status is SolveStatus.FEASIBLE
    assert found.bound is None or found.bound <= optimum + 1e-9


def test_a_lying_search_is_not_reported_optimal(monkeypatch):
    """The branch and bound claims its bound exceeds the incumbent's objective (no order beats the
    incumbent, so no bound may exceed it): refused; likewise a search that misreports its order's objective."""
    a, b, r, due = _hard_case()
    inst = release_instance(a, b, r, due, "max_lateness")
    for lie in (lambda order, value: (order, value + 5.0, value + 5.0, 1),
                lambda order, value: (order, value - 5.0, value - 5.0, 1)):
        def search(inst, start, *, deadline, clock, lie=lie):
            return lie(start, value_of(inst, schedule_of(inst, start)))

        monkeypatch.setattr(methods_module, "branch_and_bound", search)
        with pytest.warns(UncertifiedResult, match="branch and bound"):
            found = order_with_releases(a, b, r, due, objective="max_lateness", method="branch_and_bound")
        assert found.status is SolveStatus.FEASIBLE
        assert found.bound == pytest.approx(release_lower_bound(a, b, r, due, objective="max_lateness"))
        assert found.objective == value_of(inst, schedule_of(inst, found.order))


@pytest.mark.parametrize("name", ["johnson", "pso", "branch_and_bound", "milp"])
def test_same_seed_same_order(name):
    rng = np.random.default_rng(4)
    a, b, r, due = random_case(rng, 9)
    runs = [order_with_releases(a, b, r, due, objective="max_lateness", method=name, seed=7, pso=SMALL_PSO)
            for _ in range(2)]
    assert np.array_equal(runs[0].order, runs[1].order)


def test_empty_batch():
    for name in methods("two_stage_release"):
        found = order_with_releases([], [], [], method=name)
        assert found.objective == 0.0 and found.order.size == 0 and found.status is SolveStatus.OPTIMAL, name


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"releases": [0, 1]}, "releases: must be 1-d and as long as stage1"),
    ({"releases": [0, -1, 2]}, "releases: must be finite and >= 0"),
    ({"releases": [0, math.nan, 2]}, "releases: must be finite and >= 0"),
    ({"releases": [0, "x", 2]}, "releases: must be a sequence of numbers"),
    ({"due": [5, 5]}, "due: must be as long as stage1"),
    ({"due": [5, 1, 9]}, "due: a due date must be after its job's release"),
    ({"due": [5, math.nan, 9]}, "due: must be numbers"),
    ({"objective": "tardiness"}, "objective: unknown objective 'tardiness'; choose from makespan, max_lateness, "
                                 "late_jobs"),
    ({"objective": "late_jobs", "due": None}, "due: objective late_jobs needs at least one due date"),
    ({"method": "magic"}, "unknown method 'magic' for two_stage_release; choose from branch_and_bound, "
                          "exhaustive, johnson, milp, pso"),
    ({"time_limit": 0}, "time_limit"),
    ({"stage2": [1, 2]}, "stage2: must be 1-d"),
])
def test_bad_inputs_name_the_field(kwargs, message):
    arguments = {"stage1": [1.0, 2.0, 3.0], "stage2": [3.0, 2.0, 1.0], "releases": [0.0, 1.0, 2.0],
                 "due": [10.0, None, 12.0], **kwargs}
    with pytest.raises(InvalidInput, match=message):
        order_with_releases(**arguments)


def test_exhaustive_takes_at_most_eight_jobs():
    with pytest.raises(InvalidInput, match="at most 8 jobs"):
        order_with_releases(np.ones(9), np.ones(9), np.zeros(9), method="exhaustive")


def test_time_limit_returns_the_incumbent():
    """Forty jobs with 2 s: the search stops, keeps an order no worse than the heuristic's, and reports
    a bound between our lower bound and its objective; the MILP likewise (a count of late jobs it cannot
    prove in 2 s). The heuristic alone takes 0.2 s here: with 0.5 s, a loaded machine cut its local
    search short (90% of the limit) and the incumbent came out worse than the unhurried heuristic's."""
    rng = np.random.default_rng(2)
    a, b = rng.uniform(1, 100, 40), rng.uniform(1, 100, 40)
    r = rng.uniform(0, 0.5 * a.sum(), 40)
    due = list(np.maximum(r + a + b, rng.uniform(0.3, 1.0, 40) * (a.sum() + b.mean())))
    for name, objective in (("branch_and_bound", "max_lateness"), ("milp", "late_jobs")):
        heuristic = order_with_releases(a, b, r, due, objective=objective, method="johnson")
        with warnings.catch_warnings():
            warnings.simplefilter("error", UncertifiedResult)
            found = order_with_releases(a, b, r, due, objective=objective, method=name, time_limit=2.0)
        lower = release_lower_bound(a, b, r, due, objective=objective)
        assert found.status is SolveStatus.TIME_LIMIT, name
        assert found.objective <= heuristic.objective + 1e-9, name
        assert lower - 1e-9 <= found.bound <= found.objective + 1e-9, name
        assert found.seconds < 5.0, name
