"""Shared by the FRESH tests (test_fresh.py, test_fresh_paper.py): options without locality
stretch, a one-node cluster, a "cpu" job, attempts counted by start, and `Spy`, a Fresh that
records what it saw and launched at every offer."""

from __future__ import annotations

from collections import Counter

from models import Cluster, Job
from planner.simulator import Fresh, SimOptions
from planner.simulator.layout import ANY

EXACT = SimOptions(rack_factor={"cpu": 1.0}, off_rack_factor={"cpu": 1.0})
ONE_NODE_2_2 = Cluster(nodes=1, map_slots=2, reduce_slots=2, heartbeat=0)  # 4 containers


def job(name, maps, reduces, map_time, reduce_time, submit=0.0):
    return Job(name, maps, reduces, map_time, reduce_time, submit=submit, intensity="cpu")


def starts(result, kind=None):
    """Counter of (start, kind) over the attempts (or of start only, for one kind)."""
    if kind is None:
        return Counter((t["start"], t["kind"]) for t in result.tasks)
    return Counter(t["start"] for t in result.tasks if t["kind"] == kind)


class Spy(Fresh):
    """Fresh that records, for every offered slot, the slot target it saw and what it launched."""

    def __init__(self, **settings):
        super().__init__(**settings)
        self.seen = []
        self.shares = []

    def pick(self, node, kind, now):
        target = self.slot_target(now) if kind == ANY else None
        self.shares.append((now, {j.name: self.share(j, now) for j in self.map_phase + self.reduce_phase}))
        launch = super().pick(node, kind, now)
        self.seen.append((now, target, None if launch is None else (launch[0].name, launch[1])))
        return launch
