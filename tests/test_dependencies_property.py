"""Dependencies (`Job.after`) in every simulation: random seeded DAG batches under every registered
scheduler and option, and VM-level plans in both modes.

Every task-level run (any scheduler, heartbeat or not, delay scheduling, containers, copy-compute
splitting, slow-start, task-time noise, replayed task times, the network model, preemption, Natjam's
policies and deadlines, slot overrides) must satisfy, besides the invariants of
tests/test_simulator_properties.py:

- a job's record gives ``ready`` = max(its submit, each predecessor's finish plus the delay), and
  ``held_by`` a predecessor whose finish plus delay is ``ready`` when that is after its submit (else
  None);
- no attempt of a job starts before its ``ready`` (so neither before its submit nor before a
  predecessor's finish plus delay);
- the same inputs and seed give the same run (its job records and attempts).

A VM-level plan (phases that never put a predecessor after its job) gives the same ``ready`` and
``held_by`` and no job starts before its ``ready``, with barriers and with backfill, and backfill
never ends later than barriers.
"""

from __future__ import annotations

import math
import signal
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import Cluster, Job, Workload
from models.dag import Dependency
from planner.simulator import SCHEDULERS, Fifo, SimulationStalled, simulate, simulate_vms
from tests.support.properties import FAST, check_invariants, random_run, run
from tests.support.simulator import Refuses

DELAYS = (0.0, 0.0, 0.0, 1.5, 7.0)


@st.composite
def with_dependencies(draw, jobs: list[Job]) -> list[Job]:
    """``jobs`` with random dependencies: a random permutation of the list ranks them, and each job
    may wait for any jobs ranked before it (so a predecessor may come later in the list, whatever
    their submit times), each with a delay from `DELAYS`."""
    rank = draw(st.permutations(range(len(jobs))))
    waiting = []
    for position, job in enumerate(jobs):
        place = rank.index(position)
        before = draw(st.lists(st.sampled_from(rank[:place]), unique=True, max_size=3)) if place else []
        after = tuple(Dependency(jobs[other].name, draw(st.sampled_from(DELAYS))) for other in before)
        waiting.append(job.with_changes(after=after))
    return waiting


def expected_ready(job: Job, finish: dict[str, float]) -> float:
    return max([job.submit, *(finish[dependency.job] + dependency.delay for dependency in job.after)])


def check_dependencies(result, jobs: list[Job]) -> None:
    """The module docstring's conditions on one task-level run."""
    finish = {record["name"]: record["finish"] for record in result.jobs}
    by_name = {job.name: job for job in jobs}
    for record in result.jobs:
        job = by_name[record["name"]]
        ready = expected_ready(job, finish)
        assert record["ready"] == ready, (record, job.after)
        if ready > job.submit:
            delays = {dependency.job: dependency.delay for dependency in job.after}
            assert record["held_by"] in delays and finish[record["held_by"]] + delays[record["held_by"]] == ready
        else:
            assert record["held_by"] is None, record
        assert record["start"] >= ready
    for task in result.tasks:
        assert task["start"] >= result.job(task["job"])["ready"], task


def with_bytes(jobs: list[Job]) -> list[Job]:
    """The jobs with bytes to move (so that the network model has work): 64 MB a map's input and
    32 MB a task's shuffle."""
    return [job.with_changes(input_bytes=64e6 * job.map_tasks,
                             shuffle_bytes=32e6 * job.map_tasks if job.reduce_tasks else None) for job in jobs]


def replayed(jobs: list[Job], draw) -> dict:
    """Measured times for the first job's tasks (``SimOptions.task_times``)."""
    first = jobs[0]
    times = {"map": [draw(st.sampled_from([0.5, 2.0, 9.0])) for _ in range(first.map_tasks)]}
    if first.reduce_tasks:
        times["reduce"] = [draw(st.sampled_from([1.0, 4.0])) for _ in range(first.reduce_tasks)]
    return {first.name: times}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@FAST
@given(data=st.data())
def test_no_attempt_starts_before_its_predecessors(name, data):
    jobs, cluster, scheduler, keywords = random_run(data, name)
    jobs = data.draw(with_dependencies(jobs), "dependencies")
    extra = data.draw(st.sampled_from(["none", "network", "replay"]), "extra")
    if extra == "network":
        jobs = with_bytes(jobs)
        keywords["options"] = replace(keywords["options"], network=True)
    elif extra == "replay":
        keywords["options"] = replace(keywords["options"], task_times=replayed(jobs, data.draw))
    result = run(jobs, cluster, scheduler, **keywords)
    check_invariants(result, jobs)
    check_dependencies(result, jobs)
    again = run(jobs, cluster, scheduler, **keywords)  # `run` simulates a copy: the scheduler is fresh
    assert again.jobs == result.jobs
    assert again.attempts == result.attempts


# -- hand-worked runs ----------------------------------------------------------------------------
ONE_SLOT = Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0.0, replication=1)


def test_a_job_waits_for_its_predecessor_plus_the_delay():
    """a: one map of 100 s from 0. b (submitted at 50) waits for a plus 30 s: ready at 130, held by
    a, its 10 s map ends at 140, response 140 - 50 = 90. c waits for a but is submitted at 500,
    later: ready at 500, held by nothing."""
    jobs = [Job("a", 1, 0, 100.0), Job("b", 1, 0, 10.0, submit=50.0, after=[{"job": "a", "delay": 30}]),
            Job("c", 1, 0, 10.0, submit=500.0, after=["a"])]
    result = simulate(jobs, ONE_SLOT, "fifo")
    b, c = result.job("b"), result.job("c")
    assert (b["ready"], b["held_by"], b["start"], b["finish"], b["response"]) == (130.0, "a", 130.0, 140.0, 90.0)
    assert (c["ready"], c["held_by"], c["start"]) == (500.0, None, 500.0)
    assert result.makespan == 510.0


def test_of_predecessors_that_set_the_same_time_the_first_to_finish_holds():
    """Two map slots: a (100 s, then a 20 s delay) and b (120 s, no delay) both let c go at 120; a
    finished first, so a holds it. d waits for b alone, submitted at 120 too: its submit is not
    earlier, so nothing holds it."""
    cluster = ONE_SLOT.with_changes(nodes=2, replication=2)  # every block on both nodes: maps run node-local
    jobs = [Job("a", 1, 0, 100.0), Job("b", 1, 0, 120.0), Job("c", 1, 0, 5.0, after=[{"job": "a", "delay": 20}, "b"]),
            Job("d", 1, 0, 5.0, submit=120.0, after=["b"])]
    result = simulate(jobs, cluster, "fifo")
    assert [(record["name"], record["ready"], record["held_by"]) for record in result.jobs[2:]] == [
        ("c", 120.0, "a"), ("d", 120.0, None)]


def test_fifo_orders_a_released_job_by_its_arrival():
    """One slot. a (one 100 s map) runs from 0; c (submitted at 50, two 10 s maps) waits for the
    slot; b (submitted at 0 but after a) arrives at 100, after c: FIFO runs c's maps (100-120), then
    b's (120-140). A job is submitted to the scheduler when it is ready, not at its own submit time."""
    jobs = [Job("a", 1, 0, 100.0), Job("b", 2, 0, 10.0, after=["a"]), Job("c", 2, 0, 10.0, submit=50.0)]
    result = simulate(jobs, ONE_SLOT, Fifo())
    assert [(task["job"], task["start"]) for task in result.tasks] == [
        ("a", 0.0), ("c", 100.0), ("c", 110.0), ("b", 120.0), ("b", 130.0)]
    assert result.job("b")["submit"] == 0.0 and result.job("b")["response"] == 140.0


@pytest.mark.parametrize("heartbeat", [0.0, 1.0])
def test_a_stalled_predecessor_is_reported_not_waited_for(heartbeat):
    """b is never launched and c waits for it. With a heartbeat of 1 s the stall is reported at the
    first report more than 100 s after b's arrival (the run once looped forever: its stall check
    waited for c to arrive); with heartbeat 0 the run ends with b unfinished."""
    cluster = ONE_SLOT.with_changes(heartbeat=heartbeat)
    jobs = [Job("b", 1, 0, 10.0), Job("c", 1, 0, 10.0, after=["b"])]

    def give_up(*_):
        raise TimeoutError("the stalled run did not end")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(5)
    try:
        with pytest.raises(SimulationStalled) as stalled:
            simulate(jobs, cluster, Refuses(frozenset({"b"})))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if heartbeat:
        assert str(stalled.value) == ("at t=101 s no free slot is ever given to the pending work of b; "
                                      "1 job(s) wait for them (c)")
    else:
        assert "unfinished jobs (b)" in str(stalled.value)


# -- VM-level plans ------------------------------------------------------------------------------
def _profile(seconds: float):
    return lambda n: seconds / n


@st.composite
def vm_plans(draw):
    """3-7 profiled jobs (random submit times and dependencies) dealt into phases in a topological
    order, so that no predecessor runs in a later phase; P = 2 (N = 4, E = 2)."""
    count = draw(st.integers(3, 7))
    jobs = [Job(f"j{i}", 1, 0, 1.0, submit=draw(st.sampled_from([0.0, 0.0, 5.0, 40.0])),
                intensity=draw(st.sampled_from(["cpu", "io"])), profile=_profile(draw(st.sampled_from([40.0, 90.0]))))
            for i in range(count)]
    jobs = draw(with_dependencies(jobs))
    phases, phase = [], []
    for position in Workload(jobs).precedence.order:  # dealt in a topological order
        job = jobs[position]
        if phase and draw(st.booleans()):
            phases.append(phase)
            phase = []
        phase.append(job)
    phases.append(phase)
    groups = []
    for members in phases:
        share = max(4 // len(members), 1)
        if len(members) > 4:
            return jobs, [[(jobs[p].name, 4, "primary")] for p in Workload(jobs).precedence.order]
        groups.append([(job.name, share, "primary") for job in members])
    return jobs, groups


@FAST
@given(plan=vm_plans(), noise=st.sampled_from([0.0, 0.3]), seed=st.integers(0, 3))
def test_vm_runs_honour_dependencies(plan, noise, seed):
    jobs, groups = plan
    cluster = Cluster(nodes=2, disks=2, map_slots=1, reduce_slots=1)
    by_name = {job.name: job for job in jobs}
    makespans = []
    for backfill in (False, True):
        result = simulate_vms(jobs, cluster, groups, seed=seed, noise=noise, backfill=backfill)
        finish = {record["name"]: record["finish"] for record in result.jobs}
        for record in result.jobs:
            job = by_name[record["name"]]
            ready = expected_ready(job, finish)
            assert record["ready"] == ready and record["start"] >= ready and record["start"] >= job.submit
            if ready > job.submit:
                delays = {dependency.job: dependency.delay for dependency in job.after}
                assert finish[record["held_by"]] + delays[record["held_by"]] == ready
            else:
                assert record["held_by"] is None
            assert math.isclose(record["finish"] - record["start"], record["runtime"])
        assert simulate_vms(jobs, cluster, groups, seed=seed, noise=noise, backfill=backfill).to_json() == \
            result.to_json()
        makespans.append(result.makespan)
    assert makespans[1] <= makespans[0] + 1e-9  # backfill never ends later
