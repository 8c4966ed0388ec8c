"""The files in examples/ load and mean what the README says they do."""

from __future__ import annotations

from pathlib import Path

import pytest

from models import Cluster, Workload
from planner.io.fitting import fit_runtimes, fit_tasks

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_example_cluster():
    """20 nodes x 2 disks = 40 primary VMs; 40 // 2 = 20 extra VMs; 20 x (2 + 2) = 80 slots."""
    cluster = Cluster.from_file(EXAMPLES / "cluster.yaml")
    assert (cluster.nodes, cluster.racks, cluster.vms, cluster.extra_vms, cluster.total_slots) == (20, 2, 40, 20, 80)


def test_example_workload():
    workload = Workload.from_file(EXAMPLES / "nightly.yaml")
    assert workload.names == ["etl-clicks", "sessionize", "pagerank", "grep-logs", "train-ctr"]
    assert workload["etl-clicks"].priority == 1 and workload["grep-logs"].reduce_tasks == 0
    assert workload["pagerank"].runtime(8) == pytest.approx(2600 * 8**-0.65)


def test_example_measurements():
    assert [f.job for f in fit_runtimes(EXAMPLES / "runtimes.csv")] == ["sort", "pi"]
    assert fit_tasks(EXAMPLES / "tasks.csv").jobs_ == ("etl", "scan")
