"""`planner.io.pipelines.add_pipelines`: the synthetic pipeline structure, by its documented rule,
from Python and from `planner import ... --pipelines`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from models import InvalidInput, Job, Workload
from planner.io.pipelines import PIPELINE_WINDOW, add_pipelines
from planner.io.swim import read_swim

ROOT = Path(__file__).resolve().parent.parent
FIRST_50 = ROOT / "tests" / "data" / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"


def batch(count: int, pools=("a",)) -> Workload:
    """``count`` jobs submitted in reverse position order (j0 last), pools in turn."""
    return Workload([Job(f"j{i}", 1, 0, 10.0, submit=float(count - i), pool=pools[i % len(pools)])
                     for i in range(count)], name="b")


def test_the_rule_holds():
    """A fraction of the jobs (rounded), each waiting for one of the `PIPELINE_WINDOW` latest
    jobs of its pool submitted before it; the others unchanged, order and name kept."""
    plain = batch(40, pools=("a", "b", "c"))
    piped = add_pipelines(plain, 0.3, seed=7)
    assert piped.name == "b" and piped.names == plain.names
    waiting = [job for job in piped if job.after]
    assert len(waiting) == 12  # round(0.3 x 40)
    by_name = {job.name: job for job in plain}
    for job in waiting:
        (dependency,) = job.after
        assert dependency.delay == 0.0
        earlier = sorted((other for other in plain if other.pool == job.pool and other.submit < job.submit),
                         key=lambda other: other.submit)
        assert by_name[dependency.job] in earlier[-PIPELINE_WINDOW:]
    assert [job.with_changes(after=()) for job in piped] == list(plain)


def test_the_same_seed_gives_the_same_pipelines_and_another_seed_others():
    plain = batch(60, pools=("a", "b"))
    first, again, other = (add_pipelines(plain, 0.5, seed=seed) for seed in (3, 3, 4))
    assert [job.after for job in first] == [job.after for job in again]
    assert [job.after for job in first] != [job.after for job in other]


def test_ties_and_the_first_job_of_a_pool():
    """Ranked by (submit, position): of two jobs submitted together the later-listed may wait for the
    earlier-listed, never the reverse; the first job of each pool waits for nothing; a fraction
    beyond the eligible jobs gives them all (window 1: each waits for the one just before it)."""
    plain = Workload([Job("x", 1, 0, 1.0), Job("y", 1, 0, 1.0), Job("z", 1, 0, 1.0, pool="other")])
    piped = add_pipelines(plain, 1.0, seed=0, window=1, delay=30.0)
    assert [[(d.job, d.delay) for d in job.after] for job in piped] == [[], [("x", 30.0)], []]


def test_refusals():
    plain = batch(4)
    with pytest.raises(InvalidInput, match="fraction: must be <= 1"):
        add_pipelines(plain, 1.5)
    with pytest.raises(InvalidInput, match="seed: must be >= 0"):
        add_pipelines(plain, seed=-1)
    piped = add_pipelines(plain, 0.5)
    with pytest.raises(InvalidInput, match="already has dependencies"):
        add_pipelines(piped)


def test_from_the_command_line_as_from_python(tmp_path):
    """`planner import swim ... --pipelines 0.3 --pipeline-seed 2` writes what `add_pipelines` gives;
    a fraction out of range is one error line naming the flag."""
    out = tmp_path / "piped.json"
    done = subprocess.run([sys.executable, "-m", "planner", "import", "swim", str(FIRST_50), "--pipelines", "0.3",
                           "--pipeline-seed", "2", "-o", str(out), "--json"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    expected = add_pipelines(read_swim(FIRST_50), 0.3, seed=2)
    assert [job.after for job in Workload.from_file(out)] == [job.after for job in expected]
    assert sum(1 for job in expected if job.after) == 15
    assert json.loads(done.stdout)["workload"]["jobs"] == 50
    wrong = subprocess.run([sys.executable, "-m", "planner", "import", "swim", str(FIRST_50), "--pipelines", "2"],
                           cwd=ROOT, capture_output=True, text=True, check=False)
    assert wrong.returncode == 2 and wrong.stderr.strip() == "error: --pipelines: must be <= 1, got 2.0"
