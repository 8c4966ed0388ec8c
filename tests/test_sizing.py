"""How many machines (`planner.planning.sizing.size_cluster`, ``planner size``): node files, the
cost model worked by hand, the search's bracket, bisection and proof on a batch whose bounds are
worked by hand, the refusals in one line, the report and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Job, Node, Workload
from planner.cli.main import app
from planner.planning.sizing import node_cost, size_cluster, sizing_markdown, write_sizing_report
from solvers.machine_count import billed

NIGHTLY = Path(__file__).resolve().parent.parent / "examples" / "nightly.yaml"
#: One machine: 1 map and 1 reduce slot (2 containers on YARN), offered at once (heartbeat 0).
MACHINE = Node(Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0.0), nodes_per_rack=4)


def _batch() -> Workload:
    """Four map-only jobs of 8 tasks x 10 s, all there at 0 s: 320 container-seconds of work."""
    return Workload([Job(name=f"j{i}", map_tasks=8, reduce_tasks=0, map_time=10.0) for i in range(4)])


def test_a_node_file_is_a_clusters_machine(tmp_path):
    """nodes_per_rack 4: 1-4 nodes are one rack, 5 nodes two, 9 nodes three."""
    assert [MACHINE.cluster(n).racks for n in (1, 4, 5, 9)] == [1, 1, 2, 3]
    assert MACHINE.cluster(9).total_slots == 18 and MACHINE.cluster(9).heartbeat == 0.0
    assert Node.of(Cluster(nodes=20, racks=3)).nodes_per_rack == 7  # 20 nodes in 3 racks: 7 per rack at most
    path = tmp_path / "node.yaml"
    path.write_text("map_slots: 3\nreduce_slots: 1\nnodes_per_rack: 2\n")
    read = Node.from_file(path)
    assert (read.template.map_slots, read.nodes_per_rack, read.cluster(3).racks) == (3, 2, 2)
    assert Node.from_dict(read.to_dict()) == read
    path.write_text("nodes: 20\nmap_slots: 2\n")
    with pytest.raises(InvalidInput, match=r"node.yaml: nodes: a node file describes one machine"):
        Node.from_file(path)
    with pytest.raises(InvalidInput, match="unknown"):
        Node.from_dict({"map_slot": 2})


def test_cost_is_the_makespan_billed_times_nodes_and_price():
    """10 nodes at 2.0 per hour for 3,601 s: per second 10 x 2 x 3,601 / 3,600 = 20.0056; billed by
    the hour 2 hours, 40.0; by the minute 61 minutes, 10 x 2 x 3,660 / 3,600 = 20.333."""
    assert billed(3601.0, 3600.0) == 7200.0 and billed(3600.0, 3600.0) == 3600.0
    assert node_cost(2.0, 10, 3601.0, 1.0) == pytest.approx(20.00556, abs=1e-5)
    assert node_cost(2.0, 10, 3601.0, 3600.0) == pytest.approx(40.0)
    assert node_cost(2.0, 10, 3601.0, 60.0) == pytest.approx(20.3333, abs=1e-4)
    assert node_cost(None, 10, 3601.0, 1.0) is None


@pytest.fixture(scope="module")
def sized():
    """Window 55 s, 2 containers a node: the work bound 320 / (2n) ends by 55 s from n = 3 (53.3 s;
    n = 2 gives 80 s), so 1 and 2 nodes are decided by the bound. The fluid model (best split of
    the containers, map-only jobs: the map slots do all the work) ends at 320 / 5 = 64 s on 3 nodes
    (5 map slots) and 320 / 7 = 45.7 s on 4 nodes: the search starts at 4 nodes, which meet the
    window in every run (4 waves of 10 s, noise 0.3), and 3 nodes (6 waves) miss it: the answer
    is 4, with two sizes simulated."""
    return size_cluster(_batch(), MACHINE, "yarn-fair", window=55.0, confidence=0.9, min_nodes=1, max_nodes=8,
                        runs=6, validation_runs=6, noise=0.3, seed=3, executor="serial")


def test_the_bounds_decide_the_small_sizes_and_the_search_the_rest(sized):
    records = {r["nodes"]: r for r in sized.records()}
    assert sorted(records) == list(range(1, 9))
    assert [records[n]["decided_by"] for n in (1, 2)] == ["bound", "bound"]
    assert records[2]["bound_end"] == pytest.approx(80.0) and records[3]["bound_end"] == pytest.approx(320 / 6)
    assert records[1]["p_meet"] is None and records[2]["p_meet"] is None  # not planned: no P is claimed
    assert records[3]["fluid_end"] == pytest.approx(64.0) and records[4]["fluid_end"] == pytest.approx(320 / 7)
    assert sized.answer == 4 and records[4]["p_meet"] == 1.0 and records[3]["p_meet"] == 0.0
    assert [records[n]["decided_by"] for n in range(5, 9)] == ["not examined"] * 4
    answer = records[sized.answer]
    assert answer["decided_by"] == "simulation" and answer["p_meet"] >= 0.9
    below = records.get(sized.answer - 1)
    assert below is not None and (below["decided_by"] == "bound" or below["p_meet"] < 0.9)
    # the fluid model's size, then the bisection below it: 4, then 3
    assert sized.simulated == 2
    assert sized.monotone and sized.cluster == MACHINE.cluster(sized.answer)
    assert sized.plan.simulated["p_window"] == answer["p_meet"]


def test_the_proof_runs_the_answer_and_the_next_smaller_size_on_fresh_runs(sized):
    proof = sized.proof
    assert proof["seed"] == 1003 and proof["runs"] == 6
    assert proof["p_meet"] >= 0.9 and proof["proven"]
    if proof["smaller_decided_by"] == "simulation":
        assert proof["smaller_fresh_p_meet"] < 0.9
        assert proof["paired"]["runs"] == 6 and proof["paired"]["mean_difference"] > 0  # the smaller misses more
    assert proof["critical_jobs"] and {"job", "on_chain_share", "last_share"} <= set(proof["critical_jobs"][0])


def test_the_same_request_gives_the_same_answer(sized):
    again = size_cluster(_batch(), MACHINE, "yarn-fair", window=55.0, confidence=0.9, min_nodes=1, max_nodes=8,
                         runs=6, validation_runs=6, noise=0.3, seed=3, executor="serial")
    assert again.records() == sized.records() and again.proof == sized.proof


def test_a_price_gives_each_simulated_size_its_cost(sized):
    priced = size_cluster(_batch(), MACHINE, "yarn-fair", window=55.0, confidence=0.9, min_nodes=1, max_nodes=8,
                          runs=6, validation_runs=6, noise=0.3, seed=3, executor="serial", price=3.6, billing=10.0)
    for record in priced.records():
        if record["decided_by"] == "simulation":
            # 3.6 per hour = 0.001 per node-second: nodes x the mean makespan rounded up to 10 s
            assert record["cost"] == pytest.approx(0.001 * record["nodes"] * billed(record["makespan"], 10.0))
        assert record["cost_bound"] == pytest.approx(0.001 * record["nodes"] * billed(record["bound_end"], 10.0))
    met = [r for r in priced.records() if r["decided_by"] == "simulation" and r["p_meet"] >= 0.9]
    assert priced.size(priced.answer).cost == min(r["cost"] for r in met)


@pytest.mark.parametrize(("arguments", "message"), [
    ({"window": 9.0}, "window: 9 s is before 10 s, the critical path with every job in one wave .*no size meets it"),
    ({"confidence": 1.0}, "confidence: must be strictly between 0 and 1"),
    ({"price": -1.0}, "price: must be >= 0"),
    ({"billing": 0.0}, "billing: must be > 0"),
    ({"min_nodes": 5, "max_nodes": 4}, r"max_nodes: must be >= min_nodes \(5\)"),
    ({"max_nodes": 2}, "max_nodes: even 2 nodes cannot end by 55 s: no schedule ends before 80 s on them with the "
                       "profiles' times: the bounds need at least 3 nodes"),
    ({"hadoop_conf": ["x.xml"], "target": "spark"}, "hadoop_conf: a Spark cluster is sized from Spark's files"),
    ({"spark_conf": ["x.conf"]}, "spark_conf: applies to sizing for spark, not yarn-fair"),
    ({"target": "kubernetes"}, "target: must be one of"),
])
def test_impossible_requests_are_refused_in_one_line(arguments, message):
    request = {"window": 55.0, "target": "yarn-fair", "runs": 2, "executor": "serial", **arguments}
    target = request.pop("target")
    with pytest.raises(InvalidInput, match=message) as caught:
        size_cluster(_batch(), MACHINE, target, **request)
    assert "\n" not in str(caught.value)


def test_a_range_whose_largest_size_misses_names_its_chance():
    """Window 21 s: 16 containers (8 nodes) need two waves of 10 s each, biased up to 1.3: most runs
    miss, so 8 nodes cannot reach 0.99."""
    with pytest.raises(InvalidInput, match=r"max_nodes: even 8 nodes meet the window with P = 0\.\d\d \(< 0\.99"):
        size_cluster(_batch(), MACHINE, "yarn-fair", window=21.0, confidence=0.99, max_nodes=8, runs=4,
                     executor="serial")


def test_the_report_holds_the_answer_the_figure_and_the_files(sized, tmp_path):
    paths = write_sizing_report(sized, tmp_path / "report")
    assert {path.name for path in paths.values()} == {"sizing.png", "report.md", "sizing.json", "cluster.yaml",
                                                      "plan.json"}
    text = (tmp_path / "report" / "report.md").read_text()
    assert f"**{sized.answer} nodes**" in text and "![P(finish by the window) by size](sizing.png)" in text
    assert "Proven: yes" in text and "| nodes | slots | decided_by |" in text
    assert text == sizing_markdown(sized, "sizing.png")
    data = json.loads((tmp_path / "report" / "sizing.json").read_text())
    assert data["summary"]["answer"] == sized.answer and len(data["sizes"]) == 8
    assert Cluster.from_file(tmp_path / "report" / "cluster.yaml") == sized.cluster
    # the answer's plan and cluster are ready for `planner export`
    workload = tmp_path / "batch.yaml"
    _batch().to_file(workload)
    exported = CliRunner().invoke(app, ["export", str(tmp_path / "report" / "plan.json"), "--cluster",
                                        str(tmp_path / "report" / "cluster.yaml"), "-w", str(workload), "--to",
                                        "yarn-fair", "-o", str(tmp_path / "tonight")])
    assert exported.exit_code == 0, exported.output
    assert (tmp_path / "tonight" / "submit.sh").is_file() and (tmp_path / "tonight" / "yarn-site.xml").is_file()
    assert (tmp_path / "report" / "sizing.png").read_bytes()[:4] == b"\x89PNG"


def test_the_command_lines_defaults_are_the_librarys():
    from planner.cli import sizing as command
    from planner.planning import sizing

    assert (command.DEFAULT_CONFIDENCE, command.DEFAULT_BILLING) == (sizing.DEFAULT_CONFIDENCE, sizing.DEFAULT_BILLING)


def test_the_command_line_sizes_and_reports(tmp_path):
    workload = tmp_path / "batch.yaml"
    _batch().to_file(workload)
    node = tmp_path / "node.yaml"
    node.write_text("map_slots: 1\nreduce_slots: 1\nheartbeat: 0\nnodes_per_rack: 4\n")
    runner = CliRunner()
    result = runner.invoke(app, ["size", str(workload), "--node", str(node), "--target", "yarn-fair", "--window", "55",
                                 "--confidence", "0.9", "--max", "8", "--runs", "6", "--seed", "3", "--executor",
                                 "serial", "--report", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["answer"]["answer"] >= 3 and len(shown["sizes"]) == 8 and shown["proof"]["proven"]
    assert (tmp_path / "out" / "report.md").is_file()
    bad = runner.invoke(app, ["size", str(workload), "--node", str(node), "--target", "yarn-fair", "--window", "55",
                              "--confidence", "1.5"])
    assert bad.exit_code == 2 and bad.stderr.strip().count("\n") == 0
    assert "--confidence: must be" in bad.stderr


def test_a_size_the_bounds_rule_out_is_measured_not_said_to_miss():
    """Window 75 s: 2 nodes end at 80 s at best with the profiles' times, so no plan is made for
    them and their record holds no P(meet); runs whose jobs are faster than their profiles can
    still end by 75 s, so the proof runs the answer's plan (3 nodes) on 2 nodes and measures it."""
    found = size_cluster(_batch(), MACHINE, "yarn-fair", window=75.0, confidence=0.2, max_nodes=4, runs=10,
                         validation_runs=20, executor="serial")
    two = found.size(2)
    assert two.decided_by == "bound" and two.bound_end == pytest.approx(80.0) and two.p_meet is None
    assert found.answer == 3 and found.proof["smaller_decided_by"] == "bound"
    assert 0.0 <= found.proof["smaller_fresh_p_meet"] < 1.0 and found.proof["paired"]["runs"] == 20


def test_files_that_fix_the_machines_are_refused(tmp_path):
    """A slot group's hosts file names the machines: sizing decides them."""
    hosts = tmp_path / "tasktracker-big.hosts"
    hosts.write_text("node1\n")
    (tmp_path / "tasktracker-big.xml").write_text("<configuration/>")
    with pytest.raises(InvalidInput, match=r"tasktracker-big.hosts: hadoop_conf: tasktracker-big.hosts names the "
                                           r"cluster's machines"):
        size_cluster(_batch(), MACHINE, "yarn-fair", window=55.0, max_nodes=4, hadoop_conf=[tmp_path], runs=2,
                     executor="serial")


def test_the_configurations_slots_are_the_bounds_slots(tmp_path):
    """A yarn-site.xml giving each node 8 GB for containers of 1 GB: 8 containers a node, not the
    node file's 2, so one node's bound is 320 / 8 = 40 s, and 55 s may be met from 1 node on."""
    (tmp_path / "yarn-site.xml").write_text(
        '<configuration><property><name>yarn.nodemanager.resource.memory-mb</name><value>8192</value></property>'
        '<property><name>yarn.nodemanager.resource.cpu-vcores</name><value>8</value></property>'
        '<property><name>yarn.scheduler.minimum-allocation-mb</name><value>1024</value></property>'
        '<property><name>yarn.resourcemanager.scheduler.class</name><value>org.apache.hadoop.yarn.server.'
        'resourcemanager.scheduler.fair.FairScheduler</value></property></configuration>')
    (tmp_path / "fair-scheduler.xml").write_text('<allocations><queue name="default"/></allocations>')
    found = size_cluster(_batch(), MACHINE, "yarn-fair", window=55.0, confidence=0.9, max_nodes=3, runs=4,
                         validation_runs=4, hadoop_conf=[tmp_path], executor="serial")
    assert found.size(1).slots == 8 and found.size(1).bound_end == pytest.approx(320 / 8)
    assert found.size(1).decided_by == "simulation"


def test_monotonicity_is_checked_not_assumed():
    """P(meet) 0.0, 1.0, 0.8 at 3, 5 and 8 nodes over 10 runs: from 5 to 8 it falls by 0.2, more
    than one run's share (0.1), so not monotone; 0.95 at 8 falls by 0.05, within one run."""
    from planner.planning.sizing import _monotone

    plans = {3: None, 5: None, 8: None}
    falls = {3: 0.0, 5: 1.0, 8: 0.8}
    assert _monotone(plans, falls.__getitem__, 10) == (False, "1.00 at 5 nodes, 0.80 at 8")
    assert _monotone(plans, {3: 0.0, 5: 1.0, 8: 0.95}.__getitem__, 10) == (True, "")


def test_a_spark_cluster_is_sized_by_its_cores():
    """The same batch for Spark: executors' cores are the slots, so the same bounds (2 cores a
    node: 1 and 2 nodes ruled out) and an answer proven on fresh runs."""
    found = size_cluster(_batch(), MACHINE, "spark", window=55.0, confidence=0.9, max_nodes=8, runs=4,
                         executor="serial")
    records = {r["nodes"]: r for r in found.records()}
    assert [records[n]["decided_by"] for n in (1, 2)] == ["bound", "bound"]
    assert found.target == "spark" and found.plan.target == "spark"
    assert found.size(found.answer).p_meet >= 0.9 and found.proof["p_meet"] >= 0.9


def test_a_vm_plans_machines_from_the_command_line(tmp_path):
    node = tmp_path / "node.yaml"
    node.write_text("disks: 2\nprimaries_per_extra: 2\novercommit_penalty: 1.3\n")
    runner = CliRunner()
    result = runner.invoke(app, ["size", str(NIGHTLY), "--node", str(node), "--strategy", "packing",
                                 "--min", "4", "--max", "8", "--billing", "60", "--report", str(tmp_path / "out"),
                                 "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["answer"]["proven"] and 4 <= shown["answer"]["machines"] <= 8 and len(shown["machines"]) == 5
    assert {p.name for p in (tmp_path / "out").iterdir()} == {"report.md", "machines.png", "machines.json"}
    both = runner.invoke(app, ["size", str(NIGHTLY), "--node", str(node), "--strategy", "packing",
                               "--target", "yarn-fair", "--max", "8"])
    assert both.exit_code == 2 and "one of them" in both.stderr
    no_max = runner.invoke(app, ["size", str(NIGHTLY), "--node", str(node), "--strategy", "pairs"])
    assert no_max.exit_code == 2 and "--max: give the most machines" in no_max.stderr


def test_the_documented_example_answers_as_the_docs_say():
    """docs/plans.md, "How many machines": the example batch on the example machine, window
    1,500 s, 10 runs a size and 20 fresh: 4 nodes; 1 and 2 ruled out by the bounds; 3 nodes meet
    the window on about half of the runs; the fluid model ends by the window from 4 nodes (1,406 s;
    3 nodes: 1,854 s), so the search starts there and 2 of the 12 sizes are simulated."""
    found = size_cluster(Workload.from_file(NIGHTLY), Node.from_file(NIGHTLY.parent / "node.yaml"), "yarn-fair",
                         window=1500.0, runs=10, validation_runs=20, executor="serial")
    assert found.answer == 4 and found.proof["p_meet"] == 1.0 and found.size(4).p_meet == 1.0
    assert [found.size(n).decided_by for n in (1, 2)] == ["bound", "bound"]
    assert 0.3 <= found.size(3).p_meet <= 0.7 and 0.3 <= found.proof["smaller_fresh_p_meet"] <= 0.7
    assert (found.simulated, len(found.sizes)) == (2, 12)
    assert found.size(4).fluid_end == pytest.approx(1406.12, abs=0.01) and found.size(3).fluid_end == 1854.0


def test_one_size_and_an_answer_at_the_smallest_size_considered(tmp_path):
    """min == max == 8: the one size is simulated, meets the window, and is the answer, compared
    with no smaller size; --min 5 with the window of 55 s, which 5 nodes meet in every run: the
    answer is 5, and the report says no smaller size was compared."""
    only = size_cluster(_batch(), MACHINE, "yarn-fair", window=55.0, confidence=0.9, min_nodes=8, max_nodes=8,
                        runs=4, validation_runs=4, executor="serial")
    assert only.answer == 8 and [r["nodes"] for r in only.records()] == [8] and only.proof["smaller"] is None
    assert only.simulated == 1 and only.proof["proven"]
    lowest = size_cluster(_batch(), MACHINE, "yarn-fair", window=55.0, confidence=0.9, min_nodes=5, max_nodes=8,
                          runs=4, validation_runs=4, executor="serial")
    assert lowest.answer == 5 and lowest.proof["smaller"] is None
    assert "It is the smallest size considered (--min 5): no smaller size was compared." in sizing_markdown(lowest)


def test_a_p_meet_that_falls_with_the_size_makes_the_search_simulate_every_size(monkeypatch):
    """The non-monotone fallback end to end. The planner is the real one, but each plan's
    P(meet) on the search's runs is overwritten per size: 3 nodes 1.0, 4 nodes 0.8, 5 nodes 0.5,
    6 and more 1.0 (confidence 0.9, 6 runs: one run's share is 1/6). The search starts at the
    fluid model's size, 4 (test above): it misses, 5 misses, 7 meets, the bisection takes 6.
    P falls from 0.8 at 4 nodes to 0.5 at 5, by more than 1/6: not monotone, so every size from
    3 (the smallest the bounds allow) up to 6 is simulated, and 3 meets. The proof's fresh runs
    are real: 3 nodes need 6 waves of 10 s (60 s > 55 s with the profiles' times; jobs up to 30%
    faster make it on half of the runs), short of 0.9, so the answer moves up to 4, which meets the
    window in every fresh run; the notes say both."""
    from dataclasses import replace

    from planner.planning import deploy

    faked = {3: 1.0, 4: 0.8, 5: 0.5}
    real = deploy.plan_for_target

    def plan_with_a_faked_p(workload, cluster, target, **options):
        plan = real(workload, cluster, target, **options)
        return replace(plan, simulated={**plan.simulated, "p_window": faked.get(cluster.nodes, 1.0)})

    monkeypatch.setattr(deploy, "plan_for_target", plan_with_a_faked_p)
    found = size_cluster(_batch(), MACHINE, "yarn-fair", window=55.0, confidence=0.9, min_nodes=1, max_nodes=8,
                         runs=6, validation_runs=6, noise=0.3, seed=3, executor="serial")
    decided = {r["nodes"]: r["decided_by"] for r in found.records()}
    assert [n for n, how in decided.items() if how == "simulation"] == [3, 4, 5, 6, 7]
    assert not found.monotone
    assert any(note.startswith("P(meet) is not monotone in the size: 0.80 at 4 nodes, 0.50 at 5") and
               "every size from 3 up to the answer was simulated" in note for note in found.notes)
    assert any("3 nodes met the window on 50% of the proof's 6 fresh runs" in note and "moved up to 4" in note
               for note in found.notes)
    assert found.answer == 4 and found.proof["p_meet"] == 1.0 and found.proof["smaller"] == 3
