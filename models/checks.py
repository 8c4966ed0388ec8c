"""Small validators that turn a raw value into a checked one or raise `InvalidInput`.

They accept Python and NumPy numbers, reject booleans and strings where numbers
are expected (YAML turns ``yes`` into True; a silent 1 would hide the mistake),
and always name the field they were checking. A value quoted in a message goes
through `shown`, so a huge value never makes a huge message.
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
import reprlib
from collections.abc import Iterable, Mapping
from typing import Any

from models.errors import InvalidInput, InvalidType
from models.limits import MAX_SHOWN

#: Above this many bits an integer is described, not printed (Python refuses to print
#: integers of more than 4,300 digits, and nobody reads one of 300).
_LONGEST_INT_BITS = 640


class _ShortRepr(reprlib.Repr):
    """reprlib's bounded repr (depth, items, string length), safe for any integer."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > _LONGEST_INT_BITS:
            digits = int(x.bit_length() * math.log10(2)) + 1
            return f"<{'-' if x < 0 else ''}integer of about {digits} digits>"
        return super().repr_int(x, level)


_REPR = _ShortRepr()
_REPR.maxlevel = 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = 4
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = MAX_SHOWN


def shown(value: object, limit: int = MAX_SHOWN) -> str:
    """``repr(value)`` for a message, at most ``limit`` characters (cut with an ellipsis).

    Bounded in time and memory whatever the value: nested containers are cut at a few
    items and levels before anything is rendered.
    """
    try:
        text = _REPR.repr(value)
    except Exception:  # a repr that fails (a broken object) must not replace the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def key_name(key: object) -> str:
    """A mapping key as a step of a field path (``pools.NAME.weight``), cut like `shown`."""
    text = key if isinstance(key, str) else shown(key)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _type_name(value: object) -> str:
    return type(value).__name__


def as_float(
    value: object,
    field: str,
    *,
    minimum: float | None = None,
    above: float | None = None,
    maximum: float | None = None,
) -> float:
    """A finite float; ``minimum`` and ``maximum`` are inclusive, ``above`` exclusive."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidType(field, f"must be a number, got {shown(value)} ({_type_name(value)})")
    try:
        number = float(value)
    except (OverflowError, ValueError):
        raise InvalidInput(field, f"must be a finite number, got {shown(value)}") from None
    if not math.isfinite(number):
        raise InvalidInput(field, f"must be a finite number, got {shown(value)}")
    if above is not None and not number > above:
        raise InvalidInput(field, f"must be > {above:g}, got {shown(value)}")
    if minimum is not None and number < minimum:
        raise InvalidInput(field, f"must be >= {minimum:g}, got {shown(value)}")
    if maximum is not None and number > maximum:
        raise InvalidInput(field, f"must be <= {maximum:g}, got {shown(value)}")
    return number


def as_int(value: object, field: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer; integral floats (``3.0``) are accepted, ``3.5`` is not."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidType(field, f"must be an integer, got {shown(value)} ({_type_name(value)})")
    if isinstance(value, numbers.Integral):
        number = int(value)
    else:
        real = float(value)
        if not math.isfinite(real) or real != int(real):
            raise InvalidInput(field, f"must be an integer, got {shown(value)}")
        number = int(real)
    if minimum is not None and number < minimum:
        raise InvalidInput(field, f"must be >= {minimum}, got {shown(value)}")
    if maximum is not None and number > maximum:
        raise InvalidInput(field, f"must be <= {maximum:,}, got {shown(value)}")
    return number


def as_str(value: object, field: str, *, choices: Iterable[str] | None = None) -> str:
    """A non-empty string, optionally one of ``choices``."""
    if not isinstance(value, str):
        raise InvalidType(field, f"must be a string, got {shown(value)} ({_type_name(value)})")
    if not value.strip():
        raise InvalidInput(field, "must not be empty")
    if choices is not None:
        allowed = tuple(choices)
        if value not in allowed:
            raise InvalidInput(field, f"must be one of {', '.join(allowed)}; got {shown(value)}")
    return value


def as_mapping(value: object, field: str) -> dict:
    if not isinstance(value, dict):
        raise InvalidType(field, f"must be a mapping, got {_type_name(value)}")
    return value


def as_instance(value: object, expected: type | tuple[type, ...], field: str) -> Any:
    """``value`` itself when it is an instance of ``expected``; else `InvalidType` naming the
    parameter, what it got and what it takes (``workload: must be a Workload, got dict``)."""
    if not isinstance(value, expected):
        kinds = expected if isinstance(expected, tuple) else (expected,)
        wanted = " or ".join(kind.__name__ for kind in kinds)
        article = "an" if wanted[:1].lower() in "aeiou" else "a"
        raise InvalidType(field, f"must be {article} {wanted}, got {shown(value)} ({_type_name(value)})")
    return value


def check_keys(data: dict, allowed: Iterable[str], field: str, *, required: Iterable[str] = ()) -> None:
    """Reject unknown keys (a typo would otherwise silently take a default) and missing ones."""
    allowed_set = set(allowed)
    for key in data:
        if not isinstance(key, str):
            raise InvalidInput(field, f"keys must be strings, got {shown(key)}")
        if key not in allowed_set:
            where = f"{field}.{key_name(key)}" if field else key_name(key)
            raise InvalidInput(where, f"unknown key; expected one of {', '.join(sorted(allowed_set))}")
    for key in required:
        if key not in data:
            where = f"{field}.{key}" if field else key
            raise InvalidInput(where, "is required")


# Arguments of the public API


def as_path(value: object, field: str) -> str | os.PathLike:
    """A file or folder name: a non-empty string or an `os.PathLike` (a `Path`). An integer is
    refused (the os functions would take it as an open file descriptor), and so are bytes."""
    if isinstance(value, str):
        if not value.strip():
            raise InvalidInput(field, "must be a file name, got an empty string")
        if "\0" in value:
            raise InvalidInput(field, f"must be a file name, got {shown(value)} (a NUL character)")
        return value
    if isinstance(value, os.PathLike):
        name = os.fspath(value)
        if isinstance(name, str):
            as_path(name, field)
            return value
    raise InvalidType(field, f"must be a path (a string or a Path), got {shown(value)} ({_type_name(value)})")


def as_paths(value: object, field: str) -> list[str | os.PathLike]:
    """A list of file or folder names (each `as_path`); one name alone is taken as a list of one."""
    if isinstance(value, str | os.PathLike):
        return [as_path(value, field)]
    if isinstance(value, bytes) or not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise InvalidType(field, f"must be a list of paths, got {shown(value)} ({_type_name(value)})")
    return [as_path(item, f"{field}[{i}]") for i, item in enumerate(value)]


def as_bool(value: object, field: str) -> bool:
    """True or False (NumPy's booleans too); 0, 1, "yes" and None are refused."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise InvalidType(field, f"must be true or false, got {shown(value)} ({_type_name(value)})")


def as_str_mapping(value: object, field: str) -> dict[str, str]:
    """A mapping of non-empty strings to non-empty strings (a queue map: name -> queue)."""
    if not isinstance(value, Mapping):
        raise InvalidType(field, f"must be a mapping of names to names, got {shown(value)} ({_type_name(value)})")
    checked = {}
    for key, item in value.items():
        checked[as_str(key, f"{field} key")] = as_str(item, f"{field}.{key_name(key)}")
    return checked


def as_list(value: object, field: str, *, what: str = "a list", maximum: int | None = None,
            limit: str = "") -> list:
    """The items of a list, tuple or other iterable (not a string, bytes or a mapping, whose items
    are rarely what was meant), at most ``maximum`` of them (``limit``: the constant's name, for the
    message): an endless or huge iterable is refused after ``maximum + 1`` items, never drawn whole."""
    as_iterable(value, field, what=what)
    if maximum is None:
        return list(value)
    items = list(itertools.islice(value, maximum + 1))
    if len(items) > maximum:
        named = f" ({limit})" if limit else ""
        raise InvalidInput(field, f"must have at most {maximum:,} items{named}, got more")
    return items


def as_optional_float(value: object, field: str, **bounds: float) -> float | None:
    """None, or `as_float` of ``value`` with the same bounds."""
    return None if value is None else as_float(value, field, **bounds)


def as_callable(value: object, field: str) -> Any:
    if not callable(value):
        raise InvalidType(field, f"must be callable, got {shown(value)} ({_type_name(value)})")
    return value


def as_iterable(value: object, field: str, *, what: str = "a sequence") -> Iterable:
    """``value`` when it is a list, tuple or other iterable; a string, bytes, a mapping or a
    non-iterable is refused (iterating one would be a mistake, not a sequence)."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise InvalidType(field, f"must be {what}, got {shown(value)} ({_type_name(value)})")
    return value


def as_items(value: object, field: str) -> list:
    """The items of `as_iterable` ``value``, as a list (`as_list` without a bound)."""
    return as_list(value, field, what="a sequence")


def as_array(
    value: object,
    field: str,
    *,
    ndim: int | None = 1,
    kind: str = "float",
    minimum: float | None = None,
    finite: bool = True,
) -> Any:
    """A NumPy array of numbers (``kind`` "float", "int" or "bool") of ``ndim`` dimensions,
    without NaN (and without infinities unless ``finite`` is False), at least ``minimum``."""
    import numpy as np

    if isinstance(value, (str, bytes, dict)) or value is None:
        raise InvalidType(field, f"must be an array of numbers, got {shown(value)} ({_type_name(value)})")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError, OverflowError) as error:
        raise InvalidType(field, f"must be an array of numbers, got {shown(value)} ({error})") from None
    if raw.dtype.kind not in "biuf" or (kind == "bool" and raw.dtype.kind != "b"):
        wanted = "booleans" if kind == "bool" else "numbers"
        raise InvalidType(field, f"must be an array of {wanted}, got {shown(value)} (dtype {raw.dtype})")
    if ndim is not None and raw.ndim != ndim:
        raise InvalidInput(field, f"must be a {ndim}-d array, got {raw.ndim} dimension(s) (shape {raw.shape})")
    if kind == "bool":
        return raw.astype(bool, copy=False)
    if raw.dtype.kind in "biu":  # integers: finite; no float copy of a large table
        if minimum is not None and raw.size and raw.min() < minimum:
            raise InvalidInput(field, f"must hold numbers >= {minimum:g}, got {shown(value)}")
        return raw.astype(np.int64 if kind == "int" else np.float64, copy=False)
    array = raw.astype(np.float64, copy=False)
    if np.isnan(array).any() or (finite and not np.isfinite(array).all()):
        raise InvalidInput(field, f"must hold finite numbers, got {shown(value)}")
    if minimum is not None and array.size and array.min() < minimum:
        raise InvalidInput(field, f"must hold numbers >= {minimum:g}, got {shown(value)}")
    if kind == "int":
        if not np.array_equal(array, np.round(array)):
            raise InvalidInput(field, f"must hold integers, got {shown(value)}")
        if array.size and np.abs(array).max() >= 2**62:
            raise InvalidInput(field, f"must hold integers below 2**62, got {shown(value)}")
        return array.astype(np.int64)
    return array
