"""The verbs that read measurements and traces: import and fit (thin shells over `planner.io`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

# Only light modules here: `planner --help` must not import NumPy, scikit-learn, pyomo or the
# simulator (tests/test_layout.py); each command imports what it runs.
from models.checks import as_int, shown
from models.errors import InvalidInput
from models.fileio import csv_text, file_format, write_atomic
from models.limits import MAX_JOBS
from planner.cli.choices import SWIM_SETTINGS, TRACE_FORMATS
from planner.cli.console import (
    JsonFlag,
    Section,
    check_output_file,
    emit,
    parse_pair,
    working,
)

#: The registered trace importers (`planner.io.importers`), as click choices.
TraceFormat = StrEnum("TraceFormat", {name: name for name in TRACE_FORMATS})  # type: ignore[misc]


class CsvKind(StrEnum):
    runtimes = "runtimes"
    tasks = "tasks"
    spark = "spark"


class OverheadStatistic(StrEnum):
    median = "median"
    mean = "mean"


def _swim_settings(settings: list[str]) -> dict[str, float]:
    known = set(SWIM_SETTINGS)
    values: dict[str, float] = {}
    for item in settings:
        name, sep, text = item.partition("=")
        if not sep or name not in known:
            raise InvalidInput(
                "--set", f"expected NAME=VALUE with NAME one of {', '.join(sorted(known))}; got {shown(item)}"
            )
        try:
            if len(text) > 40:  # not a number anyone means; float() of it may take long
                raise ValueError
            values[name] = float(text)
        except ValueError:
            raise InvalidInput(f"--set {name}", f"must be a number, got {shown(text)}") from None
    from planner.io.swim import SwimConversion

    try:
        SwimConversion(**values)  # checked here to name the option
    except InvalidInput as error:
        raise InvalidInput(f"--set {error.field}", error.problem) from None
    return values


def _check_output(path: Path) -> None:
    try:
        file_format(path)
    except InvalidInput as error:
        raise InvalidInput("--output", error.problem, source=str(path)) from None
    check_output_file(path)


def import_trace(
    trace: Annotated[TraceFormat, typer.Argument(metavar="FORMAT", help=f"Trace format: {', '.join(TRACE_FORMATS)}.")],
    files: Annotated[list[Path], typer.Argument(metavar="FILE...", help="The trace file (spark: one or more event "
                                                                          "logs, files or rolling folders).")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Workload file to write (.yaml or .json).")
    ] = None,
    cluster_output: Annotated[
        Path | None, typer.Option("--cluster-output", help="Spark: also write the executors as a cluster file.")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="SWIM: keep the first N jobs.")] = None,
    window: Annotated[
        str | None, typer.Option(help="SWIM: keep the jobs submitted in START,END seconds (counted from START).")
    ] = None,
    setting: Annotated[list[str] | None, typer.Option("--set", help="SWIM conversion NAME=VALUE (see docs).")] = None,
    keep_failed: Annotated[
        bool, typer.Option("--keep-failed", help="Rumen: keep jobs whose outcome is not SUCCESS.")
    ] = False,
    tasks_csv: Annotated[Path | None, typer.Option(help="Rumen: also write every task attempt as CSV.")] = None,
    split_output: Annotated[
        bool, typer.Option("--split-output/--no-split-output",
                           help="SWIM: a map-only job gets a map per block of its output (the default).")
    ] = True,
    seed: Annotated[int | None, typer.Option(help="SYNTH: the seed (default: the file's rand_seed).")] = None,
    trace_file: Annotated[
        str | None, typer.Option("--trace", help="Oozie: the trace of the jobs' profiles, FILE (Rumen) or FORMAT:FILE.")
    ] = None,
    match: Annotated[
        list[str] | None, typer.Option("--map", help="Oozie: ACTION=TRACEJOB, or a YAML/JSON file of them; repeatable.")
    ] = None,
    properties: Annotated[
        Path | None, typer.Option(help="Oozie: job.properties, the values of ${NAME} in queues and app-paths.")
    ] = None,
    sub_workflow: Annotated[
        list[str] | None, typer.Option("--sub-workflow", help="Oozie: ACTION=FILE, the local workflow a "
                                                              "sub-workflow action runs; repeatable.")
    ] = None,
    default_job: Annotated[
        str | None, typer.Option(help="Oozie: MAPS,MAP_SECONDS[,REDUCES,REDUCE_SECONDS] for actions no trace job "
                                      "matches.")
    ] = None,
    pipelines: Annotated[
        float | None, typer.Option(metavar="FRACTION", help="Make this fraction of the jobs wait for an earlier "
                                                            "job of their pool (planner.io.pipelines).")
    ] = None,
    pipeline_seed: Annotated[int, typer.Option(help="With --pipelines: the seed of the draws.")] = 0,
    json_output: JsonFlag = False,
) -> None:
    """Import a public trace as a workload file.

    Example: planner import swim FB-2009_samples_24_times_1hr_0.tsv -o fb2009.yaml

    Example: planner import oozie workflow.xml --trace rumen:trace.json --properties job.properties -o w.yaml

    Example: planner import spark app-1.zstd eventlog_v2_app-2 -o batch.yaml --cluster-output cluster.yaml
    """
    from planner.io.importers import read_trace
    from planner.io.json_traces import rumen_task_records
    from planner.io.summary import outliers, workload_summary

    if output is not None:
        _check_output(output)
    if cluster_output is not None:
        if trace.value != "spark":
            raise InvalidInput("--cluster-output", "only Spark event logs name their cluster (the executors)")
        _check_output(cluster_output)
    if len(files) > 1 and trace.value != "spark":
        raise InvalidInput("FILE", f"{trace.value} traces are read one file at a time, got {len(files)} files")
    file = files[0]
    if limit is not None:
        as_int(limit, "--limit", minimum=1, maximum=MAX_JOBS)
    check_output_file(tasks_csv, "--tasks-csv")
    if tasks_csv is not None and trace.value != "rumen":  # before the trace is read
        raise InvalidInput("--tasks-csv", "only Rumen traces carry task attempts")
    options = {"limit": limit, **_swim_settings(setting or []), "keep_failed": keep_failed or None,
               "window": parse_pair(window, "--window", float, "0,3600"),
               "split_output": None if split_output else False, "seed": seed,
               **_oozie_options(trace_file, match, properties, sub_workflow, default_job)}
    with working(f"importing {file.name}" + (f" and {len(files) - 1} more" if len(files) > 1 else "")):
        try:
            if trace.value == "spark":
                workload = _import_spark(files, options, cluster_output)
            else:
                workload = read_trace(trace.value, file, **{k: v for k, v in options.items() if v is not None})
        except InvalidInput as error:  # an option the format does not take
            flag = ("--set " + error.field if error.field in SWIM_SETTINGS else "--no-split-output"
                    if error.field == "split_output" else _OOZIE_FLAGS.get(error.field)
                    or f"--{error.field.replace('_', '-')}")
            if error.field in options and error.problem.startswith("is not an option of"):
                raise InvalidInput(flag, f"{trace.value} traces take no such option") from None
            if error.field in _OOZIE_FLAGS:  # an Oozie option given, and wrong
                raise InvalidInput(_OOZIE_FLAGS[error.field], error.problem, source=error.source) from None
            head, dot, rest = error.field.partition(".")
            if head in _OOZIE_FLAGS and dot:  # a --map or --sub-workflow entry
                raise InvalidInput(f"{_OOZIE_FLAGS[head]} {rest}", error.problem, source=error.source) from None
            raise
    if pipelines is not None:
        from planner.io.pipelines import add_pipelines

        try:
            workload = add_pipelines(workload, pipelines, seed=pipeline_seed)
        except InvalidInput as error:
            flag = {"fraction": "--pipelines", "seed": "--pipeline-seed"}.get(error.field)
            raise (InvalidInput(flag, error.problem) if flag else error) from None
    if tasks_csv is not None:
        write_atomic(tasks_csv, csv_text(rumen_task_records(file), ("job", "kind", "start", "end")))
    if output is not None:
        workload.to_file(output)
    emit([Section("workload", f"imported {', '.join(f.name for f in files)}", [workload_summary(workload)], one=True),
          Section("outliers", "jobs to check (a task over an hour, or a map and a reduce over a day)",
                  outliers(workload))], as_json=json_output)


def _import_spark(files: list[Path], options: dict[str, object], cluster_output: Path | None) -> object:
    """Spark event logs as a workload (and, with ``cluster_output``, their executors as a cluster file)."""
    from planner.io.spark.logs import read_spark_batch

    given = sorted(name for name, value in options.items() if value is not None)
    if given:
        raise InvalidInput(given[0], "is not an option of the spark importer (it takes: none)")
    batch = read_spark_batch(files)
    if cluster_output is not None:
        batch.cluster.to_file(cluster_output)
    return batch.workload


#: read_oozie's options and the flags that give them.
_OOZIE_FLAGS = {"trace": "--trace", "trace_format": "--trace", "matches": "--map", "properties": "--properties",
                "sub_workflows": "--sub-workflow", "default_job": "--default-job"}


def _oozie_options(trace: str | None, match: list[str] | None, properties: Path | None,
                   sub_workflow: list[str] | None, default_job: str | None) -> dict[str, object]:
    """The Oozie importer's options from its flags (None: not given)."""
    options: dict[str, object] = {"properties": properties}
    if trace is not None:
        head, colon, rest = trace.partition(":")
        if colon and head in TRACE_FORMATS:
            options["trace"], options["trace_format"] = rest, head
        else:
            options["trace"] = trace
    if match:
        options["matches"] = _pairs(match, "--map", "ACTION=TRACEJOB", files=True)
    if sub_workflow:
        options["sub_workflows"] = _pairs(sub_workflow, "--sub-workflow", "ACTION=FILE", files=False)
    if default_job is not None:
        from models.job import Job

        parts = default_job.split(",")
        if len(parts) not in (2, 4) or any(len(part) > 40 for part in parts):
            raise InvalidInput("--default-job", f"must be MAPS,MAP_SECONDS or MAPS,MAP_SECONDS,REDUCES,REDUCE_SECONDS,"
                                                f" e.g. 4,30,1,60; got {shown(default_job)}")
        try:
            numbers = [float(part) for part in parts]
        except ValueError:
            raise InvalidInput("--default-job", f"must be numbers, got {shown(default_job)}") from None
        counts = [int(number) if number.is_integer() else number for number in numbers[::2]]
        try:
            options["default_job"] = Job("default", counts[0], counts[1] if len(counts) > 1 else 0, numbers[1],
                                         numbers[3] if len(numbers) > 3 else 0.0)
        except InvalidInput as error:
            raise InvalidInput(f"--default-job {error.field}", error.problem) from None
    return options


def _pairs(items: list[str], flag: str, form: str, *, files: bool) -> dict[str, str]:
    """``NAME=VALUE`` items (and, with ``files``, YAML/JSON files of such a mapping) as one mapping;
    a name given twice is refused."""
    from models.fileio import read_mapping

    found: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if sep:
            entries = {name.strip(): value.strip()}
        elif files:
            entries = read_mapping(item)
        else:
            raise InvalidInput(flag, f"expected {form}, got {shown(item)}")
        for key, text in entries.items():
            if not isinstance(key, str) or not key or not isinstance(text, str) or not text:
                raise InvalidInput(flag, f"expected {form} (names, not empty), got {shown(key)}: {shown(text)}")
            if key in found:
                raise InvalidInput(f"{flag} {key}", f"given twice ({found[key]!r} and {text!r})")
            found[key] = text
    return found


def fit(
    files: Annotated[list[Path], typer.Argument(metavar="FILE...", help="runtimes.csv (job,nodes,runtime), tasks.csv (job,kind,start,end) or Spark event logs (one or more); with --wave, a workload.")],
    kind: Annotated[
        CsvKind | None, typer.Option(help="Force the input kind instead of reading it off the header.")
    ] = None,
    workload: Annotated[
        Path | None, typer.Option(help="Runtimes: attach the profiles to this workload's jobs.")
    ] = None,
    wave: Annotated[
        bool, typer.Option("--wave", help="FILE is a workload: derive a runtime profile from the tasks of every "
                                          "job without one (the wave model on the --cluster's VMs).")
    ] = False,
    cluster: Annotated[Path | None, typer.Option("--cluster", "-c", help="With --wave: the cluster file.")] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Workload file to write (.yaml or .json).")
    ] = None,
    overhead: Annotated[
        OverheadStatistic, typer.Option(help="Spark: the per-task overhead added to the work, its median or mean.")
    ] = OverheadStatistic.median,
    profile_output: Annotated[
        Path | None, typer.Option("--profile-output", help="Spark: also write the profile (work and overheads, "
                                                           ".yaml or .json).")
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option("--job", help="Spark: fit only this job of the logs, as the import names "
                                                      "it (repeat the option; the others are left out of the "
                                                      "workload and of the overheads).")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Fit power-law runtime profiles, map/reduce phase profiles, or Spark work and overheads.

    Example: planner fit runtimes.csv -o profiled.yaml

    Example: planner fit trace.yaml --wave -c cluster.yaml -o profiled.yaml

    Example: planner fit app-1.zstd --profile-output spark-profile.yaml -o calibrated.yaml
    """
    from models.workload import Workload
    from planner.io.fitting import csv_kind, fit_runtimes, fit_tasks, read_csv_rows, runtime_workload, task_workload
    from planner.io.summary import phase_records

    if output is not None:
        _check_output(output)
    if kind == CsvKind.spark or (kind is None and not wave and _is_event_log(files[0])):
        _fit_spark(files, workload, output, overhead.value, profile_output, only, json_output)
        return
    if profile_output is not None:
        raise InvalidInput("--profile-output", "applies to Spark event logs only")
    if only:
        raise InvalidInput("--job", "applies to Spark event logs only")
    if len(files) > 1:
        raise InvalidInput("FILE", f"fits read one file unless they are Spark event logs, got {len(files)} files")
    file = files[0]
    if wave:
        _fit_wave(file, cluster, kind, workload, output, json_output)
        return
    if kind is None:
        header, _ = read_csv_rows(file)
        try:
            detected = csv_kind(header)
        except InvalidInput as error:
            raise error.in_file(str(file)) from None
    else:
        detected = kind.value
    if detected == "runtimes":
        fits = fit_runtimes(file)
        base = Workload.from_file(workload) if workload is not None else None
        try:
            result = runtime_workload(fits, base)
        except InvalidInput as error:  # a job of the runtimes file that the workload lacks
            raise InvalidInput(error.field, f"{error.problem} {workload}", source=str(file)) from None
        emit([Section("profiles", f"power-law profiles from {file.name}", [f.record() for f in fits])],
             as_json=json_output)
    else:
        if workload is not None:
            raise InvalidInput("--workload", "applies to runtimes files only")
        result = task_workload(fit_tasks(file), file)
        emit([Section("profiles", f"phase profiles from {file.name}", phase_records(result))], as_json=json_output)
    if output is not None:
        result.to_file(output)


def _is_event_log(path: Path) -> bool:
    """A rolling folder, a file with a Spark codec's suffix, or one that starts with a listener event."""
    from planner.io.spark.events import CODECS

    if path.is_dir() or path.name.removesuffix(".inprogress").rpartition(".")[2] in {c[1:] for c in CODECS}:
        return True
    try:
        with path.open("rb") as handle:
            return handle.read(64).lstrip().startswith(b'{"Event"')
    except OSError:
        return False


def _fit_spark(files: list[Path], workload: Path | None, output: Path | None, statistic: str,
               profile_output: Path | None, only: list[str] | None, json_output: bool) -> None:
    from models.fileio import dump_mapping
    from models.workload import Workload
    from planner.io.spark.fitting import fit_spark, with_overheads

    if profile_output is not None:
        _check_output(profile_output)
    try:
        profile = fit_spark(files, statistic=statistic, jobs=only or None)
    except InvalidInput as error:
        if error.field != "jobs":
            raise
        raise InvalidInput("--job", error.problem) from None
    result = profile.workload if workload is None else with_overheads(Workload.from_file(workload), profile)
    title = files[0].name + (f" and {len(files) - 1} more" if len(files) > 1 else "")
    emit([Section("overheads", f"per-task overhead by Spark task kind in {title} (s)", list(profile.overheads)),
          Section("jobs", f"work and {statistic} overhead per task (s)", list(profile.jobs))], as_json=json_output)
    if profile_output is not None:
        dump_mapping(profile.to_dict(), profile_output)
    if output is not None:
        result.to_file(output)


def _fit_wave(file: Path, cluster: Path | None, kind: object, workload: Path | None, output: Path | None,
              json_output: bool) -> None:
    from models.cluster import Cluster
    from models.profiles.derived import with_wave_profiles
    from models.workload import Workload

    if cluster is None:
        raise InvalidInput("--cluster", "--wave needs the cluster the jobs will run on")
    if kind is not None or workload is not None:
        raise InvalidInput("--wave", "takes a workload file; --kind and --workload are for CSV files")
    machines = Cluster.from_file(cluster)
    profiled, derived = with_wave_profiles(Workload.from_file(file), machines)
    names = set(derived)
    rows = [{"job": job.name, "a": job.profile.a_, "b": job.profile.b_, "vms": machines.vms,
             "runtime_1": job.runtime(1), "runtime_n": job.runtime(machines.vms)}
            for job in profiled if job.name in names]
    emit([Section("profiles", f"wave-model profiles of {len(derived)} of {len(profiled)} jobs in {file.name}",
                  rows)], as_json=json_output)
    if output is not None:
        profiled.to_file(output)
