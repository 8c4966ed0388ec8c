"""Malformed workload and cluster data raise InvalidInput and nothing else."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models import Cluster, InvalidInput, Workload

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
JOB_KEYS = ["name", "map_tasks", "reduce_tasks", "map_time", "reduce_time", "submit", "pool",
            "weight", "priority", "deadline", "intensity", "profile", "bogus"]


@st.composite
def mutated_workloads(draw):
    """A valid workload dictionary with some fields replaced by arbitrary values."""
    jobs = []
    for index in range(draw(st.integers(min_value=0, max_value=3))):
        job = {"name": f"j{index}", "map_tasks": 4, "reduce_tasks": 2, "map_time": 10.0, "reduce_time": 5.0}
        for key in draw(st.lists(st.sampled_from(JOB_KEYS), max_size=3)):
            job[key] = draw(json_values)
        jobs.append(job)
    data: dict = {"jobs": jobs}
    if draw(st.booleans()):
        data[draw(st.sampled_from(["jobs", "name", "extra"]))] = draw(json_values)
    return data


def _loads_or_invalid(load, data) -> None:
    try:
        load(data)
    except InvalidInput as error:
        assert str(error)  # every rejection says what is wrong


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_workloads())
def test_mutated_workload_dicts(data):
    _loads_or_invalid(Workload.from_dict, data)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_arbitrary_values_as_workload_or_cluster(data):
    _loads_or_invalid(Workload.from_dict, data)
    _loads_or_invalid(Cluster.from_dict, data)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([*Cluster.__dataclass_fields__, "zzz"]), json_values, max_size=5))
def test_mutated_cluster_dicts(data):
    data = {"nodes": 4, **data}
    _loads_or_invalid(Cluster.from_dict, data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80), suffix=st.sampled_from([".yaml", ".json"]))
def test_arbitrary_file_text(tmp_path, text, suffix):
    path = tmp_path / f"w{suffix}"
    path.write_text(text, encoding="utf-8")
    _loads_or_invalid(Workload.from_file, path)
    _loads_or_invalid(Cluster.from_file, path)


def test_valid_data_survives_property_strategy_shape():
    """The unmutated base of `mutated_workloads` is valid, so the test explores near-valid input."""
    data = {"jobs": [{"name": "j0", "map_tasks": 4, "reduce_tasks": 2, "map_time": 10.0, "reduce_time": 5.0}]}
    assert math.isclose(Workload.from_dict(data)["j0"].map_work, 40.0)
