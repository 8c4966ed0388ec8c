"""Hadoop's files: reading the cluster's configuration, writing a plan as configuration, and
applying it; the export and its read-back are this room's round trip.

- Reading: `conf` (`read_hadoop_conf`, `hadoop_settings`, `hadoop_run`: the site files, the
  scheduler's allocation or capacity files and SLS's nodes file as the simulator's cluster,
  scheduler and options), with `allocations` (fair scheduler allocation files), `parsing`
  (XML, site properties and the nodes file as text) and `plan_files` (what `planner export`
  writes beside Hadoop's own files: slot groups, ``submissions.tsv``, ``phases.tsv``).
- Writing: `export` (`hadoop_files`: a plan as the files an operator copies onto the cluster;
  the schedule's files and the asynchronous submission script) and `merge` (a plan's `Levers`
  written into the operator's own files, with the diff, and `deployed_run`: those files read
  back, the run the planner simulates).
- Applying: `applied` (`HADOOP_TARGETS`; `submission_schedule`, `exported_scheduler` and
  `hadoop_plan_run`: the run the exported files configure, which reading them back gives too).
- `targets`: the three as export targets (`HadoopTarget`), registered in `planner.io.targets`,
  whose `export_plan` and `plan_run` dispatch on the target's name.

A new target of the same software is a name in `applied.HADOOP_TARGETS` with its branch in
`export` and `applied`; a new cluster software gets a sibling package of this one, with its
targets registered (`planner.io.targets.register_target`) from a module listed in
`planner.io.targets.TARGET_MODULES`. Importing this package
imports none of its modules; the public names are served by `planner` and `planner.io`.
"""
