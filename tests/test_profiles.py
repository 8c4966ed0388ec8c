"""Profile estimators: power law, regression, phase profiles and the kind registry."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LinearRegression

from models import (
    ExtrapolationWarning,
    InvalidInput,
    Job,
    NotFittedError,
    PhaseProfile,
    PlannerError,
    PowerLawProfile,
    RegressionProfile,
    classify_intensity,
    profile_from_dict,
    profile_kinds,
    profile_to_dict,
    wave_power_law,
    wave_runtime,
)
from models.profiles import ProfileKind, register_profile_kind

NODES = np.array([2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0])


@pytest.mark.parametrize(("a", "b"), [(900.0, -0.8), (3600.0, -0.35), (40.0, 0.2), (1.5, -1.0)])
def test_power_law_recovers_coefficients_within_one_percent(a, b):
    runtimes = a * NODES**b
    profile = PowerLawProfile().fit(NODES.reshape(-1, 1), runtimes)
    assert profile.a_ == pytest.approx(a, rel=0.01)
    assert profile.b_ == pytest.approx(b, rel=0.01)
    assert profile.r2_ == pytest.approx(1.0)
    assert profile.n_range_ == (2.0, 32.0)
    assert profile(8) == pytest.approx(a * 8**b, rel=1e-9)
    np.testing.assert_allclose(profile(np.array([4.0, 16.0])), a * np.array([4.0, 16.0]) ** b, rtol=1e-9)


def test_power_law_r2_drops_with_noise():
    rng = np.random.default_rng(7)
    runtimes = 900 * NODES**-0.8 * rng.lognormal(0.0, 0.3, NODES.size)
    profile = PowerLawProfile().fit(NODES.reshape(-1, 1), runtimes)
    assert 0.0 < profile.r2_ < 0.999


def test_power_law_flat_profile_has_exponent_zero():
    profile = PowerLawProfile().fit(NODES.reshape(-1, 1), np.full(NODES.size, 50.0))
    assert profile.b_ == 0.0 and profile.a_ == pytest.approx(50.0) and profile.r2_ == 1.0


def test_power_law_two_features_product_form():
    """F(n, bytes) = 2 * n^-0.5 * bytes^0.9, so coef_ = [-0.5, 0.9] and b_ = -0.5."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(1, 40, 30), rng.uniform(1e6, 1e9, 30)]).astype(float)
    y = 2 * X[:, 0] ** -0.5 * X[:, 1] ** 0.9
    profile = PowerLawProfile().fit(X, y)
    np.testing.assert_allclose(profile.coef_, [-0.5, 0.9], rtol=1e-9)
    assert profile.b_ == pytest.approx(-0.5)
    with pytest.raises(InvalidInput, match="2 features"):
        profile(4)


def test_power_law_warns_outside_observed_range_only():
    profile = PowerLawProfile().fit(NODES.reshape(-1, 1), 900 * NODES**-0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        profile(2)
        profile(32)
        profile.predict([[10.0]])
    with pytest.warns(ExtrapolationWarning, match=r"n in \[2, 32\]"):
        profile(64)
    with pytest.warns(ExtrapolationWarning):
        profile.predict([[1.0]])
    quiet = PowerLawProfile(warn_extrapolation=False).fit(NODES.reshape(-1, 1), 900 * NODES**-0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet(1000)


@pytest.mark.parametrize("bad", [0, -3, float("nan"), float("inf")])
def test_power_law_rejects_bad_node_counts(bad):
    profile = PowerLawProfile.from_coefficients(100, -1)
    with pytest.raises(InvalidInput, match="n: must be finite and > 0"):
        profile(bad)


def test_power_law_rejects_non_positive_data():
    with pytest.raises(InvalidInput, match="X: Negative values"):
        PowerLawProfile().fit([[0.0], [2.0]], [1.0, 2.0])
    with pytest.raises(InvalidInput, match="y: runtimes must be > 0"):
        PowerLawProfile().fit([[1.0], [2.0]], [1.0, 0.0])


def test_power_law_file_form_round_trip():
    profile = PowerLawProfile.from_coefficients(900, -0.7, nodes_min=2, nodes_max=16)
    data = profile_to_dict(profile)
    assert data == {"kind": "power_law", "a": 900.0, "b": -0.7, "nodes_min": 2.0, "nodes_max": 16.0}
    again = profile_from_dict(data)
    assert (again.a_, again.b_, again.n_range_) == (900.0, -0.7, (2.0, 16.0))
    assert again(4) == pytest.approx(900 * 4**-0.7)
    bare = profile_from_dict({"kind": "power_law", "a": 10, "b": 0.5})
    assert profile_to_dict(bare) == {"kind": "power_law", "a": 10.0, "b": 0.5}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bare(1e6)  # no observed range: never warns


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "power_law", "a": 0, "b": 1}, "a: must be > 0"),
        ({"kind": "power_law", "a": 1}, "b: is required"),
        ({"kind": "power_law", "a": 1, "b": 1, "c": 2}, "c: unknown key"),
        ({"kind": "power_law", "a": 1, "b": 1, "nodes_min": 8, "nodes_max": 2}, "nodes_min: must be <= nodes_max"),
        ({"a": 1, "b": 1}, "kind: is required"),
        ({"kind": "regression"}, "unknown profile kind 'regression' in a file"),
        ("power_law", "must be a mapping"),
    ],
)
def test_profile_file_form_errors(data, message):
    with pytest.raises(InvalidInput, match=message):
        profile_from_dict(data)


def test_fitted_profile_from_data_survives_pickle():
    profile = PowerLawProfile().fit(NODES.reshape(-1, 1), 900 * NODES**-0.8)
    again = pickle.loads(pickle.dumps(profile))
    assert again(8) == profile(8)


def test_regression_profile_default_pipeline_fits_power_law_with_curvature():
    """On log-log axes log F = log 300 - 0.6 log n + 0.05 (log n)^2: quadratic ridge fits it exactly."""
    log_n = np.log(NODES)
    runtimes = np.exp(np.log(300) - 0.6 * log_n + 0.05 * log_n**2)
    profile = RegressionProfile().fit(NODES.reshape(-1, 1), runtimes)
    np.testing.assert_allclose(profile.predict(NODES.reshape(-1, 1)), runtimes, rtol=1e-4)
    assert profile(8) == pytest.approx(runtimes[3], rel=1e-4)


def test_regression_profile_two_features_and_raw_values():
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(1, 20, 40), rng.uniform(1, 100, 40)]).astype(float)
    y = 50 + 3 * X[:, 0] + 0.5 * X[:, 1]
    profile = RegressionProfile(LinearRegression(), log_features=False, log_target=False).fit(X, y)
    assert profile(4, 10) == pytest.approx(50 + 12 + 5)
    np.testing.assert_allclose(profile(np.array([1.0, 2.0]), np.array([2.0, 4.0])), [54.0, 58.0])
    assert isinstance(profile.estimator_, LinearRegression)


def test_regression_profile_rejects_logs_of_non_positive_values():
    with pytest.raises(InvalidInput, match="X: Negative values"):
        RegressionProfile().fit([[0.0], [1.0], [2.0]], [1.0, 2.0, 3.0])


def test_regression_profile_rejects_non_estimator():
    with pytest.raises(InvalidInput, match="estimator: must have fit and predict"):
        RegressionProfile(estimator=object()).fit([[1.0], [2.0]], [1.0, 2.0])


TASKS = [
    # job a: 3 maps of 10, 20, 30 s (mean 20), 2 reduces of 40 and 50 s (mean 45); first start 100
    {"job": "a", "kind": "map", "start": 100, "end": 110},
    {"job": "a", "kind": "MAP", "start": 100, "end": 120},
    {"job": "a", "type": "map", "start": 110, "end": 140},
    {"job": "a", "kind": "reduce", "start": 140, "end": 180},
    {"job": "a", "kind": "reduce", "start": 140, "end": 190},
    # a failed attempt must not count
    {"job": "a", "kind": "reduce", "start": 140, "end": 400, "status": "FAILED"},
    # job b: map-only, 1 map of 7 s, first start 130
    {"job": "b", "kind": "map", "start": 130, "end": 137, "status": "SUCCESS"},
]


def test_phase_profile_counts_and_means():
    """Worked out from TASKS: a has 3 maps (mean (10+20+30)/3 = 20 s), 2 reduces (mean 45 s),
    submit 0; b has 1 map of 7 s and no reduces, submit 130 - 100 = 30 s."""
    profile = PhaseProfile().fit(TASKS)
    assert profile.jobs_ == ("a", "b")
    assert profile.map_tasks_.tolist() == [3, 1]
    assert profile.reduce_tasks_.tolist() == [2, 0]
    np.testing.assert_allclose(profile.map_time_, [20.0, 7.0])
    np.testing.assert_allclose(profile.reduce_time_, [45.0, 0.0])
    np.testing.assert_allclose(profile.submit_, [0.0, 30.0])
    jobs = profile.to_jobs(pool="etl")
    assert jobs[0] == Job("a", 3, 2, 20.0, 45.0, pool="etl")
    assert jobs[1] == Job("b", 1, 0, 7.0, submit=30.0, pool="etl")
    # on 2 map and 2 reduce slots: ceil(3/2) * 20 + ceil(2/2) * 45 = 85 s
    assert profile(2, "a") == 85.0
    assert profile(1, "b") == 7.0


def test_phase_profile_accepts_dataframe_like():
    class Frame:
        def to_dict(self, orient):
            assert orient == "records"
            return TASKS

    assert PhaseProfile().fit(Frame()).jobs_ == ("a", "b")


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([{"job": "a", "kind": "map", "start": 5, "end": 4}], r"records\[0\].end: must be >= start"),
        ([{"job": "a", "kind": "shuffle", "start": 1, "end": 4}], r"records\[0\].kind: must be map or reduce"),
        ([{"job": "a", "start": 1, "end": 4}], r"records\[0\].kind: is required"),
        ([{"kind": "map", "start": 1, "end": 4}], r"records\[0\].job: is required"),
        ([{"job": "a", "kind": "map", "start": 1, "end": "x"}], r"records\[0\].end"),
        ([{"job": "a", "kind": "map", "start": 1, "end": 2, "status": "KILLED"}], "no successful task records"),
        ([{"job": "a", "kind": "reduce", "start": 1, "end": 2}], "job 'a' has 0 map tasks"),
        ("job,kind", "must be an iterable of task records"),
        ([3], r"records\[0\]: must be a mapping"),
    ],
)
def test_phase_profile_bad_records(records, message):
    with pytest.raises(InvalidInput, match=message):
        PhaseProfile().fit(records)


def test_phase_profile_call_needs_job_when_several():
    profile = PhaseProfile().fit(TASKS)
    with pytest.raises(InvalidInput, match="job: name one of the 2 fitted jobs"):
        profile(4)
    with pytest.raises(InvalidInput, match="unknown job 'zz'"):
        profile(4, "zz")


def test_wave_runtime_by_hand():
    """10 maps of 30 s on 4 slots: 3 waves = 90 s; 3 reduces of 60 s on 2 slots: 2 waves = 120 s."""
    assert wave_runtime(10, 3, 30.0, 60.0, 4, 2) == 210.0
    assert wave_runtime(10, 0, 30.0, 0.0, 10, 1) == 30.0
    with pytest.raises(InvalidInput, match="slots: must be >= 1"):
        wave_runtime(1, 1, 1, 1, 0, 1)


def test_wave_power_law_fits_wave_runtimes():
    """Job with 64 maps of 30 s, 8 reduces of 100 s, 2+2 slots per node.
    n = 4: ceil(64/8)*30 + ceil(8/8)*100 = 340; n = 16: ceil(64/32)*30 + 1*100 = 160."""
    job = Job("big", 64, 8, 30.0, 100.0)
    profile = wave_power_law(job, 2, 2, [4, 16])
    assert profile(4) == pytest.approx(340.0)
    assert profile(16) == pytest.approx(160.0)
    assert profile.b_ == pytest.approx(np.log(160 / 340) / np.log(4))
    with pytest.raises(InvalidInput, match="at least two node counts"):
        wave_power_law(job, 2, 2, [4, 4])


@pytest.mark.parametrize(
    ("cpu", "io", "expected"),
    [(0.9, 20e6, "cpu"), (0.6, 99e6, "cpu"), (0.3, 150e6, "io"), (0.59, 100e6, "io"),
     (0.9, 150e6, "balanced"), (0.2, 10e6, "balanced")],
)
def test_classify_intensity(cpu, io, expected):
    assert classify_intensity(cpu, io) == expected


def test_classify_intensity_thresholds_and_errors():
    assert classify_intensity(0.5, 0, cpu_threshold=0.4) == "cpu"
    assert classify_intensity(0.1, 60e6, io_threshold=50e6) == "io"
    with pytest.raises(InvalidInput, match="cpu_utilization: must be a fraction"):
        classify_intensity(1.5, 0)
    with pytest.raises(InvalidInput, match="io_rate"):
        classify_intensity(0.5, -1)


# --- the registry contract: every registered kind behaves like a scikit-learn estimator ---

def _training_data(name: str):
    if name == "phase":
        return (TASKS,), {}
    return (NODES.reshape(-1, 1), 900 * NODES**-0.8), {}


@pytest.mark.parametrize("name", sorted(profile_kinds()))
def test_every_profile_kind_honours_the_contract(name):
    kind = profile_kinds()[name]
    estimator = kind.estimator()
    # parameters live in __init__, nothing is learned there
    assert not [k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")]
    params = estimator.get_params()
    assert clone(estimator).get_params() == params
    # before fit: our NotFittedError, which is also a ValueError and AttributeError
    with pytest.raises(NotFittedError) as caught:
        estimator(4) if name != "phase" else estimator(4, "a")
    assert isinstance(caught.value, PlannerError | ValueError) and isinstance(caught.value, AttributeError)
    args, kwargs = _training_data(name)
    assert estimator.fit(*args, **kwargs) is estimator
    learned = [k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")]
    assert learned, "a fitted profile has learned attributes ending in _"
    runtime = estimator(4) if name != "phase" else estimator(4, "a")
    assert np.isfinite(runtime) and runtime > 0
    assert estimator.get_params() == params  # fit does not change parameters
    if kind.from_dict is not None:
        assert profile_from_dict(profile_to_dict(estimator))(4) == pytest.approx(runtime)


def test_registry_rejects_duplicates_and_incomplete_kinds():
    with pytest.raises(InvalidInput, match="already registered"):
        register_profile_kind(ProfileKind("power_law", PowerLawProfile))
    with pytest.raises(InvalidInput, match="needs fit"):
        ProfileKind("broken", int)
