"""Proving plans: running them through the simulator and saying what happened.

`validate` (a plan against baselines under profile noise), `compare` (schedulers or
configurations side by side), `sweep` (many independent runs on local processes or Dask),
`report` (Markdown, HTML and the figures `planner.plots` draws), `formats` (how numbers read, the same in
the terminal and the reports). A new proof goes here; it runs plans (`planner.plans.plan.Plan`, made by `planner.planning`)
and never makes one itself.
"""
