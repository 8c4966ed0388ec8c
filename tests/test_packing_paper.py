"""The Packing paper's workloads W1-W6 (Aboulnaga, Wang, Zhang, "Packing the most onto your cloud").

Table 1 gives the job mix of each workload; section 6 reports, from measured runs:

- W1-W3 on P = 9 machines (18 primary VMs), Figure 2: both of the paper's schedulers beat running
  the jobs one after another on all 18 VMs, and the multiple-job scheduler beats the pair scheduler,
  "saving 24-33% of the completion time compared to sequential execution";
- W4-W6 on P = 10 machines, Figure 3: "it is never beneficial to schedule more than two jobs on the
  cluster at a time", so the pair and multiple-job schedulers give the same schedules, which
  outperform sequential execution "by a margin of 16-30%".

Our seven job profiles are calibrated to these outcomes (`planner.examples.workloads`, whose
docstring says how); here the exact solvers' objectives must show them. Sequential is
``sequential_baseline`` (every job alone on all N VMs), pairs is `schedule_pairs` and the
multi-job schedule is `pack_phases`, both by ``method="milp"``. Every claim is checked against
what is proven: an upper claim on the objective, a lower claim on the proven bound, so a solve
stopped by its time limit can only fail, never pass wrongly.
"""

from __future__ import annotations

import pytest

from planner.examples.workloads import JOB_TYPES, MIXES, PAPER_MACHINES, packing_workload, paper_cluster
from solvers import SolveStatus, pack_phases, schedule_pairs

#: Table 1 of the paper, transcribed: W1 = 2 x s-srt + 2 x s-kmns + 1 x s-inv, and so on.
TABLE_1 = {
    "W1": {"s-srt": 2, "s-kmns": 2, "s-inv": 1},
    "W2": {"s-srt": 2, "s-kmns": 1, "s-inv": 1, "s-dsim": 1},
    "W3": {"s-srt": 3, "s-kmns": 2, "s-inv": 1, "s-dsim": 1},
    "W4": {"s-srt": 1, "b-srt": 1, "b-inv": 2},
    "W5": {"b-srt": 2, "b-kmns": 2, "b-inv": 1},
    "W6": {"b-srt": 2, "b-kmns": 2, "b-inv": 2},
}
TIME_LIMIT = 20.0  # each solve takes well under a second
PROVEN = (SolveStatus.OPTIMAL, SolveStatus.TIME_LIMIT)


def solve(name: str):
    """(sequential, pairs schedule, packing schedule) of workload ``name`` on the paper's P."""
    assert PAPER_MACHINES[name] == (9 if name in ("W1", "W2", "W3") else 10)
    jobs, cluster = packing_workload(name), paper_cluster(PAPER_MACHINES[name])
    pairs = schedule_pairs(jobs, cluster, method="milp", time_limit=TIME_LIMIT)
    packing = pack_phases(jobs, cluster, method="milp", time_limit=TIME_LIMIT)
    assert pairs.status in PROVEN and packing.status in PROVEN
    sequential = sum(job.runtime(cluster.vms) for job in jobs)
    assert packing.sequential_baseline == pytest.approx(sequential)
    assert pairs.sequential_baseline == pytest.approx(sequential)
    return sequential, pairs, packing


def test_workloads_are_table_1():
    assert MIXES == TABLE_1
    assert set(JOB_TYPES) == {"s-srt", "s-kmns", "s-inv", "s-dsim", "b-srt", "b-kmns", "b-inv"}
    for name, mix in TABLE_1.items():
        jobs = packing_workload(name)
        kinds = [job.name.rsplit("-", 1)[0] for job in jobs]
        assert {kind: kinds.count(kind) for kind in kinds} == mix
        assert len({job.name for job in jobs}) == len(jobs)


def test_the_paper_clusters():
    """P = 9: 18 primary VMs and 9 extras; P = 10: 20 and 10; k = 2, r = 2, alpha = 1.3."""
    for machines in (9, 10):
        cluster = paper_cluster(machines)
        assert (cluster.nodes, cluster.vms, cluster.extra_vms) == (machines, 2 * machines, machines)
        assert (cluster.primaries_per_extra, cluster.overcommit_penalty) == (2, 1.3)


@pytest.mark.parametrize("name", ["W1", "W2", "W3"])
def test_small_workloads_on_nine_machines(name):
    """Measured: W1 saves 21.9% by pairs and 29.9% by packing, W2 22.7% and 31.1%, W3 22.6% and 29.3%."""
    sequential, pairs, packing = solve(name)
    assert pairs.status is SolveStatus.OPTIMAL  # a minimum-weight matching: proven in milliseconds
    # The multi-job schedule saves 24-33%: its objective at most 76% of sequential, its bound at least 67%.
    assert packing.objective <= 0.76 * sequential
    assert packing.bound >= 0.67 * sequential
    # Pairs fall between: clearly better than sequential, clearly worse than a multi-job schedule found.
    assert pairs.objective < 0.9 * sequential
    assert pairs.objective > 1.05 * packing.objective


@pytest.mark.parametrize("name", ["W4", "W5", "W6"])
def test_big_workloads_on_ten_machines(name):
    """Measured: pairs and packing both save 18.1% on W4, 17.5% on W5 and 19.6% on W6."""
    sequential, pairs, packing = solve(name)
    assert pairs.status is SolveStatus.OPTIMAL
    # Pairs equal the multi-job schedule: no packing beats the best pairing (the bound proves it).
    assert packing.bound >= pairs.objective * (1 - 1e-9)
    assert packing.objective <= pairs.objective * (1 + 1e-9)
    # Both save 16-30%.
    assert 0.70 * sequential <= pairs.objective <= 0.84 * sequential
