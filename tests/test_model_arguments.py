"""The Python API's argument checks at their limits (docs/limits.md, "The Python API's arguments")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from models import Cluster, InvalidInput, InvalidType, Job, Workload, profile_from_dict, wave_runtime, write_atomic
from models.limits import MAX_JOBS, MAX_TOTAL_SLOTS
from solvers import (
    PackingInstance,
    PairCost,
    PsoOptions,
    SolveStatus,
    fluid_makespan,
    johnson_order,
    method,
    minimize_pso,
    order_jobs,
    release_schedule,
    solve_milp,
    two_stage_makespan,
)
from solvers.backends.milp import MAX_HIGHS_SEED, MAX_HIGHS_THREADS
from solvers.backends.pso import MAX_NUMPY_SEED, MAX_PSO_HISTORY_BYTES, MAX_PSO_ITERATIONS, MAX_PSO_PARTICLES
from solvers.ordering.two_stage import MAX_STAGE_TOTAL

JOBS = [Job("a", 4, 1, 10.0, 5.0), Job("b", 2, 2, 8.0, 6.0)]


def test_wave_runtime_by_hand_and_its_checks():
    """ceil(100 / 8) * 30 + ceil(10 / 4) * 60 = 13 * 30 + 3 * 60 = 570."""
    assert wave_runtime(100, 10, 30.0, 60.0, 8, 4) == 570.0
    assert wave_runtime(100, 10, 30.0, 60.0, 10**100, 10**100) == 90.0  # one wave each, whatever the slots
    with pytest.raises(InvalidInput, match="map_time: must be a finite number, got -inf"):
        wave_runtime(100, 10, -math.inf, 60.0, 8, 4)
    with pytest.raises(InvalidInput, match="reduce_time: must be a finite number, got nan"):
        wave_runtime(100, 10, 30.0, math.nan, 8, 4)
    with pytest.raises(InvalidInput, match="map_tasks: must be an integer, got -inf"):
        wave_runtime(-math.inf, 10, 30.0, 60.0, 8, 4)
    with pytest.raises(InvalidType, match=r"reduce_slots: must be an integer, got \[\] \(list\)"):
        wave_runtime(100, 10, 30.0, 60.0, 8, [])


def test_wrong_types_name_the_parameter():
    with pytest.raises(InvalidType, match=r"jobs: must be a sequence, got 3 \(int\)"):
        Workload(3)
    with pytest.raises(InvalidType, match=r"jobs\[1\]: must be a Job, got Cluster"):
        order_jobs([JOBS[0], Cluster(nodes=2)])
    with pytest.raises(InvalidType, match="data: must be a mapping, got float"):
        profile_from_dict(math.nan)
    with pytest.raises(InvalidInput, match=r"data\.kind: is required"):
        profile_from_dict({"a": 1})
    with pytest.raises(InvalidType, match=r"path: must be a path .* got 9223372036854775808"):
        write_atomic(2**63, "text")
    with pytest.raises(InvalidType, match="content: must be a str, bytes or a function"):
        write_atomic("never-written.txt", 12)
    with pytest.raises(InvalidType, match=r"options: must be a PsoOptions, got \{\}"):
        minimize_pso(lambda swarm: swarm.sum(axis=1), np.zeros(1), np.ones(1), options={})
    with pytest.raises(InvalidInput, match="value: must be one of optimal, feasible"):
        SolveStatus(None)
    with pytest.raises(InvalidType, match="name: must be a string, got None"):
        method("two_stage", None)
    with pytest.raises(InvalidInput, match="problem: unknown problem 'sorting'"):
        method("sorting", "johnson")
    with pytest.raises(InvalidInput, match="method_name: unknown method 'magic' for two_stage"):
        order_jobs(JOBS, method_name="magic")


def test_records_hold_only_finite_numbers_but_the_documented_infinities():
    times = np.stack([np.full((2, 4), 10.0), np.full((2, 4), 13.0)], axis=2)
    with pytest.raises(InvalidInput, match="vms: must be an integer, got nan"):
        PackingInstance(times, np.array([True, False]), np.array([False, True]), math.nan, 2)
    with pytest.raises(InvalidInput, match=r"times: must be positive, of shape \(jobs, vms = 3, 2\)"):
        PackingInstance(times, np.array([True, False]), np.array([False, True]), 3, 2)
    alone = PairCost(20.0, math.inf, None, math.inf, 20.0, "sequential")
    assert (alone.concurrent, alone.overcommit) == (math.inf, math.inf)
    with pytest.raises(InvalidInput, match="best: must be a finite number, got inf"):
        PairCost(20.0, math.inf, None, math.inf, math.inf, "sequential")
    with pytest.raises(InvalidInput, match="concurrent: must be a finite number, got nan"):
        PairCost(20.0, math.nan, None, math.inf, 20.0, "sequential")


def test_stage_times_add_up_to_at_most_1e300():
    assert list(johnson_order([MAX_STAGE_TOTAL / 2, 0.0], [0.0, MAX_STAGE_TOTAL / 2])) == [1, 0]
    with pytest.raises(InvalidInput, match=r"stage1: the stage times add up to more than 1e\+300 s"):
        two_stage_makespan([1e300, 1e300], [0.0, 0.0], [0, 1])
    with pytest.raises(InvalidInput, match="releases: must be finite and >= 0"):
        release_schedule([1.0, 2.0], [1.0, 2.0], [0.0, 1e301], [0, 1])


def test_fluid_slots_and_k_are_bounded():
    assert fluid_makespan(JOBS, MAX_TOTAL_SLOTS, 1, MAX_JOBS) > 0
    with pytest.raises(InvalidInput, match="map_slots: must be <= 1,000,000"):
        fluid_makespan(JOBS, 10**100, 1, 2)
    with pytest.raises(InvalidInput, match="k: must be <= 100,000"):
        fluid_makespan(JOBS, 2, 2, MAX_JOBS + 1)


def _model():
    import pyomo.environ as pyo

    model = pyo.ConcreteModel()
    model.x = pyo.Var(within=pyo.Binary)
    model.objective = pyo.Objective(expr=-model.x)
    return model


def test_solver_seeds_and_threads_are_bounded():
    assert solve_milp(_model(), seed=MAX_HIGHS_SEED, threads=1).objective == -1.0
    with pytest.raises(InvalidInput, match="seed: must be <= 2,147,483,647"):
        solve_milp(_model(), seed=MAX_HIGHS_SEED + 1)
    with pytest.raises(InvalidInput, match="threads: must be <= 256"):
        solve_milp(_model(), threads=MAX_HIGHS_THREADS + 1)
    with pytest.raises(InvalidType, match="model: must be a ConcreteModel, got None"):
        solve_milp(None)
    options = PsoOptions(particles=4, iterations=2)
    assert minimize_pso(lambda swarm: (swarm**2).sum(axis=1), -np.ones(1), np.ones(1), options=options,
                        seed=MAX_NUMPY_SEED).iterations == 2
    with pytest.raises(InvalidInput, match="seed: must be <= 4,294,967,295"):
        minimize_pso(lambda swarm: swarm.sum(axis=1), -np.ones(1), np.ones(1), options=options, seed=2**32)


def test_swarms_are_bounded():
    assert PsoOptions(particles=MAX_PSO_PARTICLES, iterations=MAX_PSO_ITERATIONS).particles == 100_000
    with pytest.raises(InvalidInput, match="particles: must be <= 100,000, got 100001"):
        PsoOptions(particles=MAX_PSO_PARTICLES + 1)
    with pytest.raises(InvalidInput, match="iterations: must be <= 100,000, got 1000000000"):
        PsoOptions(iterations=10**9)


def test_a_swarm_whose_history_passes_the_budget_is_refused_before_it_starts(monkeypatch):
    """16 bytes (a position and a velocity) per particle, iteration and dimension. The budget is
    4 GiB: 2**14 particles x 2**13 iterations in 3 dimensions keep 2**14 * 2**13 * 3 * 16 = 6 GiB,
    refused before pyswarms allocates anything (the cost is never called). At the boundary, with
    the budget lowered to 4 particles x 3 iterations x 2 dimensions x 16 = 384 bytes: 2 dimensions
    run, 3 are refused."""
    import solvers.backends.pso as pso

    def never(positions):
        raise AssertionError("the swarm started")

    assert MAX_PSO_HISTORY_BYTES == 4 * 2**30
    with pytest.raises(InvalidInput, match=r"options: a swarm of 16,384 particles x 8,192 iterations in 3 "
                                           r"dimensions keeps 6.0 GiB of history; at most 4 GiB"):
        minimize_pso(never, np.zeros(3), np.ones(3), options=PsoOptions(particles=2**14, iterations=2**13))
    monkeypatch.setattr(pso, "MAX_PSO_HISTORY_BYTES", 384)
    small = PsoOptions(particles=4, iterations=3)
    found = minimize_pso(lambda x: (x ** 2).sum(axis=1), np.zeros(2), np.ones(2), options=small)
    assert found.iterations == 3 and 0.0 <= found.cost <= 2.0
    with pytest.raises(InvalidInput, match=r"keeps 0\.0 GiB of history"):
        minimize_pso(never, np.zeros(3), np.ones(3), options=small)
