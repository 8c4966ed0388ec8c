"""The SYNTH importer: Hadoop SLS's synthetic workload description, generated into a `Workload`.

A SYNTH file (SLS's ``--tracetype=SYNTH`` input, JSON) describes jobs by distributions, not one by
one: ``num_jobs`` jobs are drawn from ``workloads`` (each with a weight, a queue, job classes and
a distribution of submit times). `read_synth` draws them the way SLS's `SynthTraceJobProducer`
and `SynthJob` do (hadoop-tools/hadoop-sls), with NumPy generators seeded from the file's
``rand_seed`` (or ``seed``), so the same file and seed give the same workload:

- a job's workload by ``workload_weight``, its submit time from the workload's
  ``time_distribution``, its class by ``class_weight``;
- every quantity with ``*_avg`` and ``*_stddev`` is log-normal with that mean and standard
  deviation (SLS's ``SynthUtils.getLogNormalDist``; a stddev of 0 means avg / 6, as there);
- task counts are rounded to whole numbers, maps at least 1 and reduces at least 0 (an
  ``rtasks_avg`` of 0 makes a map-only class); every task's time is drawn on its own, at least
  `MIN_TASK_SECONDS`, and the job keeps their mean;
- with probability ``chance_of_reservation`` a job has a deadline: submit +
  deadline_factor x duration, both drawn (``deadline_factor_*``, ``dur_*``), as SLS sets it;
  the duration serves nothing else (a job's run time comes from its tasks).

``time_distribution`` is read as SLS reads it: a list of ``{time, weight}`` points; a point is
picked by weight and the submit time is uniform in [its time, the next point's time), or the
point's time itself for the last point: piecewise constant, not interpolated. SLS rounds submit
times, task times and durations to whole seconds; we keep real numbers. Settings we do not model
are named in one `TraceWarning`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from models import InvalidInput, Job, Workload
from models.checks import as_float, as_int, as_mapping, as_path, as_str, check_keys
from models.fileio import parse_text, read_text
from models.limits import MAX_JOBS, MAX_SECONDS, MAX_TASKS, MAX_WEIGHT, MAX_WORKLOAD_TASKS, MIN_TASK_SECONDS
from planner.io.json_traces import TraceWarning, trace_workload

if TYPE_CHECKING:
    from models.cluster import Cluster

__all__ = ["SYNTH_IGNORED", "read_synth", "synth_cluster"]

#: The largest seed: SLS's seed is a Java long; NumPy takes any non-negative integer.
MAX_SEED = 2**63 - 1
#: A deadline factor multiplies a job's duration; beyond this it is no deadline anyone means.
MAX_DEADLINE_FACTOR = 1e6

#: A job class's settings we do not model, by how the warning names them.
SYNTH_IGNORED = {
    "memory (*_max_memory_*)": ("map_max_memory_avg", "map_max_memory_stddev", "reduce_max_memory_avg",
                                "reduce_max_memory_stddev"),
    "vcores (*_max_vcores_*)": ("map_max_vcores_avg", "map_max_vcores_stddev", "reduce_max_vcores_avg",
                                "reduce_max_vcores_stddev"),
    "execution types (*_execution_type)": ("map_execution_type", "reduce_execution_type"),
    "user_name": ("user_name",),
}
#: (avg, stddev) keys of the distributions a job class draws from.
_DRAWN = ("mtasks", "rtasks", "mtime", "rtime", "dur", "deadline_factor")
_CLASS_KEYS = ("class_name", "class_weight", "chance_of_reservation",
               *(f"{name}_{part}" for name in _DRAWN for part in ("avg", "stddev")),
               *(key for keys in SYNTH_IGNORED.values() for key in keys))
_WORKLOAD_KEYS = ("workload_name", "workload_weight", "description", "queue_name", "job_classes", "time_distribution")
_TOP_KEYS = ("description", "num_nodes", "nodes_per_rack", "num_jobs", "rand_seed", "workloads")
#: The keys of SLS's newer job-class form (samples per task type), which this reader does not take.
_NEWER_FORM = ("type", "tasks", "duration", "deadline_factor", "reservation", "params")


@dataclass(frozen=True)
class _Class:
    """A job class: its name, weight, the chance of a deadline and its log-normal (mean, stddev)s."""

    name: str
    weight: float
    reservation: float
    drawn: dict[str, tuple[float, float]]


@dataclass(frozen=True)
class _Workload:
    weight: float
    queue: str
    classes: tuple[_Class, ...]
    times: tuple[float, ...]
    time_weights: tuple[float, ...]


@dataclass(frozen=True)
class _Spec:
    num_jobs: int
    seed: int
    workloads: tuple[_Workload, ...]
    ignored: tuple[str, ...]


def read_synth(path: str | Path, *, seed: int | None = None, limit: int | None = None) -> Workload:
    """Generate the workload a SLS SYNTH file describes (see the module's notes for the draws).

    ``seed`` replaces the file's ``rand_seed`` (absent: 0, SLS's default); ``limit`` keeps the
    first jobs by submit time, the same jobs as the full draw's first ones. Jobs are named
    ``CLASS_NNNNNN`` (their place in submit order, as SLS names them), ``pool`` is the workload's
    ``queue_name``. Memory, vcores, execution types, user names, YARN reservations and the
    cluster (``num_nodes``, ``nodes_per_rack``: `synth_cluster`) are not modelled: those present
    are named in a `TraceWarning`.
    """
    path = as_path(path, "path")
    if seed is not None:
        seed = as_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    if limit is not None:
        limit = as_int(limit, "limit", minimum=1, maximum=MAX_JOBS)
    source = str(path)
    try:
        spec = _spec(parse_text(read_text(path), "json"))
        if seed is not None:
            spec = _Spec(spec.num_jobs, seed, spec.workloads, spec.ignored)
        jobs = _draw(spec, limit)
    except InvalidInput as error:
        raise error.in_file(source) from None
    if spec.ignored:
        warnings.warn(f"{source}: not modelled, ignored: {'; '.join(spec.ignored)}", TraceWarning, stacklevel=2)
    return trace_workload(jobs, source, [job.name for job in jobs])


def synth_cluster(path: str | Path, **fields: Any) -> Cluster:
    """The cluster a SYNTH file names: ``num_nodes`` nodes in racks of ``nodes_per_rack``.

    SLS simulates YARN containers sized by memory, not slots: the other `Cluster` fields
    (``map_slots``, ``reduce_slots``, ...) are the caller's, as ``fields``.
    """
    from models.cluster import Cluster

    source = str(as_path(path, "path"))
    try:
        data = as_mapping(parse_text(read_text(path), "json"), "")
        if "num_nodes" not in data:
            raise InvalidInput("num_nodes", "is required for a cluster")
        nodes = as_int(data["num_nodes"], "num_nodes", minimum=1)
        per_rack = as_int(data.get("nodes_per_rack", 1), "nodes_per_rack")
        # SLS takes a nodes_per_rack below 1 as 1 (SynthTraceJobProducer.getNodesPerRack)
        return Cluster(nodes=nodes, racks=math.ceil(nodes / max(per_rack, 1)), **fields)
    except InvalidInput as error:
        raise error.in_file(source) from None


def _spec(data: object) -> _Spec:
    top = as_mapping(data, "")
    check_keys(top, _TOP_KEYS, "", required=("num_jobs", "workloads"))
    num_jobs = as_int(top["num_jobs"], "num_jobs", minimum=1, maximum=MAX_JOBS)
    seed = as_int(top.get("rand_seed", 0), "rand_seed", minimum=0, maximum=MAX_SEED)
    raw = top["workloads"]
    if not isinstance(raw, list) or not raw:
        raise InvalidInput("workloads", "must be a non-empty list of workloads")
    used: set[str] = set()
    workloads = tuple(_workload(item, f"workloads[{w}]", used) for w, item in enumerate(raw))
    _positive_total([w.weight for w in workloads], "workloads", "workload_weight")
    ignored = [what for what, keys in SYNTH_IGNORED.items() if used.intersection(keys)]
    if any(c.reservation > 0 for w in workloads for c in w.classes):
        ignored.append("YARN reservations (chance_of_reservation only decides which jobs get a deadline)")
    cluster = [key for key in ("num_nodes", "nodes_per_rack") if key in top]
    if cluster:
        ignored.append(f"the cluster ({', '.join(cluster)}; synth_cluster reads it)")
    return _Spec(num_jobs, seed, workloads, tuple(ignored))


def _workload(data: object, where: str, used: set[str]) -> _Workload:
    item = as_mapping(data, where)
    check_keys(item, _WORKLOAD_KEYS, where, required=("workload_weight", "job_classes", "time_distribution"))
    weight = as_float(item["workload_weight"], f"{where}.workload_weight", minimum=0.0, maximum=MAX_WEIGHT)
    queue = as_str(item.get("queue_name", "default"), f"{where}.queue_name")
    raw = item["job_classes"]
    if not isinstance(raw, list) or not raw:
        raise InvalidInput(f"{where}.job_classes", "must be a non-empty list of job classes")
    classes = tuple(_job_class(c, f"{where}.job_classes[{i}]", used) for i, c in enumerate(raw))
    _positive_total([c.weight for c in classes], f"{where}.job_classes", "class_weight")
    points = item["time_distribution"]
    if not isinstance(points, list) or not points:
        raise InvalidInput(f"{where}.time_distribution", "must be a non-empty list of {time, weight} points")
    times: list[float] = []
    time_weights: list[float] = []
    for p, point in enumerate(points):
        at = f"{where}.time_distribution[{p}]"
        check_keys(as_mapping(point, at), ("time", "weight"), at, required=("time", "weight"))
        time = as_float(point["time"], f"{at}.time", minimum=0.0, maximum=MAX_SECONDS)
        if times and time <= times[-1]:
            raise InvalidInput(f"{at}.time", f"must be after the previous point's ({times[-1]:g} s), got {time:g}")
        times.append(time)
        time_weights.append(as_float(point["weight"], f"{at}.weight", minimum=0.0, maximum=MAX_WEIGHT))
    _positive_total(time_weights, f"{where}.time_distribution", "weight")
    return _Workload(weight, queue, classes, tuple(times), tuple(time_weights))


def _job_class(data: object, where: str, used: set[str]) -> _Class:
    item = as_mapping(data, where)
    newer = sorted(set(item) & set(_NEWER_FORM))
    if newer:
        raise InvalidInput(f"{where}.{newer[0]}", "SLS's newer job-class form (task lists of samples) is not "
                                                   "read; give the flat form (mtasks_avg, mtime_avg, ...)")
    check_keys(item, _CLASS_KEYS, where, required=("class_weight", "mtasks_avg", "mtime_avg"))
    used.update(item)
    name = as_str(item.get("class_name", "job"), f"{where}.class_name")
    drawn: dict[str, tuple[float, float]] = {}
    for key in _DRAWN:
        top = MAX_DEADLINE_FACTOR if key == "deadline_factor" else MAX_TASKS if key.endswith("tasks") else MAX_SECONDS
        avg = as_float(item.get(f"{key}_avg", 0.0), f"{where}.{key}_avg", minimum=0.0, maximum=top)
        std = as_float(item.get(f"{key}_stddev", 0.0), f"{where}.{key}_stddev", minimum=0.0, maximum=top)
        drawn[key] = (avg, std)
    for needed in ("mtasks", "mtime", *(("rtime",) if drawn["rtasks"][0] > 0 else ())):
        if drawn[needed][0] <= 0:
            raise InvalidInput(f"{where}.{needed}_avg", "must be > 0"
                               + (" when rtasks_avg is" if needed == "rtime" else ""))
    reservation = as_float(item.get("chance_of_reservation", 0.0), f"{where}.chance_of_reservation",
                           minimum=0.0, maximum=1.0)
    weight = as_float(item["class_weight"], f"{where}.class_weight", minimum=0.0, maximum=MAX_WEIGHT)
    return _Class(name, weight, reservation, drawn)


def _positive_total(weights: list[float], where: str, key: str) -> None:
    if not sum(weights) > 0:
        raise InvalidInput(where, f"the {key}s add up to 0; one at least must be > 0")


def _log_normal(z: np.ndarray, params: np.ndarray) -> np.ndarray:
    """exp(mu + sigma z): log-normal with mean params[:, 0] and stddev params[:, 1] (0: mean / 6)."""
    mean, std = params[:, 0], params[:, 1]
    std = np.where(std > 0, std, mean / 6)
    # a mean of 0 (no reduces) draws 0; a stddev absurdly above its mean overflows to NaN, which
    # draws 0 too (the callers' floors then apply) rather than an undefined count
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sigma2 = np.log1p((std / mean) ** 2)
        value = np.exp(np.log(mean) - sigma2 / 2 + np.sqrt(sigma2) * z)
    return np.nan_to_num(np.where(mean > 0, value, 0.0), nan=0.0)


def _pick(weights: tuple[float, ...] | list[float], u: np.ndarray) -> np.ndarray:
    """Indices picked by weight for uniform draws ``u`` in [0, 1) (SLS's SynthUtils.getWeighted)."""
    cumulative = np.cumsum(weights)
    return np.minimum(np.searchsorted(cumulative, u * cumulative[-1], side="right"), len(weights) - 1)


def _draw(spec: _Spec, limit: int | None) -> list[Job]:
    # Three streams from the seed: the jobs, their map task times, their reduce task times. Every
    # job's own draws are made for all num_jobs jobs, in submit order, and task times are taken
    # job after job in that order: so a limit keeps exactly the first jobs of the full draw.
    jobs_rng, map_rng, reduce_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(spec.seed).spawn(3))
    n = spec.num_jobs
    # First every job's workload, submit time and class (as SLS's createStory), then the rest
    picked = _pick([w.weight for w in spec.workloads], jobs_rng.random(n))
    u_point, u_within, u_class = jobs_rng.random(n), jobs_rng.random(n), jobs_rng.random(n)
    submits = np.empty(n)
    chosen = np.empty(n, dtype=np.int64)
    for w, workload in enumerate(spec.workloads):
        mine = picked == w
        times = np.array(workload.times)
        # a point's time span reaches the next point; the last point's is empty (its time exactly)
        spans = np.append(np.diff(times), 0.0)
        point = _pick(workload.time_weights, u_point[mine])
        submits[mine] = times[point] + spans[point] * u_within[mine]
        chosen[mine] = _pick([c.weight for c in workload.classes], u_class[mine])
    # SLS gives a deadline when a uniform draw is <= the chance; < keeps a chance of 0 at none
    z, u_deadline = jobs_rng.standard_normal((4, n)), jobs_rng.random(n)
    m = min(limit or n, n)
    order = np.argsort(submits, kind="stable")[:m]
    kept = [(spec.workloads[picked[i]], spec.workloads[picked[i]].classes[chosen[i]]) for i in order]
    params = {key: np.array([c.drawn[key] for _, c in kept]) for key in _DRAWN}
    # Java's Math.round: halves round up (NumPy's rint would round them to even)
    maps = np.clip(np.floor(_log_normal(z[0, :m], params["mtasks"]) + 0.5), 1, MAX_TASKS).astype(np.int64)
    reduces = np.clip(np.floor(_log_normal(z[1, :m], params["rtasks"]) + 0.5), 0, MAX_TASKS).astype(np.int64)
    total = int(maps.sum() + reduces.sum())
    if total > MAX_WORKLOAD_TASKS:
        raise InvalidInput("num_jobs", f"the {m:,} jobs drawn have {total:,} tasks; a workload has at most "
                                       f"{MAX_WORKLOAD_TASKS:,} (a smaller num_jobs, or a limit)")
    map_times = _mean_task_times(map_rng, maps, params["mtime"])
    reduce_times = _mean_task_times(reduce_rng, reduces, params["rtime"])
    slack = _log_normal(z[3, :m], params["deadline_factor"]) * _log_normal(z[2, :m], params["dur"])
    has_deadline = u_deadline[:m] < np.array([c.reservation for _, c in kept])
    jobs = []
    for k, (workload, job_class) in enumerate(kept):
        submit = float(submits[order[k]])
        deadline = min(submit + float(slack[k]), MAX_SECONDS) if has_deadline[k] else None
        jobs.append(Job(f"{job_class.name}_{k:06d}", int(maps[k]), int(reduces[k]), float(map_times[k]),
                        float(reduce_times[k]), submit=submit, pool=workload.queue,
                        # no duration or factor (avg 0), or one too small to add to the submit time
                        deadline=deadline if deadline is not None and deadline > submit else None))
    return jobs


def _mean_task_times(rng: np.random.Generator, counts: np.ndarray, params: np.ndarray) -> np.ndarray:
    """Each task's time drawn on its own (at least `MIN_TASK_SECONDS`), the mean per job (0 without tasks)."""
    owner = np.repeat(np.arange(len(counts)), counts)
    times = np.clip(_log_normal(rng.standard_normal(len(owner)), params[owner]), MIN_TASK_SECONDS, MAX_SECONDS)
    sums = np.bincount(owner, weights=times, minlength=len(counts))
    return np.divide(sums, counts, out=np.zeros(len(counts)), where=counts > 0)
