from __future__ import annotations

import math

import numpy as np
import pytest

from models import Cluster, InvalidInput, Job, PlannerError, PowerLawProfile


def test_job_derived_work_and_defaults():
    job = Job("sort", map_tasks=10, reduce_tasks=4, map_time=30, reduce_time=60)
    assert job.map_work == 300.0
    assert job.reduce_work == 240.0
    assert job.work == 540.0
    assert (job.submit, job.pool, job.weight, job.priority, job.deadline, job.intensity) == (
        0.0, "default", 1.0, 0, None, "balanced",
    )
    assert isinstance(job.map_tasks, int) and isinstance(job.map_time, float)


def test_job_accepts_numpy_numbers_and_named_priorities():
    job = Job("j", np.int64(3), np.int32(0), np.float32(2.5), priority="production")
    assert job.map_tasks == 3 and job.priority == 1
    assert Job("r", 1, map_time=1, priority="research").priority == 0


@pytest.mark.parametrize(
    ("kwargs", "field", "fragment"),
    [
        ({"map_time": -2}, "map_time", "must be > 0, got -2"),
        ({"map_time": math.nan}, "map_time", "finite"),
        ({"reduce_tasks": 2, "reduce_time": 0}, "reduce_time", "must be > 0"),
        ({"map_tasks": -1}, "map_tasks", ">= 0"),
        ({"map_tasks": 2.5}, "map_tasks", "integer"),
        ({"map_tasks": True}, "map_tasks", "integer"),
        ({"map_tasks": "10"}, "map_tasks", "integer"),
        ({"submit": -1}, "submit", ">= 0"),
        ({"weight": 0}, "weight", "> 0"),
        ({"intensity": "gpu"}, "intensity", "cpu, io, balanced"),
        ({"priority": "urgent"}, "priority", "production"),
        ({"submit": 100, "deadline": 50}, "deadline", "after submission"),
        ({"submit": 100, "deadline": 100}, "deadline", "after submission"),
        ({"pool": ""}, "pool", "empty"),
        ({"profile": 3}, "profile", "callable"),
        ({"map_tasks": 0}, "map_tasks", "at least one map task or a runtime profile"),
        ({"map_tasks": 0, "reduce_tasks": 1, "reduce_time": 1, "profile": lambda n: 1.0}, "map_tasks", ">= 1"),
    ],
)
def test_job_rejects_bad_fields(kwargs, field, fragment):
    base = {"name": "j", "map_tasks": 2, "map_time": 10.0}
    base.update(kwargs)
    with pytest.raises(InvalidInput) as caught:
        Job(**base)
    assert caught.value.field == field
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, PlannerError)


def test_profile_only_job_and_runtime():
    job = Job("kmeans", profile=PowerLawProfile.from_coefficients(1200, -0.5), intensity="cpu")
    assert job.runtime(4) == pytest.approx(600.0)
    with pytest.raises(InvalidInput, match="no runtime profile"):
        Job("x", 1, map_time=1).runtime(2)


def test_cluster_derived_quantities():
    """10 nodes x (2 map + 3 reduce) slots: S = 50; k = 2 disks gives N = 20 VMs;
    r = 3 primaries per extra gives 20 // 3 = 6 extra VMs."""
    cluster = Cluster(nodes=10, map_slots=2, reduce_slots=3, disks=2, primaries_per_extra=3)
    assert cluster.total_map_slots == 20
    assert cluster.total_reduce_slots == 30
    assert cluster.total_slots == 50
    assert cluster.vms == 20
    assert cluster.extra_vms == 6


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"nodes": 0}, "nodes"),
        ({"map_slots": 0}, "map_slots"),
        ({"reduce_slots": 0}, "reduce_slots"),
        ({"racks": 11}, "racks"),
        ({"overcommit_penalty": 0.9}, "overcommit_penalty"),
        ({"heartbeat": -1}, "heartbeat"),
        ({"heartbeat": math.inf}, "heartbeat"),
        ({"disks": 0}, "disks"),
        ({"primaries_per_extra": 0}, "primaries_per_extra"),
        ({"replication": 0}, "replication"),
    ],
)
def test_cluster_rejects_bad_fields(kwargs, field):
    base = {"nodes": 10}
    base.update(kwargs)
    with pytest.raises(InvalidInput) as caught:
        Cluster(**base)
    assert caught.value.field == field


def test_invalid_input_paths_compose():
    error = InvalidInput("map_time", "must be > 0, got -2").within("jobs[3]").in_file("w.yaml")
    assert str(error) == "w.yaml: jobs[3].map_time: must be > 0, got -2"
    assert InvalidInput("[2]", "bad").within("jobs").field == "jobs[2]"
