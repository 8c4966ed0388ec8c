"""The benchmark runner: registry, result files and floor checks (timings are not asserted here)."""

from __future__ import annotations

import csv

import pytest

from benchmarks import BENCHMARKS, Row, register
from benchmarks.__main__ import _missed, load_all, main, markdown


def test_runner_writes_csv_and_markdown(tmp_path):
    assert main(["--only", "import", "--results", str(tmp_path)]) in (0, 1)
    rows = list(csv.DictReader((tmp_path / "import.csv").open()))
    fb = next(r for r in rows if r["instance"].startswith("FB-2009 day"))
    assert fb["objective"] == "5894.0" and fb["floor_seconds"] == "2.0"
    assert fb["meets_floor"] in ("True", "False")
    assert "| FB-2009 day (SWIM) | read_swim |" in (tmp_path / "import.md").read_text()


def test_floor_is_judged_on_the_median():
    met = Row("b", "i", "m", 1.0, None, None, 1.5, "ok", 3, floor_seconds=2.0)
    missed = Row("b", "i", "m", 1.0, None, None, 2.5, "ok", 3, floor_seconds=2.0)
    free = Row("b", "i", "m", 1.0, None, None, 99.0, "ok", 3)
    assert (met.meets_floor, missed.meets_floor, free.meets_floor) == (True, False, True)
    assert "| i | m | 1 | - | - | 2.5 | ok | 2 | - | - | - | False |" in markdown("b", "d", "quick", [missed])


def test_an_objective_floor_caps_the_objective():
    """Peak memory as the objective: 900 MB under a 1,024 MB floor is met, 1,100 MB is not."""
    under = Row("b", "i", "m", 900.0, None, None, 50.0, "ok", 1, floor_seconds=120.0, floor_objective=1024.0)
    over = Row("b", "i", "m", 1100.0, None, None, 50.0, "ok", 1, floor_seconds=120.0, floor_objective=1024.0)
    assert (under.meets_floor, over.meets_floor) == (True, False)


def test_a_least_floor_bounds_the_objective_from_below():
    """A share of a predicted gain that must reach 0.5: 0.48 misses it, 0.5 meets it, and no
    objective at all cannot meet it."""
    short = Row("b", "i", "m", 0.48, None, None, 0.0, "below", 1, floor_least=0.5)
    enough = Row("b", "i", "m", 0.5, None, None, 0.0, "ok", 1, floor_least=0.5)
    none = Row("b", "i", "m", None, None, None, 0.0, "ok", 1, floor_least=0.5)
    assert (short.meets_floor, enough.meets_floor, none.meets_floor) == (False, True, False)


def test_a_missed_floor_names_each_floor_with_its_value():
    short = Row("b", "i", "m", 0.41, None, None, 0.0, "below", 1, floor_least=0.5)
    slow = Row("b", "i", "m", 1100.0, None, None, 150.0, "ok", 1, floor_seconds=120.0, floor_objective=1024.0)
    assert _missed(short) == "objective 0.41 (at least 0.5)"
    assert _missed(slow) == "150 s (floor 120 s), objective 1100.0 (at most 1024)"


def test_gap_floor_needs_a_gap_within_it():
    proven = Row("b", "i", "m", 1.0, 1.0, 0.0, 9.0, "optimal", 1, floor_seconds=10.0, floor_gap=0.0)
    open_gap = Row("b", "i", "m", 1.0, 0.9, 0.1, 9.0, "time_limit", 1, floor_seconds=10.0, floor_gap=0.02)
    no_bound = Row("b", "i", "m", 1.0, None, None, 1.0, "feasible", 1, floor_gap=0.02)
    assert (proven.meets_floor, open_gap.meets_floor, no_bound.meets_floor) == (True, False, False)


def test_every_registered_benchmark_has_a_description_and_suite():
    load_all()
    assert "import" in BENCHMARKS
    for bench in BENCHMARKS.values():
        assert bench.description and bench.suites


def test_registering_twice_is_refused():
    load_all()
    with pytest.raises(ValueError, match="registered twice"):
        register("import")(lambda suite: [])


def test_packing_figure_is_a_png(tmp_path):
    from benchmarks.bench_packing import figure

    rows = [Row("packing", "W1", "milp", 10.0, 10.0, 0.0, 0.5, "optimal", 1),
            Row("packing", "W1", "pso", 11.0, None, None, 1.5, "feasible", 1),
            Row("packing", "W1", "greedy", 12.0, None, None, 0.01, "feasible", 1),
            Row("packing", "W1", "sequential", 20.0, None, None, 0.0, "feasible", 1)]
    figure(rows, tmp_path)
    assert (tmp_path / "packing.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_packing_workloads_follow_the_documented_mixes():
    from planner.examples.workloads import JOB_TYPES, MIXES
    from planner.examples.workloads import packing_workload as workload

    for name, mix in MIXES.items():
        jobs = workload(name)
        assert len(jobs) == sum(mix.values())
        for job in jobs:
            intensity, a, b = JOB_TYPES[job.name.rsplit("-", 1)[0]]
            assert job.intensity == intensity and job.runtime(20) == pytest.approx(a * 20**b)


def test_the_fuzz_rows_count_failing_cases_per_family():
    """Two families: "a" with 2 ok and 1 hang (1 failing), "b" with 1 refused up front (passing);
    the "(all)" row adds them: 1 failing of 4, and only it carries the campaign's seconds."""
    from types import SimpleNamespace

    from benchmarks.bench_fuzz import _rows

    outcomes = [SimpleNamespace(index=index, family=family, verdict=verdict) for index, (family, verdict) in
                enumerate((("a", "ok"), ("a", "ok"), ("a", "hang"), ("b", "refused up front")))]
    rows = {row.instance: row for row in _rows("cli", outcomes, lambda o: o.family, ("ok", "refused up front"), 9.0)}
    assert [rows[name].objective for name in ("cli: (all)", "cli: a", "cli: b")] == [1.0, 1.0, 0.0]
    assert [rows[name].meets_floor for name in ("cli: (all)", "cli: a", "cli: b")] == [False, False, True]
    assert rows["cli: a"].detail == "ok 2, hang 1; failing cases 2" and rows["cli: a"].method == "3 cases"
    assert rows["cli: (all)"].seconds == 9.0 and rows["cli: b"].seconds == 0.0
