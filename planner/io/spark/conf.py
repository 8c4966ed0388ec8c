"""Spark's scheduler configuration as the simulator's run: fairscheduler.xml, spark-defaults.conf
and the submission schedule an export writes (`read_spark_conf`, `spark_run`).

What the files say (Spark 2.x to 4.x):

- ``spark-defaults.conf`` (Java properties, read as ``java.util.Properties.load`` reads them,
  `property_entries`: ``key value``, ``key=value`` or ``key:value``; ``#`` and ``!`` comments; a
  line ending in ``\\`` continues on the next; ``\\uXXXX`` and other escapes decoded; a key given
  twice keeps its last value, the earlier named in a warning; values trimmed as Spark trims
  them): ``spark.scheduler.mode`` (FIFO, Spark's default, or FAIR, any case),
  ``spark.scheduler.allocation.file`` (the pools' file: matched to a file given by its name),
  ``spark.locality.wait`` (3 s by default) and its ``.node`` and ``.rack`` levels (Spark's time
  strings: ``3s``, ``500ms``, a bare number in milliseconds). Only a value batchplan cannot use
  is refused (a mode other than FIFO or FAIR, a wait that is not a time). Any other property is
  named in an `IgnoredSparkSetting` warning with why (the cluster file gives the executors and
  their cores; ``spark.locality.wait.process`` is a level the run does not have; ...).
- ``fairscheduler.xml``: ``<allocations>`` of ``<pool name="...">`` elements, each with
  ``schedulingMode`` (FIFO or FAIR, any case; Spark's default FIFO), ``weight`` (a whole number,
  default 1) and ``minShare`` (whole cores, default 0). Spark falls back to FIFO on an unknown
  mode; we refuse it, as we refuse a weight or minShare that is not a whole number (Spark fails
  to start on those), a pool without a name or given twice, with one line naming the file, the
  pool and the field. A field's text is all the text inside it, as Spark's XML reader takes it.
  Other elements are named in a warning, where they are (top level, or in which pool).
- ``submissions.tsv`` (`SUBMISSIONS_COLUMNS`): each job, its pool, when the driver submits it
  (seconds from the batch's start) and the jobs it waits for (``NAME`` or ``NAME+DELAY``,
  comma-separated). Names are percent-escaped (`escape_name`, undone by the reader): ``%``,
  ``,``, ``+``, a tab, a line break, any other control character and whitespace at either end
  of a name are written ``%XX`` (the UTF-8 bytes of the character), so any job or pool name
  reads back as it was (``a,b+c`` is written ``a%2Cb%2Bc``).

Spark's scheduler as the simulator runs it (`spark_run`):

- An application's jobs share the executors' cores: every core is a container that runs a task
  of either kind (``SimOptions(containers=True)``; a node offers its map plus reduce slots).
- Cores are offered as soon as they are free: the cluster file's heartbeat (Hadoop's TaskTracker
  report interval) is set to 0; Spark's backend offers an executor's cores when one of its tasks
  ends (and all free cores every second, ``spark.scheduler.revive.interval``).
- A stage starts when its parents have finished: ``reduce_slowstart = 1.0`` (Spark has no
  slow-start).
- FIFO mode: jobs by job id, which is submission order: the simulator's `Fifo` with every job at
  priority 0 (Spark has no job priority) ordered by submit time; the schedule submits jobs at
  distinct times in the planned order.
- FAIR mode: the simulator's `Fair` with one pool per pool of the file (schedulingMode as the
  pool's mode, weight, minShare as its minimum share of containers), and every pool a job names
  that the file lacks made as Spark makes it: FIFO, weight 1, minShare 0 (the pool "default"
  too). A free core goes to the pool below its minShare with the smallest running / minShare,
  else to the one with the smallest running / weight, as Spark's FairSchedulingAlgorithm;
  inside a FIFO pool jobs go by submission, inside a FAIR pool by running tasks.
- ``spark.locality.wait``: delay scheduling (`DelayScheduling`), node then rack level.

Known differences between Spark's scheduler and this run (docs/limits.md; each measured in
tests/test_spark_target.py where it can be on a small example):

1. Ties between pools: Spark breaks them by pool name; the simulator by its first job's
   submission, then by name.
2. A needy pool's ratio: Spark divides running tasks by max(minShare, 1) and calls a pool needy
   below its minShare; the simulator caps the minShare at the pool's demand (running plus
   pending tasks) first.
3. Offers: Spark sorts the pools once per offer round and lets the first take every core it can
   before the next (all cores free at once go to one pool); the simulator sorts again for each
   core. Cores free one at a time (a task's end is one status update) and jobs arrive one at a
   time, where the two agree: on the hand-worked example of tests/test_spark_target.py (two
   pools, one job each of 16 one-second tasks on 8 cores) both end the jobs at 3 s and 4 s. They
   differ only at a revive round (every second) that finds several free cores and several
   needy pools.
4. Inside a FAIR pool Spark weighs each stage (task set) 1 and breaks ties by stage name; the
   simulator divides a job's running tasks by its weight in the workload and breaks ties by
   submission.
5. Delay scheduling: Spark counts a level's wait from the task set's last launch at that level
   and has a process-local level (``spark.locality.wait.process``: warned as not modelled); the
   simulator counts from the first core the job passed over, at node and rack levels.
6. Executors: the cluster file's nodes and slots are the executors and their cores; dynamic
   allocation, executors lost and speculative tasks are not modelled.
"""

from __future__ import annotations

import math
import re
import unicodedata
import warnings
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote, unquote

from models import Cluster, Workload
from models.checks import as_instance, as_int, shown
from models.errors import InvalidInput
from models.fileio import read_text
from models.limits import MAX_FILE_BYTES, MAX_JOBS, MAX_SECONDS
from planner.io.hadoop.conf import conf_files
from planner.io.hadoop.parsing import number_text
from planner.io.hadoop.plan_files import Submission, submitted
from planner.io.xml_files import read_xml
from planner.simulator.locality import DelayScheduling
from planner.simulator.options import SimOptions
from planner.simulator.run import Run
from planner.simulator.schedulers.fair import Fair
from planner.simulator.schedulers.fifo import Fifo
from planner.simulator.schedulers.pools import Pool

#: The properties file and the pools' file an export writes (any ``*.conf`` and ``*.xml`` are read).
SPARK_DEFAULTS = "spark-defaults.conf"
ALLOCATION_FILE = "fairscheduler.xml"
#: The submission schedule's file and its columns.
SUBMISSIONS = "submissions.tsv"
SUBMISSIONS_COLUMNS = ("job", "pool", "submit", "after")
#: What an export writes for the operator, not read back.
SPARK_EXPORT_NOTES = ("README.md", "submit.sh", "submit.py", "changes.diff")
#: The export's submission script, which holds its own copy of submissions.tsv (`check_script_schedule`).
SUBMIT_SCRIPT = "submit.py"
#: Spark's scheduler modes, as spark.scheduler.mode and schedulingMode write them.
SCHEDULER_MODES = ("FIFO", "FAIR")
#: The pool of jobs that name none.
DEFAULT_POOL = "default"
#: The most bytes of a properties file or an allocation file read (an operator's are a few KiB).
MAX_SPARK_CONF_BYTES = 4 * 1024 * 1024
#: The most pools of an allocation file (each is a pool Spark's scheduler sorts at every offer).
MAX_POOLS = 10_000
#: Spark's spark.locality.wait when no file sets it (seconds).
LOCALITY_WAIT = 3.0
#: Seconds between a map stage's last task and its job's next stage in a Spark run
#: (`SimOptions.stage_delay`): the driver submits the stage after the task's end, and the core the
#: task freed goes to another stage meanwhile. The benchmark's logs: 2 to 20 ms (median), up to
#: 0.3 s; what matters is that it is not 0 (benchmarks/results/spark/).
SPARK_STAGE_DELAY = 0.01
_MODE = "spark.scheduler.mode"
_ALLOCATION = "spark.scheduler.allocation.file"
_WAIT = "spark.locality.wait"
#: Properties that size the executors (the cluster file gives them).
_EXECUTOR_KEYS = ("spark.executor.", "spark.cores.max", "spark.task.cpus", "spark.dynamicAllocation.",
                  "spark.driver.", "spark.master", "spark.deploy.")
#: The properties the run models.
MODELLED = (_MODE, _ALLOCATION, _WAIT, f"{_WAIT}.node", f"{_WAIT}.rack")
#: Spark's time suffixes, in seconds.
_TIME_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_TIME = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)")
_POOL_FIELDS = ("schedulingMode", "weight", "minShare")
#: Java properties files: line ends, whitespace, a key's separators, the escapes that are not the
#: character itself.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_SPACE = " \t\f"
_SEPARATORS = frozenset("=: \t\f")
#: What Java's String.trim (Spark trims each value) takes off both ends: characters up to a space.
_TRIM = "".join(map(chr, range(33)))
_ESCAPE_CHARACTERS = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
#: The characters `escape_name` always escapes (besides control characters and line breaks).
_ESCAPED = frozenset("%,+")


class IgnoredSparkSetting(UserWarning):
    """A Spark setting the simulator does not model (named in the message)."""


@dataclass(frozen=True)
class SparkPool:
    """A pool of fairscheduler.xml: its scheduling mode inside ("FIFO" or "FAIR"), weight and
    minShare (cores)."""

    name: str
    mode: str = "FIFO"
    weight: int = 1
    min_share: int = 0

    def as_pool(self) -> Pool:
        """The simulator's pool: on containers, its minimum share is ``min_map``."""
        return Pool(self.name, weight=float(self.weight), min_map=self.min_share, mode=self.mode.lower())


@dataclass(frozen=True)
class SparkSetup:
    """Spark's files read: the scheduler mode, the pools (FAIR), the locality waits (s), the
    properties as given (name -> value), the submission schedule (None: none given) and where
    each came from."""

    mode: str = "FIFO"
    pools: tuple[SparkPool, ...] = ()
    node_wait: float = LOCALITY_WAIT
    rack_wait: float = LOCALITY_WAIT
    properties: Mapping[str, str] | None = None
    submissions: tuple[Submission, ...] | None = None
    schedule_source: str = ""
    allocation_source: str | None = None
    properties_source: str | None = None

    def scheduler(self, workload: Workload, stages: Mapping[str, tuple[int, int | None]] | None = None) -> Fair | Fifo:
        """The simulator's scheduler (module docstring): FIFO, or FAIR with the file's pools and
        every pool a job of ``workload`` names made as Spark makes it, and Spark's ties inside FAIR
        pools (`spark_ties`) from each job's stage ids: ``stages`` (job name -> map stage id, reduce
        stage id or None; a recorded run's) or, by default, as Spark numbers them when the jobs are
        submitted in order (`predicted_stages`)."""
        delay = DelayScheduling(self.node_wait, self.rack_wait) if self.node_wait or self.rack_wait else None
        if self.mode == "FIFO":
            return Fifo(delay=delay)
        pools = {pool.name: pool for pool in self.pools}
        for name in [DEFAULT_POOL, *(job.pool for job in workload)]:
            pools.setdefault(name, SparkPool(name))
        fair_inside = any(pool.mode == "FAIR" for pool in pools.values())
        ties = spark_ties(stages if stages is not None else predicted_stages(workload)) if fair_inside else None
        return Fair(pools=[pool.as_pool() for pool in pools.values()], delay=delay, ties=ties, rules="spark")

    def submit(self, workload: Workload) -> Workload:
        """``workload`` as the schedule submits it (each job at its time, in its pool), else as it
        is; every job at priority 0: Spark has no job priority."""
        if self.submissions is not None:
            return submitted(workload, self.submissions, self.schedule_source)
        return Workload([job.with_changes(priority=0) for job in workload], name=workload.name)


def spark_options(base: SimOptions | None = None) -> SimOptions:
    """The simulation options of a Spark run: ``base`` on executors' cores as containers, a stage
    starting when its parents have finished, `SPARK_STAGE_DELAY` later unless ``base`` sets a
    stage delay."""
    base = base or SimOptions()
    return replace(base, containers=True, reduce_slowstart=1.0, stage_delay=base.stage_delay or SPARK_STAGE_DELAY)


def spark_run(paths: Iterable[str | Path], workload: Workload, cluster: Cluster, *, base: SimOptions | None = None,
              warn: bool = True) -> Run:
    """The `Run` Spark's files in ``paths`` (files, or folders standing for the files in them)
    configure for ``workload`` on ``cluster`` (module docstring)."""
    as_instance(workload, Workload, "workload")
    as_instance(cluster, Cluster, "cluster")
    setup = read_spark_conf(paths, warn=warn)
    return setup_run(setup, workload, cluster, base=base)


def setup_run(setup: SparkSetup, workload: Workload, cluster: Cluster, *, base: SimOptions | None = None,
              first_stage: int = 0) -> Run:
    """The `Run` of ``workload`` on ``cluster`` under ``setup``: the cluster's nodes and slots as the
    executors and their cores, offered as soon as they are free (no heartbeat: Spark's backend
    offers an executor's cores when one of its tasks ends). ``first_stage``: the application's next
    stage id when the batch starts (0 in a new application; the stages an application ran before
    move Spark's ties inside FAIR pools: `spark_ties`)."""
    first_stage = as_int(first_stage, "first_stage", minimum=0)
    batch = setup.submit(workload)
    stages = predicted_stages(batch, first_stage) if first_stage else None
    return Run(batch, cluster.with_changes(heartbeat=0.0), setup.scheduler(batch, stages), None, spark_options(base))


def spark_files(paths: Iterable[str | Path], field: str = "spark_conf") -> dict[str, tuple[str, str]]:
    """The Spark files among ``paths`` (a folder stands for its files; an export's notes are
    skipped): name -> (text, the path it was read from). Two files of one name are refused."""
    found: dict[str, tuple[str, str]] = {}
    for path in conf_files(paths, field):
        if path.name in SPARK_EXPORT_NOTES:
            continue
        if path.name in found:
            raise InvalidInput(field, f"two files named {path.name}: {found[path.name][1]} and {path}")
        limit = MAX_FILE_BYTES if path.name == SUBMISSIONS else MAX_SPARK_CONF_BYTES
        found[path.name] = (read_text(path, limit=limit), str(path))
    if SUBMISSIONS in found:
        script = Path(found[SUBMISSIONS][1]).with_name(SUBMIT_SCRIPT)
        if script.is_file():
            check_script_schedule(found[SUBMISSIONS][0], found[SUBMISSIONS][1], script)
    return found


def check_script_schedule(text: str, source: str, script: Path) -> None:
    """An export's ``submit.py`` (beside its ``submissions.tsv``) runs its own copy of the schedule,
    ``SCHEDULE``: the two must agree, so that the schedule simulated is the one run. A row that
    differs (an operator edited one file) is one `InvalidInput` naming the script and the row."""
    import ast

    rows = read_spark_submissions(text, source)
    where = str(script)
    try:
        tree = ast.parse(read_text(script, limit=MAX_FILE_BYTES), filename=where)
        value = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                     and any(isinstance(target, ast.Name) and target.id == "SCHEDULE" for target in node.targets))
        schedule = ast.literal_eval(value)
    except (SyntaxError, ValueError, TypeError, StopIteration, RecursionError, MemoryError):
        raise InvalidInput("SCHEDULE", "is not a literal list of rows: export again", source=where) from None
    if not isinstance(schedule, list) or len(schedule) != len(rows):
        count = len(schedule) if isinstance(schedule, list) else "no"
        raise InvalidInput("SCHEDULE", f"has {count} rows, {Path(source).name} {len(rows)}: edit both or export again",
                           source=where)
    for index, (row, planned) in enumerate(zip(rows, schedule, strict=True)):
        waits = [(rows[position].job, delay) for position, delay in row.after or ()]
        if not _same_row(planned, row.job, row.pool, row.at, waits):
            raise InvalidInput(f"SCHEDULE[{index}]", f"is not line {row.line} of {Path(source).name} "
                                                     f"({shown(row.job)}): edit both or export again", source=where)


def _same_row(planned: object, job: str, pool: str, at: float, waits: list[tuple[str, float]]) -> bool:
    """Whether a row of a script's SCHEDULE is the submission ``job`` in ``pool`` at ``at`` after ``waits``."""
    if not isinstance(planned, dict) or planned.get("job") != job or planned.get("pool") != pool:
        return False
    submit, after = planned.get("submit"), planned.get("after") or []
    if isinstance(submit, bool) or not isinstance(submit, int | float) or abs(submit - at) > 1e-6:
        return False
    try:
        return [(str(name), float(delay)) for name, delay in after] == waits
    except (TypeError, ValueError):
        return False


def read_spark_conf(paths: Iterable[str | Path], *, warn: bool = True) -> SparkSetup:
    """Spark's files in ``paths`` read (`spark_setup`)."""
    return spark_setup(spark_files(paths), warn=warn)


def spark_setup(files: Mapping[str, tuple[str, str]], *, warn: bool = True) -> SparkSetup:
    """Spark's files, name -> (text, source), read (module docstring): at most one properties file
    (``*.conf``) and one allocation file (``*.xml``; the one spark.scheduler.allocation.file names
    when several are given), and the schedule (``submissions.tsv``). ``warn``: name what the run
    does not model in `IgnoredSparkSetting` warnings."""
    ignored: list[str] = []
    confs = [name for name in files if name.endswith(".conf")]
    xmls = [name for name in files if name.endswith(".xml")]
    other = [name for name in files if name not in confs and name not in xmls and name != SUBMISSIONS]
    if other:
        raise InvalidInput("", "is not one of Spark's files (spark-defaults.conf, fairscheduler.xml, "
                               "submissions.tsv)", source=files[other[0]][1])
    if len(confs) > 1:
        raise InvalidInput("spark_conf", f"give one properties file, got {len(confs)}: {', '.join(confs)}")
    properties: dict[str, str] = {}
    properties_source = None
    if confs:
        text, properties_source = files[confs[0]]
        entries = property_entries(text, properties_source)
        properties = {entry.key: entry.value for entry in entries}
        last = {entry.key: entry.first for entry in entries}
        repeated = [f"line {entry.first}'s {entry.key} (line {last[entry.key]} sets it again; Spark takes the last)"
                    for entry in entries if last[entry.key] != entry.first]
        if repeated:
            ignored.append(f"{properties_source}: {', '.join(repeated)}")
    mode = properties.get(_MODE, "FIFO").strip().upper()
    if mode not in SCHEDULER_MODES:
        raise InvalidInput(_MODE, f"must be FIFO or FAIR, got {properties[_MODE]!r}", source=properties_source)
    allocation = _allocation_file(properties.get(_ALLOCATION), xmls, properties_source)
    pools: tuple[SparkPool, ...] = ()
    allocation_source = None
    if allocation is not None:
        text, allocation_source = files[allocation]
        pools = read_allocations(text, allocation_source, ignored)
        if mode == "FIFO":
            ignored.append(f"{allocation_source}: the pools (spark.scheduler.mode is FIFO: Spark ignores them)")
    node_wait = rack_wait = LOCALITY_WAIT
    if _WAIT in properties:
        node_wait = rack_wait = spark_seconds(properties[_WAIT], _WAIT, properties_source)
    if f"{_WAIT}.node" in properties:
        node_wait = spark_seconds(properties[f"{_WAIT}.node"], f"{_WAIT}.node", properties_source)
    if f"{_WAIT}.rack" in properties:
        rack_wait = spark_seconds(properties[f"{_WAIT}.rack"], f"{_WAIT}.rack", properties_source)
    unmodelled: dict[str, list[str]] = {}
    for key in sorted(key for key in properties if key not in MODELLED):
        unmodelled.setdefault(_why_ignored(key), []).append(key)
    for why, keys in unmodelled.items():
        ignored.append(f"{properties_source}: {', '.join(keys)} ({why})")
    submissions = None
    schedule_source = ""
    if SUBMISSIONS in files:
        text, schedule_source = files[SUBMISSIONS]
        submissions = read_spark_submissions(text, schedule_source)
    if warn and ignored:
        warnings.warn(f"not modelled, ignored: {'; '.join(ignored)}", IgnoredSparkSetting, stacklevel=2)
    return SparkSetup(mode, pools, node_wait, rack_wait, properties, submissions, schedule_source, allocation_source,
                      properties_source)


def _why_ignored(key: str) -> str:
    """Why the run does not model property ``key``, in words."""
    if key == f"{_WAIT}.process":
        return "Spark's process-local level: the run's delay scheduling has node and rack levels"
    if key.startswith(_WAIT):
        return "not one of Spark's locality levels"
    if key.startswith(_EXECUTOR_KEYS):
        return "the cluster file gives the executors and their cores"
    if key.startswith("spark.speculation"):
        return "speculative tasks are not modelled"
    return "not a setting of the scheduler the run models"


def _allocation_file(named: str | None, xmls: list[str], source: str | None) -> str | None:
    """The allocation file among ``xmls``: the one spark.scheduler.allocation.file names (by its
    file name), else the only one."""
    if named is not None:
        base = named.strip().rstrip("/").rsplit("/", 1)[-1]
        if base not in xmls:
            raise InvalidInput(_ALLOCATION, f"names {named.strip()!r}, which is not among the files given "
                                            f"({', '.join(xmls) or 'no .xml file'}): give it too", source=source)
        return base
    if len(xmls) > 1:
        raise InvalidInput("spark_conf", f"{len(xmls)} allocation files ({', '.join(xmls)}) and no "
                                         f"{_ALLOCATION} to say which: give one")
    return xmls[0] if xmls else None


@dataclass(frozen=True)
class PropertyEntry:
    """One key of a properties file: its value (escapes decoded, trimmed as Spark trims it) and the
    physical lines (1-based, first to last: a value continued with ``\\``) that set it."""

    key: str
    value: str
    first: int
    last: int


def physical_lines(text: str) -> list[str]:
    """``text``'s lines with their ends, split as Java splits a properties file: at ``\\n``,
    ``\\r`` and ``\\r\\n`` only."""
    return _LINE.findall(text)


def property_entries(text: str, source: str) -> list[PropertyEntry]:
    """Every key a Java properties file sets, in file order (a key may come twice: Java keeps the
    last). As `java.util.Properties.load` reads it: ``#`` and ``!`` comment lines, a line ending
    in an odd number of backslashes continues on the next (whose leading whitespace is dropped),
    the key ends at the first unescaped ``=``, ``:`` or whitespace, then whitespace and one ``=``
    or ``:`` are skipped; ``\\uXXXX``, ``\\t``, ``\\n``, ``\\r``, ``\\f`` escapes are decoded and
    any other escaped character stands for itself. A malformed ``\\u`` escape is refused (Java
    refuses it too)."""
    lines = [line.rstrip("\r\n") for line in physical_lines(text)]
    entries: list[PropertyEntry] = []
    index = 0
    while index < len(lines):
        first = index + 1
        logical = lines[index].lstrip(_SPACE)
        index += 1
        if not logical or logical[0] in "#!":
            continue
        while line_continues(logical):
            logical = logical[:-1]
            if index >= len(lines):
                break
            logical += lines[index].lstrip(_SPACE)
            index += 1
        end = 0
        while end < len(logical) and logical[end] not in _SEPARATORS:
            end += 2 if logical[end] == "\\" else 1
        end = min(end, len(logical))
        rest = end
        while rest < len(logical) and logical[rest] in _SPACE:
            rest += 1
        if rest < len(logical) and logical[rest] in "=:":
            rest += 1
        key = _unescape(logical[:end], f"line {first}", source)
        value = _unescape(logical[rest:].lstrip(_SPACE), f"line {first} ({key})", source)
        entries.append(PropertyEntry(key, value.strip(_TRIM), first, index))
    return entries


def read_spark_defaults(path: str | Path) -> dict[str, str]:
    """The properties a spark-defaults.conf sets (`read_properties`), key -> value: what
    ``spark-submit --properties-file`` passes on (an exported one, to run it on the engine)."""
    source = str(path)
    return {key: value for key, (value, _line) in
            read_properties(read_text(Path(path), limit=MAX_SPARK_CONF_BYTES), source).items()}


def read_properties(text: str, source: str) -> dict[str, tuple[str, int]]:
    """A Java properties file (`property_entries`): key -> (value, line); a key given twice keeps
    its last value, as Java's and so Spark's reader does."""
    return {entry.key: (entry.value, entry.first) for entry in property_entries(text, source)}


def line_continues(line: str) -> bool:
    """Whether a properties line goes on: it ends in an odd number of backslashes."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _unescape(raw: str, field: str, source: str) -> str:
    """A key or value with its backslash escapes decoded (`property_entries`)."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    index = 0
    while index < len(raw):
        character = raw[index]
        index += 1
        if character != "\\":
            out.append(character)
        elif index < len(raw) and raw[index] == "u":
            digits = raw[index + 1:index + 5]
            if not re.fullmatch(r"[0-9a-fA-F]{4}", digits):
                raise InvalidInput(field, f"malformed \\uXXXX escape: {raw[index - 1:index + 5]!r}", source=source)
            out.append(chr(int(digits, 16)))
            index += 5
        elif index < len(raw):
            out.append(_ESCAPE_CHARACTERS.get(raw[index], raw[index]))
            index += 1
    try:  # \\uD83D\\uDE00: a surrogate pair escaped as Java writes it
        return "".join(out).encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        raise InvalidInput(field, "a \\uXXXX escape is half a surrogate pair", source=source) from None


def spark_seconds(text: str, field: str, source: str | None) -> float:
    """A Spark time string in seconds: ``3s``, ``500ms``, ``1min``; a bare number is milliseconds
    (spark.locality.wait's unit)."""
    match = _TIME.fullmatch(text.strip().lower())
    unit = match.group(2) if match else None
    if match is None or (unit and unit not in _TIME_UNITS):
        raise InvalidInput(field, f"must be a time such as 3s or 500ms, got {text.strip()!r}", source=source)
    seconds = float(match.group(1)) * (_TIME_UNITS[unit] if unit else 1e-3)
    if not math.isfinite(seconds) or seconds > MAX_SECONDS:
        raise InvalidInput(field, f"must be at most {MAX_SECONDS:g} s, got {text.strip()!r}", source=source)
    return seconds


def read_allocations(text: str, source: str, ignored: list[str] | None = None) -> tuple[SparkPool, ...]:
    """fairscheduler.xml's pools (module docstring); elements Spark does not read, or the simulator
    does not model, are added to ``ignored``."""
    root = _xml_root(text, source)
    if root.tag != "allocations":
        raise InvalidInput(root.tag, "must be <allocations> (Spark's fairscheduler.xml)", source=source)
    pools: dict[str, SparkPool] = {}
    top: list[str] = []
    skipped: list[str] = []
    for position, element in enumerate(element for element in root if isinstance(element.tag, str)):
        if element.tag != "pool":
            top.append(f"<{element.tag}>")
            continue
        name = (element.get("name") or "").strip()
        if not name:
            raise InvalidInput(f"pool[{position}].name", "every pool needs a name", source=source)
        where = f"pool {name!r}"
        if name in pools:
            raise InvalidInput(where, "is given twice", source=source)
        if len(pools) == MAX_POOLS:
            raise InvalidInput(where, f"is one pool more than {MAX_POOLS:,}, the most an allocation file may have",
                               source=source)
        values: dict[str, str] = {}
        for child in element:
            if not isinstance(child.tag, str):
                continue
            if child.tag not in _POOL_FIELDS:
                skipped.append(f"<{child.tag}> in {where}")
                continue
            if child.tag in values:
                raise InvalidInput(f"{where}.{child.tag}", "is given twice", source=source)
            values[child.tag] = "".join(child.itertext()).strip()  # all its text, as Spark's XML reader takes it
        mode = values.get("schedulingMode", "FIFO").upper()
        if mode not in SCHEDULER_MODES:
            raise InvalidInput(f"{where}.schedulingMode", f"must be FIFO or FAIR, got {values['schedulingMode']!r}",
                               source=source)
        weight = _whole(values.get("weight", "1"), f"{where}.weight", source, 1)
        min_share = _whole(values.get("minShare", "0"), f"{where}.minShare", source, 0)
        pools[name] = SparkPool(name, mode, weight, min_share)
    if top and ignored is not None:
        ignored.append(f"{source}: {', '.join(top)} at the top level (Spark reads only <pool> elements there)")
    if skipped and ignored is not None:
        ignored.append(f"{source}: {', '.join(skipped)} (Spark reads a pool's schedulingMode, weight and minShare)")
    return tuple(pools.values())


def _whole(text: str, field: str, source: str, minimum: int) -> int:
    """A whole number of at least ``minimum`` (Spark reads weight and minShare as integers)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise InvalidInput(field, f"must be a whole number, got {text!r}", source=source)
    value = int(text)
    if value < minimum or value > MAX_JOBS * 1000:
        raise InvalidInput(field, f"must be at least {minimum}, got {value}" if value < minimum
                           else f"must be at most {MAX_JOBS * 1000:,}, got {value}", source=source)
    return value


def _xml_root(text: str, source: str) -> ElementTree.Element:
    """The root of an XML text, read by the safe reader (`planner.io.xml_files.read_xml`)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="batchplan-spark-") as folder:
        path = Path(folder) / "allocations.xml"
        path.write_text(text)
        try:
            return read_xml(path)
        except InvalidInput as error:
            raise InvalidInput(error.field, error.problem, source=source) from None


def read_spark_submissions(text: str, source: str) -> tuple[Submission, ...]:
    """``submissions.tsv`` (`SUBMISSIONS_COLUMNS`, a header line, tab-separated): rows in submission
    order, times never decreasing, each ``after`` naming earlier rows' jobs. A malformed line is
    one `InvalidInput` naming the file, the line and the column."""
    lines = text.splitlines()
    if not lines or lines[0].split("\t") != list(SUBMISSIONS_COLUMNS):
        raise InvalidInput("line 1", f"must be the header {chr(9).join(SUBMISSIONS_COLUMNS)!r} (tab-separated)",
                           source=source)
    rows: list[Submission] = []
    position: dict[str, int] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(SUBMISSIONS_COLUMNS):
            raise InvalidInput(f"line {number}", f"has {len(cells)} columns, expected {len(SUBMISSIONS_COLUMNS)}",
                               source=source)
        job, pool, at, after = (cell.strip() for cell in cells)
        job, pool = unescape_name(job, f"line {number}.job", source), unescape_name(pool, f"line {number}.pool", source)
        if not job:
            raise InvalidInput(f"line {number}.job", "is empty", source=source)
        if job in position:
            raise InvalidInput(f"line {number}.job", f"{job!r} is submitted twice", source=source)
        if not pool:
            raise InvalidInput(f"line {number}.pool", "is empty (Spark's pool for jobs that name none is "
                                                      "'default')", source=source)
        seconds = number_text(at, f"line {number}.submit", source, maximum=MAX_SECONDS)
        if rows and seconds < rows[-1].at:
            raise InvalidInput(f"line {number}.submit", f"{seconds:g} is before the previous row's {rows[-1].at:g}",
                               source=source)
        waits = []
        for item in filter(None, (part.strip() for part in after.split(","))):
            name, plus, delay = item.partition("+")
            name = unescape_name(name.strip(), f"line {number}.after", source)
            if name not in position:
                raise InvalidInput(f"line {number}.after", f"{name!r} is not the job of an earlier row",
                                   source=source)
            pause = number_text(delay, f"line {number}.after", source, maximum=MAX_SECONDS) if plus else 0.0
            waits.append((position[name], pause))
        position[job] = len(rows)
        rows.append(Submission(job, seconds, pool, 0, number, tuple(waits)))
        if len(rows) > MAX_JOBS:
            raise InvalidInput(f"line {number}", f"more than {MAX_JOBS:,} rows", source=source)
    if not rows:
        raise InvalidInput("file", "submits no job", source=source)
    return tuple(rows)


def submissions_text(rows: Iterable[Submission]) -> str:
    """``submissions.tsv`` for ``rows`` (`read_spark_submissions` reads it back)."""
    rows = list(rows)
    lines = ["\t".join(SUBMISSIONS_COLUMNS)]
    for row in rows:
        after = ",".join(escape_name(rows[r].job) + (f"+{delay!r}" if delay else "") for r, delay in row.after or ())
        lines.append(f"{escape_name(row.job)}\t{escape_name(row.pool)}\t{row.at!r}\t{after}")
    return "\n".join([*lines, ""])


def predicted_stages(workload: Workload, first: int = 0) -> dict[str, tuple[int, int | None]]:
    """Each job's stage ids as Spark numbers them when the jobs are submitted in order (submit time,
    then name) into an application whose next stage id is ``first``: a job's map stage, then its
    result stage (a job without reduces has one stage)."""
    stages: dict[str, tuple[int, int | None]] = {}
    next_id = first
    for job in sorted(workload, key=lambda job: (job.submit, job.name)):
        if job.reduce_tasks:
            stages[job.name] = (next_id, next_id + 1)
            next_id += 2
        else:
            stages[job.name] = (next_id, None)
            next_id += 1
    return stages


def spark_ties(stages: Mapping[str, tuple[int, int | None]]) -> dict[str, tuple[float, float]]:
    """`Fair`'s ``ties`` for Spark: inside a FAIR pool Spark breaks ties between stages with as many
    running tasks by their task sets' names, ``TaskSet_<stage id>.0`` compared as strings, so that
    stage 10 comes before stage 9. Each job's map and reduce stage (``stages``: job name -> ids; a
    job without reduces gives its one stage for both) becomes its rank in that order over all the
    stages, divided by their number."""
    names = {stage for pair in stages.values() for stage in pair if stage is not None}
    order = {stage: rank for rank, stage in enumerate(sorted(names, key=lambda stage: f"TaskSet_{stage}.0"))}
    count = max(len(order), 1)
    ties: dict[str, tuple[float, float]] = {}
    for name, (map_stage, reduce_stage) in stages.items():
        first = order[map_stage] / count
        ties[name] = (first, first if reduce_stage is None else order[reduce_stage] / count)
    return ties


def escape_name(name: str) -> str:
    """``name`` as a cell of ``submissions.tsv`` (module docstring): ``%``, ``,``, ``+``, tabs,
    line breaks, other control characters and whitespace at either end written ``%XX``."""
    last = len(name) - 1
    return "".join(quote(character, safe="") if character in _ESCAPED or _breaks(character)
                   or (character.isspace() and index in (0, last)) else character
                   for index, character in enumerate(name))


def unescape_name(cell: str, field: str, source: str) -> str:
    """A name `escape_name` wrote, as it was: every ``%XX`` decoded (UTF-8); a ``%`` not followed
    by two hex digits is kept as it is."""
    if "%" not in cell:
        return cell
    try:
        return unquote(cell, errors="strict")
    except UnicodeDecodeError:
        raise InvalidInput(field, f"{cell!r} has a %XX escape that is not UTF-8", source=source) from None


def _breaks(character: str) -> bool:
    """Whether ``character`` would break a tab-separated line: a control character (tab, CR, LF...)
    or anything else `str.splitlines` splits at, or whitespace other than a space."""
    return (unicodedata.category(character) == "Cc" or len(f"a{character}b".splitlines()) > 1
            or (character.isspace() and character != " "))
