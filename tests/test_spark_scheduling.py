"""Spark's scheduler as the simulator runs it (`Fair`'s ``rules="spark"``, ``ties`` and ``order``;
`planner.io.spark.conf.spark_ties`): how pools compare, how stages tie inside a FAIR pool and
how a FIFO pool ranks jobs. Every example is worked out by hand in its docstring; one slot per
node, heartbeat 0 and every block on every node (tests/support/simulator.py)."""

from __future__ import annotations

import pytest

from models import Job
from models.errors import InvalidInput
from planner.io.spark.conf import SparkPool, SparkSetup, predicted_stages, spark_ties
from planner.simulator import Fair, Pool, simulate
from tests.support.simulator import finishes, flat


def test_stages_tie_by_their_task_set_names_compared_as_strings():
    """Stage ids 9, 10 and 2 name task sets "TaskSet_9.0", "TaskSet_10.0" and "TaskSet_2.0"; as
    strings, "TaskSet_10.0" < "TaskSet_2.0" < "TaskSet_9.0" ('1' < '2' < '9'): ranks 0, 1, 2 of
    3. A job's map and reduce stage rank apart (job c: stages 3 and 4 come after 2 and before 9)."""
    ties = spark_ties({"a": (9, None), "b": (10, None), "c": (3, 4)})
    assert ties == {"b": (0.0, 0.0), "c": (0.25, 0.5), "a": (0.75, 0.75)}


def test_predicted_stages_number_jobs_in_submission_order():
    """Jobs by submission then name: x (at 0, map only: stage 0), y (at 0, map and result: 1, 2),
    z (at 5: 3, 4)."""
    jobs = [Job("z", 2, 1, 1, 1, submit=5), Job("x", 2, 0, 1), Job("y", 2, 1, 1, 1)]
    assert predicted_stages(jobs) == {"x": (0, None), "y": (1, 2), "z": (3, 4)}
    assert predicted_stages(jobs, first=10)["y"] == (11, 12)


def test_inside_a_fair_pool_ties_go_to_the_stage_whose_name_sorts_first():
    """One slot; jobs a, b, c of one 10 s map each, all at 0 in one FAIR pool, none running: a tie.
    By name or submission a runs first; with Spark's ties (stages 9, 10, 2) b (TaskSet_10.0) runs
    0-10, c (TaskSet_2.0) 10-20 and a 20-30."""
    jobs = [Job(name, 1, 0, 10.0, pool="p") for name in "abc"]
    pools = [Pool("p", mode="fair")]
    assert finishes(simulate(jobs, flat(1), Fair(pools=pools))) == {"a": 10.0, "b": 20.0, "c": 30.0}
    ties = spark_ties({"a": (9, None), "b": (10, None), "c": (2, None)})
    assert finishes(simulate(jobs, flat(1), Fair(pools=pools, ties=ties))) == {"a": 30.0, "b": 10.0, "c": 20.0}


def test_a_fifo_pool_ranks_by_the_given_order_first():
    """One slot; a (at 0), b (at 1), c (at 2), one 10 s map each, in a FIFO pool. a runs 0-10;
    at 10 b and c wait: by submission b runs 10-20 and c 20-30; ranked c, b, a (Spark's job ids)
    c runs 10-20 and b 20-30."""
    jobs = [Job(name, 1, 0, 10.0, submit=float(i), pool="p") for i, name in enumerate("abc")]
    fifo = [Pool("p", mode="fifo")]
    assert finishes(simulate(jobs, flat(1), Fair(pools=fifo))) == {"a": 10.0, "b": 20.0, "c": 30.0}
    ordered = Fair(pools=fifo, order=["c", "b", "a"])
    assert finishes(simulate(jobs, flat(1), ordered)) == {"a": 10.0, "b": 30.0, "c": 20.0}


def test_spark_compares_pools_below_their_share_by_running_over_min_share():
    """Three slots; pool p (minShare 4) has one job of 2 maps, pool q (minShare 3) one of 10 maps,
    10 s each, both at 0. Hadoop caps p's share at its demand (2): slot 1 p (ratios 0 and 0, tie
    by name), slot 2 q (p 1/2, q 0), slot 3 q (p 1/2 > q 1/3): p's second map waits, p ends at 20.
    Spark divides by the share itself: slot 2 q (p 1/4, q 0), slot 3 p (p 1/4 < q 1/3): p ends at 10."""
    jobs = [Job("p1", 2, 0, 10.0, pool="p"), Job("q1", 10, 0, 10.0, pool="q")]
    pools = [Pool("p", min_map=4), Pool("q", min_map=3)]
    assert finishes(simulate(jobs, flat(1, map_slots=3), Fair(pools=pools)))["p1"] == 20.0
    assert finishes(simulate(jobs, flat(1, map_slots=3), Fair(pools=pools, rules="spark")))["p1"] == 10.0


def test_spark_breaks_ties_between_pools_by_name():
    """One slot; pool b's job (2 maps) at 0, pool a's job (1 map) at 1, 10 s each. b runs 0-10; at
    10 both pools run nothing: Hadoop gives the slot to the pool with the earlier job (b: 10-20,
    then a 20-30); Spark to the pool whose name sorts first (a: 10-20, then b 20-30)."""
    jobs = [Job("jb", 2, 0, 10.0, pool="b"), Job("ja", 1, 0, 10.0, submit=1.0, pool="a")]
    assert finishes(simulate(jobs, flat(1), Fair())) == {"jb": 20.0, "ja": 30.0}
    assert finishes(simulate(jobs, flat(1), Fair(rules="spark"))) == {"jb": 30.0, "ja": 20.0}


def test_a_spark_setup_runs_fair_pools_with_spark_rules_and_ties():
    """`SparkSetup.scheduler`: FAIR with the file's pools, Spark's rules and, where a pool is FAIR
    inside, ties from the stage ids Spark would give (or the ones given)."""
    jobs = [Job("a", 2, 1, 1, 1, pool="etl"), Job("b", 2, 1, 1, 1, submit=1.0, pool="etl")]
    scheduler = SparkSetup(mode="FAIR", pools=(SparkPool("etl", mode="FAIR"),)).scheduler(jobs)
    assert scheduler.rules == "spark" and scheduler.ties == spark_ties({"a": (0, 1), "b": (2, 3)})
    given = SparkSetup(mode="FAIR", pools=(SparkPool("etl", mode="FAIR"),)).scheduler(jobs, {"a": (9, 12), "b": (10, 11)})
    assert given.ties == spark_ties({"a": (9, 12), "b": (10, 11)})
    fifo_inside = SparkSetup(mode="FAIR", pools=(SparkPool("etl"),)).scheduler(jobs)
    assert fifo_inside.ties is None and fifo_inside.rules == "spark"


@pytest.mark.parametrize(("settings", "field"), [
    ({"rules": "yarn"}, r"^rules: "),
    ({"ties": {"a": [0.5]}}, r"^ties\.a: "),
    ({"ties": {"a": [0.5, 1.0]}}, r"^ties\.a: must be below 1"),
    ({"ties": {"a": [-0.1, 0.5]}}, r"^ties\.a\[0\]: "),
    ({"order": ["a", "a"]}, r"^order"),
])
def test_bad_spark_settings_are_named(settings, field):
    with pytest.raises(InvalidInput, match=field):
        Fair(**settings)


def test_ties_and_order_name_jobs_of_the_workload():
    jobs = [Job("a", 1, 0, 1.0)]
    with pytest.raises(InvalidInput, match=r"^ties: .zz. is not a job"):
        simulate(jobs, flat(1), Fair(ties={"zz": [0.1, 0.2]}))
    with pytest.raises(InvalidInput, match=r"^order\[0\]: 'zz' is not a job"):
        simulate(jobs, flat(1), Fair(order=["zz"]))


def test_a_stage_delay_lets_the_freed_core_go_to_another_job_first():
    """Two containers; A (2 maps, 1 reduce, 1 s each) at 0, B (the same) at 0.5, FIFO. Without a
    stage delay A's reduce opens at 1, when its maps end, and takes a core at once: A's reduce runs
    1-2 beside B's first map (1-2), B's second map 2-3, B's reduce 3-4. With Spark's delay (0.01 s)
    A's reduce opens at 1.01: both cores freed at 1 go to B's maps (1-2); A's reduce runs 2-3 and
    B's, opened at 2.01, 2.01-3.01."""
    from models import Cluster
    from planner.simulator import Fifo, SimOptions

    jobs = [Job("A", 2, 1, 1.0, 1.0), Job("B", 2, 1, 1.0, 1.0, submit=0.5)]
    cluster = Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0, replication=1)
    at_once = simulate(jobs, cluster, Fifo(), options=SimOptions(containers=True, reduce_slowstart=1.0))
    assert finishes(at_once) == {"A": 2.0, "B": 4.0}
    delayed = simulate(jobs, cluster, Fifo(), options=SimOptions(containers=True, reduce_slowstart=1.0,
                                                                    stage_delay=0.01))
    assert finishes(delayed) == pytest.approx({"A": 3.0, "B": 3.01})
    with pytest.raises(InvalidInput, match=r"^stage_delay: "):
        SimOptions(stage_delay=-1)
