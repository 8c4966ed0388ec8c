"""The best split without the whole curve (`solvers.slots.search`): the curve's very split and
value, its values at the splits asked for, and plans that keep no curve on large batches."""

from __future__ import annotations

import math

import numpy as np
import pytest

from models import Cluster, Job, Workload
from planner.planning import curves as curves_module
from planner.planning.make import make_plan
from solvers import configure_slots
from solvers.ordering import releases as release_module
from solvers.slots import search
from solvers.slots.configure import best_split


def _batch(seed: int, count: int, spread: float = 40.0) -> list[Job]:
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(spread, count)).round(1)
    return [Job(f"j{i}", int(rng.integers(1, 40)), int(rng.integers(0, 6)), float(rng.uniform(5, 60)),
                float(rng.uniform(10, 120)), submit=float(submit[i])) for i in range(count)]


@pytest.mark.parametrize("seed", range(12))
def test_search_finds_the_curves_best_split(monkeypatch, seed):
    """Releases under "fresh" on S = 300 with a grid of 8 splits: the split, its value and the
    values asked for are the whole curve's, bit for bit, from fewer splits than the curve's."""
    monkeypatch.setattr(search, "GRID_SPLITS", 8)
    jobs = _batch(seed, 40, spread=[2.0, 20.0, 60.0][seed % 3])
    releases = [job.submit for job in jobs]
    order = list(np.random.default_rng(seed).permutation(len(jobs)))
    whole = configure_slots(jobs, 300, 3, order, releases=releases)
    heard: list[int] = []
    found, values = best_split(jobs, 300, 3, order, releases=releases, also=(150, 7), progress=heard.append)
    assert (found.map_slots, found.makespan) == (whole.map_slots, whole.makespan)
    assert values == {150: float(whole.makespans[149]), 7: float(whole.makespans[6])}
    assert found.makespans.size == 0 and found.solver == "fluid-fresh-bounded"
    assert sum(heard) < 299


@pytest.mark.parametrize("model, timed", [("capped", True), ("fresh", False)])
def test_search_evaluates_every_split_where_no_bound_holds(monkeypatch, model, timed):
    """"capped" (slots may idle) and batches ready at 0 (one map phase: the curve is cheap): every split."""
    monkeypatch.setattr(search, "GRID_SPLITS", 8)
    jobs = _batch(3, 25)
    releases = [job.submit for job in jobs] if timed else None
    whole = configure_slots(jobs, 200, 2, model=model, releases=releases)
    heard: list[int] = []
    found, values = best_split(jobs, 200, 2, model=model, releases=releases, also=(100,), progress=heard.append)
    assert (found.map_slots, found.makespan, values) == (whole.map_slots, whole.makespan,
                                                         {100: float(whole.makespans[99])})
    assert sum(heard) == 199


@pytest.mark.filterwarnings("ignore::models.errors.TaskFloorWarning")
@pytest.mark.parametrize("strategy", ["slots", "johnson", "slots+johnson"])
def test_plans_without_a_curve_are_the_same_plans(monkeypatch, strategy):
    """A batch over `CURVE_ENTRIES` keeps no curve; everything else of its plan is what the whole
    curves give (the split, predictions, baseline, order and its record)."""
    workload, cluster = Workload(_batch(5, 30, spread=15.0)), Cluster(nodes=60, map_slots=2, reduce_slots=2)
    kept = make_plan(workload, cluster, strategy, k=3)
    monkeypatch.setattr(curves_module, "CURVE_ENTRIES", 0)
    monkeypatch.setattr(search, "GRID_SPLITS", 8)
    searched = make_plan(workload, cluster, strategy, k=3)
    assert len(kept.curve) == 239 and searched.curve == ()
    for name in ("map_slots", "reduce_slots", "predicted_makespan", "baseline_makespan", "order", "ordering",
                 "status", "bound", "gap"):
        assert getattr(searched, name) == getattr(kept, name), name


def _one_matrix(inst, first, second, remaining):
    """`johnson_bound` as it was: one (heads x jobs) matrix."""
    jobs = np.array(sorted(remaining, key=inst.johnson_rank.__getitem__))
    a, b, heads = inst.a[jobs], inst.b[jobs], np.maximum(inst.r[jobs], first)
    starts = np.unique(heads)
    inside = heads[None, :] >= starts[:, None]
    sums = np.cumsum(np.where(inside, a, 0.0), axis=1)
    sums += np.cumsum(np.where(inside, b, 0.0)[:, ::-1], axis=1)[:, ::-1]
    return float(max((np.where(inside, sums, -math.inf).max(axis=1) + starts).max(), second + b.sum()))


def test_johnson_bound_in_blocks_is_the_one_matrix_bound(monkeypatch):
    """Rows in blocks of a few entries, skipping heads that cannot beat the best: the very number."""
    monkeypatch.setattr(release_module, "_BOUND_ENTRIES", 40)
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 50))
        a, b = rng.exponential(1, n).round(int(rng.integers(0, 3))), rng.exponential(1, n).round(2)
        r = np.floor(rng.uniform(0, 5, n)) * rng.integers(0, 2)
        inst = release_module.release_instance(a, b, r, None, "makespan")
        remaining = sorted(range(n), key=lambda j: (inst.r[j], j))
        for first, second in ((0.0, 0.0), (1.0, 2.5), (0.0, 50.0)):
            assert release_module.johnson_bound(inst, first, second, remaining) == _one_matrix(
                inst, first, second, remaining)
