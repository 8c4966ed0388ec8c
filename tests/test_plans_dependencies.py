"""Plans for pipelines (issue 40): every order, priority, limit, split and phase a plan proposes
respects the jobs' dependencies (`Job.after`), or the model refuses in one line."""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from models import Cluster, InvalidInput, InvalidPlan, Job, Workload
from models.errors import TaskFloorWarning
from models.profiles.base import profile_from_dict
from planner.io.hadoop.merge import default_config, deployed_run, map_queues, merged_files
from planner.io.hadoop.plan_files import read_submissions, submitted
from planner.io.targets import export_files, plan_run
from planner.planning import pipelines
from planner.planning.deploy import plan_for_target, proposals
from planner.planning.make import make_plan
from planner.plans.levers import Levers
from planner.plans.plan import Plan
from planner.simulator import Fair, simulate
from planner.simulator.schedulers.fair import Pool
from solvers import configure_slots, fluid_makespan, pack_phases, schedule_pairs
from solvers.packing.exhaustive import _shortest
from solvers.packing.precedence import check_precedence, order_phases
from solvers.packing.problem import packing_instance, phase_total

ROOT = Path(__file__).resolve().parents[1]
NIGHTLY = ROOT / "examples" / "nightly.yaml"
CLUSTER = ROOT / "examples" / "cluster.yaml"


def _job(name: str, maps: int = 4, reduces: int = 2, map_time: float = 10.0, reduce_time: float = 10.0,
         **more: object) -> Job:
    return Job(name, map_tasks=maps, reduce_tasks=reduces, map_time=map_time, reduce_time=reduce_time, **more)


def _respects(workload: Workload, names) -> bool:
    """Every job listed after each job it waits for."""
    place = {name: i for i, name in enumerate(names)}
    return all(place[d.job] < place[job.name] for job in workload for d in job.after)


def _pipeline_text(delays: bool = True) -> str:
    """examples/nightly.yaml with dependencies: sessionize waits for etl-clicks, pagerank for
    sessionize (120 s later, a copy), train-ctr for sessionize and grep-logs."""
    text = NIGHTLY.read_text()
    pagerank = "[{job: sessionize, delay: 120}]" if delays else "[sessionize]"
    text = text.replace("  - name: sessionize\n", "  - name: sessionize\n    after: [etl-clicks]\n")
    text = text.replace("  - name: pagerank\n", f"  - name: pagerank\n    after: {pagerank}\n")
    return text.replace("  - name: train-ctr\n", "  - name: train-ctr\n    after: [sessionize, grep-logs]\n")


@pytest.fixture
def pipeline(tmp_path) -> Path:
    path = tmp_path / "pipeline.yaml"
    path.write_text(_pipeline_text())
    return path


def _inverted() -> Workload:
    """A batch where Johnson's order and longest-first would start the job that waits: ``late``
    (short maps, long reduces: Johnson's first) waits for ``early`` (long maps, short reduces)."""
    return Workload([_job("early", maps=8, reduces=1, map_time=30.0, reduce_time=5.0),
                     _job("late", maps=1, reduces=8, map_time=5.0, reduce_time=40.0, after=["early"]),
                     _job("other", maps=4, reduces=4, map_time=10.0, reduce_time=10.0)])


# --- the fluid model (solvers.slots) ----------------------------------------------------------


def test_the_fluid_model_admits_a_job_once_its_predecessors_have_left() -> None:
    """a and b: 4 maps and 2 reduces of 10 s; 4 map and 2 reduce slots. Apart (k = 2) they share:
    maps 80 / 4 = 20 s, reduces 40 / 2 = 20 s: 40 s. b after a: a maps 40 / 4 = 10, reduces
    20 / 2 = 10, ends at 20; b the same from 20: 40 s. c (maps only, 40 s of work) 5 s after a:
    from 25 to 25 + 40 / 4 = 35 s."""
    a, b = _job("a"), _job("b")
    c = _job("c", reduces=0, reduce_time=0.0, after=[{"job": "a", "delay": 5}])
    for model in ("fresh", "capped"):
        assert fluid_makespan([a, b], 4, 2, 2, model=model) == pytest.approx(40.0)
        assert fluid_makespan([a, b.with_changes(after=["a"])], 4, 2, 2, model=model) == pytest.approx(40.0)
        assert fluid_makespan([a, c], 4, 2, 2, model=model) == pytest.approx(35.0)
        # b waits for a, c 5 s after a: b maps alone 20..25, then with c; b's reduces end at 45
        assert fluid_makespan([a, b.with_changes(after=["a"]), c], 4, 2, 3, model=model) == pytest.approx(45.0)


def test_a_chain_takes_the_sum_of_its_jobs_alone_on_every_split() -> None:
    """A chain runs one job at a time: on s map slots each job takes map_work / s + reduce_work /
    (S - s), whatever k."""
    jobs = [_job("j0", maps=6, reduces=3, map_time=7.0, reduce_time=11.0),
            _job("j1", maps=2, reduces=5, map_time=13.0, reduce_time=3.0, after=["j0"]),
            _job("j2", maps=9, reduces=1, map_time=4.0, reduce_time=20.0, after=["j1"])]
    total = 10
    for model in ("fresh", "capped"):
        curve = configure_slots(jobs, total, 3, model=model).makespans
        for s in range(1, total):
            alone = sum(j.map_work / s + j.reduce_work / (total - s) for j in jobs)
            if model == "fresh":
                assert curve[s - 1] == pytest.approx(alone)
            else:  # capped: a job never runs on more slots than it has tasks
                assert curve[s - 1] >= alone - 1e-9


def test_the_fluid_model_refuses_an_order_that_starts_a_job_before_its_predecessor() -> None:
    jobs = [_job("a"), _job("b", after=["a"])]
    with pytest.raises(InvalidInput, match=r"order: admits job 'b' .* before 'a'.*after"):
        configure_slots(jobs, 6, 2, order=[1, 0])


# --- orders (planner.planning.pipelines) ------------------------------------------------------


def test_the_critical_path_order_starts_the_longest_chain() -> None:
    """a (10 s alone) -> b (30 s), c (25 s): tails a 40, b 30, c 25: a, b, c."""
    workload = Workload([_job("c", maps=1, reduces=0, map_time=25.0, reduce_time=0.0),
                         _job("a", maps=1, reduces=0, map_time=10.0, reduce_time=0.0),
                         _job("b", maps=1, reduces=0, map_time=30.0, reduce_time=0.0, after=["a"])])
    order = pipelines.critical_path_order(workload, 4, [0, 1, 2])
    assert [workload[i].name for i in order] == ["a", "b", "c"]


def test_due_dates_propagate_backwards() -> None:
    """b (20 s alone on 4 slots: one 10 s map wave, one 10 s reduce wave) is due at 100 and waits
    30 s after a: a is due at 100 - 20 - 30 = 50; c, due nowhere, stays None."""
    workload = Workload([_job("a"), _job("b", after=[{"job": "a", "delay": 30}]), _job("c")])
    assert pipelines.latest_due_dates(workload, [None, 100.0, None], 4) == [50.0, 100.0, None]


def test_the_two_stage_model_waits_for_predecessors() -> None:
    """a (2, 3) then b (1, 1) waiting for a: b starts at 5, not 2: makespan 7."""
    workload = Workload([_job("a"), _job("b", after=["a"])])
    values = pipelines.two_stage_values([2.0, 1.0], [3.0, 1.0], None, None, [0, 1], workload)
    assert values["makespan"] == 7.0
    free = Workload([_job("a"), _job("b")])
    assert pipelines.two_stage_values([2.0, 1.0], [3.0, 1.0], None, None, [0, 1], free)["makespan"] == 6.0


def test_the_order_solver_orders_a_pipeline_and_proves_it() -> None:
    """The inverted batch on 4 map and 4 reduce slots: stage times early (60, 1.25), late (1.25,
    80), other (10, 10). ``late`` waits for ``early``, so the best order is early, then late and
    other in either order: the solver proves its order against its bound."""
    workload = _inverted()
    cluster = Cluster(nodes=2, map_slots=2, reduce_slots=2)
    order, record = pipelines.solver_order(workload, cluster, releases=None, due=None, objective="makespan",
                                           time_limit=5.0, seed=0)
    assert _respects(workload, [workload[i].name for i in order])
    assert record["problem"] == "two_stage_precedence" and record["status"] == "optimal"
    assert record["value"] == pytest.approx(record["bound"])


# --- slot plans (make_plan) -------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["slots", "johnson", "slots+johnson"])
def test_slot_plans_never_order_a_job_before_its_predecessor(strategy, tmp_path) -> None:
    workload = _inverted()
    cluster = Cluster(nodes=2, map_slots=2, reduce_slots=2)
    free = Workload([job.with_changes(after=()) for job in workload])
    if strategy != "slots":  # without the dependency Johnson's rule starts "late"
        assert make_plan(free, cluster, strategy).order[0] == "late"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, cluster, strategy)
    assert _respects(workload, plan.order)
    if strategy == "johnson":  # Johnson's order repaired: no bound
        assert plan.ordering["problem"] == "two_stage_precedence"
        assert plan.ordering["status"] == "feasible" and plan.ordering["bound"] is None
    if strategy == "slots+johnson":  # the order solver's bound holds for every order
        assert plan.ordering["problem"] == "two_stage_precedence"
        assert plan.ordering["status"] == "optimal" and plan.ordering["value"] == pytest.approx(plan.ordering["bound"])
    path = tmp_path / "plan.json"
    plan.to_file(path)
    assert Plan.from_file(path) == plan


def test_robust_candidates_respect_the_dependencies() -> None:
    from planner.planning.robust import robust_candidates

    workload = _inverted()
    cluster = Cluster(nodes=2, map_slots=2, reduce_slots=2)
    candidates = robust_candidates(workload, cluster, "slots+johnson", 2)
    assert {c.ordering for c in candidates} == {"submission", "johnson"}
    assert all(_respects(workload, c.order) for c in candidates)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, cluster, robust=True, runs=2)
    assert _respects(workload, plan.order)


def test_deadline_plans_use_latest_finishes(pipeline) -> None:
    workload = Workload.from_file(pipeline)
    cluster = Cluster.from_file(CLUSTER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, cluster, "slots+johnson", objective="max_lateness", window=9000)
    assert _respects(workload, plan.order)
    assert plan.ordering["objective"] == "max_lateness"


def test_the_window_check_counts_the_chain(pipeline) -> None:
    """All ready at 0 on 80 slots, each job alone: etl-clicks 2 x 31.5 + 95 = 158 s, sessionize
    28 + 140 = 168 s, train-ctr 90 + 200 = 290 s; the chain of the three, 616 s, is the critical
    path where the longest job alone was (290 s): a 600 s window is refused."""
    from planner.planning.arrivals import batch_bounds, check_window_reachable
    from planner.proof.setups import all_ready

    workload = all_ready(Workload.from_file(pipeline))
    free = Workload([job.with_changes(after=()) for job in workload])
    slots = Cluster.from_file(CLUSTER).total_slots
    assert batch_bounds(free, slots, None)["critical_path"] == pytest.approx(290.0)
    chained = batch_bounds(workload, slots, None)
    assert chained["critical_path"] == pytest.approx(616.0)
    with pytest.raises(InvalidInput, match="window: 600 s is before 616 s, the critical path"):
        check_window_reachable(600.0, chained)


# --- plans for targets ------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["mrv1", "yarn-fair", "yarn-capacity"])
def test_every_target_candidate_respects_the_dependencies(target) -> None:
    """Orders, priorities (a job that others wait for never below them) and submission times."""
    workload = _inverted()
    cluster = Cluster(nodes=2, map_slots=2, reduce_slots=2)
    current = default_config(target, cluster)
    queues = map_queues(workload, current, target, {"*": "default"})
    run = deployed_run(merged_files(current, Levers(queues=queues), workload, cluster, target), workload, cluster)
    kind = {"mrv1": "fifo", "yarn-fair": "fair", "yarn-capacity": "capacity"}[target]
    candidates = proposals(workload, run, target, queues, kind, None, objective="makespan", window=None, seed=0)
    assert any(c.name == "critical path" for c in candidates)
    for candidate in candidates:
        levers = candidate.levers
        assert _respects(workload, levers.order), candidate.name
        for job in workload:
            for dependency in job.after:
                if levers.priorities:
                    assert levers.priorities[dependency.job] >= levers.priorities[job.name], candidate.name
                if levers.submits:
                    assert levers.submits[dependency.job] < levers.submits[job.name], candidate.name
        merged_files(current, levers, workload, cluster, target)  # exports: the schedule's checks pass


def test_a_plan_for_a_target_on_a_pipeline(pipeline, tmp_path) -> None:
    workload = Workload.from_file(pipeline)
    cluster = Cluster.from_file(CLUSTER)
    plan = plan_for_target(workload, cluster, "yarn-capacity", runs=2)
    assert _respects(workload, plan.order)
    path = tmp_path / "target.json"
    plan.to_file(path)
    assert Plan.from_file(path) == plan
    files = export_files(plan, workload, cluster, "yarn-capacity", current=default_config("yarn-capacity", cluster))
    header, *rows = files["submissions.tsv"].splitlines()
    assert header.split("\t")[-1] == "after" and len(rows) == len(workload)


def test_a_running_limit_cannot_deadlock_a_pipeline() -> None:
    """A job that waits is not yet submitted, so it holds no place under a running-application
    limit; the jobs holding places wait for nothing: at most 1 running, a diamond still ends."""
    workload = Workload([_job("top"), _job("left", after=["top"]), _job("right", after=["top"]),
                         _job("bottom", after=["left", "right"]), _job("alone")])
    cluster = Cluster(nodes=2, map_slots=2, reduce_slots=2)
    result = simulate(workload, cluster, Fair(pools=[Pool("default", mode="fifo", max_running=1)]))
    records = {record["name"]: record for record in result.jobs}
    assert set(records) == set(workload.names)
    for job in workload:
        for dependency in job.after:
            assert records[job.name]["start"] >= records[dependency.job]["finish"]
    spans = sorted((r["start"], r["finish"]) for r in records.values())
    assert all(later[0] >= earlier[1] - 1e-9 for earlier, later in itertools.pairwise(spans))  # one at a time


# --- the export -------------------------------------------------------------------------------


def test_the_schedule_says_who_waits_and_reads_back(pipeline, tmp_path) -> None:
    workload = Workload.from_file(pipeline)
    cluster = Cluster.from_file(CLUSTER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, cluster)
    files = export_files(plan, workload, cluster, "yarn-fair")
    rows = {line.split("\t")[1]: line.split("\t") for line in files["submissions.tsv"].splitlines()[1:]}
    position = {name: row[0] for name, row in rows.items()}
    assert rows["pagerank"][5] == f"{position['sessionize']}+120.0"
    assert sorted(rows["train-ctr"][5].split(",")) == sorted([position["sessionize"], position["grep-logs"]])
    assert rows["etl-clicks"][5] == ""
    path = tmp_path / "submissions.tsv"
    path.write_text(files["submissions.tsv"])
    read = read_submissions(path)
    assert submitted(workload, read, str(path)).names == workload.names
    # a schedule that says another dependency than the workload's is refused, naming the line
    path.write_text(files["submissions.tsv"].replace(f"\t{position['sessionize']}+120.0", "\t0"))
    with pytest.raises(InvalidInput, match=r"line \d+\.after: says 'pagerank' waits for"):
        submitted(workload, read_submissions(path), str(path))
    # simulating the exported run waits for the predecessors
    result = simulate(plan_run(plan, workload, cluster, "yarn-fair").workload, cluster)
    records = {record["name"]: record for record in result.jobs}
    assert records["pagerank"]["start"] >= records["sessionize"]["finish"] + 120.0


def test_a_plan_listing_a_job_before_its_predecessor_is_not_exported(pipeline) -> None:
    workload = Workload.from_file(pipeline)
    cluster = Cluster.from_file(CLUSTER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, cluster, "slots")
    swapped = Plan(**{**plan.__dict__, "order": ("sessionize", "etl-clicks", *plan.order[2:])})
    with pytest.raises(InvalidInput, match="order: submits 'sessionize' before 'etl-clicks'"):
        export_files(swapped, workload, cluster, "mrv1")


@pytest.mark.skipif(shutil.which("sh") is None or shutil.which("awk") is None, reason="needs sh and awk")
def test_submit_sh_holds_a_job_until_its_predecessors_returned(tmp_path) -> None:
    """A fake SUBMIT that takes 0.6 s per job: b (after a, +0.3 s) starts >= 0.9 s after a; c
    (waiting for nothing) starts at once; d (after b and c) after both."""
    from planner.io.hadoop.export import schedule_files
    from planner.io.hadoop.plan_files import Submission

    schedule = [Submission("a", 0.0, "q", after=()), Submission("b", 0.001, "q", after=((0, 0.3),)),
                Submission("c", 0.002, "q", after=()), Submission("d", 0.003, "q", after=((1, 0.0), (2, 0.0)))]
    for name, text in schedule_files(schedule, "yarn-fair").items():
        (tmp_path / name).write_text(text)
    log = tmp_path / "log"
    fake = tmp_path / "fake-submit"
    fake.write_text(f'#!/bin/sh\necho "start $1 $(date +%s.%N)" >> {log}\nsleep 0.6\n'
                    f'echo "end $1 $(date +%s.%N)" >> {log}\n')
    fake.chmod(0o755)
    done = subprocess.run(["sh", str(tmp_path / "submit.sh")], env={**os.environ, "SUBMIT": str(fake)},
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    times = {(kind, job): float(at) for kind, job, at in (line.split() for line in log.read_text().splitlines())}
    assert times[("start", "b")] >= times[("end", "a")] + 0.3 - 0.05
    assert times[("start", "c")] < times[("end", "a")]
    assert times[("start", "d")] >= max(times[("end", "b")], times[("end", "c")]) - 0.05


@pytest.mark.skipif(shutil.which("sh") is None or shutil.which("awk") is None, reason="needs sh and awk")
def test_submit_sh_does_not_submit_after_a_failed_predecessor(tmp_path) -> None:
    from planner.io.hadoop.export import schedule_files
    from planner.io.hadoop.plan_files import Submission

    schedule = [Submission("a", 0.0, "q", after=()), Submission("b", 0.001, "q", after=((0, 0.0),))]
    for name, text in schedule_files(schedule, "yarn-fair").items():
        (tmp_path / name).write_text(text)
    log = tmp_path / "log"
    fake = tmp_path / "fake-submit"
    fake.write_text(f'#!/bin/sh\necho "$1" >> {log}\n[ "$1" != a ]\n')
    fake.chmod(0o755)
    done = subprocess.run(["sh", str(tmp_path / "submit.sh")], env={**os.environ, "SUBMIT": str(fake)},
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert log.read_text().split() == ["a"]
    assert "not submitting 1: b (row 0 failed)" in done.stderr


# --- packing and pairs ------------------------------------------------------------------------


def _tiny(seed: int) -> tuple[list[Job], Cluster]:
    """Four jobs with power-law profiles on 4 VMs and a random DAG (each edge 40% likely)."""
    rng = random.Random(seed)
    names = [f"j{i}" for i in range(4)]
    jobs = []
    for i, name in enumerate(names):
        after = [names[k] for k in range(i) if rng.random() < 0.4]
        jobs.append(Job(name, map_tasks=4, map_time=10.0, intensity=rng.choice(["io", "cpu", "balanced"]),
                        profile=profile_from_dict({"kind": "power_law", "a": rng.uniform(50, 200),
                                                   "b": -rng.uniform(0.3, 1.0)}),
                        after=after))
    return jobs, Cluster(nodes=2, map_slots=1, reduce_slots=1, disks=2, primaries_per_extra=2)


def _brute_force(jobs: list[Job], cluster: Cluster) -> float:
    """Every set partition whose blocks can be ordered to respect the dependencies, each block at
    its shortest phase (exhaustive's own `_shortest`)."""
    instance = packing_instance(jobs, cluster)
    n = instance.jobs

    def partitions(items):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for smaller in partitions(rest):
            for i in range(len(smaller)):
                yield [*smaller[:i], [first, *smaller[i]], *smaller[i + 1:]]
            yield [[first], *smaller]

    best = np.inf
    for blocks in partitions(list(range(n))):
        shaped = [[type("P", (), {"job": j})() for j in block] for block in blocks]
        if order_phases(shaped, instance.precedence) is None:
            continue
        best = min(best, sum(_shortest(instance, tuple(block))[0] for block in blocks))
    return float(best)


@pytest.mark.parametrize("seed", range(6))
def test_exhaustive_packing_with_dependencies_equals_brute_force(seed) -> None:
    jobs, cluster = _tiny(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schedule = pack_phases(jobs, cluster, method="exhaustive")
        instance = packing_instance(jobs, cluster)
        check_precedence(schedule.phases, instance.precedence)
        assert schedule.objective == pytest.approx(_brute_force(jobs, cluster))
        assert str(schedule.status) == "optimal"


@pytest.mark.parametrize("method", ["greedy", "milp", "milp-compact", "pso"])
def test_every_packing_method_keeps_predecessors_in_earlier_phases(method) -> None:
    for seed in range(4):
        jobs, cluster = _tiny(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schedule = pack_phases(jobs, cluster, method=method, time_limit=5.0, seed=seed)
            instance = packing_instance(jobs, cluster)
            optimum = pack_phases(jobs, cluster, method="exhaustive").objective
        check_precedence(schedule.phases, instance.precedence)
        assert schedule.objective == pytest.approx(phase_total(schedule.phases, instance))
        assert schedule.objective >= optimum - 1e-6
        if schedule.bound is not None:
            assert schedule.bound <= optimum + 1e-6  # a bound without dependencies is still one


def test_a_phase_with_a_job_and_its_predecessor_is_an_invalid_plan() -> None:
    from solvers import evaluate_phases

    jobs, cluster = _tiny(0)
    jobs = [job.with_changes(after=()) for job in jobs]
    jobs[1] = jobs[1].with_changes(after=["j0"])
    with pytest.raises(InvalidPlan, match=r"phase 0, job 1: waits for job 0 .*same phase"):
        evaluate_phases([[(0, 2, "primary"), (1, 2, "primary")], [(2, 4, "primary")], [(3, 4, "primary")]],
                        jobs, cluster)
    with pytest.raises(InvalidPlan, match=r"phase 0, job 1: waits for job 0 .*phase 1"):
        evaluate_phases([[(1, 4, "primary")], [(0, 4, "primary")], [(2, 4, "primary")], [(3, 4, "primary")]],
                        jobs, cluster)


def test_packing_refuses_a_delay_and_pairs_refuse_dependencies() -> None:
    jobs, cluster = _tiny(1)
    delayed = [*jobs[:3], jobs[3].with_changes(after=[{"job": "j0", "delay": 60}])]
    with pytest.raises(InvalidInput, match="after: job 'j3' waits 60 s after 'j0': packing runs phases back to back"):
        pack_phases(delayed, cluster)
    with pytest.raises(InvalidInput, match=r"^after: job 'j1' waits for 'j0': the pair model"):
        schedule_pairs(delayed, cluster)


# --- the command line, end to end -------------------------------------------------------------


def _planner(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "planner", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_plan_validate_export_on_a_pipeline_from_the_command_line(pipeline, tmp_path) -> None:
    made = _planner("plan", str(pipeline), "-c", str(CLUSTER), "-o", "plan.json", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    plan = Plan.from_file(tmp_path / "plan.json")
    workload = Workload.from_file(pipeline)
    assert _respects(workload, plan.order)
    assert json.loads((tmp_path / "plan.json").read_text()) == plan.to_dict()  # round trip
    checked = _planner("validate", str(pipeline), "-c", str(CLUSTER), "--plan", "plan.json", "--runs", "2",
                       cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    exported = _planner("export", "plan.json", "-c", str(CLUSTER), "-w", str(pipeline), "--to", "mrv1", "-o", "out",
                        cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "out" / "submissions.tsv").read_text().splitlines()[0].endswith("\tafter")
    again = _planner("simulate", str(pipeline), "-c", str(CLUSTER), "--hadoop-conf", "out", cwd=tmp_path)
    assert again.returncode == 0, again.stderr


def test_models_that_cannot_honour_dependencies_refuse_in_one_line(pipeline, tmp_path) -> None:
    for strategy, words in (("pairs", "the pair model runs jobs in pairs"),
                            ("packing", "packing runs phases back to back")):
        done = _planner("plan", str(pipeline), "-c", str(CLUSTER), "--strategy", strategy, "-o", "p.json",
                        cwd=tmp_path)
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0] and "after" in lines[0]


def test_a_packing_plan_on_a_pipeline_runs_its_phases_in_order(tmp_path) -> None:
    path = tmp_path / "pipe.yaml"
    path.write_text(_pipeline_text(delays=False))
    done = _planner("plan", str(path), "-c", str(CLUSTER), "--strategy", "packing", "-o", "pk.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    plan = Plan.from_file(tmp_path / "pk.json")
    workload = Workload.from_file(path)
    assert _respects(workload, plan.order)
    phase = {name: p for p, entries in enumerate(plan.phases) for name, _, _ in entries}
    assert all(phase[d.job] < phase[job.name] for job in workload for d in job.after)
    assert plan.evaluate_phases(workload, Cluster.from_file(CLUSTER)) == pytest.approx(plan.predicted_makespan)


def test_export_moves_a_job_that_a_kept_job_waits_for():
    """A queue lever moves ``ingest`` to a new queue while ``report``, which waits for it, stays:
    the export maps the kept jobs to queues without tripping over the moved one, and its
    submissions carry the dependency."""
    from planner.io.hadoop.merge import default_config, merged_files
    from planner.plans.levers import Levers

    batch = Workload([Job("ingest", map_tasks=4, map_time=10.0), Job("report", map_tasks=1, map_time=5.0,
                                                                     after=["ingest"])])
    cluster = Cluster(nodes=2, map_slots=2, reduce_slots=2)
    files = merged_files(default_config("yarn-fair", cluster), Levers(queues={"ingest": "small"}), batch, cluster,
                         "yarn-fair")
    rows = [line.split("\t") for line in files["submissions.tsv"].splitlines()]
    assert rows == [["position", "job", "submit_at", "pool", "priority", "after"],
                    ["0", "ingest", "0.0", "small", "0", ""], ["1", "report", "0.001", "default", "0", "0"]]
    assert "Jobs that wait for jobs: submissions.tsv's column `after`" in files["README.md"]
    assert "wait for jobs" not in merged_files(default_config("yarn-fair", cluster), Levers(), Workload(
        [job.with_changes(after=()) for job in batch]), cluster, "yarn-fair")["README.md"]


def test_a_plan_that_falls_back_to_submission_order_describes_it() -> None:
    """Six jobs (seed 1 of a review's random DAGs) where the fluid model prefers submission order to
    the order solver's proven order: the plan's ordering record then gives submission order's own
    two-stage value and its gap to the solver's bound, and does not say "optimal"."""
    from solvers.ordering.two_stage import stage_times

    rng = np.random.default_rng(1)
    jobs = []
    for i in range(6):
        before = [j for j in range(i) if rng.random() < 0.3]
        jobs.append(Job(f"j{i}", int(rng.integers(1, 20)), int(rng.integers(0, 10)), float(rng.integers(5, 60)),
                        float(rng.integers(5, 60)), after=tuple(f"j{b}" for b in before)))
    workload, cluster = Workload(jobs), Cluster(nodes=2, map_slots=2, reduce_slots=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, cluster, "slots+johnson", time_limit=5)
    record = plan.ordering
    assert record["method"].startswith("submission order") and plan.order == tuple(f"j{i}" for i in range(6))
    a, b = stage_times(jobs, 4, 4)
    value = pipelines.two_stage_values(a, b, None, None, list(range(6)), workload)["makespan"]
    assert record["value"] == pytest.approx(value) and record["value"] > record["bound"]
    assert record["status"] == "feasible" and record["gap"] == pytest.approx((value - record["bound"]) / value)


def test_a_prediction_below_the_chain_of_jobs_is_flagged() -> None:
    """examples/pipelines.yaml on examples/cluster.yaml (80 slots): the fluid model predicts about
    600 s, while the chain, each job alone on the 80 slots (its map waves, then its reduce waves),
    takes ingest-clicks 2 x 20 = 40, sessionize-clicks 28 + 140 = 168 (ends 208), join-ads-clicks
    2 x 30 + 120 = 180 (ends 388; ingest-ads ends at 120 + 18 = 138), train-ctr 70 + 200 = 270:
    658 s (the plan's critical-path section says the same), so the plan warns."""
    examples = ROOT / "examples"
    workload, cluster = Workload.from_file(examples / "pipelines.yaml"), Cluster.from_file(examples / "cluster.yaml")
    with pytest.warns(TaskFloorWarning, match=r"the chain ingest-clicks -> sessionize-clicks -> join-ads-clicks -> "
                                              r"train-ctr, each job alone on the 80 slots, needs at least 658 s"):
        plan = make_plan(workload, cluster)
    assert plan.predicted_makespan < 658


def test_a_pipelines_plan_is_exported_only_with_its_workload(tmp_path) -> None:
    """The plan says its batch has jobs that wait for jobs (plan file version 7, ``pipeline``); an
    export without the workload would submit every job at once, so it is refused, from Python and
    from the command line; with the workload the submissions hold the waits. A version 6 file has
    no such key (strict reading refuses it there) and loads as ``pipeline`` false."""
    from planner.io.targets import export_files

    workload, cluster = _inverted(), Cluster(nodes=2, map_slots=2, reduce_slots=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, cluster, "slots+johnson", ready_now=True)
    assert plan.pipeline and not make_plan(Workload([job.with_changes(after=()) for job in workload]), cluster,
                                           "slots+johnson", ready_now=True).pipeline
    path = tmp_path / "plan.json"
    plan.to_file(path)
    data = json.loads(path.read_text())
    assert data["version"] == 7 and data["pipeline"] is True and Plan.from_file(path) == plan
    with pytest.raises(InvalidInput, match=r"^workload: the plan's batch has jobs that wait for jobs"):
        export_files(plan, None, cluster, "mrv1", ready_now=True)
    assert "after" in export_files(plan, workload, cluster, "mrv1", ready_now=True)["submissions.tsv"]
    cluster_file, workload_file = tmp_path / "cluster.yaml", tmp_path / "w.yaml"
    cluster.to_file(cluster_file)
    workload.to_file(workload_file)
    done = subprocess.run([sys.executable, "-m", "planner", "export", str(path), "-c", str(cluster_file), "--to",
                           "mrv1", "--ready-now", "-o", str(tmp_path / "out")], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: --workload: the plan's batch has jobs that wait for jobs")
    old = {**data, "version": 6}
    with pytest.raises(InvalidInput, match="pipeline"):
        Plan.from_dict(old)
    del old["pipeline"]
    assert not Plan.from_dict(old).pipeline
