"""Bad inputs to the simulator raise InvalidInput: scheduler names, options, slot splits, jobs
and clusters.

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

import math

import pytest

from models import Job
from models.errors import InvalidInput
from planner.simulator import SimOptions, simulate
from tests.support.simulator import TEN_AND_TEN, TWO_JOBS


# -- bad inputs --------------------------------------------------------------------------------------
def test_unknown_scheduler_name():
    with pytest.raises(InvalidInput, match="scheduler"):
        simulate(TWO_JOBS, TEN_AND_TEN, "lottery")
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, TEN_AND_TEN, 42)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"reduce_slowstart": 1.5},
        {"reduce_slowstart": -0.1},
        {"reduce_slowstart": math.nan},
        {"task_time_cv": -1.0},
        {"containers": "yes"},
        {"assign_multiple": 1},
        {"copy_compute": (1, 2)},
        {"copy_compute": (0, 0)},
        {"copy_compute": (2,)},
        {"copy_compute": (2, 1), "containers": True},
        {"rack_factor": {"gpu": 2.0}},
        {"rack_factor": {"io": 0.5}},
        {"off_rack_factor": [2.0]},
    ],
)
def test_bad_options_raise(kwargs):
    with pytest.raises(InvalidInput):
        SimOptions(**kwargs)


def test_bad_options_object_and_unknown_option_key():
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", options={"reduce_slowstart": 0.5})
    with pytest.raises(InvalidInput):
        SimOptions.from_dict({"slowstart": 0.5})
    assert SimOptions.from_dict({"reduce_slowstart": 0.5}).reduce_slowstart == 0.5


@pytest.mark.parametrize("slots", [(0, 2), (-1, 1), (2.5, 1), (1,), "4,4", (4, 4, 4), (True, 1)])
def test_bad_slots_raise(slots):
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", slots=slots)


def test_more_slots_than_the_cluster_has_raise():
    """A split of the cluster's slots, never more: TEN_AND_TEN has 20; 10 + 10 runs, 11 + 10 is refused."""
    assert simulate(TWO_JOBS, TEN_AND_TEN, "fifo", slots=(10, 10)).makespan > 0
    with pytest.raises(InvalidInput, match=r"^slots: 11 \+ 10 = 21 slots; the cluster has 20"):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", slots=(11, 10))


def test_reduce_tasks_without_reduce_slots_raise():
    with pytest.raises(InvalidInput, match="reduce"):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", slots=(4, 0))
    # A map-only batch needs no reduce slots.
    assert simulate([Job("m", 4, 0, 1.0)], TEN_AND_TEN, "fifo", slots=(4, 0)).makespan == 1.0


def test_other_bad_inputs_raise():
    with pytest.raises(InvalidInput):
        simulate([], TEN_AND_TEN, "fifo")
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, {"nodes": 10}, "fifo")
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", seed=-1)
    with pytest.raises(InvalidInput):
        simulate([Job("a", 1, 0, 1.0), Job("a", 1, 0, 1.0)], TEN_AND_TEN, "fifo")
    with pytest.raises(InvalidInput):
        simulate([Job("vm", profile=lambda n: 10.0 / n)], TEN_AND_TEN, "fifo")  # no tasks to simulate
