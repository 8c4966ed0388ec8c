"""A batch of real Spark jobs on a real engine, under FIFO, under FAIR pools and (when the spark
export target is there) under the plan's export; with the replay and prediction errors.

The engine is `planner.proof.spark_engine`: a local-cluster of 4 executors x 2 cores (512 MB
each) started from the pip package, the driver in a process of its own, each configuration a
fresh engine (start-up outside the batch's clock). The batch (`batch_jobs`): 24 jobs in the full
suite, 20 in the quick one, of real CPU work: sorts of generated key-value records (map: generate,
shuffle: range partition, reduce: sort and check) and word counts of generated text (map: split
and count with a map-side combine, reduce: merge), plus a few sleeps; sizes vary about tenfold.
The jobs are submitted 0.1 s apart in the batch's order (so Spark's job ids follow it), by the
submission script an export ships (`planner.io.spark.submit`):

- "FIFO": every job in the default pool, Spark's FIFO by job id: the submission order;
- "FAIR": sorts in pool etl (FAIR inside, weight 2, minShare 2), word counts in reports (FIFO
  inside), sleeps in adhoc (FAIR inside); Spark's fair scheduler between them;
- "plan" (`plan_export`): the spark target's plan for the batch as imported from the FIFO run's
  log, exported (fairscheduler.xml, spark-defaults.conf, submit.py) and run as exported.

Rows: per configuration, objective = the mean response (seconds from a job's submission to its
end, over the jobs), seconds = the run's wall time (start-up, batch, stop), detail: makespan,
start-up, peak memory of the engine's processes and the per-task overheads read from the event log
(`task_overheads`: launch to end less the executor's run time; deserialization; shuffle fetch
wait; medians and p95, ms). Then the comparisons other parts of batchplan make possible, each
skipped with its reason when its part is missing:

- "replay" (`replay_errors`): each run's log replayed with its recorded task times
  (`planner.proof.replay.replay` of `planner.io.spark.logs.read_spark_application`); floors of
  issue 41: median per-job error <= 5%, worst <= 15%;
- "prediction" (`prediction_errors`): the jobs' mean task times fitted on one run (FIFO) predict
  the other (FAIR), through the simulator under the other run's scheduler and pools; floor:
  median per-job error <= 10%.

Event logs are kept (zstd, Spark 4's default codec) in benchmarks/results/spark/, one per
configuration. Skipped with the reason (no rows but one "skipped") when Java or pyspark is missing.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import shutil
import statistics
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.registry import Row, register
from models.errors import PlannerError

NAME = "spark"
RESULTS = Path(__file__).resolve().parent / "results"
LOGS = RESULTS / "spark"
EXECUTORS, CORES, MEMORY_MB = 4, 2, 512
#: Seconds between two submissions (Spark gives job ids in submission order).
SUBMIT_GAP = 0.1
POOLS = {
    "etl": {"weight": 2, "minShare": 2, "schedulingMode": "FAIR"},
    "reports": {"weight": 1, "minShare": 0, "schedulingMode": "FIFO"},
    "adhoc": {"weight": 1, "minShare": 0, "schedulingMode": "FAIR"},
}
POOL_OF_KIND = {"sort": "etl", "wordcount": "reports", "sleep": "adhoc"}
#: Floors of issue 41 (fractions).
REPLAY_MEDIAN_FLOOR, REPLAY_WORST_FLOOR, PREDICTION_MEDIAN_FLOOR = 0.05, 0.15, 0.10
TIMEOUT = 900.0


def batch_jobs(suite: str) -> list:
    """The batch: 24 jobs (full) or 20 (quick), sorts and word counts of three sizes and some sleeps."""
    from planner.proof.spark_engine import EngineJob

    sort_sizes = (12_000, 25_000, 50_000)
    word_sizes = (25_000, 50_000, 100_000)
    jobs = []
    count = 24 if suite == "full" else 20
    for number in range(count):
        size = (number * 7) % 3
        if number % 5 == 4:
            jobs.append(EngineJob(f"nap-{number:02d}", "sleep", maps=4, reduces=2, seconds=1.0, reduce_seconds=0.5))
        elif number % 2 == 0:
            jobs.append(EngineJob(f"sort-{number:02d}", "sort", maps=4 + 2 * size, reduces=2 + size,
                                  records=sort_sizes[size], seed=number))
        else:
            jobs.append(EngineJob(f"words-{number:02d}", "wordcount", maps=4 + 2 * size, reduces=2 + size,
                                  records=word_sizes[size], seed=number))
    return jobs


def schedule_rows(jobs: Sequence, *, pools: bool) -> list[dict]:
    """The jobs submitted `SUBMIT_GAP` apart in order; in their kind's pool, or all in "default"."""
    return [{"job": job.name, "pool": POOL_OF_KIND[job.kind] if pools else "default",
             "submit": round(SUBMIT_GAP * index, 3), "after": []} for index, job in enumerate(jobs)]


def _lines(path: Path) -> Iterator[str]:
    """The lines of an event log written by the engine (plain, or one zstd file)."""
    data = path.read_bytes()
    if path.suffix == ".zstd":
        import cramjam

        data = bytes(cramjam.zstd.decompress(data))
    yield from data.decode("utf-8").splitlines()


def task_overheads(path: Path) -> dict[str, float]:
    """Per-task overheads of the successful tasks in an event log, in ms: ``overhead`` (finish -
    launch - Executor Run Time), ``deserialize`` (Executor Deserialize Time) and ``fetch_wait``
    (Shuffle Read Metrics' Fetch Wait Time), each as median and p95; and ``tasks``."""
    values: dict[str, list[float]] = {"overhead": [], "deserialize": [], "fetch_wait": [], "run": []}
    for line in _lines(path):
        event = json.loads(line)
        if event.get("Event") != "SparkListenerTaskEnd" or event.get("Task End Reason", {}).get("Reason") != "Success":
            continue
        info, metrics = event["Task Info"], event.get("Task Metrics") or {}
        run = metrics.get("Executor Run Time", 0)
        values["overhead"].append(info["Finish Time"] - info["Launch Time"] - run)
        values["deserialize"].append(metrics.get("Executor Deserialize Time", 0))
        values["fetch_wait"].append((metrics.get("Shuffle Read Metrics") or {}).get("Fetch Wait Time", 0))
        values["run"].append(run)
    summary: dict[str, float] = {"tasks": float(len(values["run"]))}
    for name, found in values.items():
        if found:
            ordered = sorted(found)
            summary[f"{name}_median"] = statistics.median(ordered)
            summary[f"{name}_p95"] = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return summary


def _keep_log(run, configuration: str) -> Path:
    """Move the run's event log into benchmarks/results/spark/ as ``<configuration>.<suffix>``, with
    its fairscheduler.xml as ``<configuration>.fairscheduler.xml``."""
    LOGS.mkdir(parents=True, exist_ok=True)
    suffix = "".join(run.event_log.suffixes) or ".json"
    kept = LOGS / f"{configuration}{suffix}"
    shutil.move(run.event_log, kept)
    if run.allocation_file is not None:  # the pools' settings, which the log names but does not hold
        shutil.copyfile(run.allocation_file, LOGS / f"{configuration}.fairscheduler.xml")
    return kept


def _run_row(configuration: str, instance: str, run, log: Path, overheads: Mapping[str, float]) -> Row:
    done = sum(1 for job in run.jobs if job.status == "done")
    detail = (f"{len(run.jobs)} jobs ({done} done); makespan {run.makespan:.1f} s, batch {run.batch_seconds:.1f} s, "
              f"start-up {run.ready_seconds:.1f} s (context {run.context_seconds:.1f} s), "
              f"peak RSS {run.peak_rss_mb:.0f} MB; task overhead median {overheads.get('overhead_median', 0):.0f} ms "
              f"p95 {overheads.get('overhead_p95', 0):.0f} ms, deserialize {overheads.get('deserialize_median', 0):.0f}"
              f"/{overheads.get('deserialize_p95', 0):.0f} ms, fetch wait {overheads.get('fetch_wait_median', 0):.0f}"
              f"/{overheads.get('fetch_wait_p95', 0):.0f} ms, run {overheads.get('run_median', 0):.0f}"
              f"/{overheads.get('run_p95', 0):.0f} ms over {overheads.get('tasks', 0):.0f} tasks; "
              f"log {log.relative_to(RESULTS.parent.parent)}")
    return Row(NAME, instance, configuration, round(run.mean_response, 3), None, None, round(run.wall_seconds, 2),
               "ok" if run.succeeded else "failed", 1, detail=detail)


def _skipped(instance: str, method: str, why: str) -> Row:
    return Row(NAME, instance, method, None, None, None, 0.0, "skipped", 1, detail=why)


# -- hooks: the comparisons other parts of batchplan enable ------------------------------------


def _spark_logs() -> Any:
    """`planner.io.spark.logs` (the event-log importer), imported by name: a tree without it yet
    makes the hooks that need it "skipped" rows."""
    return importlib.import_module("planner.io.spark.logs")


def replay_errors(log: Path) -> dict[str, Any]:
    """The replay of a run's event log with its recorded task times: ``median`` and ``worst``
    per-job error (fractions) and ``worst_job`` (`planner.proof.replay.replay` of the
    application `planner.io.spark.logs.read_spark_application` reads)."""
    from planner.proof.replay import replay

    read_spark_application = _spark_logs().read_spark_application

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = replay(read_spark_application(log))
    return {"median": report.median_error, "worst": report.worst_error, "worst_job": report.worst_job,
            "jobs": len(report.jobs)}


def prediction_errors(fitted_log: Path, checked_log: Path, pools: Mapping[str, Mapping[str, object]] | None,
                      ) -> dict[str, Any]:
    """Each job's mean map and reduce task times (launch to finish) fitted on ``fitted_log``'s run
    predict ``checked_log``'s: its jobs (submission times, pools) with the fitted times, simulated
    under its scheduler (FAIR with ``pools``' weights and minimum shares, else FIFO) on its
    executors; per-job error = predicted / recorded response - 1 (`planner.io.spark.logs.spark_batch`)."""
    from planner.simulator import Pool, simulate

    logs = _spark_logs()
    read_spark_application, spark_batch = logs.read_spark_application, logs.spark_batch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = spark_batch(read_spark_application(fitted_log))
        checked = spark_batch(read_spark_application(checked_log))
    profile = {job.name: job for job in fitted.workload}
    jobs = [replace(job, map_time=profile[job.name].map_time, reduce_time=profile[job.name].reduce_time)
            for job in checked.workload]
    workload = type(checked.workload)(jobs, name=f"{checked.workload.name} predicted")
    if checked.scheduler == "fair" and pools:
        from planner.simulator import Fair

        scheduler: Any = Fair(pools=[Pool(name, weight=float(pool.get("weight", 1)),
                                          min_map=int(pool.get("minShare", 0)), min_reduce=int(pool.get("minShare", 0)),
                                          mode=str(pool.get("schedulingMode", "FIFO")).lower())
                                     for name, pool in pools.items()])
    else:
        scheduler = checked.scheduler
    result = simulate(workload, checked.cluster, scheduler, options=checked.options)
    predicted = {job["name"]: job["response"] for job in result.jobs}
    errors = [predicted[row["job"]] / row["runtime"] - 1 for row in checked.recorded]
    worst = max(range(len(errors)), key=lambda i: abs(errors[i]))
    return {"median": statistics.median(abs(e) for e in errors), "worst": abs(errors[worst]),
            "worst_job": checked.recorded[worst]["job"], "jobs": len(errors)}


def plan_export(fitted_log: Path, folder: Path, *, objective: str = "mean_response") -> dict[str, Any]:
    """The spark target's plan for the batch imported from ``fitted_log`` (`planner.io.spark.logs.
    spark_batch`, its submission times counted from the first), exported into ``folder`` (`planner.io.targets.export_plan`, target "spark":
    fairscheduler.xml, spark-defaults.conf, submit.py); returns what `run_engine_batch` takes to run
    it as exported: ``conf`` (spark-defaults.conf, the allocation file's path made absolute),
    ``script`` (submit.py's text), ``rows`` (its schedule) and ``mode``."""
    from planner.io.targets import export_plan
    from planner.planning.deploy import plan_for_target
    from planner.proof.spark_engine import read_spark_defaults

    logs = _spark_logs()
    read_spark_application, spark_batch = logs.read_spark_application, logs.spark_batch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = spark_batch(read_spark_application(fitted_log))
        # Times from the batch's first submission, not the application's start (the engine's start-up).
        first = min(job.submit for job in batch.workload)
        workload = type(batch.workload)([replace(job, submit=round(job.submit - first, 3)) for job in batch.workload],
                                        name=batch.workload.name)
        plan = plan_for_target(workload, batch.cluster, "spark", objective=objective)
        export_plan(plan, workload, batch.cluster, "spark", folder)
    conf = read_spark_defaults(folder / "spark-defaults.conf")
    allocation = conf.get("spark.scheduler.allocation.file")
    if allocation and not Path(allocation.removeprefix("file:")).is_absolute():
        conf["spark.scheduler.allocation.file"] = str(folder / allocation)
    script = (folder / "submit.py").read_text(encoding="utf-8")
    namespace: dict[str, Any] = {}
    exec(compile(script, "submit.py", "exec"), namespace)  # the exported script's SCHEDULE
    return {"conf": conf, "script": script, "rows": namespace["SCHEDULE"],
            "mode": conf.get("spark.scheduler.mode", "FIFO")}


@contextlib.contextmanager
def _guarded(rows: list[Row], instance: str, method: str) -> Iterator[None]:
    """Run a hook; a part of batchplan that is not there (yet) makes a "skipped" row with the reason."""
    try:
        yield
    except (ImportError, AttributeError, TypeError, KeyError, NotImplementedError, PlannerError) as error:
        rows.append(_skipped(instance, method, f"skipped: {type(error).__name__}: {error}"))


@register(NAME, suites=("full",))
def run(suite: str) -> list[Row]:
    """A batch of 20+ real Spark jobs (sorts, word counts) on a local-cluster: FIFO, FAIR pools, the plan; replay and prediction errors."""
    from planner.proof.spark_engine import run_engine_batch, spark_available

    jobs = batch_jobs(suite)
    instance = f"{len(jobs)} jobs, local-cluster[{EXECUTORS},{CORES},{MEMORY_MB}]"
    why_not = spark_available()
    if why_not:
        return [_skipped(instance, "engine", f"skipped: {why_not}")]
    rows: list[Row] = []
    logs: dict[str, Path] = {}
    settings = {"executors": EXECUTORS, "cores": CORES, "memory_mb": MEMORY_MB, "compression": "zstd",
                "timeout": TIMEOUT}
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as scratch:
        configurations: list[tuple[str, dict[str, Any]]] = [
            ("FIFO", {"schedule_rows": schedule_rows(jobs, pools=False), "mode": "FIFO"}),
            ("FAIR", {"schedule_rows": schedule_rows(jobs, pools=True), "mode": "FAIR", "pools": POOLS}),
        ]
        for configuration, arguments in configurations:
            started = time.perf_counter()
            engine_run = run_engine_batch(jobs, log_dir=Path(scratch) / configuration, app_name=f"bench-{configuration}",
                                          **arguments, **settings)
            logs[configuration] = _keep_log(engine_run, configuration)
            rows.append(_run_row(configuration, instance, engine_run, logs[configuration],
                                 task_overheads(logs[configuration])))
            print(f"{configuration}: {time.perf_counter() - started:.1f} s", flush=True)
        with _guarded(rows, instance, "plan"):
            exported = plan_export(logs["FIFO"], Path(scratch) / "export")
            engine_run = run_engine_batch(jobs, exported["rows"], log_dir=Path(scratch) / "plan", mode=exported["mode"],
                                          script=exported["script"], conf=exported["conf"], app_name="bench-plan",
                                          **settings)
            logs["plan"] = _keep_log(engine_run, "plan")
            rows.append(_run_row("plan", instance, engine_run, logs["plan"], task_overheads(logs["plan"])))
    for configuration, log in logs.items():
        with _guarded(rows, instance, f"replay {configuration}"):
            found = replay_errors(log)
            detail = f"{found['jobs']} jobs; worst {found['worst']:.1%} ({found['worst_job']}); floor worst <= 15%"
            rows.append(Row(NAME, instance, f"replay {configuration}", round(found["median"], 4), None, None, 0.0,
                            "ok" if found["worst"] <= REPLAY_WORST_FLOOR else "worst above 15%", 1, detail=detail,
                            floor_objective=REPLAY_MEDIAN_FLOOR))
    with _guarded(rows, instance, "prediction FIFO -> FAIR"):
        found = prediction_errors(logs["FIFO"], logs["FAIR"], POOLS)
        rows.append(Row(NAME, instance, "prediction FIFO -> FAIR", round(found["median"], 4), None, None, 0.0, "ok", 1,
                        detail=f"{found['jobs']} jobs; worst {found['worst']:.1%} ({found['worst_job']})",
                        floor_objective=PREDICTION_MEDIAN_FLOOR))
    return rows
