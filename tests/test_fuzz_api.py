"""A bounded, seeded fuzzing of the Python API (see tests/fuzz_api.py).

The first 900 cases of seed 0 (every public name of `models`, `solvers` and `planner` several
times) run in forked workers, each under the address-space cap and a time limit; every one must
return finite numbers or raise a `PlannerError` whose message names the broken parameter. Larger runs:
``.venv/bin/python -m tests.fuzz_api --cases 3000 --seed 0``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from models import InvalidInput, InvalidType, PlannerError, SolverFailed
from tests.fuzz_api import (
    CLASSES,
    DOCUMENTED_INFINITIES,
    PASSING,
    ApiCase,
    ApiOutcome,
    api_summary,
    classify,
    main,
    make_api_case,
    non_finite,
    public_callables,
    run_api_cases,
    target,
)
from tests.fuzz_api_calls import HOSTILE_KINDS, builders

SEED = 0
CASES = 900
#: The packages whose names must pass: all of them.
CHECKED_PACKAGES = ("models", "solvers", "planner")
#: Seconds a case may take before it counts as a hang (the slowest valid call takes about 2 s).
TIMEOUT = 30.0


def test_fuzzed_calls_pass():
    cases = [case for case in (make_api_case(i, SEED) for i in range(CASES)) if case.package in CHECKED_PACKAGES]
    outcomes = run_api_cases(cases, TIMEOUT)
    assert len(outcomes) == len(cases) == CASES
    failing = [outcome for outcome in outcomes if outcome.verdict not in PASSING]
    assert not failing, "\n".join(outcome.report() for outcome in failing)
    assert {outcome.verdict for outcome in outcomes} == {"success", "named"}


def test_valid_calls_succeed():
    """Nothing broken: every name of the checked packages returns, and finite numbers."""
    cases = [ApiCase(i, SEED, package, name, "", "valid")
             for i, (package, name) in enumerate(public_callables()) if package in CHECKED_PACKAGES]
    outcomes = run_api_cases(cases, TIMEOUT)
    assert [o.report() for o in outcomes if o.verdict != "success"] == []


def test_cases_are_reproducible_and_cover_every_public_callable():
    names = public_callables()
    first = [make_api_case(i, SEED) for i in range(CASES)]
    assert first[:30] == [make_api_case(i, SEED) for i in range(30)]  # case i whatever the count
    assert make_api_case(7, 1) != make_api_case(7, 0)
    assert {(case.package, case.name) for case in first[: len(names)]} == set(names)  # a cycle over the names
    assert {case.kind for case in first} == set(HOSTILE_KINDS)
    calls = builders()
    assert {(package, name) for package in calls for name in calls[package]} == set(names)
    assert len(names) >= 110 and {package for package, _ in names} == {"models", "solvers", "planner"}


def test_exceptions_protocols_and_constants_are_left_out():
    names = {name for _, name in public_callables()}
    assert not names & {"InvalidInput", "PlannerError", "TaskFloorWarning", "RuntimeProfile", "ExportTarget",
                        "INTENSITIES", "SCHEDULERS", "MAX_TIME_LIMIT"}
    assert {"Cluster", "Workload", "wave_runtime", "PackingInstance", "make_plan", "validate"} <= names


@dataclass
class _Record:
    makespan: float
    jobs: list


def test_non_finite_finds_the_place():
    assert non_finite(3.0) is None and non_finite(None) is None and non_finite("nan") is None
    assert non_finite(math.inf) == "result"
    assert non_finite({"a": [1.0, math.nan]}) == "result['a'][1]"
    assert non_finite(_Record(1.0, [{"finish": -math.inf}])) == "result.jobs[0]['finish']"
    assert non_finite(np.array([1.0, np.inf])) == "result"
    assert non_finite(np.array([1, 2])) is None
    assert non_finite(10**400) is None  # an integer too large for a float is finite


def test_documented_infinities_are_documented():
    """A record field the harness lets hold inf says so in its class's docstring."""
    for class_name, field in DOCUMENTED_INFINITIES:
        docstring = target("solvers", class_name).__doc__
        assert "inf" in docstring and field in docstring, (class_name, field)


def test_classes():
    case = ApiCase(0, 0, "models", "wave_runtime", "map_time", "nan")
    assert classify(InvalidInput("map_time", "must be a finite number, got nan"), case, math.nan) == "named"
    assert classify(InvalidType("map_time", "must be a number"), case, None) == "named"
    assert classify(InvalidInput("slots", "must be >= 1"), case, math.nan) == "unnamed"
    assert classify(SolverFailed("HiGHS failed"), case, math.nan) == "unnamed"
    assert classify(TypeError("unsupported operand"), case, None) == "generic"
    assert classify(ValueError("cannot convert float NaN to integer"), case, math.nan) == "generic"
    assert classify(OverflowError("cannot convert float infinity"), case, -math.inf) == "unexpected"
    assert classify(AttributeError("'str' object has no attribute 'profile'"), case, "x") == "unexpected"
    assert classify(RecursionError(), case, None) == "unexpected"
    assert classify(MemoryError(), case, None) == "memory"
    path_case = ApiCase(0, 0, "models", "write_atomic", "path", "missing-path")
    assert classify(PlannerError("/tmp/x/no-such: cannot write"), path_case, "/tmp/x/no-such") == "named"
    assert set(PASSING) < set(CLASSES)


def test_standalone_run_prints_the_table(capsys):
    assert main(["--cases", "12", "--seed", "3", "--packages", "models,solvers", "--timeout", "30"]) == 0
    printed = capsys.readouterr().out
    assert "0 failing" in printed and printed.splitlines()[1].split()[:3] == ["family", "success", "named"]


@pytest.mark.parametrize("kind", ["hang", "crash"])
def test_summary_counts_each_class(kind):
    case = make_api_case(0, SEED)
    table = api_summary([ApiOutcome(case, kind, "", 1.0), ApiOutcome(case, "named", "", 0.1)])
    row = next(line for line in table.splitlines() if line.startswith(case.package))
    counts = dict(zip(CLASSES, map(int, row.split()[1:-1]), strict=True))
    assert counts[kind] == 1 and counts["named"] == 1 and int(row.split()[-1]) == 2
