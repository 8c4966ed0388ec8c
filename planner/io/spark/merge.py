"""A plan's levers written into the operator's Spark configuration: the exported folder and the run
it configures (`spark_merged_files`, `spark_deployed_run`).

- `spark_default_config`: Spark's stock configuration (FIFO, no pools file), when the operator
  gives none; `read_spark_current`: the operator's spark-defaults.conf and fairscheduler.xml as
  they are (`planner.io.hadoop.merge.CurrentConfig`).
- `spark_queues`: which pool each job goes to: ``queue_map[job]``, else ``queue_map[its pool]``,
  else its pool when the configuration has it (or it is "default"), else ``queue_map["*"]``,
  else its pool (Spark makes a pool it does not know, FIFO, weight 1, minShare 0).
- `spark_merged_files`: the operator's files with the levers written in, and the schedule:

  - ``scheduler`` ("fifo" or "fair"): ``spark.scheduler.mode`` in spark-defaults.conf (changed
    where it is, else added at the end); FAIR without an allocation file adds
    ``fairscheduler.xml`` and ``spark.scheduler.allocation.file``.
  - ``policies``, ``weights``, ``min_shares`` (per pool, FAIR only): the pool's
    ``schedulingMode`` (FIFO or FAIR), ``weight`` (whole numbers: Spark reads integers) and
    ``minShare``; a pool not in the file is added. Pools the plan does not change, comments and
    every other line are kept as they are; a file no lever touches is kept byte for byte.
  - ``order``, ``submits``, ``queues``: ``submissions.tsv`` (`planner.io.spark.conf`), rows in
    the order, each job no earlier than its arrival and after the jobs it waits for, and
    ``submit.py``, the driver-side script that submits them (`planner.io.spark.submit`), with
    ``submit.sh`` running it under spark-submit.
  - Spark has no job priority, running-application limit, container cap, slow-start or slot
    split: those levers are refused.

  Also ``changes.diff`` (`planner.io.hadoop.merge.config_diff`) and a README.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from models import Cluster, Workload
from models.errors import InvalidInput
from planner.io.hadoop.merge import (
    CurrentConfig,
    _append,
    _element,
    _serialize,
    _set_child,
    _Xml,
    config_diff,
)
from planner.io.hadoop.plan_files import Submission, submission_order
from planner.io.spark.conf import (
    ALLOCATION_FILE,
    DEFAULT_POOL,
    SPARK_DEFAULTS,
    SUBMISSIONS,
    SparkSetup,
    line_continues,
    physical_lines,
    property_entries,
    setup_run,
    spark_files,
    spark_setup,
    submissions_text,
)
from planner.plans.levers import Levers
from planner.simulator.options import SimOptions
from planner.simulator.run import Run

#: Seconds between consecutive submissions in the order: Spark numbers jobs as they are submitted.
SPARK_SUBMIT_GAP = 0.001
#: What an export writes beside the configuration (not configuration).
NOT_SPARK_CONFIGURATION = ("README.md", "submit.sh", "submit.py", "changes.diff", SUBMISSIONS)
_DEFAULT_COMMENT = "# Spark's stock scheduler: FIFO, jobs in the order they are submitted\n"
_DEFAULT_TEXT = f"{_DEFAULT_COMMENT}spark.scheduler.mode FIFO\n"
#: The stock configuration's comment once an export switches it to FAIR.
_FAIR_COMMENT = "# Spark's FAIR scheduler (set by planner export): the pools of fairscheduler.xml share the cores\n"
#: spark.scheduler.allocation.file as spark-submit's option: the exported folder's own copy.
_ALLOCATION_OPTION = 'spark.scheduler.allocation.file=file://$PWD/'
_ALLOCATION_NOTE = (
    "- spark.scheduler.allocation.file: Spark opens it through Hadoop's filesystem API, so a path "
    "without a scheme (as `{name}`) is looked up on the default filesystem (fs.defaultFS: HDFS on a "
    "YARN cluster), relative to the working directory there. submit.sh passes `--conf "
    "spark.scheduler.allocation.file=file://$PWD/{name}` (this folder's copy; submit.sh runs from "
    "its own folder) to a driver started on this machine (spark-submit's default client mode). "
    "Applying the files some other way (merged into $SPARK_HOME/conf/spark-defaults.conf, or "
    "--deploy-mode cluster), set the property to an absolute URI where the driver can read the "
    "file: file:///etc/spark/conf/{name} on the driver's machine, or hdfs:///path/{name} after "
    "uploading it.")
_POOLS_TEXT = ('<?xml version="1.0"?>\n<!-- Spark\'s fair scheduler pools -->\n<allocations>\n'
               "</allocations>\n")
#: The levers Spark does not have, with what to say.
_NOT_SPARK = {"priorities": "Spark has no job priorities (FIFO runs jobs in submission order)",
              "max_running": "Spark has no running-job limit per pool",
              "caps": "Spark's pools have no cap on cores (only minShare)",
              "slowstart": "a Spark stage starts when its parents have finished: there is no slow-start",
              "slots": "Spark's executors run tasks of any stage: there is no slot split"}


def spark_default_config() -> CurrentConfig:
    """Spark's stock configuration: FIFO, no pools file."""
    return CurrentConfig({SPARK_DEFAULTS: _DEFAULT_TEXT}, default=True)


def read_spark_current(paths: Iterable[str | Path]) -> CurrentConfig:
    """The operator's Spark files in ``paths`` as they are (read to check them: an error names the
    file); a previous export's notes and schedule are skipped."""
    found = {name: value for name, value in spark_files(paths).items() if name not in NOT_SPARK_CONFIGURATION}
    spark_setup(found, warn=False)
    return CurrentConfig({name: found[name][0] for name in sorted(found)},
                         tuple(found[name][1] for name in sorted(found)))


def config_setup(files: Mapping[str, str], *, warn: bool = False) -> SparkSetup:
    """Files given as text (name -> text) read as Spark's (`planner.io.spark.conf.spark_setup`)."""
    return spark_setup({name: (text, name) for name, text in files.items()}, warn=warn)


def spark_queues(workload: Workload, queue_map: Mapping[str, str] | None = None,
                 pools: Iterable[str] = ()) -> dict[str, str]:
    """Job name -> the pool it is submitted to (module docstring): ``queue_map[job]``, else
    ``queue_map[its pool]``, else its pool when it is one of ``pools`` (the configuration's) or
    "default", else ``queue_map["*"]``, else its pool (Spark makes it). A ``queue_map`` key that is
    neither a job, a pool of the workload nor "*" is refused (a typo)."""
    mapping = dict(queue_map or {})
    known = {job.name for job in workload} | {job.pool for job in workload} | {"*"}
    typo = next((key for key in mapping if key not in known), None)
    if typo is not None:
        raise InvalidInput(f"queue_map.{typo}", "is neither a job, a pool of the workload nor *")
    configured = {DEFAULT_POOL, *pools}
    return {job.name: mapping.get(job.name) or mapping.get(job.pool)
            or (job.pool if job.pool in configured else None) or mapping.get("*") or job.pool for job in workload}


def _check_levers(levers: Levers, mode: str) -> None:
    for name, why in _NOT_SPARK.items():
        value = getattr(levers, name)
        if value is not None and value != {}:
            raise InvalidInput(f"levers.{name}", f"{why}: the spark target takes no {name}")
    if levers.scheduler not in (None, "fifo", "fair"):
        raise InvalidInput("levers.scheduler", f"Spark's scheduler is fifo or fair, got {levers.scheduler!r}")
    for pool, weight in levers.weights.items():
        if weight != int(weight) or weight < 1:
            raise InvalidInput(f"levers.weights.{pool}", f"Spark reads a pool's weight as a whole number >= 1, "
                                                         f"got {weight:g}")
    if mode == "FIFO" and (levers.policies or levers.weights or levers.min_shares):
        raise InvalidInput("levers.policies" if levers.policies else "levers.weights" if levers.weights
                           else "levers.min_shares", "pools' settings apply in FAIR mode: set scheduler fair too")


def spark_merged_files(config: CurrentConfig, levers: Levers, workload: Workload, *,
                       ready_now: bool = False, queues: Mapping[str, str] | None = None) -> dict[str, str]:
    """The exported folder, name -> text (module docstring). ``queues``: each job's pool where the
    levers do not say (default `spark_queues`); ``ready_now``: jobs without a time in the levers
    are submitted at 0."""
    before = config_setup(config.files)
    mode = levers.scheduler.upper() if levers.scheduler else before.mode
    _check_levers(levers, mode)
    texts = dict(config.files)
    conf = next((name for name in texts if name.endswith(".conf")), None)
    if levers.scheduler is not None and (levers.scheduler.upper() != before.mode or conf is None):
        conf = conf or SPARK_DEFAULTS
        texts[conf] = _set_property(texts.get(conf, ""), "spark.scheduler.mode", mode)
    if mode == "FAIR" and before.allocation_source is None:
        texts[ALLOCATION_FILE] = _POOLS_TEXT
        conf = conf or SPARK_DEFAULTS
        texts[conf] = _set_property(texts.get(conf, ""), "spark.scheduler.allocation.file", ALLOCATION_FILE)
    if config.default and mode == "FAIR" and conf is not None:
        texts[conf] = texts[conf].replace(_DEFAULT_COMMENT, _FAIR_COMMENT, 1)
    if levers.policies or levers.weights or levers.min_shares:
        allocation = next(name for name in texts if name.endswith(".xml")
                          and (before.allocation_source is None or name == Path(before.allocation_source).name))
        texts[allocation] = _set_pools(texts[allocation], allocation, levers)
    files = dict(sorted(texts.items()))
    allocation_file = config_setup(files).allocation_source  # what is written reads back
    rows = _schedule(levers, workload, queues if queues is not None else spark_queues(workload), ready_now)
    from planner.io.spark.submit import submission_script

    names = [row.job for row in rows]
    plan_rows = [{"job": row.job, "pool": row.pool, "submit": row.at,
                  "after": [[names[r], delay] for r, delay in row.after or ()]} for row in rows]
    exported = {**files, SUBMISSIONS: submissions_text(rows), "submit.py": submission_script(plan_rows),
                "submit.sh": _submit_sh(conf or SPARK_DEFAULTS, allocation_file)}
    exported["changes.diff"] = config_diff(config, files)
    exported["README.md"] = _readme(config, files, levers, allocation_file)
    return dict(sorted(exported.items()))


def spark_deployed_run(files: Mapping[str, str], workload: Workload, cluster: Cluster, *,
                       options: SimOptions | None = None) -> Run:
    """The run ``files`` (an exported folder's, e.g. `spark_merged_files`) configure, read back as
    ``planner simulate --spark-conf`` reads the folder: how the planner simulates a candidate."""
    kept = {name: text for name, text in files.items() if name not in NOT_SPARK_CONFIGURATION or name == SUBMISSIONS}
    return setup_run(config_setup(kept), workload, cluster, base=options)


def _set_property(text: str, key: str, value: str) -> str:
    """``text`` (a properties file) with ``key`` set to ``value``: the lines of its last setting
    (the one Java keeps; a continued value's lines replaced whole) changed where they are, else a
    line added at the end; every other line kept."""
    lines = physical_lines(text)
    setting = next((entry for entry in reversed(property_entries(text, "")) if entry.key == key), None)
    if setting is not None:
        ending = lines[setting.last - 1][len(lines[setting.last - 1].rstrip("\r\n")):] or "\n"
        lines[setting.first - 1:setting.last] = [f"{key} {value}{ending}"]
        return "".join(lines)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    if lines and line_continues(lines[-1].rstrip("\r\n")):
        lines.append("\n")  # the last line would continue onto the new one: a blank line ends it
    return "".join([*lines, f"{key} {value}\n"])


def _set_pools(text: str, name: str, levers: Levers) -> str:
    """fairscheduler.xml with the levers' pool settings written in (module docstring)."""
    document = _Xml.parse(text, name)
    settings = (({pool: policy.upper() for pool, policy in levers.policies.items()}, "schedulingMode"),
                ({pool: int(weight) for pool, weight in levers.weights.items()}, "weight"),
                (dict(levers.min_shares), "minShare"))
    for values, tag in settings:
        for pool, value in values.items():
            element = next((e for e in document.root.findall("pool") if (e.get("name") or "").strip() == pool), None)
            if element is None:
                element = _element("pool", name=pool)
                _append(document.root, element, 0)
                document.changed = True
            _set_child(document, element, 1, (tag,), value)
    return _serialize(document) if document.changed else text


def _schedule(levers: Levers, workload: Workload, queues: Mapping[str, str], ready_now: bool) -> list[Submission]:
    """The submission rows: in the levers' order (else by arrival), each at its time in the levers
    (else its arrival, or 0 with ``ready_now``), no earlier than the row before nor than
    `SPARK_SUBMIT_GAP` after the jobs it waits for, and a gap after the row before when it would
    tie with it (Spark numbers jobs in submission order)."""
    jobs = {job.name: job for job in workload}
    order = submission_order(levers, workload, SPARK_SUBMIT_GAP, ready_now)
    rows: list[Submission] = []
    row_of: dict[str, int] = {}
    for name in order:
        job = jobs[name]
        at = levers.submits.get(name, 0.0 if ready_now else job.submit)
        waits = []
        for dependency in job.after:
            if dependency.job not in row_of:
                raise InvalidInput("levers.order", f"submits {name!r} before {dependency.job!r}, which it waits for "
                                                   "(after): list every job after its predecessors")
            at = max(at, rows[row_of[dependency.job]].at + SPARK_SUBMIT_GAP)
            waits.append((row_of[dependency.job], dependency.delay))
        if rows and at < rows[-1].at:
            if name in levers.submits:
                raise InvalidInput(f"levers.submits.{name}", f"{at:g} s is before {rows[-1].job!r} at "
                                                             f"{rows[-1].at:g} s, which comes before it in the order")
            at = rows[-1].at
        if rows and at <= rows[-1].at:
            at = rows[-1].at + SPARK_SUBMIT_GAP
        row_of[name] = len(rows)
        rows.append(Submission(name, at, levers.queues.get(name, queues.get(name, DEFAULT_POOL)), 0, 0, tuple(waits)))
    return rows


def _submit_sh(conf: str, allocation: str | None) -> str:
    """The script running the batch; with an allocation file, spark.scheduler.allocation.file
    pointed at this folder's copy by an absolute file: URI (`_ALLOCATION_NOTE`)."""
    pools = "" if allocation is None else f' --conf "{_ALLOCATION_OPTION}{allocation}"'
    about = "" if allocation is None else (
        f"# The pools are this folder's {allocation}, named by an absolute file: URI (a relative path\n"
        "# would be looked up on Hadoop's default filesystem, HDFS on YARN): see README.md.\n")
    return f"""#!/bin/sh
# Runs the plan's batch: spark-submit starts the driver with these properties, and submit.py
# submits each job of submissions.tsv at its time into its pool (see README.md).
# JOBS is your module:attribute, a mapping of job name -> a callable taking the SparkContext,
# e.g. JOBS=mybatch:JOBS sh submit.sh; SPARK_SUBMIT_ARGS adds spark-submit options (--master ...).
{about}set -eu
: "${{JOBS:?set JOBS to module:attribute, a mapping of job name -> callable(sc)}}"
cd "$(dirname "$0")"
exec spark-submit ${{SPARK_SUBMIT_ARGS:-}} --properties-file {conf}{pools} submit.py --jobs "$JOBS" --report report.json
"""


#: Where each exported file goes.
_PLACES = {SPARK_DEFAULTS: "merge into $SPARK_HOME/conf/spark-defaults.conf (or pass it with --properties-file, "
                           "as submit.sh does)",
           ALLOCATION_FILE: "submit.sh points spark.scheduler.allocation.file at this copy (see below)",
           SUBMISSIONS: "the schedule: job, pool, submit (s from the start), after (jobs it waits for)",
           "submit.py": "the driver: submits each job at its time into its pool (run by submit.sh)",
           "submit.sh": "run it when the batch starts: JOBS=module:attribute sh submit.sh",
           "changes.diff": "what this export changes of your configuration (a unified diff)"}


def _readme(config: CurrentConfig, files: Mapping[str, str], levers: Levers, allocation: str | None) -> str:
    source = ("Spark's stock configuration (FIFO; no files were given)" if config.default
              else f"your configuration ({len(config.files)} file(s), fingerprint {config.fingerprint})")
    changed = [name for name in files if files[name] != config.files.get(name)]
    lines = [f"# A plan for Spark, merged into {'the stock' if config.default else 'your'} configuration", "",
             f"Made by `planner export` from {source}; `changes.diff` shows each change.", "",
             "| file | where it goes | changed |", "|---|---|---|"]
    for name in sorted({*files, SUBMISSIONS, "submit.py", "submit.sh", "changes.diff"}):
        mark = "" if name not in files else ("new" if name not in config.files else "yes" if name in changed else "no")
        lines.append(f"| {name} | {_PLACES.get(name, 'where it was')} | {mark} |")
    lines += ["", "## What changes", ""]
    lines += [f"- {name}: {'changed' if name in config.files else 'added'}" for name in changed] or [
        f"- No configuration file changes: the files here are {'Spark' if config.default else 'your'}"
        f"{chr(39) + 's stock ones' if config.default else 's as they were'}. The plan is its submission "
        "schedule: submissions.tsv, which submit.sh and submit.py run (the jobs' order, times and pools)."]
    if allocation is not None:
        lines += ["", "## The pools file", "", _ALLOCATION_NOTE.format(name=allocation)]
    lines += ["", "## What this target cannot enforce", "",
              "- Spark orders FIFO jobs by job id, the order the driver submits them: submit.py submits them in the "
              "planned order at the planned times, each from its own thread; jobs submitted within a few "
              "milliseconds of each other may swap.",
              "- The pools' settings hold inside one application (one SparkContext): jobs of other applications "
              "share the cluster through the cluster manager, which the plan does not model.",
              "- Pools a job names that fairscheduler.xml lacks are made by Spark with FIFO, weight 1, minShare 0.",
              "- Executors are the cluster file's nodes and their cores; dynamic allocation would change them.",
              "", "Check it before applying: `planner simulate WORKLOAD -c CLUSTER --spark-conf THIS_FOLDER`.", ""]
    return "\n".join(lines)
