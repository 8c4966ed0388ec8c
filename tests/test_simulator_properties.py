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

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import Cluster, InvalidInput, Job
from planner.simulator import (
    SCHEDULERS,
    Capacity,
    Fair,
    Fifo,
    Natjam,
    Pool,
    Preemption,
    Queue,
    Scheduler,
    SimOptions,
    simulate,
)
from tests.support.properties import (
    FAST,
    check_evictions_bounded,
    check_invariants,
    clusters,
    random_run,
    run,
    schedulers,
    sim_options,
    workloads,
)


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
