"""Power-law runtime profiles: F(n) = a * n^b (Packing paper, section 3)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import validate_data

from models.checks import as_float, check_keys, shown
from models.errors import ExtrapolationWarning, InvalidInput
from models.limits import MAX_EXPONENT, MAX_SECONDS, MAX_VMS, MIN_TASK_SECONDS
from models.profiles.base import require_fitted

# Predictions this far outside the observed range (relative) still count as inside:
# an observation at n = 10 should not make a prediction at n = 10.0000001 warn.
_RANGE_TOLERANCE = 1e-9


class PowerLawProfile(RegressorMixin, BaseEstimator):
    """Runtime as a power law of the node count, F(n) = a * n^b.

    Fitted by least squares on log F = log a + b log n. With more than one
    feature the model is the product form F(x) = a * prod_k x_k^b_k (e.g. nodes
    and input bytes); ``b_`` is always the exponent of the first feature and
    ``coef_`` holds all of them.

    Learned attributes: ``a_``, ``b_``, ``coef_``, ``intercept_`` (log a),
    ``r2_`` (coefficient of determination of the log-log fit),
    ``feature_range_`` (observed min and max of each feature), ``n_range_``
    (that of the first feature) and ``n_features_in_``.

    Predicting outside the observed range of any feature warns with
    `ExtrapolationWarning` (it is allowed: planners need F(N) for N beyond the
    measurements, but the answer is less trustworthy).
    """

    def __init__(self, warn_extrapolation: bool = True) -> None:
        self.warn_extrapolation = warn_extrapolation

    def fit(self, X, y) -> PowerLawProfile:
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        if np.any(X <= 0):
            raise InvalidInput("X", "Negative values in data are not allowed: node counts and other features must be > 0 for a power law")
        if np.any(y <= 0):
            raise InvalidInput("y", "runtimes must be > 0 for a power law")
        log_x = np.log(X)
        log_y = np.log(y)
        design = np.column_stack([np.ones(len(log_y)), log_x])
        solution, *_ = np.linalg.lstsq(design, log_y, rcond=None)
        # lstsq leaves ~1e-16 residue where the true exponent is 0 (a flat profile)
        solution[1:][np.abs(solution[1:]) < 1e-12] = 0.0
        self.intercept_ = float(solution[0])
        self.coef_ = solution[1:].astype(np.float64)
        self.a_ = float(np.exp(self.intercept_))
        self.b_ = float(self.coef_[0])
        residual = log_y - design @ solution
        total = log_y - log_y.mean()
        ss_res = float(residual @ residual)
        ss_tot = float(total @ total)
        if np.ptp(log_y) < 1e-12:  # constant runtimes: the flat fit explains them fully
            self.r2_ = 1.0 if ss_res < 1e-12 else 0.0
        else:
            self.r2_ = 1.0 - ss_res / ss_tot
        self.feature_range_ = np.column_stack([X.min(axis=0), X.max(axis=0)])
        self.n_range_ = (float(self.feature_range_[0, 0]), float(self.feature_range_[0, 1]))
        return self

    def predict(self, X) -> np.ndarray:
        require_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if np.any(X <= 0):
            raise InvalidInput("X", "Negative values in data are not allowed: node counts and other features must be > 0 for a power law")
        self._warn_if_outside(X)
        return np.exp(self.intercept_ + np.log(X) @ self.coef_)

    def __call__(self, n):
        """F(n) for a node count (float in, float out) or an array of them."""
        require_fitted(self, "coef_")
        if self.n_features_in_ != 1:
            raise InvalidInput("n", f"this profile has {self.n_features_in_} features; use predict(X)")
        values = np.asarray(n, dtype=np.float64)
        if np.any(values <= 0) or not np.all(np.isfinite(values)):
            raise InvalidInput("n", f"must be finite and > 0, got {shown(n)}")
        self._warn_if_outside(values.reshape(-1, 1))
        result = self.a_ * values**self.b_
        return float(result) if result.ndim == 0 else result

    def _warn_if_outside(self, X: np.ndarray) -> None:
        if not self.warn_extrapolation:
            return
        low = self.feature_range_[:, 0] * (1 - _RANGE_TOLERANCE)
        high = self.feature_range_[:, 1] * (1 + _RANGE_TOLERANCE)
        if np.any(low > X) or np.any(high < X):
            warnings.warn(
                f"power law fitted on n in [{self.n_range_[0]:g}, {self.n_range_[1]:g}] "
                f"asked for n outside it ({float(X.min()):g}..{float(X.max()):g})",
                ExtrapolationWarning,
                stacklevel=3,
            )

    @classmethod
    def from_coefficients(
        cls, a: float, b: float, *, nodes_min: float | None = None, nodes_max: float | None = None
    ) -> PowerLawProfile:
        """A fitted one-feature profile with known a and b (e.g. read from a file).

        Without an observed range it never warns about extrapolation.
        """
        a = as_float(a, "a", above=0.0, maximum=MAX_SECONDS)
        if a < MIN_TASK_SECONDS:
            raise InvalidInput("a", f"must be >= {MIN_TASK_SECONDS:g} (seconds on one node), got {shown(a)}")
        b = as_float(b, "b", minimum=-MAX_EXPONENT, maximum=MAX_EXPONENT)
        profile = cls(warn_extrapolation=nodes_min is not None or nodes_max is not None)
        low = as_float(nodes_min, "nodes_min", above=0.0, maximum=MAX_VMS) if nodes_min is not None else 0.0
        high = as_float(nodes_max, "nodes_max", above=0.0, maximum=MAX_VMS) if nodes_max is not None else np.inf
        if low > high:
            raise InvalidInput("nodes_min", f"must be <= nodes_max ({high:g}), got {low:g}")
        profile.a_ = a
        profile.b_ = b
        profile.intercept_ = float(np.log(a))
        profile.coef_ = np.array([b])
        profile.r2_ = float("nan")
        profile.n_features_in_ = 1
        profile.feature_range_ = np.array([[low, high]])
        profile.n_range_ = (low, high)
        return profile

    @classmethod
    def from_dict(cls, mapping: dict) -> PowerLawProfile:
        """The inverse of `to_dict`: ``{kind: power_law, a, b[, nodes_min, nodes_max]}``."""
        check_keys(mapping, ("kind", "a", "b", "nodes_min", "nodes_max"), "", required=("a", "b"))
        return cls.from_coefficients(
            mapping["a"], mapping["b"], nodes_min=mapping.get("nodes_min"), nodes_max=mapping.get("nodes_max")
        )

    def to_dict(self) -> dict:
        """The file form of a one-feature profile (see README, "Profiles in files")."""
        require_fitted(self, "coef_")
        if self.n_features_in_ != 1:
            raise InvalidInput("profile", "only one-feature power laws can be written to a file")
        data: dict = {"kind": "power_law", "a": self.a_, "b": self.b_}
        low, high = self.n_range_
        if self.warn_extrapolation and low > 0:
            data["nodes_min"] = low
        if self.warn_extrapolation and np.isfinite(high):
            data["nodes_max"] = high
        return data

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.target_tags.positive_only = True
        return tags
