"""Shared by the heartbeat tests (test_heartbeat_wakes.py, test_decline_memo.py): the simulation
as it is, counting its nodes' reports."""

from __future__ import annotations

from planner.simulator.core import Simulation


class Counted(Simulation):
    """The simulation as it is, counting the nodes' reports."""

    reports = 0

    def _heartbeat(self, node, now):
        self.reports += 1
        super()._heartbeat(node, now)
