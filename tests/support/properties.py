"""Random small runs of the simulator and the invariants every run must satisfy (the list is in
tests/test_simulator_properties.py's docstring): `check_invariants`, Natjam's `eviction_bound`, the
Hypothesis strategies (`workloads`, `clusters`, `sim_options`, `schedulers`), `random_run` and `run`
(`simulate` under an alarm). Shared by the property tests of the simulator and its schedulers.
"""

from __future__ import annotations

import math
import signal
from collections import Counter, defaultdict
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from models import INTENSITIES, Cluster, Job
from planner.simulator import (
    SCHEDULERS,
    Capacity,
    Fair,
    Fifo,
    Fresh,
    Natjam,
    Pool,
    Preemption,
    Queue,
    SimOptions,
    SimResult,
    simulate,
)

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run(*args, **kwargs) -> SimResult:
    """`simulate` under a 3 s alarm (runs here take milliseconds): a run that never ends fails instead of hanging."""

    def give_up(*_):
        raise TimeoutError("simulate did not finish in 3 s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(3)
    try:
        return simulate(*args, **kwargs)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def fitted(cluster: Cluster, slots: tuple[int, int] | None) -> Cluster:
    """``cluster``, grown by whole nodes when a drawn slot split asks for more slots than it has
    (a split is of the cluster's slots, never more)."""
    if slots is None or sum(slots) <= cluster.total_slots:
        return cluster
    return cluster.with_changes(nodes=-(-sum(slots) // (cluster.map_slots + cluster.reduce_slots)))


def check_invariants(result: SimResult, jobs: list[Job]) -> None:
    """Assert every invariant of tests/test_simulator_properties.py's docstring on one run."""
    tasks = result.tasks
    by_name = {job.name: job for job in jobs}
    assert [record["name"] for record in result.jobs] == [job.name for job in jobs]
    for record in tasks:
        assert record["fate"] in ("done", "killed", "suspended"), record
        assert record["start"] <= record["end"], record
        assert record["start"] >= by_name[record["job"]].submit, record
    # No slot runs two attempts at once.
    per_slot: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for record in tasks:
        per_slot[record["slot"]].append((record["start"], record["end"]))
    assert len(per_slot) <= result.slots
    for slot, spans in per_slot.items():
        spans.sort()
        for (_, end), (start, _) in pairwise(spans):
            assert start >= end - 1e-9, f"slot {slot} runs two attempts at once: {spans}"
    # Every task completes exactly once.
    done = Counter((r["job"], r["kind"], r["task"]) for r in tasks if r["fate"] == "done")
    expected = {(job.name, "map", i) for job in jobs for i in range(job.map_tasks)}
    expected |= {(job.name, "reduce", i) for job in jobs for i in range(job.reduce_tasks)}
    assert set(done) == expected
    assert all(count == 1 for count in done.values()), [key for key, count in done.items() if count > 1]
    killed = [r for r in tasks if r["fate"] == "killed"]
    suspended = [r for r in tasks if r["fate"] == "suspended"]
    assert {(r["job"], r["kind"], r["task"]) for r in killed + suspended} <= expected
    assert result.kills == len(killed) and result.suspensions == len(suspended)
    # Reduces end no earlier than their job's last map; job records agree with the attempts.
    for job in jobs:
        mine = [r for r in tasks if r["job"] == job.name]
        maps_end = max(r["end"] for r in mine if r["kind"] == "map" and r["fate"] == "done")
        record = result.job(job.name)
        assert record["submit"] == job.submit
        assert record["start"] == min(r["start"] for r in mine)
        assert record["map_done"] == maps_end
        assert record["finish"] == max(r["end"] for r in mine if r["fate"] == "done")
        assert record["response"] == pytest.approx(record["finish"] - job.submit)
        for r in mine:
            if r["kind"] == "reduce" and r["fate"] == "done":
                assert r["end"] >= maps_end - 1e-9, (r, maps_end)
    # Busy slot-time is the sum of attempt durations (done, killed and suspended); killed work the killed part.
    assert result.busy_slot_seconds == pytest.approx(sum(r["end"] - r["start"] for r in tasks), rel=1e-9, abs=1e-6)
    assert result.killed_work == pytest.approx(sum(r["end"] - r["start"] for r in killed), rel=1e-9, abs=1e-6)
    first = min(job.submit for job in jobs)
    assert result.makespan == pytest.approx(max(r["finish"] for r in result.jobs) - first)
    assert 0.0 < result.fairness <= 1.0 + 1e-12
    assert math.isclose(sum(result.locality.values()), 1.0)
    assert 0.0 <= result.utilization <= 1.0 + 1e-9


# -- strategies --------------------------------------------------------------------------------
times = st.one_of(st.sampled_from([1.0, 2.0, 3.0, 5.0, 10.0]), st.floats(min_value=0.25, max_value=20.0))


@st.composite
def workloads(draw, pools=("a", "b", "c"), deadlines=False):
    """1-4 small jobs; with ``deadlines``, most get a deadline 1-60 s after submission
    (tight ones are missed, which the invariants do not mind)."""
    jobs = []
    for index in range(draw(st.integers(min_value=1, max_value=4))):
        reduces = draw(st.integers(min_value=0, max_value=4))
        submit = draw(st.sampled_from([0.0, 0.0, 1.0, 5.0, 12.5]))
        deadline = None
        if deadlines:
            after = draw(st.one_of(st.none(), st.sampled_from([1.0, 10.0, 30.0, 60.0])))
            deadline = None if after is None else submit + after
        jobs.append(
            Job(
                f"j{index}",
                map_tasks=draw(st.integers(min_value=1, max_value=6)),
                reduce_tasks=reduces,
                map_time=draw(times),
                reduce_time=draw(times) if reduces else 0.0,
                submit=submit,
                pool=draw(st.sampled_from(pools)),
                weight=draw(st.sampled_from([1.0, 2.0])),
                priority=draw(st.integers(min_value=0, max_value=2)),
                deadline=deadline,
                intensity=draw(st.sampled_from(INTENSITIES)),
            )
        )
    return jobs


@st.composite
def clusters(draw):
    nodes = draw(st.integers(min_value=1, max_value=5))
    return Cluster(
        nodes=nodes,
        racks=draw(st.integers(min_value=1, max_value=nodes)),
        map_slots=draw(st.integers(min_value=1, max_value=2)),
        reduce_slots=draw(st.integers(min_value=1, max_value=2)),
        heartbeat=draw(st.sampled_from([0.0, 0.0, 1.0, 3.0])),
        replication=draw(st.integers(min_value=1, max_value=3)),
    )


@st.composite
def sim_options(draw, containers=None):
    """Options; ``containers`` True or False fixes that option (True: no copy-compute splitting)."""
    containers = draw(st.booleans()) if containers is None else containers
    copy_compute = None
    if not containers and draw(st.booleans()):
        reducers = draw(st.integers(min_value=1, max_value=3))
        copy_compute = (reducers, draw(st.integers(min_value=1, max_value=reducers)))
    return SimOptions(
        reduce_slowstart=draw(st.sampled_from([1.0, 0.5, 0.0])),
        task_time_cv=draw(st.sampled_from([0.0, 0.0, 0.5])),
        containers=containers,
        assign_multiple=draw(st.booleans()),
        copy_compute=copy_compute,
    )


delays = st.one_of(st.none(), st.tuples(st.sampled_from([0.0, 1.0, 5.0]), st.sampled_from([0.0, 2.0, 5.0])))


@st.composite
def schedulers(draw, name: str, nodes: int):
    """A configured instance of the registered scheduler ``name``."""
    delay = draw(delays)
    if name == "fifo":
        return Fifo(delay=delay)
    if name == "fair":
        pools = [
            Pool("a", weight=draw(st.sampled_from([1.0, 2.0])), min_map=draw(st.integers(0, 2)),
                 min_reduce=draw(st.integers(0, 2)), mode=draw(st.sampled_from(["fair", "fifo"]))),
            Pool("b", weight=draw(st.sampled_from([1.0, 3.0])), max_running=draw(st.sampled_from([None, 1, 2]))),
        ]
        preemption = draw(st.sampled_from([
            None,
            Preemption(min_share_timeout=2.0, fair_share_timeout=None),
            Preemption(min_share_timeout=None, fair_share_timeout=3.0),
            Preemption(min_share_timeout=1.0, fair_share_timeout=2.0, recheck=0.5),
        ]))
        return Fair(pools=pools, delay=delay, preemption=preemption)
    if name == "capacity":
        # A hard cap of half the cluster needs at least two slots of each kind to leave one.
        hard = nodes >= 2 and draw(st.booleans())
        return Capacity(queues=[Queue("a", 0.5, 0.5 if hard else 1.0), Queue("b", 0.5, 1.0)], delay=delay)
    if name == "fresh":
        return Fresh(k=draw(st.integers(1, 4)), tau1=draw(st.sampled_from([0.0, 0.8, 1.0])),
                     tau2=draw(st.sampled_from([0.0, 0.6])), dynamic=draw(st.booleans()), delay=delay)
    if name == "natjam":
        return Natjam(
            job_eviction=draw(st.sampled_from(["MR", "LR", "PR"])),
            task_eviction=draw(st.sampled_from(["SRT", "LRT", "random"])),
            mode=draw(st.sampled_from(["suspend", "kill"])),
            suspend_overhead=draw(st.sampled_from([0.0, 0.5, 1.35])),
            resume_overhead=draw(st.sampled_from([0.0, 1.0, 3.88])),
            deadline_policy=draw(st.sampled_from([None, None, "MDF", "MLF"])),
            min_run=draw(st.sampled_from([None, 0.01, 2.0])),
            evict_maps=draw(st.booleans()),
            delay=delay,
        )
    return SCHEDULERS[name]()


def eviction_bound(jobs: list[Job], scheduler: Natjam) -> float:
    """The most evictions (kills plus suspensions) Natjam's termination rules allow on ``jobs``,
    read after the run (see the Natjam docstring for the proofs).

    Every policy but MLF with suspensions: evictions for a job are matched by its launches
    (rule 1) and go down an order of the jobs that never turns (by class, by deadline, or the
    kills of rule 3), so at most sum (n - k) t_k <= T (n - 1) for T tasks in n jobs. MLF with
    suspensions: each suspension leaves its task at least banks - resume_overhead seconds less
    work (rule 4), so at most W / (banks - resume_overhead), W the tasks' first-attempt work
    (each map at its slowest locality)."""
    if scheduler.deadline_policy == "MLF" and scheduler.mode == "suspend":
        work = sum(sum(run.map_times) * max(run.slowdown) + sum(run.reduce_times) for run in scheduler.sim.jobs)
        return work / (scheduler.banks - scheduler.resume_overhead)
    return sum(job.map_tasks + job.reduce_tasks for job in jobs) * (len(jobs) - 1)


def check_evictions_bounded(result: SimResult, jobs: list[Job], scheduler: Natjam) -> None:
    """Natjam's evictions stay within `eviction_bound`; under MLF with suspensions every suspended
    attempt computed ``banks`` seconds before its checkpoint (a reducer from its job's last map)."""
    assert result.kills + result.suspensions <= eviction_bound(jobs, scheduler)
    if scheduler.deadline_policy == "MLF" and scheduler.mode == "suspend":
        for record in result.tasks:
            if record["fate"] == "suspended":
                computing = record["start"]
                if record["kind"] == "reduce":
                    computing = max(computing, result.job(record["job"])["map_done"])
                assert record["end"] - computing >= scheduler.banks + scheduler.suspend_overhead - 1e-9, record


def containers_for(scheduler) -> bool | None:
    """Whether a run of ``scheduler`` must be on containers (True), on typed slots (False), or either (None)."""
    if scheduler.wants_containers:
        return True  # simulate() switches containers on and refuses copy-compute splitting
    if isinstance(scheduler, Fresh):
        return False  # FRESH-static
    return None


def random_run(data, name: str, scheduler=None) -> tuple[list[Job], Cluster, object, dict]:
    """A random small run of the scheduler named ``name`` (``scheduler``: that one instead of a
    drawn one): its jobs, the cluster fitted to the slot totals drawn, the scheduler and `run`'s
    keywords (seed, slots, options)."""
    cluster = data.draw(clusters(), "cluster")
    pools = ("a", "b") if name == "capacity" else ("a", "b", "c")
    jobs = data.draw(workloads(pools, deadlines=name == "natjam"), "jobs")
    if scheduler is None:
        scheduler = data.draw(schedulers(name, cluster.nodes), "scheduler")
    options = data.draw(sim_options(containers_for(scheduler)), "options")
    slots = data.draw(st.one_of(st.none(), st.tuples(st.integers(2, 6), st.integers(2, 4))), "slots")
    seed = data.draw(st.integers(0, 3), "seed")
    return jobs, fitted(cluster, slots), scheduler, {"seed": seed, "slots": slots, "options": options}
