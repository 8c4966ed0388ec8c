from __future__ import annotations

import json
import os

import pytest

from models import Cluster, InvalidInput, Job, PowerLawProfile, Workload, write_atomic


def sample_workload() -> Workload:
    return Workload(
        [
            Job("etl", 20, 5, 30.0, 90.0, pool="prod", priority="production", deadline=3600),
            Job("adhoc", 4, 0, 12.5, submit=60, weight=2.0, intensity="io"),
            Job("kmeans", 8, 2, 40, 20, intensity="cpu",
                profile=PowerLawProfile.from_coefficients(900, -0.7, nodes_min=2, nodes_max=16)),
        ],
        name="nightly",
    )


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_workload_round_trip(tmp_path, suffix):
    workload = sample_workload()
    path = tmp_path / f"w{suffix}"
    workload.to_file(path)
    loaded = Workload.from_file(path)
    assert loaded == workload
    assert loaded.to_dict() == workload.to_dict()
    profile = loaded["kmeans"].profile
    assert (profile.a_, profile.b_, profile.n_range_) == (900.0, -0.7, (2.0, 16.0))


def test_workload_indexing_and_records():
    workload = sample_workload()
    assert workload.names == ["etl", "adhoc", "kmeans"]
    assert workload["adhoc"].submit == 60.0
    assert workload[0].name == "etl" and "etl" in workload and len(workload[1:]) == 2
    assert workload.tasks == (20 + 5) + (4 + 0) + (8 + 2) and workload[1:].tasks == 14  # maps and reduces
    records = workload.to_records()
    assert records[0]["map_work"] == 600.0 and records[0]["reduce_work"] == 450.0
    assert "profile" not in records[0]


def test_duplicate_names_rejected():
    with pytest.raises(InvalidInput, match=r"jobs\[1\].name: duplicate job name 'a' \(also jobs\[0\]\)"):
        Workload([Job("a", 1, map_time=1), Job("a", 2, map_time=1)])


def test_cluster_round_trip(tmp_path):
    cluster = Cluster(nodes=12, racks=3, heartbeat=0.0)
    for name in ("c.yaml", "c.json"):
        cluster.to_file(tmp_path / name)
        assert Cluster.from_file(tmp_path / name) == cluster


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("jobs:\n  - name: a\n    map_tasks: 1\n    map_time: 2\n    colour: red\n", "jobs[0].colour: unknown key"),
        ("jobs:\n  - name: a\n    map_tasks: ten\n    map_time: 2\n", "jobs[0].map_tasks: must be an integer"),
        ("jobs:\n  - name: a\n    map_tasks: 1\n    map_time: 2\n  - name: b\n    map_tasks: 3\n    map_time: -2\n",
         "jobs[1].map_time: must be > 0, got -2"),
        ("- 1\n- 2\n", "top level must be a mapping, got list"),
        ("", "top level must be a mapping, got empty"),
        ("jobs: 3\n", "jobs: must be a list"),
        ("jobs:\n  - 7\n", "jobs[0]: must be a mapping"),
        ("jobs: []\nname: a\nname: b\n", "name: duplicate key"),
        ("jobs:\n  - !!python/object/apply:os.system ['true']\n", "malformed YAML"),
        ("jobs: [\n", "malformed YAML"),
        ("jobs:\n  - name: a\n    map_tasks: 1\n    map_time: 2\n    profile: {kind: spline, a: 1}\n",
         "jobs[0].profile.kind: unknown profile kind 'spline'"),
        ("jobs:\n  - name: a\n    map_tasks: 1\n    map_time: 2\n    profile: {kind: power_law, a: -1, b: 1}\n",
         "jobs[0].profile.a: must be > 0"),
    ],
)
def test_workload_file_errors_name_file_and_field(tmp_path, text, message):
    path = tmp_path / "w.yaml"
    path.write_text(text)
    with pytest.raises(InvalidInput) as caught:
        Workload.from_file(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_json_specific_errors(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"jobs": [], "jobs": []}')
    with pytest.raises(InvalidInput, match="jobs: duplicate key"):
        Workload.from_file(path)
    path.write_text('{"nodes": NaN}')
    with pytest.raises(InvalidInput, match="NaN is not a valid JSON number"):
        Cluster.from_file(path)
    path.write_text('{"nodes": 4, "gpus": 2}')
    with pytest.raises(InvalidInput, match="gpus: unknown key"):
        Cluster.from_file(path)


def test_missing_file_and_unknown_suffix(tmp_path):
    with pytest.raises(InvalidInput, match="no such file"):
        Workload.from_file(tmp_path / "absent.yaml")
    (tmp_path / "w.txt").write_text("jobs: []")
    with pytest.raises(InvalidInput, match=r"unknown file type '\.txt'"):
        Workload.from_file(tmp_path / "w.txt")


def test_write_atomic_leaves_no_temporary_and_keeps_old_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "out" / "plan.json"
    write_atomic(target, json.dumps({"ok": 1}))
    assert json.loads(target.read_text()) == {"ok": 1}

    def fail(_fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    # a write that fails is the output path's problem, named like any other (exit status 2)
    with pytest.raises(InvalidInput, match=r"plan\.json: \(output\): cannot write here: No space left on device$"):
        write_atomic(target, json.dumps({"ok": 2}))
    assert json.loads(target.read_text()) == {"ok": 1}
    assert sorted(os.listdir(target.parent)) == ["plan.json"]
    monkeypatch.undo()
    with pytest.raises(InvalidInput, match=r"out: \(output\): is a folder; give a file name$"):
        write_atomic(target.parent, "{}")
    with pytest.raises(InvalidInput, match=r"cannot write here: a parent of it is a file, not a folder$"):
        write_atomic(target / "inner.json", "{}")
