"""VM-level execution of pair and phase schedules (`planner.simulator.simulate_vms`).

The simulator re-implements the packing model's capacity rule (it never imports
`solvers`); these tests hold it to `solvers.packing.problem.evaluate_phases`: without
noise a barrier run's makespan is the packing objective to the last bit, and
backfill never makes the makespan longer (checked with hypothesis, with and
without noise).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models import Cluster, ExtrapolationWarning, InvalidInput, InvalidPlan, Job, PlannerError, PowerLawProfile
from planner.examples.workloads import packing_workload as workload
from planner.examples.workloads import paper_cluster, random_batch
from planner.planning.vm import packing_phases, pair_phases
from planner.simulator import VmResult, check_vm_groups, simulate_vms
from solvers import evaluate_phases, pack_phases, schedule_pairs

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VMS_MODULE = Path(__file__).resolve().parents[1] / "planner" / "simulator" / "vms.py"


def job(name: str, a: float, b: float = -1.0, intensity: str = "balanced") -> Job:
    return Job(name, intensity=intensity, profile=PowerLawProfile.from_coefficients(a, b))


def as_indices(groups, jobs) -> list[list[tuple[int, int, str]]]:
    """Name-based phases in the index form `evaluate_phases` takes."""
    index = {j.name: i for i, j in enumerate(jobs)}
    return [[(index[name], vms, role) for name, vms, role in phase] for phase in groups]


def packed(jobs, cluster, method="greedy"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        schedule = pack_phases(jobs, cluster, method, time_limit=1.0, seed=1)
    return schedule, [list(phase) for phase in packing_phases(schedule, jobs)]


# A small plan worked by hand (see test_hand_worked_plan).
HAND_CLUSTER = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.5)
HAND_JOBS = [
    job("A", 120.0, intensity="io"),
    job("B", 60.0, intensity="cpu"),
    job("C", 80.0),
    job("D", 30.0),
    job("E", 20.0),
]
HAND_GROUPS = [
    [("A", 4, "host"), ("B", 2, "extra")],
    [("C", 2, "primary"), ("D", 2, "primary")],
    [("E", 2, "primary")],
]


def test_hand_worked_plan():
    """N = 2 nodes * 2 disks = 4 primary VMs, r = 2 so E = 2 extra VMs, alpha = 1.5; every
    profile is F(n) = a / n (b = -1), so all the numbers below are exact in binary.

    - phase 0: A (io) hosts on 4 VMs: 1.5 * 120 / 4 = 45 s; B (cpu) rides on 2 extra VMs
      (r * 2 = 4 <= 4 host VMs): 1.5 * 60 / 2 = 45 s. Length 45.
    - phase 1: C on 2 VMs: 80 / 2 = 40 s; D on 2 VMs: 30 / 2 = 15 s (2 + 2 = 4 = N). Length 40.
    - phase 2: E on 2 VMs: 20 / 2 = 10 s. Length 10.

    Barriers: phases start at 0, 45 and 85; makespan 45 + 40 + 10 = 95 s, the packing objective.
    Backfill: the gang {A, B} starts at 0 and holds all 4 primary VMs until 45; C and D start at
    45 (C until 85, D until 60); E needs 2 primary VMs, free when D ends at 60, so it runs 60-70.
    Makespan 85 s (C is the last to finish), 10 s less.
    """
    barrier = simulate_vms(HAND_JOBS, HAND_CLUSTER, HAND_GROUPS)
    assert barrier.makespan == 95.0
    assert barrier.makespan == evaluate_phases(as_indices(HAND_GROUPS, HAND_JOBS), HAND_JOBS, HAND_CLUSTER)
    assert [(r["name"], r["start"], r["finish"]) for r in barrier.jobs] == [
        ("A", 0.0, 45.0), ("B", 0.0, 45.0), ("C", 45.0, 85.0), ("D", 45.0, 60.0), ("E", 85.0, 95.0)]
    assert [(p["start"], p["end"], p["vms_used"], p["extra_vms_used"]) for p in barrier.phases] == [
        (0.0, 45.0, 4, 2), (45.0, 85.0, 4, 0), (85.0, 95.0, 2, 0)]
    assert barrier.job("A")["planned"] == 45.0 and barrier.job("E")["runtime"] == 10.0

    backfill = simulate_vms(HAND_JOBS, HAND_CLUSTER, HAND_GROUPS, backfill=True)
    assert backfill.makespan == 85.0
    assert [(r["name"], r["start"], r["finish"]) for r in backfill.jobs] == [
        ("A", 0.0, 45.0), ("B", 0.0, 45.0), ("C", 45.0, 85.0), ("D", 45.0, 60.0), ("E", 60.0, 70.0)]
    assert backfill.job("E")["vm_ids"] == backfill.job("D")["vm_ids"]  # D's VMs, freed at 60
    assert backfill.job("B")["vm_ids"] == [0, 1]  # the two extra VMs
    assert backfill.phases[2] == {"phase": 2, "start": 60.0, "end": 70.0, "vms_used": 2, "extra_vms_used": 0}
    assert backfill.summary()["mode"] == "backfill" and barrier.summary()["makespan"] == 95.0


def with_after(jobs, **after) -> list[Job]:
    """``jobs`` with the dependencies given by name: ``D=["A"]``, or ``D=[{"job": "A", "delay": 5}]``."""
    return [j.with_changes(after=after.get(j.name, ())) for j in jobs]


def test_dependencies_in_the_hand_worked_plan():
    """The hand-worked plan with D after C plus 5 s and E submitted at 100 after A.

    Barriers: phase 1 takes its VMs at 45; C runs 45-85; D is ready at 85 + 5 = 90 and runs on its
    VMs 90-105 (held by C); phase 2 starts at 105 and E (ready at max(100, A's 45) = 100, its own
    submit) runs 105-115. Backfill: C 45-85, D 90-105 as above; E's gang needs 2 primary VMs: free
    at 85 (C's), so it takes them then and runs from its submit, 100-110. Makespan 110 (D ends at
    105, E at 110)."""
    jobs = with_after(HAND_JOBS, D=[{"job": "C", "delay": 5}], E=["A"])
    jobs = [j.with_changes(submit=100.0) if j.name == "E" else j for j in jobs]
    barrier = simulate_vms(jobs, HAND_CLUSTER, HAND_GROUPS)
    assert [(r["name"], r["ready"], r["held_by"], r["start"], r["finish"]) for r in barrier.jobs] == [
        ("A", 0.0, None, 0.0, 45.0), ("B", 0.0, None, 0.0, 45.0), ("C", 0.0, None, 45.0, 85.0),
        ("D", 90.0, "C", 90.0, 105.0), ("E", 100.0, None, 105.0, 115.0)]
    assert barrier.makespan == 115.0 and barrier.phases[1]["end"] == 105.0
    backfill = simulate_vms(jobs, HAND_CLUSTER, HAND_GROUPS, backfill=True)
    assert [(r["name"], r["start"], r["finish"]) for r in backfill.jobs][2:] == [
        ("C", 45.0, 85.0), ("D", 90.0, 105.0), ("E", 100.0, 110.0)]
    assert backfill.job("E")["vm_ids"] == backfill.job("C")["vm_ids"] and backfill.makespan == 110.0


def test_a_predecessor_in_a_later_phase_is_refused():
    jobs = with_after(HAND_JOBS, C=["E"])
    with pytest.raises(InvalidPlan, match=r"^phase 1, job 'C': waits for 'E', which runs in the later phase 2$"):
        simulate_vms(jobs, HAND_CLUSTER, HAND_GROUPS)
    with pytest.raises(InvalidPlan, match="later phase 2"):
        check_vm_groups(jobs, HAND_CLUSTER, HAND_GROUPS)


def test_backfill_puts_a_gang_after_its_predecessors_in_the_phase():
    """Phase 1 lists C then D, and C waits for D: barriers run D 45-60 and C 60-100; backfill's
    gangs go D, then C (a gang after the one holding its predecessor), with the same times, and E
    (phase 2) takes D's VMs at 60: 60-70. Makespan 100 both ways."""
    jobs = with_after(HAND_JOBS, C=["D"])
    barrier = simulate_vms(jobs, HAND_CLUSTER, HAND_GROUPS)
    backfill = simulate_vms(jobs, HAND_CLUSTER, HAND_GROUPS, backfill=True)
    assert [(r["name"], r["start"], r["finish"]) for r in barrier.jobs][2:] == [
        ("C", 60.0, 100.0), ("D", 45.0, 60.0), ("E", 100.0, 110.0)]
    assert [(r["name"], r["start"], r["finish"]) for r in backfill.jobs][2:] == [
        ("C", 60.0, 100.0), ("D", 45.0, 60.0), ("E", 60.0, 70.0)]
    assert (barrier.makespan, backfill.makespan) == (110.0, 100.0)


def test_backfill_refuses_an_overcommitted_gang_split_by_a_dependency():
    """Phase 0 holds a host A (1.5 x 60 / 2 = 45 s), a primary P after A (20 / 2 = 10 s) and an
    extra B after P (1.5 x 60 / 1 = 90 s). Barriers run A 0-45, P 45-55, B 55-145, each on VMs held
    from 0. With backfill A and B form one gang, which would have to start both before P (for A) and
    after it (for B): refused."""
    cluster = HAND_CLUSTER
    jobs = [job("A", 60.0, intensity="io"), job("P", 20.0), job("B", 60.0, intensity="cpu")]
    jobs = with_after(jobs, P=["A"], B=["P"])
    groups = [[("A", 2, "host"), ("P", 2, "primary"), ("B", 1, "extra")]]
    barrier = simulate_vms(jobs, cluster, groups)
    assert [(r["name"], r["start"], r["finish"]) for r in barrier.jobs] == [
        ("A", 0.0, 45.0), ("P", 45.0, 55.0), ("B", 55.0, 145.0)]
    with pytest.raises(InvalidPlan, match=r"^phase 0: with backfill the host and extra jobs start together \(A, B\)"):
        simulate_vms(jobs, cluster, groups, backfill=True)


@pytest.mark.parametrize(
    ("mix", "cluster"),
    [
        ("W1", paper_cluster(2)),
        ("W3", paper_cluster(2)),
        ("W4", paper_cluster(5)),
        ("W6", paper_cluster(10)),
        ("W1", Cluster(nodes=5, disks=2, primaries_per_extra=1, overcommit_penalty=1.1)),
        ("W2", Cluster(nodes=5, disks=2, primaries_per_extra=1, overcommit_penalty=1.3)),
        ("W6", Cluster(nodes=5, disks=2, primaries_per_extra=1, overcommit_penalty=1.1)),
    ],
)
def test_barrier_run_reproduces_packing_objective(mix, cluster):
    """Greedy packings of the Packing paper's workload mixes (power-law profiles); the r = 1
    clusters make the greedy overcommit, so host and extra roles are exercised too."""
    jobs = workload(mix)
    schedule, groups = packed(jobs, cluster)
    result = simulate_vms(jobs, cluster, groups)
    assert result.makespan == schedule.objective
    assert result.makespan == evaluate_phases(schedule, jobs, cluster)
    assert result.makespan == evaluate_phases(as_indices(groups, jobs), jobs, cluster)
    assert simulate_vms(jobs, cluster, groups, backfill=True).makespan <= result.makespan


def test_pso_packing_with_several_hosts_and_extras():
    """A particle-swarm packing (several hosts and extras per phase) is reproduced too, and under
    backfill each phase's hosts and extras start together as one gang."""
    jobs = workload("W1")
    cluster = Cluster(nodes=5, disks=2, primaries_per_extra=1, overcommit_penalty=1.1)
    schedule, groups = packed(jobs, cluster, "pso")
    assert simulate_vms(jobs, cluster, groups).makespan == schedule.objective
    backfill = simulate_vms(jobs, cluster, groups, backfill=True, noise=0.3, seed=2)
    for p in range(len(groups)):
        assert len({r["start"] for r in backfill.jobs if r["phase"] == p and r["role"] != "primary"}) <= 1


def test_packings_with_host_and_extra_roles_are_exercised():
    jobs = workload("W6")
    cluster = Cluster(nodes=5, disks=2, primaries_per_extra=1, overcommit_penalty=1.1)
    _, groups = packed(jobs, cluster)
    roles = {role for phase in groups for _, _, role in phase}
    assert roles == {"primary", "host", "extra"}


def test_random_batches_reproduce_packing_objective():
    for seed in range(4):
        jobs = random_batch(9, seed=seed)
        for cluster in (paper_cluster(3), Cluster(nodes=4, disks=2, primaries_per_extra=1, overcommit_penalty=1.2)):
            schedule, groups = packed(jobs, cluster)
            assert simulate_vms(jobs, cluster, groups).makespan == schedule.objective


def test_pair_schedules_are_phases_of_at_most_two_jobs():
    """`schedule_pairs` output, converted to phases by `planner.planning.vm.pair_phases`: concurrent
    pairs are one phase of two primaries, overcommitted pairs a host beside an extra, sequential
    or lone jobs one phase each on N VMs. The barrier run's makespan is the pair objective (up to
    the order of float additions: a sequential pair is one summand there, two phases here) and
    exactly `evaluate_phases` of the converted phases."""
    seen_modes = set()
    for mix, cluster in [("W1", Cluster(nodes=5, disks=2, primaries_per_extra=2, overcommit_penalty=1.05)),
                         ("W2", paper_cluster(2)), ("W4", paper_cluster(5))]:
        jobs = workload(mix)
        pairs = schedule_pairs(jobs, cluster, "matching")
        seen_modes |= {g.mode for g in pairs.groups}
        groups = [list(phase) for phase in pair_phases(pairs, jobs, cluster)]
        assert all(len(phase) <= 2 for phase in groups)
        result = simulate_vms(jobs, cluster, groups)
        assert result.makespan == pytest.approx(pairs.objective, rel=1e-12)
        assert result.makespan == evaluate_phases(as_indices(groups, jobs), jobs, cluster)
        assert simulate_vms(jobs, cluster, groups, backfill=True).makespan <= result.makespan
    assert {"concurrent", "overcommit", "sequential", "alone"} <= seen_modes


def test_overcommitted_pair_runs_on_extra_vms():
    jobs = [job("io", 900.0, -0.6, "io"), job("cpu", 1600.0, -0.9, "cpu")]
    cluster = Cluster(nodes=5, disks=2, primaries_per_extra=2, overcommit_penalty=1.05)
    groups = [[("io", 10, "host"), ("cpu", 5, "extra")]]
    result = simulate_vms(jobs, cluster, groups)
    expected = 1.05 * max(900.0 * 10**-0.6, 1600.0 * 5**-0.9)
    assert result.makespan == pytest.approx(expected, rel=1e-14)
    assert result.job("cpu")["vm_ids"] == [0, 1, 2, 3, 4] and result.extra_vms == 5


# ---------------------------------------------------------------- random instances


@st.composite
def instances(draw):
    """A cluster, profiled jobs and a valid plan: jobs are dealt into phases in a random order;
    each takes a role its intensity allows and joins a phase with room for it (an extra whenever
    one has host room) on a VM count that fits, or opens a new phase (as a primary if it drew
    the extra role)."""
    cluster = Cluster(nodes=draw(st.integers(1, 4)), disks=draw(st.integers(1, 3)),
                      primaries_per_extra=draw(st.integers(1, 3)),
                      overcommit_penalty=draw(st.floats(1.0, 2.0)))
    n, r = cluster.vms, cluster.primaries_per_extra
    count = draw(st.integers(1, 9))
    jobs = [Job(f"j{i}", intensity=draw(st.sampled_from(["cpu", "io", "balanced"])),
                profile=PowerLawProfile.from_coefficients(draw(st.floats(10.0, 1000.0)), draw(st.floats(-1.2, 0.0))))
            for i in range(count)]
    phases: list[list[tuple[str, int, str]]] = []
    for i in draw(st.permutations(range(count))):
        j = jobs[i]
        # overcommitted roles twice as likely as primary, so hosts with extras come up often
        roles = ["primary"] + (["host"] * 2 if j.intensity == "io" else []) + (["extra"] * 2 if j.intensity == "cpu" else [])
        role = draw(st.sampled_from(roles))
        rooms = [room(phase, role, n, r) for phase in phases]
        open_phases = [p for p, free in enumerate(rooms) if free >= 1]
        if open_phases and (role == "extra" or draw(st.booleans())):
            p = draw(st.sampled_from(open_phases))
            phases[p].append((j.name, draw(st.integers(1, rooms[p])), role))
        else:  # a new phase; an extra cannot open one (it needs hosts)
            phases.append([(j.name, draw(st.integers(1, n)), "primary" if role == "extra" else role)])
    return jobs, cluster, phases


def room(phase, role: str, n: int, r: int) -> int:
    """How many VMs a job in ``role`` can still get in ``phase``."""
    if role == "extra":
        return sum(v for _, v, rl in phase if rl == "host") // r - sum(v for _, v, rl in phase if rl == "extra")
    return n - sum(v for _, v, rl in phase if rl != "extra")


def check_run(result: VmResult, cluster: Cluster) -> None:
    """VM ids are within their pools and no two jobs hold one VM at once."""
    for a in result.jobs:
        pool = cluster.extra_vms if a["role"] == "extra" else cluster.vms
        assert len(a["vm_ids"]) == a["vms"] and all(0 <= v < pool for v in a["vm_ids"])
        for b in result.jobs:
            if a is not b and (a["role"] == "extra") == (b["role"] == "extra") and a["start"] < b["finish"] \
                    and b["start"] < a["finish"]:
                assert not set(a["vm_ids"]) & set(b["vm_ids"]), (a, b)


@FAST
@given(instances())
def test_barrier_matches_evaluate_phases_on_random_plans(case):
    jobs, cluster, groups = case
    result = simulate_vms(jobs, cluster, groups)
    assert result.makespan == evaluate_phases(as_indices(groups, jobs), jobs, cluster)
    check_run(result, cluster)


@FAST
@given(instances(), st.sampled_from([0.0, 0.1, 0.5, 1.0]), st.integers(0, 2**32 - 1))
def test_backfill_never_longer(case, noise, seed):
    """Same seed, same noise draws: every job starts no later under backfill than under
    barriers (the docstring's claim), so the makespan is never longer."""
    jobs, cluster, groups = case
    barrier = simulate_vms(jobs, cluster, groups, seed=seed, noise=noise)
    backfill = simulate_vms(jobs, cluster, groups, seed=seed, noise=noise, backfill=True)
    assert backfill.makespan <= barrier.makespan
    for before, after in zip(barrier.jobs, backfill.jobs, strict=True):
        assert before["name"] == after["name"] and before["runtime"] == after["runtime"]
        assert after["start"] <= before["start"]
    check_run(backfill, cluster)
    check_run(barrier, cluster)
    # barrier phases back to back: each starts at the previous one's end
    for previous, phase in zip(barrier.phases, barrier.phases[1:], strict=False):
        assert phase["start"] == previous["end"]


@FAST
@given(instances())
def test_backfill_respects_capacity_at_every_instant(case):
    """At each job start, the running primary and host VMs are at most N and the extra VMs at
    most floor(N / r)."""
    jobs, cluster, groups = case
    result = simulate_vms(jobs, cluster, groups, backfill=True, noise=0.3, seed=7)
    for record in result.jobs:
        t = record["start"]
        running = [r for r in result.jobs if r["start"] <= t < r["finish"]]
        assert sum(r["vms"] for r in running if r["role"] != "extra") <= cluster.vms
        assert sum(r["vms"] for r in running if r["role"] == "extra") <= cluster.extra_vms


def test_backfill_is_in_order_and_gangs_overcommitted_jobs():
    """Gangs start in plan order (never overtaking); a phase's host and extras start together."""
    jobs = workload("W6")
    cluster = Cluster(nodes=5, disks=2, primaries_per_extra=1, overcommit_penalty=1.1)
    _, groups = packed(jobs, cluster)
    result = simulate_vms(jobs, cluster, groups, backfill=True, noise=0.4, seed=3)
    starts = [r["start"] for r in result.jobs if r["role"] == "primary" or r["role"] == "host"]
    by_phase: dict[int, set[float]] = {}
    for r in result.jobs:
        if r["role"] != "primary":
            by_phase.setdefault(r["phase"], set()).add(r["start"])
    assert by_phase and all(len(s) == 1 for s in by_phase.values())
    assert starts == sorted(starts)


# ---------------------------------------------------------------- noise and determinism


def test_same_seed_same_bytes():
    jobs = workload("W4")
    cluster = paper_cluster(5)
    _, groups = packed(jobs, cluster)
    for backfill in (False, True):
        first = simulate_vms(jobs, cluster, groups, seed=11, noise=0.3, backfill=backfill).to_json()
        again = simulate_vms(jobs, cluster, groups, seed=11, noise=0.3, backfill=backfill).to_json()
        assert first == again
        assert json.loads(first)["summary"]["mode"] == ("backfill" if backfill else "barrier")
    assert simulate_vms(jobs, cluster, groups, seed=12, noise=0.3).to_json() != first


def test_noise_draws_follow_jobs_not_the_plan():
    """A job's noise factor depends on its position in ``jobs`` and the seed only: the same job
    gets the same factor whatever phase, VM count or mode the plan gives it."""
    jobs = [job(f"j{i}", 100.0 + i) for i in range(6)]
    cluster = Cluster(nodes=3, disks=2)
    one_phase = [[(j.name, 1, "primary") for j in jobs]]
    apart = [[(j.name, 6, "primary")] for j in reversed(jobs)]
    a = simulate_vms(jobs, cluster, one_phase, seed=5, noise=0.5)
    b = simulate_vms(jobs, cluster, apart, seed=5, noise=0.5, backfill=True)
    for j in jobs:
        ra, rb = a.job(j.name), b.job(j.name)
        assert ra["runtime"] / ra["planned"] == pytest.approx(rb["runtime"] / rb["planned"], rel=1e-12)
        assert ra["runtime"] != ra["planned"]


def test_noise_factors_have_mean_one_and_the_given_cv():
    """2000 jobs, CV 0.3: the sample mean of runtime / planned has standard error 0.3 / sqrt(2000)
    = 0.0067, so it lies within 0.03 (4.5 standard errors) of 1; the sample CV within 0.05 of 0.3."""
    jobs = [job(f"j{i}", 100.0) for i in range(2000)]
    cluster = Cluster(nodes=1, disks=1)
    groups = [[(j.name, 1, "primary")] for j in jobs]
    result = simulate_vms(jobs, cluster, groups, seed=1, noise=0.3)
    factors = np.array([r["runtime"] / r["planned"] for r in result.jobs])
    assert abs(factors.mean() - 1.0) < 0.03
    assert abs(factors.std() / factors.mean() - 0.3) < 0.05
    assert result.makespan == pytest.approx(sum(r["runtime"] for r in result.jobs), rel=1e-12)
    quiet = simulate_vms(jobs, cluster, groups, seed=1, noise=0.0)
    assert all(r["runtime"] == r["planned"] == 100.0 for r in quiet.jobs)


# ---------------------------------------------------------------- bad input


def bad_cases():
    """(groups, jobs, error class, text the message must contain)."""
    extra_jobs = [*HAND_JOBS, Job("P", map_tasks=1, map_time=5.0)]
    g = HAND_GROUPS
    return [
        ([*g[:2], [("E", 2, "primary"), ("Z", 1, "primary")]], HAND_JOBS, InvalidPlan,
         "phase 2, job 'Z': not one of the 5 jobs"),
        ([*g, [("C", 1, "primary")]], HAND_JOBS, InvalidPlan, "phase 3, job 'C': already runs in phase 1"),
        (g[:2], HAND_JOBS, InvalidPlan, "job 'E': runs in no phase"),
        ([*g[:2], [("E", 0, "primary")]], HAND_JOBS, InvalidInput, "groups[2][0].vms: phase 2, job 'E': must be >= 1"),
        ([*g[:2], [("E", 1.5, "primary")]], HAND_JOBS, InvalidInput, "phase 2, job 'E': must be an integer"),
        ([*g[:2], [("E", 2, "boss")]], HAND_JOBS, InvalidInput,
         "groups[2][0].role: phase 2, job 'E': must be one of primary, host, extra; got 'boss'"),
        ([g[0], [("C", 3, "primary"), ("D", 2, "primary")], g[2]], HAND_JOBS, InvalidPlan,
         "phase 1: primary and host jobs use 5 VMs, more than N = 4"),
        ([[("A", 2, "host"), ("B", 2, "extra")], *g[1:]], HAND_JOBS, InvalidPlan,
         "phase 0: r * extra VMs = 2 * 2 exceeds the host VMs (2)"),
        ([*g[:2], [("E", 5, "primary")]], HAND_JOBS, InvalidPlan, "phase 2, job 'E': 5 VMs, more than the N = 4"),
        ([[("A", 4, "host"), ("B", 2, "extra")], [("C", 2, "host"), ("D", 2, "primary")], g[2]], HAND_JOBS,
         InvalidPlan, "phase 1, job 'C': only io jobs may host extra VMs"),
        ([[("A", 4, "host"), ("B", 2, "extra")], [("C", 2, "primary"), ("D", 2, "extra")], g[2]], HAND_JOBS,
         InvalidPlan, "phase 1, job 'D': only cpu jobs may run on extra VMs"),
        ([*g, [("P", 1, "primary")]], extra_jobs, InvalidPlan, "phase 3, job 'P': has no runtime profile"),
        ([*g[:2], [], g[2]], HAND_JOBS, InvalidPlan, "phase 2: is empty"),
        ([*g[:2], [("E", 2)]], HAND_JOBS, InvalidInput, "groups[2][0]: phase 2: must be (job name, vms, role)"),
        ([*g[:2], "E"], HAND_JOBS, InvalidInput, "groups[2]: phase 2: must be a list of (job, vms, role)"),
        ([*g[:2], [(7, 2, "primary")]], HAND_JOBS, InvalidInput, "groups[2][0].job: phase 2: must be a job name"),
        ("phases", HAND_JOBS, InvalidInput, "groups: must be a list of phases"),
    ]


@pytest.mark.parametrize(("groups", "jobs", "error", "message"), bad_cases())
def test_bad_plans_are_named(groups, jobs, error, message):
    with pytest.raises(error) as caught:
        simulate_vms(jobs, HAND_CLUSTER, groups)
    assert message in str(caught.value)
    assert isinstance(caught.value, PlannerError)


def test_bad_plans_rejected_like_evaluate_phases():
    """Every rule-breaking plan above that `evaluate_phases` can express is rejected by it too."""
    for groups, jobs, error, _ in bad_cases():
        if error is not InvalidPlan or any(name not in {j.name for j in jobs} for p in groups for name, *_ in p):
            continue
        if any(j.profile is None for j in jobs):
            continue
        with pytest.raises(PlannerError):
            evaluate_phases(as_indices(groups, jobs), jobs, HAND_CLUSTER)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"noise": -0.1}, "noise: must be >= 0"),
        ({"noise": float("nan")}, "noise: must be a finite number"),
        ({"seed": -1}, "seed: must be >= 0"),
        ({"backfill": "yes"}, "backfill: must be true or false"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        simulate_vms(HAND_JOBS, HAND_CLUSTER, HAND_GROUPS, **kwargs)


def test_bad_jobs_and_cluster():
    with pytest.raises(InvalidInput, match="jobs: need at least one job"):
        simulate_vms([], HAND_CLUSTER, [])
    with pytest.raises(InvalidInput, match=r"jobs\[1\].name: 'A' appears twice"):
        simulate_vms([HAND_JOBS[0], HAND_JOBS[0]], HAND_CLUSTER, [[("A", 4, "primary")]])
    with pytest.raises(InvalidInput, match="cluster: must be a Cluster"):
        simulate_vms(HAND_JOBS, {"nodes": 2}, HAND_GROUPS)


def test_check_vm_groups_returns_the_phases():
    phases = check_vm_groups(HAND_JOBS, HAND_CLUSTER, HAND_GROUPS)
    assert [[(e.name, e.vms, e.role) for e in phase] for phase in phases] == HAND_GROUPS
    assert phases[1][0].job == 2 and phases[1][0].phase == 1


def test_groups_accept_lists_and_numpy_integers():
    groups = [[[name, np.int64(vms), role] for name, vms, role in phase] for phase in HAND_GROUPS]
    assert simulate_vms(HAND_JOBS, HAND_CLUSTER, groups).makespan == 95.0


# ---------------------------------------------------------------- layering, output


def test_vm_simulator_never_imports_solvers():
    tree = ast.parse(VMS_MODULE.read_text())
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    # planner.plots, which draws its Gantt chart, is shared by every room (tests/test_layout.py)
    assert not [name for name in imported if name.split(".")[0] in {"solvers", "planner"} and
                not name.startswith("planner.simulator") and name != "planner.plots"], imported


def test_importing_the_simulator_loads_no_solver_module():
    code = "import sys, planner.simulator; print(sorted(m for m in sys.modules if m.split('.')[0] == 'solvers'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=VMS_MODULE.parents[2])
    assert out.stdout.strip() == "[]"


def test_to_json_is_flat_records():
    data = json.loads(simulate_vms(HAND_JOBS, HAND_CLUSTER, HAND_GROUPS, backfill=True).to_json())
    assert set(data["jobs"][0]) == {"name", "phase", "vms", "role", "submit", "ready", "held_by", "start", "finish", "runtime",
                                   "planned", "vm_ids"}
    assert set(data["phases"][0]) == {"phase", "start", "end", "vms_used", "extra_vms_used"}
    assert data["summary"]["makespan"] == 85.0 and data["vms"] == 4 and data["extra_vms"] == 2
    assert data["cluster"]["nodes"] == 2


def test_plot_gantt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    result = simulate_vms(HAND_JOBS, HAND_CLUSTER, HAND_GROUPS, backfill=True)
    ax = result.plot_gantt()
    assert isinstance(ax, Axes)
    assert ax.get_xlabel() == "time (s)" and "VM" in ax.get_ylabel()
    assert "makespan 85.0 s" in ax.get_title()
    assert len(ax.get_legend().get_texts()) == 5
    # one bar per VM a job holds: 4 + 2 + 2 + 2 + 2
    assert sum(len(c.get_paths()) for c in ax.collections) == 12
    plt.close(ax.figure)
    _, given_ax = plt.subplots()
    assert simulate_vms(HAND_JOBS, HAND_CLUSTER, HAND_GROUPS).plot_gantt(ax=given_ax) is given_ax
    plt.close(given_ax.figure)
