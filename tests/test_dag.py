"""Dependencies in the model: `Job.after`, `models.dag.Precedence`, the workload file's `after`."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from models import Dependency, InvalidInput, InvalidType, Job, Precedence, Workload
from models.limits import MAX_PREDECESSORS

ROOT = Path(__file__).resolve().parent.parent


def job(name: str, after: object = (), submit: float = 0.0, **fields: object) -> Job:
    return Job(name, map_tasks=1, map_time=10.0, submit=submit, after=after, **fields)


def test_after_accepts_names_dependencies_and_mappings() -> None:
    made = job("c", after=["a", Dependency("b", 5), {"job": "d", "delay": 30}])
    assert made.after == (Dependency("a"), Dependency("b", 5.0), Dependency("d", 30.0))
    assert job("c", after="a").after == (Dependency("a"),)
    assert job("c").after == ()


@pytest.mark.parametrize(
    ("after", "error_type", "message"),
    [
        (["a", "a"], InvalidInput, "after[1]: 'a' is named twice"),
        ([""], InvalidInput, "after[0]"),
        ([{"job": "a", "delay": -1}], InvalidInput, "after[0].delay: must be >= 0"),
        ([{"job": "a", "wait": 3}], InvalidInput, "after[0]"),
        ([{"delay": 3}], InvalidInput, "after[0]"),
        ([3], InvalidType, "after[0]: must be a job name or {job, delay}"),
        (7, InvalidType, "after: must be a job name or a list of job names"),
        (["x"], InvalidInput, "after: job 'x' cannot wait for itself"),
    ],
)
def test_after_refuses_what_makes_no_sense(after: object, error_type: type, message: str) -> None:
    with pytest.raises(error_type) as caught:
        job("x", after=after)
    assert message in str(caught.value)


def test_after_is_bounded() -> None:
    with pytest.raises(InvalidInput, match=f"at most {MAX_PREDECESSORS:,} jobs"):
        job("x", after=[f"j{i}" for i in range(MAX_PREDECESSORS + 1)])


def test_workload_refuses_unknown_names_and_cycles() -> None:
    with pytest.raises(InvalidInput, match=r"jobs\[1\]\.after\[0\]: 'zz' is not a job of this batch \(job 'b'\)"):
        Workload([job("a"), job("b", after=["zz"])])
    with pytest.raises(InvalidInput) as caught:
        Workload([job("a", after=["c"]), job("b", after=["a"]), job("c", after=["b"]), job("d", after=["a"])])
    assert str(caught.value) == "jobs[0].after: the dependencies make a cycle: 'a' -> 'b' -> 'c' -> 'a'"
    with pytest.raises(InvalidInput, match="cycle: 'b' -> 'c' -> 'b'"):
        Workload([job("a"), job("b", after=["a", "c"]), job("c", after=["b"])])


def test_schedule_worked_by_hand() -> None:
    """Durations a=10, b=5, c=5, d=1; b after a, c after b with a 3 s delay, d alone at submit 2.

    Earliest: a [0, 10]; b [10, 15] held by a; c [18, 23] held by b; d [2, 3] (its submit).
    The end is 23. Latest finishes: c 23; b 23 - 5 - 3 = 15; a 15 - 5 = 10; d 23.
    Slack: a, b, c 0 (the critical chain a -> b -> c); d 23 - 3 = 20.
    With a deadline of 20 on c: c 20, b 12, a 7: slack a -3, b -3, c -3 (late by 3 s).
    Longest remaining paths (tails): c 5; b 5 + 3 + 5 = 13; a 10 + 13 = 23; d 1.
    """
    batch = Workload([job("a"), job("b", after=["a"]), job("c", after=[{"job": "b", "delay": 3}]),
                      job("d", submit=2)])
    timings = {t.name: t for t in batch.precedence.schedule([10, 5, 5, 1])}
    assert [(t.earliest_start, t.earliest_finish) for t in timings.values()] == [(0, 10), (10, 15), (18, 23), (2, 3)]
    assert [t.held_by for t in timings.values()] == [None, "a", "b", None]
    assert [t.latest_finish for t in timings.values()] == [10, 15, 23, 23]
    assert [t.slack for t in timings.values()] == [0, 0, 0, 20]
    assert [t.critical for t in timings.values()] == [True, True, True, False]
    assert batch.precedence.critical_path([10, 5, 5, 1]) == ["a", "b", "c"]
    late = batch.precedence.schedule([10, 5, 5, 1], deadlines=[None, None, 20, None])
    assert [t.slack for t in late] == [-3, -3, -3, 20]
    assert batch.precedence.tails([10, 5, 5, 1]) == [23, 13, 5, 1]


def test_respecting_keeps_the_proposed_order_where_allowed() -> None:
    batch = Workload([job("a"), job("b", after=["a"]), job("c", after=["b"]), job("d")])
    assert batch.precedence.respecting([2, 1, 3, 0]) == [3, 0, 1, 2]
    assert batch.precedence.respecting([3, 0, 1, 2]) == [3, 0, 1, 2]
    with pytest.raises(InvalidInput, match="each of the 4 jobs once"):
        batch.precedence.respecting([0, 0, 1, 2])


def test_random_dags_order_is_topological() -> None:
    """Random DAGs of 40 jobs (edges only from earlier to later names, then shuffled): the
    topological order puts every predecessor first, and `ancestors` is the transitive closure."""
    rng = random.Random(7)
    for _ in range(20):
        names = [f"j{i}" for i in range(40)]
        jobs = [job(name, after=sorted({f"j{rng.randrange(i)}" for _ in range(rng.randrange(3))}) if i else [])
                for i, name in enumerate(names)]
        rng.shuffle(jobs)
        graph = Precedence(jobs)
        place = {position: rank for rank, position in enumerate(graph.order)}
        for position, before in enumerate(graph.predecessors):
            for predecessor, _ in before:
                assert place[predecessor] < place[position]
                assert predecessor in graph.ancestors(position)
                assert graph.ancestors(predecessor) < graph.ancestors(position)


def test_file_round_trip_and_records(tmp_path: Path) -> None:
    batch = Workload([job("a"), job("b", after=["a"]), job("c", after=["a", {"job": "b", "delay": 300}])],
                     name="pipes")
    path = tmp_path / "pipes.yaml"
    batch.to_file(path)
    assert "after:\n  - a\n  - job: b\n    delay: 300.0\n" in path.read_text()
    assert Workload.from_file(path) == batch
    assert [row["after"] for row in batch.to_records()] == ["", "a", "a, b (+300 s)"]


def test_the_example_pipelines_load() -> None:
    batch = Workload.from_file(ROOT / "examples" / "pipelines.yaml")
    assert batch.has_dependencies
    assert batch.precedence.edges == 10


def test_command_line_names_the_cycle(tmp_path: Path) -> None:
    path = tmp_path / "cycle.yaml"
    path.write_text("jobs:\n  - {name: a, map_tasks: 1, map_time: 5, after: [b]}\n"
                    "  - {name: b, map_tasks: 1, map_time: 5, after: [a]}\n")
    done = subprocess.run([sys.executable, "-m", "planner", "simulate", str(path), "--cluster", str(ROOT / "examples" / "cluster.yaml")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"error: {path}: jobs[0].after: the dependencies make a cycle: 'a' -> 'b' -> 'a'"
    ]
