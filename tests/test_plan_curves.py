"""A slot plan's fluid curves: each admission order's computed once (`planner.planning.curves`),
their progress heard per block of splits, and shown on stderr by `planner plan`."""

from __future__ import annotations

import numpy as np
import pytest

from models import Cluster, InvalidInput, Job, Workload
from planner.cli.console import steps_shown
from planner.planning import curves as curves_module
from planner.planning.arrivals import releases_of
from planner.planning.curves import SlotCurves
from planner.planning.make import make_plan
from solvers import configure_slots
from solvers.slots import fluid


def _batch(seed: int = 0, count: int = 30) -> list[Job]:
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(40.0, count)).round(1)
    return [Job(f"j{i}", int(rng.integers(1, 40)), int(rng.integers(1, 6)), float(rng.uniform(5, 60)),
                float(rng.uniform(10, 120)), submit=float(submit[i])) for i in range(count)]


@pytest.mark.parametrize("model", ["fresh", "capped"])
def test_progress_hears_every_block_up_to_all_splits(monkeypatch, model):
    """Blocks of 7 splits over S - 1 = 39 splits: 7, 14, ..., 35, 39, and the same curve as
    without a listener."""
    jobs = _batch()
    releases = [job.submit for job in jobs]
    monkeypatch.setattr(fluid, "BLOCK_BYTES", 7 * fluid.bytes_per_entry(model) * len(jobs))
    heard: list[tuple[int, int]] = []
    plan = configure_slots(jobs, 40, 3, model=model, releases=releases, progress=lambda d, t: heard.append((d, t)))
    assert heard == [(done, 39) for done in (7, 14, 21, 28, 35, 39)]
    assert np.array_equal(plan.makespans, configure_slots(jobs, 40, 3, model=model, releases=releases).makespans)


def test_progress_without_releases_is_one_step():
    """"fresh" with every job ready at 0 shares one map phase over all splits: one report."""
    heard: list[tuple[int, int]] = []
    configure_slots(_batch(), 40, 3, progress=lambda d, t: heard.append((d, t)))
    assert heard == [(39, 39)]


def test_progress_must_be_a_function():
    with pytest.raises(InvalidInput, match="progress"):
        configure_slots(_batch(), 40, 3, progress="yes")


def test_curves_are_computed_once_per_order(monkeypatch):
    """Two orders asked for three times: two curves, each the very plan `configure_slots` makes,
    and the callable hears each new curve from its first block to all 39 splits."""
    jobs = _batch(1)
    calls: list[tuple[int, ...]] = []

    def counted(*args, **kwargs):
        calls.append(tuple(args[3]))
        return configure_slots(*args, **kwargs)

    monkeypatch.setattr(curves_module, "configure_slots", counted)
    heard: list[tuple[int, int]] = []
    curves = SlotCurves(jobs, 40, 3, "capped", np.array([job.submit for job in jobs]),
                        progress=lambda d, t: heard.append((d, t)))
    forward, backward = list(range(30)), list(range(29, -1, -1))
    first = curves.plan(forward)
    assert curves.plan(backward) is not first
    assert curves.plan(tuple(forward)) is first
    assert calls == [tuple(forward), tuple(backward)] and curves.computed == 2
    assert [d for d, _ in heard].count(39) == 2 and all(t == 39 for _, t in heard)
    reference = configure_slots(jobs, 40, 3, backward, "capped", releases=[job.submit for job in jobs])
    assert np.array_equal(curves.plan(backward).makespans, reference.makespans)


def test_a_plan_with_releases_computes_each_curve_once(monkeypatch):
    """With arrivals the order is compared with submission order at the best split, then planned:
    two curves (order, submission) where three were computed before; the plan is unchanged."""
    workload, cluster = Workload(_batch(2, 12)), Cluster(nodes=4, map_slots=2, reduce_slots=2)
    calls: list[int] = []

    def counted(*args, **kwargs):
        calls.append(1)
        return configure_slots(*args, **kwargs)

    monkeypatch.setattr(curves_module, "configure_slots", counted)
    heard: list[tuple[int, int]] = []
    after = make_plan(workload, cluster, "slots+johnson", k=3, progress=lambda d, t: heard.append((d, t)))
    assert after.ordering is not None and after.ordering["objective"] == "makespan"
    names = [job.name for job in workload]
    assert list(after.order) != names  # so both curves are needed: the order's and submission's
    assert len(calls) == 2 and [d for d, _ in heard].count(15) == 2
    direct = configure_slots(list(workload), 16, 3, [names.index(name) for name in after.order],
                             releases=releases_of(workload, False))  # counted from the first arrival
    assert (after.map_slots, after.predicted_makespan) == (direct.map_slots, direct.makespan)
    assert np.array_equal(after.curve, direct.makespans)


def test_steps_shown_off_a_terminal(capsys):
    """Off a terminal (captured), a line per ``every`` seconds with the count, the share and an
    ETA; the default waits a minute before its first line."""
    with steps_shown("planning day: fluid curve", "splits", every=0.0, numbered=True) as show:
        show(0, 100)
        show(50, 100)
        show(10, 100)  # a new curve: the pace starts again
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "planning day: fluid curve 1: 0 of 100 splits (0%), ETA unknown"
    assert lines[1].startswith("planning day: fluid curve 1: 50 of 100 splits (50%), ETA ")
    assert lines[2].startswith("planning day: fluid curve 2: 10 of 100 splits (10%), ETA ")
    with steps_shown("planning day", "splits") as show:
        show(50, 100)
    assert capsys.readouterr().err == ""


def test_planner_plan_shows_each_curve_on_stderr(tmp_path, monkeypatch):
    """End to end: with arrivals, `planner plan` (off a terminal, a line per report here) names
    curve 1 and curve 2 on stderr; stdout carries the JSON plan alone."""
    import json

    from typer.testing import CliRunner

    from planner.cli import console
    from planner.cli.main import app

    monkeypatch.setattr(console, "PROGRESS_LINE_SECONDS", 0.0)
    workload, cluster = tmp_path / "batch.yaml", tmp_path / "cluster.yaml"
    Workload(_batch(2, 12)).to_file(workload)
    Cluster(nodes=4, map_slots=2, reduce_slots=2).to_file(cluster)
    outcome = CliRunner().invoke(app, ["plan", str(workload), "-c", str(cluster), "-k", "3", "--json"])
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.stdout)["plan"]["map_slots"] == 13
    lines = outcome.stderr.splitlines()
    assert lines[0].startswith("planning batch.yaml (slots+johnson): fluid curve 1: 15 of 15 splits (100%), ETA ")
    assert lines[1].startswith("planning batch.yaml (slots+johnson): fluid curve 2: 15 of 15 splits (100%), ETA ")
    assert len(lines) == 2
