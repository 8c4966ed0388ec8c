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


# Values far outside what makes sense (the outside fuzzing's tracebacks and hangs): every one is
# refused with InvalidInput naming its limit, or accepted with every derived product finite.
absurd_numbers = st.one_of(
    st.builds(lambda k, sign: sign * 10**k, st.integers(0, 4000), st.sampled_from([1, -1])),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, -1e308, 5e-324, 1e-320, 2**63, 2**64 + 1, 1100, -1100, 1e20, 0.001, 1e-4]),
)


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(JOB_KEYS[1:10]), value=absurd_numbers)
def test_absurd_job_numbers_are_refused_or_finite(field, value):
    from models import Job

    try:
        job = Job(**{"name": "j", "map_tasks": 4, "reduce_tasks": 2, "map_time": 10.0, "reduce_time": 5.0,
                     field: value})
    except InvalidInput as error:
        assert len(str(error)) < 300  # the value is cut, never printed whole
        return
    assert math.isfinite(job.work) and math.isfinite(job.weight * 2.0**job.priority)


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from([*Cluster.__dataclass_fields__]), value=absurd_numbers)
def test_absurd_cluster_numbers_are_refused_or_bounded(field, value):
    from models.limits import MAX_TOTAL_SLOTS, MAX_VMS

    try:
        cluster = Cluster(**{"nodes": 4, field: value})
    except InvalidInput as error:
        assert len(str(error)) < 300
        return
    assert cluster.total_slots <= MAX_TOTAL_SLOTS and cluster.vms <= MAX_VMS
    assert cluster.heartbeat == 0 or 0.001 <= cluster.heartbeat <= 3600


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_shown_values_are_short_whatever_they_are(value):
    from models.checks import shown

    for wrapped in (value, [value] * 50, {"k": value, "big": 10**5000}, "x" * 10_000):
        assert len(shown(wrapped)) <= 60


@st.composite
def alias_documents(draw):
    """YAML where each level repeats the one before by aliases: from harmless to a billion laughs."""
    levels, fan = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    lines = ["a0: &a0 [x, y]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * fan) + "]")
    lines.append(f"jobs: *a{levels - 1}")
    return "\n".join(lines) + "\n", 2 * fan ** (levels - 1)


@settings(max_examples=100, deadline=5000)
@given(alias_documents())
def test_yaml_aliases_expand_within_the_bound_or_are_refused(document):
    from models.fileio import parse_text
    from models.limits import MAX_ALIAS_NODES

    text, strings = document
    try:
        data = parse_text(text, "yaml")
    except InvalidInput as error:
        assert "aliases expand to more than" in str(error) and strings > MAX_ALIAS_NODES // 20
        return
    assert isinstance(data, dict) and strings <= MAX_ALIAS_NODES


@settings(max_examples=60, deadline=5000)
@given(depth=st.integers(0, 200_000), fmt=st.sampled_from(["yaml", "json"]), digits=st.integers(1, 6000))
def test_deep_nesting_and_long_numbers_are_refused_quickly(depth, fmt, digits):
    from models.fileio import parse_text
    from models.limits import MAX_NESTING, MAX_NUMBER_CHARS

    number = "7" * digits
    try:
        parse_text("[" * depth + number + "]" * depth, fmt)
    except InvalidInput:
        return
    assert depth <= max(MAX_NESTING, 900) and digits <= MAX_NUMBER_CHARS


@settings(max_examples=25, deadline=None)
@given(priorities=st.lists(st.integers(-100, 100), min_size=2, max_size=4),
       weights=st.lists(st.sampled_from([1e-6, 1.0, 1e6]), min_size=4, max_size=4))
def test_fair_scheduler_takes_any_priority_and_weight_within_the_limits(priorities, weights):
    """2 ** priority times the weight: 2 ** 100 * 1e6 and 2 ** -100 * 1e-6 still share fairly."""
    from models import Job
    from planner.simulator import simulate

    jobs = [Job(f"j{i}", 3, 1, 2.0, 1.0, weight=weights[i], priority=p) for i, p in enumerate(priorities)]
    result = simulate(jobs, Cluster(nodes=2, heartbeat=0), "fair")
    assert math.isfinite(result.makespan) and len(result.jobs) == len(jobs)


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(["reduce_slowstart", "task_time_cv", "rack_factor", "copy_compute", "containers"]),
       value=st.one_of(absurd_numbers, json_values))
def test_simulation_options_are_refused_or_bounded(key, value):
    from planner.simulator import options_from_dict

    try:
        options = options_from_dict({key: {"io": value} if key == "rack_factor" else value})
    except InvalidInput as error:
        assert len(str(error)) < 300
        return
    assert options.task_time_cv <= 10 and max(options.rack_factor.values()) <= 100


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(["delay", "preemption", "pools", "k", "suspend_overhead"]),
       value=st.one_of(absurd_numbers, json_values))
def test_scheduler_settings_are_refused_or_bounded(key, value):
    from planner.simulator.config import settings_from_dict as read

    scheduler = {"delay": "fair", "preemption": "fair", "pools": "fair", "k": "fresh", "suspend_overhead": "natjam"}
    data = {"preemption": {"recheck": value}, "pools": [{"name": "p", "weight": value}]}.get(key, value)
    try:
        read({"scheduler": scheduler[key], key: data})
    except InvalidInput as error:
        assert len(str(error)) < 300


swim_cells = st.one_of(st.sampled_from(["1e400", "nan", "-1", "", "9" * 500, "1e308", str(2**61), "0", "abc"]),
                       st.integers(0, 10**20).map(str))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(swim_cells, min_size=3, max_size=3), conversion=st.sampled_from([{}, {"block_size": 1}]))
def test_swim_lines_with_absurd_byte_counts(tmp_path, cells, conversion):
    from planner.io.swim import read_swim

    path = tmp_path / "t.tsv"
    path.write_text("job0\t1\t1\t" + "\t".join(cells) + "\n")
    try:
        workload = read_swim(path, **conversion)
    except InvalidInput as error:
        assert str(error).startswith(f"{path}: line 1")
        return
    assert all(math.isfinite(job.work) for job in workload)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.sampled_from(["a", "b"]), swim_cells, swim_cells), min_size=1, max_size=5))
def test_fitting_absurd_runtimes_names_the_file_and_writes_finite_numbers(tmp_path, rows):
    from planner.io.fitting import fit_runtimes

    path = tmp_path / "r.csv"
    path.write_text("job,nodes,runtime\n" + "".join(f"{j},{n},{r}\n" for j, n, r in rows))
    try:
        fits = fit_runtimes(path)
    except InvalidInput as error:
        assert str(error).startswith(f"{path}: ")
        return
    assert all(math.isfinite(f.a) and math.isfinite(f.b) and f.a > 0 for f in fits)
