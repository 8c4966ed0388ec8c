"""The driver-side submission script (`planner.io.spark.submit`), without Spark: the script's text is
loaded as a module and run against a fake SparkContext that records, per thread, the local
properties set and the jobs run. Checked: the wait rules (submit time, "after" plus its delay), the
pool, job group and description set in the job's own thread, a failure reported and its dependants
skipped, a missing callable refused before anything runs, bad rows refused by the planner side."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from models import InvalidInput
from planner.io.spark.submit import submission_script


class FakeContext:
    """Records what the script sets, per thread, and what each job saw when it ran."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.local = threading.local()
        self.calls: list[tuple[str, str, tuple]] = []
        self.cancelled: list[str] = []

    def _properties(self) -> dict:
        if not hasattr(self.local, "properties"):
            self.local.properties = {}
        return self.local.properties

    def _record(self, method: str, *arguments: object) -> None:
        with self.lock:
            self.calls.append((threading.current_thread().name, method, arguments))

    def setLocalProperty(self, key: str, value: str) -> None:
        self._record("setLocalProperty", key, value)
        self._properties()[key] = value

    def setJobGroup(self, group: str, description: str) -> None:
        self._record("setJobGroup", group, description)
        self._properties()["spark.jobGroup.id"] = group

    def setJobDescription(self, description: str) -> None:
        self._record("setJobDescription", description)
        self._properties()["spark.job.description"] = description

    def cancelJobGroup(self, group: str) -> None:
        self.cancelled.append(group)
        self.on_cancel(group)

    def on_cancel(self, group: str) -> None:
        """What Spark does to a cancelled group's running action (nothing, here)."""

    def seen(self) -> dict:
        """The properties the calling thread has set."""
        return dict(self._properties())


def load_script(rows: list[dict]) -> types.ModuleType:
    module = types.ModuleType("submit")
    exec(compile(submission_script(rows), "submit.py", "exec"), module.__dict__)
    return module


def recorder(log: list, name: str, *, fail: bool = False):
    def job(sc: FakeContext) -> None:
        log.append((name, threading.current_thread().name, sc.seen()))
        if fail:
            raise RuntimeError(f"{name} broke")

    return job


ROWS = [
    {"job": "extract", "pool": "high", "submit": 0.0, "after": []},
    {"job": "report", "pool": "low", "submit": 0.0, "after": [["extract", 0.2]]},
    {"job": "late", "pool": "low", "submit": 0.3, "after": []},
    {"job": "merge", "pool": "high", "submit": 0.0, "after": [["report", 0.0], ["late", 0.1]]},
]


def test_the_script_is_self_contained_python_holding_the_rows() -> None:
    text = submission_script(ROWS)
    tree = ast.parse(text)
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names) | {"pyspark"}
    module = load_script(ROWS)
    assert [dict(row, submit=float(row["submit"])) for row in ROWS] == module.SCHEDULE
    assert submission_script(ROWS) == text  # the same rows, the same text


def test_the_wait_rules_and_the_properties_set_in_each_jobs_thread() -> None:
    """extract runs at 0; report waits for extract's end + 0.2 s; late for its submit time 0.3 s;
    merge for report's end and late's end + 0.1 s."""
    module = load_script(ROWS)
    sc, log = FakeContext(), []
    records = module.run_batch(sc, {row["job"]: recorder(log, row["job"]) for row in ROWS})
    by_job = {record["job"]: record for record in records}
    assert [record["job"] for record in records] == [row["job"] for row in ROWS]
    assert all(record["status"] == "done" and record["error"] is None for record in records)
    extract, report, late, merge = (by_job[name] for name in ("extract", "report", "late", "merge"))
    assert report["submitted"] == pytest.approx(extract["finished"] + 0.2)
    assert report["started"] >= report["submitted"]
    assert late["submitted"] == 0.3 and late["started"] >= 0.3
    assert merge["submitted"] == pytest.approx(max(report["finished"], late["finished"] + 0.1))
    assert merge["started"] >= merge["submitted"]
    for record in records:
        assert record["started"] <= record["finished"]
    # Each job ran in its own thread, which had set the pool, the group and the description first.
    for name, thread, seen in log:
        pool = by_job[name]["pool"]
        assert seen == {"spark.scheduler.pool": pool, "spark.jobGroup.id": name, "spark.job.description": name}
        assert [(method, args) for who, method, args in sc.calls if who == thread] == [
            ("setLocalProperty", ("spark.scheduler.pool", pool)),
            ("setJobGroup", (name, name)),
            ("setJobDescription", (name,)),
        ]
    assert len({thread for _, thread, _ in log}) == len(ROWS)


def test_a_spark_session_is_used_through_its_spark_context() -> None:
    module = load_script(ROWS[:1])
    context, log = FakeContext(), []
    session = types.SimpleNamespace(sparkContext=context)
    records = module.run_batch(session, {"extract": lambda given: log.append(given)})
    assert records[0]["status"] == "done"
    assert log == [session]  # the callable gets what run_batch was given
    assert [method for _, method, _ in context.calls] == ["setLocalProperty", "setJobGroup", "setJobDescription"]


def test_a_failed_job_is_reported_and_its_dependants_skipped() -> None:
    """report fails; merge waits for report, so it is skipped; extract and late still run."""
    module = load_script(ROWS)
    log: list = []
    jobs = {row["job"]: recorder(log, row["job"], fail=row["job"] == "report") for row in ROWS}
    records = {record["job"]: record for record in module.run_batch(FakeContext(), jobs)}
    assert records["report"]["status"] == "failed"
    assert records["report"]["error"] == "RuntimeError: report broke"
    assert records["merge"]["status"] == "skipped"
    assert records["merge"]["error"] == "not run: 'report' failed"
    assert records["merge"]["started"] is None and records["merge"]["finished"] is None
    assert {records["extract"]["status"], records["late"]["status"]} == {"done"}
    assert sorted(name for name, _, _ in log) == ["extract", "late", "report"]


def test_a_missing_callable_is_refused_before_anything_runs() -> None:
    module = load_script(ROWS)
    sc, log = FakeContext(), []
    jobs = {row["job"]: recorder(log, row["job"]) for row in ROWS if row["job"] not in ("late", "merge")}
    with pytest.raises(ValueError, match="no callable for the planned job\\(s\\) 'late', 'merge'"):
        module.run_batch(sc, jobs)
    with pytest.raises(ValueError, match="not callable: 'late'"):
        module.run_batch(sc, {**jobs, "late": 3, "merge": print})
    assert log == [] and sc.calls == []


def test_a_timeout_cancels_what_runs_and_what_waits() -> None:
    module = load_script([{"job": "slow", "pool": "p", "submit": 0, "after": []},
                          {"job": "next", "pool": "p", "submit": 0, "after": [["slow", 0]]}])
    sc, release = FakeContext(), threading.Event()
    sc.on_cancel = lambda group: release.set()

    def slow(_sc: FakeContext) -> None:
        """Stands for an action Spark ends with an error when its group is cancelled."""
        release.wait(30.0)
        raise RuntimeError("Job cancelled as part of cancellation of its group")

    try:
        records = module.run_batch(sc, {"slow": slow, "next": lambda _sc: None}, timeout=0.2)
    finally:
        release.set()
    assert [record["status"] for record in records] == ["cancelled", "cancelled"]
    assert sc.cancelled == ["slow"]


def test_the_script_checks_a_schedule_it_is_given() -> None:
    module = load_script(ROWS[:1])
    with pytest.raises(ValueError, match="cycle: a -> b -> a"):
        module.run_batch(FakeContext(), {}, [{"job": "a", "pool": "p", "submit": 0, "after": [["b", 0]]},
                                             {"job": "b", "pool": "p", "submit": 0, "after": [["a", 0]]}])


@pytest.mark.parametrize(("rows", "message"), [
    ([{"job": "a", "submit": -1}], "rows[0].submit: must be >= 0"),
    ([{"job": "a", "submit": 0}, {"job": "a", "submit": 1}], "rows[1].job: 'a' is planned twice"),
    ([{"job": "a", "submit": 0, "after": [["b", 0]]}], "rows[0].after[0]: 'b' is not a planned job"),
    ([{"job": "a", "submit": 0, "after": [["a", 0]]}], "rows[0].after[0]: a job cannot wait for itself"),
    ([{"job": "a", "submit": 0, "after": [["b", 0]]}, {"job": "b", "submit": 0, "after": [["a", 1]]}],
     "rows: the jobs wait for each other in a cycle: a -> b -> a"),
    ([{"job": "a", "submit": 0, "after": [["a"]]}], "rows[0].after[0]: must be [job, delay_s]"),
    ([{"job": "a", "submit": 0, "queue": "x"}], "rows[0].queue: unknown key"),
    ([{"job": "a", "submit": "0"}], "rows[0].submit: must be a number"),
])
def test_bad_rows_are_refused_naming_the_row_and_field(rows: list, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        submission_script(rows)
    assert str(caught.value).startswith(message)


def test_the_pool_defaults_to_spark_default_pool() -> None:
    assert load_script([{"job": "a", "submit": 0}]).SCHEDULE == [
        {"job": "a", "pool": "default", "submit": 0.0, "after": []}]


def test_the_program_refuses_a_mapping_without_a_planned_job(tmp_path: Path) -> None:
    """`python submit.py --jobs module:attribute` imports the mapping and checks it before Spark starts."""
    (tmp_path / "submit.py").write_text(submission_script(ROWS[:2]), encoding="utf-8")
    (tmp_path / "myjobs.py").write_text("JOBS = {'extract': print}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "submit.py", "--jobs", "myjobs:JOBS"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "ValueError: jobs: no callable for the planned job(s) 'report'" in done.stderr
