"""How numbers read, the same in the terminal's tables and in the reports.

Errors, gains and shares are fractions in the records (and in JSON: 0.05 is 5%); they print as
percentages everywhere a person reads them. This module imports nothing, so the command line
uses it without importing the reports.
"""

from __future__ import annotations

import math
from typing import Any

#: Fractions that can be negative: printed with a sign (+4.1%, -2.0%).
SIGNED_PERCENT = frozenset({"error", "gain", "predicted_gain", "adjusted_error"})
#: Fractions of a whole: printed as 0.0% .. 100.0%.
PERCENT = frozenset({"gap", "noise", "node_local", "rack_local", "off_rack", "utilization", "absolute_error",
                     "median_error", "worst_error", "median_adjusted_error"})
#: Indices between 0 and 1 (Jain's fairness): three decimals.
RATIO = frozenset({"fairness"})


def percent(value: float | None, *, signed: bool = True) -> str:
    """``0.041`` as ``+4.1%`` (``4.1%`` unsigned); None as ``-``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:+.1%}" if signed else f"{value:.1%}"


def number(value: Any) -> str:
    """Any other value of a record: whole numbers with thousands separators, four significant
    digits below 1,000, None and NaN as ``-``."""
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if value == int(value) and abs(value) < 1e15:
            return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:g}"
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def shown_value(key: str, value: Any) -> str:
    """The text of ``record[key]`` in a table: a percentage for the fractions above."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if key in SIGNED_PERCENT:
            return percent(value)
        if key in PERCENT:
            return percent(value, signed=False)
        if key in RATIO and not math.isnan(value):
            return f"{value:.3f}"
    return number(value)
