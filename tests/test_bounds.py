"""Lower bounds every schedule obeys (`solvers.bounds`), with numbers worked out by hand."""

from __future__ import annotations

import itertools

import pytest

from models import Job
from solvers.bounds import alone, critical_path_bound, lateness_bound, response_bound, work_bound


def _jobs() -> list[Job]:
    """Three jobs on S = 4 slots:

    - a: 8 maps x 10 s, 2 reduces x 20 s: work 120, alone ceil(8/4) 10 + ceil(2/4) 20 = 40
    - b: 2 maps x 30 s, no reduce:         work 60,  alone 30
    - c: 4 maps x 5 s, 4 reduces x 5 s:    work 40,  alone 5 + 5 = 10
    """
    return [Job("a", 8, 2, 10.0, 20.0), Job("b", 2, 0, 30.0, 0.0), Job("c", 4, 4, 5.0, 5.0)]


def test_a_job_alone_is_its_map_waves_then_its_reduce_waves() -> None:
    assert [alone(job, 4) for job in _jobs()] == [40.0, 30.0, 10.0]
    assert alone(_jobs()[0], 1) == 8 * 10 + 2 * 20


def test_work_and_critical_path_bounds_all_ready() -> None:
    """Ready now: work 220 / 4 = 55; critical path: the longest alone, 40."""
    assert work_bound(_jobs(), 4) == pytest.approx(55.0)
    assert critical_path_bound(_jobs(), 4) == pytest.approx(40.0)


def test_bounds_with_releases_count_from_the_first_arrival() -> None:
    """Releases a 0, b 100, c 10: the work bound is the largest t + W(>= t) / 4 over t = 0 (220/4 = 55),
    10 (10 + 100/4 = 35), 100 (100 + 60/4 = 115): 115. Critical path: b from 100 + 30 = 130."""
    releases = [0.0, 100.0, 10.0]
    assert work_bound(_jobs(), 4, releases) == pytest.approx(115.0)
    assert critical_path_bound(_jobs(), 4, releases) == pytest.approx(130.0)
    shifted = [r + 50 for r in releases]  # counted from the first arrival: the same
    assert work_bound(_jobs(), 4, shifted) == pytest.approx(115.0)


def test_response_bound_all_ready() -> None:
    """Fluid, one machine of 4 slot-seconds per second: sizes a 30, b 15, c 10; shortest first ends
    c 10, b 25, a 55: mean 30. Alone: (40 + 30 + 10) / 3 = 26.7. The bound is 30."""
    assert response_bound(_jobs(), 4) == pytest.approx(30.0)


def test_response_bound_with_releases_is_preemptive_srpt() -> None:
    """Sizes a 30 (at 0), b 15 (at 100), c 10 (at 10). SRPT: a runs 0-10 (20 left), c arrives with 10
    and is shorter: c 10-20 (response 10), a 20-40 (response 40), b 100-115 (response 15): mean 65/3.
    Alone: (40 + 30 + 10) / 3 = 80/3 is larger: the bound is 80/3."""
    assert response_bound(_jobs(), 4, [0.0, 100.0, 10.0]) == pytest.approx(80 / 3)


def test_weighted_response_bound_is_smiths_rule_when_ready() -> None:
    """Weights a 3, b 1, c 1: ratios a 30/3 = 10, b 15, c 10 (a first by position). Ends a 30, c 40,
    b 55: weighted sum 3*30 + 40 + 55 = 185 over 5 = 37. Alone: (3*40 + 30 + 10) / 5 = 32."""
    assert response_bound(_jobs(), 4, weights=[3.0, 1.0, 1.0]) == pytest.approx(37.0)


def test_lateness_bound() -> None:
    """Due a 30 (alone 40: 10 late), b none, c 100 (-90): 10."""
    assert lateness_bound(_jobs(), 4, [30.0, None, 100.0]) == pytest.approx(10.0)
    assert lateness_bound(_jobs(), 4, [None, None, None]) is None


def test_the_response_bound_holds_for_every_order_of_the_fluid_machine() -> None:
    """Brute force: no order of the fluid single machine (jobs run one at a time, not preempted) has a
    smaller mean response than the bound."""
    jobs = _jobs()
    sizes = [job.work / 4 for job in jobs]
    best = min(sum(itertools.accumulate(sizes[i] for i in order)) / 3 for order in itertools.permutations(range(3)))
    assert best >= response_bound(jobs, 4) - 1e-9
