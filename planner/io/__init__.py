"""Files in and out: trace importers, measurement files, settings and result files, and the
cluster software's own formats.

Trace importers, one module per input format: `swim` (SWIM's Facebook traces), `json_traces`
(Hadoop Rumen job histories and the SLS job format), `synth`, `swf`, `fitting` (measurement CSVs
fitted into profiles), and `summary` (flat summaries of what was read). A new importer is a
module here returning a `models.Workload`, registered in `planner.io.importers` so that
`planner import` offers it. The importers read with models' vocabulary only.

The simulator's files: `settings` (scheduler settings files) and `results` (a run's result
file). A cluster software's formats get a package each, owning reading its configuration,
writing a plan as its configuration and applying it: `hadoop/` (see there). Its export targets
are registered by name in `targets` (`ExportTarget`, `register_target`), whose `export_plan`
and `plan_run` dispatch on the target's name.

Importing this package imports none of its modules (the command starts fast): the public names
below are served on first use, as from `planner`.
"""

from __future__ import annotations

from models.lazy import lazy_names

#: Public name -> the module that defines it.
_PUBLIC = {
    "read_swim": "planner.io.swim",
    "SwimConversion": "planner.io.swim",
    "read_rumen": "planner.io.json_traces",
    "read_sls": "planner.io.json_traces",
    "rumen_task_records": "planner.io.json_traces",
    "TraceWarning": "planner.io.json_traces",
    "read_synth": "planner.io.synth",
    "synth_cluster": "planner.io.synth",
    "read_swf": "planner.io.swf",
    "IMPORTERS": "planner.io.importers",
    "Importer": "planner.io.importers",
    "register_importer": "planner.io.importers",
    "read_trace": "planner.io.importers",
    "fit_runtimes": "planner.io.fitting",
    "fit_tasks": "planner.io.fitting",
    "runtime_workload": "planner.io.fitting",
    "task_workload": "planner.io.fitting",
    "RuntimeFit": "planner.io.fitting",
    "workload_summary": "planner.io.summary",
    "load_scheduler": "planner.io.settings",
    "load_settings": "planner.io.settings",
    "simulation_settings": "planner.io.settings",
    "write_result_json": "planner.io.results",
    "read_hadoop_conf": "planner.io.hadoop.conf",
    "hadoop_settings": "planner.io.hadoop.conf",
    "hadoop_run": "planner.io.hadoop.conf",
    "HadoopSetup": "planner.io.hadoop.conf",
    "IgnoredSetting": "planner.io.hadoop.conf",
    "submission_schedule": "planner.io.hadoop.applied",
    "exported_scheduler": "planner.io.hadoop.applied",
    "ExportTarget": "planner.io.targets",
    "register_target": "planner.io.targets",
    "export_target": "planner.io.targets",
    "target_names": "planner.io.targets",
    "export_plan": "planner.io.targets",
    "export_files": "planner.io.targets",
    "plan_run": "planner.io.targets",
}

__getattr__, __dir__ = lazy_names("planner.io", _PUBLIC, globals())

__all__ = sorted(_PUBLIC)  # names served by __getattr__
