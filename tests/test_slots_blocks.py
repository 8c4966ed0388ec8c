"""The fluid models evaluate splits in blocks (`solvers.slots.fluid.BLOCK_BYTES`) so that a
production day's arrays stay bounded: any block size gives the numbers of one pass, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from models import Job
from solvers import configure_slots
from solvers.slots import fluid

MODELS = ("fresh", "capped")


def _blocks_seen(monkeypatch, n: int) -> tuple[np.ndarray, list[int]]:
    """The curve of n one-task jobs on 12,000 slots under "fresh" with releases, and the block
    sizes the map phase was given (its work is counted, not run)."""
    seen: list[int] = []
    monkeypatch.setattr(fluid, "_fresh_makespans",
                        lambda phases, total, k, splits, gates: seen.append(splits.size) or np.zeros(splits.size))
    phases = fluid.PhaseWork(np.ones(n), np.ones(n), np.ones(n), np.ones(n), np.arange(n, dtype=float))
    return fluid.fluid_makespans(phases, 12_000, 5, np.arange(1, 12_000)), seen


def _batch(seed: int, count: int) -> tuple[list[Job], list[float]]:
    rng = np.random.default_rng(seed)
    jobs = [Job(f"j{i}", int(rng.integers(1, 40)), int(rng.integers(0, 6)), float(rng.uniform(5, 60)),
                float(rng.uniform(10, 120))) for i in range(count)]
    releases = np.cumsum(rng.exponential(30.0, count)).round(1).tolist()
    return jobs, releases


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("released", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_any_block_size_gives_the_numbers_of_one_pass(monkeypatch, model, released, seed):
    """Blocks of 1, 7 and 64 splits against one block holding all 39 splits."""
    jobs, releases = _batch(seed, 30)
    kwargs = {"model": model, "releases": releases if released else None}
    whole = configure_slots(jobs, 40, 3, **kwargs).makespans
    assert whole.shape == (39,)
    for splits in (1, 7, 64):
        monkeypatch.setattr(fluid, "BLOCK_BYTES", splits * fluid.bytes_per_entry(model) * len(jobs))
        blocked = configure_slots(jobs, 40, 3, **kwargs)
        assert np.array_equal(blocked.makespans, whole), splits
        assert blocked.map_slots == int(np.argmin(whole)) + 1


def test_a_production_day_shape_is_evaluated_in_bounded_blocks(monkeypatch):
    """24,437 jobs on 12,000 slots under "fresh": blocks of BLOCK_BYTES / (16 bytes x jobs)
    splits, each block's arrays near BLOCK_BYTES (not the 10 GB one pass would hold). Counted,
    not run."""
    n = 24_437
    result, seen = _blocks_seen(monkeypatch, n)
    assert result.shape == (11_999,) and sum(seen) == 11_999
    assert max(seen) == fluid.BLOCK_BYTES // (16 * n) == 686
    assert max(seen) * 16 * n <= fluid.BLOCK_BYTES


@pytest.mark.parametrize("seed", range(6))
def test_count_at_most_is_searchsorted_row_by_row(seed):
    """Sorted rows padded with +inf, thresholds anywhere (ties included), ``low`` any known lower
    bound: the count of each row's first m entries <= its threshold, as searchsorted says."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 40))
    rows = np.sort(rng.integers(0, 20, (50, m)).astype(float), axis=1)
    rows = np.hstack([rows, np.full((50, 1), np.inf)])
    threshold = rng.integers(-1, 22, 50).astype(float)
    expected = np.array([np.searchsorted(row[:m], limit, side="right") for row, limit in zip(rows, threshold,
                                                                                              strict=True)])
    low = (expected * rng.uniform(0, 1, 50)).astype(np.int64)
    assert np.array_equal(fluid._count_at_most(rows, threshold, low, m), expected)
    assert np.array_equal(fluid._count_at_most(rows, threshold, np.zeros(50, dtype=np.int64), m), expected)


def test_blocks_hold_at_most_max_block_splits(monkeypatch):
    """1,000 jobs would fit 16,777 splits in BLOCK_BYTES under "fresh"; blocks stop at 2,048."""
    _, seen = _blocks_seen(monkeypatch, 1_000)
    assert seen == [2048] * 5 + [11_999 - 5 * 2048] and fluid.MAX_BLOCK_SPLITS == 2048
