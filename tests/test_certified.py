"""Certified answers: no exact method says optimal on a solver's word (solvers/certify.py).

Three kinds of test:

1. `check_claim` and `certified` on claims worked out by hand;
2. each exact method handed a lying solver (the HiGHS 1.16.0 failure: status Optimal, objective 0,
   bound 0, the start's values; or a bound above a known solution) never reports optimal, and the
   packing "milp" recovers by retrying without its MIP start;
3. the randomized cross-check: every exact method against exhaustive search on at least 200 small
   seeded instances (`planner.examples.workloads.crosscheck_cases`: r = 1 and 2, tight and loose clusters),
   with zero disagreements, under whatever highspy is installed.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import solvers.ordering.two_stage as ordering
import solvers.packing.exact as packing_exact
import solvers.packing.methods as packing_methods
import solvers.pairs.matching as matching
from models import InvalidInput
from planner.examples.workloads import crosscheck_cases, packing_workload, paper_cluster, random_batch
from solvers import (
    MAX_TIME_LIMIT,
    SolveStatus,
    UncertifiedResult,
    evaluate_phases,
    order_two_stage,
    pack_phases,
    schedule_pairs,
)
from solvers.backends.milp import ArrayOutcome, MilpOutcome
from solvers.certify import Claim, certified, check_claim, trusted_bound
from solvers.packing.problem import packing_instance, simple_bound

CASES = 200
REL = 1e-6

# ---------------------------------------------------------------- 1. the certificate by hand


def test_check_claim_by_hand():
    """A solution costing 100 (we recompute it) with the solver's bound 99.99995:

    - reported 100, bound 99.99995, gap asked 1e-6: gap 5e-7 passes;
    - reported 0 (HiGHS 1.16.0's answer): the objective does not match: fails;
    - bound 101 > 100: a bound above the solution fails; bound 95 with a known bound 98: below what
      we know, fails; bound 99.9995 (gap 5e-6 > 1e-6): fails on the gap;
    - a known solution of 99.9 and bound 99.99995: the bound is above a schedule we hold: fails.
    """
    good = Claim(SolveStatus.OPTIMAL, 100.0, 99.99995)
    assert check_claim(good, 100.0, gap=1e-6) is None
    assert "reported objective 0" in check_claim(Claim(SolveStatus.OPTIMAL, 0.0, 0.0), 100.0)
    assert "above the solution" in check_claim(Claim(SolveStatus.OPTIMAL, 100.0, 101.0), 100.0)
    assert "below a bound already proven" in check_claim(Claim(SolveStatus.OPTIMAL, 100.0, 95.0), 100.0, lower=98.0,
                                                         gap=0.1)
    assert check_claim(Claim(SolveStatus.OPTIMAL, 100.0, 99.9995), 100.0, gap=1e-6).startswith("gap")
    assert "known solution" in check_claim(good, 100.0, upper=99.9, gap=1e-6)
    assert "breaks a rule" in check_claim(good, 100.0, feasible=False)
    assert "no finite bound" in check_claim(Claim(SolveStatus.OPTIMAL, 100.0, None), 100.0)


def test_certified_downgrades_and_keeps_the_best_trusted_bound():
    """A failed optimal claim becomes feasible with the bound we hold (98), never the solver's;
    a passing one is optimal with bound = the recomputed objective; a time-limited claim keeps its
    status and its bound when consistent (97 < 98 known: 98 is kept), and drops a bound above a
    known solution (150 > 120)."""
    with pytest.warns(UncertifiedResult, match="reported objective 0"):
        assert certified(Claim(SolveStatus.OPTIMAL, 0.0, 0.0), 100.0, lower=98.0) == (SolveStatus.FEASIBLE, 98.0)
    assert certified(Claim(SolveStatus.OPTIMAL, 100.0, 100.0), 100.0, lower=98.0) == (SolveStatus.OPTIMAL, 100.0)
    assert certified(Claim(SolveStatus.TIME_LIMIT, 130.0, 97.0), 130.0, lower=98.0) == (SolveStatus.TIME_LIMIT, 98.0)
    assert certified(Claim(SolveStatus.TIME_LIMIT, 130.0, 99.0), 130.0, lower=98.0) == (SolveStatus.TIME_LIMIT, 99.0)
    assert trusted_bound(Claim(SolveStatus.TIME_LIMIT, 130.0, 150.0), 130.0, upper=120.0) is None
    assert trusted_bound(Claim(SolveStatus.TIME_LIMIT, 130.0, math.nan), 130.0, lower=5.0) == 5.0


def test_simple_bound_by_hand():
    """One io job, F(n) = 120 / n on N = 4 VMs (2 nodes x 2 disks), alpha 1.5, r = 2: its fastest run
    is 30 s (4 primaries; hosting costs 1.5x), and its least VM-seconds is 120 on any count, 120 / 4
    = 30 s of the whole cluster. With a second, cpu job 60 / n: fastest 15 s; as a primary 60
    VM-s = 15 s of cluster, as an extra r * 1.5 * 60 / 4 = 45 s; the io job as an extra 2 * 1.5 *
    120 / 4 = 90 s. Both on primary room take 45 s of the cluster; moving a share x of the cpu job to
    the extras (both jobs save 3 s of extras per second of primaries, the tie goes to the first,
    io, which takes primary room first): 30 + 15 x = 45 (1 - x), x = 1/4, 33.75 s. The fastest
    run is 30 s, so the bound is 33.75 s (the optimum is 45 s: sequential, or io hosting cpu)."""
    from models import Cluster
    from tests.support.packing import job as power_job

    cluster = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.5)
    assert simple_bound(packing_instance([power_job("io", 120, -1, "io")], cluster)) == pytest.approx(30.0)
    two = packing_instance([power_job("io", 120, -1, "io"), power_job("cpu", 60, -1, "cpu")], cluster)
    assert simple_bound(two) == pytest.approx(33.75)


def test_split_area_bound_by_hand():
    """Loads (first, second): (30, 90) and (15, 45) meet at 33.75 (above); a job that cannot take the
    second (inf) stays on the first: (10, inf) and (6, 3): 10 + 6 x = 3 (1 - x), but 10 > 3
    already, so 10; (2, inf) and (6, 12): 2 + 6 x = 12 (1 - x), x = 10 / 18, 2 + 60 / 18 = 5.333;
    no job: 0."""
    from solvers.packing.problem import split_area_bound

    assert split_area_bound(np.array([30.0, 15.0]), np.array([90.0, 45.0])) == pytest.approx(33.75)
    assert split_area_bound(np.array([10.0, 6.0]), np.array([np.inf, 3.0])) == pytest.approx(10.0)
    assert split_area_bound(np.array([2.0, 6.0]), np.array([np.inf, 12.0])) == pytest.approx(2 + 60 / 18)
    assert split_area_bound(np.zeros(0), np.zeros(0)) == 0.0


# ---------------------------------------------------------------- 2. lying solvers


def _liar(real, lie):
    """A solve_arrays/solve_milp stand-in: calls the real one, then lets ``lie`` rewrite the outcome."""
    calls = []

    def solve(*args, **kwargs):
        outcome = real(*args, **kwargs)
        calls.append(kwargs.get("start"))
        return lie(outcome, kwargs, len(calls))

    return solve, calls


def _highs_1_16(outcome, kwargs, _):
    """What HiGHS 1.16.0 did when presolve dropped a column the MIP start used."""
    start = kwargs.get("start")
    if kwargs.get("integer") and start is not None:
        return ArrayOutcome(SolveStatus.OPTIMAL, 0.0, 0.0, 0.0, outcome.seconds, "Optimal", start, None)
    return outcome


def test_packing_milp_recovers_from_a_lying_start(monkeypatch):
    """The W1 workload on P = 10 (Table 1's mix, calibrated profiles): greedy's start is 1,070.8 s
    against the true 1,025.8 s (HiGHS 1.16.0 once called such a start optimal). With that lie injected into every solve that has a start, "milp" sees the
    objective does not match, retries without the start, and proves the true optimum."""
    solve, calls = _liar(packing_exact.solve_arrays, _highs_1_16)
    monkeypatch.setattr(packing_exact, "solve_arrays", solve)
    jobs, cluster = packing_workload("W1"), paper_cluster(10)
    schedule = pack_phases(jobs, cluster, method="milp", time_limit=60)
    assert schedule.status is SolveStatus.OPTIMAL
    assert schedule.objective == pytest.approx(1025.838, abs=1e-3)
    assert any(start is None for start in calls) and any(start is not None for start in calls)


def test_packing_milp_never_claims_what_it_cannot_certify(monkeypatch):
    """Every integer program lies (objective 0, bound 0, even without a start), and the root is not
    allowed to close the gap: the answer is valid, its bound is ours (>= the combinatorial bound,
    <= the objective), and the status is time_limit, never optimal."""
    def always(outcome, kwargs, _):
        if kwargs.get("integer"):
            values = kwargs.get("start")
            return ArrayOutcome(SolveStatus.OPTIMAL, 0.0, 0.0, 0.0, outcome.seconds, "Optimal", values, None)
        return outcome

    solve, _ = _liar(packing_exact.solve_arrays, always)
    monkeypatch.setattr(packing_exact, "solve_arrays", solve)
    jobs, cluster = packing_workload("W4"), paper_cluster(10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UncertifiedResult)
        schedule = pack_phases(jobs, cluster, method="milp", time_limit=20)
    assert evaluate_phases(schedule, jobs, cluster) == pytest.approx(schedule.objective)
    if schedule.status is SolveStatus.OPTIMAL:  # only when our own LP bound meets the incumbent
        assert schedule.objective == pytest.approx(pack_phases(jobs, cluster, method="milp").objective, rel=REL)
    else:
        assert schedule.status is SolveStatus.TIME_LIMIT
        assert simple_bound(packing_instance(jobs, cluster)) - 1e-9 <= schedule.bound <= schedule.objective


def test_compact_milp_never_takes_a_wrong_objective(monkeypatch):
    """solve_milp claims optimal with an objective 10 s below the solution it loads: not certified,
    solved once more, and not certified again: status feasible, with a warning."""
    real = packing_methods.solve_milp

    def lying(model, **kwargs):
        outcome = real(model, **kwargs)
        if outcome.objective is None:
            return outcome
        return MilpOutcome(SolveStatus.OPTIMAL, outcome.objective - 10.0, outcome.objective - 10.0, 0.0,
                           outcome.seconds, "convergenceCriteriaSatisfied")

    monkeypatch.setattr(packing_methods, "solve_milp", lying)
    jobs, cluster = crosscheck_cases(1, seed=3, jobs=(3, 3))[0]
    with pytest.warns(UncertifiedResult, match="milp-compact"):
        schedule = pack_phases(jobs, cluster, method="milp-compact", time_limit=30)
    assert schedule.status is SolveStatus.FEASIBLE
    assert schedule.bound is None or schedule.bound <= schedule.objective


def test_pair_milp_never_takes_a_wrong_bound(monkeypatch):
    """The matching MILP says optimal with a bound 5% above the greedy matching we hold: refused."""
    real = matching._solve_on

    def lying(matrix, u, v, **kwargs):
        outcome = real(matrix, u, v, **kwargs)
        if not kwargs.get("integer"):
            return outcome
        high = outcome.objective * 1.05
        return ArrayOutcome(SolveStatus.OPTIMAL, high, high, 0.0, outcome.seconds, "Optimal", outcome.values, None)

    monkeypatch.setattr(matching, "_solve_on", lying)
    with pytest.warns(UncertifiedResult, match="pairs milp"):
        schedule = schedule_pairs(random_batch(12, 4), paper_cluster(10), method="milp")
    assert schedule.status is not SolveStatus.OPTIMAL
    assert schedule.bound is None or schedule.bound <= schedule.objective + 1e-9


def test_two_stage_milp_never_claims_beyond_johnson(monkeypatch):
    """HiGHS reports optimal with a bound above Johnson's makespan (no order can beat it, so no bound
    may exceed it): refused, reported feasible. Here Johnson's makespan, 31, is above our own bound
    max(25 + 2, 1 + 24) = 27, so nothing else proves it."""
    real = ordering.solve_milp

    def lying(model, **kwargs):
        outcome = real(model, **kwargs)
        return MilpOutcome(SolveStatus.OPTIMAL, outcome.objective, outcome.objective + 50.0, 0.0, outcome.seconds,
                           "convergenceCriteriaSatisfied")

    monkeypatch.setattr(ordering, "solve_milp", lying)
    a, b = np.array([1.0, 7.0, 3.0, 5.0, 9.0]), np.array([3.0, 7.0, 2.0, 3.0, 9.0])
    with pytest.warns(UncertifiedResult, match="two-stage"):
        solution = order_two_stage(a, b, method="milp")
    assert solution.status is SolveStatus.FEASIBLE and solution.objective == 31.0
    assert 27.0 <= solution.bound <= solution.objective


def test_our_own_bound_proves_what_the_solver_could_not():
    """The 120-job batch of the certify benchmark: HiGHS runs out of 0.5 s, but Johnson's makespan
    equals max(sum a + min b, min a + sum b): optimal by our bound alone."""
    rng = np.random.default_rng(0)
    a, b = rng.uniform(1, 100, 120), rng.uniform(1, 100, 120)
    solution = order_two_stage(a, b, method="milp", time_limit=0.5)
    assert solution.objective == pytest.approx(ordering.lower_bound(a, b))
    assert solution.status is SolveStatus.OPTIMAL and solution.gap == 0.0


def test_a_gap_allowed_is_a_gap_reported():
    """With mip_gap 0.2 "milp" may stop within 20% of its bound: the schedule (106.02 s) is then
    "optimal" within that gap, and its bound must be the proven one, below the true optimum
    (100.22 s by exhaustive search), not the objective."""
    jobs, cluster = crosscheck_cases(100, seed=3, jobs=(4, 6))[6]
    optimum = pack_phases(jobs, cluster, method="exhaustive").objective
    schedule = pack_phases(jobs, cluster, method="milp", time_limit=30, mip_gap=0.2)
    assert schedule.bound <= optimum + 1e-9
    assert schedule.status is not SolveStatus.OPTIMAL or schedule.objective <= optimum / (1 - 0.2)


def test_milliseconds_are_not_rounded_away():
    """Two jobs of F(n) = 0.001 n^-10 s (io and cpu) on 16 VMs, r = 1, alpha 1: hosting the cpu job
    beside the io job (9.09e-16 s) beats running them apart (1.82e-15 s). HiGHS's absolute
    tolerances and our old absolute epsilons called "apart" optimal; relative ones do not."""
    from models import Cluster, Job, PowerLawProfile

    jobs = [Job("io", intensity="io", profile=PowerLawProfile.from_coefficients(0.001, -10)),
            Job("cpu", intensity="cpu", profile=PowerLawProfile.from_coefficients(0.001, -10))]
    cluster = Cluster(nodes=16, disks=1, primaries_per_extra=1, overcommit_penalty=1.0)
    optimum = pack_phases(jobs, cluster, method="exhaustive").objective
    for method in ("milp", "milp-compact"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UncertifiedResult)
            schedule = pack_phases(jobs, cluster, method=method)
        assert schedule.status is not SolveStatus.OPTIMAL or schedule.objective == pytest.approx(optimum, rel=1e-9)
    assert pack_phases(jobs, cluster, method="milp").objective == pytest.approx(optimum, rel=1e-9)


def test_two_stage_milp_never_returns_worse_than_johnson():
    """Ten jobs where HiGHS's order (6,227.553) is within its 1e-4 gap of Johnson's (6,227.219):
    the method holds Johnson's order and returns the better one."""
    a = [638.4904766093648, 710.2825689474117, 801.2197686160205, 561.5121993070885, 661.2585937233814,
         196.1024164771837, 162.4159173594574, 809.950822055886, 224.40264820675193, 437.5295883671977]
    b = [885.044473738974, 147.58318347119783, 679.0295463696293, 249.2107973723085, 626.3265324501161,
         816.7142368011033, 820.6279016525052, 777.8341746253208, 518.3831535102613, 544.0491455090223]
    assert order_two_stage(a, b, method="milp").objective <= order_two_stage(a, b).objective
    rng = np.random.default_rng(0)
    for _ in range(10):  # and at a scale of tenths of a microsecond
        a, b = rng.uniform(1, 100, 8) * 1e-7, rng.uniform(1, 100, 8) * 1e-7
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UncertifiedResult)
            assert order_two_stage(a, b, method="milp").objective <= order_two_stage(a, b).objective


def test_empty_batches_order_trivially():
    for method in ("johnson", "exhaustive", "milp", "pso"):
        assert order_two_stage([], [], method=method).objective == 0.0


# ---------------------------------------------------------------- 3. randomized cross-check


def _pair_brute_force(matrix: np.ndarray) -> float:
    """The cheapest perfect matching by trying every one (independent of solvers)."""
    def best(free: tuple[int, ...]) -> float:
        if not free:
            return 0.0
        first, rest = free[0], free[1:]
        return min(matrix[first, other] + best(rest[:i] + rest[i + 1:]) for i, other in enumerate(rest))

    return best(tuple(range(matrix.shape[0])))


@pytest.mark.parametrize("method", ["milp", "milp-compact"])
def test_packing_methods_agree_with_exhaustive_search(method):
    """Zero disagreements on 200 instances (2-4 jobs, r = 1 and 2, N = 1-8): same optimum, status
    optimal, a valid schedule."""
    disagreements = []
    for index, (jobs, cluster) in enumerate(crosscheck_cases(CASES, seed=14)):
        reference = pack_phases(jobs, cluster, method="exhaustive").objective
        schedule = pack_phases(jobs, cluster, method=method, time_limit=30)
        assert evaluate_phases(schedule, jobs, cluster) == pytest.approx(schedule.objective, rel=1e-12)
        if schedule.status is not SolveStatus.OPTIMAL or abs(schedule.objective - reference) > REL * reference:
            disagreements.append((index, str(schedule.status), schedule.objective, reference))
    assert disagreements == []


def test_exhaustive_packing_matches_an_independent_brute_force():
    """The reference itself, against the tests' own brute force (every set partition, role and VM
    count through evaluate_phases) on 40 of the instances with at most 3 jobs."""
    from tests.support.packing import brute_force

    small = [case for case in crosscheck_cases(120, seed=15, jobs=(2, 3))][:40]
    for jobs, cluster in small:
        assert pack_phases(jobs, cluster, method="exhaustive").objective == pytest.approx(
            brute_force(jobs, cluster), rel=1e-12)


@pytest.mark.parametrize("method", ["milp", "matching"])
def test_pair_methods_agree_with_brute_force(method):
    """Zero disagreements on 200 instances of 2-7 jobs (an odd one runs alone)."""
    from solvers.pairs.problem import _edge_costs, pair_costs

    disagreements = []
    for index, (jobs, cluster) in enumerate(crosscheck_cases(CASES, seed=16, jobs=(2, 7))):
        reference = _pair_brute_force(_edge_costs(pair_costs(jobs, cluster)))
        schedule = schedule_pairs(jobs, cluster, method=method)
        if schedule.status is not SolveStatus.OPTIMAL or abs(schedule.objective - reference) > REL * reference:
            disagreements.append((index, str(schedule.status), schedule.objective, reference))
    assert disagreements == []


def test_two_stage_milp_agrees_with_every_order():
    """Zero disagreements on 200 seeded batches of 2-6 jobs against all n! orders."""
    import itertools

    disagreements = []
    for index in range(CASES):
        rng = np.random.default_rng(np.random.SeedSequence([17, index]))
        n = int(rng.integers(2, 7))
        a, b = rng.uniform(1, 100, n).round(1), rng.uniform(1, 100, n).round(1)
        reference = min(ordering.two_stage_makespan(a, b, order) for order in itertools.permutations(range(n)))
        solution = order_two_stage(a, b, method="milp")
        if solution.status is not SolveStatus.OPTIMAL or solution.objective > reference * (1 + 1e-4) + 1e-9:
            disagreements.append((index, str(solution.status), solution.objective, reference))
    assert disagreements == []


# ---------------------------------------------------------------- 4. limits and honest stops


@pytest.mark.parametrize("value", [math.inf, math.nan, 0, -1.0, MAX_TIME_LIMIT * 2, "5"])
def test_time_limit_must_be_finite_and_positive(value):
    jobs = random_batch(4)
    for call in (lambda: pack_phases(jobs, paper_cluster(2), method="greedy", time_limit=value),
                 lambda: schedule_pairs(jobs, paper_cluster(2), time_limit=value),
                 lambda: order_two_stage([1.0, 2.0], [2.0, 1.0], time_limit=value)):
        with pytest.raises(InvalidInput, match="time_limit"):
            call()


def test_method_and_method_name_are_one_choice():
    """``method=`` is the documented keyword; ``method_name`` (and the positional form) still work;
    the two naming different methods is an error."""
    jobs, cluster = random_batch(4), paper_cluster(2)
    assert schedule_pairs(jobs, cluster, "matching").solver == schedule_pairs(jobs, cluster,
                                                                             method="matching").solver
    assert schedule_pairs(jobs, cluster, method_name="matching").solver == "blossom-networkx"
    assert pack_phases(jobs, cluster, method_name="greedy").solver == "greedy"
    with pytest.raises(InvalidInput, match="given twice"):
        schedule_pairs(jobs, cluster, method_name="milp", method="matching")


def test_two_stage_milp_out_of_time_returns_johnson():
    """60 jobs with 1 ms: no exception; Johnson's order comes back (time_limit unless HiGHS proved it)."""
    rng = np.random.default_rng(0)
    a, b = rng.uniform(1, 100, 60), rng.uniform(1, 100, 60)
    solution = order_two_stage(a, b, method="milp", time_limit=1e-3)
    johnson = order_two_stage(a, b, method="johnson")
    assert solution.objective <= johnson.objective + 1e-9
    assert solution.status in (SolveStatus.TIME_LIMIT, SolveStatus.OPTIMAL)
    assert solution.bound is not None and solution.bound <= solution.objective + 1e-9


@pytest.mark.parametrize("method", ["milp", "matching"])
def test_pairs_out_of_time_return_a_matching_and_a_true_bound(method):
    """300 jobs (past the direct limit) with 1 ms: the greedy matching, status time_limit, and the
    half-sum-of-cheapest-edges bound, which is below the optimum (computed with a real limit)."""
    jobs, cluster = random_batch(300, 5), paper_cluster(10)
    rushed = schedule_pairs(jobs, cluster, method=method, time_limit=1e-3)
    assert rushed.status is SolveStatus.TIME_LIMIT
    optimum = schedule_pairs(jobs, cluster, method=method)
    assert optimum.status is SolveStatus.OPTIMAL
    assert 0 < rushed.bound <= optimum.objective + 1e-9 <= rushed.objective + 2e-9


def test_packing_milp_bound_under_a_time_limit_is_not_zero():
    """W6 on P = 20 with 0.2 s: no proof in time, yet the bound is at least the combinatorial one."""
    jobs, cluster = packing_workload("W6"), paper_cluster(20)
    schedule = pack_phases(jobs, cluster, method="milp", time_limit=0.2)
    floor = simple_bound(packing_instance(jobs, cluster))
    assert floor > 0
    assert floor - 1e-9 <= schedule.bound <= schedule.objective + 1e-9


def test_nothing_from_highs_reaches_stdout():
    """highspy 1.16.0 prints a banner on descriptor 1 when the first solver is made; a fresh process
    that solves by both paths (pyomo and arrays) prints only its own line."""
    code = ("from planner.examples.workloads import random_batch, paper_cluster\n"
            "from solvers import pack_phases, order_two_stage\n"
            "pack_phases(random_batch(3), paper_cluster(2), method='milp')\n"
            "order_two_stage([1.0, 2.0], [2.0, 1.0], method='milp')\n"
            "print('only this')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout == "only this\n"
