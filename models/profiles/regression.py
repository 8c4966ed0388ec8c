"""Runtime profiles from any scikit-learn regressor."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures
from sklearn.utils.validation import validate_data

from models.errors import InvalidInput
from models.profiles.base import require_fitted


def default_regressor() -> BaseEstimator:
    """Quadratic ridge regression; on log-log axes it is a power law with curvature."""
    return make_pipeline(PolynomialFeatures(degree=2, include_bias=False), Ridge(alpha=1e-6))


class RegressionProfile(RegressorMixin, BaseEstimator):
    """Runtime predicted by a wrapped scikit-learn regressor.

    Features are columns such as nodes (first) and input bytes; the target is
    runtime in seconds. With ``log_features`` and ``log_target`` (the default)
    the regressor is fitted on logarithms and predictions are exponentiated,
    which keeps predicted runtimes positive and makes the default regressor
    (quadratic ridge, `default_regressor`) a power law with curvature. Both
    options need positive values; switch them off to wrap a regressor on raw
    values.

    Learned attributes: ``estimator_`` (the fitted clone) and ``n_features_in_``.
    """

    def __init__(self, estimator=None, log_features: bool = True, log_target: bool = True) -> None:
        self.estimator = estimator
        self.log_features = log_features
        self.log_target = log_target

    def fit(self, X, y) -> RegressionProfile:
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        if self.log_features:
            X = self._log(X, "X")
        if self.log_target:
            y = self._log(y, "y")
        base = default_regressor() if self.estimator is None else self.estimator
        if not (hasattr(base, "fit") and hasattr(base, "predict")):
            raise InvalidInput("estimator", f"must have fit and predict, got {type(base).__name__}")
        self.estimator_ = clone(base).fit(X, y)
        return self

    def predict(self, X) -> np.ndarray:
        require_fitted(self, "estimator_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if self.log_features:
            X = self._log(X, "X")
        prediction = np.asarray(self.estimator_.predict(X), dtype=np.float64).ravel()
        return np.exp(prediction) if self.log_target else prediction

    def __call__(self, n, *features):
        """Runtime for ``n`` nodes (and the remaining features, in fit order)."""
        row = np.atleast_2d(np.asarray([n, *features], dtype=np.float64))
        if np.ndim(n) == 0:
            return float(self.predict(row)[0])
        return self.predict(np.column_stack([np.asarray(n, dtype=np.float64), *features]))

    @staticmethod
    def _log(values: np.ndarray, field: str) -> np.ndarray:
        if np.any(values <= 0):
            raise InvalidInput(field, "Negative values in data are not allowed: must be > 0 with log transforms; pass log_features/log_target=False")
        return np.log(values)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = bool(self.log_features)
        tags.target_tags.positive_only = bool(self.log_target)
        return tags
