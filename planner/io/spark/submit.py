"""The driver-side submission script of a Spark batch: the planned jobs submitted in order, each
into its pool, each waiting for the jobs it depends on.

`submission_script` turns the planned submissions (rows, in order) into the text of a
self-contained Python script: the standard library and pyspark only, so batchplan need not be
installed where the script runs. The script holds the rows as ``SCHEDULE`` and a function
``run_batch(sc, jobs, schedule=SCHEDULE)`` that a user's driver calls with its SparkContext (or
SparkSession) and a mapping of job name -> a callable that runs the job's Spark actions::

    from submit import run_batch
    records = run_batch(spark, {"daily-sort": sort_job, "wordcount": count_job})

Each row gets its own thread: it waits until the row's ``submit`` time (seconds from the batch's
start) and until every job it waits for (``after``: ``[name, delay_s]`` pairs) has finished plus
the delay, then sets ``spark.scheduler.pool``, the job group and the job description in that
thread (Spark reads them per thread) and calls the job's callable. A job that fails is reported
with its error; the jobs that wait for it are not run and are reported as skipped. Every job is
checked to have a callable before anything runs.

Run as a program under spark-submit (``spark-submit --properties-file spark-defaults.conf
submit.py --jobs mymodule:JOBS --report report.json``) it imports the mapping, builds a
SparkContext from the submitted configuration, runs the batch and writes the per-job report.

The real-engine benchmark (`planner.proof.spark_engine`) runs this same script, so what is
measured is what is exported.
"""

from __future__ import annotations

import pprint
from collections.abc import Mapping, Sequence

from models.checks import as_float, as_items, as_str, check_keys, key_name, shown
from models.errors import InvalidInput, InvalidType

#: The keys of a planned submission row.
ROW_KEYS = ("job", "pool", "submit", "after")
#: The pool a row without a pool goes to (Spark's own default pool).
DEFAULT_POOL = "default"
#: The version of the report the script writes (``format`` and ``version`` keys).
REPORT_FORMAT = "batchplan-spark-submit-report"
REPORT_VERSION = 1

#: The script's code after its SCHEDULE; kept as one constant so that the text is the same
#: for the same rows (a plan's export is byte for byte reproducible).
_SCRIPT_BODY = '''

REPORT_FORMAT = "batchplan-spark-submit-report"
REPORT_VERSION = 1
POOL_PROPERTY = "spark.scheduler.pool"
#: How often a waiting thread looks at the clock and a Ctrl-C is noticed (seconds).
POLL_SECONDS = 0.05


def check_schedule(schedule):
    """The rows' job names in order. A missing key, a repeated job, a negative time, an "after"
    that names no planned job and jobs that wait for each other in a cycle are refused
    (ValueError) before anything runs."""
    names = []
    for index, row in enumerate(schedule):
        for key in ("job", "pool", "submit", "after"):
            if key not in row:
                raise ValueError(f"schedule[{index}]: missing {key!r}")
        name = row["job"]
        if not isinstance(name, str) or not name:
            raise ValueError(f"schedule[{index}].job: must be a non-empty string")
        if name in names:
            raise ValueError(f"schedule[{index}].job: {name!r} is planned twice")
        if not isinstance(row["submit"], (int, float)) or row["submit"] < 0:
            raise ValueError(f"schedule[{index}].submit: must be a number >= 0")
        names.append(name)
    known = set(names)
    for index, row in enumerate(schedule):
        for name, delay in row["after"]:
            if name not in known:
                raise ValueError(f"schedule[{index}].after: {name!r} is not a planned job")
            if not isinstance(delay, (int, float)) or delay < 0:
                raise ValueError(f"schedule[{index}].after: the delay after {name!r} must be a number >= 0")
    waits = {row["job"]: [name for name, _ in row["after"]] for row in schedule}
    state = {}

    def visit(name, path):
        if state.get(name) == "done":
            return
        if state.get(name) == "open":
            raise ValueError("schedule: the jobs wait for each other in a cycle: " + " -> ".join([*path, name]))
        state[name] = "open"
        for other in waits[name]:
            visit(other, [*path, name])
        state[name] = "done"

    for name in names:
        visit(name, [])
    return names


def check_jobs(jobs, names):
    """Every planned job has a callable; else ValueError naming the missing ones."""
    if not isinstance(jobs, Mapping):
        raise ValueError(f"jobs: must be a mapping of job name -> callable(sc), got {type(jobs).__name__}")
    missing = [name for name in names if name not in jobs]
    if missing:
        raise ValueError("jobs: no callable for the planned job(s) " + ", ".join(repr(name) for name in missing))
    wrong = [name for name in names if not callable(jobs[name])]
    if wrong:
        raise ValueError("jobs: not callable: " + ", ".join(repr(name) for name in wrong))


def run_batch(sc, jobs, schedule=SCHEDULE, *, timeout=None):
    """Run the planned jobs on ``sc`` (a SparkContext, or a SparkSession: its sparkContext);
    ``jobs`` maps each planned job's name to a callable(sc) that runs its Spark action(s).

    Returns one record per row, in the rows' order: job, pool, status ("done", "failed",
    "skipped" or "cancelled"), submitted (when the job was due: its submit time, or the last job
    it waits for finished plus the delay), started (when its callable was called), finished, in
    seconds from the batch's start, and error (None, or what went wrong). After ``timeout``
    seconds the jobs still running are cancelled (their job groups) and the rest not started."""
    context = getattr(sc, "sparkContext", sc)
    names = check_schedule(schedule)
    check_jobs(jobs, names)
    records = {
        row["job"]: {"job": row["job"], "pool": row["pool"], "status": "waiting", "submitted": None,
                     "started": None, "finished": None, "error": None}
        for row in schedule
    }
    ended = {name: threading.Event() for name in names}
    stop = threading.Event()
    begin = time.monotonic()

    def now():
        return time.monotonic() - begin

    def wait_until(moment):
        while not stop.is_set():
            left = moment - now()
            if left <= 0:
                return True
            stop.wait(min(left, POLL_SECONDS))
        return False

    def run_row(row):
        record = records[row["job"]]
        try:
            if not wait_until(row["submit"]):
                record["status"] = "cancelled"
                return
            due = float(row["submit"])
            for other, delay in row["after"]:
                while not ended[other].wait(POLL_SECONDS):
                    if stop.is_set():
                        record["status"] = "cancelled"
                        return
                before = records[other]
                if before["status"] != "done":
                    record["status"] = "cancelled" if stop.is_set() else "skipped"
                    record["error"] = f"not run: {other!r} {before['status']}"
                    return
                due = max(due, before["finished"] + delay)
            if not wait_until(due):
                record["status"] = "cancelled"
                return
            record["submitted"] = due
            context.setLocalProperty(POOL_PROPERTY, row["pool"])
            context.setJobGroup(row["job"], row["job"])
            context.setJobDescription(row["job"])
            record["status"] = "running"
            record["started"] = now()
            try:
                jobs[row["job"]](sc)
            except BaseException as error:  # the job's failure is reported, never raised
                record["finished"] = now()
                record["status"] = "cancelled" if stop.is_set() else "failed"
                record["error"] = f"{type(error).__name__}: {error}"
                return
            record["finished"] = now()
            record["status"] = "done"
        finally:
            ended[row["job"]].set()

    threads = []
    for row in schedule:
        thread = threading.Thread(target=run_row, args=(row,), name=f"batch-{row['job']}", daemon=True)
        thread.start()
        threads.append(thread)
    try:
        for thread in threads:
            while thread.is_alive():
                if timeout is not None and now() > timeout:
                    raise TimeoutError(f"the batch took more than {timeout} s")
                thread.join(POLL_SECONDS)
    except BaseException as error:
        stop.set()
        for name in names:
            if records[name]["status"] == "running":
                try:
                    context.cancelJobGroup(name)
                except Exception:  # the context may already be stopped
                    pass
        deadline = time.monotonic() + 10.0
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        for record in records.values():
            if record["status"] in ("waiting", "running"):
                record["status"] = "cancelled"
                record["error"] = f"{type(error).__name__}: {error}"
        if not isinstance(error, TimeoutError):
            raise
    return [dict(records[name]) for name in names]


def load_jobs(reference):
    """The mapping named by ``module:attribute`` (the current folder is on the import path)."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--jobs: must be module:attribute, got {reference!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module = importlib.import_module(module_name)
    try:
        jobs = getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"--jobs: {module_name} has no {attribute!r}") from None
    if callable(jobs) and not isinstance(jobs, Mapping):
        jobs = jobs()
    return jobs


def write_report(path, report):
    """Write the report as JSON through a temporary file and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".report-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(report, stream, indent=1)
            stream.write("\\n")
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def main(argv=None):
    parser = argparse.ArgumentParser(description="Submit the planned batch's jobs into their Spark pools.")
    parser.add_argument("--jobs", required=True, help="module:attribute, a mapping of job name -> callable(sc)")
    parser.add_argument("--report", help="write the per-job report (JSON) to this file")
    parser.add_argument("--timeout", type=float, help="cancel what still runs after this many seconds")
    arguments = parser.parse_args(argv)
    jobs = load_jobs(arguments.jobs)
    check_jobs(jobs, check_schedule(SCHEDULE))
    from pyspark import SparkConf, SparkContext

    sc = SparkContext(conf=SparkConf())
    try:
        epoch = time.time()
        records = run_batch(sc, jobs, SCHEDULE, timeout=arguments.timeout)
        report = {"format": REPORT_FORMAT, "version": REPORT_VERSION, "application_id": sc.applicationId,
                  "batch_start_epoch": epoch, "jobs": records}
    finally:
        sc.stop()
    if arguments.report:
        write_report(arguments.report, report)
    for record in records:
        print(f"{record['job']}: {record['status']}" + (f" ({record['error']})" if record["error"] else ""))
    return 0 if all(record["status"] == "done" for record in records) else 1


if __name__ == "__main__":
    sys.exit(main())
'''

_SCRIPT_HEAD = '''"""Submit a planned batch's jobs to Spark in the planned order, each into its pool.

Written by batchplan (planner.io.spark.submit); needs only Python and pyspark.

From a driver:   from submit import run_batch; run_batch(spark, {"job name": callable(sc), ...})
With spark-submit:
    spark-submit --properties-file spark-defaults.conf submit.py --jobs mymodule:JOBS --report report.json

Each job waits until its submit time (seconds from the batch's start) and until the jobs in its
"after" list have finished plus their delay; then spark.scheduler.pool, the job group and the job
description are set in its own thread and its callable runs. A failed job's dependants are
skipped. The report gives per job: status, submitted, started, finished (seconds) and error.
"""

import argparse
import importlib
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Mapping

'''


def _checked_rows(rows: object) -> list[dict]:
    """The rows as plain data (job, pool, submit, after), each checked; names unique, every
    ``after`` names a planned job, and no job waits for itself through others."""
    items = as_items(rows, "rows")
    checked: list[dict] = []
    seen: set[str] = set()
    for index, row in enumerate(items):
        field = f"rows[{index}]"
        if not isinstance(row, Mapping):
            raise InvalidType(field, f"must be a mapping, got {shown(row)} ({type(row).__name__})")
        check_keys(dict(row), ROW_KEYS, field, required=("job", "submit"))
        name = as_str(row["job"], f"{field}.job")
        if name in seen:
            raise InvalidInput(f"{field}.job", f"{shown(name)} is planned twice")
        seen.add(name)
        pool = as_str(row.get("pool", DEFAULT_POOL), f"{field}.pool")
        submit = as_float(row["submit"], f"{field}.submit", minimum=0.0)
        after = []
        for position, pair in enumerate(as_items(row.get("after", ()), f"{field}.after")):
            where = f"{field}.after[{position}]"
            pair_items = as_items(pair, where)
            if len(pair_items) != 2:
                raise InvalidInput(where, f"must be [job, delay_s], got {shown(pair)}")
            other = as_str(pair_items[0], f"{where}[0]")
            after.append([other, as_float(pair_items[1], f"{where}[1]", minimum=0.0)])
        checked.append({"job": name, "pool": pool, "submit": submit, "after": after})
    _check_waits(checked)
    return checked


def _check_waits(rows: Sequence[dict]) -> None:
    names = {row["job"] for row in rows}
    waits: dict[str, list[str]] = {}
    for index, row in enumerate(rows):
        for position, (other, _delay) in enumerate(row["after"]):
            if other not in names:
                raise InvalidInput(f"rows[{index}].after[{position}]", f"{shown(other)} is not a planned job")
            if other == row["job"]:
                raise InvalidInput(f"rows[{index}].after[{position}]", "a job cannot wait for itself")
        waits[row["job"]] = [other for other, _delay in row["after"]]
    finished: set[str] = set()
    for row in rows:
        _visit(row["job"], waits, finished, [])


def _visit(name: str, waits: Mapping[str, list[str]], finished: set[str], path: list[str]) -> None:
    if name in finished:
        return
    if name in path:
        cycle = " -> ".join(key_name(step) for step in [*path[path.index(name):], name])
        raise InvalidInput("rows", f"the jobs wait for each other in a cycle: {cycle}")
    for other in waits[name]:
        _visit(other, waits, finished, [*path, name])
    finished.add(name)


def submission_script(rows: Sequence[Mapping[str, object]]) -> str:
    """The text of the self-contained submission script for ``rows`` (module docstring): the
    planned submissions in order, each ``{"job", "pool", "submit", "after"}`` with ``submit`` in
    seconds from the batch's start and ``after`` a list of ``[job, delay_s]``. ``pool`` defaults
    to "default" and ``after`` to none. Bad rows raise `InvalidInput` naming the row and field."""
    checked = _checked_rows(rows)
    schedule = pprint.pformat(checked, width=100, sort_dicts=False)
    return f"{_SCRIPT_HEAD}#: The planned submissions, in order.\nSCHEDULE = {schedule}\n{_SCRIPT_BODY}"
