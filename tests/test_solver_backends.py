"""The HiGHS and particle-swarm backends: statuses, limits, infeasibility, determinism."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest

from models import InvalidInput, PlannerError
from solvers import InfeasibleProblem, PsoOptions, SolveStatus, minimize_pso, relative_gap, solve_milp


def knapsack(capacity: int = 10) -> pyo.ConcreteModel:
    """max 6x0 + 5x1 + 4x2 with weights 5, 4, 3 and the capacity: for 10, x0 + x1 = 11 beats x0 + x2 = 10
    and x1 + x2 = 9, and all three weigh 12 > 10, so the optimum is 11."""
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 2)
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    value, weight = [6, 5, 4], [5, 4, 3]

    @m.Constraint()
    def capacity_rule(m):
        return sum(weight[i] * m.x[i] for i in m.I) <= capacity

    m.total = pyo.Objective(expr=sum(value[i] * m.x[i] for i in m.I), sense=pyo.maximize)
    return m


def hard_multi_knapsack(n: int = 80, rows: int = 8) -> pyo.ConcreteModel:
    """A multi-dimensional knapsack HiGHS cannot close in a fraction of a second."""
    rng = np.random.default_rng(0)
    w = rng.integers(1, 1000, (rows, n))
    v = w.sum(axis=0) // rows + rng.integers(0, 100, n)
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    m.rows = pyo.ConstraintList()
    for r in range(rows):
        m.rows.add(sum(int(w[r, i]) * m.x[i] for i in range(n)) <= int(w[r].sum() // 2))
    m.total = pyo.Objective(expr=sum(int(v[i]) * m.x[i] for i in range(n)), sense=pyo.maximize)
    return m


def test_milp_optimal_loads_solution():
    model = knapsack()
    outcome = solve_milp(model)
    assert outcome.status is SolveStatus.OPTIMAL and outcome.objective == pytest.approx(11)
    assert outcome.bound == pytest.approx(11) and outcome.gap == 0.0 and outcome.solver == "highs"
    assert [round(pyo.value(model.x[i])) for i in range(3)] == [1, 1, 0]


def test_milp_time_limit_returns_incumbent_and_bound():
    model = hard_multi_knapsack()
    outcome = solve_milp(model, time_limit=0.3)
    assert outcome.status is SolveStatus.TIME_LIMIT and outcome.termination == "maxTimeLimit"
    assert outcome.objective is not None and outcome.bound is not None
    assert outcome.bound >= outcome.objective and outcome.gap > 0
    # the incumbent is loaded into the model
    assert pyo.value(model.total) == pytest.approx(outcome.objective)


def test_milp_infeasible_raises_or_reports():
    with pytest.raises(InfeasibleProblem, match="infeasible") as caught:
        solve_milp(knapsack(capacity=-1))
    assert isinstance(caught.value, PlannerError)
    outcome = solve_milp(knapsack(capacity=-1), require_solution=False)
    assert outcome.status is SolveStatus.INFEASIBLE and outcome.objective is None


@pytest.mark.parametrize(("option", "value"), [("time_limit", 0), ("mip_gap", -1), ("threads", 0), ("seed", -1)])
def test_milp_rejects_bad_options(option, value):
    with pytest.raises(InvalidInput, match=option):
        solve_milp(knapsack(), **{option: value})


def sphere(swarm: np.ndarray) -> np.ndarray:
    return ((swarm - 0.3) ** 2).sum(axis=1)


def test_pso_finds_minimum_and_is_deterministic():
    options = PsoOptions(particles=60, iterations=80)
    first = minimize_pso(sphere, np.zeros(4), np.ones(4), options=options, seed=7)
    again = minimize_pso(sphere, np.zeros(4), np.ones(4), options=options, seed=7)
    assert np.array_equal(first.position, again.position) and first.cost == again.cost
    np.testing.assert_allclose(first.position, 0.3, atol=0.05)
    other = minimize_pso(sphere, np.zeros(4), np.ones(4), options=options, seed=8)
    assert not np.array_equal(first.position, other.position)


def test_pso_leaves_the_callers_random_state_alone():
    np.random.seed(123)  # noqa: NPY002 - this test checks exactly that global state survives
    expected = np.random.random(3)  # noqa: NPY002
    np.random.seed(123)  # noqa: NPY002
    minimize_pso(sphere, np.zeros(2), np.ones(2), options=PsoOptions(particles=10, iterations=5), seed=1)
    assert np.array_equal(np.random.random(3), expected)  # noqa: NPY002


def test_pso_defaults_follow_the_packing_paper():
    assert (PsoOptions().particles, PsoOptions().iterations) == (1500, 200)
    with pytest.raises(InvalidInput, match="particles"):
        PsoOptions(particles=0)
    with pytest.raises(InvalidInput, match="upper: every upper bound must exceed its lower bound"):
        minimize_pso(sphere, np.ones(2), np.ones(2))


def test_pso_decoders():
    """Rounding then clipping: 0.49 -> 0, 2.5 -> 2 (round half to even), 7.2 -> 5 (upper bound 5)."""
    from solvers.backends.pso import integers, penalized, random_keys

    decoded = integers(np.array([[0.49, 2.5, 7.2]]), np.array([0, 0, 1]), np.array([5, 5, 5]))
    assert decoded.tolist() == [[0, 2, 5]]
    assert random_keys(np.array([[0.9, 0.1, 0.5], [0.2, 0.2, 0.1]])).tolist() == [[1, 2, 0], [2, 0, 1]]
    np.testing.assert_allclose(penalized(np.array([1.0, 2.0]), np.array([0.0, 3.0]), 10.0), [1.0, 32.0])
    np.testing.assert_allclose(penalized(np.array([1.0]), np.array([-1.0]), 10.0), [1.0])


def test_relative_gap():
    assert relative_gap(100.0, 90.0) == pytest.approx(0.1)
    assert relative_gap(5.0, 5.0 + 1e-14) == 0.0
    assert relative_gap(None, 3.0) is None and relative_gap(3.0, float("inf")) is None
