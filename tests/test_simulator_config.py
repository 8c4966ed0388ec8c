"""Scheduler settings from plain data and files (planner/simulator/config.py, planner/io/settings.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import planner
import planner.io.settings as settings_files
import planner.simulator as simulator
from models import Cluster, InvalidInput, Workload
from planner.io.settings import load_scheduler, load_settings, simulation_settings
from planner.simulator import (
    SCHEDULERS,
    Capacity,
    DelayScheduling,
    Fair,
    Fifo,
    Pool,
    Preemption,
    Queue,
    Scheduler,
    SimOptions,
    simulate,
)
from planner.simulator.config import (
    options_from_dict,
    scheduler_from_dict,
    settings_from_dict,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

FAIR_YAML = """\
scheduler: fair
pools:
  - {name: production, weight: 2, min_map: 10, min_reduce: 4}
  - {name: research, mode: fifo, max_running: 2}
delay: {node_wait: 15, rack_wait: 10, intensities: [io]}
preemption: {min_share_timeout: 30, fair_share_timeout: null, recheck: 2}
options: {reduce_slowstart: 0.8, copy_compute: [3, 1]}
"""

CAPACITY_YAML = """\
scheduler: capacity
queues:
  - {name: production, capacity: 0.6}
  - {name: research, capacity: 0.4, max_capacity: 0.5}
delay: [15, 15]
"""


def test_exported_from_the_package():
    for name in ("scheduler_from_dict", "options_from_dict"):
        assert getattr(simulator, name) is getattr(simulator.config, name)
    for name in ("load_scheduler", "load_settings", "simulation_settings"):
        assert getattr(planner, name) is getattr(settings_files, name)


def test_fifo_with_and_without_delay():
    assert scheduler_from_dict("fifo", None).delay is None
    assert scheduler_from_dict("fifo", {"delay": None}).delay is None
    fifo = scheduler_from_dict("fifo", {"delay": [15, 5]})
    assert isinstance(fifo, Fifo)
    assert fifo.describe() == {"name": "fifo", "delay": {"node_wait": 15.0, "rack_wait": 5.0, "intensities": None}}


def test_fair_settings_become_pools_delay_and_preemption():
    fair = scheduler_from_dict(
        "fair",
        {
            "pools": [{"name": "production", "weight": 2, "min_map": 10, "min_reduce": 4},
                      {"name": "research", "mode": "fifo", "max_running": 2}],
            "delay": {"node_wait": 15, "rack_wait": 10, "intensities": ["io"]},
            "preemption": {"min_share_timeout": 30, "fair_share_timeout": None},
        },
    )
    assert isinstance(fair, Fair)
    assert fair.pools == {
        "production": Pool("production", weight=2.0, min_map=10, min_reduce=4),
        "research": Pool("research", mode="fifo", max_running=2),
    }
    assert fair.delay.describe() == {"node_wait": 15.0, "rack_wait": 10.0, "intensities": ["io"]}
    assert fair.preemption == Preemption(min_share_timeout=30.0, fair_share_timeout=None, recheck=1.0)


@pytest.mark.parametrize(("value", "expected"), [(True, Preemption()), (False, None), (None, None)])
def test_preemption_switches(value, expected):
    assert scheduler_from_dict("fair", {"preemption": value}).preemption == expected


def test_capacity_settings_become_queues():
    capacity = scheduler_from_dict("capacity", {"queues": [{"name": "a", "capacity": 0.7},
                                                           {"name": "b", "capacity": 0.3, "max_capacity": 0.3}]})
    assert isinstance(capacity, Capacity)
    assert capacity.queues == [Queue("a", 0.7, 1.0), Queue("b", 0.3, 0.3)]


def test_instances_pass_through():
    delay = DelayScheduling(1, 2)
    fair = scheduler_from_dict("fair", {"pools": [Pool("x", weight=3)], "delay": delay, "preemption": Preemption()})
    assert fair.delay is delay and fair.pools["x"].weight == 3.0


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("fair", {"pools": [{"name": "a"}, {"name": "b", "weigth": 2}]},
         "pools[1].weigth: unknown key; expected one of max_map, max_reduce, max_running, min_map, min_reduce, "
         "mode, name, weight"),
        ("fair", {"pools": [{"weight": 2}]}, "pools[0].name: is required"),
        ("fair", {"pools": [{"name": 7}]}, "pools[0].name: must be a string, got 7 (int)"),
        ("fair", {"pools": [{"name": "a"}, {"name": "b", "weight": -1}]}, "pools[1].weight: must be > 0, got -1"),
        ("fair", {"pools": [{"name": "a", "mode": "lifo"}]}, "pools[0].mode: must be one of fair, fifo; got 'lifo'"),
        ("fair", {"pools": [{"name": "a", "min_map": 1.5}]}, "pools[0].min_map: must be an integer, got 1.5"),
        ("fair", {"pools": [{"name": "a"}, {"name": "a"}]}, "pools[1].name: duplicate pool 'a'"),
        ("fair", {"pools": {"name": "a"}}, "pools: must be a list of pools"),
        ("fair", {"pools": ["a"]}, "pools[0]: must be a mapping, got str"),
        ("fair", {"preemption": {"min_share": 3}},
         "preemption.min_share: unknown key; expected one of fair_share_timeout, min_share_timeout, recheck"),
        ("fair", {"preemption": {"recheck": 0}}, "preemption.recheck: must be >= 0.001, got 0"),
        ("fair", {"preemption": "yes"}, "preemption: must be a mapping"),
        ("fair", {"delay": [15]}, "delay: must be [node_wait, rack_wait] in seconds, got [15]"),
        ("fair", {"delay": [15, -1]}, "delay[1]: must be >= 0, got -1"),
        ("fair", {"delay": [True, 1]}, "delay[0]: must be a number, got True (bool)"),
        ("fair", {"delay": 15}, "delay: must be [node_wait, rack_wait] or a mapping"),
        ("fair", {"delay": {"node_wait": 1}}, "delay.rack_wait: is required"),
        ("fair", {"delay": {"node_wait": 1, "rack_wait": 1, "kinds": ["io"]}},
         "delay.kinds: unknown key; expected one of intensities, node_wait, rack_wait"),
        ("fair", {"delay": {"node_wait": 1, "rack_wait": 1, "intensities": ["disk"]}},
         "delay.intensities: must be one of cpu, io, balanced; got 'disk'"),
        ("capacity", {"queues": [{"name": "a", "capcity": 0.5}]},
         "queues[0].capcity: unknown key; expected one of capacity, max_capacity, name"),
        ("capacity", {"queues": [{"name": "a"}]}, "queues[0].capacity: is required"),
        ("capacity", {"queues": [{"name": "a", "capacity": 0.5, "max_capacity": 0.4}]},
         "queues[0].max_capacity: must be between capacity (0.5) and 1, got 0.4"),
        ("capacity", {"queues": [{"name": "a", "capacity": 0.7}, {"name": "b", "capacity": 0.4}]},
         "queues: capacities add up to more than 1"),
        ("capacity", {"pools": []}, "pools: unknown key for the capacity scheduler; expected one of delay, queues"),
        ("fifo", {"preemption": True}, "preemption: unknown key for the fifo scheduler; expected one of delay"),
        ("lifo", {}, "scheduler: unknown scheduler 'lifo'; known: capacity, fair, fifo, fresh, natjam"),
    ],
)
def test_bad_settings_name_the_field(name, data, message):
    with pytest.raises(InvalidInput) as caught:
        scheduler_from_dict(name, data)
    assert str(caught.value).startswith(message)


def test_unknown_scheduler_lists_the_registered_ones(monkeypatch):
    class Lottery(Scheduler):
        name = "lottery"

        def __init__(self, tickets: int = 1, delay=None) -> None:
            super().__init__(delay)
            self.tickets = tickets

        def pick(self, node, kind, now):
            return None

    monkeypatch.setitem(SCHEDULERS, "lottery", Lottery)
    with pytest.raises(InvalidInput, match=r"known: capacity, fair, fifo, fresh, lottery, natjam$"):
        scheduler_from_dict("roulette", {})
    # a scheduler registered elsewhere takes its constructor's parameters as settings
    lottery = scheduler_from_dict("lottery", {"tickets": 5, "delay": [1, 2]})
    assert lottery.tickets == 5 and lottery.delay.node_wait == 1.0
    with pytest.raises(InvalidInput, match=r"^pools: unknown key for the lottery scheduler; expected one of delay, tickets"):
        scheduler_from_dict("lottery", {"pools": []})


def test_options_from_dict():
    assert options_from_dict(None) == SimOptions()
    options = options_from_dict({"reduce_slowstart": 0.5, "copy_compute": [4, 2], "rack_factor": {"io": 2}})
    assert options.copy_compute == (4, 2) and options.rack_factor["io"] == 2.0 and options.rack_factor["cpu"] == 1.05
    with pytest.raises(InvalidInput, match=r"^options\.slowstart: unknown key"):
        options_from_dict({"slowstart": 0.5})
    with pytest.raises(InvalidInput, match=r"^options\.reduce_slowstart: must be <= 1, got 2"):
        options_from_dict({"reduce_slowstart": 2})
    with pytest.raises(InvalidInput, match=r"^options\.rack_factor\.io: must be >= 1"):
        options_from_dict({"rack_factor": {"io": 0.5}})
    with pytest.raises(InvalidInput, match=r"^options: must be a mapping, got list"):
        options_from_dict([1])


def test_settings_mapping_names_its_scheduler():
    chosen, options = settings_from_dict({"scheduler": "fair", "pools": [{"name": "p"}]})
    assert isinstance(chosen, Fair) and options is None
    # the name may come from the caller instead, and must agree with the mapping's
    assert isinstance(settings_from_dict({"queues": [{"name": "q", "capacity": 1}]}, "capacity")[0], Capacity)
    assert isinstance(settings_from_dict({"scheduler": "fair"}, "fair")[0], Fair)
    assert isinstance(settings_from_dict({})[0], Fifo)
    with pytest.raises(InvalidInput, match=r"^scheduler: the settings are for 'fair', but 'capacity' was asked for"):
        settings_from_dict({"scheduler": "fair"}, "capacity")
    with pytest.raises(InvalidInput, match=r"^pools: unknown key for the fifo scheduler; expected one of delay, options, order, scheduler"):
        settings_from_dict({"pools": []})
    with pytest.raises(InvalidInput, match=r"^scheduler: must be a string"):
        settings_from_dict({"scheduler": 3})


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_load_settings_from_yaml_and_json(tmp_path, suffix):
    import yaml

    path = tmp_path / f"fair{suffix}"
    data = yaml.safe_load(FAIR_YAML)
    path.write_text(FAIR_YAML if suffix == ".yaml" else json.dumps(data))
    chosen, options = load_settings(path)
    assert isinstance(chosen, Fair) and chosen.pools["production"].min_map == 10
    assert chosen.preemption == Preemption(30.0, None, 2.0)
    assert chosen.delay.intensities == frozenset({"io"})
    assert options.reduce_slowstart == 0.8 and options.copy_compute == (3, 1)
    assert isinstance(load_scheduler(None, path), Fair)
    assert isinstance(load_scheduler("fair", path), Fair)


def test_file_errors_name_the_file(tmp_path):
    typo = tmp_path / "typo.yaml"
    typo.write_text("scheduler: fair\npools:\n  - {name: a}\n  - {name: b, weigth: 2}\n")
    with pytest.raises(InvalidInput) as caught:
        load_scheduler(None, typo)
    assert str(caught.value).startswith(f"{typo}: pools[1].weigth: unknown key")
    assert caught.value.source == str(typo) and caught.value.field == "pools[1].weigth"
    bad_options = tmp_path / "options.yaml"
    bad_options.write_text("options: {task_time_cv: -1}\n")
    with pytest.raises(InvalidInput, match=r"options\.yaml: options\.task_time_cv: must be >= 0, got -1"):
        load_settings(bad_options)
    with pytest.raises(InvalidInput, match=r"missing\.yaml: \(top level\): no such file"):
        load_scheduler("fair", tmp_path / "missing.yaml")
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    with pytest.raises(InvalidInput, match=r"empty\.yaml: \(top level\): top level must be a mapping, got empty"):
        load_scheduler("fair", empty)
    mismatch = tmp_path / "capacity.yaml"
    mismatch.write_text(CAPACITY_YAML)
    with pytest.raises(InvalidInput, match=r"capacity\.yaml: name: the settings are for 'capacity', but 'fair'"):
        load_scheduler("fair", mismatch)


def test_simulation_settings_overrides_replace_the_files(tmp_path):
    path = tmp_path / "fair.yaml"
    path.write_text(FAIR_YAML)
    chosen, options = simulation_settings(path, delay=(5, 5), task_time_cv=0.3, reduce_slowstart=None)
    assert chosen.delay.describe() == {"node_wait": 5.0, "rack_wait": 5.0, "intensities": None}
    assert chosen.pools["research"].max_running == 2  # the rest of the file stays
    assert (options.reduce_slowstart, options.task_time_cv, options.copy_compute) == (0.8, 0.3, (3, 1))
    # without a file: the named scheduler (default fifo) and default options
    chosen, options = simulation_settings(None, delay=(15, 15))
    assert isinstance(chosen, Fifo) and chosen.delay.node_wait == 15.0 and options == SimOptions()
    chosen, options = simulation_settings(None, "capacity", containers=True)
    assert isinstance(chosen, Capacity) and options.containers
    # an override's error names the field alone (the caller names its flag); the file's name the file
    with pytest.raises(InvalidInput) as caught:
        simulation_settings(path, delay=(5, -5))
    assert (caught.value.field, caught.value.source) == ("delay[1]", None)
    with pytest.raises(InvalidInput) as caught:
        simulation_settings(path, reduce_slowstart=3)
    assert (caught.value.field, caught.value.source) == ("reduce_slowstart", None)
    with pytest.raises(InvalidInput, match=r"^slowstart: unknown option"):
        simulation_settings(None, slowstart=0.5)


def test_a_file_simulates_like_the_python_instance(tmp_path):
    """Settings read from a file give the byte-identical run of the same scheduler built in Python."""
    workload = Workload.from_file(EXAMPLES / "nightly.yaml")
    cluster = Cluster.from_file(EXAMPLES / "cluster.yaml")
    path = tmp_path / "capacity.yaml"
    path.write_text(CAPACITY_YAML)
    from_file = simulate(workload, cluster, load_scheduler(None, path), seed=3)
    built = Capacity([Queue("production", 0.6), Queue("research", 0.4, 0.5)], delay=(15, 15))
    assert from_file.to_json() == simulate(workload, cluster, built, seed=3).to_json()
    assert from_file.scheduler["queues"][1] == {"name": "research", "capacity": 0.4, "max_capacity": 0.5}


@pytest.mark.parametrize(
    "scheduler",
    [
        Fifo(),
        Fifo(delay=DelayScheduling(3, 4, intensities=["io"])),
        Fair([Pool("a", 2, 3, 1, "fifo", 2), Pool("b")], delay=(1, 2), preemption=Preemption(None, 5, 2)),
        Capacity([Queue("q", 0.5, 0.7), Queue("r", 0.5)], delay=(3, 3)),
    ],
    ids=repr,
)
def test_a_result_files_scheduler_section_recreates_the_scheduler(scheduler):
    """`describe()` (the "scheduler" of a result file) read back gives the same settings."""
    data = json.loads(json.dumps(scheduler.describe()))
    name = data.pop("name")
    assert scheduler_from_dict(name, data).describe() == scheduler.describe()
