"""The main job on bundled data (tonight's batch planned and proven): what `planner demo` and `make demo` run."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from models import Cluster, Workload
from models.checks import as_int
from planner.io.summary import workload_summary
from planner.io.swim import read_swim
from planner.planning.make import make_plan
from planner.plans.plan import Plan
from planner.proof.sweep import ExecutorChoice, ProgressOption
from planner.proof.validate import ValidationReport, check_noise, example_run, validate
from planner.simulator import SimResult

SWIM_SAMPLE = "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"
RUMEN_SAMPLE = "rumen-wordcount.json"
#: The cluster the demo plans for: 20 nodes of 2 map + 2 reduce slots (a small
#: slice of the 600-machine cluster the FB-2009 trace came from).
DEMO_CLUSTER = Cluster(nodes=20, map_slots=2, reduce_slots=2, racks=2)


def bundled(name: str) -> Path:
    """Path of a file shipped in planner/data (see its NOTICE.md)."""
    return Path(str(resources.files("planner") / "data" / name))


#: Tonight's batch of the demo (see NOTICE.md): the first 40 jobs of the FB-2009 day with at
#: least 10 maps and a reduce phase, converted with `read_swim`'s defaults.
NIGHTLY_BATCH = "FB-2009_nightly40.tsv"


def nightly_batch() -> Workload:
    """The bundled nightly batch (40 jobs from the SWIM FB-2009 trace, NOTICE.md)."""
    return read_swim(bundled(NIGHTLY_BATCH))


@dataclass(frozen=True)
class DemoResult:
    """What `run_demo` made: the batch, the plan, its validation and one noise-free run of it."""

    workload: Workload
    cluster: Cluster
    plan: Plan
    report: ValidationReport
    example: SimResult

    def sections(self) -> list[tuple[str, str, list[dict[str, Any]]]]:
        """The printed summary as (key, title, records): the batch, the plan, its validation and
        each setup. The keys are the command's JSON keys; the titles are for people."""
        return [
            ("batch", f"tonight's batch ({self.workload.name}: SWIM FB-2009, 40 jobs)",
             [workload_summary(self.workload)]),
            ("plan", f"plan on {self.cluster.nodes} nodes ({self.cluster.total_slots} slots)", [self.plan.summary()]),
            ("validation", "validation", [self.report.summary()]),
            ("setups", "predicted against simulated makespan (seconds)", self.report.brief()),
        ]


def run_demo(
    cluster: Cluster = DEMO_CLUSTER,
    *,
    runs: int = 30,
    noise: float = 0.3,
    seed: int = 0,
    robust_runs: int = 10,
    executor: ExecutorChoice = None,
    progress: ProgressOption = False,
) -> DemoResult:
    """Plan tonight's bundled batch and prove the plan in the simulator.

    - the batch: `nightly_batch` (40 FB-2009 jobs, every one ready at the start);
    - the plan: a robust slot plan (`make_plan(..., robust=True)`, k = 5): the candidate
      split and order with the best simulated p90 makespan over ``robust_runs`` biased runs;
    - its validation (`validate`): ``runs`` runs with every job's times biased by up to
      ``noise``, against Fair 1:3, 2:2, 3:1 and FIFO;
    - one noise-free run of the plan, for the Gantt chart and fairness over time.
    """
    runs, noise = as_int(runs, "runs", minimum=2), check_noise(noise)  # before minutes of planning
    workload = nightly_batch()
    plan = make_plan(workload, cluster, "slots+johnson", robust=True, runs=robust_runs, noise=noise, seed=seed,
                     executor=executor, progress=progress)
    report = validate(plan, workload, cluster, runs=runs, noise=noise, seed=seed, executor=executor,
                      progress=progress)
    return DemoResult(workload, cluster, plan, report, example_run(plan, workload, cluster, seed=seed))
