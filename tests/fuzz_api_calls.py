"""Valid calls of every public callable of `planner`, `models` and `solvers`, and the hostile
values the API fuzz harness (`tests.fuzz_api`) puts in place of one of their arguments.

A builder takes the `Inputs` (the repository's real inputs, read once per worker: the nightly
workload, the example cluster, a plan made from them, a validation report, a simulation...)
and returns the keyword arguments of a call that succeeds. The harness replaces one of them.
Builders use small inputs (three jobs, two runs) so that a valid call takes well under a second.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
EXAMPLES = ROOT / "examples"

#: The public names left out, and why: exception and warning classes take any message, and
#: `RuntimeProfile` and `ExportTarget` are Protocols (Python refuses to construct those); the
#: constants are not callable.
EXCLUDED_KINDS = ("exception or warning class", "Protocol", "constant")

#: Hostile values by kind: what replaces the chosen argument. Kinds whose value depends on the
#: worker's folder or inputs are made by `hostile_value`.
HOSTILE_KINDS = (
    "none", "dict", "path-string", "missing-path", "directory", "wrong-object", "int-path", "negative",
    "zero", "nan", "inf", "-inf", "1e308", "10**30", "10**100", "huge-size", "empty-list", "control-string",
    "list-of-junk", "bool", "float-fraction",
)

#: Scheduler settings files, as the command line's --config reads them.
SETTINGS = {
    "fair.yaml": "scheduler: fair\npools:\n  - {name: production, weight: 2, min_map: 10, min_reduce: 4}\n"
                 "  - {name: research, mode: fifo, max_running: 2}\ndelay: {node_wait: 15, rack_wait: 15}\n",
    "capacity.yaml": "scheduler: capacity\nqueues:\n  - {name: production, capacity: 0.6}\n"
                     "  - {name: research, capacity: 0.4, max_capacity: 0.5}\noptions: {reduce_slowstart: 0.8}\n",
}

CONTROL_STRING = "x\x1b[31m\x07\n\t\x00y"


class Inputs:
    """The real inputs, read on first use, and a scratch folder (the worker's current folder)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        for source in (EXAMPLES / "nightly.yaml", EXAMPLES / "cluster.yaml", EXAMPLES / "runtimes.csv",
                       EXAMPLES / "tasks.csv", DATA / "sample.swf", DATA / "inputsls.json",
                       DATA / "2jobs2min-rumen-jh.json", DATA / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv",
                       DATA / "hadoop-conf" / "sls-synth.json", DATA / "oozie" / "demo-workflow.xml",
                       DATA / "oozie" / "sample-demo-map.yaml", DATA / "oozie" / "sample-job.properties"):
            shutil.copy(source, folder / source.name)
        shutil.copytree(DATA / "hadoop-conf", folder / "hadoop-conf", dirs_exist_ok=True)
        for name, text in SETTINGS.items():
            (folder / name).write_text(text)

    def path(self, name: str) -> str:
        return str(self.folder / name)

    @cached_property
    def workload(self):
        from models import Workload

        return Workload.from_file(self.path("nightly.yaml"))

    @cached_property
    def small(self):
        """The nightly workload's first three jobs."""
        return self.workload[:3]

    @cached_property
    def cluster(self):
        from models import Cluster

        return Cluster.from_file(self.path("cluster.yaml"))

    @cached_property
    def jobs(self) -> list:
        return list(self.small)

    @cached_property
    def plan(self):
        from planner import make_plan

        return make_plan(self.small, self.cluster, "slots+johnson", time_limit=5.0)

    @cached_property
    def node(self):
        from models import Node

        return Node(self.cluster, 4)

    @cached_property
    def sizing(self):
        from planner import size_cluster

        return size_cluster(self.small, self.node, "yarn-fair", window=100_000.0, max_nodes=3, runs=2,
                            validation_runs=2, executor="serial")

    @cached_property
    def machine_count(self):
        from planner import size_machines

        return size_machines(self.small, self.node, "packing", min_nodes=2, max_nodes=3, time_limit=5.0)

    @cached_property
    def packing_plan(self):
        from planner import make_plan

        return make_plan(self.small, self.cluster, "packing", time_limit=5.0)

    @cached_property
    def report(self):
        from planner import validate

        return validate(self.plan, self.small, self.cluster, runs=2, curve_splits=2, executor="serial")

    @cached_property
    def sim_result(self):
        from planner import simulate

        return simulate(self.small, self.cluster, "fifo")

    @cached_property
    def groups(self) -> list:
        return [list(map(tuple, phase)) for phase in self.packing_plan.phases]

    @cached_property
    def phase_schedule(self):
        from solvers import pack_phases

        return pack_phases(self.jobs, self.cluster, method="greedy")

    @cached_property
    def vm_result(self):
        from planner import simulate_vms

        return simulate_vms(self.small, self.cluster, self.groups)

    @cached_property
    def fits(self) -> list:
        from planner import fit_runtimes

        return fit_runtimes(self.path("runtimes.csv"))

    @cached_property
    def phase_profile(self):
        from planner import fit_tasks

        return fit_tasks(self.path("tasks.csv"))

    @cached_property
    def trace(self) -> list:
        from planner.io.rumen_attempts import read_rumen_attempts

        return read_rumen_attempts(self.path("2jobs2min-rumen-jh.json"))

    @cached_property
    def hadoop_paths(self) -> list[str]:
        return [self.path("hadoop-conf/yarn-fair-scheduler.xml")]

    @cached_property
    def stages(self) -> tuple[list[float], list[float]]:
        return [3.0, 5.0, 1.0, 6.0], [2.0, 4.0, 7.0, 1.0]

    @cached_property
    def packing_instance_fields(self) -> dict[str, Any]:
        import numpy as np

        primary = np.array([[40.0, 22.0, 16.0, 12.0], [30.0, 16.0, 11.0, 9.0]])
        return {"times": np.stack([primary, primary * 1.3], axis=2), "can_host": np.array([True, False]),
                "can_extra": np.array([False, True]), "vms": 4, "per_extra": 2}

    def milp_model(self):
        import pyomo.environ as pyo

        model = pyo.ConcreteModel()
        model.x = pyo.Var(within=pyo.Binary)
        model.y = pyo.Var(within=pyo.Binary)
        model.c = pyo.Constraint(expr=model.x + model.y <= 1)
        model.objective = pyo.Objective(expr=-3 * model.x - 2 * model.y)
        return model


def _square(position):
    return (position**2).sum(axis=1)


def _solution_fields():
    from solvers import SolveStatus

    return {"status": SolveStatus.OPTIMAL, "objective": 10.0, "bound": 10.0, "gap": 0.0, "solver": "test",
            "seconds": 0.1}


Builder = Callable[[Inputs], dict[str, Any]]


def _models() -> dict[str, Builder]:
    import numpy as np

    return {
        "Cluster": lambda i: {"nodes": 4, "map_slots": 2, "reduce_slots": 2, "racks": 2, "disks": 2,
                              "primaries_per_extra": 2, "overcommit_penalty": 1.3, "heartbeat": 3.0,
                              "replication": 3, "network_gbps": 1.0, "rack_oversubscription": 1.0},
        "Workload": lambda i: {"jobs": i.jobs, "name": "nightly"},
        "Dependency": lambda i: {"job": "etl", "delay": 30.0},
        "Node": lambda i: {"template": i.cluster, "nodes_per_rack": 4},
        "Precedence": lambda i: {"jobs": i.jobs},
        "Job": lambda i: {"name": "etl", "map_tasks": 10, "reduce_tasks": 2, "map_time": 30.0, "reduce_time": 60.0,
                          "submit": 5.0, "pool": "production", "weight": 2.0, "priority": 1, "deadline": 900.0,
                          "intensity": "io", "input_bytes": 1e9, "shuffle_bytes": 1e8, "output_bytes": 1e7},
        "PhaseProfile": lambda i: {"min_tasks": 2},
        "PowerLawProfile": lambda i: {"warn_extrapolation": False},
        "RegressionProfile": lambda i: {"estimator": None, "log_features": True, "log_target": True},
        "classify_intensity": lambda i: {"cpu_utilization": 0.7, "io_rate": 5e7, "cpu_threshold": 0.6,
                                         "io_threshold": 1e8},
        "profile_from_dict": lambda i: {"data": {"kind": "power_law", "a": 900.0, "b": -0.8, "nodes_min": 2,
                                                 "nodes_max": 16}},
        "profile_kinds": lambda i: {},
        "profile_to_dict": lambda i: {"profile": i.workload[0].profile},
        "wave_power_law": lambda i: {"job": i.workload[0], "map_slots": 2, "reduce_slots": 2,
                                     "nodes": np.array([4.0, 8.0, 16.0])},
        "wave_runtime": lambda i: {"map_tasks": 100, "reduce_tasks": 10, "map_time": 30.0, "reduce_time": 60.0,
                                   "map_slots": 8, "reduce_slots": 4},
        "with_wave_profiles": lambda i: {"workload": i.small, "cluster": i.cluster},
        "write_atomic": lambda i: {"path": i.path("written.txt"), "content": "hello\n"},
    }


def _solvers() -> dict[str, Builder]:
    import numpy as np

    def stages(i: Inputs, **extra: Any) -> dict[str, Any]:
        first, second = i.stages
        return {"stage1": first, "stage2": second, **extra}

    return {
        "Method": lambda i: {"problem": "two_stage", "name": "mine", "solve": len, "exact": True,
                             "description": "a test"},
        "MilpOutcome": lambda i: {"status": _solution_fields()["status"], "objective": 1.0, "bound": 1.0, "gap": 0.0,
                                  "seconds": 0.1, "termination": "optimal", "solver": "highs"},
        "OrderSolution": lambda i: {**_solution_fields(), "order": np.array([1, 0]), "makespan": 10.0},
        "PackingInstance": lambda i: dict(i.packing_instance_fields),
        "PairCost": lambda i: {"sequential": 10.0, "concurrent": 8.0, "split": 2, "overcommit": 9.0, "best": 8.0,
                               "mode": "concurrent"},
        "PairCosts": lambda i: {name: np.ones((2, 2)) for name in
                                ("best", "mode", "split", "concurrent_split", "sequential", "concurrent",
                                 "overcommit")} | {"alone": np.ones(2)},
        "PairGroup": lambda i: {"jobs": (0, 1), "mode": "concurrent", "seconds": 10.0, "split": 2},
        "PairSchedule": lambda i: {**_solution_fields(), "groups": (), "sequential_baseline": 12.0},
        "PhaseSchedule": lambda i: {**_solution_fields(), "phases": (), "sequential_baseline": 12.0},
        "Placement": lambda i: {"job": 0, "vms": 2, "role": "primary"},
        "PsoOptions": lambda i: {"particles": 10, "iterations": 5, "c1": 0.5, "c2": 0.3, "w": 0.9},
        "PsoOutcome": lambda i: {"position": np.array([0.5]), "cost": 1.0, "seconds": 0.1, "iterations": 5},
        "ReleaseOrderSolution": lambda i: {**_solution_fields(), "order": np.array([0, 1]),
                                           "completions": np.array([5.0, 10.0]), "makespan": 10.0,
                                           "max_lateness": None, "late_jobs": 0, "criterion": "makespan"},
        "ReleaseSchedule": lambda i: {"completions": np.array([5.0, 10.0]), "makespan": 10.0, "max_lateness": None,
                                      "late_jobs": 0},
        "SlotPlan": lambda i: {**_solution_fields(), "map_slots": 4, "reduce_slots": 4, "makespan": 10.0,
                               "makespans": np.array([10.0]), "order": (0,), "k": 1, "model": "fresh",
                               "releases": None},
        "Solution": lambda i: _solution_fields(),
        "SolveStatus": lambda i: {"value": "optimal"},
        "configure_slots": lambda i: {"jobs": i.jobs, "total_slots": 20, "k": 2, "order": None, "model": "fresh",
                                      "releases": None},
        "evaluate_phases": lambda i: {"schedule": i.phase_schedule, "jobs": i.jobs, "cluster": i.cluster},
        "fluid_makespan": lambda i: {"jobs": i.jobs, "map_slots": 10, "reduce_slots": 10, "k": 2, "order": None,
                                     "model": "fresh", "releases": None},
        "johnson_order": lambda i: stages(i),
        "method": lambda i: {"problem": "two_stage", "name": "johnson"},
        "methods": lambda i: {"problem": "two_stage"},
        "minimize_pso": lambda i: {"cost": _square, "lower": np.array([-1.0, -1.0]), "upper": np.array([1.0, 1.0]),
                                   "options": None, "seed": 0},
        "order_jobs": lambda i: {"jobs": i.jobs, "map_slots": 4, "reduce_slots": 2, "method_name": "johnson"},
        "order_two_stage": lambda i: stages(i, method="johnson", time_limit=5.0, seed=0),
        "order_with_releases": lambda i: stages(i, releases=[0.0, 1.0, 2.0, 0.0], due=None, objective="makespan",
                                               method="branch_and_bound", time_limit=5.0, seed=0),
        "pack_phases": lambda i: {"jobs": i.jobs, "cluster": i.cluster, "method": "greedy", "time_limit": 5.0,
                                  "seed": 0},
        "pair_cost": lambda i: {"job_i": i.workload[0], "job_j": i.workload[1], "cluster": i.cluster},
        "pair_costs": lambda i: {"jobs": i.jobs, "cluster": i.cluster, "chunk": 256},
        "register_method": lambda i: {"problem": "two_stage", "name": "johnson", "exact": True},
        "relative_gap": lambda i: {"objective": 10.0, "bound": 9.0},
        "release_lower_bound": lambda i: stages(i, releases=[0.0, 1.0, 2.0, 0.0], due=None, objective="makespan"),
        "release_schedule": lambda i: stages(i, releases=[0.0, 1.0, 2.0, 0.0], order=[0, 1, 2, 3], due=None),
        "schedule_pairs": lambda i: {"jobs": i.jobs, "cluster": i.cluster, "method": "matching", "time_limit": 5.0,
                                     "seed": 0},
        "solve_milp": lambda i: {"model": i.milp_model(), "time_limit": 5.0, "mip_gap": 1e-4, "threads": 1, "seed": 0,
                                 "require_solution": True},
        "stage_times": lambda i: {"jobs": i.jobs, "map_slots": 4, "reduce_slots": 2},
        "two_stage_makespan": lambda i: stages(i, order=[0, 1, 2, 3]),
    }


def _fifo():
    from planner import Fifo

    return Fifo()


def _planner() -> dict[str, Builder]:
    def spec(i: Inputs):
        from planner import Spec

        return Spec(abs, (-3,))

    return {
        "Capacity": lambda i: {"queues": [{"name": "production", "capacity": 0.6},
                                          {"name": "research", "capacity": 0.4}], "delay": None},
        "Comparison": lambda i: {"workload": "nightly", "runs": []},
        "DelayScheduling": lambda i: {"node_wait": 15.0, "rack_wait": 15.0, "intensities": None},
        "Fair": lambda i: {"pools": None, "delay": None, "preemption": None, "k": None},
        "Fifo": lambda i: {"delay": None, "order": None},
        "Fresh": lambda i: {"k": 3, "tau1": 0.8, "tau2": 0.6, "dynamic": True, "delay": None, "order": None,
                            "algorithm3": "ours"},
        "HadoopSetup": lambda i: {"scheduler": _fifo(), "slots": (2, 2), "schedule_source": "test"},
        "Levers": lambda i: {"scheduler": "fair", "order": ("etl-clicks",), "priorities": {"etl-clicks": 1},
                             "submits": {"etl-clicks": 0.0}, "slowstart": 0.8, "slots": (2, 2)},
        "Natjam": lambda i: {"job_eviction": "MR", "task_eviction": "SRT", "mode": "suspend", "suspend_overhead": 1.35,
                             "resume_overhead": 3.88},
        "Plan": lambda i: {field: getattr(i.plan, field) for field in
                           ("strategy", "model", "k", "map_slots", "reduce_slots", "order", "predicted_makespan",
                            "baseline_makespan", "status", "solver", "seconds", "workload_fingerprint",
                            "cluster_fingerprint", "curve")},
        "Pool": lambda i: {"name": "production", "weight": 2.0, "min_map": 1, "min_reduce": 1, "mode": "fair",
                           "max_running": 3},
        "Preemption": lambda i: {"min_share_timeout": 60.0, "fair_share_timeout": 600.0, "recheck": 1.0},
        "Queue": lambda i: {"name": "production", "capacity": 0.6, "max_capacity": 0.8, "ordering": "fifo"},
        "RuntimeFit": lambda i: {field: getattr(i.fits[0], field) for field in
                                 ("job", "a", "b", "r2", "nodes_min", "nodes_max", "observations", "intensity",
                                  "profile")},
        "SimOptions": lambda i: {"reduce_slowstart": 0.8, "task_time_cv": 0.2, "containers": False,
                                 "copy_compute": (4, 2), "network": False},
        "SimResult": lambda i: {field: getattr(i.sim_result, field) for field in
                                ("scheduler", "seed", "slots", "jobs", "makespan", "busy_slot_seconds", "attempt_log",
                                 "job_names")},
        "Spec": lambda i: {"function": abs, "args": (-3,), "kwargs": {}, "label": "abs"},
        "SwimConversion": lambda i: {"block_size": 134217728, "map_startup": 5.0, "map_rate": 5242880},
        "ValidationReport": lambda i: {field: getattr(i.report, field) for field in
                                       ("plan", "kind", "runs", "noise", "seed", "seconds", "setups", "samples",
                                        "curve")},
        "VmResult": lambda i: {field: getattr(i.vm_result, field) for field in
                               ("makespan", "jobs", "phases", "seed", "noise", "backfill", "vms", "extra_vms")},
        "bundled": lambda i: {"name": "FB-2009_nightly40.tsv"},
        "compare": lambda i: {"workload": i.small, "cluster": i.cluster, "chosen": ["fifo", "fair"],
                              "splits": (None,), "seeds": (0,), "executor": "serial"},
        "export_plan": lambda i: {"plan": i.plan, "workload": i.small, "cluster": i.cluster, "target": "mrv1",
                                  "folder": i.path("exported")},
        "export_target": lambda i: {"name": "mrv1"},
        "fit_runtimes": lambda i: {"path": i.path("runtimes.csv")},
        "fit_tasks": lambda i: {"path": i.path("tasks.csv")},
        "hadoop_run": lambda i: {"paths": i.hadoop_paths, "workload": i.small, "cluster": i.cluster, "warn": False},
        "hadoop_settings": lambda i: {"paths": i.hadoop_paths, "cluster": i.cluster},
        "load_scheduler": lambda i: {"name": "fair", "path": i.path("fair.yaml")},
        "load_settings": lambda i: {"path": i.path("capacity.yaml"), "scheduler": None},
        "make_plan": lambda i: {"workload": i.small, "cluster": i.cluster, "strategy": "slots+johnson", "k": 2,
                                "model": "fresh", "time_limit": 5.0, "seed": 0, "runs": 2, "noise": 0.3,
                                "executor": "serial"},
        "make_scheduler": lambda i: {"scheduler": "fair"},
        "packing_workload": lambda i: {"name": "W1"},
        "paper_cluster": lambda i: {"machines": 4},
        "plan_for_target": lambda i: {"workload": i.small, "cluster": i.cluster, "target": "mrv1", "runs": 2,
                                      "noise": 0.3, "seed": 0, "executor": "serial"},
        "plan_run": lambda i: {"plan": i.plan, "workload": i.small, "cluster": i.cluster, "target": "mrv1"},
        "plot_fairness_over_time": lambda i: {"result": i.sim_result, "ax": None},
        "plot_gantt": lambda i: {"result": i.sim_result, "ax": None},
        "plot_sizing": lambda i: {"result": i.sizing, "ax": None},
        "plot_machine_count": lambda i: {"result": i.machine_count, "ax": None},
        "size_cluster": lambda i: {"workload": i.small, "node": i.node, "target": "yarn-fair", "window": 100_000.0,
                                   "confidence": 0.9, "max_nodes": 3, "runs": 2, "validation_runs": 2,
                                   "noise": 0.3, "seed": 0, "executor": "serial"},
        "size_machines": lambda i: {"workload": i.small, "node": i.node, "strategy": "packing", "min_nodes": 2,
                                    "max_nodes": 3, "billing": 60.0, "time_limit": 5.0},
        "SizingResult": lambda i: {field: getattr(i.sizing, field) for field in
                                   ("answer", "cluster", "plan", "sizes", "proof", "monotone", "notes", "target",
                                    "objective", "window", "confidence", "price", "billing", "runs",
                                    "validation_runs", "noise", "seed")},
        "write_sizing_report": lambda i: {"result": i.sizing, "directory": i.path("sizing")},
        "plot_makespan_curve": lambda i: {"report": i.report, "ax": None},
        "plot_predicted_vs_simulated": lambda i: {"report": i.report, "ax": None},
        "read_hadoop_conf": lambda i: {"paths": i.hadoop_paths, "warn": False},
        "read_oozie": lambda i: {"path": i.path("demo-workflow.xml"), "trace": i.path("2jobs2min-rumen-jh.json"),
                                 "trace_format": "rumen", "matches": i.path("sample-demo-map.yaml"),
                                 "properties": i.path("sample-job.properties"), "sub_workflows": None,
                                 "default_job": None},
        "read_rumen": lambda i: {"path": i.path("2jobs2min-rumen-jh.json"), "keep_failed": False},
        "read_sls": lambda i: {"path": i.path("inputsls.json")},
        "read_swf": lambda i: {"path": i.path("sample.swf"), "limit": 5, "window": None, "pool_by": "queue"},
        "read_swim": lambda i: {"path": i.path("FB-2009_samples_24_times_1hr_0_first50jobs.tsv"), "limit": 5,
                                "pool": "default", "intensity": "balanced", "window": None},
        "read_synth": lambda i: {"path": i.path("sls-synth.json"), "seed": 0, "limit": 5},
        "read_trace": lambda i: {"name": "swf", "path": i.path("sample.swf")},
        "register_target": lambda i: {"target": __import__("planner").export_target("mrv1")},
        "replay": lambda i: {"trace": i.trace, "cluster": None, "scheduler": "fifo", "seed": 0, "heartbeat": None},
        "rumen_task_records": lambda i: {"path": i.path("2jobs2min-rumen-jh.json")},
        "run_demo": lambda i: {"cluster": __import__("planner").paper_cluster(4), "runs": 2, "noise": 0.3, "seed": 0,
                               "plan_runs": 2, "executor": "serial"},
        "runtime_workload": lambda i: {"fits": i.fits, "base": None},
        "set_a_batch": lambda i: {"count": 4},
        "simulate": lambda i: {"workload": i.small, "cluster": i.cluster, "scheduler": "fifo", "seed": 0,
                               "slots": None, "options": None},
        "simulate_vms": lambda i: {"jobs": i.small, "cluster": i.cluster, "groups": i.groups, "seed": 0,
                                   "noise": 0.1, "backfill": False},
        "simulation_settings": lambda i: {"config": None, "scheduler": "fifo"},
        "submission_schedule": lambda i: {"plan": i.plan, "workload": i.small, "ready_now": False, "gap": 0.001},
        "sweep": lambda i: {"specs": [spec(i), spec(i)], "executor": "serial", "workers": None},
        "synth_cluster": lambda i: {"path": i.path("sls-synth.json")},
        "task_workload": lambda i: {"profile": i.phase_profile, "source": i.path("tasks.csv")},
        "validate": lambda i: {"plan": i.plan, "workload": i.small, "cluster": i.cluster, "runs": 2, "noise": 0.3,
                               "seed": 0, "executor": "serial", "curve_splits": 2},
        "workload_summary": lambda i: {"workload": i.small},
        "write_report": lambda i: {"report": i.report, "directory": i.path("report"), "example": None,
                                   "title": "nightly"},
        "write_result_json": lambda i: {"path": i.path("result.json"), "result": i.sim_result, "tasks": True,
                                        "chunk": 50000},
    }


def builders() -> dict[str, dict[str, Builder]]:
    """Package -> public name -> builder of a valid call's keyword arguments."""
    return {"models": _models(), "solvers": _solvers(), "planner": _planner()}


def hostile_value(kind: str, valid: object, inputs: Inputs) -> object:
    """The value of ``kind`` that replaces an argument whose valid value is ``valid``."""
    from models import Cluster

    fixed = {
        "none": None, "dict": {"unexpected": 1}, "int-path": 2**63, "negative": -1, "zero": 0,
        "nan": math.nan, "inf": math.inf, "-inf": -math.inf, "1e308": 1e308, "10**30": 10**30,
        "10**100": 10**100, "huge-size": 10**9, "empty-list": [], "control-string": CONTROL_STRING,
        "list-of-junk": [None, {"x": 1}, "junk"], "bool": True, "float-fraction": 2.5,
    }
    if kind == "valid":
        return valid
    if kind in fixed:
        return fixed[kind]
    if kind == "path-string":
        return inputs.path("nightly.yaml")
    if kind == "missing-path":
        return inputs.path("no-such-file.yaml")
    if kind == "directory":
        return str(inputs.folder)
    if kind == "wrong-object":
        return inputs.small if isinstance(valid, Cluster) else inputs.cluster
    raise ValueError(f"unknown hostile kind {kind!r}")
