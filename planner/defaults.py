"""Defaults every room shares (and the command line shows in its help), in a module that imports
nothing: the command's start reads them without importing the planners or the simulator."""

from __future__ import annotations

#: The admission limit k of slot plans (jobs per phase at once).
DEFAULT_K = 5
#: Simulated runs per candidate of a robust plan.
ROBUST_RUNS = 10
#: Simulated runs per candidate of a plan for a target (`plan_for_target`), paired with its baselines.
DEFAULT_TARGET_RUNS = 20
#: Simulated runs per setup of a fixed validation (``--runs N``; other commands' runs).
DEFAULT_RUNS = 30
#: ``--runs auto`` (`planner.proof.adaptive`, the validation's default): the first round's runs
#: (of a batch of more than `LARGE_BATCH_TASKS` tasks: `AUTO_MIN_RUNS_LARGE`), the most runs, and
#: the precision (a share of the mean) that settles a comparison.
AUTO_MIN_RUNS = 10
AUTO_MIN_RUNS_LARGE = 4
AUTO_MAX_RUNS = 150
AUTO_PRECISION = 0.01
#: Other slot splits a validation simulates for its makespan-vs-map-slots figure (slot plans).
CURVE_SPLITS = 6
#: A batch of more than this many tasks (a run) is a production day: its validation simulates no
#: curve points by default (they cost as much as the comparisons and prove nothing they need) and
#: starts with a round of `AUTO_MIN_RUNS_LARGE` runs (two antithetic pairs: a run takes minutes, and
#: a difference that two pairs settle at the looks' confidence needs no more).
LARGE_BATCH_TASKS = 1_000_000
#: Bias bound of each job's times under validation (FRESH evaluated its plans with +-30% errors).
DEFAULT_NOISE = 0.3
#: Seconds a pair or packing solver may take.
DEFAULT_TIME_LIMIT = 60.0
