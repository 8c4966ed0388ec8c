"""Regression: a false `SimulationStalled` when work arrives at an idle cluster.

The report: ``examples/nightly.yaml`` on 20 nodes x (2 map + 2 reduce slots) in
2 racks, ``Fair(delay=(15, 15))``, heartbeat 1 s, raised "at t=600 s no free
slot is ever given to the pending work of train-ctr"; heartbeat 3 s ran.

The cause, traced: scheduling was right, the stall detector was wrong.

- The first four jobs are all done by t=372.35 (the last launch at 360.35);
  from then until train-ctr's submission at 600 nothing is pending and the
  cluster is idle.
- train-ctr (16 maps, 4 reduces, slow-start 1.0: only maps pending) arrives
  at 600. Node 0 reports first (heartbeats are staggered over the interval:
  node n at 0.05 n + k s). None of train-ctr's blocks is on node 0, so delay
  scheduling (Zaharia et al.: a job without a node-local task is skipped, its
  wait clock starting now) rightly skips it: level node-local, wait since 600.
- That heartbeat found a free slot, pending work and nothing running, so it
  ran `_check_stall`, which measured the time since the *last launch*
  (360.35): 600 - 360.35 = 239.65 s > patience 100 * 1 s + 15 + 15 = 130 s,
  and raised. With heartbeat 3 the patience is 330 s, hence the difference.
  The 600 s is train-ctr's submit time, not the preemption timeout (this Fair
  has no preemption at all).
- Had the run gone on, node 1 would have launched two node-local maps at
  600.05, and all 16 maps launch node-local by 600.70.

The same false stall hit a long task: pool p with ``max_running=1``, job a's
one map of 1000 s runs from 0 while b waits for the limit; at 1000 a ends, b
becomes runnable, the first node to report lacks b's block, and
1000 - 0 > 130 raised again, though the node holding the block reports 0.75 s
later.

The fix (planner/simulator/core.py): the stall clock is
``last_change``, the last launch, arrival, or end that left nothing running.
With nothing running and every job submitted only the clock can still change a
decision (delay scheduling's waits, the heartbeats), so a run that launches
nothing for that patience after its last change is truly stalled, and the
detector still says so (tests below).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from models import Cluster, Job, Workload
from planner.simulator import SimulationStalled, simulate
from planner.simulator.schedulers.fair import Fair, Pool
from tests.support.simulator import Refuses

NIGHTLY = Path(__file__).resolve().parent.parent / "examples" / "nightly.yaml"


@pytest.mark.parametrize(
    ("heartbeat", "start", "makespan"),
    [(1.0, 600.05, 890.75), (3.0, 600.15, 892.25)],
)
def test_nightly_with_delay_scheduling_runs_at_any_heartbeat(heartbeat, start, makespan):
    """The report's run. The others end by 372.35 (heartbeat 1) / 373.05 (heartbeat 3);
    train-ctr arrives at 600 on an idle cluster, is skipped by node 0 (no block there) and
    starts node-local on node 1 at its first report (0.05 / 0.15 s after node 0). Its 16 maps
    of 90 s all run node-local, its 4 reduces of 200 s follow the last map: 90 + 200 later."""
    cluster = Cluster(nodes=20, map_slots=2, reduce_slots=2, racks=2, disks=2, heartbeat=heartbeat)
    result = simulate(Workload.from_file(NIGHTLY), cluster, Fair(delay=(15, 15)))
    assert result.job("train-ctr")["start"] == pytest.approx(start)
    assert {t["locality"] for t in result.tasks if t["job"] == "train-ctr" and t["kind"] == "map"} == {"node"}
    assert result.makespan == pytest.approx(makespan)


@pytest.mark.parametrize(("heartbeat", "finish"), [(1.0, 1010.75), (3.0, 1011.25)])
def test_long_task_then_a_skipped_job_is_no_stall(heartbeat, finish):
    """4 nodes in 2 racks, 1 map slot each, one replica per block (seed 1: a's block on node 0,
    b's on node 3). Pool p runs one job at a time: a's map of 1000 s runs on node 0 from 0; b
    (1 map of 10 s) waits for the limit. At 1000 node 0 reports first and skips b (no block
    there); node 3 reports at 1000 + 3/4 heartbeat and runs b node-local: 10 s later it is done."""
    cluster = Cluster(nodes=4, racks=2, map_slots=1, reduce_slots=1, heartbeat=heartbeat, replication=1)
    jobs = [Job("a", 1, 0, 1000.0, pool="p"), Job("b", 1, 0, 10.0, pool="p")]
    result = simulate(jobs, cluster, Fair(pools=[Pool("p", max_running=1)], delay=(15, 15)), seed=1)
    assert [(t["job"], t["node"], t["locality"]) for t in result.tasks] == [("a", 0, "node"), ("b", 3, "node")]
    assert result.makespan == pytest.approx(finish)


@pytest.mark.parametrize(
    ("jobs", "stalled_at"),
    [
        # Refused from the start: 100 heartbeats of 1 s of patience after the arrival at 0.
        ([Job("b", 1, 0, 10.0)], 101.0),
        # A late arrival starts the clock over: 100 s after 500, not at once.
        ([Job("b", 1, 0, 10.0, submit=500.0)], 601.0),
        # A long task keeps the cluster busy to 1000: the clock starts when it ends.
        ([Job("a", 1, 0, 1000.0), Job("b", 1, 0, 10.0, submit=5.0)], 1101.0),
    ],
    ids=["at-once", "late-arrival", "after-long-task"],
)
def test_a_true_stall_is_still_reported(jobs, stalled_at):
    """1 node, 1 map slot, heartbeat 1 (the node reports at whole seconds): job b is never
    launched. The run stops with SimulationStalled at the first report more than 100 s after
    the last launch, arrival or end that left nothing running."""
    cluster = Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=1.0, replication=1)
    with pytest.raises(SimulationStalled, match=rf"at t={stalled_at:g} s .* pending work of b$"):
        simulate(jobs, cluster, Refuses(frozenset({"b"})))
