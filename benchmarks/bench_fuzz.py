"""The hostile-input campaign of issue 39: the command line's and the Python API's fuzz cases.

Issue 39's floors: 3,000 command-line cases and 3,000 Python API cases, seeded, covering each
family, with 0 tracebacks, 0 unexpected exception types, 0 runs past 60 s or 4 GB that were not
refused up front (or announced with an estimate and an ETA: docs/limits.md, "Limits before work"),
0 special files clobbered, 0 leftover temporaries after SIGINT or SIGTERM, and every error message
naming what it is about. A row per family of each campaign: its objective is the count of failing
cases (floor 0), its detail the count of each class; the cases themselves are those of
``python -m tests.fuzz_inputs --cases 3000 --seed 42 --api-seed 0 --jobs 2``.
"""

from __future__ import annotations

import time
from collections import Counter

from benchmarks.registry import Row, register

#: The campaigns the issue asks for: (cases, seed) of each.
CLI_CASES, CLI_SEED = 3000, 42
API_CASES, API_SEED = 3000, 0
#: Seconds a case may take before it counts as a hang (the issue's 60 s).
CASE_SECONDS = 60.0
#: Cases at a time on the command line (the machine's 2 cores).
JOBS = 2


def _rows(campaign: str, outcomes: list, family_of, passing: tuple[str, ...], seconds: float) -> list[Row]:
    """A row per family and one for all: failing cases (the objective, floor 0), the count of each
    class and the first failing cases' numbers (to run again: ``--first N --cases 1``)."""
    by_family: dict[str, Counter] = {}
    failing_cases: dict[str, list[int]] = {}
    for outcome in outcomes:
        family = family_of(outcome)
        by_family.setdefault(family, Counter())[outcome.verdict] += 1
        if outcome.verdict not in passing:
            failing_cases.setdefault(family, []).append(_index(outcome))
            failing_cases.setdefault("(all)", []).append(_index(outcome))
    by_family["(all)"] = sum(by_family.values(), Counter())
    rows = []
    for family, counts in sorted(by_family.items()):
        failing = sum(n for verdict, n in counts.items() if verdict not in passing)
        detail = ", ".join(f"{verdict} {n}" for verdict, n in counts.most_common())
        if family in failing_cases:
            detail += "; failing cases " + " ".join(str(i) for i in sorted(failing_cases[family])[:10])
        rows.append(Row("fuzz", f"{campaign}: {family}", f"{sum(counts.values())} cases", float(failing), None, None,
                        seconds if family == "(all)" else 0.0, "ok" if failing == 0 else "failing", 1,
                        detail=detail, floor_objective=0.0))
    return rows


def _index(outcome) -> int:
    case = getattr(outcome, "case", None)
    return case.index if case is not None else outcome.index


@register("fuzz", suites=("full",))
def fuzz(suite: str) -> list[Row]:
    """Issue 39's campaign: 3,000 command-line and 3,000 Python API cases, failing cases per family (floor 0)."""
    from tests.fuzz_api import PASSING as API_PASSING
    from tests.fuzz_api import make_api_case, run_api_cases
    from tests.fuzz_run import PASSING, run_parallel

    clock = time.perf_counter()
    cli = run_parallel(list(range(CLI_CASES)), CLI_SEED, 50, CASE_SECONDS, JOBS)
    cli_seconds = time.perf_counter() - clock
    clock = time.perf_counter()
    api = run_api_cases([make_api_case(i, API_SEED) for i in range(API_CASES)], CASE_SECONDS)
    api_seconds = time.perf_counter() - clock
    return (_rows(f"cli seed {CLI_SEED}", cli, lambda o: o.family, PASSING, cli_seconds)
            + _rows(f"api seed {API_SEED}", api, lambda o: o.case.package, API_PASSING, api_seconds))
