"""A bounded, seeded fuzzing of every `planner` command (see tests/fuzz_inputs.py).

300 cases of the real inputs with one thing broken each, in chunks so that pytest-xdist can
spread them: in this process, plus every 75th as a real ``python -m planner``. Every case must
end with status 0, 2 or 3 within its time limit, and status 2 with exactly one ``error:``
line. Larger runs: ``.venv/bin/python -m tests.fuzz_inputs --cases 1000 --seed 0``.
"""

from __future__ import annotations

import time

import pytest

from tests.fuzz_inputs import make_case
from tests.fuzz_run import main, run_cases

SEED = 0
CASES = 300
CHUNK = 25
#: Seconds one case may take before it counts as a hang (the slowest take about 2 s).
TIMEOUT = 30.0
SUBPROCESS_EVERY = 75


@pytest.mark.parametrize("first", range(0, CASES, CHUNK))
def test_fuzzed_inputs_end_cleanly(first):
    cases = [make_case(i, SEED, subprocess_every=SUBPROCESS_EVERY) for i in range(first, first + CHUNK)]
    clock = time.perf_counter()
    outcomes = run_cases(cases, TIMEOUT)
    failing = [outcome for outcome in outcomes if outcome.verdict != "ok"]
    assert not failing, "\n".join(outcome.report() for outcome in failing)
    assert time.perf_counter() - clock < CHUNK * TIMEOUT


def test_cases_are_reproducible_and_cover_every_command():
    first = [make_case(i, SEED) for i in range(CASES)]
    assert first[:20] == [make_case(i, SEED) for i in range(20)]
    assert make_case(7, 1) != make_case(7, 0)
    commands = {case.command.split()[0] for case in first}
    assert commands == {"import", "fit", "plan", "simulate", "validate", "compare", "sweep"}
    labels = {case.command for case in first}
    assert {"plan slots", "plan johnson", "plan slots+johnson", "plan pairs", "plan packing", "import swim",
            "import rumen", "import sls", "fit runtimes", "fit tasks"} <= labels


def test_standalone_run_prints_the_counts(capsys):
    assert main(["--cases", "4", "--seed", "3", "--subprocess-every", "0"]) == 0
    printed = capsys.readouterr().out
    assert "cases: 4 (0 as subprocesses)" in printed and "tracebacks: 0" in printed and "hangs: 0" in printed
