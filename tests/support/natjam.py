"""Shared by the Natjam tests (test_natjam*.py): the default overheads, the small clusters the
hand-traced cases run on, helpers to read a result, and the paper's microbenchmark set-up (its
cluster, heartbeat and slow-start, Figure 3's jobs calibrated to their ideal completion times:
`micro_job`, `micro_run`, from planner.examples.natjam_micro). The simulator's property checks
(`check_invariants`, `check_evictions_bounded`) and its time-limited `run` are re-exported from
tests.support.properties so that every Natjam module imports them from one place.
"""

from __future__ import annotations

from models import Cluster
from planner.examples.natjam_micro import (
    FIGURE_3,
    HADOOP_SLOWSTART,
    MICRO_MAP,
    PAPER_48,
    PAPER_HEARTBEAT,
    calibrate,
    micro_job,
    micro_run,
    reduce_fractions,
)
from tests.support.properties import check_evictions_bounded, check_invariants, run

__all__ = [
    "FIGURE_3",
    "FOUR",
    "HADOOP_SLOWSTART",
    "MICRO_MAP",
    "OVERHEADS",
    "PAPER_48",
    "PAPER_HEARTBEAT",
    "RESUME",
    "SUSPEND",
    "THREE",
    "TWO",
    "attempts",
    "calibrate",
    "by_name",
    "check_evictions_bounded",
    "check_invariants",
    "micro_job",
    "micro_run",
    "reduce_fractions",
    "run",
]

SUSPEND, RESUME = 1.35, 3.88
OVERHEADS = SUSPEND + RESUME  # 5.23 slot-seconds per suspension

#: One node, two containers (slots 0 and 1).
TWO = Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0)

#: One node, three containers (slots 0-2).
THREE = Cluster(nodes=1, map_slots=2, reduce_slots=1, heartbeat=0)

#: One node, four containers (slots 0-3).
FOUR = Cluster(nodes=1, map_slots=2, reduce_slots=2, heartbeat=0)


def by_name(result) -> dict[str, dict]:
    return {record["name"]: record for record in result.jobs}


def attempts(result, fate: str | None = None) -> list[tuple]:
    """(job, kind, task, node, slot, start, end, fate) of each attempt (of ``fate`` if given), by start."""
    return [
        (t["job"], t["kind"], t["task"], t["node"], t["slot"], t["start"], t["end"], t["fate"])
        for t in result.tasks
        if fate is None or t["fate"] == fate
    ]


# -- the paper's set-ups (test_natjam_paper.py, test_natjam_r.py) ----------------------------------------
# They live in planner.examples.natjam_micro (the fidelity benchmark uses them too).
