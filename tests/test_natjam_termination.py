"""Natjam and Natjam-R terminate: no combination of settings evicts for ever. Zero overheads with
delay scheduling, MLF in kill mode (and a kill never undone), suspensions only once the attempt
has banked more than the resume overhead, checkpoint-free suspensions that all complete, whole
mixed batches under every setting, and every job eviction x task eviction x mode x deadline
policy on small adversarial inputs, each run within `run`'s alarm, with every invariant and the
eviction bound checked. Hand traces use the default overheads (1.35 s suspend, 3.88 s resume,
min_run 10.46 s) unless they say otherwise.
"""

from __future__ import annotations

import itertools

import pytest

from models import Cluster, Job
from planner.simulator import Natjam, SimOptions
from tests.support.natjam import TWO, attempts, by_name, check_evictions_bounded, check_invariants, run


def test_zero_overheads_and_delay_scheduling_do_not_evict_for_ever():
    """Natjam-R (MDF) with free suspensions (both overheads 0, so min_run is the floor MIN_RUN)
    and delay scheduling. 2 nodes x 2 containers, one rack each, replication 1; j0 (1 map), j1 and j2 (3 maps
    of 1 s each), no deadlines, so they rank by name. At 0 j1's third map, whose block is on the
    other node, is the head's pending task; at 0.01 (min_run) j2's map on node 0 is suspended for
    it, but j1 declines the container (not node-local, and rack_wait 2 s forbids off-rack), so j2
    resumes on it. With min_run 0 this went on for ever without time advancing; with min_run
    alone, every 0.01 s until a container on j1's node freed at 1 (99 suspensions). Evictions are
    now matched by launches: j1 has launched nothing since a container was taken back for it, so
    no other is: one suspension. j1's map runs on node 1 at 1-2 and every job finishes by 3."""
    jobs = [Job("j0", 1, 0, 1.0), Job("j1", 3, 0, 1.0), Job("j2", 3, 0, 1.0)]
    cluster = Cluster(nodes=2, racks=2, map_slots=1, reduce_slots=1, heartbeat=0, replication=1)
    scheduler = Natjam(deadline_policy="MDF", suspend_overhead=0.0, resume_overhead=0.0, delay=(0.0, 2.0),
                       evict_maps=True)
    result = run(jobs, cluster, scheduler)
    check_invariants(result, jobs)
    assert attempts(result, "suspended") == [("j2", "map", 2, 0, 1, 0.0, 0.01, "suspended")]
    assert ("j1", "map", 1, 1, 2, 1.0, 2.0, "done") in attempts(result) and result.makespan == 3.0



def test_mlf_kill_mode_does_not_evict_for_ever():
    """MLF in kill mode. Two containers; a and b (2 maps of 11 s each, deadline 10: both will miss)
    at 0, x (1 map of 1 s, no deadline) at 5. At 0 a and b have the same laxity (10 - 22 s of work
    at the even share 1) and a, first by name, takes both containers. At 5 a has done 10 of its
    22 s at rate 2: laxity 10 - (5 + 12 / 2) = -1; b has done nothing, its rate is the even share
    2/3: 10 - (5 + 22 x 3/2) = -28. b is the head but a's maps are protected until 10.46.

    At 10.46 a's laxity is 10 - (10.46 + 1.08 / 2) = -1, b's -33.46. Killing a's map 0 (slot 0,
    SRT's tie) leaves a 0.54 + 11 s of work at rate 10.46 / 10.46 = 1: laxity -12, still after b:
    killed. Killing map 1 too would leave a nothing done, so the even-share rate and b's laxity
    -33.46, and a first by name: the container would go straight back to a (which is what the
    old rule let happen, a's maps killed every 10.46 s for ever): not killed. b runs 10.46-21.46
    on slot 0; at 11 a's map 1 ends and b (-22.46) ranks before a (-12): b's map 1 runs 11-22.
    a's map 0 starts over at 21.46 (ends 32.46), x runs 22-23. One kill, 10.46 s of killed work;
    a and b miss their deadline by 22.46 and 12."""
    jobs = [Job("x", 1, 0, 1.0, submit=5.0), Job("a", 2, 0, 11.0, deadline=10.0), Job("b", 2, 0, 11.0, deadline=10.0)]
    result = run(jobs, TWO, Natjam(deadline_policy="MLF", mode="kill", evict_maps=True))
    check_invariants(result, jobs)
    assert result.suspensions == 0 and result.deadline_misses == 2
    assert attempts(result) == [
        ("a", "map", 0, 0, 0, 0.0, pytest.approx(10.46), "killed"),
        ("a", "map", 1, 0, 1, 0.0, 11.0, "done"),
        ("b", "map", 0, 0, 0, pytest.approx(10.46), pytest.approx(21.46), "done"),
        ("b", "map", 1, 0, 1, 11.0, 22.0, "done"),
        ("a", "map", 0, 0, 0, pytest.approx(21.46), pytest.approx(32.46), "done"),
        ("x", "map", 0, 0, 1, 22.0, 23.0, "done"),
    ]
    assert result.kills == 1 and result.killed_work == pytest.approx(10.46)
    assert [(r["name"], r["finish"], r["margin"]) for r in result.jobs] == [
        ("x", 23.0, None), ("a", pytest.approx(32.46), pytest.approx(-22.46)), ("b", 22.0, -12.0)]


def test_mlf_kill_is_never_undone():
    """MLF in kill mode: once a task of a was killed for c, no task of c is killed for a. Two
    containers; a (1 map of 15 s, deadline 5) at 0, c (2 maps of 20 s, deadline 12) at 2, b (1 map
    of 3 s, deadline 25) at 5. a's map runs on slot 0 from 0, c's map 0 on slot 1 from 2. At 10.46
    (a's map has run min_run) a's laxity is 5 - (10.46 + 4.54 at rate 1) = -10, c's 12 - (10.46 +
    11.54 + 20 at rate 1) = -30: a's map is killed (a is left with 15 s to do at the even share
    2/3, laxity -27.96, still after c) and c's map 1 runs on slot 0 10.46-30.46.

    Laxities drift: at 20.92 (c's map 1 has run min_run) a's is -38.42 and c's -15.76, a is the
    head, and killing c's map 1 (9.54 s left) would pass the margin (slack 22.66 > 9.54 + 10.46)
    and leave c after a (-30): a kill for a would undo the kill for c, throwing away 10.46 s more
    (measured without the rule: 2 kills, c ending at 42). Not killed: c's map 0 ends at 22 and a
    runs 22-37 on slot 1; c ends at 30.46, b runs 30.46-33.46."""
    jobs = [Job("a", 1, 0, 15.0, deadline=5.0), Job("b", 1, 0, 3.0, submit=5.0, deadline=25.0),
            Job("c", 2, 0, 20.0, submit=2.0, deadline=12.0)]
    result = run(jobs, TWO, Natjam(deadline_policy="MLF", mode="kill", evict_maps=True))
    check_invariants(result, jobs)
    assert attempts(result, "killed") == [("a", "map", 0, 0, 0, 0.0, pytest.approx(10.46), "killed")]
    assert result.kills == 1 and result.killed_work == pytest.approx(10.46)
    assert [(r["name"], r["start"], r["finish"]) for r in result.jobs] == [
        ("a", 0.0, 37.0), ("b", pytest.approx(30.46), pytest.approx(33.46)), ("c", 2.0, pytest.approx(30.46))]


def test_mlf_suspends_an_attempt_only_once_it_has_banked_more_than_the_resume_overhead():
    """MLF in suspend mode with min_run 0.01, below the resume overhead 3.88: a suspension after
    0.01 s would add 3.88 s of work for 0.01 s done, and MLF's moving laxities could repeat that
    for ever. An attempt is suspended once it has computed max(min_run, 3.88 + 0.01) = 3.89 s.
    Two containers; a (2 maps of 50 s, deadline 200) holds both from 0; b (2 maps of 10 s,
    deadline 40) arrives at 2. MDF suspends a's maps at 2 (checkpoints to 3.35; they resume with
    48 + 3.88 s at 13.35). MLF waits until 3.89 (b's laxity 40 - (3.89 + 20) = 16.11, a's
    200 - (3.89 + 92.22 / 2) = 150: the slack 133.89 pays each map's margin 46.11 + 5.23 twice)
    and suspends both: checkpoints to 5.24, b runs 5.24-15.24, a's maps resume with
    50 - 3.89 + 3.88 = 49.99 s and end at 65.23, as under MDF."""
    jobs = [Job("a", 2, 0, 50.0, deadline=200.0), Job("b", 2, 0, 10.0, submit=2.0, deadline=40.0)]
    mdf = run(jobs, TWO, Natjam(deadline_policy="MDF", min_run=0.01, evict_maps=True))
    mlf = run(jobs, TWO, Natjam(deadline_policy="MLF", min_run=0.01, evict_maps=True))
    assert Natjam(deadline_policy="MLF", min_run=0.01).banks == pytest.approx(3.89)
    assert Natjam().banks == Natjam().min_run  # the default min_run already banks more than 3.88
    for result, suspended in ((mdf, 3.35), (mlf, 5.24)):
        check_invariants(result, jobs)
        assert [a[6] for a in attempts(result, "suspended")] == pytest.approx([suspended, suspended])
        assert by_name(result)["b"]["finish"] == pytest.approx(suspended + 10.0)
        assert by_name(result)["a"]["finish"] == pytest.approx(65.23)


def test_suspensions_without_checkpoint_time_all_complete():
    """suspend_overhead 0: a suspension ends in the instant it starts, and several rounds of them
    may happen in one instant. 4 containers; j0 (research, no deadline) runs maps of 1, 100, 100
    and 100 s (replayed) from 0. At 1 its short map ends; h (1 map of 10 s, 2 reduces of 1 s,
    deadline 50) and g (1 map of 1 s, deadline 60) arrive; slow-start 0. MDF: h's map takes the
    free container (1-11); h, the head, still has 2 reduces pending, so two of j0's maps are
    suspended (ending at once, at 1) and h's reducers take their containers (copying until 11).
    Then g is the head: a third map of j0 is suspended, again ending at 1, and g runs 1-2. At 2 one
    suspended map resumes with its 99 s (ends 101); at 11 h's map frees its container for the next
    (ends 110); h's reducers compute 11-12, then the last resumes (ends 111). Three suspensions;
    every job finishes (j0 at 111, h 12, g 2). (The third suspension's end, due in the instant
    whose batch of ends was already processed, used to join that spent batch and never happen.)"""
    cluster = Cluster(nodes=1, map_slots=2, reduce_slots=2, heartbeat=0)
    jobs = [Job("j0", 4, 0, 100.0), Job("h", 1, 2, 10.0, 1.0, submit=1.0, deadline=50.0),
            Job("g", 1, 0, 1.0, submit=1.0, deadline=60.0)]
    options = SimOptions(reduce_slowstart=0.0, task_times={"j0": {"map": [1.0, 100.0, 100.0, 100.0]}})
    scheduler = Natjam(deadline_policy="MDF", suspend_overhead=0.0, resume_overhead=0.0, evict_maps=True)
    result = run(jobs, cluster, scheduler, options=options)
    check_invariants(result, jobs)
    assert result.suspensions == 3
    assert {name: record["finish"] for name, record in by_name(result).items()} == {"j0": 111.0, "h": 12.0, "g": 2.0}


@pytest.mark.parametrize("heartbeat", [0.0, 3.0])
@pytest.mark.parametrize(
    "settings",
    [{}, {"mode": "kill"}, {"job_eviction": "LR", "task_eviction": "LRT"}, {"job_eviction": "PR"},
     {"deadline_policy": "MDF"}, {"deadline_policy": "MLF"}, {"evict_maps": True},
     {"mode": "kill", "evict_maps": True}, {"deadline_policy": "MLF", "evict_maps": True}],
)
def test_every_job_finishes_and_the_invariants_hold(settings, heartbeat):
    """A mixed batch (research first, production jobs arriving into a busy cluster, deadlines,
    slow-start 0.5, noisy times) with heartbeats or without: every job finishes, every invariant
    holds, and evictions happen."""
    jobs = [
        Job("big", 24, 12, 6.0, 30.0),
        Job("mid", 10, 5, 4.0, 20.0, submit=3.0, deadline=150.0),
        Job("prod1", 8, 4, 3.0, 8.0, submit=25.0, priority=1, deadline=80.0),
        Job("prod2", 6, 2, 2.0, 6.0, submit=40.0, priority=2, deadline=90.0),
        Job("late", 4, 2, 2.0, 4.0, submit=45.0),
    ]
    cluster = Cluster(nodes=4, racks=2, map_slots=2, reduce_slots=1, heartbeat=heartbeat)
    options = SimOptions(task_time_cv=0.3, reduce_slowstart=0.5)
    result = run(jobs, cluster, Natjam(**settings), seed=2, options=options)
    assert all(record["finish"] is not None for record in result.jobs)
    assert result.suspensions + result.kills > 0
    check_invariants(result, jobs)


#: Small inputs that made eviction go on for ever (or for long) under some combination, old rules.
ADVERSARIAL = {
    # MLF + kill: a's killed maps leave it out-ranking b at once (test_mlf_kill_mode_does_not_evict_for_ever).
    "three jobs": ([Job("x", 1, 0, 1.0, submit=5.0), Job("a", 2, 0, 11.0, deadline=10.0),
                    Job("b", 2, 0, 11.0, deadline=10.0)], TWO, SimOptions(), None),
    # MLF + kill, found by a random search: kills every 10.46 s for ever.
    "tight deadlines": ([Job("j0", 3, 0, 11.0, submit=1.0, deadline=11.0), Job("j1", 2, 0, 3.0, submit=1.0, deadline=2.0),
                         Job("j2", 3, 0, 11.0, deadline=10.0)], TWO, SimOptions(), None),
    # Delay scheduling: the head declines the containers taken back for it (99 suspensions under MDF).
    "declined": ([Job("j0", 1, 0, 1.0), Job("j1", 3, 0, 1.0), Job("j2", 3, 0, 1.0)],
                 Cluster(nodes=2, racks=2, map_slots=1, reduce_slots=1, heartbeat=0, replication=1), SimOptions(),
                 (0.0, 2.0)),
    # Heartbeats (freed containers offered later, maybe to others), copying reducers, both classes.
    "copying": ([Job("r", 4, 2, 7.0, 5.0, deadline=15.0), Job("p", 2, 2, 9.0, 4.0, submit=1.0, priority=1, deadline=15.0),
                 Job("q", 3, 0, 3.0, submit=2.0, deadline=12.0), Job("u", 1, 1, 20.0, 20.0, submit=0.5, priority=2)],
                Cluster(nodes=2, map_slots=1, reduce_slots=1, heartbeat=1.0), SimOptions(reduce_slowstart=0.0), None),
}


@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_every_combination_ends_on_adversarial_inputs(case):
    """Every job eviction x task eviction x mode x deadline policy x reduce-only or maps too, with
    the default overheads and min_run, with min_run 0.01 (below the resume overhead) and with free
    suspensions, on small inputs that used to evict for ever (with maps evicted): each run ends
    within `run`'s 3 s alarm (measured: all 1,296 in about a second), every job finishes, every
    invariant holds, and the evictions stay within `eviction_bound` (T (n - 1), or the work bound
    of MLF with suspensions)."""
    jobs, cluster, options, delay = ADVERSARIAL[case]
    variants = ({}, {"min_run": 0.01}, {"suspend_overhead": 0.0, "resume_overhead": 0.0})
    for job_eviction, task_eviction, mode, deadline_policy, variant, evict_maps in itertools.product(
            ("MR", "LR", "PR"), ("SRT", "LRT", "random"), ("suspend", "kill"), (None, "MDF", "MLF"), variants,
            (False, True)):
        scheduler = Natjam(job_eviction=job_eviction, task_eviction=task_eviction, mode=mode,
                           deadline_policy=deadline_policy, delay=delay, evict_maps=evict_maps, **variant)
        result = run(jobs, cluster, scheduler, options=options)
        assert all(record["finish"] is not None for record in result.jobs), scheduler
        check_invariants(result, jobs)
        check_evictions_bounded(result, jobs, scheduler)
