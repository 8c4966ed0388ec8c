"""The spark target (`planner.io.spark`): fairscheduler.xml and spark-defaults.conf read as Spark
reads them and merged with a plan's levers, errors in one line, a plan for spark never worse than
the configuration as it is, an export that simulates to the plan's run, and the CLI."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Job, Workload
from planner.cli.main import app
from planner.io.hadoop.merge import CurrentConfig, default_config, merged_files
from planner.io.spark.conf import (
    IgnoredSparkSetting,
    SparkPool,
    read_properties,
    read_spark_conf,
    spark_run,
    spark_seconds,
)
from planner.io.spark.merge import (
    read_spark_current,
    spark_default_config,
    spark_deployed_run,
    spark_merged_files,
    spark_queues,
)
from planner.io.spark.target import spark_plan_run
from planner.planning.deploy import plan_for_target
from planner.plans.levers import Levers
from planner.simulator.schedulers.fair import Fair
from planner.simulator.schedulers.fifo import Fifo

ROOT = Path(__file__).resolve().parent.parent
NIGHTLY, CLUSTER = ROOT / "examples" / "nightly.yaml", ROOT / "examples" / "cluster.yaml"

POOLS = """<?xml version="1.0"?>
<!-- the operator's pools -->
<allocations>
  <pool name="production">
    <schedulingMode>FAIR</schedulingMode>
    <weight>2</weight>  <!-- twice the research pool -->
    <minShare>4</minShare>
  </pool>
  <pool name="research">
    <schedulingMode>fifo</schedulingMode>
  </pool>
</allocations>
"""
DEFAULTS = """# the operator's defaults
spark.master                     spark://head:7077
spark.scheduler.mode=FAIR
spark.scheduler.allocation.file  /etc/spark/conf/fairscheduler.xml
"""


def _conf(tmp_path: Path, pools: str = POOLS, defaults: str = DEFAULTS) -> Path:
    folder = tmp_path / "conf"
    folder.mkdir(exist_ok=True)
    (folder / "fairscheduler.xml").write_text(pools)
    (folder / "spark-defaults.conf").write_text(defaults)
    return folder


def _small_cluster() -> Cluster:
    return Cluster(nodes=1, racks=1, map_slots=4, reduce_slots=4)


def test_the_files_read_as_spark_reads_them(tmp_path):
    with pytest.warns(IgnoredSparkSetting, match="spark.master"):  # named, never dropped in silence
        setup = read_spark_conf([_conf(tmp_path)])
    assert setup.mode == "FAIR" and setup.node_wait == setup.rack_wait == 3.0  # Spark's locality wait
    assert setup.pools == (SparkPool("production", "FAIR", 2, 4), SparkPool("research", "FIFO", 1, 0))
    workload = Workload([Job(name="a", map_tasks=2, map_time=5.0, pool="adhoc")])
    scheduler = setup.scheduler(workload)
    assert isinstance(scheduler, Fair)
    # pools the file lacks, "default" and the job's, are made as Spark makes them: FIFO, weight 1, minShare 0
    assert {name: (p.mode, p.weight, p.min_share(0)) for name, p in scheduler.pools.items()} == {
        "production": ("fair", 2.0, 4), "research": ("fifo", 1.0, 0), "default": ("fifo", 1.0, 0),
        "adhoc": ("fifo", 1.0, 0)}


def test_fifo_is_sparks_default_and_ignores_the_pools(tmp_path):
    with pytest.warns(IgnoredSparkSetting, match="Spark ignores them"):
        setup = read_spark_conf([_conf(tmp_path, defaults="spark.locality.wait 500\n")])
    assert setup.mode == "FIFO" and setup.node_wait == 0.5  # a bare number is milliseconds
    assert isinstance(setup.scheduler(Workload([Job(name="a", map_tasks=1, map_time=1.0)])), Fifo)


def test_properties_as_java_reads_them():
    text = "# c\n! c\na.b=1\nc.d : two\ne.f   three \\\n  four\n\nspark.x\n"
    assert read_properties(text, "f") == {"a.b": ("1", 3), "c.d": ("two", 4), "e.f": ("three four", 5),
                                          "spark.x": ("", 8)}
    assert spark_seconds("3s", "w", None) == 3.0 and spark_seconds("1min", "w", None) == 60.0
    assert spark_seconds("250ms", "w", None) == 0.25


@pytest.mark.parametrize(("pools", "defaults", "message"), [
    (POOLS.replace("fifo", "lottery"), DEFAULTS,
     r"fairscheduler.xml: pool 'research'.schedulingMode: must be FIFO or FAIR, got 'lottery'$"),
    (POOLS.replace("<weight>2", "<weight>1.5"), DEFAULTS,
     r"fairscheduler.xml: pool 'production'.weight: must be a whole number, got '1.5'$"),
    (POOLS.replace("<minShare>4", "<minShare>-1"), DEFAULTS,
     r"fairscheduler.xml: pool 'production'.minShare: must be at least 0, got -1$"),
    (POOLS.replace('name="research"', 'name="production"'), DEFAULTS,
     r"fairscheduler.xml: pool 'production': is given twice$"),
    (POOLS.replace(' name="research"', ""), DEFAULTS, r"fairscheduler.xml: pool\[1\].name: every pool needs a name$"),
    (POOLS.replace("</allocations>", ""), DEFAULTS, r"fairscheduler.xml: line \d+: malformed XML"),
    (POOLS, DEFAULTS.replace("=FAIR", "=FAST"), r"spark-defaults.conf: spark.scheduler.mode: must be FIFO or FAIR"),
    (POOLS, DEFAULTS.replace("/fairscheduler.xml", "/pools.xml"),
     r"spark.scheduler.allocation.file: names '/etc/spark/conf/pools.xml', which is not among the files given"),
    (POOLS, DEFAULTS + "spark.locality.wait soon\n",
     r"spark-defaults.conf: spark.locality.wait: must be a time such as 3s or 500ms, got 'soon'$"),
])
def test_bad_files_are_one_error_naming_file_pool_and_field(tmp_path, pools, defaults, message):
    with warnings.catch_warnings(), pytest.raises(InvalidInput, match=message) as caught:
        warnings.simplefilter("ignore")
        read_spark_conf([_conf(tmp_path, pools, defaults)])
    assert "\n" not in str(caught.value)


def _workload() -> Workload:
    return Workload([Job(name=name, map_tasks=8, reduce_tasks=2, map_time=10.0, reduce_time=5.0, pool=pool)
                     for name, pool in (("a", "production"), ("b", "research"), ("c", "research"))])


def test_merge_keeps_what_the_plan_does_not_change(tmp_path):
    current = read_spark_current([_conf(tmp_path)])
    workload = _workload()
    # no lever: the configuration byte for byte, only the schedule is new
    kept = spark_merged_files(current, Levers(), workload)
    assert {name: kept[name] for name in current.files} == current.files and kept["changes.diff"] == ""
    levers = Levers(scheduler="fair", weights={"research": 3}, min_shares={"adhoc": 2}, policies={"adhoc": "fair"})
    files = spark_merged_files(current, levers, workload)
    assert files["spark-defaults.conf"] == current.files["spark-defaults.conf"]  # already FAIR
    xml = files["fairscheduler.xml"]
    assert "<!-- the operator's pools -->" in xml and "<!-- twice the research pool -->" in xml
    assert POOLS.split("<pool name=\"research\">")[0].split("<allocations>")[1] in xml  # production untouched
    again = read_spark_current([_written(tmp_path / "merged", files)])
    pools = {pool.name: pool for pool in read_spark_conf([tmp_path / "merged"], warn=False).pools}
    assert pools["research"] == SparkPool("research", "FIFO", 3, 0)
    assert pools["adhoc"] == SparkPool("adhoc", "FAIR", 1, 2)
    assert pools["production"] == SparkPool("production", "FAIR", 2, 4)
    assert again.files["fairscheduler.xml"] == xml


def _written(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_switching_the_stock_configuration_to_fair_adds_the_pools_file():
    files = spark_merged_files(spark_default_config(), Levers(scheduler="fair", weights={"research": 2}), _workload())
    assert "spark.scheduler.mode FAIR\n" in files["spark-defaults.conf"]
    assert "spark.scheduler.allocation.file fairscheduler.xml\n" in files["spark-defaults.conf"]
    assert "<weight>2</weight>" in files["fairscheduler.xml"]
    run = spark_deployed_run(files, _workload(), _small_cluster())
    assert isinstance(run.scheduler, Fair) and run.scheduler.pools["research"].weight == 2.0
    assert run.options.containers and run.options.reduce_slowstart == 1.0


@pytest.mark.parametrize(("levers", "message"), [
    (Levers(priorities={"a": 1}), "levers.priorities: Spark has no job priorities"),
    (Levers(slowstart=0.5), "levers.slowstart: a Spark stage starts when its parents have finished"),
    (Levers(max_running={"research": 2}), "levers.max_running: Spark has no running-job limit"),
    (Levers(scheduler="capacity"), "levers.scheduler: Spark's scheduler is fifo or fair"),
    (Levers(scheduler="fair", weights={"research": 1.5}), "levers.weights.research: Spark reads a pool's weight"),
    (Levers(min_shares={"research": 2}), "levers.min_shares: pools' settings apply in FAIR mode"),
])
def test_levers_spark_lacks_are_refused(levers, message):
    with pytest.raises(InvalidInput, match=message):
        spark_merged_files(spark_default_config(), levers, _workload())


def test_hadoop_targets_refuse_min_shares():
    cluster = _small_cluster()
    with pytest.raises(InvalidInput, match=r"levers\.min_shares: minShare is a Spark pool.s lever"):
        merged_files(default_config("yarn-fair", cluster), Levers(min_shares={"default": 1}), _workload(), cluster,
                     "yarn-fair")
    assert Levers.from_dict(Levers(min_shares={"x": 2}).to_dict()).min_shares == {"x": 2}
    assert "min_shares" not in Levers().to_dict()  # plans written before it read the same


def test_a_plan_for_spark_is_never_worse_than_the_configuration(tmp_path):
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = plan_for_target(workload, cluster, "spark", objective="mean_response", ready_now=True, runs=4)
    records = {r["setup"]: r for r in plan.simulated["candidates"]}
    assert plan.target == "spark" and plan.simulated["mean"] <= records["as configured"]["mean"]
    assert plan.status == "improved" and not plan.simulated["keep"]
    # the export simulates to the plan's run, seed 0
    folder = tmp_path / "export"
    from planner.io.targets import export_plan

    export_plan(plan, workload, cluster, "spark", folder)
    exported = spark_run([folder], workload, cluster).simulate(0)
    assert exported.to_json() == spark_plan_run(plan, workload, cluster).simulate(0).to_json()


def test_keep_your_configuration_when_nothing_beats_it():
    # one job: no order, pool or weight changes anything
    workload = Workload([Job(name="only", map_tasks=8, reduce_tasks=2, map_time=10.0, reduce_time=5.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = plan_for_target(workload, _small_cluster(), "spark", runs=3)
    assert plan.simulated["keep"] and plan.status == "keep" and plan.levers.changes_nothing


def test_cores_are_offered_as_spark_offers_them():
    """Differences 3 and the heartbeat of `planner.io.spark.conf`, on a hand-worked example: 8
    cores, two FAIR pools "a" and "b" of weight 1, one job each of 16 one-second tasks, "a"
    submitted at 0 and "b" a millisecond later (Spark numbers jobs as they come).

    Spark, by hand: "a" takes the 8 free cores at 0; at 1 s its tasks end one status update at a
    time and each freed core goes to the neediest pool, "b" until both run 4; "a" ends at 3 s,
    "b" at 4 s. The simulator gives the same. With the cluster file's 3 s heartbeat (Hadoop's
    TaskTracker reports, which the spark run sets to 0) the jobs would end at 7 s and 10 s."""
    workload = Workload([Job(name=name, map_tasks=16, map_time=1.0, pool=name) for name in ("a", "b")])
    files = spark_merged_files(spark_default_config(), Levers(scheduler="fair", policies={"a": "fair", "b": "fair"}),
                               workload)
    cluster = Cluster(nodes=1, racks=1, map_slots=4, reduce_slots=4, heartbeat=3.0)
    run = spark_deployed_run(files, workload, cluster)
    assert [(job["name"], job["finish"]) for job in run.simulate(0).jobs] == [("a", 3.0), ("b", 4.0)]
    from dataclasses import replace

    with_heartbeat = replace(run, cluster=cluster).simulate(0)
    assert [job["finish"] for job in with_heartbeat.jobs] == [7.0, 10.0]


runner = CliRunner()


def _cli(*args: str):
    return runner.invoke(app, [str(arg) for arg in args])


def test_cli_export_then_simulate_gives_the_plans_run(tmp_path):
    plan = tmp_path / "plan.json"
    made = _cli("plan", NIGHTLY, "-c", CLUSTER, "--target", "spark", "--ready-now", "--runs", "3", "-o", plan)
    assert made.exit_code == 0, made.output
    out = tmp_path / "out"
    exported = _cli("export", plan, "-c", CLUSTER, "-w", NIGHTLY, "--to", "spark", "-o", out)
    assert exported.exit_code == 0, exported.output
    assert {"fairscheduler.xml", "spark-defaults.conf", "submissions.tsv", "submit.py", "submit.sh",
            "README.md"} <= {p.name for p in out.iterdir()} | {"fairscheduler.xml"}
    from_files = _cli("simulate", NIGHTLY, "-c", CLUSTER, "--spark-conf", out, "--json")
    from_plan = _cli("simulate", NIGHTLY, "-c", CLUSTER, "--plan", plan, "--json")
    assert from_files.exit_code == from_plan.exit_code == 0, from_files.output + from_plan.output
    assert json.loads(from_files.stdout)["result"] == json.loads(from_plan.stdout)["result"]
    # submit.py runs its own copy of the schedule: an edit of submissions.tsv alone is refused
    table = out / "submissions.tsv"
    header, first, *rest = table.read_text().splitlines()
    cells = first.split("\t")
    table.write_text("\n".join([header, "\t".join([cells[0], "elsewhere", *cells[2:]]), *rest]) + "\n")
    edited = _cli("simulate", NIGHTLY, "-c", CLUSTER, "--spark-conf", out)
    assert edited.exit_code == 2 and edited.stdout == ""
    assert edited.stderr.strip() == (f"error: {out / 'submit.py'}: SCHEDULE[0]: is not line 2 of submissions.tsv "
                                     f"('{cells[0]}'): edit both or export again")


@pytest.mark.parametrize(("args", "message"), [
    (("simulate", NIGHTLY, "-c", CLUSTER, "--spark-conf", "{bad}"),
     "error: {bad}/fairscheduler.xml: pool 'research'.schedulingMode: must be FIFO or FAIR, got 'lottery'"),
    (("simulate", NIGHTLY, "-c", CLUSTER, "--spark-conf", "{conf}", "--scheduler", "fair"),
     "error: --scheduler: does not go with Spark's files"),
    (("plan", NIGHTLY, "-c", CLUSTER, "--target", "mrv1", "--spark-conf", "{conf}"),
     "error: --spark-conf: applies with --target spark"),
    (("plan", NIGHTLY, "-c", CLUSTER, "--target", "spark", "--hadoop-conf", "{conf}"),
     "error: --hadoop-conf: --target spark reads Spark's files"),
])
def test_cli_errors_are_one_line_and_exit_2(tmp_path, args, message):
    conf = _conf(tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "fairscheduler.xml").write_text(POOLS.replace("fifo", "lottery"))
    (bad / "spark-defaults.conf").write_text(DEFAULTS)
    filled = [str(arg).format(conf=conf, bad=bad) for arg in args]
    result = _cli(*filled)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines() if result.stderr else result.output.strip().splitlines()
    assert lines == [message.format(bad=bad)] or lines[0].startswith(message.format(bad=bad))
    assert len(lines) == 1


def test_a_current_config_is_the_shared_dataclass(tmp_path):
    assert isinstance(read_spark_current([_conf(tmp_path)]), CurrentConfig)
    assert spark_default_config().default


#: Job names submissions.tsv's cells and its ``after`` syntax (NAME or NAME+DELAY, comma-separated)
#: could not hold as they are.
ODD_NAMES = ("etl,clicks", "a+b", "tab\there", "line\nbreak", "50%", " edge ", "u\u2028v")


def test_submissions_escape_any_name_and_read_it_back(tmp_path):
    """Each odd name is written percent-escaped (``a+b`` -> ``a%2Bb``) and read back as it was,
    pools and waits (``after``) too; the export runs as the workload says."""
    from planner.io.spark.conf import read_spark_submissions

    jobs = [Job(name=name, map_tasks=1, map_time=1.0, pool=f"pool {name}",
                after=[{"job": ODD_NAMES[index - 1], "delay": 2.5}] if index else [])
            for index, name in enumerate(ODD_NAMES)]
    workload = Workload(jobs)
    files = spark_merged_files(spark_default_config(), Levers(), workload)
    text = files["submissions.tsv"]
    assert "a%2Bb\tpool a%2Bb\t" in text and "\tetl%2Cclicks+2.5\n" in text and "%0A" in text
    assert len(text.splitlines()) == len(ODD_NAMES) + 1  # one line per job: nothing broke a line
    rows = read_spark_submissions(text, "submissions.tsv")
    assert [row.job for row in rows] == list(ODD_NAMES)
    assert [row.pool for row in rows] == [f"pool {name}" for name in ODD_NAMES]
    assert [row.after for row in rows] == [(), *(((index, 2.5),) for index in range(len(ODD_NAMES) - 1))]
    folder = _written(tmp_path / "out", files)
    read = spark_run([folder], workload, _small_cluster(), warn=False)
    assert [(job.name, job.pool) for job in read.workload] == [(name, f"pool {name}") for name in ODD_NAMES]


def test_a_bad_escape_in_submissions_is_one_line(tmp_path):
    from planner.io.spark.conf import read_spark_submissions

    with pytest.raises(InvalidInput, match=r"^s.tsv: line 2.job: 'a%FF' has a %XX escape that is not UTF-8$"):
        read_spark_submissions("job\tpool\tsubmit\tafter\na%FF\tdefault\t0\t\n", "s.tsv")
    # a % that escapes nothing is kept, as a file written by hand may have it
    assert read_spark_submissions("job\tpool\tsubmit\tafter\n5%\tdefault\t0\t\n", "s.tsv")[0].job == "5%"


def test_spark_files_have_a_byte_limit_and_a_pool_limit(tmp_path):
    """A 100 MB fairscheduler.xml (2.3 M pools) took 100 s and 2.8 GB: now refused before it is
    parsed, and a file under the byte limit with more than `MAX_POOLS` pools is refused too."""
    from planner.io.spark.conf import MAX_POOLS, MAX_SPARK_CONF_BYTES

    folder = _conf(tmp_path, defaults=DEFAULTS + "#" * MAX_SPARK_CONF_BYTES + "\n")
    with pytest.raises(InvalidInput, match=rf"spark-defaults.conf: .*may have at most {MAX_SPARK_CONF_BYTES:,}$"):
        read_spark_conf([folder], warn=False)
    pools = "".join(f'<pool name="p{index}"/>' for index in range(MAX_POOLS + 1))
    assert len(pools) < MAX_SPARK_CONF_BYTES
    folder = _conf(tmp_path, pools=f"<allocations>{pools}</allocations>")
    with pytest.raises(InvalidInput, match=rf"fairscheduler.xml: pool 'p{MAX_POOLS}': is one pool more than "
                                           rf"{MAX_POOLS:,}, the most an allocation file may have$"):
        read_spark_conf([folder], warn=False)


def test_keep_on_the_stock_fifo_configuration_ties_with_the_fifo_baseline():
    """examples/nightly.yaml on Spark's stock configuration (FIFO, spark.locality.wait 3 s): the
    plan keeps it (makespan 899 s), and "FIFO on spark", built as Spark runs it (the same schedule,
    delay scheduling and offers), is that configuration: a tie in every run, not "the plan beats
    FIFO on spark 20 of 20" as a baseline without delay scheduling had it."""
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = plan_for_target(workload, cluster, "spark", runs=4)
    assert plan.simulated["keep"] and plan.status == "keep"
    against = {c["against"]: c for c in plan.simulated["comparisons"]}
    fifo = against["FIFO on spark"]
    assert fifo["ties"] == fifo["runs"] == 4 and fifo["mean_difference"] == 0.0 and fifo["plan_wins"] == 0
    records = {r["setup"]: r for r in plan.simulated["candidates"]}
    assert records["FIFO on spark"]["makespan"] == records["as configured"]["makespan"]


def test_readme_and_comments_say_what_the_export_does():
    workload = _workload()
    kept = spark_merged_files(spark_default_config(), Levers(order=("c", "b", "a")), workload)
    assert "keep your configuration" not in kept["README.md"]
    assert "- No configuration file changes: the files here are Spark's stock ones. The plan is its submission " \
           "schedule" in kept["README.md"]
    assert "allocation.file" not in kept["submit.sh"]
    fair = spark_merged_files(spark_default_config(), Levers(scheduler="fair"), workload)
    conf = fair["spark-defaults.conf"]
    assert "FIFO" not in conf and conf.startswith("# Spark's FAIR scheduler (set by planner export)")
    assert "## The pools file" in fair["README.md"] and "fs.defaultFS" in fair["README.md"]


@pytest.mark.skipif(__import__("shutil").which("sh") is None, reason="needs sh")
def test_submit_sh_points_spark_at_its_own_pools_file(tmp_path):
    """spark.scheduler.allocation.file is written relative (``fairscheduler.xml``), which Spark
    would look up on Hadoop's default filesystem: submit.sh overrides it with the absolute
    ``file://`` URI of its own folder's copy (a fake spark-submit records its arguments)."""
    import os
    import subprocess

    files = spark_merged_files(spark_default_config(), Levers(scheduler="fair"), _workload())
    folder = _written(tmp_path / "out", files)
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    fake = bin_folder / "spark-submit"
    fake.write_text(f'#!/bin/sh\nfor a in "$@"; do echo "$a"; done > {tmp_path / "args"}\n')
    fake.chmod(0o755)
    done = subprocess.run(["sh", str(folder / "submit.sh")], capture_output=True, text=True, timeout=30,
                          cwd=tmp_path, env={**os.environ, "JOBS": "m:JOBS",
                                             "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    args = (tmp_path / "args").read_text().splitlines()
    uri = args[args.index("--conf") + 1].removeprefix("spark.scheduler.allocation.file=")
    assert uri == f"file://{folder.resolve()}/fairscheduler.xml"
    assert Path(uri.removeprefix("file://")).read_text() == files["fairscheduler.xml"]
    assert args[args.index("--properties-file") + 1] == "spark-defaults.conf"


@pytest.mark.parametrize(("text", "expected"), [
    ("spark.scheduler.mode FAIR\nspark.scheduler.mode FIFO\n", {"spark.scheduler.mode": "FIFO"}),  # last wins
    ("spark.scheduler.mode \\u0046AIR\n", {"spark.scheduler.mode": "FAIR"}),  # \uXXXX decoded
    ("spark.scheduler.mode FA\\\n   IR\n", {"spark.scheduler.mode": "FAIR"}),  # continued, indent dropped
    ("spark.scheduler.mode:FAIR\n", {"spark.scheduler.mode": "FAIR"}),
    ("spark.scheduler.mode\tFAIR\n", {"spark.scheduler.mode": "FAIR"}),
    ("  spark.scheduler.mode   FAIR   \n", {"spark.scheduler.mode": "FAIR"}),
    ("spark.scheduler.mode FAIR\r\nspark.locality.wait 1s\r\n", {"spark.scheduler.mode": "FAIR",
                                                                "spark.locality.wait": "1s"}),
    ("spark.scheduler.mode FAIR\rspark.locality.wait 1s", {"spark.scheduler.mode": "FAIR",
                                                          "spark.locality.wait": "1s"}),  # old Mac line ends
    ("! c\n   # indented c \\\nspark.scheduler.mode = = FAIR\n", {"spark.scheduler.mode": "= FAIR"}),
    ("spark\\ x\\=y\\:z v\\tw\\\\\n", {"spark x=y:z": "v\tw\\"}),  # escaped separators in a key
])
def test_properties_follow_java(text, expected):
    """Cases Java's Properties.load (Spark's reader) accepts, checked against what it gives."""
    assert {key: value for key, (value, _) in read_properties(text, "f").items()} == expected


def test_properties_refuse_only_what_java_or_batchplan_cannot_use(tmp_path):
    with pytest.raises(InvalidInput, match=r"^f: line 1 \(a\): malformed \\uXXXX escape: '\\\\u00G1'$"):
        read_properties("a \\u00G1\n", "f")
    folder = _conf(tmp_path, defaults="spark.scheduler.mode FAIR # fair\n")  # Java has no inline comment
    with warnings.catch_warnings(), pytest.raises(InvalidInput, match="must be FIFO or FAIR, got 'FAIR # fair'"):
        warnings.simplefilter("ignore")
        read_spark_conf([folder])
    folder = _conf(tmp_path, defaults="spark.scheduler.mode FAIR\nspark.scheduler.mode fair\n"
                                      "spark.locality.wait.process 1s\nspark.executor.cores 4\n")
    with pytest.warns(IgnoredSparkSetting) as caught:
        setup = read_spark_conf([folder])
    assert setup.mode == "FAIR"  # Spark upper-cases the mode
    message = str(caught[0].message)
    assert "line 1's spark.scheduler.mode (line 2 sets it again; Spark takes the last)" in message
    assert "spark.locality.wait.process (Spark's process-local level: the run's delay scheduling has node and " \
           "rack levels)" in message
    assert "spark.executor.cores (the cluster file gives the executors and their cores)" in message


def test_allocation_warnings_say_where_the_element_is(tmp_path):
    pools = '<allocations><pool name="production"><maxShare>3</maxShare><weight><b>3</b></weight></pool>' \
            '<user name="x"/></allocations>'
    with pytest.warns(IgnoredSparkSetting) as caught:
        setup = read_spark_conf([_conf(tmp_path, pools=pools)])
    message = str(caught[0].message)
    assert "fairscheduler.xml: <user> at the top level (Spark reads only <pool> elements there)" in message
    assert "fairscheduler.xml: <maxShare> in pool 'production' (Spark reads a pool's" in message
    assert setup.pools == (SparkPool("production", "FIFO", 3, 0),)  # all the text inside <weight>


def test_a_merged_property_changes_the_setting_spark_keeps(tmp_path):
    """The mode set twice (FAIR, then FIFO: Spark runs FIFO): a FAIR plan changes the last line;
    a file ending in a continued line gets a blank line before the added one."""
    defaults = "spark.scheduler.mode FAIR\nspark.master local\nspark.scheduler.mode \\\n  FIFO\n"
    current = read_spark_current([_conf(tmp_path, defaults=defaults)])
    files = spark_merged_files(current, Levers(scheduler="fair"), _workload())
    conf = files["spark-defaults.conf"]
    assert conf == "spark.scheduler.mode FAIR\nspark.master local\nspark.scheduler.mode FAIR\n"
    assert read_properties(conf, "f")["spark.scheduler.mode"] == ("FAIR", 3)
    current = read_spark_current([_conf(tmp_path, defaults="spark.master local \\")])
    files = spark_merged_files(current, Levers(scheduler="fair"), _workload())
    assert read_properties(files["spark-defaults.conf"], "f") == {"spark.master": ("local", 1),
                                                                  "spark.scheduler.mode": ("FAIR", 3)}


def test_the_star_of_a_queue_map_takes_the_jobs_whose_pool_the_configuration_lacks():
    """Pools configured: etl. a (pool etl) stays in etl, b (default) in default, c (pool x, not
    configured) goes where "*" says, d goes where its own name says; without "*", c stays in x
    (Spark makes the pool)."""
    jobs = Workload([Job("a", 1, 1, 1.0, 1.0, pool="etl"), Job("b", 1, 1, 1.0, 1.0),
                     Job("c", 1, 1, 1.0, 1.0, pool="x"), Job("d", 1, 1, 1.0, 1.0, pool="x")])
    assert spark_queues(jobs, {"*": "adhoc", "d": "etl"}, ["etl"]) == {"a": "etl", "b": "default", "c": "adhoc",
                                                                       "d": "etl"}
    assert spark_queues(jobs, {"x": "etl"}, ["etl"])["c"] == "etl"
    assert spark_queues(jobs, None, ["etl"])["c"] == "x"
    with pytest.raises(InvalidInput, match=r"^queue_map\.y: is neither a job, a pool of the workload nor \*"):
        spark_queues(jobs, {"y": "etl"})


def test_two_exported_folders_are_refused(tmp_path):
    """A plan's run is read back from one export: two folders with a submissions.tsv are one error."""
    folders = [tmp_path / "night-1", tmp_path / "night-2"]
    for folder in folders:
        folder.mkdir()
        (folder / "submissions.tsv").write_text("job\tpool\tsubmit\tafter\n")
    with pytest.raises(InvalidInput, match=r"^spark_conf: 2 exported folders .*: give one"):
        spark_plan_run(None, Workload([Job("a", 1, 1, 1.0, 1.0)]), Cluster(nodes=1), folders)


def test_an_order_on_spark_is_submitted_a_tenth_of_a_second_apart():
    """Three jobs all there at 0 s on 2 cores, planned for the mean response: shortest work first
    (c: 1 task x 1 s, b: 2 x 2 s, a: 4 x 4 s; SPT is the best order here, and the arrival order
    a, b, c the worst) is deployed as submissions 0.0, 0.1 and 0.2 s in that order (Spark's job
    ids then follow it), not 1 s apart as a command-line submission needs; no float noise."""
    workload = Workload([Job(name="a", map_tasks=4, reduce_tasks=0, map_time=4.0),
                         Job(name="b", map_tasks=2, reduce_tasks=0, map_time=2.0),
                         Job(name="c", map_tasks=1, reduce_tasks=0, map_time=1.0)])
    cluster = Cluster(nodes=1, racks=1, map_slots=2, reduce_slots=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = plan_for_target(workload, cluster, "spark", objective="mean_response", runs=2)
    assert plan.levers.order == ("c", "b", "a")
    assert plan.levers.submits == {"c": 0.0, "b": 0.1, "a": 0.2}
    from planner.planning.candidates import ORDER_GAP, ORDER_GAPS

    assert ORDER_GAPS["spark"] == 0.1 and ORDER_GAP == 1.0  # the Hadoop targets keep a second
