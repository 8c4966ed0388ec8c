"""Ordering with precedence and release dates ("two_stage_precedence"): the evaluator worked by hand, every exact
method against an independent brute force on random workflows, the bound against every order, certificates, the
heuristic, time limits, latest finishes, bad inputs, the older orders that honour dependencies, and plans."""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from typer.testing import CliRunner

import solvers.ordering.precedence_methods as methods_module
from benchmarks.bench_precedence import random_workflow
from models import Cluster, InvalidInput, Job, Workload
from models.dag import Dependency
from planner import make_plan
from planner.cli.main import app
from solvers import SolveStatus, UncertifiedResult, methods, order_jobs, order_with_releases
from solvers.bounds import critical_path_bound, earliest_finishes, lateness_bound
from solvers.ordering.admission_orders import johnson_admission, submission_order
from solvers.ordering.precedence import (
    PrecedenceOrderSolution,
    order_with_dependencies,
    order_with_precedence,
    precedence_instance,
    precedence_lower_bound,
    precedence_schedule,
    simple_bounds,
)

OBJECTIVES = ("makespan", "max_lateness", "late_jobs")

# Three jobs worked by hand (test_the_evaluator_by_hand).
A, B, R = [3.0, 2.0, 4.0], [2.0, 4.0, 1.0], [0.0, 1.0, 0.0]
AFTER = [[], [(0, 1.0)], []]


def test_the_evaluator_by_hand():
    """Jobs (a, b, r): 0 (3, 2, 0); 1 (2, 4, 1), waiting for 0 with a delay of 1; 2 (4, 1, 0).

    Order 0, 2, 1: job 0 maps 0-3, reduces 3-5. Job 2 maps 3-7, reduces 7-8. Job 1 may start at max(7, its
    release 1, 0's end 5 + 1 = 6) = 7: maps 7-9, reduces 9-13. Makespan 13.
    Order 0, 1, 2: job 0 as before (C2 = 5); job 1 starts at max(3, 1, 6) = 6: maps 6-8, reduces 8-12; job 2
    maps 8-12, reduces 12-13. Makespan 13.
    Order 2, 0, 1: job 2 maps 0-4, reduces 4-5; job 0 maps 4-7, reduces 7-9; job 1 starts at max(7, 1, 10) = 10:
    maps 10-12, reduces 12-16. Makespan 16.
    Order 1, 0, 2 puts job 1 before the job it waits for: refused."""
    assert precedence_schedule(A, B, [0, 2, 1], after=AFTER, releases=R).completions.tolist() == [5.0, 13.0, 8.0]
    assert precedence_schedule(A, B, [0, 1, 2], after=AFTER, releases=R).completions.tolist() == [5.0, 12.0, 13.0]
    assert precedence_schedule(A, B, [2, 0, 1], after=AFTER, releases=R).makespan == 16.0
    with pytest.raises(InvalidInput, match="job 1 comes before job 0"):
        precedence_schedule(A, B, [1, 0, 2], after=AFTER, releases=R)
    best = order_with_precedence(A, B, AFTER, R)
    assert (best.status, best.objective, best.bound) == (SolveStatus.OPTIMAL, 13.0, 13.0)


def test_the_bound_by_hand():
    """Heads h = (0, max(1, 0 + 3 + 2 + 1) = 6, 0). Tails q (from the end of the map stage): q_1 = 4 (its
    reduce), q_0 = 2 + 1 + 2 + 4 = 9, q_2 = 1. Critical path max h + a + q = max(12, 12, 5) = 12; work
    max(min h + sum a + min q, min (h + a) + sum b) = max(0 + 9 + 1, 3 + 7) = 10. The bound is at least 12
    and at most the optimum, 13."""
    inst = precedence_instance(A, B, AFTER, R)
    assert inst.heads.tolist() == [0.0, 6.0, 0.0]
    assert inst.tails.tolist() == [9.0, 4.0, 1.0]
    assert simple_bounds(inst) == (12.0, 10.0)
    assert 12.0 <= precedence_lower_bound(A, B, AFTER, R) <= 13.0


def test_deadlines_propagate_backwards_by_hand():
    """Job 1 due at 15: job 0 must finish by 15 - (2 + 4) - 1 = 8; job 2 has none (inf). Order 0, 2, 1: job 0
    ends at 5 (3 early), job 1 at 13 (2 early): L_max -2, no late job. Due at 12 instead: job 0 by 5 (on
    time), job 1 ends at 13, 1 late: L_max 1, one late job."""
    solved = order_with_precedence(A, B, AFTER, R, [None, 15.0, None], objective="max_lateness")
    assert solved.latest_finishes.tolist() == [8.0, 15.0, math.inf]
    schedule = precedence_schedule(A, B, [0, 2, 1], after=AFTER, releases=R, due=[None, 12.0, None])
    assert (schedule.max_lateness, schedule.late_jobs) == (1.0, 1)
    assert precedence_schedule(A, B, [0, 2, 1], after=AFTER, releases=R, due=[None, 15.0, None]).max_lateness == -2.0


@pytest.mark.parametrize("seed", range(6))
def test_max_lateness_is_the_same_against_latest_finishes(seed):
    """Along the edge that set d'_i, C_i - d'_i <= C_k - d'_k, so the largest lateness is one against a job's own
    due date: the value of L_max does not change, every order alike."""
    a, b, after, r, due = small_case(seed)
    own = np.array([math.inf if d is None else d for d in due])
    dated = np.isfinite(own)
    for order in methods_module.topological_orders(precedence_instance(a, b, after, r, due)):
        schedule = precedence_schedule(a, b, order, after=after, releases=r, due=due)
        assert schedule.max_lateness == pytest.approx(float((schedule.completions[dated] - own[dated]).max()))


def brute_force(a, b, after, r, due, objective: str) -> float:
    """The best objective over every permutation that lists predecessors first, by the plain recurrence and
    the latest finishes computed here (independent of the solvers)."""
    n = len(a)
    latest = [math.inf if d is None else d for d in due]
    for _ in range(n):  # relax until stable: d'_i <= d'_k - a_k - b_k - delay for each k after i
        for k in range(n):
            for i, delay in after[k]:
                latest[i] = min(latest[i], latest[k] - a[k] - b[k] - delay)
    best = math.inf
    for order in itertools.permutations(range(n)):
        place = {j: p for p, j in enumerate(order)}
        if any(place[i] > place[j] for j in range(n) for i, _ in after[j]):
            continue
        first = second = 0.0
        done: dict[int, float] = {}
        for j in order:
            first = max([first, r[j]] + [done[i] + delay for i, delay in after[j]]) + a[j]
            second = max(second, first) + b[j]
            done[j] = second
        dated = [j for j in range(n) if math.isfinite(latest[j])]
        value = {"makespan": second, "max_lateness": max(done[j] - latest[j] for j in dated) if dated else 0.0,
                 "late_jobs": sum(done[j] > latest[j] for j in dated)}[objective]
        best = min(best, value)
    return best


def small_case(seed: int):
    """2-7 jobs of `random_workflow` with times rounded to whole numbers (ties and equal paths happen), one due
    date in three left out."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    a, b, after, r, due = random_workflow(n, seed + 1000)
    after = [[(i, float(round(delay))) for i, delay in before] for before in after]
    due = [None if rng.random() < 1 / 3 else float(round(d)) + 1 for d in due]
    if all(d is None for d in due):
        due[0] = float(round(r[0] + a[0] + b[0])) + 1
    return a.round(), b.round(), after, r.round(), due


@pytest.mark.parametrize("seed", range(30))
def test_exact_methods_equal_brute_force(seed):
    a, b, after, r, due = small_case(seed)
    for objective in OBJECTIVES:
        best = brute_force(a, b, after, r, due, objective)
        for method in ("branch_and_bound", "exhaustive"):
            found = order_with_precedence(a, b, after, r, due, objective=objective, method=method, time_limit=20)
            assert found.status is SolveStatus.OPTIMAL, (method, objective)
            assert found.objective == pytest.approx(best, abs=1e-9), (method, objective)
            assert found.bound == pytest.approx(best, abs=1e-9)
        assert precedence_lower_bound(a, b, after, r, due, objective=objective) <= best + 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_the_bound_is_below_every_order(seed):
    """Every topological order of a small workflow, and 50 random ones of a 30-job workflow."""
    a, b, after, r, due = small_case(seed)
    inst = precedence_instance(a, b, after, r, due)
    for objective in OBJECTIVES:
        bound = precedence_lower_bound(a, b, after, r, due, objective=objective)
        for order in methods_module.topological_orders(precedence_instance(a, b, after, r, due, objective)):
            schedule = precedence_schedule(a, b, order, after=after, releases=r, due=due)
            value = {"makespan": schedule.makespan, "max_lateness": schedule.max_lateness,
                     "late_jobs": schedule.late_jobs}[objective]
            assert bound <= value + 1e-9
    a, b, after, r, due = random_workflow(30, seed)
    inst = precedence_instance(a, b, after, r, due)
    bound = precedence_lower_bound(a, b, after, r)
    rng = np.random.default_rng(seed)
    for _ in range(50):
        order = inst.graph.respecting(rng.permutation(30).tolist())
        assert bound <= precedence_schedule(a, b, order, after=after, releases=r).makespan + 1e-9


def test_without_dependencies_it_is_the_release_problem():
    for seed in range(4):
        a, b, _, r, due = random_workflow(9, seed)
        for objective in ("makespan", "max_lateness"):
            ours = order_with_precedence(a, b, None, r, due, objective=objective)
            theirs = order_with_releases(a, b, r, due, objective=objective)
            assert ours.objective == pytest.approx(theirs.objective, rel=1e-9)


def _respects(after, order) -> bool:
    place = {int(j): p for p, j in enumerate(order)}
    return all(place[i] < place[j] for j, before in enumerate(after) for i, _ in before)


def test_the_heuristic_respects_precedence_and_reports_its_bound():
    a, b, after, r, _ = random_workflow(250, 5)
    found = order_with_precedence(a, b, after, r, method="critical_path", time_limit=0.5)
    assert isinstance(found, PrecedenceOrderSolution)
    assert _respects(after, found.order)
    assert found.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL)
    assert found.bound == pytest.approx(precedence_lower_bound(a, b, after, r))
    assert found.bound <= found.objective
    assert found.critical_path <= found.bound and found.work <= found.bound
    assert found.objective == precedence_schedule(a, b, found.order, after=after, releases=r).makespan
    # "auto" runs it past EXACT_JOBS, the branch and bound below
    assert order_with_precedence(a, b, after, r, time_limit=0.5).solver == "critical-path-list"
    small = random_workflow(12, 5)
    assert order_with_precedence(*small[:4], time_limit=5).solver == "branch-and-bound"


def test_a_time_limit_returns_the_incumbent_with_an_honest_status():
    """Seed 0's 50-job workflow: its heuristic order is 2% above the root bound, so a search stopped at once
    cannot prove it."""
    a, b, after, r, _ = random_workflow(50, 0)
    found = order_with_precedence(a, b, after, r, time_limit=0.01)
    assert found.status is SolveStatus.TIME_LIMIT
    assert _respects(after, found.order)
    assert precedence_lower_bound(a, b, after, r) <= found.bound < found.objective
    assert found.gap == pytest.approx((found.objective - found.bound) / found.objective)


def test_the_certificate_refuses_a_wrong_bound(monkeypatch):
    """Seed 0's 7-job workflow: its root bound (555.4) is below the optimum (578.8), so only the search can
    prove it, and a search that lies is caught."""
    a, b, after, r, _ = random_workflow(7, 0)
    assert precedence_lower_bound(a, b, after, r) < order_with_precedence(a, b, after, r).objective - 1
    honest = order_with_precedence(a, b, after, r)
    real = methods_module.branch_and_bound

    def too_high(*args, **kwargs):
        order, value, _, expanded = real(*args, **kwargs)
        return order, value, value + 50.0, expanded  # a bound above its own order: no bound

    monkeypatch.setattr(methods_module, "branch_and_bound", too_high)
    with pytest.warns(UncertifiedResult, match="bound"):
        lying = order_with_precedence(a, b, after, r)
    assert lying.status is SolveStatus.FEASIBLE and lying.bound <= lying.objective

    def wrong_value(*args, **kwargs):
        order, value, _, expanded = real(*args, **kwargs)
        return order, value - 7.0, value - 7.0, expanded

    monkeypatch.setattr(methods_module, "branch_and_bound", wrong_value)
    with pytest.warns(UncertifiedResult, match="reported objective"):
        lying = order_with_precedence(a, b, after, r)
    assert lying.status is SolveStatus.FEASIBLE
    assert lying.objective == honest.objective  # the evaluator's figure, not the claim


def test_same_seed_same_order():
    a, b, after, r, due = random_workflow(12, 2)
    exact = [order_with_precedence(a, b, after, r, due, objective="max_lateness", seed=4) for _ in range(2)]
    assert exact[0].status is SolveStatus.OPTIMAL and exact[0].order.tolist() == exact[1].order.tolist()
    a, b, after, r, _ = random_workflow(40, 2)
    heuristic = [order_with_precedence(a, b, after, r, method="critical_path", time_limit=30).order for _ in range(2)]
    assert heuristic[0].tolist() == heuristic[1].tolist()


def test_the_methods_are_registered():
    assert set(methods("two_stage_precedence")) == {"branch_and_bound", "critical_path", "exhaustive"}
    assert methods("two_stage_precedence")["branch_and_bound"].exact


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"after": [[1], [0], []]}, "after"),                       # a cycle
    ({"after": [[5], [], []]}, r"after\[0\]\[0\]"),            # no such job
    ({"after": [[0], [], []]}, "after"),                       # waits for itself
    ({"after": [[1, 1], [], []]}, r"after\[0\]"),              # the same job twice
    ({"after": [[(1, -2.0)], [], []]}, r"after\[0\]\[0\].delay"),
    ({"after": [[], []]}, "after"),                            # one list per job
    ({"releases": [0.0, -1.0, 0.0]}, "releases"),
    ({"due": [0.0, None, None]}, "due"),                       # due at its release
    ({"objective": "late_jobs"}, "due"),                       # no due date at all
    ({"objective": "tardiness"}, "objective"),
    ({"method": "simplex"}, "method"),
    ({"time_limit": 0}, "time_limit"),
])
def test_bad_inputs_are_refused_naming_the_field(kwargs, field):
    arguments = {"after": [[], [], []], "releases": None, "due": None, **kwargs}
    with pytest.raises(InvalidInput, match=field):
        order_with_precedence([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], **arguments)


def test_a_cycle_is_named():
    with pytest.raises(InvalidInput, match="cycle: 0 -> 1 -> 0"):
        order_with_precedence([1.0, 2.0], [1.0, 1.0], [[1], [0]])


def test_bad_orders_and_sizes_are_refused():
    with pytest.raises(InvalidInput, match="each of the 3 jobs once"):
        precedence_schedule(A, B, [0, 0, 1], after=AFTER)
    with pytest.raises(InvalidInput, match="at most 8 jobs"):
        order_with_precedence(np.ones(9), np.ones(9), method="exhaustive")


# ------------------------------------------------------------------------------------------ jobs and plans


def pipeline() -> Workload:
    """ingest -> clean -> report, with a 30 s copy between clean and report; index on its own, submitted at 10.
    Stage times on 1 map and 1 reduce slot are the jobs' work: ingest (40, 20), clean (10, 30), report (5, 5),
    index (30, 10)."""
    return Workload([
        Job("ingest", 4, 2, 10.0, 10.0),
        Job("index", 3, 1, 10.0, 10.0, submit=10.0),
        Job("report", 1, 1, 5.0, 5.0, after=(Dependency("clean", 30.0),), deadline=400.0),
        Job("clean", 1, 3, 10.0, 10.0, after=("ingest",)),
    ], name="pipeline")


def test_order_with_dependencies_takes_jobs_and_slots():
    """By hand, all on 1 + 1 slots, index released at 10: ingest maps 0-40, reduces 40-60; clean may start at
    60 (its predecessor's end): maps 60-70, reduces 70-100; report waits until 130: maps 130-135, reduces
    135-140. Index fits in the map stage's gaps: after ingest at 40 (maps 40-70 would hold clean back), or
    after clean at 70 (maps 70-100, reduces 100-110). The best makespan is 140: the critical path ingest,
    clean, copy, report."""
    batch = pipeline()
    solved = order_with_dependencies(batch, 1, 1)
    names = [batch[i].name for i in solved.order]
    assert solved.status is SolveStatus.OPTIMAL and solved.objective == 140.0
    assert names.index("ingest") < names.index("clean") < names.index("report")
    assert solved.critical_path == 140.0
    on_cluster = order_with_dependencies(batch, cluster=Cluster(nodes=1, map_slots=1, reduce_slots=1))
    assert on_cluster.objective == solved.objective
    with pytest.raises(InvalidInput, match="cluster"):
        order_with_dependencies(batch, 1, 1, cluster=Cluster(nodes=1, map_slots=1, reduce_slots=1))
    with pytest.raises(InvalidInput, match="not a job of this batch"):
        order_with_dependencies([Job("x", 1, 1, 1.0, 1.0, after=("y",))], 1, 1)


def test_the_older_orders_honour_dependencies():
    batch = pipeline()
    names = [batch[i].name for i in submission_order(batch)]
    assert names == ["ingest", "clean", "report", "index"]  # report and clean move after ingest (submit 0)
    cluster = Cluster(nodes=1, map_slots=1, reduce_slots=1)
    for order in (johnson_admission(batch, cluster), [batch.jobs.index(j) for j in order_jobs(list(batch))]):
        listed = [batch[i].name for i in order]
        assert listed.index("ingest") < listed.index("clean") < listed.index("report")


def test_bounds_follow_the_dependencies():
    """On 1 slot: ingest alone 4 x 10 + 2 x 10 = 60, clean 10 + 30 = 40, report 10, index 40 (released at
    10). Earliest finishes: ingest 60, clean 100, report 100 + 30 + 10 = 140, index 50. Report is due at 400:
    lateness at least 140 - 400 = -260. Without the dependencies the critical path would be ingest's 60."""
    jobs = list(pipeline())
    releases = [job.submit for job in jobs]
    assert earliest_finishes(jobs, 1, releases) == [60.0, 50.0, 140.0, 100.0]
    assert critical_path_bound(jobs, 1, releases) == 140.0
    assert lateness_bound(jobs, 1, [None, None, 400.0, None], releases) == -260.0
    independent = [Job(job.name, job.map_tasks, job.reduce_tasks, job.map_time, job.reduce_time) for job in jobs]
    assert critical_path_bound(independent, 1) == 60.0


def test_a_plan_of_a_workflow_respects_it(tmp_path):
    batch = pipeline()
    cluster = Cluster(nodes=1, map_slots=1, reduce_slots=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(batch, cluster, "slots+johnson", k=1)
    assert plan.order.index("ingest") < plan.order.index("clean") < plan.order.index("report")
    assert plan.ordering["problem"] == "two_stage_precedence"
    solved = order_with_dependencies(batch, cluster=cluster)
    assert plan.order == tuple(batch[i].name for i in solved.order)  # the flow shop's order, as solved
    assert (plan.ordering["status"], plan.ordering["value"], plan.ordering["bound"]) == ("optimal", 140.0, 140.0)
    path, machines = tmp_path / "w.yaml", tmp_path / "c.yaml"
    batch.to_file(path)
    cluster.to_file(machines)
    result = CliRunner().invoke(app, ["plan", str(path), "-c", str(machines), "-k", "1", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)["plan"]
    assert (shown["ordering_status"], shown["ordering_model_value"], shown["ordering_bound"]) == (
        "optimal", 140.0, 140.0)
    lateness = CliRunner().invoke(app, ["plan", str(path), "-c", str(machines), "--objective", "max_lateness",
                                        "--json"])
    assert lateness.exit_code == 0, lateness.output
    assert json.loads(lateness.stdout)["plan"]["ordering_model_value"] == -260.0


def test_the_search_stops_at_its_node_limit_with_an_honest_status(monkeypatch):
    """Seed 0's 7-job workflow needs the search (its root bound is below the optimum): allowed one open node,
    it stops with the incumbent, status time_limit, and a bound no higher than the optimum."""
    a, b, after, r, _ = random_workflow(7, 0)
    optimum = order_with_precedence(a, b, after, r).objective
    monkeypatch.setattr(methods_module, "MAX_OPEN_NODES", 1)
    monkeypatch.setattr(methods_module, "INCUMBENT_ROUNDS", 0)
    stopped = order_with_precedence(a, b, after, r)
    assert stopped.status is SolveStatus.TIME_LIMIT
    assert stopped.bound == pytest.approx(precedence_lower_bound(a, b, after, r))
    assert stopped.bound < optimum <= stopped.objective


def test_the_list_rules_and_the_local_search_limit(monkeypatch):
    """The list rules include one by the propagated latest finish; past LOCAL_SEARCH_JOBS the local search
    returns the list rule's order as it is."""
    a, b, after, r, due = random_workflow(20, 1)
    inst = precedence_instance(a, b, after, r, due, "max_lateness")
    rules = methods_module.priorities(inst)
    assert [rules["latest-finish"][j][0] for j in range(20)] == inst.d.tolist()
    start = methods_module.list_rule(inst, rules["critical-path"])
    assert _respects(after, start)
    monkeypatch.setattr(methods_module, "LOCAL_SEARCH_JOBS", 10)
    assert methods_module.local_search(inst, start) == start
