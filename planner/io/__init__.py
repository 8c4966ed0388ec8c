"""Files in and out: trace importers, measurement files, settings and result files, and the
cluster software's own formats.

Trace importers, one module per input format: `swim` (SWIM's Facebook traces), `json_traces`
(Hadoop Rumen job histories and the SLS job format), `synth`, `swf`, `oozie` (Oozie workflows:
jobs that wait for jobs, profiled from a trace), `fitting` (measurement CSVs fitted into profiles),
and `summary` (flat summaries of what was read); `xml_files` reads XML safely (Oozie's, Hadoop's). A new importer is a
module here returning a `models.Workload`, registered in `planner.io.importers` so that
`planner import` offers it. The importers read with models' vocabulary only.

The simulator's files: `settings` (scheduler settings files) and `results` (a run's result
file). A cluster software's formats get a package each, owning reading its configuration,
writing a plan as its configuration and applying it: `hadoop/` (see there). Its export targets
are registered by name in `targets` (`ExportTarget`, `register_target`), whose `export_plan`
and `plan_run` dispatch on the target's name.

Importing this package imports none of its modules (the command starts fast); import the names
from `planner` (which serves them on first use) or from their module.
"""
