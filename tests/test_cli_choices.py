"""The names the command's help lists (written in `planner.cli.choices` so that the help starts
fast) are the registries' names; and the importer registry's contract."""

from __future__ import annotations

import dataclasses
import inspect
import warnings

import pytest

from models import InvalidInput, Job, Workload
from planner.cli.choices import SCHEDULER_NAMES, SOLVER_CHOICES, SWIM_SETTINGS, TARGET_NAMES, TRACE_FORMATS
from planner.cli.planning import Target
from planner.io.importers import IMPORTERS, Importer, read_trace, register_importer
from planner.io.swim import SwimConversion
from planner.io.targets import target_names
from planner.planning.vm import all_solver_choices
from planner.simulator import SCHEDULERS


def test_scheduler_names_are_the_registry():
    assert tuple(sorted(SCHEDULERS)) == SCHEDULER_NAMES


def test_target_names_are_the_registry():
    assert TARGET_NAMES == target_names() == tuple(Target)


def test_solver_choices_are_the_registry():
    assert all_solver_choices() == SOLVER_CHOICES


def test_swim_settings_are_the_conversion_fields():
    assert set(SWIM_SETTINGS) == {f.name for f in dataclasses.fields(SwimConversion)}


def test_trace_formats_are_the_importers():
    assert TRACE_FORMATS == ("swim", "rumen", "sls", "synth", "swf", "oozie", "spark") == tuple(IMPORTERS)


@pytest.mark.parametrize("name", sorted(IMPORTERS))
def test_every_importer_keeps_the_contract(name, data_dir):
    """Each registered importer: its reader exists, takes a path and the options it declares
    (SWIM's conversion settings through ``**conversion``), and reads its sample into a Workload."""
    importer = IMPORTERS[name]
    reader = importer.reader()
    parameters = inspect.signature(reader).parameters
    takes_more = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    for option in importer.options:
        assert option in parameters or (takes_more and option in SWIM_SETTINGS), option
    sample = {"swim": "FB-2009_samples_24_times_1hr_0_first50jobs.tsv", "rumen": "wordcount.json",
              "sls": "inputsls.json", "synth": "hadoop-conf/sls-synth.json", "swf": "sample.swf",
              "oozie": "oozie/spark-workflow.xml", "spark": "spark-events/eventlog_v2_local-1766844910796"}[name]
    # an Oozie workflow's jobs take their profiles from a trace, or from a default job
    options = {"oozie": {"default_job": Job("default", 1, 0, 1.0)}}.get(name, {})
    with warnings.catch_warnings():  # the Spark sample's events that are not modelled are named
        warnings.simplefilter("ignore")
        workload = read_trace(name, data_dir / sample, **options)
    assert isinstance(workload, Workload) and len(workload) > 0


def test_read_trace_refuses_unknown_formats_and_options(data_dir):
    with pytest.raises(InvalidInput, match="unknown trace format 'csv'; known: swim, rumen, sls"):
        read_trace("csv", data_dir / "wordcount.json")
    with pytest.raises(InvalidInput, match=r"^limit: is not an option of the rumen importer \(it takes: keep_failed\)"):
        read_trace("rumen", data_dir / "wordcount.json", limit=3)


def test_swim_through_the_registry_is_read_swim(data_dir):
    from planner.io.swim import read_swim

    path = data_dir / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"
    assert read_trace("swim", path, limit=5, map_rate=1e7) == read_swim(path, limit=5, map_rate=1e7)


@pytest.mark.parametrize(("name", "function", "problem"), [
    ("Swim", "read", "name: must be a lowercase word"),
    ("", "read", "name: must be a lowercase word"),
    ("x", "not a name", "function: must name a function"),
])
def test_bad_importers_are_refused(name, function, problem):
    with pytest.raises(InvalidInput, match=problem):
        Importer(name, "planner.io.swim", function, "a format")


def test_a_name_is_registered_once():
    with pytest.raises(InvalidInput, match="already registered"):
        register_importer(Importer("swim", "planner.io.swim", "read_swim", "again"))
