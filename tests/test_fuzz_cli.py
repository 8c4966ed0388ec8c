"""A bounded, seeded fuzzing of every `planner` command (see tests/fuzz_inputs.py).

Two samples of seed 0, in chunks so that pytest-xdist can spread them. The broken inputs:
the first cases that run in this process (every command and format, one thing broken each);
every one must end with status 0, 2 or 3 within its time limit, status 2 with exactly one
``error:`` line naming its file, option or argument, and none may clobber, leave a temporary
or print raw control characters. The families of issue 39: the first case of each (but the
oversized runs and demo, a minute each: the full campaign runs them), judged the same way.
Larger runs:
``.venv/bin/python -m tests.fuzz_inputs --cases 3000 --seed 42 --jobs 2``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import cache

import pytest

from tests.fuzz_families import LABELS, PROCESS
from tests.fuzz_inputs import family_of, make_case
from tests.fuzz_run import (
    PASSING,
    Run,
    check_folder,
    compare_outputs,
    estimate_said,
    format_table,
    judge,
    listing,
    main,
    materialize,
    progress_shown,
    run_cases,
    table_rows,
)

SEED = 0
#: Broken-input cases in the suite, and per test.
CASES = 100
CHUNK = 25
#: Seconds one case may take before it counts as a hang (the slowest take about 15 s).
TIMEOUT = 30.0
#: Too slow for the suite (a minute or more each): the full campaign runs them.
CAMPAIGN_ONLY = frozenset({"oversized run", "demo"})
#: The suite's case of these families: the first whose command and mutation hold this text (a
#: quicker case, or one that failed before issue 39, so that the suite keeps guarding its fix).
PICK = {"same run three times": "plan packing", "allocation nested deep": "simulate --hadoop-conf",
        "symlink loop": "conf is a symlink loop", "name over 255 bytes": "conf:", "control characters": "CSV header",
        "SIGINT/SIGTERM": "SIGTERM"}


@cache
def _broken_inputs() -> list[int]:
    indexes, index = [], 0
    while len(indexes) < CASES:
        case = make_case(index, SEED)
        if case.family not in LABELS and case.mode == PROCESS:
            indexes.append(index)
        index += 1
    return indexes


@cache
def _first_of_each_family() -> dict[str, int]:
    first: dict[str, int] = {}
    index = 0
    while len(first) < len(LABELS) - len(CAMPAIGN_ONLY):
        case = make_case(index, SEED)
        if case.family in LABELS and case.family not in CAMPAIGN_ONLY \
                and PICK.get(case.family, "") in f"{case.command} {case.mutation}":
            first.setdefault(case.family, index)
        index += 1
    return first


@pytest.mark.parametrize("chunk", range(CASES // CHUNK))
def test_broken_inputs_end_cleanly(chunk):
    indexes = _broken_inputs()[chunk * CHUNK:(chunk + 1) * CHUNK]
    clock = time.perf_counter()
    outcomes = run_cases([make_case(i, SEED) for i in indexes], TIMEOUT)
    failing = [outcome for outcome in outcomes if outcome.verdict not in PASSING]
    assert not failing, "\n".join(outcome.report() for outcome in failing)
    assert time.perf_counter() - clock < CHUNK * TIMEOUT


@pytest.mark.parametrize("family", sorted(set(LABELS) - CAMPAIGN_ONLY))
def test_hostile_family_ends_cleanly(family):
    [outcome] = run_cases([make_case(_first_of_each_family()[family], SEED)], 60.0)
    assert outcome.verdict in PASSING, outcome.report()


def test_campaign_only_names_real_families():
    assert set(LABELS) >= CAMPAIGN_ONLY


def test_cases_are_reproducible_and_cover_every_command_and_family():
    first = [make_case(i, SEED) for i in range(300)]
    assert first[:20] == [make_case(i, SEED) for i in range(20)]
    assert make_case(7, 1) != make_case(7, 0)
    commands = {case.command.split()[0] for case in first}
    assert commands == {"import", "fit", "plan", "simulate", "validate", "compare", "sweep", "export", "replay"}
    labels = {case.command for case in first}
    assert {"plan slots", "plan johnson", "plan slots+johnson", "plan pairs", "plan packing", "import swim",
            "import rumen", "import sls", "fit runtimes", "fit tasks", "plan --target mrv1", "plan --target yarn-fair",
            "plan --target yarn-capacity", "export --to yarn-fair", "simulate --hadoop-conf", "replay rumen",
            "simulate --plan tplan.json"} <= labels
    assert {"broken value", "broken text", "broken option", "broken Hadoop XML", "XML entity attack",
            "special input path"} <= {case.family for case in first}
    families = [family_of(i, SEED) for i in range(3000)]
    assert set(families) - {None} == set(LABELS)
    assert all(family_of(i, SEED) == make_case(i, SEED).family for i in range(0, 3000, 97) if families[i])


def test_table_prints_families_by_class_side_by_side():
    rows = [("symlink loop", "traceback", 6), ("symlink loop", "ok", 2), ("broken value", "ok", 10)]
    table = format_table({"cli": rows, "api": [("wrong type", "ok", 3)]}).splitlines()
    assert table[0] == "| campaign | family | cases | ok | traceback |"
    assert "| cli | symlink loop | 8 | 2 | 6 |" in table
    assert "| cli | (all) | 18 | 12 | 6 |" in table and "| api | wrong type | 3 | 3 |  |" in table


def test_standalone_run_prints_the_table(capsys):
    indexes = _broken_inputs()[:3]
    status = main(["--cases", "1", "--first", str(indexes[0]), "--seed", str(SEED), "--subprocess-every", "0",
                   "--api-cases", "2"])
    printed = capsys.readouterr().out
    assert status == 0 and "cases: 1 in" in printed and "| cli | (all) | 1 | 1 |" in printed
    assert "api cases: 2 (seed 0)" in printed and "| api | (all) | 2 |" in printed
    assert table_rows([]) == []


def _judged(run, *, family="broken value", signal=""):
    case = replace(make_case(0, SEED), argv=("plan", "{case}/w.yaml", "-c", "{case}/c.yaml"), family=family,
                   signal=signal)
    return judge(case, run, 1.0)


@pytest.mark.parametrize(("run", "signal", "verdict"), [
    (Run(2, "", "error: /tmp/x/w.yaml: jobs[0].map_tasks: must be >= 0, got -1\n"), "", "ok"),
    (Run(2, "", "error: --runs: must be <= 100,000, got 100001\n"), "", "ok"),
    (Run(2, "", "error: must be >= 0, got -1\n"), "", "unnamed error"),
    (Run(2, "", "error: non-negative value wanted\n"), "", "unnamed error"),
    (Run(2, "", "warning: x\nerror: /tmp/x/w.yaml: bad\n"), "", "malformed error"),
    (Run(1, "", "Traceback (most recent call last):\n  ...\nKeyError: 'a'\n"), "", "traceback"),
    (Run(2, "", "error: /tmp/x/w.yaml: key '\x1b[31mred' unknown\n"), "", "raw control characters"),
    (Run(143, "", ""), "SIGTERM", "ok"),
    (Run(143, "", ""), "", "bad exit"),
    (Run(-15, "", ""), "SIGTERM", "bad exit"),
    (Run(0, "", "", problems=(("leftover temp", ".r.json.x1.tmp"), ("bad exit", "status -15"))), "", "leftover temp"),
    (Run(None, "", "", "hang"), "", "hang"),
])
def test_a_case_is_judged_by_the_first_class_that_applies(run, signal, verdict):
    assert _judged(run, signal=signal).verdict == verdict


def test_an_oversized_run_refused_at_once_is_refused_up_front():
    outcome = _judged(Run(2, "", "error: /tmp/x/w.yaml: 9,999,990 tasks; at most 1,000,000\n"), family="oversized run")
    assert outcome.verdict == "refused up front"


def test_an_announced_long_run_stopped_at_its_limit_passes(tmp_path):
    """An allowed long run (docs/limits.md, "Limits before work") said its estimate and then showed
    an ETA; stopped with SIGTERM at its limit it must end with 143, and no estimate means a hang."""
    said = "simulate: 9,999,990 tasks, about 2 min of one core (estimated); progress follows\n"
    stderr = tmp_path / "stderr"
    stderr.write_text(said)
    assert estimate_said(stderr) and not progress_shown(stderr)
    stderr.write_text(said + "t = 4,000 s, 12.5% of tasks done, ETA 1 min 40 s\n")
    assert progress_shown(stderr)
    stderr.write_text("t = 4,000 s, 12.5% of tasks done, ETA 1 min 40 s\n" + said)
    assert not progress_shown(stderr)
    text = stderr.read_text()
    assert _judged(Run(143, "", text, announced=True), family="oversized run").verdict == "announced, stopped"
    assert _judged(Run(-9, "", text, announced=True), family="oversized run").verdict == "bad exit"
    assert _judged(Run(None, "", "", "hang"), family="oversized run").verdict == "hang"


def test_outputs_that_differ_only_in_wall_clock_fields_are_told_apart():
    plan = b'{"order": [1, 2], "seconds": 2.5}'
    assert compare_outputs({"p.json": plan}, {"p.json": plan}) is None
    assert compare_outputs({"p.json": plan}, {"p.json": b'{"order": [1, 2], "seconds": 2.7}'})[0] == \
        "timing fields differ"
    assert compare_outputs({"p.json": plan}, {"p.json": b'{"order": [2, 1], "seconds": 2.5}'})[0] == \
        "nondeterministic"
    assert compare_outputs({"r.csv": b"a,1\n"}, {"r.csv": b"a,2\n"})[0] == "nondeterministic"
    # --json on stdout: its top-level "timings" is the documented home of wall-clock times
    out = b'{"makespan": 9.0, "timings": {"plan": 1.5}}'
    assert compare_outputs({"<stdout>": out}, {"<stdout>": b'{"makespan": 9.0, "timings": {"plan": 1.9}}'}) is None
    assert compare_outputs({"<stdout>": out}, {"<stdout>": b'{"makespan": 9.5, "timings": {"plan": 1.5}}'})[0] == \
        "nondeterministic"
    # ... and only there: a plan file carries no timings at all
    assert compare_outputs({"p.json": out}, {"p.json": b'{"makespan": 9.0, "timings": {"plan": 1.9}}'})[0] == \
        "nondeterministic"


def test_the_folder_checks_find_clobbered_links_temporaries_and_stray_files(tmp_path):
    case = replace(make_case(0, SEED), argv=("plan", "{case}/w.yaml", "-o", "{case}/out/plan.json"),
                   files=(("w.yaml", "jobs: []\n"), ("out/plan.json", "<link>kept.txt"), ("kept.txt", "x\n")))
    folder = tmp_path / "case"
    materialize(case, folder)
    before = listing(folder)
    assert check_folder(case, folder, before) == []
    (folder / "out" / "plan.json").unlink()
    (folder / "out" / "plan.json").write_text("{}")
    (folder / "out" / ".plan.json.x1y2.tmp").write_text("")
    (folder / "report.log").write_text("")
    assert check_folder(case, folder, before) == [("clobbered", "out/plan.json was a symlink, is now a file"),
                                                  ("leftover temp", "out/.plan.json.x1y2.tmp"),
                                                  ("stray file", "report.log")]
