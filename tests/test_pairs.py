"""VM pair scheduling: pair costs by hand, and the three exact methods against each other."""

from __future__ import annotations

import math

import numpy as np
import pytest

from models import Cluster, InvalidInput, Job, PowerLawProfile
from solvers import SolveStatus, methods, pair_cost, schedule_pairs

#: P = 2 machines, k = 2 disks: N = 4 primary VMs, P * k / r = 2 extra VMs, alpha = 1.3.
SMALL = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)


def job(name: str, a: float, b: float, intensity: str = "balanced") -> Job:
    return Job(name, intensity=intensity, profile=PowerLawProfile.from_coefficients(a, b))


def test_sequential_wins_for_jobs_that_scale():
    """F_i = 100 / n, F_j = 200 / n. Sequential: 25 + 50 = 75. Concurrent: x = 1: max(100, 66.7) = 100;
    x = 2: max(50, 100) = 100; x = 3: max(33.3, 200) = 200: 100 at x = 1 (the smallest on ties).
    Overcommit (i io, j cpu): 1.3 * max(F_i(4), F_j(2)) = 1.3 * max(25, 100) = 130."""
    cost = pair_cost(job("i", 100, -1, "io"), job("j", 200, -1, "cpu"), SMALL)
    assert (cost.sequential, cost.concurrent, cost.split) == (75.0, 100.0, 1)
    assert cost.overcommit == pytest.approx(130.0)
    assert (cost.best, cost.mode) == (75.0, "sequential")


def test_concurrent_wins_for_flat_jobs():
    """Two jobs of 100 s on any number of VMs: sequential 200, concurrent max(100, 100) = 100 at x = 1;
    no overcommit (neither is io)."""
    cost = pair_cost(job("i", 100, 0), job("j", 100, 0), SMALL)
    assert (cost.best, cost.mode, cost.split) == (100.0, "concurrent", 1)
    assert math.isinf(cost.overcommit)


def test_overcommit_wins_when_extras_are_free_capacity():
    """io F = 100 / n, cpu F = 40 / n. Sequential 25 + 10 = 35. Concurrent: x = 2: max(50, 20) = 50;
    x = 3: max(33.3, 40) = 40: 40. Overcommit: 1.3 * max(F_io(4), F_cpu(2)) = 1.3 * max(25, 20) = 32.5."""
    cost = pair_cost(job("io", 100, -1, "io"), job("cpu", 40, -1, "cpu"), SMALL)
    assert cost.sequential == 35.0 and cost.concurrent == pytest.approx(40.0) and cost.split == 3
    assert (cost.best, cost.mode) == (pytest.approx(32.5), "overcommit")
    reverse = pair_cost(job("cpu", 40, -1, "cpu"), job("io", 100, -1, "io"), SMALL)
    assert reverse.overcommit == pytest.approx(32.5)


def test_four_flat_jobs_pair_up():
    """Four 100-s flat jobs: any two pairs run concurrently, 100 + 100 = 200 (alone: 400)."""
    jobs = [job(f"j{i}", 100, 0) for i in range(4)]
    schedule = schedule_pairs(jobs, SMALL, "exhaustive")
    assert schedule.objective == 200.0 and schedule.sequential_baseline == 400.0
    assert [g.mode for g in schedule.groups] == ["concurrent", "concurrent"]


def test_odd_count_leaves_one_alone():
    """Three 100-s flat jobs: one concurrent pair (100) and one job alone on all VMs (100): 200."""
    schedule = schedule_pairs([job(f"j{i}", 100, 0) for i in range(3)], SMALL, "milp")
    assert schedule.objective == 200.0
    assert sorted(len(g.jobs) for g in schedule.groups) == [1, 2]
    assert [g.mode for g in schedule.groups if len(g.jobs) == 1] == ["alone"]


def random_jobs(rng, n):
    return [
        job(f"j{i}", float(rng.uniform(200, 5000)), float(rng.uniform(-1.0, 0.0)),
            str(rng.choice(["cpu", "io", "balanced"])))
        for i in range(n)
    ]


@pytest.mark.parametrize("name", sorted(methods("pairs")))
def test_every_pair_method_honours_the_contract(name):
    """Every registered method on a shared instance set: a partition of the jobs, the objective is the
    sum of its groups, and exact methods reach the exhaustive optimum."""
    rng = np.random.default_rng(4)
    cluster = Cluster(nodes=5, disks=2)
    for n in (1, 2, 5, 8, 11):
        jobs = random_jobs(rng, n)
        optimum = schedule_pairs(jobs, cluster, "exhaustive").objective
        schedule = schedule_pairs(jobs, cluster, name, time_limit=30, seed=1)
        assert sorted(i for g in schedule.groups for i in g.jobs) == list(range(n))
        assert schedule.objective == pytest.approx(sum(g.seconds for g in schedule.groups))
        assert schedule.objective == pytest.approx(optimum, rel=1e-9)
        assert schedule.status is SolveStatus.OPTIMAL and schedule.gap == 0.0
        assert all(g.split is None or 1 <= g.split < cluster.vms for g in schedule.groups)


def test_milp_and_blossom_agree_on_larger_batches():
    """Past the direct limit both shrink the graph by LP reduced costs; they must still agree."""
    rng = np.random.default_rng(8)
    jobs = random_jobs(rng, 90)
    cluster = Cluster(nodes=10, disks=2)
    milp = schedule_pairs(jobs, cluster, "milp")
    blossom = schedule_pairs(jobs, cluster, "matching")
    assert milp.objective == pytest.approx(blossom.objective, rel=1e-9)
    assert milp.status is SolveStatus.OPTIMAL and milp.objective <= milp.sequential_baseline


def test_errors():
    with pytest.raises(InvalidInput, match=r"j0\.profile: VM-level planning needs a runtime profile"):
        schedule_pairs([Job("j0", 1, 0, 10.0)], SMALL)
    with pytest.raises(InvalidInput, match="at most 12 jobs"):
        schedule_pairs([job(f"j{i}", 100, 0) for i in range(13)], SMALL, "exhaustive")
    with pytest.raises(InvalidInput, match="unknown method 'greedy' for pairs"):
        schedule_pairs([job("a", 100, 0)], SMALL, "greedy")
    with pytest.raises(InvalidInput, match="need at least one job"):
        schedule_pairs([], SMALL)


# ---------------------------------------------------------------- past the direct limit (solvers/pairs/matching_lp.py)


def _brute_force(matrix: np.ndarray) -> float:
    """The cheapest perfect matching over the finite entries, by trying every one."""

    def best(free: tuple[int, ...]) -> float:
        if not free:
            return 0.0
        first, rest = free[0], free[1:]
        return min(matrix[first, other] + best(rest[:i] + rest[i + 1 :]) for i, other in enumerate(rest))

    return best(tuple(range(matrix.shape[0])))


def _matrices(count: int, seed: int, jobs: tuple[int, int] = (3, 11)) -> list[np.ndarray]:
    """The pair-cost matrices (a dummy node when the count is odd) of seeded random batches."""
    from planner.examples.workloads import crosscheck_cases
    from solvers.pairs.problem import _edge_costs, pair_costs

    return [_edge_costs(pair_costs(batch, cluster)) for batch, cluster in crosscheck_cases(count, seed, jobs=jobs)]


def test_the_assignment_start_is_the_fractional_lp_optimum():
    """The assignment relaxation's potentials y are dual feasible (every reduced cost C_ij - y_i -
    y_j >= 0) and sum(y) is the fractional matching LP's value, solved here by HiGHS over every
    edge; the assignment has no fixed point (no job paired with itself)."""
    from solvers.backends.milp import solve_arrays
    from solvers.pairs.matching_lp import assignment_start

    for matrix in _matrices(20, seed=21, jobs=(5, 40)):
        nodes = matrix.shape[0]
        y, sigma = assignment_start(matrix, 60.0)
        assert sorted(sigma.tolist()) == list(range(nodes)) and not np.any(sigma == np.arange(nodes))
        scale = float(matrix[np.isfinite(matrix)].max())
        u, v = np.triu_indices(nodes, 1)
        assert np.all(matrix[u, v] - y[u] - y[v] >= -1e-9 * scale)
        degree = np.zeros((nodes, u.size))
        degree[u, np.arange(u.size)] = degree[v, np.arange(u.size)] = 1.0
        lp = solve_arrays(
            matrix[u, v], degree, np.ones(nodes), np.ones(nodes), np.zeros(u.size), np.ones(u.size), integer=False
        )
        assert y.sum() == pytest.approx(lp.objective, rel=1e-9)


def test_the_lp_path_agrees_with_exhaustive_search(monkeypatch):
    """Small batches forced through the large-batch path (assignment start, column generation with
    cuts, fixing by reduced costs, the incumbent search): milp and blossom both reach the brute-force
    optimum, proven, on 40 seeded batches of 3-11 jobs. The cuts make every one of these LPs
    integral, so milp also runs with that shortcut off ("milp, no shortcut"): the fixing, the
    integer program on the kept edges and its certificate."""
    import solvers.pairs.matching as matching
    import solvers.pairs.matching_lp as matching_lp
    from planner.examples.workloads import crosscheck_cases

    monkeypatch.setattr(matching, "DIRECT_LIMIT", 0)
    disagreements = []
    for index, (jobs, cluster) in enumerate(crosscheck_cases(40, seed=22, jobs=(3, 11))):
        reference = schedule_pairs(jobs, cluster, "exhaustive").objective
        for name in ("milp", "matching", "milp, no shortcut"):
            with monkeypatch.context() as patch:
                if name == "milp, no shortcut":
                    patch.setattr(matching_lp.MatchingLp, "integral_pairs", lambda self: None)
                schedule = schedule_pairs(jobs, cluster, name.split(",")[0])
            if schedule.status is not SolveStatus.OPTIMAL or schedule.objective != pytest.approx(reference, rel=1e-9):
                disagreements.append((index, name, str(schedule.status), schedule.objective, reference))
    assert disagreements == []


def _matchings(nodes: int):
    """Every perfect matching of 0..nodes-1, as lists of pairs."""

    def extend(free: tuple[int, ...]):
        if not free:
            yield []
            return
        first, rest = free[0], free[1:]
        for i, other in enumerate(rest):
            for tail in extend(rest[:i] + rest[i + 1 :]):
                yield [(first, other), *tail]

    yield from extend(tuple(range(nodes)))


@pytest.mark.parametrize("incumbent", ["least reduced cost", "greedy"])
def test_fixing_by_reduced_costs_keeps_every_better_matching(monkeypatch, incumbent):
    """Every perfect matching cheaper than `shrink`'s incumbent uses only edges it keeps (all
    matchings listed), so an optimal one is among them; its incumbent is a perfect matching. With
    the greedy matching as incumbent (the search on least reduced costs off) far more must be kept."""
    import solvers.pairs.matching as matching
    from solvers.pairs.matching import _matching_cost, is_perfect, shrink
    from solvers.pairs.matching_lp import matching_lp

    if incumbent == "greedy":
        monkeypatch.setattr(matching, "_least_reduced_matching", lambda *args: None)
    for matrix in _matrices(30, seed=23):
        relaxation = matching_lp(matrix)
        u, v, found = shrink(matrix, relaxation, 30.0, 0)
        kept = set(zip(u.tolist(), v.tolist(), strict=True))
        upper = _matching_cost(matrix, found)
        assert is_perfect(found, matrix.shape[0])
        better = [m for m in _matchings(matrix.shape[0]) if _matching_cost(matrix, m) < upper * (1 - 1e-12)]
        assert all((min(a, b), max(a, b)) in kept for m in better for a, b in m)
        optimum = _brute_force(matrix)
        assert relaxation.lower <= optimum * (1 + 1e-9) and upper >= optimum * (1 - 1e-12)


def test_the_incumbent_search_widens_past_tight_edges_with_no_perfect_matching():
    """Tight edges forming two triangles hold no perfect matching of 6 nodes: the search takes the
    cheapest edges beyond them and still returns one."""
    from solvers.pairs.matching import _least_reduced_matching, is_perfect

    matrix = np.full((6, 6), 10.0)
    np.fill_diagonal(matrix, np.inf)
    reduced = np.full((6, 6), 5.0)
    for a, b in ((0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)):
        reduced[a, b] = reduced[b, a] = 0.0
    reduced = np.where(np.triu(np.ones((6, 6), dtype=bool), 1), reduced, np.inf)
    found = _least_reduced_matching(matrix, reduced, 10.0, 10.0, 0)
    assert found is not None and is_perfect(found, 6)


def test_the_assignment_start_leaves_little_to_price():
    """On 401 random jobs the LP ends with about 7 edges per node from the assignment start, where
    each node's cheapest edges by cost left about 70 to price in (measured): at most 12 here."""
    from planner.examples.workloads import paper_cluster, random_batch
    from solvers.pairs.matching_lp import matching_lp
    from solvers.pairs.problem import _edge_costs, pair_costs

    matrix = _edge_costs(pair_costs(random_batch(401, 3), paper_cluster(10)))
    relaxation = matching_lp(matrix)
    assert relaxation.u.size <= 12 * matrix.shape[0]


def test_blossom_returns_the_incumbent_when_its_edges_would_not_fit_in_the_time_left(monkeypatch):
    """networkx cannot be stopped: past the direct limit, with more kept edges than it goes through
    in the time left (none at all here), the incumbent comes back with status time_limit and a
    bound below the optimum, which milp proves."""
    import solvers.pairs.matching as matching
    from planner.examples.workloads import paper_cluster, random_batch

    jobs, cluster = random_batch(150, 6), paper_cluster(10)
    optimum = schedule_pairs(jobs, cluster, "milp")
    monkeypatch.setattr(matching, "BLOSSOM_EDGES_PER_SECOND", 0)
    rushed = schedule_pairs(jobs, cluster, "matching")
    assert optimum.status is SolveStatus.OPTIMAL and rushed.status is SolveStatus.TIME_LIMIT
    assert rushed.bound <= optimum.objective * (1 + 1e-12) <= rushed.objective * (1 + 1e-12)
    assert sorted(i for g in rushed.groups for i in g.jobs) == list(range(150))
