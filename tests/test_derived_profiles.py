"""Runtime profiles derived from task profiles: VM-level plans of imported traces."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from models import Cluster, Job, PowerLawProfile, Workload
from models.profiles import DerivedProfileWarning, wave_power_law, wave_runtime, with_wave_profiles
from models.profiles.derived import vm_counts
from planner import read_swim
from planner.cli.main import app
from planner.planning.make import make_plan
from planner.proof.validate import example_run, validate

DATA = Path(__file__).parent / "data"


def test_vm_counts_are_powers_of_two_and_n():
    assert vm_counts(Cluster(nodes=10)) == [1, 2, 4, 8, 16, 20]  # N = 10 x 2 disks
    assert vm_counts(Cluster(nodes=1, disks=1)) == [1, 2]


def test_jobs_without_a_profile_get_the_wave_model_and_the_others_keep_theirs():
    """A VM of a 2-disk machine with 4 map and 2 reduce slots holds 2 map and 1 reduce slot; the
    profile is the power law fitted to the wave runtimes on 1, 2, 4, ..., N VMs."""
    cluster = Cluster(nodes=4, map_slots=4, reduce_slots=2)
    own = PowerLawProfile().fit(np.array([[1.0], [8.0]]), np.array([100.0, 20.0]))
    workload = Workload([Job("a", 16, 4, 10.0, 20.0), Job("b", 8, 0, 5.0, profile=own)])
    profiled, derived = with_wave_profiles(workload, cluster)
    assert derived == ["a"] and profiled.jobs[1].profile is own
    expected = wave_power_law(workload.jobs[0], 2, 1, [1, 2, 4, 8])
    assert profiled.jobs[0].profile.a_ == expected.a_ and profiled.jobs[0].profile.b_ == expected.b_
    # one VM: 8 waves of maps (16 / 2) and 4 of reduces: 8 x 10 + 4 x 20 = 160 s, what the fit passes near
    assert wave_runtime(16, 4, 10.0, 20.0, 2, 1) == 160.0
    assert profiled.jobs[0].runtime(1) == pytest.approx(160.0, rel=0.35)
    assert with_wave_profiles(profiled, cluster) == (profiled, [])


def test_pairs_and_packing_plan_an_imported_trace_and_validation_runs_it():
    jobs = read_swim(DATA / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv", limit=12)
    cluster = Cluster(nodes=6)
    with pytest.warns(DerivedProfileWarning, match="12 of 12 jobs have no runtime profile"):
        pairs = make_plan(jobs, cluster, "pairs")
    with pytest.warns(DerivedProfileWarning):
        packing = make_plan(jobs, cluster, "packing", time_limit=20)
    assert pairs.predicted_makespan < pairs.baseline_makespan
    assert packing.predicted_makespan <= pairs.predicted_makespan + 1e-6
    report = validate(pairs, jobs, cluster, runs=2, executor="serial")
    assert report.setups[0]["mean"] > 0
    assert example_run(pairs, jobs, cluster).makespan > 0  # the Gantt chart's run derives them too


def test_fit_wave_from_the_command_line(tmp_path):
    read_swim(DATA / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv", limit=6).to_file(tmp_path / "w.yaml")
    Cluster(nodes=4).to_file(tmp_path / "c.yaml")
    runner = CliRunner()
    result = runner.invoke(app, ["fit", str(tmp_path / "w.yaml"), "--wave", "-c", str(tmp_path / "c.yaml"),
                                 "-o", str(tmp_path / "p.yaml")])
    assert result.exit_code == 0, result.output
    profiled = Workload.from_file(tmp_path / "p.yaml")
    assert all(job.profile is not None for job in profiled)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DerivedProfileWarning)  # nothing left to derive
        make_plan(profiled, Cluster(nodes=4), "pairs")
    missing = runner.invoke(app, ["fit", str(tmp_path / "w.yaml"), "--wave"])
    assert missing.exit_code == 2 and "--cluster: --wave needs the cluster" in missing.output
