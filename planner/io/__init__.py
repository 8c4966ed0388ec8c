"""Files in: trace importers, measurement files and what they hold.

One module per input format: `swim` (SWIM's Facebook traces), `json_traces` (Hadoop Rumen job
histories and the SLS job format), `fitting` (measurement CSVs fitted into profiles), and
`summary` (flat summaries of what was read). A new importer is a module here returning a
`models.Workload`, registered in `planner.io.importers` so that `planner import` offers it.
Importing this package imports none of its modules (the command starts fast); import the
names from `planner` or from their module.
"""
