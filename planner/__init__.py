"""batchplan's planner: read traces, make plans, prove them in the simulator.

Everything a user of the README and the docs needs is importable from here::

    from planner import make_plan, validate, compare, sweep, simulate, read_swim, Plan

The names are served on first use (`__getattr__`), so that ``import planner`` (and so the
`planner` command's start) imports none of NumPy, scikit-learn, pyomo or the simulator. The
rooms behind them: `planner.io` (files in and out: traces, settings, results, Hadoop's
configuration), `planner.plans` (the Plan record), `planner.planning` (making plans), `planner.proof`
(validating, comparing, sweeping, reporting), `planner.simulator`, `planner.examples` and
`planner.cli`.
"""

from __future__ import annotations

# First: Ctrl-C while the command starts exits quietly (see there).
import planner.cli.startup  # noqa: F401  # isort: skip
from models.lazy import lazy_names

#: Public name -> the module that defines it.
_PUBLIC = {
    # files in
    "read_swim": "planner.io.swim",
    "SwimConversion": "planner.io.swim",
    "read_rumen": "planner.io.json_traces",
    "read_sls": "planner.io.json_traces",
    "rumen_task_records": "planner.io.json_traces",
    "TraceWarning": "planner.io.json_traces",
    "read_synth": "planner.io.synth",
    "synth_cluster": "planner.io.synth",
    "read_swf": "planner.io.swf",
    "read_oozie": "planner.io.oozie",
    "IMPORTERS": "planner.io.importers",
    "read_trace": "planner.io.importers",
    "fit_runtimes": "planner.io.fitting",
    "fit_tasks": "planner.io.fitting",
    "runtime_workload": "planner.io.fitting",
    "task_workload": "planner.io.fitting",
    "RuntimeFit": "planner.io.fitting",
    "workload_summary": "planner.io.summary",
    # files in and out: settings, results, Hadoop's configuration
    "load_scheduler": "planner.io.settings",
    "load_settings": "planner.io.settings",
    "simulation_settings": "planner.io.settings",
    "write_result_json": "planner.io.results",
    "read_hadoop_conf": "planner.io.hadoop.conf",
    "hadoop_settings": "planner.io.hadoop.conf",
    "hadoop_run": "planner.io.hadoop.conf",
    "HadoopSetup": "planner.io.hadoop.conf",
    "IgnoredSetting": "planner.io.hadoop.conf",
    "export_plan": "planner.io.targets",
    "plan_run": "planner.io.targets",
    "ExportTarget": "planner.io.targets",
    "register_target": "planner.io.targets",
    "export_target": "planner.io.targets",
    "submission_schedule": "planner.io.hadoop.applied",
    # plans
    "Plan": "planner.plans.plan",
    "make_plan": "planner.planning.make",
    "plan_for_target": "planner.planning.deploy",
    "Levers": "planner.plans.levers",
    "size_cluster": "planner.planning.sizing",
    "size_machines": "planner.planning.sizing",
    "SizingResult": "planner.planning.sizing",
    "write_sizing_report": "planner.planning.sizing",
    # proof
    "validate": "planner.proof.validate",
    "ValidationReport": "planner.proof.validate",
    "compare": "planner.proof.compare",
    "Comparison": "planner.proof.compare",
    "replay": "planner.proof.replay",
    "sweep": "planner.proof.sweep",
    "Spec": "planner.proof.sweep",
    "write_report": "planner.proof.report",
    "plot_makespan_curve": "planner.plots",
    "plot_predicted_vs_simulated": "planner.plots",
    "plot_gantt": "planner.plots",
    "plot_fairness_over_time": "planner.plots",
    "plot_sizing": "planner.plots",
    "plot_machine_count": "planner.plots",
    # the simulator
    "simulate": "planner.simulator",
    "simulate_vms": "planner.simulator",
    "SimOptions": "planner.simulator",
    "SimResult": "planner.simulator",
    "VmResult": "planner.simulator",
    "SCHEDULERS": "planner.simulator",
    "make_scheduler": "planner.simulator",
    "Fifo": "planner.simulator",
    "Fair": "planner.simulator",
    "Pool": "planner.simulator",
    "Preemption": "planner.simulator",
    "Capacity": "planner.simulator",
    "Queue": "planner.simulator",
    "Fresh": "planner.simulator",
    "Natjam": "planner.simulator",
    "DelayScheduling": "planner.simulator",
    # examples
    "run_demo": "planner.examples.demo",
    "bundled": "planner.examples.demo",
    "set_a_batch": "planner.examples.workloads",
    "packing_workload": "planner.examples.workloads",
    "paper_cluster": "planner.examples.workloads",
}


__getattr__, __dir__ = lazy_names("planner", _PUBLIC, globals())

__all__ = sorted(_PUBLIC)  # names served by __getattr__
