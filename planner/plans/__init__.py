"""Plans as records: what an operator applies tonight, and its file format.

`plan` (the `Plan` record), `files` (reading plan files strictly) and `phases` (a VM-level plan's
phases as plain data, and the packing rules they are checked by). This room sits below every
room that reads, exports, runs or proves plans (`planner.io`, `planner.proof`), and below
`planner.planning`, which makes them: a `Plan` is typed wherever it travels, with no import
circle.
"""
