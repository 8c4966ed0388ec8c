"""The Natjam paper's microbenchmarks (Cho et al., Section 5, Figures 3-6) as the paper ran them,
and same-seed-same-bytes determinism under random victims. Natjam-R is in test_natjam_r.py.

The set-up (`tests.support.natjam`): 48 containers (6 workers x 8), the paper's 1 s heartbeat,
Hadoop 0.23's reduce slow-start 0.05, reduces only evicted (the paper's Section 2.2), MR job and
SRT task eviction unless a test says otherwise. Figure 3's "Avg Time" is each job's ideal
completion time (Figure 5's caption: "The ideal job completion times are shown in Fig. 3"; the
text agrees: SRT's 197.0 s is "only 4.7 s worse than ideal", 192.3 + 4.7). So every job is
calibrated (`micro_job`): one map of 5 s per container it fills, reduces uniform in (0.5, 1] of
the longest, the longest L chosen so that the job alone on the empty cluster, submitted when it is
in the experiment, completes in exactly Figure 3's time. Research-XL (192.3 s) gets L = 185.47 s
(maps and heartbeats take the other 6.83 s), mean reduce about 142 s; Production-S (70.4 s)
L = 64.23 s; Production-L (67.0 s) L = 60.33 s.

The paper reports the mean of five runs; we run five seeds (0-4: the reduce lengths and the random
victims) and compare means. Research completion times are asserted within `TOLERANCE` (8%) of the
paper's means, our own means to 0.01 s, and the paper's orderings exactly. Where a paper result
does not hold, the test asserts our number and the direction, and docs/fidelity.md says why.
"""

from __future__ import annotations

import numpy as np
import pytest

from models import Cluster, Job
from planner.simulator import Natjam, SimOptions, simulate
from tests.support.natjam import FIGURE_3, PAPER_48, check_invariants, micro_job, micro_run

SEEDS = range(5)  # the paper's datapoints are the mean of five runs
TOLERANCE = 0.08
POLICIES = ("SRT", "random", "LRT")
XL = ("research-xl", "research-xl", 0.0)


def mean_response(results, name: str) -> float:
    return float(np.mean([result.job(name)["response"] for _, result in results]))


def near_paper(ours: float, paper: float) -> bool:
    return abs(ours - paper) <= TOLERANCE * paper


@pytest.fixture(scope="module")
def figure_5():
    """(production, mode, task policy) -> the five runs (jobs, result): Research-XL at 0, the
    production job at 50."""
    return {
        (production, mode, policy): [
            micro_run([XL, (production, production, 50.0)], seed, Natjam(task_eviction=policy, mode=mode))
            for seed in SEEDS
        ]
        for production in ("production-s", "production-l")
        for mode in ("suspend", "kill")
        for policy in POLICIES
    }


def test_figure_3_jobs_complete_alone_in_their_ideal_times():
    """Each calibrated job, alone on the empty cluster, completes in Figure 3's time (to 1e-9 s),
    its reduces within (0.5, 1] of the longest."""
    for size, (count, ideal) in FIGURE_3.items():
        submit = 50.0 if size.startswith("production") else 0.0
        for seed in (0, 3):
            job, times = micro_job(size, seed, 1, submit=submit)
            assert (job.map_tasks, job.reduce_tasks, job.submit) == (count + 1, count, submit)
            assert min(times) > 0.5 * max(times)
            options = SimOptions(reduce_slowstart=0.05, task_times={size: {"reduce": list(times)}})
            alone = simulate([job], PAPER_48, Natjam(), options=options)
            assert alone.job(size)["response"] == pytest.approx(ideal, abs=1e-9)
    assert max(micro_job("research-xl", 0, 0)[1]) == pytest.approx(185.47, abs=0.005)
    assert max(micro_job("production-s", 0, 1, submit=50.0)[1]) == pytest.approx(64.23, abs=0.005)


#: Figure 5: (production job, task policy) -> the paper's mean completion times (production,
#: Research-XL), and ours (five seeds).
PAPER_FIGURE_5 = {
    ("production-s", "random"): (76.6, 237.6), ("production-s", "LRT"): (78.8, 247.2),
    ("production-s", "SRT"): (75.6, 197.0),
    ("production-l", "random"): (75.0, 244.2), ("production-l", "LRT"): (75.8, 246.6),
    ("production-l", "SRT"): (74.2, 234.6),
}
OURS_FIGURE_5 = {
    ("production-s", "random"): (72.30, 248.69), ("production-s", "LRT"): (72.43, 256.52),
    ("production-s", "SRT"): (72.27, 192.87),
    ("production-l", "random"): (68.67, 256.72), ("production-l", "LRT"): (68.67, 261.27),
    ("production-l", "SRT"): (68.67, 227.25),
}


@pytest.mark.parametrize("production", ["production-s", "production-l"])
def test_figure_5_task_eviction_policies(figure_5, production):
    """Natjam Figure 5: Research-XL at 0, Production-S (top half) or Production-L (bottom half)
    at 50; research completion time (s), the paper's mean (s.d.) against ours:

    | production | policy | paper | ours |
    |---|---|---|---|
    | S | SRT | 197.0 (5.1) | 192.87 |
    | S | random | 237.6 (7.8) | 248.69 |
    | S | LRT | 247.2 (6.3) | 256.52 |
    | L | SRT | 234.6 (3.4) | 227.25 |
    | L | random | 244.2 (5.6) | 256.72 |
    | L | LRT | 246.6 (6.8) | 261.27 |

    The paper's order SRT < random < LRT holds for both; SRT is worse with the larger production
    job and random and LRT about as in the top half, as the paper says. The production job "incurred
    similar overhead compared to an empty cluster": the paper's 74.2-78.8 s against ideals of 70.4
    and 67.0 (up to +12%); ours 72.3 (+2.7%) and 68.7 (+2.5%), less overhead than the paper
    measured (no AM start-up, no reclaim round-trips through heartbeats). Only reduces are
    evicted: 21 suspensions with Production-S (12 containers for its maps, then 11 for its
    reduces when they are asked for), 47 with Production-L."""
    ideal = FIGURE_3[production][1]
    research = {}
    for policy in POLICIES:
        runs = figure_5[(production, "suspend", policy)]
        ours = (mean_response(runs, production), mean_response(runs, "research-xl"))
        assert ours == pytest.approx(OURS_FIGURE_5[(production, policy)], abs=0.01)
        paper_production, paper_research = PAPER_FIGURE_5[(production, policy)]
        assert near_paper(ours[1], paper_research)
        assert ideal < ours[0] <= 1.1 * ideal and ours[0] < paper_production
        research[policy] = ours[1]
        for _, result in runs:
            assert all(t["kind"] == "reduce" for t in result.tasks if t["fate"] == "suspended")
            assert result.suspensions == (21 if production == "production-s" else 47)
    assert research["SRT"] < research["random"] < research["LRT"]
    if production == "production-l":
        small = {policy: mean_response(figure_5[("production-s", "suspend", policy)], "research-xl")
                 for policy in POLICIES}
        assert research["SRT"] > small["SRT"] + 30
        assert all(abs(research[policy] - small[policy]) < 10 for policy in ("random", "LRT"))


def test_figure_4_kill_against_suspend(figure_5):
    """Natjam Figure 4 (Research-XL at 0, Production-S at 50, MR/SRT). Natjam: the paper's research
    job is 4.7 s (2%) and its production job 5.4 s (7%) worse than ideal; ours 0.57 s (0.3%) and
    1.87 s (2.7%). Killing instead of suspending "prolongs research jobs by 23%" (236.5 s) and
    finishes the production job fast: ours prolongs Research-XL by 12.9% (217.07 s) and the
    production job responds in 70.53 s (ideal 70.4). The direction holds, the size does not
    (docs/fidelity.md: a killed reduce starts over with the work it had done, 44-50 s at 50 s,
    and runs beside the production job). For every task policy and both production jobs, killing
    ends Research-XL later than suspending."""
    suspend = figure_5[("production-s", "suspend", "SRT")]
    killed = figure_5[("production-s", "kill", "SRT")]
    assert mean_response(suspend, "research-xl") - 192.3 == pytest.approx(0.57, abs=0.01)
    assert mean_response(suspend, "production-s") - 70.4 == pytest.approx(1.87, abs=0.01)
    assert mean_response(killed, "research-xl") == pytest.approx(217.07, abs=0.01)
    assert mean_response(killed, "research-xl") / 192.3 - 1 == pytest.approx(0.129, abs=0.001)  # paper 0.23
    assert mean_response(killed, "production-s") == pytest.approx(70.53, abs=0.01)
    for production in ("production-s", "production-l"):
        for policy in POLICIES:
            kill_runs = figure_5[(production, "kill", policy)]
            suspend_runs = figure_5[(production, "suspend", policy)]
            assert mean_response(kill_runs, "research-xl") > mean_response(suspend_runs, "research-xl")
            assert mean_response(kill_runs, production) < mean_response(suspend_runs, production)
            assert all(result.suspensions == 0 and result.kills > 0 for _, result in kill_runs)


#: Figure 6: (pair, policy) -> the paper's mean completion times of the two research jobs, and ours.
PAPER_FIGURE_6 = {
    ("m", "PR"): (195.8, 201.2), ("m", "MR"): (196.2, 200.6), ("m", "LR"): (200.6, 228.8),
    ("ls", "PR"): (201.6, 213.8), ("ls", "MR"): (195.8, 204.8), ("ls", "LR"): (195.8, 252.4),
}
OURS_FIGURE_6 = {
    ("m", "PR"): (195.60, 196.10), ("m", "MR"): (195.60, 196.10), ("m", "LR"): (195.90, 212.73),
    ("ls", "PR"): (193.77, 208.00), ("ls", "MR"): (196.32, 203.27), ("ls", "LR"): (193.77, 239.17),
}
PAIRS = {"m": [("research-m", "research-m1", 0.0), ("research-m", "research-m2", 0.0)],
         "ls": [("research-l", "research-l", 0.0), ("research-s", "research-s", 0.0)]}


def test_figure_6_job_eviction_policies():
    """Natjam Figure 6 (SRT task eviction): two research jobs at 0, two Research-M's (top half) or
    Research-L and Research-S (bottom half), Production-S at 50; research completion times (s),
    the paper's mean against ours (two M's: the better and the worse of the two per run):

    | jobs | policy | paper | ours |
    |---|---|---|---|
    | M, M | PR | 195.8, 201.2 | 195.60, 196.10 |
    | M, M | MR | 196.2, 200.6 | 195.60, 196.10 |
    | M, M | LR | 200.6, 228.8 | 195.90, 212.73 |
    | L, S | PR | 201.6, 213.8 | 193.77, 208.00 |
    | L, S | MR | 195.8, 204.8 | 196.32, 203.27 |
    | L, S | LR | 195.8, 252.4 | 193.77, 239.17 |

    As in the paper: with comparable jobs PR and MR are within 2 s of each other and LR is worst
    (it keeps evicting the job it started on); with a heterogeneous mix Research-S fares best under
    MR, then PR, worst under LR; "MR evicted no tasks at all from the Research-S job". Not as in the
    paper: PR does not penalise Research-L more than LR (193.77 under both, its ideal 193.8 less a
    heartbeat's rounding: SRT keeps Research-L's tail), and the two M's under PR and MR end as if
    alone or 0.5 s later, where the paper measured 5 s. Production-S responds in 72.1-72.6 s
    (ideal 70.4), "close to ideal" as in the paper."""
    for pair, sizes in PAIRS.items():
        names = [name for _, name, _ in sizes]
        means = {}
        for policy in ("PR", "MR", "LR"):
            runs = [micro_run([*sizes, ("production-s", "production-s", 50.0)], seed, Natjam(job_eviction=policy))
                    for seed in SEEDS]
            for jobs, result in runs:
                check_invariants(result, jobs)
                assert result.job("production-s")["response"] < 1.05 * 70.4
            if pair == "m":
                times = [sorted(result.job(name)["response"] for name in names) for _, result in runs]
                ours = tuple(float(x) for x in np.mean(times, axis=0))
            else:
                ours = tuple(mean_response(runs, name) for name in names)
            assert ours == pytest.approx(OURS_FIGURE_6[(pair, policy)], abs=0.01)
            assert all(near_paper(a, b) for a, b in zip(ours, PAPER_FIGURE_6[(pair, policy)], strict=True))
            means[policy] = ours
            if pair == "ls" and policy == "MR":
                assert not any(t["job"] == "research-s" and t["fate"] == "suspended"
                               for _, result in runs for t in result.tasks)
        if pair == "m":
            assert abs(means["PR"][1] - means["MR"][1]) < 2 and means["LR"][1] > max(means["PR"][1], means["MR"][1])
        else:
            assert means["MR"][1] < means["PR"][1] < means["LR"][1]


@pytest.mark.parametrize(
    ("heartbeat", "slowstart", "production", "expected"),
    [(0.0, 0.05, "production-s", (194.94, 245.74, 253.78)), (3.0, 0.05, "production-s", (199.45, 245.39, 255.85)),
     (1.0, 1.0, "production-s", (201.09, 242.49, 236.10)), (1.0, 1.0, "production-l", (251.81, 255.15, 258.85))],
)
def test_figure_5_sensitivity_to_heartbeat_and_slowstart(heartbeat, slowstart, production, expected):
    """Research-XL's mean completion under SRT / random / LRT (each job calibrated again for the
    heartbeat and slow-start). The heartbeat hardly matters: SRT < random < LRT at 0 s and 3 s as
    at 1 s, random and LRT apart. The slow-start does: at 1.0 (reduces asked for after the last
    map) containers the production maps free go back to research and are reclaimed again (about 67
    suspensions with Production-L), LRT ends before random with Production-S and SRT is within
    4 s of random with Production-L."""
    cluster = Cluster(nodes=6, map_slots=4, reduce_slots=4, heartbeat=heartbeat)
    means = tuple(
        mean_response([micro_run([XL, (production, production, 50.0)], seed, Natjam(task_eviction=policy),
                                 cluster=cluster, slowstart=slowstart) for seed in SEEDS], "research-xl")
        for policy in POLICIES)
    assert means == pytest.approx(expected, abs=0.01)
    srt, random, lrt = means
    if slowstart == 0.05:
        assert srt < random < lrt and lrt - random > 5
    elif production == "production-s":
        assert srt < lrt < random
    else:
        assert srt < random < lrt and random - srt < 4


def test_microbenchmark_runs_keep_every_invariant(figure_5):
    for runs in figure_5.values():
        for jobs, result in runs:
            assert all(record["finish"] is not None for record in result.jobs)
            check_invariants(result, jobs)


# -- determinism -----------------------------------------------------------------------------------------
def test_same_seed_same_bytes():
    """Noisy task times, random victims (PR, random task eviction), kill and suspend, maps evicted
    or not: the same seed gives the same JSON bytes; another seed differs."""
    jobs = [Job("a", 10, 6, 4.0, 12.0), Job("b", 6, 4, 3.0, 9.0, submit=2.0),
            Job("p", 6, 3, 2.0, 5.0, submit=15.0, priority=1, deadline=60.0)]
    cluster = Cluster(nodes=3, racks=2, map_slots=2, reduce_slots=1, heartbeat=1.0)
    options = SimOptions(task_time_cv=0.5, reduce_slowstart=0.5)
    for scheduler in (lambda: Natjam(job_eviction="PR", task_eviction="random", evict_maps=True),
                      lambda: Natjam(job_eviction="PR", task_eviction="random"),
                      lambda: Natjam(mode="kill", min_run=1.0, evict_maps=True),
                      lambda: Natjam(deadline_policy="MLF", evict_maps=True)):
        first = simulate(jobs, cluster, scheduler(), seed=5, options=options)
        assert first.to_json() == simulate(jobs, cluster, scheduler(), seed=5, options=options).to_json()
        assert first.to_json() != simulate(jobs, cluster, scheduler(), seed=6, options=options).to_json()
        check_invariants(first, jobs)
