"""The `planner` command: one module per group of verbs, thin shells over the library.

`main` (the app, --version, the entry point), `inputs` (import, fit), `planning` (plan),
`proofs` (simulate, validate, compare, sweep, demo), `options` (the options commands share, so
that a flag means the same everywhere), `choices` (the names the help lists), `console`
(tables, JSON output, progress) and `startup` (Ctrl-C while starting). A new command goes in the
module of its concern and is registered in `main` (the verbs of `proofs` by its `register`); its logic goes in the library, and heavy
libraries are imported inside the command.
"""
