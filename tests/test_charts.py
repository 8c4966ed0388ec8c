"""Gantt charts of a run (`SimResult.plot_gantt`).

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

from models import Job
from planner.simulator import Fair, Pool, Preemption, simulate
from tests.support.simulator import PREEMPT_CLUSTER


def test_plot_gantt_returns_axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    scheduler = Fair(pools=[Pool("b", min_map=4)], preemption=Preemption(min_share_timeout=30, fair_share_timeout=None))
    result = simulate([Job("hog", 12, 0, 100.0, pool="a"), Job("b", 4, 0, 50.0, submit=10.0, pool="b")],
                      PREEMPT_CLUSTER, scheduler)
    ax = result.plot_gantt()
    assert isinstance(ax, Axes)
    plt.close(ax.figure)
    _, given = plt.subplots()
    assert result.plot_gantt(ax=given, max_slots=None) is given
    plt.close(given.figure)


def test_gantt_draws_from_the_columns_each_attempt_on_a_shown_slot_once():
    """The chart reads the attempt columns (a day's millions of attempts are never built as
    tuples: `attempts` stays unbuilt): one box per attempt on the slots shown, the killed ones
    hatched, in one collection per (job, fate)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scheduler = Fair(pools=[Pool("b", min_map=4)], preemption=Preemption(min_share_timeout=30, fair_share_timeout=None))
    result = simulate([Job("hog", 12, 0, 100.0, pool="a"), Job("b", 4, 0, 50.0, submit=10.0, pool="b")],
                      PREEMPT_CLUSTER, scheduler)
    table = result.columns()
    assert result.kills > 0
    for shown in (3, None):
        _, ax = plt.subplots()
        result.plot_gantt(ax=ax, max_slots=shown)
        on = table["slot"] < (shown if shown is not None else result.slots)
        boxes = sum(len(c.get_paths()) for c in ax.collections)
        hatched = sum(len(c.get_paths()) for c in ax.collections if c.get_hatch())
        assert boxes == int(on.sum()) and hatched == int((on & (table["fate"] != 0)).sum())
        assert len(ax.collections) == len({(j, f != 0) for j, f in zip(table["job"][on], table["fate"][on], strict=True)})
        plt.close(ax.figure)
    assert "attempts" not in result.__dict__
