"""What every profile kind shares: the fitted check and the registry of kinds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sklearn.exceptions import NotFittedError as _SklearnNotFittedError
from sklearn.utils.validation import check_is_fitted

from models.checks import as_mapping, as_str, shown
from models.errors import InvalidInput, PlannerError


class NotFittedError(PlannerError, _SklearnNotFittedError):
    """An estimator was used before `fit` (also scikit-learn's NotFittedError,
    hence a ValueError and an AttributeError). Also importable from `models` and
    `models.errors`."""


def require_fitted(estimator: Any, attribute: str) -> None:
    """Raise our `NotFittedError` (a ValueError and AttributeError too) before fit."""
    try:
        check_is_fitted(estimator, attribute)
    except Exception as error:  # scikit-learn's own NotFittedError, re-raised as ours
        raise NotFittedError(f"{type(estimator).__name__} is not fitted yet; call fit first") from error


class ProfileKind:
    """A registered profile kind: its estimator class and, if it has one, its file form."""

    def __init__(self, name: str, estimator: type, from_dict: Callable[[dict], Any] | None = None) -> None:
        for method in ("fit", "__call__", "get_params"):
            if not callable(getattr(estimator, method, None)):
                raise InvalidInput("estimator", f"a profile kind needs {method}; {estimator.__name__} lacks it")
        self.name = as_str(name, "name")
        self.estimator = estimator
        self.from_dict = from_dict


_KINDS: dict[str, ProfileKind] = {}


def register_profile_kind(kind: ProfileKind) -> ProfileKind:
    if kind.name in _KINDS:
        raise InvalidInput("name", f"profile kind {shown(kind.name)} is already registered")
    _KINDS[kind.name] = kind
    return kind


def profile_kinds() -> dict[str, ProfileKind]:
    """Every registered profile kind, by name."""
    return dict(_KINDS)


def profile_from_dict(data: object) -> Any:
    """A fitted profile from its file form, e.g. ``{kind: power_law, a: 900, b: -0.8}``; a
    problem is named from ``data`` (``data.kind: is required``)."""
    try:
        return profile_from_mapping(data)
    except InvalidInput as error:
        raise error.within("data") from None


def profile_from_mapping(data: object) -> Any:
    """`profile_from_dict` for a reader that names the place itself: a problem's field is relative
    to the mapping (``kind``, or empty for the mapping itself)."""
    mapping = as_mapping(data, "")
    if "kind" not in mapping:
        raise InvalidInput("kind", "is required")
    name = as_str(mapping["kind"], "kind")
    writable = sorted(k for k, v in _KINDS.items() if v.from_dict is not None)
    kind = _KINDS.get(name)
    if kind is None or kind.from_dict is None:
        raise InvalidInput("kind", f"unknown profile kind {shown(name)} in a file; file kinds: {', '.join(writable)}")
    return kind.from_dict(mapping)


def profile_to_dict(profile: Any) -> dict:
    to_dict = getattr(profile, "to_dict", None)
    if not callable(to_dict):
        raise InvalidInput("profile", f"a {type(profile).__name__} profile has no file form")
    return to_dict()
