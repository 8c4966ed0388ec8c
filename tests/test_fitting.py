"""Fitting profiles from measurement CSV files (`planner fit`)."""

from __future__ import annotations

import pytest

from models import InvalidInput, Job, Workload
from planner.io.fitting import csv_kind, fit_runtimes, fit_tasks, runtime_workload


def test_fit_runtimes_by_hand(data_dir):
    """sample-runtimes.csv: sort runs 1000 s on 4 nodes and scales as n^-0.8, so
    a = 1000 * 4^0.8 = 3031.43 and b = -0.8; pi halves with every doubling: a = 1200, b = -1."""
    fits = fit_runtimes(data_dir / "sample-runtimes.csv")
    assert [f.job for f in fits] == ["sort", "pi"]
    sort, pi = fits
    assert sort.a == pytest.approx(1000 * 4**0.8, rel=1e-6) and sort.b == pytest.approx(-0.8, rel=1e-6)
    assert (sort.nodes_min, sort.nodes_max, sort.observations, sort.intensity) == (4.0, 16.0, 3, "io")
    assert pi.a == pytest.approx(1200.0) and pi.b == pytest.approx(-1.0) and pi.r2 == pytest.approx(1.0)
    assert set(pi.record()) == {"job", "a", "b", "r2", "nodes_min", "nodes_max", "observations", "intensity"}
    assert pi.profile(6) == pytest.approx(200.0)


def test_runtime_workload_profile_only_and_attached(data_dir):
    fits = fit_runtimes(data_dir / "sample-runtimes.csv")
    alone = runtime_workload(fits)
    assert alone.names == ["sort", "pi"] and alone["pi"].intensity == "cpu"
    assert alone["sort"].profile(8) == pytest.approx(574.3492, rel=1e-6)
    base = Workload([Job("pi", 10, 1, 5.0, 9.0, pool="x"), Job("other", 1, map_time=1.0)], name="b")
    attached = runtime_workload(fits[1:], base)
    assert attached["pi"].pool == "x" and attached["pi"].profile is fits[1].profile
    assert attached["other"].profile is None
    with pytest.raises(InvalidInput, match="no job named 'sort'"):
        runtime_workload(fits, base)


def test_fit_tasks_by_hand(data_dir):
    """sample-tasks.csv: etl maps last 30, 34 and 26 s (the FAILED attempt is dropped): mean 30 s;
    one reduce of 100 s. scan: maps of 10 and 8 s, mean 9 s, first start 12 s."""
    profile = fit_tasks(data_dir / "sample-tasks.csv")
    jobs = profile.to_jobs()
    assert jobs == [Job("etl", 3, 1, 30.0, 100.0), Job("scan", 2, 0, 9.0, submit=12.0)]


def test_csv_kind():
    assert csv_kind(["job", "nodes", "runtime"]) == "runtimes"
    assert csv_kind(["job", "type", "start", "end"]) == "tasks"
    with pytest.raises(InvalidInput, match="header: expected columns job,nodes,runtime"):
        csv_kind(["a", "b"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("job,nodes,runtime\nsort,4,100\nsort,x,50\n", r"line 3\.nodes: must be a number, got 'x'"),
        ("job,nodes,runtime\nsort,4,100\nsort,8,-5\n", r"line 3\.runtime: must be > 0, got -5"),
        ("job,nodes,runtime\nsort,0,100\n", r"line 2\.nodes: must be > 0"),
        ("job,nodes,runtime\nsort,4,nan\n", r"line 2\.runtime: must be finite"),
        ("job,nodes,runtime\n,4,100\n", r"line 2\.job: must not be empty"),
        ("job,nodes,runtime\nsort,4,100\nsort,4,90\n", "nodes: job 'sort' needs runs on at least two node counts"),
        ("job,nodes,runtime\nsort,4,100,7\n", "line 2: more cells than header columns"),
        ("job,nodes,runtime,intensity\nsort,4,100,gpu\n", r"line 2\.intensity: must be one of"),
        ("job,nodes,runtime,intensity\ns,4,100,io\ns,8,60,cpu\n", r"line 3\.intensity: job 's' was 'io'"),
        ("job,nodes,runtime\n", "no rows to fit"),
        ("", "empty CSV file"),
        ("job,kind,start,end\na,map,0,1\n", "header: expected columns job,nodes,runtime"),
    ],
)
def test_fit_runtimes_errors_name_file_line_and_column(tmp_path, text, message):
    path = tmp_path / "runtimes.csv"
    path.write_text(text)
    with pytest.raises(InvalidInput, match=message) as caught:
        fit_runtimes(path)
    assert str(caught.value).startswith(str(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("job,kind,start,end\na,map,5,4\n", r"line 2\.end: must be >= start"),
        ("job,kind,start,end\na,map,0,1\na,sort,0,1\n", r"line 3\.kind: must be map or reduce"),
        ("job,kind,start,end\na,map,0,z\n", r"line 2\.end: must be a number"),
        ("job,nodes,runtime\na,1,1\n", "header: expected columns job,kind,start,end"),
    ],
)
def test_fit_tasks_errors(tmp_path, text, message):
    path = tmp_path / "tasks.csv"
    path.write_text(text)
    with pytest.raises(InvalidInput, match=message) as caught:
        fit_tasks(path)
    assert str(caught.value).startswith(str(path))
