"""Small validators that turn a raw value into a checked one or raise `InvalidInput`.

They accept Python and NumPy numbers, reject booleans and strings where numbers
are expected (YAML turns ``yes`` into True; a silent 1 would hide the mistake),
and always name the field they were checking.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

from models.errors import InvalidInput


def _type_name(value: object) -> str:
    return type(value).__name__


def as_float(
    value: object,
    field: str,
    *,
    minimum: float | None = None,
    above: float | None = None,
) -> float:
    """A finite float; ``minimum`` is inclusive, ``above`` exclusive."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInput(field, f"must be a number, got {value!r} ({_type_name(value)})")
    try:
        number = float(value)
    except (OverflowError, ValueError):
        raise InvalidInput(field, f"must be a finite number, got {value!r}") from None
    if not math.isfinite(number):
        raise InvalidInput(field, f"must be a finite number, got {value!r}")
    if above is not None and not number > above:
        raise InvalidInput(field, f"must be > {above:g}, got {value!r}")
    if minimum is not None and number < minimum:
        raise InvalidInput(field, f"must be >= {minimum:g}, got {value!r}")
    return number


def as_int(value: object, field: str, *, minimum: int | None = None) -> int:
    """An integer; integral floats (``3.0``) are accepted, ``3.5`` is not."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInput(field, f"must be an integer, got {value!r} ({_type_name(value)})")
    if isinstance(value, numbers.Integral):
        number = int(value)
    else:
        real = float(value)
        if not math.isfinite(real) or real != int(real):
            raise InvalidInput(field, f"must be an integer, got {value!r}")
        number = int(real)
    if minimum is not None and number < minimum:
        raise InvalidInput(field, f"must be >= {minimum}, got {value!r}")
    return number


def as_str(value: object, field: str, *, choices: Iterable[str] | None = None) -> str:
    """A non-empty string, optionally one of ``choices``."""
    if not isinstance(value, str):
        raise InvalidInput(field, f"must be a string, got {value!r} ({_type_name(value)})")
    if not value.strip():
        raise InvalidInput(field, "must not be empty")
    if choices is not None:
        allowed = tuple(choices)
        if value not in allowed:
            raise InvalidInput(field, f"must be one of {', '.join(allowed)}; got {value!r}")
    return value


def as_mapping(value: object, field: str) -> dict:
    if not isinstance(value, dict):
        raise InvalidInput(field, f"must be a mapping, got {_type_name(value)}")
    return value


def check_keys(data: dict, allowed: Iterable[str], field: str, *, required: Iterable[str] = ()) -> None:
    """Reject unknown keys (a typo would otherwise silently take a default) and missing ones."""
    allowed_set = set(allowed)
    for key in data:
        if not isinstance(key, str):
            raise InvalidInput(field, f"keys must be strings, got {key!r}")
        if key not in allowed_set:
            where = f"{field}.{key}" if field else key
            raise InvalidInput(where, f"unknown key; expected one of {', '.join(sorted(allowed_set))}")
    for key in required:
        if key not in data:
            where = f"{field}.{key}" if field else key
            raise InvalidInput(where, "is required")
