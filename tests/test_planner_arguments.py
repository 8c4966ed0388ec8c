"""The planner's public functions check their arguments where they enter, the way scikit-learn does
(issue 39): a wrong type is an `InvalidType` (a `PlannerError` and a `TypeError`), a wrong value
an `InvalidInput` (a `PlannerError` and a `ValueError`), and the message names the parameter,
what it got and what it takes. One representative hostile call per public name, and each defect
the fuzz campaign found."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

import planner
from models import Cluster, InvalidInput, InvalidType, Job, Workload
from models.checks import as_bool, as_list, as_path, as_paths, as_str_mapping
from planner.limits import MAX_CURVE_SPLITS

DATA = Path(__file__).parent / "data"
SMALL = Workload([Job("a", 4, 1, 10.0, 5.0), Job("b", 2, 2, 8.0, 6.0)])
CLUSTER = Cluster(nodes=2, map_slots=2, reduce_slots=2, heartbeat=0)


@pytest.fixture(scope="module")
def plan():
    with pytest.warns(UserWarning):  # the fluid model's task-floor warning on this tiny batch
        return planner.make_plan(SMALL, CLUSTER, "slots")


@pytest.fixture(scope="module")
def report(plan):
    return planner.validate(plan, SMALL, CLUSTER, runs=2, curve_splits=1, executor="serial")


@pytest.fixture(scope="module")
def result():
    return planner.simulate(SMALL, CLUSTER)


def refused(kind: type[Exception], parameter: str, call, *args, **kwargs) -> str:
    """The message of the error ``call`` raises: of class ``kind``, naming ``parameter`` first."""
    with pytest.raises(kind) as caught:
        call(*args, **kwargs)
    assert type(caught.value) is kind
    assert str(caught.value).startswith(parameter), str(caught.value)
    return str(caught.value)


# ------------------------------------------------------------------ the named defects


def test_an_integer_path_is_not_a_file_descriptor():
    """read_swf(2**63) took the integer as an open file descriptor (OverflowError)."""
    message = refused(InvalidType, "path", planner.read_swf, 2**63)
    assert "must be a path (a string or a Path), got 9223372036854775808 (int)" in message
    refused(InvalidType, "path", planner.read_swf, 0)  # not stdin either
    refused(InvalidType, "path", planner.read_swim, True)


def test_vm_noise_beyond_max_task_time_cv_is_refused():
    """simulate_vms(noise=1e308) drew infinite factors and raised IndexError."""
    jobs = planner.packing_workload("W4")
    message = refused(InvalidInput, "noise", planner.simulate_vms, jobs, planner.paper_cluster(10), [], noise=1e308)
    assert "must be <= 10" in message


def test_curve_splits_are_bounded(plan):
    """validate(curve_splits=10**9) tried to allocate 7.45 GiB: refused at MAX_CURVE_SPLITS."""
    message = refused(InvalidInput, "curve_splits", planner.validate, plan, SMALL, CLUSTER,
                      curve_splits=MAX_CURVE_SPLITS + 1)
    assert f"must be <= {MAX_CURVE_SPLITS}" in message
    refused(InvalidInput, "curve_splits", planner.validate, plan, SMALL, CLUSTER, curve_splits=10**9)


def test_set_a_batch_is_bounded_by_max_jobs():
    """set_a_batch(10**30) built jobs without end."""
    assert "must be <= 100,000" in refused(InvalidInput, "count", planner.set_a_batch, 10**30)
    assert len(planner.set_a_batch(100_000)) == 100_000


def test_submission_gaps_are_finite(plan):
    """submission_schedule(gap=inf) put every submission but the first at inf."""
    refused(InvalidInput, "gap", planner.submission_schedule, plan, SMALL, gap=math.inf)
    refused(InvalidType, "gap", planner.submission_schedule, plan, SMALL, gap=None)
    schedule = planner.submission_schedule(plan, SMALL, ready_now=True, gap=2.0)
    assert [s.at for s in schedule] == [0.0, 2.0]  # both ready at 0, then 2 s apart


@pytest.mark.parametrize("wrong", [None, {}, "/tmp/plan.json"])
def test_a_dict_none_or_path_where_an_object_is_expected(plan, report, wrong):
    """AttributeError at some 31 places: each is now an InvalidType naming the parameter."""
    got = f"got {wrong!r} ({type(wrong).__name__})"
    assert got in refused(InvalidType, "plan", planner.validate, wrong, SMALL, CLUSTER)
    assert got in refused(InvalidType, "workload", planner.validate, plan, wrong, CLUSTER)
    assert got in refused(InvalidType, "cluster", planner.make_plan, SMALL, wrong)
    assert got in refused(InvalidType, "report", planner.write_report, wrong, "out")
    assert got in refused(InvalidType, "workload", planner.workload_summary, wrong)
    assert "must be a Plan" in refused(InvalidType, "plan", planner.plan_run, wrong, SMALL, CLUSTER)


# ------------------------------------------------------------------ one call per public name


def test_readers_check_their_arguments(tmp_path):
    for reader in (planner.read_rumen, planner.read_sls, planner.read_synth, planner.fit_runtimes,
                   planner.fit_tasks, planner.rumen_task_records, planner.synth_cluster):
        refused(InvalidType, "path", reader, None)
    refused(InvalidType, "keep_failed", planner.read_rumen, DATA / "2jobs2min-rumen-jh.json", keep_failed="yes")
    refused(InvalidType, "split_output", planner.read_swim, DATA / "sample.swf", split_output=1)
    refused(InvalidType, "name", planner.read_trace, {}, DATA / "sample.swf")
    refused(InvalidType, "fits", planner.runtime_workload, "job,nodes,runtime")
    fits = planner.fit_runtimes(DATA / "sample-runtimes.csv")
    refused(InvalidType, "base", planner.runtime_workload, fits, base={"jobs": []})
    refused(InvalidType, "profile", planner.task_workload, 1e308, "tasks.csv")
    refused(InvalidType, "source", planner.task_workload, planner.fit_tasks(DATA / "sample-tasks.csv"), -math.inf)


def test_settings_and_results_check_their_arguments(result, tmp_path):
    refused(InvalidType, "path", planner.load_settings, math.inf)
    refused(InvalidType, "name", planner.load_scheduler, math.inf, tmp_path / "fair.yaml")
    refused(InvalidType, "config", planner.simulation_settings, math.nan)
    refused(InvalidType, "result", planner.write_result_json, tmp_path / "r.json", {"makespan": 1})
    refused(InvalidType, "chunk", planner.write_result_json, tmp_path / "r.json", result, chunk="100")
    refused(InvalidInput, "chunk", planner.write_result_json, tmp_path / "r.json", result, chunk=0)


def test_hadoop_entries_check_their_arguments():
    conf = [DATA / "hadoop-conf" / "capacity-scheduler.xml"]
    refused(InvalidType, "paths", planner.read_hadoop_conf, 3.5)
    refused(InvalidType, "paths[0]", planner.read_hadoop_conf, [2**63])
    refused(InvalidType, "cluster", planner.hadoop_settings, conf, math.nan)
    refused(InvalidType, "workload", planner.hadoop_run, conf, "nightly.yaml", CLUSTER)
    refused(InvalidType, "queue_map", planner.hadoop_run, conf, SMALL, CLUSTER, queue_map=True)
    refused(InvalidType, "base", planner.hadoop_run, conf, SMALL, CLUSTER, base={})


def test_export_entries_check_their_arguments(plan, tmp_path):
    refused(InvalidType, "folder", planner.export_plan, plan, SMALL, CLUSTER, "mrv1", None)
    refused(InvalidType, "options", planner.export_plan, plan, SMALL, CLUSTER, "mrv1", tmp_path / "e", options=1)
    refused(InvalidType, "current", planner.export_plan, plan, SMALL, CLUSTER, "mrv1", tmp_path / "e", current=[])
    refused(InvalidType, "cluster", planner.plan_run, plan, SMALL, math.nan)
    refused(InvalidType, "name", planner.export_target, math.inf)
    refused(InvalidInput, "target.name", planner.register_target, object())


def test_planning_entries_check_their_arguments():
    refused(InvalidType, "workload", planner.make_plan, [1, 2], CLUSTER)
    refused(InvalidInput, "time_limit", planner.make_plan, SMALL, CLUSTER, time_limit=1e308)
    refused(InvalidType, "robust", planner.make_plan, SMALL, CLUSTER, robust=1)
    refused(InvalidType, "hadoop_conf", planner.plan_for_target, SMALL, CLUSTER, "mrv1", hadoop_conf=7)
    refused(InvalidType, "queue_map", planner.plan_for_target, SMALL, CLUSTER, "mrv1", queue_map=["a"])
    refused(InvalidType, "levers.order", planner.Levers, order=True)


def test_proof_entries_check_their_arguments(plan, report):
    refused(InvalidType, "hadoop_conf", planner.validate, plan, SMALL, CLUSTER, hadoop_conf=1.5)
    refused(InvalidType, "chosen", planner.compare, SMALL, CLUSTER, None)
    refused(InvalidType, "seeds", planner.compare, SMALL, CLUSTER, ["fifo"], seeds=-1)
    assert "MAX_RUNS" in refused(InvalidInput, "seeds", planner.compare, SMALL, CLUSTER, ["fifo"],
                                 seeds=range(10**30))  # refused after 100,001 seeds, never drawn whole
    refused(InvalidType, "specs", planner.sweep, 2.5)
    refused(InvalidType, "label", planner.Spec, len, label=math.nan)
    refused(InvalidType, "progress", planner.sweep, [], progress={})
    refused(InvalidType, "title", planner.write_report, report, "out", title=10**100)
    refused(InvalidType, "directory", planner.write_report, report, b"out")
    refused(InvalidType, "trace[0]", planner.replay, ["job"])


def test_plots_check_their_arguments(report, result):
    refused(InvalidType, "ax", planner.plot_makespan_curve, report, ax=10**100)
    refused(InvalidType, "ax", planner.plot_predicted_vs_simulated, report, ax=math.nan)
    refused(InvalidType, "ax", planner.plot_gantt, result, ax=True)
    refused(InvalidType, "ax", planner.plot_fairness_over_time, result, ax="ax")
    refused(InvalidType, "report", planner.plot_makespan_curve, None)
    refused(InvalidType, "result", planner.plot_gantt, {"jobs": []})


def test_simulator_and_examples_check_their_arguments():
    refused(InvalidType, "workload", planner.simulate, 1.5, CLUSTER)
    refused(InvalidType, "workload[0]", planner.simulate, ["a"], CLUSTER)
    refused(InvalidType, "cluster", planner.simulate, SMALL, {"nodes": 2})
    refused(InvalidType, "scheduler", planner.make_scheduler, 2**63)
    refused(InvalidType, "jobs", planner.simulate_vms, None, CLUSTER, [])
    refused(InvalidType, "backfill", planner.simulate_vms, planner.packing_workload("W4"), CLUSTER, [], backfill=0)
    refused(InvalidInput, "machines", planner.paper_cluster, 0)
    refused(InvalidType, "name", planner.packing_workload, {})
    refused(InvalidInput, "name", planner.bundled, "../../../etc/passwd")
    refused(InvalidType, "cluster", planner.run_demo, math.nan)
    refused(InvalidInput, "runs", planner.run_demo, runs=10**30)  # before any planning


# ------------------------------------------------------------------ the checkers


def test_the_generic_checkers():
    assert as_path("a.csv", "path") == "a.csv" and as_path(Path("a"), "path") == Path("a")
    for wrong in (3, True, b"a.csv", None, 1.5):
        refused(InvalidType, "path", as_path, wrong, "path")
    refused(InvalidInput, "path", as_path, " ", "path")
    refused(InvalidInput, "path", as_path, "a\0b", "path")
    assert as_paths("a", "paths") == ["a"] and as_paths(("a", Path("b")), "paths") == ["a", Path("b")]
    assert as_bool(True, "flag") is True and as_bool(False, "flag") is False
    refused(InvalidType, "flag", as_bool, 1, "flag")
    assert as_list((1, 2), "xs") == [1, 2]
    refused(InvalidType, "xs", as_list, "12", "xs")
    assert "at most 3 items (LIMIT)" in refused(InvalidInput, "xs", as_list, iter(int, 1), "xs", maximum=3,
                                                limit="LIMIT")  # an endless iterator, cut at 4
    assert as_str_mapping({"a": "b"}, "queue_map") == {"a": "b"}
    refused(InvalidType, "queue_map.a", as_str_mapping, {"a": 1}, "queue_map")
    assert os.fspath(as_path(Path("x"), "path")) == "x"


def test_a_runtime_fit_holds_finite_numbers():
    """RuntimeFit(b=inf) was a record with an infinite exponent."""
    fit = planner.fit_runtimes(DATA / "sample-runtimes.csv")[0]
    fields = {name: getattr(fit, name) for name in ("job", "a", "b", "r2", "nodes_min", "nodes_max", "observations",
                                                     "intensity", "profile")}
    assert planner.RuntimeFit(**fields) == fit
    refused(InvalidInput, "b", planner.RuntimeFit, **{**fields, "b": math.inf})
    refused(InvalidType, "job", planner.RuntimeFit, **{**fields, "job": -math.inf})


def test_scheduler_constructors_take_lists_only():
    """Capacity(queues=0.5), Fair(pools=nan), DelayScheduling(intensities=0) raised Python's
    "'float' object is not iterable" from the compiled constructors."""
    assert "must be a list of queues, got 0.5 (float)" in refused(InvalidType, "queues", planner.Capacity, 0.5)
    refused(InvalidType, "queues", planner.Capacity, {"default": 1.0})  # a mapping's keys are not queues
    refused(InvalidType, "queues[0]", planner.Capacity, [None])
    assert planner.Capacity([{"name": "a", "capacity": 1.0}]).queues[0].name == "a"
    assert "must be a list of pools, got nan (float)" in refused(InvalidType, "pools", planner.Fair, math.nan)
    refused(InvalidType, "pools[0]", planner.Fair, [3])
    assert planner.Fair(pools=({"name": "p"},)).pools["p"].weight == 1.0
    refused(InvalidType, "delay.intensities", planner.DelayScheduling, 1, 1, intensities=0)
    refused(InvalidType, "delay.intensities", planner.DelayScheduling, 1, 1, intensities={"io": 1})
    assert planner.DelayScheduling(1, 1, intensities="io").intensities == frozenset({"io"})
    assert planner.DelayScheduling(1, 1, intensities=("io", "cpu")).intensities == frozenset({"io", "cpu"})


def test_records_refuse_non_finite_numbers(plan, report, result):
    """HadoopSetup, ValidationReport, Comparison, VmResult and Plan kept NaN or inf as given."""
    fields = {name: getattr(plan, name) for name in plan.__dataclass_fields__}
    assert planner.Plan(**fields) == plan
    assert "must be an integer, got nan" in refused(InvalidInput, "map_slots", planner.Plan, **{**fields,
                                                                                              "map_slots": math.nan})
    refused(InvalidInput, "predicted_makespan", planner.Plan, **{**fields, "predicted_makespan": math.inf})
    refused(InvalidInput, "curve", planner.Plan, **{**fields, "curve": (1.0, math.nan)})
    refused(InvalidInput, "gap", planner.Plan, **{**fields, "gap": -math.inf})
    report_fields = {name: getattr(report, name) for name in report.__dataclass_fields__}
    assert planner.ValidationReport(**report_fields).summary() == report.summary()

    def report_with(name: str, value: object) -> planner.ValidationReport:  # a field is named "kind"
        return planner.ValidationReport(**{**report_fields, name: value})

    for name, value in (("plan", math.inf), ("curve", -math.inf), ("cluster", -math.inf), ("samples", math.inf)):
        refused(InvalidType, name, report_with, name, value)
    refused(InvalidInput, "runs", report_with, "runs", -math.inf)
    refused(InvalidInput, "noise", report_with, "noise", math.nan)
    refused(InvalidType, "runs", planner.Comparison, "w", -math.inf)
    refused(InvalidType, "runs[0]", planner.Comparison, "w", [math.nan])
    refused(InvalidType, "workload", planner.Comparison, math.nan, [])
    assert planner.Comparison(None, []).runs == []
    vm_fields = {"makespan": 10, "jobs": [], "phases": [], "seed": 0, "noise": 0.0, "backfill": False, "vms": 4,
                 "extra_vms": 0}
    assert planner.VmResult(**vm_fields).makespan == 10.0
    refused(InvalidInput, "vms", planner.VmResult, **{**vm_fields, "vms": math.inf})
    refused(InvalidInput, "makespan", planner.VmResult, **{**vm_fields, "makespan": math.nan})
    setup = planner.read_hadoop_conf([DATA / "hadoop-conf" / "capacity-scheduler.xml"], warn=False)
    setup_fields = {name: getattr(setup, name) for name in setup.__dataclass_fields__}
    assert planner.HadoopSetup(**setup_fields) == setup
    for name in ("scheduler", "options", "sources"):
        refused(InvalidType, name, planner.HadoopSetup, **{**setup_fields, name: math.nan})
    refused(InvalidInput, "max_priority", planner.HadoopSetup, **{**setup_fields, "max_priority": math.nan})


def test_hadoop_files_and_settings_errors_name_the_parameter(tmp_path):
    """read_hadoop_conf([]) named ``hadoop_conf``; load_scheduler's mismatch named ``scheduler``."""
    assert refused(InvalidInput, "paths", planner.read_hadoop_conf, []) == "paths: give at least one file"
    refused(InvalidInput, "paths", planner.read_hadoop_conf, [tmp_path])  # an empty folder: no file
    refused(InvalidInput, "hadoop_conf", planner.plan_for_target, SMALL, CLUSTER, "mrv1", hadoop_conf=[tmp_path])
    settings = tmp_path / "fair.yaml"
    settings.write_text("scheduler: fair\n")
    message = refused(InvalidInput, str(settings), planner.load_scheduler, "capacity", settings)
    assert message == f"{settings}: name: the settings are for 'fair', but 'capacity' was asked for"
    assert "name: unknown scheduler 'x\\x1b'" in refused(InvalidInput, "name", planner.load_scheduler, "x\x1b",
                                                         settings)


def test_results_and_comparisons_check_their_fields(result, plan):
    """SimResult(kills=inf), Plan(config_fingerprint=-inf) and compare(chosen=[None]) (seed 1)."""
    fields = {name: getattr(result, name) for name in result.__dataclass_fields__}
    assert planner.SimResult(**fields).makespan == result.makespan
    refused(InvalidInput, "kills", planner.SimResult, **{**fields, "kills": math.inf})
    refused(InvalidInput, "busy_slot_seconds", planner.SimResult, **{**fields, "busy_slot_seconds": math.nan})
    refused(InvalidType, "cluster", planner.SimResult, **{**fields, "cluster": -math.inf})
    refused(InvalidInput, "network_bytes.remote", planner.SimResult, **{**fields, "network_bytes": {"remote": math.nan}})
    plan_fields = {name: getattr(plan, name) for name in plan.__dataclass_fields__}
    refused(InvalidType, "config_fingerprint", planner.Plan, **{**plan_fields, "config_fingerprint": -math.inf})
    refused(InvalidType, "chosen[0]", planner.compare, SMALL, CLUSTER, [None])
