"""Invariants of the event simulator on small random workloads, clusters and schedulers.

Every run, under every registered scheduler and every option (heartbeat or not,
delay scheduling, containers, slow-start below 1, copy-compute splitting,
preemption, task-time noise, slot overrides), must satisfy:

- no slot runs two attempts at once;
- every task (job, kind, task index) completes exactly once (fate "done"); every
  other attempt of it was killed or suspended (Natjam);
- a job's reduces end no earlier than its last map;
- ``busy_slot_seconds`` is the sum of (end - start) over all attempts: done,
  killed and suspended (a suspended attempt holds its slot until its checkpoint
  is written); ``killed_work`` the sum over the killed ones;
- only eviction counts what it does: ``kills`` is the number of killed
  attempts, ``suspensions`` the number of suspended ones.

Natjam's evictions (kills plus suspensions) also stay within `eviction_bound`, a bound read
from the input: that is what makes every Natjam combination end.

Schedulers that type slots themselves (``wants_containers``: dynamic FRESH,
Natjam) run on containers, so copy-compute splitting is never drawn for them;
FRESH-static runs on typed slots.
- the job records agree with the attempts (start, map_done, finish).
"""

from __future__ import annotations

import math
import signal
from collections import Counter, defaultdict
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models import INTENSITIES, Cluster, InvalidInput, Job
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
    Scheduler,
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
    """Assert every invariant of the module docstring on one run."""
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


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@FAST
@given(data=st.data())
def test_invariants_hold_for_every_scheduler(name, data):
    """Random small runs: all invariants of the module docstring, whatever the options."""
    jobs, cluster, scheduler, settings = random_run(data, name)
    result = run(jobs, cluster, scheduler, **settings)
    check_invariants(result, jobs)
    if isinstance(scheduler, Natjam):
        check_evictions_bounded(result, jobs, scheduler)


@FAST
@given(jobs=workloads(), cluster=clusters(), options=sim_options(), seed=st.integers(0, 3))
def test_preemption_kills_only_and_always_finishes(jobs, cluster, options, seed):
    """Aggressive preemption (min share and fair share, short timeouts, pools with min shares
    and weights): killed attempts are re-run and every invariant holds."""
    scheduler = Fair(
        pools=[Pool("a", min_map=2, min_reduce=1), Pool("b", min_map=1, weight=2.0), Pool("c", mode="fifo")],
        preemption=Preemption(min_share_timeout=0.5, fair_share_timeout=1.0, recheck=0.5),
    )
    result = run(jobs, cluster, scheduler, seed=seed, options=options)
    check_invariants(result, jobs)


@FAST
@given(
    jobs=workloads(pools=("a", "b")),
    cluster=clusters(),
    limits=st.integers(1, 3).flatmap(lambda r: st.tuples(st.just(r), st.integers(1, r))),
    slowstart=st.sampled_from([1.0, 0.5, 0.0]),
    kind=st.sampled_from(["fifo", "fair", "capacity"]),
)
def test_copy_compute_limits_hold(jobs, cluster, limits, slowstart, kind):
    """Copy-compute splitting with deterministic task times and no kills. A reducer computes for
    its task's time after its job's last map ends, so it computes over [end - reduce_time, end).
    Per node at most max_computing reducers compute at once and at most max_reducers hold a slot;
    while a job still has maps running it holds at most max_computing copying reducers per node
    (reducers launched before its last map, still waiting for it)."""
    max_reducers, max_computing = limits
    options = SimOptions(reduce_slowstart=slowstart, copy_compute=limits)
    scheduler = {"fifo": Fifo(), "fair": Fair(), "capacity": Capacity(queues=[Queue("a", 0.5), Queue("b", 0.5)])}[kind]
    result = run(jobs, cluster, scheduler, options=options)
    check_invariants(result, jobs)
    by_name = {job.name: job for job in jobs}
    reduces = [t for t in result.tasks if t["kind"] == "reduce"]
    for node in range(cluster.nodes):
        mine = [t for t in reduces if t["node"] == node]
        assert len({t["slot"] for t in mine}) <= max_reducers
        computing = [(t["end"] - by_name[t["job"]].reduce_time, t["end"]) for t in mine]
        for moment, _ in computing:
            now = sum(1 for start, end in computing if start - 1e-9 <= moment < end - 1e-9)
            assert now <= max_computing, (node, moment, computing)
        for job in jobs:
            map_done = result.job(job.name)["map_done"]
            early = [t["start"] for t in mine if t["job"] == job.name and t["start"] < map_done]
            assert len(early) <= max_computing, (node, job.name, early, map_done)


class MostPending(Scheduler):
    """A plug-in written in Python alone (every built-in scheduler is compiled): the job with the
    most pending tasks of the slot's kind first, then by submission and name (`JobRun.order`)."""

    name = "most-pending"

    def pick(self, node, kind, now):
        jobs = sorted(self.bound().active.values(), key=lambda job: (-job.pending(kind), job.order))
        for job in jobs:
            if job.pending(kind):
                launch = self.take(job, node, kind, now)
                if launch is not None:
                    return launch
        return None


@pytest.mark.parametrize("name", [*sorted(SCHEDULERS), MostPending.name])
def test_every_registered_scheduler_meets_the_contract(name, monkeypatch):
    """The shared contract, by name with default settings: a mixed batch (staggered arrivals,
    map-only and map-reduce jobs, pools, priorities) on a racked cluster with heartbeats,
    all jobs finish and every invariant holds; the result names the scheduler. `MostPending`,
    registered for the test, is a scheduler of one's own in Python."""
    monkeypatch.setitem(SCHEDULERS, MostPending.name, MostPending)
    jobs = [
        Job("etl", 12, 4, 8.0, 20.0, submit=0.0),
        Job("scan", 20, 0, 3.0, submit=2.0, intensity="io"),
        Job("report", 4, 2, 5.0, 5.0, submit=7.5, priority=1, intensity="cpu"),
        Job("late", 6, 6, 2.0, 4.0, submit=40.0),
    ]
    cluster = Cluster(nodes=6, racks=2, map_slots=2, reduce_slots=1, heartbeat=1.0, replication=3)
    for options in (SimOptions(), SimOptions(containers=True, reduce_slowstart=0.5, task_time_cv=0.3)):
        result = run(jobs, cluster, name, seed=7, options=options)
        assert result.scheduler["name"] == name
        assert all(record["finish"] is not None for record in result.jobs)
        check_invariants(result, jobs)


@pytest.mark.parametrize("name", sorted(name for name, cls in SCHEDULERS.items() if cls().wants_containers))
def test_copy_compute_is_refused_for_schedulers_on_containers(name):
    """A scheduler that types slots itself runs on containers; copy-compute splitting needs typed
    reduce slots, so asking for both is an error naming options.copy_compute (not a silent drop)."""
    jobs = [Job("a", 2, 1, 1.0, 1.0)]
    cluster = Cluster(nodes=2, map_slots=1, reduce_slots=1, heartbeat=0)
    with pytest.raises(InvalidInput) as caught:
        simulate(jobs, cluster, name, options=SimOptions(copy_compute=(2, 1)))
    assert caught.value.field == "options.copy_compute"
    assert name in str(caught.value)
    # on containers without the split the same run is fine
    assert simulate(jobs, cluster, name).job("a")["finish"] is not None


@FAST
@given(
    jobs=workloads(deadlines=True),
    cluster=clusters(),
    scheduler=schedulers("natjam", 1),
    options=sim_options(containers=True),
    seed=st.integers(0, 3),
)
def test_natjam_evictions_keep_every_invariant(jobs, cluster, scheduler, options, seed):
    """Natjam with every policy, with a production job (priority 2) arriving at 0.5 s beside the
    random ones, so that evictions happen: suspended and killed attempts are re-run (a suspended
    one for its work left plus the resume overhead) and every invariant holds. Every combination,
    MLF with kills included, ends (under `run`'s alarm) within `eviction_bound`."""
    jobs = [*jobs, Job("urgent", 3, 2, 2.0, 2.0, submit=0.5, priority=2, deadline=20.0)]
    result = run(jobs, cluster, scheduler, seed=seed, options=options)
    check_invariants(result, jobs)
    check_evictions_bounded(result, jobs, scheduler)
    assert result.wasted_work == pytest.approx(result.killed_work + result.overhead_seconds)
    if scheduler.mode == "kill":
        assert result.suspensions == 0 and result.overhead_seconds == 0.0
    else:
        assert result.kills == 0
        assert result.overhead_seconds == pytest.approx(
            result.suspensions * (scheduler.suspend_overhead + scheduler.resume_overhead))
