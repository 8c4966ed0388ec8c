"""A real Spark engine, started from the pip package: batches run on it and leave event logs.

`run_engine_batch` starts a Spark ``local-cluster[E,C,M]`` (E executors of C cores and M MB, each
executor a JVM of its own, launched by an in-process standalone master and workers: Spark's real
scheduler, shuffle and executors, in one process tree) with a driver in a subprocess
(`planner.proof.spark_driver`, one SparkContext per process), runs the planned submissions with
the submission script an export ships (`planner.io.spark.submit.submission_script`, or the text
of an exported ``submit.py``), and returns an `EngineRun`: the event log's path, the per-job
times the script reports and the run's wall times.

The engine is bound to 127.0.0.1 (``SPARK_LOCAL_IP``, the driver's host and bind address), the web
UI is off, the event log is enabled and written uncompressed as one file by default
(``compression="zstd"`` and ``rolling=True`` give Spark 4's own defaults). The driver's process
group (the driver's JVM, the executors and their Python workers) is killed when the run ends, times
out or is interrupted, and the scratch folder (the driver's spec, the script, Spark's local and
work folders) is removed; only the event log stays, in ``log_dir``. local-cluster mode writes its
workers' folders under ``SPARK_HOME/work``: the run points ``SPARK_HOME`` at a scratch folder of
links to the pyspark package's own, so nothing is written into the installed package.

Requirements: pyspark (the ``spark`` extra) and Java 17 or 21 (`spark_available` says what is
missing). Starting takes 15-40 s (the JVMs); the engine takes about 300 MB for the driver's JVM and
about 260 MB per executor, plus the Python workers.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

from models.checks import as_bool, as_float, as_int, as_items, as_path, as_str, as_str_mapping
from models.errors import InvalidInput, PlannerError

#: The kinds of engine job (`EngineJob.kind`).
ENGINE_JOB_KINDS = ("sort", "wordcount", "sleep")
#: Spark's scheduling modes.
SPARK_MODES = ("FIFO", "FAIR")
#: The codecs Spark writes an event log with (`spark.eventLog.compression.codec`).
EVENT_LOG_CODECS = ("zstd", "lz4", "snappy", "lzf")
#: The Java feature releases Spark 4 runs on.
JAVA_RELEASES = (17, 21)
#: Properties the engine sets itself: a caller's value for one is replaced (with a warning).
ENGINE_PROPERTIES = (
    "spark.master", "spark.app.name", "spark.driver.host", "spark.driver.bindAddress", "spark.ui.enabled",
    "spark.eventLog.enabled", "spark.eventLog.dir", "spark.eventLog.compress",
    "spark.eventLog.compression.codec", "spark.eventLog.rolling.enabled", "spark.local.dir",
    "spark.executor.cores", "spark.executor.memory", "spark.cores.max", "spark.driver.memory",
)
#: The most tasks of one stage of an engine job (`EngineJob.maps`, `EngineJob.reduces`).
MAX_ENGINE_TASKS = 10_000
#: The most records (words) one map task of an engine job generates.
MAX_ENGINE_RECORDS = 100_000_000
#: The most seconds a sleep job's task sleeps.
MAX_ENGINE_SLEEP = 3600.0
#: The most executors, cores per executor, and the executor memory range (MB) of a local-cluster.
MAX_EXECUTORS, MAX_EXECUTOR_CORES, MIN_EXECUTOR_MB, MAX_EXECUTOR_MB = 16, 64, 256, 65_536
#: Seconds the engine's processes get to end after SIGTERM before SIGKILL.
STOP_GRACE_SECONDS = 5.0
#: How often the run samples the memory of its processes (seconds).
MEMORY_SAMPLE_SECONDS = 1.0
#: The most seconds of a steady warm-up (`run_engine_batch`'s ``warmup_seconds``).
MAX_WARMUP_SECONDS = 600.0


class SparkEngineError(PlannerError):
    """The engine could not run the batch: Java or pyspark missing, the driver failed, a timeout."""


def java_release(java: str = "java") -> int | None:
    """The feature release of ``java`` (17 for "17.0.15"), or None when it cannot be run."""
    try:
        done = subprocess.run(  # noqa: S603  # the machine's java, asked its version
            [java, "-version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r'version "(\d+)(?:\.(\d+))?', done.stderr + done.stdout)
    if not found:
        return None
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major


def java_problem() -> str | None:
    """None when a Java that Spark 4 runs on (17 or 21) is here; else what is wrong. The Java is
    ``$JAVA_HOME/bin/java`` when JAVA_HOME is set, else the ``java`` on the PATH."""
    java_home = os.environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
    if not java or not os.path.exists(java):
        where = f"JAVA_HOME={java_home} has no bin/java" if java_home else "no java on the PATH"
        return f"{where} (Spark 4 needs Java 17 or 21: apt-get install openjdk-17-jre-headless)"
    release = java_release(java)
    if release not in JAVA_RELEASES:
        return f"{java} is Java {release}; Spark 4 needs Java 17 or 21"
    return None


def pyspark_problem() -> str | None:
    """None when pyspark is installed (found, not imported); else what to install."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install 'batchplan[spark]')"
    return None


def spark_available() -> str | None:
    """None when a real engine can start here; else why not: no Java, an unsupported Java
    (`java_problem`), or no pyspark (`pyspark_problem`)."""
    return java_problem() or pyspark_problem()


@dataclass(frozen=True)
class EngineJob:
    """One job of real work for the engine: a map stage of ``maps`` tasks and a result stage of
    ``reduces`` tasks, with a shuffle between them (`planner.proof.spark_driver` says what each
    kind does). ``records`` is per map task (sort: key-value records; wordcount: words);
    ``seconds`` and ``reduce_seconds`` are a sleep job's task times (``reduce_seconds`` defaults
    to ``seconds``). ``seed`` makes the generated data, the same for the same seed."""

    name: str
    kind: str
    maps: int = 4
    reduces: int = 2
    records: int = 20_000
    seconds: float = 0.0
    reduce_seconds: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        as_str(self.name, "name")
        as_str(self.kind, f"{self.name}.kind", choices=ENGINE_JOB_KINDS)
        as_int(self.maps, f"{self.name}.maps", minimum=1, maximum=MAX_ENGINE_TASKS)
        as_int(self.reduces, f"{self.name}.reduces", minimum=1, maximum=MAX_ENGINE_TASKS)
        as_int(self.records, f"{self.name}.records", minimum=1 if self.kind != "sleep" else 0,
               maximum=MAX_ENGINE_RECORDS)
        as_float(self.seconds, f"{self.name}.seconds", minimum=0.0, maximum=MAX_ENGINE_SLEEP)
        if self.reduce_seconds is not None:
            as_float(self.reduce_seconds, f"{self.name}.reduce_seconds", minimum=0.0, maximum=MAX_ENGINE_SLEEP)
        as_int(self.seed, f"{self.name}.seed", minimum=0)
        if self.kind == "sleep" and self.seconds <= 0 and not self.reduce_seconds:
            raise InvalidInput(f"{self.name}.seconds", "a sleep job needs seconds > 0")

    def spec(self) -> dict:
        """The job as the driver reads it."""
        data = asdict(self)
        data["reduce_seconds"] = self.seconds if self.reduce_seconds is None else self.reduce_seconds
        return data


@dataclass(frozen=True)
class EngineJobRun:
    """One job of a run, as the submission script reported it: ``status`` (done, failed, skipped,
    cancelled), and in seconds from the batch's start ``submitted`` (when it was due: its submit
    time or its last awaited job's end plus the delay), ``started`` (its actions called) and
    ``finished``; ``error`` when it did not succeed."""

    job: str
    pool: str
    status: str
    submitted: float | None
    started: float | None
    finished: float | None
    error: str | None

    @property
    def response(self) -> float | None:
        """Seconds from due to finished (None when it did not run)."""
        if self.submitted is None or self.finished is None:
            return None
        return self.finished - self.submitted


@dataclass(frozen=True)
class EngineRun:
    """A batch run on the real engine: the event log, the jobs (in the schedule's order) and the
    run's times in seconds: ``context_seconds`` to a SparkContext, ``ready_seconds`` until the
    batch could start (every executor registered and the warm-up done), ``batch_seconds`` the batch itself (from its start to the last job's end),
    ``wall_seconds`` the whole run (start-up, batch, stop); ``peak_rss_mb`` the largest sampled
    resident memory of all the engine's processes together; ``allocation_file`` the
    fairscheduler.xml the run used (written next to the event log when ``pools`` were given);
    ``warmup_rounds`` the seconds of each round of a steady warm-up (``warmup_seconds``);
    ``gate_end`` the end of the gate (``gate_seconds``), in seconds from the batch's start, and
    ``gate_held`` whether its tasks held every core before the first submission. With a gate the
    batch is released at once: a job's response counts from when it was due or the gate's end,
    whichever is later (`released`)."""

    event_log: Path
    application_id: str
    mode: str
    master: str
    jobs: tuple[EngineJobRun, ...]
    context_seconds: float
    ready_seconds: float
    batch_seconds: float
    wall_seconds: float
    peak_rss_mb: float
    allocation_file: Path | None = None
    warmup_rounds: tuple[float, ...] = ()
    gate_end: float | None = None
    gate_held: bool | None = None

    def released(self, job: EngineJobRun) -> float | None:
        """When ``job`` could first run (seconds from the batch's start): when it was due, or the
        gate's end when that is later; None when it was never due."""
        if job.submitted is None:
            return None
        return job.submitted if self.gate_end is None else max(job.submitted, self.gate_end)

    @property
    def responses(self) -> dict[str, float]:
        """Each finished job's response: finished - `released` (seconds)."""
        found = {}
        for job in self.jobs:
            start = self.released(job)
            if job.status == "done" and job.finished is not None and start is not None:
                found[job.job] = job.finished - start
        return found

    @property
    def makespan(self) -> float:
        """The last job's end, in seconds from the batch's start (the jobs that ran)."""
        ends = [job.finished for job in self.jobs if job.finished is not None]
        return max(ends) if ends else 0.0

    @property
    def mean_response(self) -> float:
        """The mean of `responses` (seconds; NaN when no job finished)."""
        responses = list(self.responses.values())
        return sum(responses) / len(responses) if responses else math.nan

    @property
    def succeeded(self) -> bool:
        return all(job.status == "done" for job in self.jobs)


def fair_scheduler_xml(pools: Mapping[str, Mapping[str, object]]) -> str:
    """A fairscheduler.xml for ``pools``: name -> {"weight", "minShare", "schedulingMode"}
    (defaults 1, 0, "FIFO", as Spark's)."""
    lines = ['<?xml version="1.0"?>', "<allocations>"]
    for name, pool in pools.items():
        as_str(name, "pools key")
        settings = dict(pool)
        unknown = set(settings) - {"weight", "minShare", "schedulingMode"}
        if unknown:
            raise InvalidInput(f"pools.{name}.{sorted(unknown)[0]}", "unknown key; expected one of minShare, "
                               "schedulingMode, weight")
        mode = as_str(settings.get("schedulingMode", "FIFO"), f"pools.{name}.schedulingMode", choices=SPARK_MODES)
        weight = as_int(settings.get("weight", 1), f"pools.{name}.weight", minimum=0)
        share = as_int(settings.get("minShare", 0), f"pools.{name}.minShare", minimum=0)
        lines += [f"  <pool name={quoteattr(name)}>", f"    <schedulingMode>{mode}</schedulingMode>",
                  f"    <weight>{weight}</weight>", f"    <minShare>{share}</minShare>", "  </pool>"]
    lines += ["</allocations>", ""]
    return "\n".join(lines)


def _engine_home(scratch: Path) -> Path:
    """A SPARK_HOME of links to the pyspark package's folders, so that local-cluster's work
    folders go to scratch instead of the installed package."""
    import importlib.util

    found = importlib.util.find_spec("pyspark")
    if found is None or not found.submodule_search_locations:
        raise SparkEngineError("pyspark is not installed (pip install 'batchplan[spark]')")
    package = Path(next(iter(found.submodule_search_locations)))
    home = scratch / "spark-home"
    home.mkdir()
    for entry in package.iterdir():
        if entry.name not in ("work", "conf", "__pycache__"):
            (home / entry.name).symlink_to(entry)
    (home / "work").mkdir()
    return home


def _group_rss_mb(group: int) -> float:
    """The resident memory of the processes of process group ``group`` (Linux /proc; 0 elsewhere)."""
    total_pages = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
            if int(fields[2]) != group:
                continue
            with open(f"/proc/{entry}/statm", encoding="ascii") as stream:
                total_pages += int(stream.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _stop_group(process: subprocess.Popen) -> None:
    """End the driver's process group: SIGTERM, then SIGKILL after `STOP_GRACE_SECONDS`."""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sent)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while time.monotonic() < deadline:
            process.poll()
            if not _group_alive(process.pid):
                return
            time.sleep(0.1)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _properties(*, master: str, mode: str, allocation_file: str | None, executors: int, cores: int,
                memory_mb: int, log_dir: Path, local_dir: Path, compression: str | None, rolling: bool,
                app_name: str, conf: Mapping[str, str]) -> dict[str, str]:
    chosen = {"spark.scheduler.mode": mode, "spark.ui.showConsoleProgress": "false",
              "spark.master.rest.enabled": "false"}
    if allocation_file is not None:
        chosen["spark.scheduler.allocation.file"] = str(allocation_file)
    chosen.update(conf)
    owned = {
        "spark.master": master, "spark.app.name": app_name,
        "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1", "spark.ui.enabled": "false",
        "spark.eventLog.enabled": "true", "spark.eventLog.dir": log_dir.resolve().as_uri(),
        "spark.eventLog.compress": "true" if compression else "false",
        "spark.eventLog.rolling.enabled": "true" if rolling else "false",
        "spark.local.dir": str(local_dir), "spark.executor.cores": str(cores),
        "spark.executor.memory": f"{memory_mb}m", "spark.cores.max": str(executors * cores),
        "spark.driver.memory": f"{memory_mb}m",
    }
    if compression:
        owned["spark.eventLog.compression.codec"] = compression
    replaced = sorted(key for key in conf if key in owned and conf[key] != owned[key])
    if replaced:
        warnings.warn(f"the engine sets {', '.join(replaced)} itself; the values given were replaced",
                      stacklevel=3)
    chosen.update(owned)
    return chosen


def _event_log(log_dir: Path, application_id: str) -> Path:
    """The event log Spark wrote for ``application_id`` in ``log_dir`` (a file, or a rolling folder)."""
    for candidate in sorted(log_dir.iterdir()):
        name = candidate.name
        if name.endswith(".inprogress"):
            continue
        stem = name[len("eventlog_v2_"):] if name.startswith("eventlog_v2_") else name
        if stem == application_id or stem.split(".")[0] == application_id:
            return candidate
    raise SparkEngineError(f"{log_dir}: no event log for {application_id}")


#: The job group of the engine's warm-up job (`run_engine_batch`'s ``warmup``).
WARMUP_GROUP = "batchplan-warmup"
#: The job group of the gate that holds every core while the batch is submitted (``gate_seconds``).
GATE_GROUP = "batchplan-gate"


def run_engine_batch(
    jobs: Sequence[EngineJob],
    schedule_rows: Sequence[Mapping[str, object]],
    *,
    log_dir: str | os.PathLike,
    mode: str = "FIFO",
    allocation_file: str | os.PathLike | None = None,
    pools: Mapping[str, Mapping[str, object]] | None = None,
    script: str | None = None,
    conf: Mapping[str, str] | None = None,
    executors: int = 4,
    cores: int = 2,
    memory_mb: int = 512,
    compression: str | None = None,
    rolling: bool = False,
    app_name: str = "batchplan-engine",
    timeout: float = 900.0,
    warmup: bool = False,
    warmup_seconds: float = 0.0,
    gate_seconds: float = 0.0,
) -> EngineRun:
    """Run ``jobs`` on a fresh local-cluster of ``executors`` x ``cores`` cores (``memory_mb`` MB
    each, and the driver's) as ``schedule_rows`` plan them (`planner.io.spark.submit` rows: job,
    pool, submit, after), under ``mode`` ("FIFO" or "FAIR"). FAIR pools come from
    ``allocation_file`` (a fairscheduler.xml) or ``pools`` (written as one, `fair_scheduler_xml`,
    into ``log_dir`` as ``fairscheduler-*.xml``, where the event log's properties name it).
    ``script`` is the text of the submission script to run (an exported ``submit.py``); by default
    ``submission_script(schedule_rows)``. ``conf`` adds Spark properties (an exported
    spark-defaults.conf: `planner.io.spark.conf.read_spark_defaults`); the engine's own (`ENGINE_PROPERTIES`) win, with a
    warning. The event log is written to ``log_dir`` (created if missing): plain by default, or
    ``compression`` ("zstd", "lz4", "snappy", "lzf"), one file or ``rolling``. ``warmup`` runs
    jobs of `WARMUP_GROUP` before the batch: one of two tasks per core in two stages, so that every
    core has its Python worker and the shuffle code is loaded (a batch on cold executors pays some
    5 to 25 s on its first tasks, more under load), then a small one of each kind the batch has
    (sleeps aside), so that each kind's code is loaded; they are in the event log, in their group.
    ``warmup_seconds`` (with ``warmup``) then runs rounds of one job of each kind and size of the
    batch, at least two, until that many seconds have passed and a round's time is within 10% of the round
    before, or twice that many have passed (`planner.proof.spark_driver.warm_up`; at most 40
    rounds): the executors' JVMs compile
    their shuffle code over the first tens of seconds of work, and a batch measured before that
    runs its first tasks up to twice as slow as its last.
    ``gate_seconds`` (after the warm-up) starts a job of `GATE_GROUP` whose sleeping tasks hold every
    core for that long, and submits the batch behind it
    (`planner.proof.spark_driver.start_gate`): the driver's work to submit the jobs then happens
    while no task computes (on this machine it slowed a batch's first tasks about twofold), and the
    batch is released at once when the gate ends. It should outlast the submissions: a job due
    after the gate's end counts from when it was due (`EngineRun.released`).

    Raises `SparkEngineError` when Java or pyspark is missing, the driver fails, or the run takes
    more than ``timeout`` seconds (everything it started is stopped first), and `InvalidInput` for
    bad arguments."""
    from planner.io.spark.submit import submission_script

    checked = list(as_items(jobs, "jobs"))
    for index, job in enumerate(checked):
        if not isinstance(job, EngineJob):
            raise InvalidInput(f"jobs[{index}]", f"must be an EngineJob, got {type(job).__name__}")
    names = [job.name for job in checked]
    if len(set(names)) != len(names):
        raise InvalidInput("jobs", "job names must be unique")
    text = script if script is not None else submission_script(schedule_rows)
    as_str(text, "script")
    planned = [str(row.get("job")) for row in as_items(schedule_rows, "schedule_rows")]
    missing = [name for name in planned if name not in set(names)]
    if missing:
        raise InvalidInput("schedule_rows", f"no engine job for {', '.join(missing)}")
    mode = as_str(mode, "mode", choices=SPARK_MODES)
    executors = as_int(executors, "executors", minimum=1, maximum=MAX_EXECUTORS)
    cores = as_int(cores, "cores", minimum=1, maximum=MAX_EXECUTOR_CORES)
    memory_mb = as_int(memory_mb, "memory_mb", minimum=MIN_EXECUTOR_MB, maximum=MAX_EXECUTOR_MB)
    if compression is not None:
        as_str(compression, "compression", choices=EVENT_LOG_CODECS)
    timeout = as_float(timeout, "timeout", above=0.0)
    warmup = as_bool(warmup, "warmup")
    warmup_seconds = as_float(warmup_seconds, "warmup_seconds", minimum=0.0, maximum=MAX_WARMUP_SECONDS)
    if warmup_seconds and not warmup:
        raise InvalidInput("warmup_seconds", "needs warmup=True")
    gate_seconds = as_float(gate_seconds, "gate_seconds", minimum=0.0, maximum=MAX_WARMUP_SECONDS)
    extra = as_str_mapping(conf, "conf") if conf is not None else {}
    if extra.get("spark.scheduler.mode", mode) != mode:
        raise InvalidInput("conf", f"spark.scheduler.mode is {extra['spark.scheduler.mode']}, mode is {mode}: "
                                   "give one or make them agree")
    if pools is not None and allocation_file is not None:
        raise InvalidInput("pools", "give pools or allocation_file, not both")
    why_not = spark_available()
    if why_not:
        raise SparkEngineError(why_not)

    logs = Path(as_path(log_dir, "log_dir"))
    logs.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="batchplan-spark-"))
    process: subprocess.Popen | None = None
    begin = time.monotonic()
    try:
        home = _engine_home(scratch)
        (scratch / "local").mkdir()
        (scratch / "tmp").mkdir()
        (scratch / "submit.py").write_text(text, encoding="utf-8")
        if pools is not None:
            # Next to the event log, which names it (spark.scheduler.allocation.file): a replay
            # of the log finds the pools' weights and minimum shares there.
            handle, written = tempfile.mkstemp(dir=logs, prefix="fairscheduler-", suffix=".xml")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(fair_scheduler_xml(pools))
            allocation_file = written
        master = f"local-cluster[{executors},{cores},{memory_mb}]"
        properties = _properties(
            master=master, mode=mode, allocation_file=None if allocation_file is None else str(allocation_file),
            executors=executors, cores=cores, memory_mb=memory_mb, log_dir=logs, local_dir=scratch / "local",
            compression=compression, rolling=rolling, app_name=app_name, conf=extra)
        spec = {"conf": properties, "executors": executors, "jobs": [job.spec() for job in checked],
                "script": str(scratch / "submit.py"), "report": str(scratch / "report.json"),
                "batch_timeout": timeout, "warmup": bool(warmup), "warmup_group": WARMUP_GROUP,
                "warmup_seconds": warmup_seconds, "gate_seconds": gate_seconds, "gate_group": GATE_GROUP}
        (scratch / "spec.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
        root = str(Path(__file__).resolve().parents[2])
        environment = dict(os.environ)
        environment.update({
            "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOCAL_DIRS": str(scratch / "local"),
            "TMPDIR": str(scratch / "tmp"), "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
            "PYTHONPATH": os.pathsep.join(filter(None, [root, environment.get("PYTHONPATH")])),
        })
        environment.pop("SPARK_CONF_DIR", None)
        output = (scratch / "driver.log").open("w", encoding="utf-8")
        with output:
            process = subprocess.Popen(  # noqa: S603  # this interpreter and our driver module
                [sys.executable, "-m", "planner.proof.spark_driver", str(scratch / "spec.json")],
                cwd=scratch, env=environment, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                start_new_session=True)
            peak = _watch(process, timeout, begin)
        if process.returncode != 0:
            raise SparkEngineError(f"the Spark driver exited with {process.returncode}: {_tail(scratch / 'driver.log')}")
        report = json.loads((scratch / "report.json").read_text(encoding="utf-8"))
    except BaseException:
        if pools is not None and allocation_file is not None:
            Path(allocation_file).unlink(missing_ok=True)
        raise
    finally:
        if process is not None:
            _stop_group(process)
        shutil.rmtree(scratch, ignore_errors=True)
    wall = time.monotonic() - begin
    runs = tuple(EngineJobRun(**{key: record[key] for key in ("job", "pool", "status", "submitted", "started",
                                                                "finished", "error")}) for record in report["jobs"])
    return EngineRun(event_log=_event_log(logs, report["application_id"]), application_id=report["application_id"],
                     mode=properties["spark.scheduler.mode"], master=master, jobs=runs,
                     context_seconds=report["context_seconds"], ready_seconds=report["ready_seconds"],
                     batch_seconds=report["batch_seconds"], wall_seconds=wall, peak_rss_mb=peak,
                     allocation_file=None if allocation_file is None else Path(allocation_file),
                     warmup_rounds=tuple(report.get("warmup_rounds", ())), gate_end=report.get("gate_end"),
                     gate_held=report.get("gate_held"))


def _watch(process: subprocess.Popen, timeout: float, begin: float) -> float:
    """Wait for the driver, sampling the group's memory; the peak in MB. A timeout raises."""
    peak = 0.0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _group_rss_mb(process.pid))
            stop.wait(MEMORY_SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, name="engine-memory", daemon=True)
    sampler.start()
    try:
        process.wait(timeout=max(1.0, timeout - (time.monotonic() - begin)))
    except subprocess.TimeoutExpired:
        raise SparkEngineError(f"the Spark run took more than {timeout:g} s; it was stopped") from None
    finally:
        stop.set()
        sampler.join()
    return peak


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(no output)"
    return " | ".join(line.strip() for line in text[-lines:] if line.strip())
