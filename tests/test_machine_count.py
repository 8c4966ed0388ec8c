"""The number of machines as a decision for VM plans (`solvers.machine_count`): a case worked by
hand, pruning against the brute force on the Packing paper's W1, and the refusals."""

from __future__ import annotations

import pytest

from models import Cluster, InvalidInput, Job, PowerLawProfile
from planner.examples.workloads import packing_workload, paper_cluster
from solvers.machine_count import cheapest_machine_count, machine_bound

MACHINE = Cluster(nodes=1, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)


def _two_jobs() -> list[Job]:
    """Two balanced jobs of F(n) = 14,400 / n s: on P machines (N = 2P VMs) each takes 7,200 / P s
    on all of them, and the pair, one after the other or side by side on P VMs each, 14,400 / P s."""
    return [Job(f"j{i}", intensity="balanced", profile=PowerLawProfile.from_coefficients(14_400.0, -1.0))
            for i in range(2)]


def test_the_cheapest_count_that_ends_by_the_window_worked_by_hand():
    """T*(P) = 14,400 / P s; billed by the hour, P x billed(T*) machine-seconds: P = 1 14,400, 2
    14,400, 3 21,600 (4,800 s billed 7,200), 4 14,400 (3,600 s), 5 18,000, 6 21,600 ... With a
    window of 4,000 s only P >= 4 end in time (3 ends at 4,800 s): the answer is 4 machines, 4
    machine-hours. The pairs bound is the larger of the fastest runs' odd places (the longer
    fastest run, 7,200 / P) and the work over the primaries and the extras beside them (2 x 14,400
    VM-s over 2P + P VMs, 9,600 / P): it ends after the window for P = 1 (9,600 s) and P = 2
    (4,800 s), so they are not solved."""
    found = cheapest_machine_count(_two_jobs(), MACHINE, range(1, 9), problem="pairs", billing=3600.0,
                                   window=4000.0, time_limit=10.0)
    assert (found.machines, found.makespan, found.cost, found.proven) == (4, pytest.approx(3600.0), 14_400.0, True)
    records = {r["machines"]: r for r in found.records()}
    assert records[1]["status"] == "over the window" and records[1]["bound"] == pytest.approx(9600.0)
    assert records[2]["status"] == "over the window" and records[2]["bound"] == pytest.approx(4800.0)
    assert records[3]["makespan"] == pytest.approx(4800.0) and records[3]["status"] == "optimal, over the window"
    assert records[5]["cost_bound"] >= 14_400.0 and records[5]["status"] == "pruned"
    priced = cheapest_machine_count(_two_jobs(), MACHINE, range(1, 9), problem="pairs", billing=3600.0,
                                    window=4000.0, price=0.5)
    assert priced.cost == pytest.approx(2.0)  # 4 machine-hours at 0.5 an hour


@pytest.mark.parametrize("problem", ["packing", "pairs"])
def test_pruning_finds_what_the_brute_force_finds_on_w1(problem):
    jobs = packing_workload("W1")
    pruned = cheapest_machine_count(jobs, paper_cluster(1), range(4, 9), problem=problem, billing=60.0)
    brute = cheapest_machine_count(jobs, paper_cluster(1), range(4, 9), problem=problem, billing=60.0, prune=False)
    assert (pruned.machines, pruned.cost) == (brute.machines, brute.cost) and pruned.proven and brute.proven
    assert brute.solved == 5 and pruned.solved <= 5
    for record in brute.records():  # every bound is below its optimum
        assert record["bound"] <= record["makespan"] + 1e-6
        assert record["bound"] == pytest.approx(machine_bound(problem, jobs, paper_cluster(record["machines"])))


def test_bad_requests_are_refused():
    with pytest.raises(InvalidInput, match="problem: must be one of"):
        cheapest_machine_count(_two_jobs(), MACHINE, [2], problem="slots")
    with pytest.raises(InvalidInput, match="machines: give at least one"):
        cheapest_machine_count(_two_jobs(), MACHINE, [])
    with pytest.raises(InvalidInput, match=r"machines\[0\]: must be >= 1"):
        cheapest_machine_count(_two_jobs(), MACHINE, [0, 2])
    with pytest.raises(InvalidInput, match="billing: must be > 0"):
        cheapest_machine_count(_two_jobs(), MACHINE, [2], billing=0)
    none = cheapest_machine_count(_two_jobs(), MACHINE, [1, 2], problem="pairs", window=100.0)
    assert none.machines is None and not none.proven
