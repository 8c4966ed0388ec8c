"""Natjam-R: every job ordered by deadline (MDF) or laxity (MLF), with margins and deadline
misses; and the Natjam paper's experiments (Cho et al., Figures 3-6 and 10) reproduced in shape,
with the measured numbers quoted, plus same-seed-same-bytes determinism under random victims.
"""

from __future__ import annotations

import numpy as np
import pytest

from models import Cluster, Job
from planner.simulator import Natjam, SimOptions, simulate
from tests.natjam_support import OVERHEADS, TWO, by_name, check_invariants


# -- deadlines ------------------------------------------------------------------------------------------
def test_margin_and_misses_and_mdf_order():
    """Two containers; a and b each 2 maps of 10 s at 0, deadlines 30 and 15. MDF runs b first
    (earliest deadline): b 0-10 (margin 15 - 10 = 5), a 10-20 (margin 10): no miss. Without a
    deadline policy both are research jobs in FIFO order (then by name): a 0-10 (margin 20), b 10-20
    (margin -5): one miss. Jobs without a deadline have margin None."""
    jobs = [Job("a", 2, 0, 10.0, deadline=30.0), Job("b", 2, 0, 10.0, deadline=15.0)]
    mdf = simulate(jobs, TWO, Natjam(deadline_policy="MDF"))
    assert [(r["name"], r["start"], r["finish"], r["deadline"], r["margin"]) for r in mdf.jobs] == [
        ("a", 10.0, 20.0, 30.0, 10.0), ("b", 0.0, 10.0, 15.0, 5.0)]
    assert mdf.deadline_misses == 0 and mdf.summary()["deadline_misses"] == 0
    plain = simulate(jobs, TWO, Natjam())
    assert [(r["name"], r["finish"], r["margin"]) for r in plain.jobs] == [("a", 10.0, 20.0), ("b", 20.0, -5.0)]
    assert plain.deadline_misses == 1 and plain.summary()["deadline_misses"] == 1
    none = simulate([Job("c", 1, 0, 1.0)], TWO, Natjam(deadline_policy="MDF"))
    assert none.jobs[0]["deadline"] is None and none.jobs[0]["margin"] is None and none.deadline_misses == 0


@pytest.mark.parametrize("policy", ["MDF", "MLF"])
def test_natjam_r_evicts_a_job_with_a_later_deadline(policy):
    """a (2 maps of 50 s, deadline 200) holds both containers from 0; b (2 maps of 10 s, deadline 40)
    arrives at 20. MDF: b's deadline is earlier, a ranks below it: both of a's maps are suspended
    (20-21.35), b runs 21.35-31.35 (margin 8.65), a's maps resume with 30 + 3.88 s and end at 65.23
    (margin 134.77). MLF gives the same: at 20 b's laxity is 40 - (20 + 20 s of work at the
    minimum rate 1) = 0; a has done 40 s of its 100 in 20 s (rate 2) with 60 left: laxity
    200 - (20 + 30) = 150; evicting one map costs a 30 + 5.23 s, so a keeps 150 - 35.23 = 114.77,
    then 79.54, both above b's 0. Plain Natjam (both research) lets b wait until 50: it ends at 60
    and misses by 20."""
    jobs = [Job("a", 2, 0, 50.0, deadline=200.0), Job("b", 2, 0, 10.0, submit=20.0, deadline=40.0)]
    result = simulate(jobs, TWO, Natjam(deadline_policy=policy))
    records = by_name(result)
    assert result.suspensions == 2 and result.deadline_misses == 0
    assert records["b"]["finish"] == pytest.approx(31.35) and records["b"]["margin"] == pytest.approx(8.65)
    assert records["a"]["finish"] == pytest.approx(65.23) and records["a"]["margin"] == pytest.approx(134.77)
    check_invariants(result, jobs)
    plain = simulate(jobs, TWO, Natjam())
    assert by_name(plain)["b"]["margin"] == -20.0 and plain.suspensions == 0 and plain.deadline_misses == 1


def test_laxity_without_a_deadline_is_infinite_and_ranks_last():
    """MLF ranks jobs without a deadline after those with one, and MDF too: c (no deadline) was
    submitted first but runs after d (deadline 100)."""
    jobs = [Job("c", 2, 0, 10.0), Job("d", 2, 0, 10.0, submit=0.0, deadline=100.0)]
    for policy in ("MDF", "MLF"):
        result = simulate(jobs, TWO, Natjam(deadline_policy=policy))
        assert [(r["name"], r["start"]) for r in result.jobs] == [("c", 10.0), ("d", 0.0)]


# -- the paper's experiments -----------------------------------------------------------------------------
#: 12 nodes x (2 + 2) = 48 containers, as in the Natjam microbenchmarks.
CLUSTER_48 = Cluster(nodes=12, map_slots=2, reduce_slots=2, heartbeat=0)


def research_xl_times() -> list[float]:
    """Research-XL's 47 reduce times: uniform in (0.5, 1] of the longest, the longest chosen as
    192 / 0.75 = 256 s so that the mean is about 192 s (measured mean 195.5 s, longest 255.64 s)."""
    rng = np.random.default_rng(0)
    longest = 192.0 / 0.75
    return (rng.uniform(0.5, 1.0, 47) * longest).tolist()


RESEARCH_XL = Job("research-xl", 48, 47, 5.0, 192.0, priority=0)
PRODUCTION_S = Job("production-s", 12, 11, 5.0, 70.0, submit=50.0, priority=1)
MICRO = [RESEARCH_XL, PRODUCTION_S]
MICRO_TIMES = SimOptions(task_times={"research-xl": {"reduce": research_xl_times()}})


@pytest.fixture(scope="module")
def micro() -> dict[tuple[str, str], object]:
    return {
        (mode, policy): simulate(MICRO, CLUSTER_48, Natjam(task_eviction=policy, mode=mode), options=MICRO_TIMES)
        for mode in ("suspend", "kill")
        for policy in ("SRT", "random", "LRT")
    }


def test_microbenchmark_task_eviction_policies(micro):
    """Natjam Figures 3-5. Research-XL (48 maps of 5 s, 47 reduces of about 192 s replayed) takes
    the 48 containers at 0; Production-S (12 maps of 5 s, 11 reduces of 70 s) arrives at 50.

    Alone on the empty cluster Production-S runs its maps 50-56 (the rack-local ones 1.2 x 5 s)
    and its reduces 56-126: response 76.0. Under Natjam (suspend) it waits 1.35 s for the
    checkpoints of its maps' containers and 1.35 s again for its reduces' (containers freed by its
    node-local maps at 56.35 went back to research before the last maps opened its reduces):
    78.7 s, within 15% (+3.6%).

    Research-XL alone ends at 6 + 255.64 (its longest reduce) = 261.64. SRT suspends the reduces
    nearest their end, which then finish before the longest one anyway: 261.6, unchanged. Random
    victims include long reduces (297.0), LRT suspends the longest ones and delays the job most
    (measured 342.9 s; the paper's order SRT < random < LRT)."""
    alone = simulate([PRODUCTION_S], CLUSTER_48, Natjam())
    assert alone.job("production-s")["response"] == pytest.approx(76.0)
    xl = {policy: micro[("suspend", policy)].job("research-xl")["finish"] for policy in ("SRT", "random", "LRT")}
    assert xl["SRT"] < xl["random"] < xl["LRT"]
    assert xl["SRT"] == pytest.approx(261.64, abs=0.05)
    assert xl["random"] == pytest.approx(297.0, abs=0.5) and xl["LRT"] == pytest.approx(342.9, abs=0.5)
    for policy in ("SRT", "random", "LRT"):
        response = micro[("suspend", policy)].job("production-s")["response"]
        assert response <= 1.15 * 76.0
        assert response == pytest.approx(78.7)
    srt = micro[("suspend", "SRT")]
    assert srt.suspensions == 18 and srt.kills == 0
    assert srt.wasted_work == pytest.approx(18 * OVERHEADS) and srt.killed_work == 0.0


def test_microbenchmark_kill_mode_is_later_than_suspend(micro):
    """Kill mode: Production-S responds as if alone (kills free containers at once: 76.0) but the
    killed reduces start over, so Research-XL ends later than under suspend for every task policy
    (SRT: 304.1 against 261.6); the wasted work is the killed work (SRT: 834 slot-seconds against
    18 x 5.23 = 94.1 of overheads)."""
    for policy in ("SRT", "random", "LRT"):
        killed, suspended = micro[("kill", policy)], micro[("suspend", policy)]
        assert killed.job("research-xl")["finish"] > suspended.job("research-xl")["finish"]
        assert killed.job("production-s")["response"] == pytest.approx(76.0)
        assert killed.suspensions == 0 and killed.kills > 0 and killed.overhead_seconds == 0.0
        assert killed.wasted_work == killed.killed_work > suspended.wasted_work
    kill_srt = micro[("kill", "SRT")]
    assert kill_srt.job("research-xl")["finish"] == pytest.approx(304.1, abs=0.05)
    assert kill_srt.kills == 18 and kill_srt.killed_work == pytest.approx(834.0)


def test_microbenchmark_runs_keep_every_invariant(micro):
    for result in micro.values():
        assert all(record["finish"] is not None for record in result.jobs)
        check_invariants(result, MICRO)


EVICTION = [
    Job("research-l", 30, 30, 5.0, 150.0),
    Job("research-s", 4, 8, 5.0, 80.0),
    Job("production", 12, 20, 5.0, 60.0, submit=50.0, priority=1),
]


def test_job_eviction_lr_evicts_the_small_job():
    """Natjam Figure 6, 48 containers. Research-L (30 maps, 30 reduces of 150 s) and Research-S
    (4 maps, 8 reduces of 80 s) start at 0: Research-S's reduces run about 6-86 on 8 containers,
    Research-L's on 30. Production (12 maps, 20 reduces of 60 s) arrives at 50 and needs more than
    the 10 free containers. MR takes them from Research-L (30 containers), so Research-S ends
    undisturbed at 86.0; LR takes them from Research-S first (fewest containers), whose suspended
    reduces wait for free containers and end at 149.9. Research-L ends at 219.9 under both, and
    Production at 118.7."""
    finishes = {}
    for policy in ("MR", "LR"):
        result = simulate(EVICTION, CLUSTER_48, Natjam(job_eviction=policy))
        check_invariants(result, EVICTION)
        finishes[policy] = {record["name"]: record["finish"] for record in result.jobs}
        victims = {t["job"] for t in result.tasks if t["fate"] == "suspended"}
        assert ("research-s" in victims) == (policy == "LR")
    assert finishes["LR"]["research-s"] > finishes["MR"]["research-s"]
    assert finishes["MR"]["research-s"] == pytest.approx(86.0)
    assert finishes["LR"]["research-s"] == pytest.approx(149.9, abs=0.05)
    assert finishes["MR"]["production"] == finishes["LR"]["production"] == pytest.approx(118.7)


#: 7 nodes x (2 + 1) = 21 containers, as in the Natjam-R experiment.
CLUSTER_21 = Cluster(nodes=7, map_slots=2, reduce_slots=1, heartbeat=0)
DEADLINE_JOBS = [Job(f"j{i}", 8, 50, 25.0, 19.0, submit=5.0 * i, deadline=d) for i, d in enumerate((200, 190, 180))]


def test_natjam_r_mdf_meets_every_deadline_and_mlf_does_not():
    """Natjam Figure 10. Each job alone: 8 maps (30 s, rack-local 1.2 x 25) then 50 reduces of
    19 s on 21 containers in 3 waves (57 s): 87.0 s. Submitted at 0, 5 and 10 with deadlines 200,
    190, 180 (the last submitted is the most urgent). Together they need 3 x 1,250 slot-s of
    work on 21 containers, about 180 s, so the deadlines are tight.

    MDF serves j2, then j1, then j0, suspending the others' tasks for the most urgent one (each
    once it has run min_run): measured j2 ends at 100.16, j1 at 138.16, j0 at 194.58: all met
    (25 suspensions). MLF's laxities converge as jobs progress, so it spreads containers over all
    three (169 suspensions, with their overheads) and ends the batch later: measured j0 223.96,
    j1 224.29, j2 215.79, all three missed."""
    alone = simulate(DEADLINE_JOBS[:1], CLUSTER_21, Natjam())
    assert alone.makespan == pytest.approx(87.0)
    mdf = simulate(DEADLINE_JOBS, CLUSTER_21, Natjam(deadline_policy="MDF"))
    mlf = simulate(DEADLINE_JOBS, CLUSTER_21, Natjam(deadline_policy="MLF"))
    for result in (mdf, mlf):
        check_invariants(result, DEADLINE_JOBS)
    assert mdf.deadline_misses == 0 and all(record["margin"] >= 0 for record in mdf.jobs)
    assert [record["finish"] for record in mdf.jobs] == pytest.approx([194.58, 138.16, 100.16])
    assert mlf.deadline_misses >= 1
    assert mlf.makespan > mdf.makespan == pytest.approx(194.58)
    assert mlf.suspensions > mdf.suspensions


# -- determinism -----------------------------------------------------------------------------------------
def test_same_seed_same_bytes():
    """Noisy task times, random victims (PR, random task eviction), kill and suspend: the same
    seed gives the same JSON bytes; another seed differs."""
    jobs = [Job("a", 10, 6, 4.0, 12.0), Job("b", 6, 4, 3.0, 9.0, submit=2.0),
            Job("p", 6, 3, 2.0, 5.0, submit=15.0, priority=1, deadline=60.0)]
    cluster = Cluster(nodes=3, racks=2, map_slots=2, reduce_slots=1, heartbeat=1.0)
    options = SimOptions(task_time_cv=0.5, reduce_slowstart=0.5)
    for scheduler in (lambda: Natjam(job_eviction="PR", task_eviction="random"),
                      lambda: Natjam(mode="kill", min_run=1.0), lambda: Natjam(deadline_policy="MLF")):
        first = simulate(jobs, cluster, scheduler(), seed=5, options=options)
        assert first.to_json() == simulate(jobs, cluster, scheduler(), seed=5, options=options).to_json()
        assert first.to_json() != simulate(jobs, cluster, scheduler(), seed=6, options=options).to_json()
        check_invariants(first, jobs)

