"""Johnson ordering and the two-stage methods, against brute force and a textbook example."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from models import InvalidInput, Job
from solvers import (
    PsoOptions,
    SolveStatus,
    johnson_order,
    methods,
    order_jobs,
    order_two_stage,
    two_stage_makespan,
)
from solvers.ordering.two_stage import lower_bound, makespans


def brute_force(a, b) -> float:
    """The best makespan over all orders (vectorized over the n! permutations)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    orders = np.array(list(itertools.permutations(range(len(a)))), dtype=np.int64).reshape(-1, len(a))
    return float(makespans(a, b, orders).min())


def simulate(a, b, order) -> float:
    """The flow-shop recurrence: C1 += a; C2 = max(C2, C1) + b."""
    first = second = 0.0
    for j in order:
        first += a[j]
        second = max(second, first) + b[j]
    return second


def test_textbook_five_jobs():
    """The classic two-machine example: machine 1 times 5, 1, 9, 3, 10; machine 2 times 2, 6, 7, 8, 4.
    a < b for jobs 2 (1 < 6) and 4 (3 < 8): first, by increasing a: 2, 4. The rest by decreasing b:
    3 (7), 5 (4), 1 (2). Order 2, 4, 3, 5, 1; machine 1 ends jobs at 1, 4, 13, 23, 28 and machine 2
    at 7, 15, 22, 27, 30: makespan 30."""
    a, b = [5, 1, 9, 3, 10], [2, 6, 7, 8, 4]
    order = johnson_order(a, b)
    assert (order + 1).tolist() == [2, 4, 3, 5, 1]
    assert two_stage_makespan(a, b, order) == 30.0 == simulate(a, b, order)


def test_ties_by_index():
    """Equal a's in the first group and equal b's in the second keep index order;
    a job with a == b goes to the second group."""
    a, b = [2, 2, 5, 4, 4], [9, 9, 5, 1, 1]
    assert johnson_order(a, b).tolist() == [0, 1, 2, 3, 4]


def test_johnson_is_optimal_against_brute_force():
    rng = np.random.default_rng(2)
    for _ in range(150):
        n = int(rng.integers(1, 8))
        a = rng.integers(0, 20, n).astype(float)
        b = rng.integers(0, 20, n).astype(float)
        order = johnson_order(a, b)
        assert sorted(order.tolist()) == list(range(n))
        assert two_stage_makespan(a, b, order) == brute_force(a, b)


def test_makespan_formula_matches_recurrence():
    rng = np.random.default_rng(4)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        a, b = rng.uniform(0, 10, n), rng.uniform(0, 10, n)
        order = rng.permutation(n)
        assert two_stage_makespan(a, b, order) == pytest.approx(simulate(a, b, order))
        assert lower_bound(a, b) <= two_stage_makespan(a, b, order) + 1e-9


def test_million_jobs_is_a_permutation():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 100, 1_000_000), rng.uniform(0, 100, 1_000_000)
    order = johnson_order(a, b)
    assert order.dtype == np.int64 and np.array_equal(np.sort(order), np.arange(1_000_000))


def test_order_jobs_uses_per_slot_stage_times():
    """a: map 100 / 10 = 10, reduce 40 / 2 = 20 -> first group; b: 300 / 10 = 30, 20 / 2 = 10 -> second."""
    jobs = [Job("b", 10, 2, 30.0, 10.0), Job("a", 10, 2, 10.0, 20.0)]
    assert [j.name for j in order_jobs(jobs, map_slots=10, reduce_slots=2)] == ["a", "b"]


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [([1, 2], [1], "stage2: must be 1-d and as long as stage1"), ([1, -2], [1, 1], "stage1: must hold numbers >= 0"),
     ([1, 2], [1, float("nan")], "stage2: must hold finite numbers"), ([[1, 2]], [[1, 2]], "stage1: must be a 1-d"),
     (["a", "b"], [1, 2], r"stage1: must be an array of numbers, got \['a', 'b'\]"),
     ([1e300, 1e300], [1, 2], "stage1: the stage times add up to more than 1e\\+300 s")],
)
def test_bad_stage_times(a, b, message):
    with pytest.raises(InvalidInput, match=message):
        johnson_order(a, b)


def test_bad_order_and_method():
    with pytest.raises(InvalidInput, match="order: must be a permutation"):
        two_stage_makespan([1, 2], [1, 2], [0, 0])
    with pytest.raises(InvalidInput, match="unknown method 'magic' for two_stage; choose from exhaustive, johnson, milp, pso"):
        order_two_stage([1], [1], "magic")
    with pytest.raises(InvalidInput, match="at most 8 jobs"):
        order_two_stage(np.ones(9), np.ones(9), "exhaustive")


# --- the shared contract: every registered two-stage method on a common instance set ---

def instances():
    rng = np.random.default_rng(9)
    yield "textbook", np.array([5.0, 1, 9, 3, 10]), np.array([2.0, 6, 7, 8, 4])
    yield "one job", np.array([3.0]), np.array([4.0])
    yield "ties", np.array([2.0, 2, 2, 2]), np.array([2.0, 2, 2, 2])
    for n in (3, 6, 8):
        yield f"random {n}", rng.integers(1, 30, n).astype(float), rng.integers(1, 30, n).astype(float)


@pytest.mark.parametrize("name", sorted(methods("two_stage")))
def test_every_two_stage_method_honours_the_contract(name):
    registered = methods("two_stage")[name]
    options = {"pso": PsoOptions(particles=40, iterations=30)} if name == "pso" else {}
    for label, a, b in instances():
        solution = order_two_stage(a, b, name, time_limit=30, seed=3, **options)
        again = order_two_stage(a, b, name, time_limit=30, seed=3, **options)
        optimum = brute_force(a, b)
        assert sorted(solution.order.tolist()) == list(range(a.size)), label
        assert solution.objective == pytest.approx(two_stage_makespan(a, b, solution.order)), label
        assert solution.makespan == solution.objective
        assert np.array_equal(solution.order, again.order), f"{label}: same seed, same order"
        assert solution.objective >= optimum - 1e-9, label
        assert solution.bound is None or solution.bound <= solution.objective + 1e-6
        assert solution.gap is None or solution.gap >= 0
        assert solution.seconds >= 0 and solution.solver
        if registered.exact:
            assert solution.status is SolveStatus.OPTIMAL, label
            assert solution.objective == pytest.approx(optimum), label
        else:
            assert solution.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL), label
