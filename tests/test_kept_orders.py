"""The orders and totals schedulers keep as jobs change (`schedulers.ranked`) agree, before every
decision, with the same things recomputed from scratch over every job (the way the schedulers
computed them before they kept them: a scan of all jobs per decision).

Each scheduler is wrapped so that `pick` (and `settle`) first brings its kept state up to date
and compares it with the recomputation; random small runs under every option then exercise
launches, ends, kills, suspensions, reduces opening, admission limits and running-job limits.
A stale entry, a missed change or a total off by one fails here. `RankedJobs` itself is
checked against a sorted list.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import Cluster, Job
from planner.simulator import Capacity, Fair, Fifo, Natjam, Pool
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, build_layout
from planner.simulator.schedulers.base import fifo_key, job_weight, order_rank
from planner.simulator.schedulers.natjam import PRODUCTION
from planner.simulator.schedulers.ranked import RankedJobs
from tests.support.properties import FAST, random_run, run


def _active(scheduler) -> list[JobRun]:
    return list(scheduler.sim.active.values())


def check_fifo(scheduler: Fifo, kind: int) -> None:
    """Every job with a task for ``kind`` is kept, and the first kept one is the first by the key."""
    ranked = scheduler._ranked[kind]
    wanted = [job for job in _active(scheduler) if job.pending(kind)]
    assert all(job in ranked for job in wanted)
    first = ranked.scan(lambda job: job, keep=lambda job: job.pending(kind))
    expected = min(wanted, key=lambda job: (order_rank(scheduler.ranks, job), *fifo_key(job)), default=None)
    assert first is expected


def check_fair(scheduler: Fair, kind: int) -> None:
    loads = scheduler.pool_loads(kind)  # brings the kept state up to date
    expected = []
    for name, members in scheduler.members.items():
        if not members:
            continue
        running = sum(job.running_of(kind) for job in members)
        demand = running + sum(scheduler._pending_of(job, kind) for job in scheduler.runnable[name])
        cap = scheduler._known[name].max_share(kind) if scheduler.capped else None
        if cap is not None:
            demand = max(min(demand, cap), min(running, demand))
        expected.append((name, running, demand))
        candidates = [job for job in scheduler.runnable[name] if scheduler._pending_of(job, kind)]
        if scheduler._known[name].mode == "fair":
            best = min(candidates, key=lambda job: (job.running_of(kind) / job_weight(job), job.submit, job.name),
                       default=None)
        else:
            best = min(candidates, key=fifo_key, default=None)
        assert scheduler._ranked[name][kind].first() is best
        assert len(scheduler._ranked[name][kind]) == len(candidates)
    assert loads == expected


def check_capacity(scheduler: Capacity, kind: int) -> None:
    if scheduler._changes.jobs:
        scheduler._changes.drain()
    for at, queue in enumerate(scheduler.queues):
        members = scheduler.members[queue.name]
        assert scheduler._running[at][kind] == sum(job.running_of(kind) for job in members)
        wanted = [job for job in members if job.pending(kind)]
        assert scheduler._ranked[at][kind].first() is min(wanted, key=fifo_key, default=None)
        assert len(scheduler._ranked[at][kind]) == len(wanted)


def check_natjam(scheduler: Natjam, now: float) -> None:
    if scheduler.deadline_policy == "MLF":
        # MLF keeps its own order (`schedulers.natjam_laxity`): listed in full, a sort by laxity.
        if scheduler._laxity_order is not None:
            order = [job for job in scheduler.ranked(now) if job.pending(ANY)]
            assert scheduler._laxity_order.listed(now) == order
        return
    if scheduler._changes.jobs:
        scheduler._changes.drain()
    order = [job for job in scheduler.ranked(now) if job.pending(ANY)]
    assert scheduler._order.first() is (order[0] if order else None)
    assert len(scheduler._order) == len(order)
    assert scheduler._order.prefix(lambda job: True) == order
    assert scheduler._urgent_pending == sum(job.pending(ANY) for job in scheduler.jobs if job.priority >= PRODUCTION)


def audited(given):
    """``given`` as an instance of a subclass that checks its kept state before each decision (a
    subclass, not methods replaced on the instance: a compiled scheduler's methods are read-only)."""
    checks = {"count": 0}

    def check(kind: int | None, now: float) -> None:
        checks["count"] += 1
        kinds = scheduler.sim.kinds_present if kind is None else (kind,)
        for each in kinds:
            if isinstance(scheduler, Fifo):
                check_fifo(scheduler, each)
            elif isinstance(scheduler, Fair):
                check_fair(scheduler, each)
            elif isinstance(scheduler, Capacity):
                check_capacity(scheduler, each)
        if isinstance(scheduler, Natjam):
            check_natjam(scheduler, now)

    class Audited(type(given)):
        def pick(self, node, kind, now):
            check(kind, now)
            return super().pick(node, kind, now)

        def settle(self, now):
            check(None, now)
            return super().settle(now)

    scheduler = Audited.__new__(Audited)
    scheduler.__setstate__(given.__getstate__())  # the same settings, as a copy does
    return scheduler, checks


@st.composite
def fair_with_limits(draw):
    """Fair schedulers with what the shared strategy leaves out: FRESH's admission limit k and
    per-pool caps on running maps and reduces."""
    pools = [
        Pool("a", weight=draw(st.sampled_from([1.0, 2.0])), min_map=draw(st.integers(0, 2)),
             mode=draw(st.sampled_from(["fair", "fifo"])), max_map=draw(st.sampled_from([None, 1, 3])),
             max_reduce=draw(st.sampled_from([None, 1, 2]))),
        Pool("b", weight=draw(st.sampled_from([1.0, 3.0])), max_running=draw(st.sampled_from([None, 1, 2]))),
    ]
    return Fair(pools=pools, k=draw(st.sampled_from([None, 1, 2])), delay=draw(st.sampled_from([None, (2.0, 2.0)])))


@pytest.mark.parametrize("name", ["fifo", "fair", "fair-limits", "capacity", "natjam"])
@FAST
@given(data=st.data())
def test_kept_orders_match_a_scan_of_every_job(name, data):
    limited = data.draw(fair_with_limits(), "scheduler") if name == "fair-limits" else None
    jobs, cluster, scheduler, settings = random_run(data, name, limited)
    scheduler, checks = audited(scheduler)
    run(jobs, cluster, scheduler, **settings)
    assert checks["count"] > 0


def _runs(count: int) -> list[JobRun]:
    layout = build_layout(Cluster(nodes=2, map_slots=1, reduce_slots=1))
    return [JobRun(i, Job(f"j{i:03d}", 2, 1, 1.0, 1.0), layout, 1, 0.0, 1.0, np.random.default_rng(i))
            for i in range(count)]


def _ranked_by_index(paired: bool) -> RankedJobs:
    from planner.simulator.schedulers.pair_ranked import PairRanked

    return PairRanked(lambda job: float(job.index)) if paired else RankedJobs(lambda job: job.name)


@pytest.mark.parametrize("paired", [False, True])
def test_a_scan_drops_the_jobs_keep_refuses_and_only_those(paired):
    """Jobs taken out during a walk: `PairRanked` keeps their entries, skipped, until its end."""
    runs = _runs(5)
    ranked = _ranked_by_index(paired)
    for job in runs:
        ranked.update(job, True)
    found = ranked.scan(lambda job: job if job.index == 3 else None, keep=lambda job: job.index % 2 == 1)
    assert found is runs[3]
    assert [job.index for job in ranked.prefix(lambda job: True)] == [1, 3, 4]
    assert len(ranked) == 3 and runs[0] not in ranked and runs[1] in ranked
    if paired:
        assert ranked.entries.size == 3


@pytest.mark.parametrize("paired", [False, True])
def test_a_scan_refuses_a_re_key_of_its_order(paired):
    """A scan's step must not re-key or add a job of the order it walks (the walk would lose its
    place): it raises, and the order is as it was before the scan."""
    runs = _runs(4)
    ranked = _ranked_by_index(paired)
    for job in runs[:3]:
        ranked.update(job, True)

    def re_key(job: JobRun) -> None:
        ranked.update(job, True, key=(10.0, job.order) if paired else "zz")

    with pytest.raises(RuntimeError, match="during a scan"):
        ranked.scan(re_key)
    with pytest.raises(RuntimeError, match="during a scan"):
        ranked.scan(lambda job: ranked.update(runs[3], True))
    assert ranked.prefix(lambda job: True) == runs[:3]


@pytest.mark.parametrize("paired", [False, True])
def test_kept_orders_follow_a_sorted_list_through_random_updates(paired):
    """`RankedJobs` (key (value, name)) and `PairRanked` (Fair's orders, in typed columns: key
    (value, order)) against a sorted list through random re-keys (`PairRanked` also through
    `update_value`), removals, scans and prefixes. `RankedJobs`'s heap is compacted along the way
    (stale entries never outnumber live ones by much); `PairRanked`'s holds one entry per job in it.
    A scan started within a scan of the same order raises, and leaves the order as it was."""
    from planner.simulator.schedulers.pair_ranked import PairRanked

    rng = random.Random(11 if paired else 7)
    runs = _runs(40)
    for job in runs:
        job.order = (job.index * 17) % 40  # ranks unlike the indexes and the names
    value = {job.index: 0.0 for job in runs}
    ranked = (PairRanked(lambda job: value[job.index]) if paired
              else RankedJobs(lambda job: (value[job.index], job.name)))
    present: set[int] = set()
    for step in range(5_000):
        job = rng.choice(runs)
        if rng.random() < 0.3:
            present.discard(job.index)
            ranked.update(job, False)
        else:
            value[job.index] = rng.choice([0.0, 0.5, 1.0, 2.0, math.inf])
            present.add(job.index)
            if paired and step % 2:
                ranked.update_value(job, True, value[job.index])
            else:
                ranked.update(job, True)
        tie = (lambda i: runs[i].order) if paired else (lambda i: runs[i].name)
        expected = [entry[2] for entry in sorted((value[i], tie(i), runs[i]) for i in present)]
        assert ranked.first() is (expected[0] if expected else None)
        assert len(ranked) == len(expected) and all((job in ranked) == (job.index in present) for job in runs)
        if paired:
            assert ranked.entries.size == len(present)
        else:
            assert len(ranked.heap) <= 2 * len(present) + 65
        skip = rng.randrange(3)
        seen: list[JobRun] = []

        def attempt(job: JobRun, seen=seen, skip=skip, expected=expected) -> JobRun | None:
            if len(seen) == 1:  # scans do not nest
                with pytest.raises(RuntimeError, match="within another"):
                    ranked.prefix(lambda job: True)
            return job if len(seen) == skip else seen.append(job)

        # The (skip + 1)-th job in order, or None; the scan puts back what it passed.
        assert ranked.scan(attempt) is (expected[skip] if len(expected) > skip else None)
        assert ranked.prefix(lambda job: True) == expected
