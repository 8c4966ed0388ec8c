"""The main job on bundled data: what `planner demo` and `make demo` run."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from models import Cluster, PhaseProfile, Workload, wave_power_law
from planner.plan import make_plan
from planner.summary import workload_summary
from planner.traces import read_rumen, read_swim, rumen_task_records

SWIM_SAMPLE = "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"
RUMEN_SAMPLE = "rumen-wordcount.json"
#: The cluster the demo plans for: 20 nodes of 2 map + 2 reduce slots (a small
#: slice of the 600-machine cluster the FB-2009 trace came from).
DEMO_CLUSTER = Cluster(nodes=20, map_slots=2, reduce_slots=2, racks=2)


def bundled(name: str) -> Path:
    """Path of a file shipped in planner/data (see its NOTICE.md)."""
    return Path(str(resources.files("planner") / "data" / name))


@dataclass(frozen=True)
class DemoResult:
    workload: Workload
    summary: dict[str, Any]
    profiles: list[dict[str, Any]]
    phases: list[dict[str, Any]]
    plans: list[dict[str, Any]]


def run_demo(cluster: Cluster = DEMO_CLUSTER, top: int = 8) -> DemoResult:
    """Import the bundled SWIM batch, fit profiles, plan it and summarize.

    - the batch: the first 50 jobs of the SWIM FB-2009 day (`read_swim` defaults);
    - power-law profiles F(n) = a n^b of each job's whole-wave runtime on
      1..cluster.nodes nodes (`wave_power_law`), for the ``top`` jobs by work;
    - phase profiles fitted from the task attempts of the bundled Rumen trace,
      beside what `read_rumen` reports for the same job;
    - slot plans for the batch on ``cluster``: Johnson order, then the best
      map/reduce split (`make_plan`, "slots+johnson", k = 5) under both fluid
      models. They differ sharply here: the "fresh" model lets a job's work
      spread over any number of slots, so a one-map job of 4,101 s (job38)
      seems to finish in minutes; "capped" keeps it on one slot.
    """
    workload = read_swim(bundled(SWIM_SAMPLE))
    nodes = range(1, cluster.nodes + 1)
    biggest = sorted(workload, key=lambda j: (-j.work, j.name))[:top]
    profiles = []
    for job in biggest:
        fit = wave_power_law(job, cluster.map_slots, cluster.reduce_slots, nodes)
        profiles.append(
            {
                "job": job.name,
                "maps": job.map_tasks,
                "reduces": job.reduce_tasks,
                "a": fit.a_,
                "b": fit.b_,
                "r2": fit.r2_,
                f"F({cluster.nodes})": fit(cluster.nodes),
            }
        )
    records = rumen_task_records(bundled(RUMEN_SAMPLE))
    phase = PhaseProfile().fit(records)
    imported = {job.name: job for job in read_rumen(bundled(RUMEN_SAMPLE))}
    phases = []
    for job in phase.to_jobs():
        phases.append(
            {
                "job": job.name,
                "maps": job.map_tasks,
                "reduces": job.reduce_tasks,
                "map_time": job.map_time,
                "reduce_time": job.reduce_time,
                "rumen_map_time": imported[job.name].map_time,
                "rumen_reduce_time": imported[job.name].reduce_time,
            }
        )
    plans = []
    for model in ("fresh", "capped"):
        summary = make_plan(workload, cluster, "slots+johnson", model=model).summary()
        plans.append({key: summary[key] for key in ("model", "k", "map_slots", "reduce_slots",
                                                    "predicted_makespan", "baseline_makespan", "predicted_gain")})
    return DemoResult(workload, workload_summary(workload), profiles, phases, plans)
