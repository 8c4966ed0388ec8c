"""The Oozie importer (`planner.io.oozie`): workflows as jobs that wait for jobs.

The samples under tests/data/oozie/ are Apache Oozie's own examples (tests/data/NOTICE.md); the
hand-made workflows here are written in Oozie's schema, one control-flow case each.
"""

from __future__ import annotations

import warnings

import pytest

from models import Cluster, InvalidInput, Job, Workload
from planner.io.importers import IMPORTERS, read_trace
from planner.io.json_traces import read_rumen
from planner.io.oozie import MAX_SUB_WORKFLOW_DEPTH, OOZIE_LOCAL_ACTIONS, read_job_properties, read_oozie
from tests.support.cli import error_line, planner

TERAGEN = "job_1369942127770_1205"  # 96 maps, no reduces (tests/data/2jobs2min-rumen-jh.json)
TERAGEN_2 = "job_1369942127770_1206"


@pytest.fixture
def oozie(data_dir):
    return data_dir / "oozie"


@pytest.fixture
def teragen(data_dir) -> Workload:
    return read_rumen(data_dir / "2jobs2min-rumen-jh.json")


def _workflow(tmp_path, body: str, name: str = "wf.xml", version: str = "0.5") -> str:
    path = tmp_path / name
    path.write_text(f'<workflow-app xmlns="uri:oozie:workflow:{version}" name="hand">\n{body}\n'
                    '<kill name="fail"><message>failed</message></kill>\n<end name="end"/>\n</workflow-app>\n')
    return str(path)


def _mr(name: str, ok: str, queue: str | None = None, error: str = "fail", kind: str = "map-reduce") -> str:
    conf = (f"<configuration><property><name>mapred.job.queue.name</name><value>{queue}</value></property>"
            "</configuration>") if queue else ""
    return f'<action name="{name}"><{kind}>{conf}</{kind}><ok to="{ok}"/><error to="{error}"/></action>'


def _fs(name: str, ok: str) -> str:
    return f'<action name="{name}"><fs><delete path="/tmp/x"/></fs><ok to="{ok}"/><error to="fail"/></action>'


def _after(workload: Workload) -> dict[str, list[str]]:
    return {job.name: [dependency.job for dependency in job.after] for job in workload}


ONE = Job("template", 4, 2, 30.0, 60.0)


# -- the shared samples ----------------------------------------------------------------------------


def test_demo_sample_fork_join_and_pass_through(oozie, data_dir, teragen):
    """demo: cleanup (fs) -> fork (pig, streaming) -> join -> mr -> ssh -> decision -> hdfs (fs) -> end.
    The fs and ssh steps pass through: pig and streaming wait for nothing, mr for both."""
    workload = read_oozie(oozie / "demo-workflow.xml", trace=data_dir / "2jobs2min-rumen-jh.json",
                          matches=oozie / "sample-demo-map.yaml", properties=oozie / "sample-job.properties")
    assert workload.name == "demo-wf"
    assert _after(workload) == {"pig-node": [], "streaming-node": [], "mr-node": ["pig-node", "streaming-node"]}
    assert {job.pool for job in workload} == {"etl"}  # ${queueName} from the properties
    pig = workload["pig-node"]
    assert (pig.map_tasks, pig.reduce_tasks, pig.map_time) == (teragen[TERAGEN].map_tasks, 0,
                                                                teragen[TERAGEN].map_time)
    assert workload["streaming-node"].map_time == teragen[TERAGEN_2].map_time
    assert all(job.submit == 0 for job in workload)


def test_single_action_samples(oozie, teragen):
    for name, action, pool in (("map-reduce-workflow.xml", "mr-node", "etl"),
                               ("aggregator-workflow.xml", "aggregator", "etl"),
                               ("spark-workflow.xml", "spark-node", "default")):  # spark: no queue set
        workload = read_oozie(oozie / name, trace=teragen, matches={action: TERAGEN_2},
                              properties=oozie / "sample-job.properties")
        assert workload.names == [action] and workload.jobs[0].pool == pool and not workload.has_dependencies
        assert workload.jobs[0].map_work == teragen[TERAGEN_2].map_work


def test_spark_sample_reads_its_own_action_namespace_and_needs_no_properties(oozie):
    workload = read_oozie(oozie / "spark-workflow.xml", default_job=ONE)
    assert workload.names == ["spark-node"] and workload.name == "SparkFileCopy"
    assert (workload.jobs[0].map_tasks, workload.jobs[0].reduce_time) == (4, 60.0)


def test_sla_sample_runs_nothing_on_the_cluster(oozie):
    with pytest.raises(InvalidInput, match=r"sla-workflow.xml: workflow-app: the workflow runs no action on the "
                                           r"cluster \(its fs, ssh and email actions pass through\)"):
        read_oozie(oozie / "sla-workflow.xml", default_job=ONE)


def test_sub_workflow_sample_is_inlined_from_a_local_file_else_refused(oozie):
    with pytest.raises(InvalidInput, match=r"subwf-workflow.xml: action\[subworkflow-node\]\.sub-workflow\."
                                           r"app-path: .* is not a local file"):
        read_oozie(oozie / "subwf-workflow.xml", default_job=ONE)
    workload = read_oozie(oozie / "subwf-workflow.xml", default_job=ONE, properties=oozie / "sample-job.properties",
                          sub_workflows={"subworkflow-node": oozie / "map-reduce-workflow.xml"})
    # The child's ${queueName} is the action's <configuration> queueName=${queueName}, resolved in the parent
    assert workload.names == ["subworkflow-node/mr-node"] and workload.jobs[0].pool == "etl"
    # without the properties, the child's queue is undefined: the error names the child's file
    with pytest.raises(InvalidInput, match=r"map-reduce-workflow.xml: action\[mr-node\].configuration"
                                           r"\.mapred\.job\.queue\.name: \$\{queueName\} is not defined"):
        read_oozie(oozie / "subwf-workflow.xml", default_job=ONE,
                   sub_workflows={"subworkflow-node": oozie / "map-reduce-workflow.xml"})


def test_coordinator_sample_is_a_run_per_nominal_time(oozie, teragen):
    """Hourly from 01:00 to 04:00: three runs of the aggregator workflow, submitted 0, 3600 and
    7200 s in; concurrency 1, so each run waits for the one before."""
    workload = read_oozie(oozie / "aggregator-coordinator.xml", trace=teragen, matches={"aggregator": TERAGEN},
                          properties=oozie / "sample-coordinator.properties")
    names = ["2010-01-01T01:00Z/aggregator", "2010-01-01T02:00Z/aggregator", "2010-01-01T03:00Z/aggregator"]
    assert workload.name == "aggregator-coord" and workload.names == names
    assert [job.submit for job in workload] == [0.0, 3600.0, 7200.0]
    assert _after(workload) == {names[0]: [], names[1]: [names[0]], names[2]: [names[1]]}
    assert {job.pool for job in workload} == {"hourly"}
    with pytest.raises(InvalidInput, match=r"aggregator-coordinator.xml: coordinator-app.frequency: .*\$\{start\} "
                                           r"is not defined|coordinator-app.start: \$\{start\} is not defined"):
        read_oozie(oozie / "aggregator-coordinator.xml", default_job=ONE)


def _coordinator(tmp_path, frequency: str, start: str, end: str, concurrency: str = "2") -> str:
    _workflow(tmp_path, '<start to="A"/>' + _mr("A", "B") + _mr("B", "end"), name="daily.xml")
    path = tmp_path / "coordinator.xml"
    path.write_text(f'<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="{frequency}" '
                    f'start="{start}" end="{end}" timezone="UTC"><controls><concurrency>{concurrency}</concurrency>'
                    '</controls><action><workflow><app-path>daily.xml</app-path></workflow></action>'
                    '</coordinator-app>')
    return str(path)


def test_coordinator_concurrency_and_frequencies(tmp_path):
    """Concurrency 2: run k's first job waits for run k - 2's last; every 30 minutes for 2 hours: 4 runs."""
    path = _coordinator(tmp_path, "${coord:minutes(30)}", "2024-03-01T00:00Z", "2024-03-01T02:00Z")
    workload = read_oozie(path, default_job=ONE)
    assert workload.names[::2] == ["2024-03-01T00:00Z/A", "2024-03-01T00:30Z/A", "2024-03-01T01:00Z/A",
                                   "2024-03-01T01:30Z/A"]
    assert _after(workload)["2024-03-01T01:00Z/A"] == ["2024-03-01T00:00Z/B"]
    assert _after(workload)["2024-03-01T00:30Z/A"] == []
    assert [job.submit for job in workload][::2] == [0.0, 1800.0, 3600.0, 5400.0]
    assert len(read_oozie(_coordinator(tmp_path, "1440", "2024-03-01T00:00Z", "2024-03-03T12:00Z"),
                          default_job=ONE)) == 2 * 3  # days as minutes; a run starts before the end
    with pytest.raises(InvalidInput, match=r"coordinator.xml: coordinator-app.frequency: must be minutes, or .*"
                                           r"months and cron are not imported"):
        read_oozie(_coordinator(tmp_path, "${coord:months(1)}", "2024-03-01T00:00Z", "2024-04-01T00:00Z"),
                   default_job=ONE)
    with pytest.raises(InvalidInput, match=r"coordinator.xml: coordinator-app.end: must be after start"):
        read_oozie(_coordinator(tmp_path, "60", "2024-03-01T00:00Z", "2024-03-01T00:00Z"), default_job=ONE)
    with pytest.raises(InvalidInput, match=r"coordinator.xml: coordinator-app.start: must be a time as Oozie"):
        read_oozie(_coordinator(tmp_path, "60", "yesterday", "2024-03-01T00:00Z"), default_job=ONE)
    with pytest.raises(InvalidInput, match=r"coordinator.xml: controls.concurrency: must be a whole number >= 1"):
        read_oozie(_coordinator(tmp_path, "60", "2024-03-01T00:00Z", "2024-03-02T00:00Z", "0"), default_job=ONE)
    with pytest.raises(InvalidInput, match=r"coordinator.xml: coordinator-app.end: 525,600 runs of the workflow; "
                                           r"at most 10,000"):
        read_oozie(_coordinator(tmp_path, "1", "2024-01-01T00:00Z", "2024-12-31T00:00Z"), default_job=ONE)


def test_an_undefined_variable_in_a_queue_is_refused(oozie):
    with pytest.raises(InvalidInput, match=r"map-reduce-workflow.xml: action\[mr-node\]\.configuration\.mapred\.job"
                                           r"\.queue\.name: \$\{queueName\} is not defined; give its value in a "
                                           r"job.properties file"):
        read_oozie(oozie / "map-reduce-workflow.xml", default_job=ONE)
    assert read_oozie(oozie / "map-reduce-workflow.xml", default_job=ONE,
                      properties={"queueName": "adhoc"}).jobs[0].pool == "adhoc"


# -- hand-made control flow ------------------------------------------------------------------------


def test_fork_and_join(tmp_path):
    """A -> fork(B, C -> D) -> join -> E: E waits for B and D, not for C (D waits for it)."""
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "split")
                     + '<fork name="split"><path start="B"/><path start="C"/></fork>'
                     + _mr("B", "merge") + _mr("C", "D") + _mr("D", "merge") + '<join name="merge" to="E"/>'
                     + _mr("E", "end"))
    workload = read_oozie(path, default_job=ONE)
    assert _after(workload) == {"A": [], "B": ["A"], "C": ["A"], "D": ["C"], "E": ["B", "D"]}
    assert workload.names == ["A", "B", "C", "D", "E"]  # topological, file order among the ready


def test_nested_forks(tmp_path):
    """fork1(B, fork2(C, D) -> join2 -> E) -> join1 -> F."""
    path = _workflow(tmp_path, '<start to="outer"/><fork name="outer"><path start="B"/><path start="inner"/></fork>'
                     + '<fork name="inner"><path start="C"/><path start="D"/></fork>'
                     + _mr("B", "join1") + _mr("C", "join2") + _mr("D", "join2")
                     + '<join name="join2" to="E"/>' + _mr("E", "join1") + '<join name="join1" to="F"/>'
                     + _mr("F", "end"))
    assert _after(read_oozie(path, default_job=ONE)) == {"B": [], "C": [], "D": [], "E": ["C", "D"],
                                                         "F": ["B", "E"]}


def test_a_decision_is_all_of_its_branches(tmp_path):
    """A -> decision{B, C, default: end}; B -> F, C -> F: every branch is in the batch and F waits
    for both; a branch to kill adds nothing."""
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "choose")
                     + '<decision name="choose"><switch><case to="B">${x eq 1}</case><case to="C">${x eq 2}</case>'
                       '<case to="fail">${x eq 3}</case><default to="end"/></switch></decision>'
                     + _mr("B", "F") + _mr("C", "F") + _mr("F", "end"))
    assert _after(read_oozie(path, default_job=ONE)) == {"A": [], "B": ["A"], "C": ["A"], "F": ["B", "C"]}


def test_a_job_waits_for_its_nearest_jobs_only(tmp_path):
    """A -> decision{B -> X, default -> X}: X is reached from A directly and through B; it waits
    for B only (B waits for A)."""
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "choose")
                     + '<decision name="choose"><switch><case to="B">${p}</case><default to="X"/></switch></decision>'
                     + _mr("B", "X") + _mr("X", "end"))
    assert _after(read_oozie(path, default_job=ONE)) == {"A": [], "B": ["A"], "X": ["B"]}


def test_local_actions_pass_their_dependencies_through(tmp_path):
    """A -> fs -> ssh -> email -> B; fs at the start: C waits for nothing."""
    assert OOZIE_LOCAL_ACTIONS == ("fs", "ssh", "email")
    path = _workflow(tmp_path, '<start to="clean"/>' + _fs("clean", "C") + _mr("C", "A") + _mr("A", "f1")
                     + _fs("f1", "s1")
                     + '<action name="s1"><ssh><host>h</host><command>ls</command></ssh><ok to="e1"/>'
                       '<error to="fail"/></action>'
                     + '<action name="e1"><email xmlns="uri:oozie:email-action:0.2"><to>a@b</to></email>'
                       '<ok to="B"/><error to="fail"/></action>' + _mr("B", "end"))
    assert _after(read_oozie(path, default_job=ONE)) == {"C": [], "A": ["C"], "B": ["A"]}


def test_error_paths_and_kill_are_not_in_the_batch(tmp_path):
    """A's error goes to a clean-up job R, then kill: the batch is the successful run (A, B); a
    node no transition reaches adds nothing either."""
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "B", error="R") + _mr("R", "fail") + _mr("B", "end")
                     + _mr("orphan", "end"))  # no transition reaches it
    assert read_oozie(path, default_job=ONE).names == ["A", "B"]


def test_other_action_types_run_on_the_cluster(tmp_path):
    body = '<start to="P"/>' + _mr("P", "H", kind="pig") + _mr("H", "S", kind="hive") + _mr("S", "J", kind="shell") \
        + _mr("J", "end", kind="java")
    assert read_oozie(_workflow(tmp_path, body), default_job=ONE).names == ["P", "H", "S", "J"]


def test_queue_from_global_parameters_and_properties(tmp_path):
    """The action's own queue, else <global>'s; ${q} from the properties, else <parameters>."""
    body = ('<parameters><property><name>q</name><value>from-parameters</value></property></parameters>'
            '<global><configuration><property><name>mapreduce.job.queuename</name><value>${q}</value></property>'
            '</configuration></global><start to="A"/>' + _mr("A", "B") + _mr("B", "end", queue="own"))
    path = _workflow(tmp_path, body)
    workload = read_oozie(path, default_job=ONE)
    assert [job.pool for job in workload] == ["from-parameters", "own"]
    assert read_oozie(path, default_job=ONE, properties={"q": "given"})["A"].pool == "given"


def test_the_two_queue_keys_must_agree(tmp_path):
    body = ('<start to="A"/><action name="A"><map-reduce><configuration>'
            '<property><name>mapreduce.job.queuename</name><value>a</value></property>'
            '<property><name>mapred.job.queue.name</name><value>b</value></property>'
            '</configuration></map-reduce><ok to="end"/><error to="fail"/></action>')
    with pytest.raises(InvalidInput, match=r"action\[A\]\.configuration\.mapred\.job\.queue\.name: names queue 'b', "
                                           r"mapreduce\.job\.queuename 'a'"):
        read_oozie(_workflow(tmp_path, body), default_job=ONE)


def test_an_el_function_is_not_evaluated(tmp_path):
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "end", queue="${wf:conf('q')}"))
    with pytest.raises(InvalidInput, match=r"action\[A\].configuration.mapred.job.queue.name: .* is an EL "
                                           r"expression; only \$\{NAME\} variables are resolved"):
        read_oozie(path, default_job=ONE)


def test_nested_sub_workflows_are_named_by_their_path(tmp_path):
    _workflow(tmp_path, '<start to="L"/>' + _mr("L", "end"), name="leaf.xml")
    (tmp_path / "mid").mkdir()
    _workflow(tmp_path / "mid", '<start to="M"/>' + _mr("M", "deeper")
              + '<action name="deeper"><sub-workflow><app-path>../leaf.xml</app-path></sub-workflow>'
                '<ok to="end"/><error to="fail"/></action>', name="workflow.xml")
    top = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "child")
                    + '<action name="child"><sub-workflow><app-path>file://mid</app-path></sub-workflow>'
                      '<ok to="Z"/><error to="fail"/></action>' + _mr("Z", "end"))
    # the app-paths are local: a folder holding workflow.xml, then a file, relative to each workflow
    workload = read_oozie(top, default_job=ONE)
    assert _after(workload) == {"A": [], "child/M": ["A"], "child/deeper/L": ["child/M"],
                                "Z": ["child/deeper/L"]}


def test_a_sub_workflow_that_starts_itself_is_refused(tmp_path):
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "again")
                     + '<action name="again"><sub-workflow><app-path>wf.xml</app-path></sub-workflow>'
                       '<ok to="end"/><error to="fail"/></action>')
    with pytest.raises(InvalidInput, match=r"action\[again\]\.sub-workflow: .*wf.xml starts itself"):
        read_oozie(path, default_job=ONE)


def test_sub_workflows_nest_at_most_eight_deep(tmp_path):
    """level9.xml runs level8.xml ... runs level0.xml (one job): 8 levels import, 9 are refused."""
    _workflow(tmp_path, '<start to="A"/>' + _mr("A", "end"), name="level0.xml")
    for level in range(1, 10):
        _workflow(tmp_path, f'<start to="s{level}"/><action name="s{level}"><sub-workflow><app-path>'
                            f'level{level - 1}.xml</app-path></sub-workflow><ok to="end"/><error to="fail"/></action>',
                  name=f"level{level}.xml")
    assert MAX_SUB_WORKFLOW_DEPTH == 8
    assert read_oozie(tmp_path / "level8.xml", default_job=ONE).names == ["s8/s7/s6/s5/s4/s3/s2/s1/A"]
    with pytest.raises(InvalidInput, match=r"level1.xml: action\[s1\]\.sub-workflow: sub-workflows nest more than 8 "
                                           r"deep"):
        read_oozie(tmp_path / "level9.xml", default_job=ONE)


def test_every_schema_version_and_no_namespace(tmp_path):
    for version in ("0.1", "0.2", "0.3", "0.4", "0.5", "1.0"):
        path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "end"), version=version)
        assert read_oozie(path, default_job=ONE).names == ["A"]
    bare = tmp_path / "bare.xml"
    bare.write_text('<workflow-app name="b"><start to="A"/>' + _mr("A", "end") + '<kill name="fail"><message>x'
                    '</message></kill><end name="end"/></workflow-app>')
    assert read_oozie(bare, default_job=ONE).names == ["A"]


# -- profiles --------------------------------------------------------------------------------------


def test_profiles_by_name_then_match_then_default(tmp_path, teragen):
    """A trace job named as the action profiles it; a match overrides the name; the default is last."""
    renamed = Workload([teragen[TERAGEN].with_changes(name="A"), teragen[TERAGEN_2]])
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "B") + _mr("B", "C") + _mr("C", "end"))
    workload = read_oozie(path, trace=renamed, matches={"B": TERAGEN_2}, default_job=ONE)
    assert [job.map_time for job in workload] == [teragen[TERAGEN].map_time, teragen[TERAGEN_2].map_time, 30.0]
    assert workload["B"].input_bytes == teragen[TERAGEN_2].input_bytes
    with pytest.raises(InvalidInput, match=r"wf.xml: action\[C\]: no profile: no trace job of that name and no "
                                           r"match"):
        read_oozie(path, trace=renamed, matches={"B": TERAGEN_2})


def test_a_match_must_name_a_trace_job_and_an_action(tmp_path, teragen):
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "end"))
    with pytest.raises(InvalidInput, match=r"wf.xml: matches.A: trace job 'job_9' is not in the trace"):
        read_oozie(path, trace=teragen, matches={"A": "job_9"})
    with pytest.raises(InvalidInput, match=r"wf.xml: matches.Q: is not a cluster action of the workflow"):
        read_oozie(path, trace=teragen, matches={"A": TERAGEN, "Q": TERAGEN})
    with pytest.raises(InvalidInput, match=r"^matches: names trace jobs, but no trace is given"):
        read_oozie(path, matches={"A": TERAGEN}, default_job=ONE)
    with pytest.raises(InvalidInput, match=r"^trace: the jobs' profiles come from a trace"):
        read_oozie(path)


def test_the_trace_format_is_any_other_importer(data_dir, tmp_path):
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "end"))
    workload = read_oozie(path, trace=data_dir / "inputsls.json", trace_format="sls", matches={"A": "job_1"})
    assert workload.jobs[0].map_tasks == read_trace("sls", data_dir / "inputsls.json")["job_1"].map_tasks
    with pytest.raises(InvalidInput, match=r"^trace_format: must be one of swim, rumen, sls, synth, swf, spark; got 'oozie'"):
        read_oozie(path, trace=path, trace_format="oozie")


# -- job.properties --------------------------------------------------------------------------------


def test_job_properties(tmp_path):
    path = tmp_path / "job.properties"
    path.write_text("# comment\n! also a comment\n\na=1\nb : two words  \nc three\nlong = first \\\n    second\n"
                    "tab\\=key=x\\ty\nunicode=\\u00e9\nempty=\n")
    assert read_job_properties(path) == {"a": "1", "b": "two words", "c": "three", "long": "first second",
                                         "tab=key": "x\ty", "unicode": "é", "empty": ""}
    path.write_text("a=1\nb=2\na=3\n")
    with pytest.raises(InvalidInput, match=r"job.properties: line 3 \(a\): given twice \(also line 1\)"):
        read_job_properties(path)


def test_variables_refer_to_variables_and_a_loop_is_refused(tmp_path):
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "end", queue="${q}"))
    assert read_oozie(path, default_job=ONE, properties={"q": "${base}-x", "base": "etl"}).jobs[0].pool == "etl-x"
    with pytest.raises(InvalidInput, match="refer to each other more than 20 levels deep"):
        read_oozie(path, default_job=ONE, properties={"q": "${r}", "r": "${q}"})


# -- bad workflows ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "field", "problem"), [
    ('<start to="A"/>' + _mr("A", "nowhere"), r"action\[A\]\.ok\.to", "'nowhere' is not a node of the workflow"),
    ('<start to="A"/>' + _mr("A", "end", error="gone"), r"action\[A\]\.error\.to", "'gone' is not a node"),
    ('<start to="missing"/>' + _mr("A", "end"), r"start\.to", "'missing' is not a node of the workflow"),
    ('<start to="A"/>' + _mr("A", "B") + _mr("B", "A"), r"action\[A\]", "the workflow has a cycle: A -> B -> A"),
    ('<start to="A"/><action name="A"><ok to="end"/><error to="fail"/></action>', r"action\[A\]",
     r"has no action type element"),
    ('<start to="A"/><action name="A"><map-reduce/><error to="fail"/></action>', r"action\[A\]\.ok",
     r"an action has one <ok to=...>, this one 0"),
    ('<start to="A"/>' + _mr("A", "end") + _mr("A", "end"), r"action\[A\]", "a second node named 'A'"),
    ('<start to="A"/>' + _mr("A", "end") + '<loop name="x"/>', r"loop\[\d+\]", "is not an element of an Oozie"),
    (_mr("A", "end"), "start", "the workflow has no <start>"),
    ('<start to="A"/><action name="A b"><fs/><ok to="end"/><error to="fail"/></action>', r"action\[\d+\]\.name",
     "'A b' is not a node name"),
    ('<start to="d"/><decision name="d"><switch><case to="end">x</case></switch></decision>',
     r"decision\[d\]\.switch\.default", "a decision has one <default to=...>"),
    ('<start to="f"/><fork name="f"/>', r"fork\[f\]", "a fork needs <path start=...> elements"),
    ('<start to="j"/><join name="j"/>', r"join\[j\]\.to", "is missing"),
])
def test_bad_workflows_are_one_line_naming_the_file_and_the_element(tmp_path, body, field, problem):
    path = _workflow(tmp_path, body)
    with pytest.raises(InvalidInput, match=rf"^{tmp_path}/wf.xml: {field}: {problem}"):
        read_oozie(path, default_job=ONE)


def test_malformed_and_hostile_xml(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<workflow-app xmlns="uri:oozie:workflow:0.5" name="x">\n<start to="A">\n</workflow-app>\n')
    with pytest.raises(InvalidInput, match=r"bad.xml: line 3: malformed XML"):
        read_oozie(bad, default_job=ONE)
    bad.write_text('<!DOCTYPE x [<!ENTITY a "aaaa">]><workflow-app name="x"/>')
    with pytest.raises(InvalidInput, match="document type declarations and entities are not accepted"):
        read_oozie(bad, default_job=ONE)
    bad.write_text('<workflow-app name="x">' + "<a>" * 100 + "</a>" * 100 + "</workflow-app>")
    with pytest.raises(InvalidInput, match="nested more than 64 levels deep"):
        read_oozie(bad, default_job=ONE)
    bad.write_text('<bundle-app xmlns="uri:oozie:bundle:0.2" name="b"/>')
    with pytest.raises(InvalidInput, match=r"bad.xml: bundle-app: must be an Oozie <workflow-app>"):
        read_oozie(bad, default_job=ONE)
    with pytest.raises(InvalidInput, match=r"nothing.xml: \(top level\): no such file"):
        read_oozie(tmp_path / "nothing.xml", default_job=ONE)


# -- the registry, files and the command line --------------------------------------------------------


def test_registered_and_deterministic(oozie, data_dir, tmp_path):
    assert "oozie" in IMPORTERS
    options = {"trace": data_dir / "2jobs2min-rumen-jh.json", "matches": oozie / "sample-demo-map.yaml",
               "properties": oozie / "sample-job.properties"}
    first = read_trace("oozie", oozie / "demo-workflow.xml", **options)
    assert first == read_oozie(oozie / "demo-workflow.xml", **options)
    first.to_file(tmp_path / "w.yaml")
    assert Workload.from_file(tmp_path / "w.yaml") == first  # after: survives the file


def test_import_then_simulate_on_the_command_line(oozie, data_dir, tmp_path):
    out = tmp_path / "demo.yaml"
    status, stdout, stderr = planner("import", "oozie", oozie / "demo-workflow.xml", "--trace",
                                     f"rumen:{data_dir / '2jobs2min-rumen-jh.json'}", "--map",
                                     oozie / "sample-demo-map.yaml", "--properties",
                                     oozie / "sample-job.properties", "-o", out)
    assert status == 0, stderr
    assert "demo-wf" in stdout
    workload = Workload.from_file(out)
    assert _after(workload)["mr-node"] == ["pig-node", "streaming-node"]
    assert workload["mr-node"].map_time == read_rumen(data_dir / "2jobs2min-rumen-jh.json")[TERAGEN].map_time
    status, _, stderr = planner("simulate", out, "-c", data_dir.parent.parent / "examples" / "cluster.yaml")
    assert status == 0, stderr
    from planner import simulate

    records = {record["name"]: record for record in simulate(workload, Cluster.from_file(
        data_dir.parent.parent / "examples" / "cluster.yaml")).jobs}
    last = max(records["pig-node"]["finish"], records["streaming-node"]["finish"])
    assert records["mr-node"]["ready"] == pytest.approx(last) and records["mr-node"]["start"] >= last


def test_default_job_and_sub_workflow_flags(oozie):
    status, stdout, stderr = planner("import", "oozie", oozie / "subwf-workflow.xml", "--default-job", "4,30,1,60",
                                     "--sub-workflow", f"subworkflow-node={oozie / 'map-reduce-workflow.xml'}",
                                     "--properties", oozie / "sample-job.properties", "--json")
    assert status == 0, stderr
    assert '"jobs": 1' in stdout


def test_command_line_errors_are_one_line(oozie, data_dir, tmp_path):
    trace = data_dir / "2jobs2min-rumen-jh.json"
    demo = oozie / "demo-workflow.xml"
    assert error_line("import", "oozie", demo, "--trace", trace).endswith(
        "demo-workflow.xml: action[pig-node].configuration.mapred.job.queue.name: ${queueName} is not defined; "
        "give its value in a job.properties file (properties=, --properties)")
    properties = ("--properties", oozie / "sample-job.properties")
    assert "demo-workflow.xml: action[pig-node]: no profile" in error_line("import", "oozie", demo, "--trace", trace,
                                                                           *properties)
    assert error_line("import", "oozie", demo, "--trace", trace, *properties, "--map", "pig-node=x").endswith(
        "demo-workflow.xml: --map pig-node: trace job 'x' is not in the trace " + str(trace))
    assert error_line("import", "oozie", demo, "--trace", trace, *properties, "--map", f"nosuch={TERAGEN}").endswith(
        "demo-workflow.xml: --map nosuch: is not a cluster action of the workflow")
    assert error_line("import", "oozie", demo, "--map", "a=b", "--map", "a=c", "--default-job", "1,1") == \
        "error: --map a: given twice ('b' and 'c')"
    assert error_line("import", "oozie", demo, "--default-job", "1,x") == "error: --default-job: must be numbers, " \
                                                                          "got '1,x'"
    assert error_line("import", "oozie", demo, "--default-job", "0,5").startswith("error: --default-job map_tasks:")
    assert error_line("import", "oozie", demo, "--sub-workflow", "x") == \
        "error: --sub-workflow: expected ACTION=FILE, got 'x'"
    assert error_line("import", "swim", demo, "--trace", trace) == "error: --trace: swim traces take no such option"
    assert error_line("import", "oozie", demo, *properties, "--default-job", "2,10", "--map", "pig-node=x") == \
        "error: --map: names trace jobs, but no trace is given"
    assert error_line("import", "oozie", oozie / "aggregator-coordinator.xml", "--default-job", "1,1").endswith(
        "aggregator-coordinator.xml: coordinator-app.start: ${start} is not defined; give its value in a "
        "job.properties file (properties=, --properties)")
    bad = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "B") + _mr("B", "A"), name="cycle.xml")
    assert error_line("import", "oozie", bad, "--default-job", "1,1") == \
        f"error: {bad}: action[A]: the workflow has a cycle: A -> B -> A"


def test_warnings_of_the_trace_reader_pass_through(tmp_path, data_dir):
    """The trace is read by its own importer: its warnings (skipped jobs) are the caller's to see."""
    path = _workflow(tmp_path, '<start to="A"/>' + _mr("A", "end"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_oozie(path, trace=data_dir / "wordcount.json", matches={"A": "job_201009241532_0001"}
                          ).jobs[0].reduce_tasks == 1
