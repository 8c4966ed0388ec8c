"""VM-level plans: make_plan "pairs" and "packing", phases as plain data, plan files version 2 and later."""

from __future__ import annotations

import json

import pytest

from models import Cluster, ExtrapolationWarning, InvalidInput, InvalidPlan, Job, PowerLawProfile, Workload
from models.profiles import DerivedProfileWarning
from planner.planning.make import make_plan
from planner.planning.vm import pair_phases
from planner.plans.files import PLAN_VERSION
from planner.plans.plan import Plan
from solvers import PairGroup, PairSchedule, SolveStatus, evaluate_phases, methods, pack_phases, schedule_pairs

#: P = 2 machines, k = 2 disks: N = 4 primary VMs, N / r = 2 extra VMs, alpha = 1.5.
CLUSTER = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.5)


def job(name: str, a: float, b: float, intensity: str = "balanced") -> Job:
    return Job(name, map_tasks=1, map_time=10.0, intensity=intensity, profile=PowerLawProfile.from_coefficients(a, b))


def profiled() -> Workload:
    """Five jobs: two io (hosts), two cpu (extras), one flat (no gain from more VMs)."""
    return Workload([job("scan", 120, -1, "io"), job("train", 60, -1, "cpu"), job("flat", 50, 0),
                     job("etl", 90, -0.8, "io"), job("score", 40, -0.5, "cpu")], name="vm")


def indices(plan: Plan, workload: Workload) -> list[list[tuple[int, int, str]]]:
    names = workload.names
    return [[(names.index(name), vms, role) for name, vms, role in phase] for phase in plan.phases]


def check_phases(plan: Plan, workload: Workload, cluster: Cluster) -> None:
    placed = [name for phase in plan.phases for name, _, _ in phase]
    assert sorted(placed) == sorted(workload.names) and tuple(placed) == plan.order
    for phase in plan.phases:
        assert sum(vms for _, vms, role in phase if role != "extra") <= cluster.vms
    assert evaluate_phases(indices(plan, workload), list(workload), cluster) == pytest.approx(plan.predicted_makespan)
    assert plan.evaluate_phases(workload, cluster) == pytest.approx(plan.predicted_makespan)


def test_pairs_plan_matches_schedule_pairs():
    workload = profiled()
    plan = make_plan(workload, CLUSTER, "pairs")
    schedule = schedule_pairs(list(workload), CLUSTER, "milp")
    assert plan.predicted_makespan == pytest.approx(schedule.objective)
    assert plan.baseline_makespan == pytest.approx(sum(j.runtime(4) for j in workload))
    assert (plan.status, plan.bound, plan.gap) == ("optimal", pytest.approx(schedule.objective), 0.0)
    assert (plan.map_slots, plan.reduce_slots, plan.curve) == (CLUSTER.total_map_slots, CLUSTER.total_reduce_slots, ())
    check_phases(plan, workload, CLUSTER)


@pytest.mark.parametrize("solver", ["greedy", "milp"])
def test_packing_plan_matches_pack_phases(solver):
    workload = profiled()
    plan = make_plan(workload, CLUSTER, "packing", solver=solver, time_limit=10, seed=3)
    schedule = pack_phases(list(workload), CLUSTER, solver, time_limit=10, seed=3)
    assert plan.predicted_makespan == pytest.approx(schedule.objective)
    assert plan.baseline_makespan == pytest.approx(schedule.sequential_baseline)
    assert plan.status == str(schedule.status) and plan.solver == schedule.solver
    assert plan.bound == (None if schedule.bound is None else pytest.approx(schedule.bound))
    check_phases(plan, workload, CLUSTER)
    assert plan.predicted_makespan <= plan.baseline_makespan + 1e-9


def test_pair_groups_become_phases():
    """Concurrent: split x and N - x; overcommit: the io job hosts on N, the cpu job rides on N / r
    (whichever index comes first); sequential: two phases on N; alone: one phase on N."""
    jobs = [job("a", 10, -1), job("b", 10, -1), job("cpu", 10, -1, "cpu"), job("io", 10, -1, "io"),
            job("c", 10, -1), job("d", 10, -1), job("e", 10, -1)]
    groups = (PairGroup((0, 1), "concurrent", 1.0, 3), PairGroup((2, 3), "overcommit", 1.0),
              PairGroup((4, 5), "sequential", 1.0), PairGroup((6,), "alone", 1.0))
    schedule = PairSchedule(SolveStatus.OPTIMAL, 4.0, 4.0, 0.0, "test", 0.0, groups, 7.0)
    assert pair_phases(schedule, jobs, CLUSTER) == (
        (("a", 3, "primary"), ("b", 1, "primary")),
        (("cpu", 2, "extra"), ("io", 4, "host")),
        (("c", 4, "primary"),),
        (("d", 4, "primary"),),
        (("e", 4, "primary"),),
    )


def test_overcommitted_pair_by_hand():
    """alpha = 1.2: io (120 / n) hosting cpu (60 / n) on its 2 extra VMs takes 1.2 * max(30, 30) = 36 s,
    less than 30 + 15 apart or max(120 / x, 60 / (4 - x)) >= 40 split."""
    cluster = CLUSTER.with_changes(overcommit_penalty=1.2)
    workload = Workload([job("io", 120, -1, "io"), job("cpu", 60, -1, "cpu")])
    plan = make_plan(workload, cluster, "pairs", solver="exhaustive")
    assert plan.phases == ((("io", 4, "host"), ("cpu", 2, "extra")),)
    assert plan.predicted_makespan == pytest.approx(36.0) == plan.evaluate_phases(workload, cluster)
    assert plan.baseline_makespan == pytest.approx(45.0)


def test_solver_option_is_checked():
    workload = profiled()
    with pytest.raises(InvalidInput, match=r"solver: unknown packing method 'magic'; choose from .*greedy") as caught:
        make_plan(workload, CLUSTER, "packing", solver="magic")
    assert caught.value.field == "solver"
    assert all(name in str(caught.value) for name in methods("packing"))
    with pytest.raises(InvalidInput, match="solver: unknown pairs method 'greedy'"):
        make_plan(workload, CLUSTER, "pairs", solver="greedy")
    with pytest.raises(InvalidInput, match="solver: applies to the pairs and packing strategies only"):
        make_plan(workload, CLUSTER, "slots", solver="milp")
    with pytest.raises(InvalidInput, match="time_limit: must be > 0"):
        make_plan(workload, CLUSTER, "packing", time_limit=0)


def test_jobs_without_profile_are_named():
    """They get one derived from their tasks (the wave model), and one warning names them."""
    workload = Workload([job("p", 10, -1), Job("q", 1, 0, 5.0), Job("r", 1, 0, 5.0)])
    with pytest.warns(DerivedProfileWarning, match=r"2 of 3 jobs have no runtime profile.*: q, r$") as caught:
        plan = make_plan(workload, CLUSTER, "packing")
    assert len(caught) == 1 and {name for phase in plan.phases for name, _, _ in phase} == {"p", "q", "r"}


def test_extrapolated_placements_warn_once_naming_the_jobs():
    measured = Job("m", 1, 0, 5.0, profile=PowerLawProfile.from_coefficients(100, -1, nodes_min=1, nodes_max=2))
    with pytest.warns(ExtrapolationWarning, match=r"m on 4 VMs \(fitted on 1\.\.2\)") as caught:
        make_plan(Workload([measured]), CLUSTER, "packing", solver="greedy")
    assert len(caught) == 1


@pytest.mark.parametrize("strategy", ["pairs", "packing"])
def test_vm_plan_file_round_trip(tmp_path, strategy):
    workload = profiled()
    plan = make_plan(workload, CLUSTER, strategy, solver="greedy" if strategy == "packing" else None)
    path = tmp_path / "plan.json"
    plan.to_file(path)
    data = json.loads(path.read_text())
    assert data["version"] == PLAN_VERSION == 7 and data["phases"] == [[list(e) for e in p] for p in plan.phases]
    again = Plan.from_file(path)
    assert again == plan and again.matches(workload, CLUSTER)
    records = again.phase_records(workload, CLUSTER)
    assert [(r["job"], r["vms"], r["role"]) for r in records] == [e for p in plan.phases for e in p]
    assert {r["phase"] for r in records} == set(range(len(plan.phases)))
    alpha = {"primary": 1.0, "host": 1.5, "extra": 1.5}
    assert all(r["seconds"] == pytest.approx(alpha[r["role"]] * workload[r["job"]].runtime(r["vms"])) for r in records)
    assert "seconds" not in again.phase_records()[0]


def test_plan_checked_against_a_smaller_cluster():
    workload = profiled()
    plan = make_plan(workload, CLUSTER, "pairs")
    with pytest.raises(InvalidPlan, match=r"VMs must be in 1\.\.2"):
        plan.evaluate_phases(workload, CLUSTER.with_changes(nodes=1))


def vm_data() -> dict:
    return make_plan(profiled(), CLUSTER, "pairs").to_dict()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(phases={"a": 1}), "phases: must be a list of phases, got dict"),
        (lambda d: d["phases"].append([]), r"phases\[\d\]: must be a non-empty list of \[job, vms, role\]"),
        (lambda d: d["phases"][0].__setitem__(0, ["scan", 4]), r"phases\[0\]\[0\]: must be \[job, vms, role\]"),
        (lambda d: d["phases"][0][1].__setitem__(1, 0), r"phases\[0\]\[1\]\.vms: must be >= 1"),
        (lambda d: d["phases"][1][0].__setitem__(1, 2.5), r"phases\[1\]\[0\]\.vms: must be an integer"),
        (lambda d: d["phases"][0][0].__setitem__(2, "spare"), r"phases\[0\]\[0\]\.role: must be one of primary, host"),
        (lambda d: d["phases"][0][0].__setitem__(0, 7), r"phases\[0\]\[0\]\.job: must be a string"),
        (lambda d: d["phases"][1][0].__setitem__(0, d["phases"][0][0][0]), r"phases\[1\]\[0\]\.job: '\w+' already runs at phases\[0\]\[0\]"),
        (lambda d: d.update(order=d["order"][::-1]), r"phases\[0\]\[0\]\.job: is '\w+' but order\[0\] is"),
        (lambda d: d.update(phases=d["phases"][:-1]), r"phases: place [34] jobs but order names 5"),
        (lambda d: d.update(phases=[]), "phases: a pairs plan needs at least one phase"),
        (lambda d: d.update(strategy="slots"), "phases: a slots plan has no phases"),
        (lambda d: d.update(bound=-1), "bound: must be >= 0"),
        (lambda d: d.update(gap="small"), "gap: must be a number"),
        (lambda d: d.update(version=8), "version: this batchplan reads plan versions 1 to 7, got 8"),
    ],
)
def test_phases_are_read_strictly(tmp_path, edit, message):
    data = vm_data()
    edit(data)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidInput, match=message) as caught:
        Plan.from_file(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_version_1_file_still_loads(tmp_path):
    """What batchplan wrote before VM plans: no phases, bound, gap or robust; read, then written as
    the current version (7). A version 2 file may not hold ``robust``."""
    workload = Workload([Job("a", 1, 1, 100, 10), Job("b", 1, 1, 10, 100, submit=5)])
    cluster = Cluster(nodes=1, map_slots=1, reduce_slots=1)
    current = make_plan(workload, cluster, k=1)
    newer = ("phases", "bound", "gap", "robust", "objective", "ready_now", "window", "ordering", "target", "levers",
             "config_fingerprint", "simulated", "pipeline")
    old = {key: value for key, value in current.to_dict().items() if key not in newer}
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(old | {"version": 1}))
    loaded = Plan.from_file(path)
    assert (loaded.phases, loaded.bound, loaded.gap, loaded.robust, loaded.version) == ((), None, None, None, 7)
    assert loaded.ready_now  # plans before version 4 treated every job as ready at 0
    assert loaded.order == current.order and loaded.matches(workload, cluster)
    loaded.to_file(tmp_path / "v2.json")
    assert Plan.from_file(tmp_path / "v2.json") == loaded
    path.write_text(json.dumps(old | {"version": 2, "robust": None}))
    with pytest.raises(InvalidInput, match="robust: unknown key"):
        Plan.from_file(path)
    path.write_text(json.dumps(old | {"version": 1, "phases": []}))
    with pytest.raises(InvalidInput, match="phases: unknown key"):
        Plan.from_file(path)
    path.write_text(json.dumps(old | {"version": 1, "strategy": "packing"}))
    with pytest.raises(InvalidInput, match="strategy: must be one of slots, johnson, slots\\+johnson;"):
        Plan.from_file(path)
