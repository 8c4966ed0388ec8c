"""Max-min fair shares with weights and minimum shares (`planner.simulator.fair_shares`).

The rule (Hadoop fair scheduler design document): schedulable i gets
``min(d_i, max(r * w_i, m_i))`` for the one ratio r with
``f(r) = sum_i min(d_i, max(r * w_i, m_i)) = total``; minimum shares above a
demand count as the demand, and when the minimum shares exceed the total they
are scaled down in proportion. Every expected number below is worked by hand.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.errors import InvalidInput
from planner.simulator import fair_shares


def test_zaharia_figure_3():
    """Zaharia et al., Figure 3: 100 slots, demands 46, 18, 28, 16, min shares 50, 10, 25, 15.
    Floors min(m, d) = 46, 10, 25, 15 (46 < 50: the first pool's min share is capped by its
    demand), together 96 <= 100. For 10 <= r <= 15:
    f(r) = 46 + r + 25 + 15 = 86 + r (the 28-demand pool sits at its floor 25 until r = 25,
    the 16-demand pool at 15 until r = 15), so f(r) = 100 at r = 14:
    shares 46, 14, 25, 15."""
    shares = fair_shares(100, [46, 18, 28, 16], [50, 10, 25, 15])
    assert shares == [46, 14, 25, 15]
    assert all(isinstance(share, float) for share in shares)


def test_equal_weights_water_filling():
    """10 slots, demands 2, 3, 8, 9, no min shares: f(r) = min(2, r) + min(3, r) + min(8, r) + min(9, r).
    For 3 <= r <= 8: f = 2 + 3 + 2r = 10 at r = 2.5 < 3, so look lower: for 2 <= r <= 3,
    f = 2 + 3r = 10 at r = 8/3: shares 2, 8/3, 8/3, 8/3 (sum 10)."""
    shares = fair_shares(10, [2, 3, 8, 9])
    assert shares == pytest.approx([2, 8 / 3, 8 / 3, 8 / 3])
    assert sum(shares) == pytest.approx(10)


def test_weights_split_in_proportion():
    """12 slots, three unlimited demands (100 each), weights 1, 2, 3: f(r) = r + 2r + 3r = 6r = 12,
    r = 2: shares 2, 4, 6."""
    assert fair_shares(12, [100, 100, 100], weights=[1, 2, 3]) == [2, 4, 6]


def test_weights_with_a_saturated_member():
    """10 slots, demands 2, 100, 100, weights 1, 1, 2. The first saturates at r = 2; for r >= 2:
    f(r) = 2 + r + 2r = 10, r = 8/3: shares 2, 8/3, 16/3."""
    assert fair_shares(10, [2, 100, 100], weights=[1, 1, 2]) == pytest.approx([2, 8 / 3, 16 / 3])


def test_min_shares_and_weights_together():
    """20 slots, demands 30, 30, 30, min shares 9, 0, 0, weights 1, 1, 2.
    f(r) = max(r, 9) + r + 2r; for r <= 9: 9 + 3r = 20 at r = 11/3 (< 9, consistent):
    shares 9, 11/3, 22/3 (sum 20)."""
    assert fair_shares(20, [30, 30, 30], [9, 0, 0], [1, 1, 2]) == pytest.approx([9, 11 / 3, 22 / 3])


def test_demands_that_fit_are_granted_in_full():
    """100 slots, demands 10, 20, 30 (sum 60 <= 100): everyone gets its demand, whatever the
    min shares (even above the demand) and weights."""
    assert fair_shares(100, [10, 20, 30]) == [10, 20, 30]
    assert fair_shares(100, [10, 20, 30], [50, 0, 0], [1, 5, 1]) == [10, 20, 30]
    assert fair_shares(60, [10, 20, 30]) == [10, 20, 30]


def test_min_shares_exceeding_the_total_are_scaled_down():
    """10 slots, demands 20 each, min shares 10, 6, 4 (sum 20 > 10): scaled by 10 / 20:
    shares 5, 3, 2."""
    assert fair_shares(10, [20, 20, 20], [10, 6, 4]) == [5, 3, 2]


def test_scaled_min_shares_are_capped_by_demand_first():
    """10 slots, demands 2 and 20, min shares 8 and 9: floors min(m, d) = 2 and 9, sum 11 > 10,
    scaled by 10 / 11: shares 20/11 and 90/11."""
    assert fair_shares(10, [2, 20], [8, 9]) == pytest.approx([20 / 11, 90 / 11])


def test_zero_demand_gets_nothing():
    """10 slots, demands 0, 5, 20: f(r) = 0 + min(5, r) + min(20, r) = 10 at r = 5: shares 0, 5, 5.
    A min share on a pool that wants nothing gives it nothing (floor min(5, 0) = 0): demands 0, 30
    with min shares 5, 0 give 0, 10. Zero total gives zeros; no schedulables gives []."""
    assert fair_shares(10, [0, 5, 20]) == [0, 5, 5]
    assert fair_shares(10, [0, 30], [5, 0]) == [0, 10]
    assert fair_shares(0, [3, 4]) == [0, 0]
    assert fair_shares(10, [0, 0]) == [0, 0]
    assert fair_shares(10, []) == []


def test_fractional_total():
    """2.5 slots over two unlimited equal demands: 1.25 each."""
    assert fair_shares(2.5, [10, 10]) == [1.25, 1.25]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((10, [-1, 2]), {}),  # negative demand
        ((10, [math.nan, 2]), {}),  # NaN demand
        ((-1, [1, 2]), {}),  # negative total
        ((math.nan, [1, 2]), {}),  # NaN total
        ((10, [1, 2], [1]), {}),  # one min share for two demands
        ((10, [1, 2], [-1, 0]), {}),  # negative min share
        ((10, [1, 2]), {"weights": [1, 0]}),  # zero weight
        ((10, [1, 2]), {"weights": [1, -2]}),  # negative weight
        ((10, [1, 2]), {"weights": [1, 2, 3]}),  # too many weights
        ((10, ["a", 2]), {}),  # not a number
    ],
)
def test_bad_input_raises_invalid_input(args, kwargs):
    with pytest.raises(InvalidInput) as caught:
        fair_shares(*args, **kwargs)
    assert isinstance(caught.value, ValueError)


demand_lists = st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=6)


@settings(max_examples=100, deadline=None)
@given(
    total=st.integers(min_value=0, max_value=120),
    demands=demand_lists,
    data=st.data(),
)
def test_shares_are_max_min_fair(total, demands, data):
    """For any input: shares sum to min(total, sum of demands); 0 <= share <= demand; when the
    floors fit, everyone gets at least its floor min(m, d); and the water level is common: a
    member left below its demand never has a lower share per weight than a member that got
    more than its floor."""
    count = len(demands)
    mins = data.draw(st.lists(st.integers(min_value=0, max_value=30), min_size=count, max_size=count))
    weights = data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=count, max_size=count))
    shares = fair_shares(total, demands, mins, weights)
    assert len(shares) == count
    assert sum(shares) == pytest.approx(min(total, sum(demands)), abs=1e-9)
    for share, demand in zip(shares, demands, strict=True):
        assert -1e-9 <= share <= demand + 1e-9
    floors = [min(m, d) for m, d in zip(mins, demands, strict=True)]
    if sum(floors) <= total:
        for share, floor in zip(shares, floors, strict=True):
            assert share >= floor - 1e-9
        for i in range(count):
            if shares[i] < demands[i] - 1e-9:
                for j in range(count):
                    if shares[j] > floors[j] + 1e-9:
                        assert shares[i] / weights[i] >= shares[j] / weights[j] - 1e-9
