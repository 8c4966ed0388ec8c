"""Shared by the simulator's behaviour tests (test_fifo.py, test_fair.py, test_capacity.py...):
small clusters, the design document's two-job batch and helpers to read a result.

Unless a test says otherwise the clusters use ``heartbeat=0`` (a slot is offered the
moment it frees) and ``replication == nodes`` (every block on every node, so every
map is node-local and no locality slowdown applies), and task times are
deterministic (``task_time_cv=0``). With heartbeat 0 the free slots of an instant
are offered in slot order: node 0's map slots, node 0's reduce slots, node 1's...
"""

from __future__ import annotations

from models import Cluster, Job
from planner.simulator import Fair, Pool, Preemption, Scheduler, SimOptions, SimResult, simulate


def flat(nodes: int, map_slots: int = 1, reduce_slots: int = 1, heartbeat: float = 0.0) -> Cluster:
    """One rack, every block on every node: all maps node-local."""
    return Cluster(nodes=nodes, map_slots=map_slots, reduce_slots=reduce_slots, heartbeat=heartbeat,
                   replication=nodes)


def running_at(tasks: list[dict], time: float, job: str | None = None, kind: str | None = None) -> int:
    """Attempts holding a slot at ``time`` (start <= time < end)."""
    return sum(
        1 for t in tasks
        if t["start"] <= time < t["end"] and (job is None or t["job"] == job) and (kind is None or t["kind"] == kind)
    )


def peak(tasks: list[dict], select) -> int:
    """The most attempts satisfying ``select`` running at once (checked at every start)."""
    chosen = [t for t in tasks if select(t)]
    return max((sum(1 for t in chosen if t["start"] <= s["start"] < t["end"]) for s in chosen), default=0)


def finishes(result: SimResult) -> dict[str, float]:
    return {record["name"]: record["finish"] for record in result.jobs}


# -- the design document's and the papers' examples ------------------------------------------------
TWO_JOBS = [Job("a", 10, 10, 100, 100), Job("b", 10, 10, 100, 100)]
TEN_AND_TEN = Cluster(nodes=10, map_slots=1, reduce_slots=1, heartbeat=0, replication=10)

# -- preemption ------------------------------------------------------------------------------------
# 4 nodes x 2 map slots, heartbeat 3 s: node n reports at 0.75 n + 3 k (staggered over the
# interval) and fills both free slots at its first report. Pool a's "hog" (40 maps of 1000 s) takes
# all 8 map slots: nodes 0..3 at 0, 0.75, 1.5, 2.25.
PREEMPT_CLUSTER = Cluster(nodes=4, map_slots=2, reduce_slots=1, heartbeat=3.0, replication=4)

# -- determinism and seeds -------------------------------------------------------------------------
MIXED = [
    Job("etl", 30, 6, 12.0, 30.0, intensity="io"),
    Job("scan", 25, 0, 6.0, submit=3.0, pool="adhoc"),
    Job("model", 10, 4, 20.0, 10.0, submit=8.0, priority=1, intensity="cpu"),
]
RACKED = Cluster(nodes=12, racks=3, map_slots=2, reduce_slots=1, heartbeat=1.0, replication=3)


def hashed_run() -> str:
    """A run whose result would change if set or dict iteration over pool and job names leaked into
    it (test_determinism.py runs it in another process with another PYTHONHASHSEED)."""
    pools = [Pool("etl-pool", weight=2), Pool("zz", min_map=3), Pool("adhoc", mode="fifo")]
    jobs = [job.with_changes(pool=pool) for job, pool in zip(MIXED, ["zz", "etl-pool", "adhoc"], strict=True)]
    scheduler = Fair(pools=pools, delay=(3, 3), preemption=Preemption(min_share_timeout=4, fair_share_timeout=8))
    return simulate(jobs, RACKED, scheduler, seed=9, options=SimOptions(task_time_cv=0.3)).to_json()


class Refuses(Scheduler):
    """Never launches a task of the jobs it is told to refuse (a true stall)."""

    def __init__(self, refused: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.refused = refused

    def pick(self, node, kind, now):
        for job in self.sim.active.values():
            if job.name not in self.refused and job.pending(kind):
                launch = self.take(job, node, kind, now)
                if launch is not None:
                    return launch
        return None
