"""What a run reports (`SimResult`): its fields and summary, its scheduler and options, overall
fairness by hand and the jobs in the system over time.

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

import json
import math

import pytest

from models import Cluster, Job
from planner.simulator import Fair, Pool, Preemption, SimOptions, simulate
from tests.support.simulator import TEN_AND_TEN, TWO_JOBS


# -- results -----------------------------------------------------------------------------------------
def test_result_fields():
    """The FIFO two-job batch: 40 attempts of 100 s on 20 slots over 300 s: utilization
    4000 / (20 * 300) = 2/3; mean response (200 + 300) / 2 = 250."""
    result = simulate(TWO_JOBS, TEN_AND_TEN, "fifo")
    assert result.makespan == 300.0 and result.slots == 20
    assert [record["name"] for record in result.jobs] == ["a", "b"]
    assert set(result.jobs[0]) == {"name", "submit", "ready", "held_by", "start", "map_done", "finish", "response",
                                   "deadline", "margin"}
    assert result.jobs[0]["deadline"] is None and result.jobs[0]["margin"] is None
    assert [(record["ready"], record["held_by"]) for record in result.jobs] == [(0.0, None), (0.0, None)]
    assert len(result.tasks) == 40
    assert set(result.tasks[0]) == {"job", "task", "kind", "node", "slot", "start", "end", "locality", "fate"}
    assert [t["start"] for t in result.tasks] == sorted(t["start"] for t in result.tasks)
    assert {t["locality"] for t in result.tasks if t["kind"] == "reduce"} == {None}
    assert math.isclose(sum(result.locality.values()), 1.0)
    assert result.utilization == pytest.approx(2 / 3)
    assert result.busy_slot_seconds == 4000.0 and result.killed_work == 0.0
    assert 0.0 < result.fairness <= 1.0
    assert result.mean_response == 250.0
    with pytest.raises(KeyError):
        result.job("nope")
    summary = result.summary()
    assert summary["scheduler"] == "fifo" and summary["jobs"] == 2 and summary["attempts"] == 40
    assert summary["makespan"] == 300.0 and summary["mean_response"] == 250.0
    assert summary["node_local"] + summary["rack_local"] + summary["off_rack"] == pytest.approx(1.0)
    assert list(summary) == ["scheduler", "jobs", "attempts", "makespan", "mean_response", "node_local",
                             "rack_local", "off_rack", "utilization", "fairness", "killed_work", "suspensions",
                             "kills", "wasted_work", "deadline_misses"]
    assert (summary["suspensions"], summary["kills"], summary["wasted_work"], summary["deadline_misses"]) == (0, 0,
                                                                                                              0.0, 0)
    data = json.loads(result.to_json())
    assert data["summary"] == json.loads(json.dumps(summary))
    assert data["jobs"] == result.jobs and len(data["tasks"]) == 40
    assert data["scheduler"]["name"] == "fifo" and data["seed"] == 0 and data["slots"] == 20


def test_result_describes_the_scheduler_and_options():
    scheduler = Fair(pools=[Pool("p", weight=2)], delay=(15, 10), preemption=Preemption())
    result = simulate(TWO_JOBS, TEN_AND_TEN, scheduler, options=SimOptions(reduce_slowstart=0.8))
    data = json.loads(result.to_json())
    assert data["scheduler"]["name"] == "fair"
    assert data["scheduler"]["delay"]["node_wait"] == 15.0
    assert data["options"]["reduce_slowstart"] == 0.8


def test_overall_fairness_by_hand():
    """FRESH's overall fairness on the two-job batch. FIFO: samples at the completions 200 and 300.
    At T=200 both jobs count: a received 10 maps + 10 reduces = 2000 slot-s in 200 s, r_a = 10;
    b got 10 maps (100-200) = 1000 slot-s, r_b = 5; Jain = (10 + 5)^2 / (2 (100 + 25)) = 0.9.
    At T=300 only b is left: Jain 1. Weighted by the intervals 0-200 and 200-300:
    (0.9 * 200 + 1 * 100) / 300 = 14/15. Fair: one sample at 400, r_a = r_b = 4000/400 = 10: 1."""
    assert simulate(TWO_JOBS, TEN_AND_TEN, "fifo").fairness == pytest.approx(14 / 15)
    assert simulate(TWO_JOBS, TEN_AND_TEN, "fair").fairness == pytest.approx(1.0)


def test_jobs_in_the_system_over_time_are_those_submitted_before_and_not_finished():
    """fairness_over_time's jobs_in_system at each completion T counts the jobs with submit < T <= finish
    (counted here one job at a time), with staggered arrivals so that the count rises and falls."""
    jobs = [Job(f"j{i}", 3 + i, 1, 10.0 + i, 5.0, submit=7.0 * i) for i in range(8)]
    result = simulate(jobs, Cluster(nodes=2, racks=1), "fair", seed=0)
    first = min(job["submit"] for job in result.jobs)
    counts = [record["jobs_in_system"] for record in result.fairness_over_time()]
    expected = [sum(1 for job in result.jobs if job["submit"] < record["time"] + first <= job["finish"])
                for record in result.fairness_over_time()]
    assert counts == expected and len(set(counts)) > 2
