"""FRESH's kept state (`Fresh`, `fresh.KeptWorks`) agrees with the same things computed
from scratch before every decision, and its cost per job does not grow with the jobs waiting.

FRESH keeps the slot target of Algorithm 3 (RW_m, RW_r, J_a, S f) and the remaining work of each
admitted job between decisions, recomputing only what an attempt's end or an admission changed,
and the running maps as a count. The audit below compares them, at every offered slot of random
small runs, with `target_ours` / `target_literal` over every admitted job; R' is kept sorted by
bisection (`fresh.AdmissionLimit`), checked against the walk from the end it replaced. The counts at the end
show the work per job: O(log n) key comparisons per arrival, a bounded number of remaining-work
evaluations per attempt, whatever the number of jobs.
"""

from __future__ import annotations

import math
import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from models import Cluster, Job
from planner.examples.workloads import set_a_batch
from planner.simulator import Fresh, simulate
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, MAP, REDUCE, build_layout
from planner.simulator.schedulers.fresh import AdmissionLimit
from tests.support.properties import FAST, clusters, fitted, run, schedulers, sim_options, workloads

CLUSTER = Cluster(nodes=10, map_slots=2, reduce_slots=2)


def check_fresh(scheduler: Fresh, kind: int, now: float) -> None:
    """Everything `Fresh` keeps equals its computation from scratch."""
    phases = (scheduler.map_phase, scheduler.reduce_phase, scheduler.reduce_waiting, scheduler.waiting)
    members = [job.index for phase in phases for job in phase]
    assert len(members) == len(set(members))  # a job is in one list at most
    keys = [scheduler._key(job) for job in scheduler.waiting]
    assert keys == sorted(keys)
    running = sum(job.running[MAP] for job in scheduler.sim.active.values())
    assert scheduler.maps_running == running == sum(job.running[MAP] for job in scheduler.map_phase)
    if kind != ANY:
        return
    target = scheduler.slot_target(now)  # from scratch: every admitted job's remaining work
    assert scheduler._typing() == (target.target_maps, target.switched)
    if scheduler.algorithm3 == "ours":
        for each, phase in ((MAP, scheduler.map_phase), (REDUCE, scheduler.reduce_phase)):
            assert scheduler.kept[each].get() == [scheduler.remaining_work(job, each) for job in phase]


class Audited(Fresh):
    """`Fresh` with its kept state checked before each decision (`check_fresh`)."""

    def __init__(self, **settings) -> None:
        super().__init__(**settings)
        self.checks = 0

    def pick(self, node: int, kind: int, now: float):
        self.checks += 1
        check_fresh(self, kind, now)
        return super().pick(node, kind, now)


def audited(scheduler: Fresh) -> Audited:
    """An `Audited` FRESH with ``scheduler``'s settings."""
    return Audited(k=scheduler.k, tau1=scheduler.tau1, tau2=scheduler.tau2, dynamic=scheduler.dynamic,
                   delay=scheduler.delay, algorithm3=scheduler.algorithm3)


@FAST
@given(data=st.data())
def test_kept_target_matches_a_computation_from_scratch(data):
    cluster = data.draw(clusters(), "cluster")
    jobs = data.draw(workloads(("a", "b", "c")), "jobs")
    scheduler = data.draw(schedulers("fresh", cluster.nodes), "scheduler")
    if scheduler.dynamic and data.draw(st.booleans(), "literal"):
        scheduler.algorithm3 = "literal"
    options = data.draw(sim_options(scheduler.dynamic), "options")
    slots = None if scheduler.dynamic else data.draw(st.tuples(st.integers(2, 6), st.integers(2, 4)), "slots")
    cluster = fitted(cluster, slots)
    scheduler = audited(scheduler)
    run(jobs, cluster, scheduler, seed=data.draw(st.integers(0, 3), "seed"), slots=slots, options=options)
    assert scheduler.checks > 0


def test_kept_target_matches_on_a_larger_run():
    """Dozens of jobs through R', R_m and R_r (k = 3), with varied task times and a heartbeat."""
    for algorithm3 in ("ours", "literal"):
        scheduler = audited(Fresh(k=3, tau2=0.3, algorithm3=algorithm3))
        simulate(set_a_batch(30), CLUSTER.with_changes(heartbeat=3.0), scheduler, seed=1)
        assert scheduler.checks > 1000


def _runs(names: list[str], submits: list[float]) -> list[JobRun]:
    layout = build_layout(Cluster(nodes=2, map_slots=1, reduce_slots=1))
    return [JobRun(i, Job(name, 2, 1, 1.0, 1.0, submit=submit), layout, 1, 0.0, 1.0, np.random.default_rng(i))
            for i, (name, submit) in enumerate(zip(names, submits, strict=True))]


class Walked(AdmissionLimit):
    """The admission limit as it was: R' searched from its end, every list searched at a finish."""

    def arrived(self, job: JobRun) -> None:
        key = self.key(job)
        position = len(self.waiting)
        while position and self.key(self.waiting[position - 1]) > key:
            position -= 1
        self.waiting.insert(position, job)

    def finished(self, job: JobRun) -> None:
        for phase in (self.reduce_phase, self.map_phase, self.reduce_waiting, self.waiting):
            if job in phase:
                phase.remove(job)


def test_admission_by_bisection_matches_the_walk_from_the_end():
    rng = random.Random(7)
    for _ in range(50):
        count = rng.randint(1, 40)
        runs = _runs([f"j{rng.randint(0, 999):03d}-{i}" for i in range(count)],
                     [float(rng.choice([0, 0, 1, 5])) for _ in range(count)])
        ranks = {job.name: rng.randint(0, 2) for job in runs if rng.random() < 0.3}

        def key(job: JobRun, ranks: dict[str, int] = ranks) -> tuple[int, float, str]:
            return (ranks.get(job.name, 3), job.submit, job.name)

        kept, walked = AdmissionLimit(2, key), Walked(2, key)
        for job in runs:
            admit = rng.random() < 0.2
            for admission in (kept, walked):
                admission.arrived(job)
                if admit:
                    admission.admit()
            assert kept.waiting == walked.waiting and kept.map_phase == walked.map_phase
        for job in rng.sample(runs, len(runs)):
            if rng.random() < 0.5:
                job.start = 0.0 if job in walked.map_phase else None
                kept.finished(job)
                walked.finished(job)
                assert kept.waiting == walked.waiting and kept.map_phase == walked.map_phase


class Counting(Fresh):
    """Fresh counting the key comparisons of R' and the evaluations of remaining work."""

    def __init__(self, **settings) -> None:
        super().__init__(**settings)
        self.keyed = self.evaluated = 0

    def _key(self, job):
        self.keyed += 1
        return super()._key(job)

    def remaining_work(self, job, kind):
        self.evaluated += 1
        return super().remaining_work(job, kind)


def test_work_per_job_does_not_grow_with_the_jobs_waiting():
    """All jobs submitted at once wait in R': each arrival costs O(log n) key comparisons (the
    walk from the end took O(n) for this workload, whose names interleave), and each attempt a
    bounded number of remaining-work evaluations, the same at 100 and 400 jobs."""
    per_attempt = []
    for count in (100, 400):
        scheduler = Counting(k=5)
        result = simulate(set_a_batch(count), CLUSTER, scheduler)
        assert scheduler.keyed <= count * (math.log2(count) + 3)
        per_attempt.append(scheduler.evaluated / len(result.tasks))
    assert max(per_attempt) < 2.0
    assert abs(per_attempt[1] - per_attempt[0]) < 0.1
