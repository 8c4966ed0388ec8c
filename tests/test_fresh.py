"""FRESH in the simulator: admission limit, dynamic slot typing, overall-fairness assignment.

Hand-traced runs use heartbeat 0 (a freed slot is offered at the end of its
instant, slots in index order), deterministic task times and one node, so
every map is node-local or rack-local within the only rack; the traced jobs
are "cpu" jobs with rack_factor 1.0 so that locality cannot stretch a map.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from models import Cluster, InvalidInput
from planner.cli.main import app
from planner.examples.workloads import set_a_batch
from planner.simulator import SCHEDULERS, Fresh, SimOptions, Simulation, simulate
from planner.simulator.config import scheduler_from_dict
from planner.simulator.layout import MAP, REDUCE
from tests.support.fresh import EXACT, ONE_NODE_2_2, Spy, job, starts
from tests.support.properties import check_invariants, clusters, fitted, run, workloads

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NIGHTLY, CLUSTER = str(EXAMPLES / "nightly.yaml"), str(EXAMPLES / "cluster.yaml")
ONE_NODE_1_1 = Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0)


# -- settings ---------------------------------------------------------------------------------------
def test_registered_and_described():
    assert SCHEDULERS["fresh"] is Fresh
    assert Fresh().describe() == {"name": "fresh", "k": 5, "tau1": 0.8, "tau2": 0.6, "dynamic": True,
                                  "algorithm3": "ours"}
    assert Fresh(algorithm3="literal").describe()["algorithm3"] == "literal"
    described = Fresh(k=3, tau1=0.5, tau2=0.2, dynamic=False, delay=(5, 5)).describe()
    assert described["k"] == 3 and described["dynamic"] is False and described["delay"]["node_wait"] == 5
    assert Fresh().wants_containers is True
    assert Fresh(dynamic=False).wants_containers is False
    assert Fresh.hears_ends is True


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"k": 0}, "k"),
        ({"k": 2.5}, "k"),
        ({"k": True}, "k"),
        ({"k": "5"}, "k"),
        ({"tau1": -0.1}, "tau1"),
        ({"tau1": 1.5}, "tau1"),
        ({"tau1": math.nan}, "tau1"),
        ({"tau2": -1.0}, "tau2"),
        ({"tau2": math.inf}, "tau2"),
        ({"dynamic": "yes"}, "dynamic"),
        ({"dynamic": 1}, "dynamic"),
        ({"delay": (-1, 0)}, "delay.node_wait"),
        ({"algorithm3": "paper"}, "algorithm3"),
        ({"algorithm3": None}, "algorithm3"),
        ({"algorithm3": 1}, "algorithm3"),
    ],
)
def test_settings_are_validated(settings, field):
    with pytest.raises(InvalidInput) as error:
        Fresh(**settings)
    assert error.value.field == field


def test_slot_kinds_must_match_the_mode():
    """Dynamic FRESH types containers itself; FRESH-static needs typed slots. simulate()
    switches containers on for the dynamic one; Simulation used directly refuses a mismatch."""
    jobs = [job("a", 2, 1, 1.0, 1.0)]
    with pytest.raises(InvalidInput) as error:
        Simulation(jobs, ONE_NODE_1_1, Fresh()).run()
    assert error.value.field == "dynamic"
    with pytest.raises(InvalidInput) as error:
        simulate(jobs, ONE_NODE_1_1, Fresh(dynamic=False), options=SimOptions(containers=True))
    assert error.value.field == "dynamic"
    assert simulate(jobs, ONE_NODE_1_1, Fresh()).cluster["containers_total"] == 2


# -- admission ---------------------------------------------------------------------------------------
def test_admission_limit_one_runs_phases_in_submit_order():
    """FRESH-static, 1 map slot + 1 reduce slot, k = 1. A, B (submit 0) and C (submit 1),
    each 2 maps x 10 s and 1 reduce x 30 s.

    R_m holds one job: A's maps run 0-10, 10-20 (B and C wait in R'). At 20 A enters
    R_r (its reduce 20-50) and B enters R_m (maps 20-30, 30-40). At 40 R_r is full
    (A), so B waits for it; C enters R_m (maps 40-50, 50-60). At 50 A finishes and B
    enters R_r (reduce 50-80). At 60 C's maps are done but R_r is full (B) until 80:
    C's reduce runs 80-110. Makespan 110.
    """
    jobs = [job("A", 2, 1, 10.0, 30.0), job("B", 2, 1, 10.0, 30.0), job("C", 2, 1, 10.0, 30.0, submit=1.0)]
    result = simulate(jobs, ONE_NODE_1_1, Fresh(k=1, dynamic=False), options=EXACT)
    got = [(j["name"], j["start"], j["map_done"], j["finish"]) for j in result.jobs]
    assert got == [("A", 0.0, 20.0, 50.0), ("B", 20.0, 40.0, 80.0), ("C", 40.0, 60.0, 110.0)]
    assert result.makespan == 110.0


class Phases(Fresh):
    """FRESH noting `admission()` (the names in R_m, R_r, R' and waiting for R_r) after each job ends."""

    def job_finished(self, job, now):
        super().job_finished(job, now)
        self.seen = [*getattr(self, "seen", []), (now, self.admission())]


def test_admission_names_the_jobs_of_each_phase():
    """The run of `test_admission_limit_one_runs_phases_in_submit_order`: at 50 A ends, B (maps
    done at 40) enters R_r and C is in R_m; at 80 B ends and C (maps done at 60) enters R_r; at
    110 every list is empty."""
    jobs = [job("A", 2, 1, 10.0, 30.0), job("B", 2, 1, 10.0, 30.0), job("C", 2, 1, 10.0, 30.0, submit=1.0)]
    scheduler = Phases(k=1, dynamic=False)
    simulate(jobs, ONE_NODE_1_1, scheduler, options=EXACT)
    empty = {"map_phase": [], "reduce_phase": [], "waiting": [], "reduce_waiting": []}
    assert scheduler.seen == [(50.0, {**empty, "map_phase": ["C"], "reduce_phase": ["B"]}),
                              (80.0, {**empty, "reduce_phase": ["C"]}), (110.0, empty)]


def test_assignment_goes_to_the_smallest_share():
    """FRESH-static, same jobs and slots, k = 2 (Algorithm 4: smallest r_i = slot-seconds
    received / (now - submit); ties by submit, then name).

    - t=0: R_m = {A, B}, C (submit 1) arrives later into R'. r_A = r_B = 0 -> A m0 (0-10).
    - t=10: r_A = 10/10 = 1, r_B = 0 -> B m0 (10-20).
    - t=20: r_A = 10/20 = r_B = 10/20 -> tie, A submitted first and named first -> A m1 (20-30).
    - t=30: A's maps are done: A enters R_r (reduce 30-60), C enters R_m.
      r_B = 10/30 = 0.33, r_C = 0/29 = 0 -> C m0 (30-40).
    - t=40: r_B = 10/40 = 0.25 < r_C = 10/39 = 0.256 -> B m1 (40-50).
    - t=50: B's maps are done: R_r = {A, B} (room for k=2); C m1 (50-60).
    - t=60: A's reduce ends (its end event was scheduled first) and C's maps end:
      R_r = {B, C}. r_B = 20/60 = 0.333 < r_C = 20/59 = 0.339 -> B's reduce 60-90; C's 90-120.
    """
    jobs = [job("A", 2, 1, 10.0, 30.0), job("B", 2, 1, 10.0, 30.0), job("C", 2, 1, 10.0, 30.0, submit=1.0)]
    result = simulate(jobs, ONE_NODE_1_1, Fresh(k=2, dynamic=False), options=EXACT)
    maps = [(t["job"], t["start"]) for t in result.tasks if t["kind"] == "map"]
    assert maps == [("A", 0.0), ("B", 10.0), ("A", 20.0), ("C", 30.0), ("B", 40.0), ("C", 50.0)]
    reduces = [(t["job"], t["start"], t["end"]) for t in result.tasks if t["kind"] == "reduce"]
    assert reduces == [("A", 30.0, 60.0), ("B", 60.0, 90.0), ("C", 90.0, 120.0)]
    assert result.makespan == 120.0


def test_at_most_k_jobs_per_phase():
    """At no time do more than k jobs run maps, or more than k run reduces (a job is in its
    map phase from its first map's start to its last map's end)."""
    jobs = [job(f"j{i}", 6, 3, 2.0 + i % 3, 3.0, submit=float(i)) for i in range(9)]
    for k in (1, 2, 3):
        result = simulate(jobs, Cluster(nodes=3, map_slots=2, reduce_slots=2, heartbeat=0), Fresh(k=k), options=EXACT)
        for kind in ("map", "reduce"):
            spans = {}
            for t in result.tasks:
                if t["kind"] == kind:
                    lo, hi = spans.get(t["job"], (math.inf, -math.inf))
                    spans[t["job"]] = (min(lo, t["start"]), max(hi, t["end"]))
            for moment in sorted({lo for lo, _ in spans.values()}):
                inside = sum(1 for lo, hi in spans.values() if lo <= moment < hi)
                assert inside <= k, (k, kind, moment)


# -- slot typing ------------------------------------------------------------------------------------
def test_freed_containers_follow_theta_with_learned_means():
    """4 containers, k = 5. A: 4 maps x 1 s, 12 reduces x 4 s (submit 0). B: 12 maps x 4 s,
    no reduces (submit 0.5).

    - t=0: A alone, no reduce work in R_r: theta = inf, A's 4 maps (0-1).
    - t=1: A is in R_r. B has no completed map, so its mean map time is the mean of
      the other jobs' completed maps: A's, 1 s (not its declared 4 s). W_m = 12 x 1,
      W_r = 12 x 4 (declared: no reduce has completed) -> theta = 0.25, target maps =
      4 x 0.25 / 1.25 = 0.8: one map (0 running < 0.8), then three reduces.
      (With B's declared 4 s, theta would be 1 and the split 2 + 2.)
    - t=5: B's map and the three reduces end. Now B's own mean is 4 s and A's reduce
      mean 4 s: W_m = 11 x 4 = 44, W_r = 9 x 4 = 36, target = 4 x 44/80 = 2.2:
      three maps (0, 1, 2 < 2.2) and one reduce.
    """
    jobs = [job("A", 4, 12, 1.0, 4.0), job("B", 12, 0, 4.0, 0.0, submit=0.5)]
    spy = Spy()
    result = simulate(jobs, ONE_NODE_2_2, spy, options=EXACT)
    got = starts(result)
    assert got[(0.0, "map")] == 4
    assert (got[(1.0, "map")], got[(1.0, "reduce")]) == (1, 3)
    assert (got[(5.0, "map")], got[(5.0, "reduce")]) == (3, 1)
    at_one = next(target for now, target, _ in spy.seen if now == 1.0)
    assert at_one.work_map == pytest.approx(12.0) and at_one.work_reduce == pytest.approx(48.0)
    assert at_one.theta_cur == pytest.approx(0.25) and at_one.target_maps == pytest.approx(0.8)
    at_five = next(target for now, target, _ in spy.seen if now == 5.0)
    assert at_five.theta == pytest.approx(44 / 36) and at_five.target_maps == pytest.approx(2.2)


def test_lookahead_switches_to_theta_exp():
    """4 containers, k = 1. X: 4 maps x 1 s, 8 reduces x 8 s. J: 10 maps x 1 s, no reduces.
    N: 40 maps x 1 s, no reduces. All submitted at 0.

    - t=0: R_m = {X}: X's 4 maps (0-1).
    - t=1: X enters R_r, J enters R_m. W_m = 10 x 1 (other jobs' mean), W_r = 8 x 8:
      target 4 x 10/74 = 0.54: one J map, three X reduces (1-9).
    - t=2..8: one container frees each second; the target stays below 1: one J map each.
    - t=9: J has completed 8 of 10 maps (>= tau1 = 0.8) and X 3 reduces (mean 8 s).
      theta_cur = W_m / W_r = (2 x 1) / (5 x 8) = 0.05 (target 4 x 2/42 = 0.19).
      Look-ahead: after J's maps, N enters R_m: W_m' = 2 - 2 + 40 x 1 = 40,
      W_r' = 40 + 0 (J has no reduces) -> theta_exp = 1. |1 - 0.05| / 0.05 = 19 > tau2:
      switch, target 4 x 1/2 = 2; eta = round(2) - round(0.19) = 2 slots change type.
      The four free containers get J's last two maps and two X reduces (with tau2 = 100
      the look-ahead does not switch: one J map and three X reduces).
    - t=10: J's maps are done; J has no reduces, so it leaves and N enters R_m at once.
    """
    jobs = [job("X", 4, 8, 1.0, 8.0), job("J", 10, 0, 1.0, 0.0), job("N", 40, 0, 1.0, 0.0)]
    spy = Spy(k=1)
    result = simulate(jobs, ONE_NODE_2_2, spy, options=EXACT)
    at_nine = [(target, launched) for now, target, launched in spy.seen if now == 9.0]
    target = at_nine[0][0]
    assert target.lookahead == "J"
    assert target.theta_cur == pytest.approx(0.05)
    assert target.theta_exp == pytest.approx(1.0)
    assert target.switched and target.eta == 2
    assert target.target_maps == pytest.approx(2.0)
    assert [launched for _, launched in at_nine] == [("J", MAP), ("J", MAP), ("X", REDUCE), ("X", REDUCE)]
    assert result.job("N")["start"] == 10.0
    assert starts(result, "map")[9.0] == 2

    steady = simulate(jobs, ONE_NODE_2_2, Fresh(k=1, tau2=100.0), options=EXACT)
    assert starts(steady, "map")[9.0] == 1 and starts(steady, "reduce")[9.0] == 3
    assert steady.job("N")["start"] == 11.0  # J's last map ran 10-11


def test_other_kind_rather_than_an_idle_container():
    """4 containers, k = 2. a: 1 map x 1 s, 4 reduces x 1 s. b: 5 maps x 10 s, no reduces.

    - t=0: theta = inf: a's map and three of b's maps (0-10).
    - t=1..3: one container frees each second; b's mean is still the other jobs' 1 s:
      W_m = 5, W_r = 4, 3, 2 -> targets 2.2, 2.5, 2.9 <= 3 running maps: a's reduces 0-2.
    - t=4: W_r = 1 -> target 4 x 5/6 = 3.3 > 3: b's fourth map (4-14); a's last reduce waits.
    - t=10: b's mean is now 10 s: W_m = 2 x 10, W_r = 1 -> target 3.8. Two containers
      are typed map: the first runs b's last map, the second finds no pending map and runs
      a's last reduce instead (10-11).
    """
    jobs = [job("a", 1, 4, 1.0, 1.0), job("b", 5, 0, 10.0, 0.0)]
    scheduler = Fresh(k=2)
    result = simulate(jobs, ONE_NODE_2_2, scheduler, options=EXACT)
    reduces = [t["start"] for t in result.tasks if t["kind"] == "reduce"]
    assert reduces == [1.0, 2.0, 3.0, 10.0]
    assert [t["start"] for t in result.tasks if t["kind"] == "map" and t["job"] == "b"] == [0.0] * 3 + [4.0, 10.0]
    assert scheduler.counts["other_kind"] == 1
    assert (result.job("a")["finish"], result.job("b")["finish"]) == (11.0, 20.0)


def test_shares_are_eq1_with_running_attempts():
    """r_i seen at every decision equals the slot-seconds the job's attempts had received by
    then (running ones up to now) over the time since its submission; at the submit instant,
    the number of slots the job holds (the limit of that ratio)."""
    jobs = [job("a", 7, 3, 3.0, 5.0), job("b", 4, 6, 7.0, 2.0, submit=2.0), job("c", 9, 2, 2.0, 4.0, submit=3.5)]
    spy = Spy(k=2)
    result = simulate(jobs, Cluster(nodes=1, map_slots=2, reduce_slots=1, heartbeat=0), spy, options=EXACT)
    submit = {j.name: j.submit for j in jobs}
    checked = 0
    for position, (now, shares) in enumerate(spy.shares):
        for name, share in shares.items():
            if now > submit[name]:
                mine = [t for t in result.tasks if t["job"] == name and t["start"] < now]
                expected = sum(min(t["end"], now) - t["start"] for t in mine) / (now - submit[name])
            else:  # the limit at the submit instant: the slots it took in this instant so far
                expected = sum(1 for t, _, got in spy.seen[:position] if t == now and got and got[0] == name)
            assert share == pytest.approx(expected, abs=1e-9), (now, name)
            checked += 1
    assert checked > 20


def test_jobs_submitted_together_share_the_first_slots():
    """At the submit instant r_i = 0/0; Fresh takes its limit, the slots the job holds. Two
    jobs of 4 maps x 2 s submitted at 0 on 4 containers: A (0 held), B (0, after A by name),
    A (1 held, tie with B at 1, A by name), B: two maps each at t=0, all done at 2. At t=2
    r_A = r_B = 4/2 and a map launched now adds nothing yet (Eq. 1 counts elapsed time), so
    A takes two (ties go to A by name), then B two."""
    jobs = [job("A", 4, 0, 2.0, 0.0), job("B", 4, 0, 2.0, 0.0)]
    spy = Spy()
    simulate(jobs, ONE_NODE_2_2, spy, options=EXACT)
    assert [got[0] for now, _, got in spy.seen if now == 0.0] == ["A", "B", "A", "B"]
    assert [got[0] for now, _, got in spy.seen if now == 2.0] == ["A", "A", "B", "B"]


# -- whole runs ---------------------------------------------------------------------------------------
def test_deterministic_and_every_job_finishes():
    jobs = [job(f"j{i}", 5 + i, i % 3, 2.0 + i, 3.0, submit=i * 1.5) for i in range(7)]
    cluster = Cluster(nodes=4, racks=2, map_slots=2, reduce_slots=1, heartbeat=1.0)
    options = SimOptions(task_time_cv=0.4)
    for scheduler, slots in ((lambda: Fresh(k=2), None), (lambda: Fresh(k=3, dynamic=False), (5, 3))):
        first = simulate(jobs, cluster, scheduler(), seed=3, slots=slots, options=options)
        again = simulate(jobs, cluster, scheduler(), seed=3, slots=slots, options=options)
        assert first.to_json() == again.to_json()
        check_invariants(first, jobs)


@st.composite
def fresh_runs(draw):
    dynamic = draw(st.booleans())
    scheduler = Fresh(
        k=draw(st.integers(1, 4)),
        tau1=draw(st.sampled_from([0.0, 0.5, 0.8, 1.0])),
        tau2=draw(st.sampled_from([0.0, 0.6, 5.0])),
        dynamic=dynamic,
        algorithm3=draw(st.sampled_from(["ours", "literal"])),
        delay=draw(st.one_of(st.none(), st.tuples(st.sampled_from([0.0, 1.0, 5.0]), st.sampled_from([0.0, 2.0])))),
    )
    options = SimOptions(
        reduce_slowstart=draw(st.sampled_from([1.0, 0.5, 0.0])),
        task_time_cv=draw(st.sampled_from([0.0, 0.0, 0.5])),
        containers=dynamic,
        assign_multiple=draw(st.booleans()),
    )
    slots = draw(st.one_of(st.none(), st.tuples(st.integers(2, 6), st.integers(2, 4))))
    return scheduler, options, slots


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs=workloads(), cluster=clusters(), setup=fresh_runs(), seed=st.integers(0, 3))
def test_invariants_hold(jobs, cluster, setup, seed):
    """Random small runs (the strategies of test_simulator_properties; FRESH-static on typed
    slots, dynamic FRESH on containers): no slot double-booked, every task done once,
    reduces after their job's last map, records consistent, every job finishes."""
    scheduler, options, slots = setup
    cluster = fitted(cluster, slots)
    result = run(jobs, cluster, scheduler, seed=seed, slots=slots, options=options)
    check_invariants(result, jobs)
    assert result.scheduler["name"] == "fresh"


# -- the paper's comparison (Figures 3-4) ------------------------------------------------------------
def test_reproduces_fresh_against_static_fair_configurations():
    """FRESH Figures 3-4 in shape: 10 nodes x 4 slots (40), k = 5, heartbeat 0.

    Work: maps 5 x (2,400 + 800) = 16,000 slot-s, reduces 5 x (200 + 2,400) = 13,000.
    Lower bounds (work / slots of its kind; non-local maps only add to them):
    Fair 1:3 (10 map slots) >= 16,000/10 = 1,600 s; 3:1 (10 reduce slots) >= 13,000/10
    = 1,300 s; 2:2 >= 16,000/20 = 800 s; any run on 40 slots >= 29,000/40 = 725 s.
    FRESH's containers never idle while an admitted job has work of either kind, so it
    should land near 725 s: below 800 s, hence below all three static configurations.
    Measured: FRESH 746 s (fairness 0.977); Fair 1:3 1,796 s, 2:2 1,072 s, 3:1 1,600 s.
    """
    jobs = set_a_batch(10)
    cluster = Cluster(nodes=10, map_slots=2, reduce_slots=2, heartbeat=0)
    fresh = simulate(jobs, cluster, Fresh(k=5))
    assert fresh.slots == 40 and fresh.cluster["containers_total"] == 40
    assert 725.0 <= fresh.makespan < 800.0
    assert fresh.fairness >= 0.9
    for slots, bound in (((10, 30), 1600.0), ((20, 20), 800.0), ((30, 10), 1300.0)):
        fair = simulate(jobs, cluster, "fair", slots=slots)
        assert fair.makespan >= bound
        assert fresh.makespan < fair.makespan, slots
    static = simulate(jobs, cluster, Fresh(k=5, dynamic=False), slots=(20, 20))
    assert static.makespan >= 800.0 > fresh.makespan


def test_reproduction_holds_with_heartbeats_and_seeds():
    """The same comparison with a 3 s heartbeat and other block placements."""
    jobs = set_a_batch(10)
    cluster = Cluster(nodes=10, map_slots=2, reduce_slots=2, heartbeat=3.0)
    for seed in (1, 2):
        fresh = simulate(jobs, cluster, Fresh(k=5), seed=seed)
        best_fair = min(
            simulate(jobs, cluster, "fair", slots=s, seed=seed).makespan for s in ((10, 30), (20, 20), (30, 10))
        )
        assert fresh.makespan < best_fair
        assert fresh.fairness >= 0.9


# -- settings files and the command line ----------------------------------------------------------------
def test_scheduler_from_settings():
    scheduler = scheduler_from_dict("fresh", {"k": 3, "tau1": 0.5, "tau2": 0.2, "dynamic": False, "delay": [5, 5],
                                              "algorithm3": "literal"})
    assert isinstance(scheduler, Fresh)
    assert (scheduler.k, scheduler.tau1, scheduler.tau2, scheduler.dynamic) == (3, 0.5, 0.2, False)
    assert scheduler.algorithm3 == "literal"
    with pytest.raises(InvalidInput) as error:
        scheduler_from_dict("fresh", {"algorithm3": "as-written"})
    assert error.value.field == "algorithm3" and "literal" in str(error.value)
    with pytest.raises(InvalidInput) as error:
        scheduler_from_dict("fresh", {"k": 0})
    assert error.value.field == "k"
    with pytest.raises(InvalidInput) as error:
        scheduler_from_dict("fresh", {"tau3": 1})
    assert error.value.field == "tau3"


def test_cli_simulate_fresh(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["simulate", NIGHTLY, "--cluster", CLUSTER, "--scheduler", "fresh", "--json"])
    assert result.exit_code == 0, result.output
    assert '"scheduler": "fresh"' in result.stdout
    config = tmp_path / "fresh.yaml"
    config.write_text("scheduler: fresh\nk: 2\ndynamic: false\n")
    out = tmp_path / "run.json"
    result = runner.invoke(
        app, ["simulate", NIGHTLY, "--cluster", CLUSTER, "--config", str(config), "--slots", "20,10", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert '"dynamic": false' in out.read_text()
    config.write_text("scheduler: fresh\nk: 0\n")
    result = runner.invoke(app, ["simulate", NIGHTLY, "--cluster", CLUSTER, "--config", str(config)])
    assert result.exit_code == 2
    assert "k: must be >= 1" in result.output
