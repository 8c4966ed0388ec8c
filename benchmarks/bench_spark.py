"""A batch of real Spark jobs on a real engine, under FIFO in two orders, under FAIR pools and
under the plan's export, with the replay and prediction errors.

The engine is `planner.proof.spark_engine`: a local-cluster of 2 executors x 1 core (512 MB each)
started from the pip package, the driver in a process of its own, each configuration a fresh
engine (start-up outside the batch's clock), warmed up until steady (`WARMUP_SECONDS`). The batch
(`batch_jobs`): 24 jobs in the full suite, 20 in the quick one, of real CPU work: sorts of
generated key-value records (map: generate, shuffle: range partition, reduce: sort and check) and
word counts of generated text (map: split and count with a map-side combine, reduce: merge), of
three sizes each. The jobs are submitted 0.1 s apart (so Spark's job ids follow the order), by the
submission script an export ships (`planner.io.spark.submit`):

- "FIFO": every job in the default pool, Spark's FIFO by job id: the batch's order;
- "FIFO-reversed" (`REVERSED`): the same, submitted in the reverse order;
- "FAIR": the smallest jobs in pool adhoc (FAIR inside), other sorts in etl (FAIR inside, weight
  2, minShare 2), other word counts in reports (FIFO inside); Spark's fair scheduler between them;
- "plan" (`plan_export`): the spark target's plan for the batch as imported from the FIFO run's
  log, exported (fairscheduler.xml, spark-defaults.conf, submit.py) and run as exported.

Rows: per configuration, objective = the mean response (seconds from a job's submission to its
end, over the jobs), seconds = the run's wall time (start-up, warm-up, batch, stop), detail:
makespan, start-up, the warm-up's rounds, peak memory of the engine's processes and the per-task
overheads read from the event log (`task_overheads`: launch to end less the executor's run time;
deserialization; shuffle fetch wait; medians and p95, ms). Then:

- "replay" (`replay_errors`): each run's log replayed with its recorded task times
  (`planner.proof.replay.replay` of `planner.io.spark.logs.read_spark_application`); floors of
  issue 41: median per-job error <= 5%, worst <= 15%;
- "prediction" (`prediction_errors`): the batch's profiles fitted on the FIFO run
  (`fitted_profile`: each job's mean work per task plus the mean overhead per task of the batch's
  tasks) predict each other run, through the simulator under that run's scheduler and pools;
  floor: median per-job error <= 10%; the FIFO run itself (the model's own error) without one;
  with, in the detail, the error once the profiles are scaled by the two runs' ratio of task work
  (`speed_scaled_errors`: a diagnosis of how much is the run's speed, not a prediction);
- "ranking": FIFO, FAIR and the plan by mean response, in reality and as predicted;
- "plan gain": the plan's real gain over FIFO against its simulated gain; floor: at least half.

Event logs are kept (zstd, Spark 4's default codec) in benchmarks/results/spark/, one per
configuration. Skipped with the reason (no rows but one "skipped") when Java or pyspark is missing.
"""

from __future__ import annotations

import contextlib
import shutil
import statistics
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.registry import Row, register
from models.errors import PlannerError

NAME = "spark"
RESULTS = Path(__file__).resolve().parent / "results"
LOGS = RESULTS / "spark"
#: Two executors of one core: this machine has two (cores beyond them share the CPUs, and a task's
#: time then depends on what runs beside it: 4 x 2 cores gave FIFO and FAIR runs of the same tasks
#: 39.4 s and 25.0 s of makespan, which no fixed task time explains).
EXECUTORS, CORES, MEMORY_MB = 2, 1, 512
#: Seconds between two submissions (Spark gives job ids in submission order).
SUBMIT_GAP = 0.1
POOLS = {
    "etl": {"weight": 2, "minShare": 2, "schedulingMode": "FAIR"},
    "reports": {"weight": 1, "minShare": 0, "schedulingMode": "FIFO"},
    "adhoc": {"weight": 1, "minShare": 0, "schedulingMode": "FAIR"},
}
#: Floors of issue 41 (fractions).
REPLAY_MEDIAN_FLOOR, REPLAY_WORST_FLOOR, PREDICTION_MEDIAN_FLOOR = 0.05, 0.15, 0.10
TIMEOUT = 900.0
#: The FIFO run of the batch submitted in reverse order: another order, the same mode.
REVERSED = "FIFO-reversed"
#: Records per map task of the sorts and of the word counts, by size: tasks of 0.1 to 0.5 s, so
#: that the per-task overheads (20-40 ms) and the driver's submissions are a small part of a job.
SORT_RECORDS, WORD_RECORDS = (36_000, 75_000, 150_000), (75_000, 150_000, 300_000)
#: The least seconds of the engine's steady warm-up before each configuration's batch
#: (`run_engine_batch`'s ``warmup_seconds``): the executors' JVMs compile their shuffle code over
#: the first 20 s or so of work, and a round of the batch's shapes took 7.7 s cold and 4.0 s warm.
WARMUP_SECONDS = 20.0


def batch_jobs(suite: str) -> list:
    """The batch: 24 jobs (full) or 20 (quick), sorts and word counts of three sizes in turn.

    Every job is CPU work: on this machine a task beside a sleeping one has a CPU to itself, and
    word-count maps took 138 ms beside sleeps against 191 ms beside each other, which the simulator's
    fixed task times do not follow (docs/limits.md, "CPU")."""
    from planner.proof.spark_engine import EngineJob

    jobs = []
    count = 24 if suite == "full" else 20
    for number in range(count):
        size = (number * 7) % 3
        if number % 2 == 0:
            jobs.append(EngineJob(f"sort-{number:02d}", "sort", maps=4 + 2 * size, reduces=2 + size,
                                  records=SORT_RECORDS[size], seed=number))
        else:
            jobs.append(EngineJob(f"words-{number:02d}", "wordcount", maps=4 + 2 * size, reduces=2 + size,
                                  records=WORD_RECORDS[size], seed=number))
    return jobs


def pool_of(job: Any) -> str:
    """A job's pool in the "FAIR" configuration: the smallest jobs in adhoc, other sorts in etl and
    other word counts in reports."""
    if job.records in (SORT_RECORDS[0], WORD_RECORDS[0]):
        return "adhoc"
    return "etl" if job.kind == "sort" else "reports"


def schedule_rows(jobs: Sequence, *, pools: bool, reverse: bool = False) -> list[dict]:
    """The jobs submitted `SUBMIT_GAP` apart in order (``reverse``: the last first); in their pool
    (`pool_of`), or all in "default"."""
    ordered = list(reversed(jobs)) if reverse else list(jobs)
    return [{"job": job.name, "pool": pool_of(job) if pools else "default",
             "submit": round(SUBMIT_GAP * index, 3), "after": []} for index, job in enumerate(ordered)]


def task_overheads(path: Path) -> dict[str, float]:
    """Per-task overheads of the successful tasks of a run's batch, in ms
    (`planner.io.spark.fitting.task_overheads`: launch to end less the executor's run time;
    deserialization; shuffle fetch wait), medians and p95 over both task kinds; ``tasks``; and
    ``work``, their run time less fetch wait summed (s)."""
    from planner.io.spark.fitting import task_overheads as overheads_of

    app = _application(path)
    warm = _warmup_stages(app)
    tasks = [task for task in app.tasks if task.stage not in warm]
    done = [task for task in tasks if task.status == "success"]
    # the batch's task work, the run's speed: the same jobs took 58.6 s in one run, 65.4 s in another
    summary: dict[str, float] = {"tasks": float(len(done)), "work": sum(
        (task.run_time or 0.0) - (task.fetch_wait_time or 0.0) for task in done)}
    records = overheads_of(tasks)
    total = sum(record["tasks"] for record in records) or 1
    for part in ("overhead", "deserialize", "fetch_wait"):
        for stat in ("median", "p95"):  # weighted by each kind's tasks: the batch's typical task
            summary[f"{part}_{stat}"] = 1000 * sum(r[f"{part}_{stat}"] * r["tasks"] for r in records) / total
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
              f"start-up {run.ready_seconds:.1f} s (context {run.context_seconds:.1f} s, warm-up rounds "
              f"{'/'.join(f'{seconds:.1f}' for seconds in run.warmup_rounds) or '-'} s), "
              f"peak RSS {run.peak_rss_mb:.0f} MB; task overhead median {overheads.get('overhead_median', 0):.0f} ms "
              f"p95 {overheads.get('overhead_p95', 0):.0f} ms, deserialize {overheads.get('deserialize_median', 0):.0f}"
              f"/{overheads.get('deserialize_p95', 0):.0f} ms, fetch wait {overheads.get('fetch_wait_median', 0):.0f}"
              f"/{overheads.get('fetch_wait_p95', 0):.0f} ms over {overheads.get('tasks', 0):.0f} tasks, task work "
              f"{overheads.get('work', 0):.1f} s; "
              f"log {log.relative_to(RESULTS.parent.parent)}")
    return Row(NAME, instance, configuration, round(run.mean_response, 3), None, None, round(run.wall_seconds, 2),
               "ok" if run.succeeded else "failed", 1, detail=detail)


def _skipped(instance: str, method: str, why: str) -> Row:
    return Row(NAME, instance, method, None, None, None, 0.0, "skipped", 1, detail=why)


# -- hooks: the comparisons other parts of batchplan enable ------------------------------------


def _application(log: Path) -> Any:
    from planner.io.spark.logs import read_spark_application

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_spark_application(log)


def _warmup_stages(app: Any) -> set[int]:
    """The stages of the engine's warm-up job (`planner.proof.spark_engine.WARMUP_GROUP`)."""
    from planner.proof.spark_engine import WARMUP_GROUP

    return {stage for job in app.jobs if job.group == WARMUP_GROUP for stage in job.stages}


def _pools(log: Path) -> Any:
    """The pools of the allocation file kept next to ``log`` (`_keep_log`), or None."""
    from planner.io.spark.conf import read_spark_conf

    allocation = log.with_name(f"{log.name.split('.')[0]}.fairscheduler.xml")
    return read_spark_conf([allocation], warn=False).pools if allocation.exists() else None


def _batch_only(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    from planner.proof.spark_engine import WARMUP_GROUP

    return [record for record in records if not record["job"].startswith(WARMUP_GROUP)]


def _errors(pairs: Sequence[tuple[str, float]]) -> dict[str, Any]:
    worst = max(pairs, key=lambda pair: abs(pair[1]))
    return {"median": statistics.median(abs(error) for _, error in pairs), "worst": abs(worst[1]),
            "worst_job": worst[0], "jobs": len(pairs)}


def replay_errors(log: Path) -> dict[str, Any]:
    """The replay of a run's event log with its recorded task times and the pools of its allocation
    file: ``median`` and ``worst`` per-job error over the batch's jobs (fractions) and
    ``worst_job`` (`planner.proof.replay.replay`)."""
    from planner.proof.replay import replay

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = replay(_application(log), pools=_pools(log))
    return _errors([(job["job"], job["error"]) for job in _batch_only(report.jobs)])


def fitted_profile(log: Path) -> Any:
    """The profile of the batch's jobs of ``log``'s run (`planner.io.spark.fitting.fit_spark`, mean
    overheads; the warm-up's jobs left out of the workload and of the overheads)."""
    from planner.io.spark.fitting import fit_spark
    from planner.io.spark.logs import spark_batch
    from planner.proof.spark_engine import WARMUP_GROUP

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names = [job.name for job in spark_batch(_application(log)).workload if not job.name.startswith(WARMUP_GROUP)]
        return fit_spark(log, statistic="mean", jobs=names)


def predicted_run(profile: Any, checked_log: Path) -> dict[str, float]:
    """Each job's response (s, from its Spark submission to its end) in ``checked_log``'s run as
    predicted from ``profile`` (`planner.io.spark.fitting.fit_spark` of another run: each job's
    mean work per task plus the mean overhead per task): the run's jobs, submitted when they
    were, with the profile's task times, on its executors, under its mode and the pools of its
    allocation file, as Spark runs them (`planner.io.spark.conf`, without locality waits: the
    engine's tasks have no preferred executor)."""
    from planner.io.spark.conf import SparkSetup, setup_run
    from planner.io.spark.logs import spark_batch
    from planner.proof.spark_engine import WARMUP_GROUP
    from planner.simulator import simulate

    app = _application(checked_log)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        checked = spark_batch(app)
    fitted = {job.name: job for job in profile.workload}
    # The batch's jobs alone: the warm-up ends before the batch's first submission, and its jobs'
    # names (by round) need not be the same jobs in two runs.
    workload = type(checked.workload)([job.with_changes(map_time=fitted[job.name].map_time,
                                                        reduce_time=fitted[job.name].reduce_time)
                                       if job.name in fitted else job for job in checked.workload
                                       if not job.name.startswith(WARMUP_GROUP)], name=checked.workload.name)
    setup = SparkSetup(mode=app.scheduler_mode, pools=tuple(_pools(checked_log) or ()), node_wait=0.0, rack_wait=0.0)
    warm = _warmup_stages(app)  # the application's stages before the batch: Spark's ties count them
    run = setup_run(setup, workload, checked.cluster, base=checked.options,
                    first_stage=max(warm) + 1 if warm else 0)
    result = simulate(run.workload, run.cluster, run.scheduler, options=run.options)
    return {job["name"]: job["response"] for job in result.jobs}


def prediction_errors(fitted_log: Path, checked_log: Path, *, scale: float = 1.0) -> dict[str, Any]:
    """Profiles fitted on ``fitted_log``'s run (`fitted_profile`; task times times ``scale``)
    predict ``checked_log``'s (`predicted_run`); per-job error = predicted / recorded response - 1
    over the batch's jobs; ``mean_predicted`` and ``mean_recorded`` response (s)."""
    from dataclasses import replace

    from planner.io.spark.logs import spark_batch

    profile = fitted_profile(fitted_log)
    if scale != 1.0:
        profile = replace(profile, workload=type(profile.workload)(
            [job.with_changes(map_time=job.map_time * scale, reduce_time=job.reduce_time * scale)
             for job in profile.workload], name=profile.workload.name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        checked = spark_batch(_application(checked_log))
    predicted = predicted_run(profile, checked_log)
    rows = _batch_only(checked.recorded)
    found = _errors([(row["job"], predicted[row["job"]] / row["runtime"] - 1) for row in rows])
    found["mean_predicted"] = statistics.fmean(predicted[row["job"]] for row in rows)
    found["mean_recorded"] = statistics.fmean(row["runtime"] for row in rows)
    return found


def speed_scaled_errors(fitted_log: Path, checked_log: Path) -> dict[str, Any]:
    """`prediction_errors` with the fitted profile's task times scaled by the runs' ratio of task
    work (`task_overheads`'s ``work`` of ``checked_log`` over ``fitted_log``'s; ``ratio``): how
    much of the error is the second run being faster or slower as a whole, which a prediction
    cannot know. A diagnosis, not a prediction."""
    ratio = task_overheads(checked_log)["work"] / task_overheads(fitted_log)["work"]
    return {**prediction_errors(fitted_log, checked_log, scale=ratio), "ratio": ratio}


def plan_export(fitted_log: Path, folder: Path, *, objective: str = "mean_response") -> dict[str, Any]:
    """The spark target's plan for the batch of ``fitted_log``'s run, with the profiles fitted on it
    (`planner.io.spark.fitting.fit_spark`; the warm-up job left out, submission times counted from
    the batch's first), exported into ``folder`` (`planner.io.targets.export_plan`, target "spark":
    fairscheduler.xml, spark-defaults.conf, submit.py); returns the plan and what
    `run_engine_batch` takes to run it as exported: ``conf`` (spark-defaults.conf, the allocation
    file's path made absolute), ``script`` (submit.py's text), ``rows`` (its schedule), ``mode``."""
    from planner.io.spark.conf import read_spark_defaults
    from planner.io.spark.logs import spark_batch
    from planner.io.targets import export_plan
    from planner.planning.deploy import plan_for_target

    profile = fitted_profile(fitted_log)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = spark_batch(_application(fitted_log)).cluster
        jobs = list(profile.workload)
        first = min(job.submit for job in jobs)
        workload = type(profile.workload)([job.with_changes(submit=round(job.submit - first, 3))
                                           for job in jobs], name=profile.workload.name)
        plan = plan_for_target(workload, cluster, "spark", objective=objective)
        export_plan(plan, workload, cluster, "spark", folder)
    conf = read_spark_defaults(folder / "spark-defaults.conf")
    allocation = conf.get("spark.scheduler.allocation.file")
    if allocation and not Path(allocation.removeprefix("file:")).is_absolute():
        conf["spark.scheduler.allocation.file"] = str(folder / allocation)
    script = (folder / "submit.py").read_text(encoding="utf-8")
    namespace: dict[str, Any] = {}
    exec(compile(script, "submit.py", "exec"), namespace)  # the exported script's SCHEDULE
    return {"plan": plan, "conf": conf, "script": script, "rows": namespace["SCHEDULE"],
            "mode": conf.get("spark.scheduler.mode", "FIFO")}


@contextlib.contextmanager
def _guarded(rows: list[Row], instance: str, method: str) -> Iterator[None]:
    """Run a hook; a part of batchplan it needs that is missing (an import) or refuses the logs (a
    `PlannerError`) makes a "skipped" row with the reason, and the other rows are kept."""
    try:
        yield
    except (ImportError, PlannerError) as error:
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
    real: dict[str, float] = {}
    settings = {"executors": EXECUTORS, "cores": CORES, "memory_mb": MEMORY_MB, "compression": "zstd",
                "timeout": TIMEOUT, "warmup": True, "warmup_seconds": WARMUP_SECONDS}
    exported: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as scratch:
        configurations: list[tuple[str, dict[str, Any]]] = [
            ("FIFO", {"schedule_rows": schedule_rows(jobs, pools=False), "mode": "FIFO"}),
            (REVERSED, {"schedule_rows": schedule_rows(jobs, pools=False, reverse=True), "mode": "FIFO"}),
            ("FAIR", {"schedule_rows": schedule_rows(jobs, pools=True), "mode": "FAIR", "pools": POOLS}),
        ]
        for configuration, arguments in configurations:
            started = time.perf_counter()
            engine_run = run_engine_batch(jobs, log_dir=Path(scratch) / configuration, app_name=f"bench-{configuration}",
                                          **arguments, **settings)
            logs[configuration] = _keep_log(engine_run, configuration)
            real[configuration] = engine_run.mean_response
            rows.append(_run_row(configuration, instance, engine_run, logs[configuration],
                                 task_overheads(logs[configuration])))
            print(f"{configuration}: {time.perf_counter() - started:.1f} s", flush=True)
        with _guarded(rows, instance, "plan"):
            exported = plan_export(logs["FIFO"], Path(scratch) / "export")
            engine_run = run_engine_batch(jobs, exported["rows"], log_dir=Path(scratch) / "plan", mode=exported["mode"],
                                          script=exported["script"], conf=exported["conf"], app_name="bench-plan",
                                          **settings)
            logs["plan"] = _keep_log(engine_run, "plan")
            exported_pools = Path(scratch) / "export" / "fairscheduler.xml"
            if exported_pools.exists():  # the plan's pools, for its replay
                shutil.copyfile(exported_pools, LOGS / "plan.fairscheduler.xml")
            real["plan"] = engine_run.mean_response
            rows.append(_run_row("plan", instance, engine_run, logs["plan"], task_overheads(logs["plan"])))
    for configuration, log in logs.items():
        with _guarded(rows, instance, f"replay {configuration}"):
            found = replay_errors(log)
            meets = found["median"] <= REPLAY_MEDIAN_FLOOR and found["worst"] <= REPLAY_WORST_FLOOR
            detail = (f"{found['jobs']} jobs; median {found['median']:.1%}, worst {found['worst']:.1%} "
                      f"({found['worst_job']}); floors: median <= 5%, worst <= 15%")
            rows.append(Row(NAME, instance, f"replay {configuration}", round(found["median"], 4), None, None, 0.0,
                            "ok" if meets else "above a floor", 1, detail=detail,
                            floor_objective=REPLAY_MEDIAN_FLOOR))
    predicted: dict[str, float] = {}
    for configuration in logs:
        with _guarded(rows, instance, f"prediction FIFO -> {configuration}"):
            found = prediction_errors(logs["FIFO"], logs[configuration])
            predicted[configuration] = found["mean_predicted"]
            detail = (f"{found['jobs']} jobs; worst {found['worst']:.1%} ({found['worst_job']}); mean response "
                      f"predicted {found['mean_predicted']:.1f} s, real {found['mean_recorded']:.1f} s; ")
            if configuration == "FIFO":  # the run the profiles come from: the model's own error, no floor
                rows.append(Row(NAME, instance, "prediction FIFO -> FIFO (fitted on it)", round(found["median"], 4),
                                None, None, 0.0, "ok", 1, detail=detail + "no floor: the run fitted"))
                continue
            scaled = speed_scaled_errors(logs["FIFO"], logs[configuration])
            detail += (f"scaled by the runs' task work ({scaled['ratio']:.3f}): median {scaled['median']:.1%}; "
                       "floor: median <= 10%")
            rows.append(Row(NAME, instance, f"prediction FIFO -> {configuration}", round(found["median"], 4), None,
                            None, 0.0, "ok" if found["median"] <= PREDICTION_MEDIAN_FLOOR else "above the floor", 1,
                            detail=detail, floor_objective=PREDICTION_MEDIAN_FLOOR))
    ranked = ("FIFO", "FAIR", "plan")  # the configurations of one order; the reversed FIFO is another batch
    if all(c in predicted and c in real for c in ranked):
        by_real = sorted(ranked, key=real.__getitem__)
        by_predicted = sorted(ranked, key=predicted.__getitem__)
        detail = (f"mean response real {', '.join(f'{c} {real[c]:.1f} s' for c in by_real)}; predicted from the FIFO "
                  f"run's profiles {', '.join(f'{c} {predicted[c]:.1f} s' for c in by_predicted)}")
        rows.append(Row(NAME, instance, "ranking", None, None, None, 0.0,
                        "ok" if by_real == by_predicted else "ranks differ", 1, detail=detail))
    if "plan" in real and exported:
        simulated = exported["plan"].simulated
        configured = next(c for c in simulated["candidates"] if c["setup"] == "as configured")
        predicted_gain = configured["mean"] - simulated["mean"]
        real_gain = real["FIFO"] - real["plan"]
        meets = predicted_gain <= 0 or real_gain >= predicted_gain / 2
        detail = (f"plan: {simulated['chosen']} ({'keep' if simulated['keep'] else 'apply'}); mean response gain "
                  f"over the configuration as it is (Spark's FIFO): predicted {predicted_gain:.1f} s (simulated), "
                  f"real {real_gain:.1f} s; floor: real >= half the predicted")
        rows.append(Row(NAME, instance, "plan gain", round(real_gain, 3), None, None, 0.0,
                        "ok" if meets else "below the floor", 1, detail=detail))
    return rows
