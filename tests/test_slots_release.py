"""Release times in the fluid slot models: by hand, against a brute-force loop, properties,
errors, and one run of the simulator."""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import pytest

from models import Cluster, InvalidInput, Job
from planner.simulator import SimOptions, simulate
from planner.simulator.schedulers.fresh import Fresh
from solvers import configure_slots, fluid_makespan
from solvers.slots.fluid import SIMULTANEOUS, _fresh_makespans, _general_makespans
from solvers.slots.maps import SHORT_ROWS, RowReductions, unit_map_phase, unit_map_phases
from solvers.slots.work import PhaseWork

MODELS = ("fresh", "capped")


# -- by hand -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_a_late_release_leaves_the_cluster_idle(model):
    """S = 2, k = 1, a and b each 1 map of 100 s and 1 reduce of 100 s.
    b released at 250: a maps 0-100 and reduces 100-200; nothing runs 200-250 (time jumps to
    the release); b maps 250-350 and reduces 350-450: 450.
    b released at 150: b maps 150-250 (a reduces 100-200), reduces 250-350: 350.
    b released at 80: M is full until 100, so the release is no event: 300, as without releases."""
    jobs = [Job("a", 1, 1, 100, 100), Job("b", 1, 1, 100, 100)]
    assert configure_slots(jobs, 2, 1, model=model, releases=[0, 250]).makespans.tolist() == [450.0]
    assert configure_slots(jobs, 2, 1, model=model, releases=[0, 150]).makespans.tolist() == [350.0]
    assert configure_slots(jobs, 2, 1, model=model, releases=[0, 80]).makespans.tolist() == [300.0]
    assert fluid_makespan(jobs, 1, 1, 1, model=model, releases=[0, 250]) == 450.0


@pytest.mark.parametrize("model", MODELS)
def test_an_unreleased_head_holds_back_the_jobs_after_it(model):
    """S = 2, k = 2, a and b each 1 map of 10 s and 1 reduce of 10 s; a released at 0, b at 50.
    Order a, b: a maps 0-10, reduces 10-20; b maps 50-60, reduces 60-70: 70.
    Order b, a: a may not pass b, so both enter M at 50 and share the map slot (1/2 each): maps
    done at 70; both share the reduce slot: 90."""
    jobs = [Job("a", 1, 1, 10, 10), Job("b", 1, 1, 10, 10)]
    assert configure_slots(jobs, 2, 2, model=model, releases=[0, 50]).makespan == 70.0
    assert configure_slots(jobs, 2, 2, order=[1, 0], model=model, releases=[0, 50]).makespan == 90.0


@pytest.mark.parametrize("model", MODELS)
def test_split_curve_with_a_release_by_hand(model):
    """S = 3, k = 2, a and b each 6 maps x 10 s and 3 reduces x 10 s (60 + 30); b released at 30.
    s_m = 1: a maps alone at 1 until 30 (30 left); b enters, each at 1/2: a's maps end at 90,
    b's (60 - 30 left) alone at 1 at 120. a reduces on 2 slots 90-105, b 120-135: 135.
    s_m = 2: a's maps end at 30 (at 2), just as b is released; b maps 30-60 at 2. One reduce
    slot: a 30-60, b 60-90: 90. (The capped model caps no job here: 3 or more tasks each.)"""
    jobs = [Job("a", 6, 3, 10, 10), Job("b", 6, 3, 10, 10)]
    plan = configure_slots(jobs, 3, 2, model=model, releases=[0, 30])
    assert plan.makespans.tolist() == [135.0, 90.0]
    assert (plan.map_slots, plan.reduce_slots, plan.makespan, plan.releases) == (2, 1, 90.0, (0.0, 30.0))


def test_a_later_release_can_shorten_the_makespan():
    """Not monotone: S = 2, k = 2, a (1 map of 10 s, 1 reduce of 10 s), b (map only, 10 s).
    Both at 0: they share the map slot, both maps end at 20, a reduces 20-30: 30.
    b at 10: a maps alone 0-10 and reduces 10-20 while b maps 10-20: 20. Equal sharing delays
    the job whose reduce is the critical path; holding b back undoes that (a processor-sharing
    anomaly: a release time is a constraint, and an earlier one can still cost)."""
    jobs = [Job("a", 1, 1, 10, 10), Job("b", 1, 0, 10)]
    assert configure_slots(jobs, 2, 2, releases=[0, 0]).makespan == 30.0
    assert configure_slots(jobs, 2, 2, releases=[0, 10]).makespan == 20.0


def test_capped_samples_its_caps_at_events():
    """The capped model counts a job's unfinished tasks at events only, so even with k = 1 a
    later release can shorten it. S = 3, s_m = 2: a (1 map, 1 reduce, 30 s each), b (3 maps of
    30 s, map only). b released at 20: it enters M at 30 (a's maps done) on 2 slots; at 60 (a's
    reduce ends) 30 s of work is left, counted as 1 task: 1 slot, 30 s more: 90.
    b released at 40: it enters at 40 on 2 slots; at 60 50 s are left, counted as 2 tasks: 2
    slots, 25 s more: 85. (Whole tasks would take two waves: 90 and 100.)"""
    jobs = [Job("a", 1, 1, 30, 30), Job("b", 3, 0, 30)]
    assert fluid_makespan(jobs, 2, 1, 1, model="capped", releases=[0, 20]) == 90.0
    assert fluid_makespan(jobs, 2, 1, 1, model="capped", releases=[0, 40]) == 85.0


# -- the same numbers without releases ----------------------------------------------------------
def random_jobs(rng, n):
    """Task times and releases in multiples of 10 s: many simultaneous events."""
    return [
        Job(f"j{i}", int(rng.integers(1, 20)), int(rng.integers(0, 10)),
            float(rng.integers(1, 6) * 10), float(rng.integers(1, 6) * 10))
        for i in range(n)
    ]


def random_releases(rng, n):
    return ((rng.integers(0, 30, n) * 10) * (rng.random(n) < 0.7)).astype(float)


def instances(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, total, k = int(rng.integers(1, 9)), int(rng.integers(2, 14)), int(rng.integers(1, 5))
        yield rng, random_jobs(rng, n), total, k, rng.permutation(n)


@pytest.mark.parametrize("model", MODELS)
def test_zero_releases_are_no_releases_bit_for_bit(model):
    """configure_slots sends all-zero releases down the release-free loops; the release-aware
    loops, run with zero gates directly, give the same numbers bit for bit."""
    for _, jobs, total, k, order in instances(21, 60):
        n = len(jobs)
        plain = configure_slots(jobs, total, k, order=order.tolist(), model=model)
        zero = configure_slots(jobs, total, k, order=order.tolist(), model=model, releases=[0.0] * n)
        assert np.array_equal(plain.makespans, zero.makespans) and zero.releases == (0.0,) * n
        assert plain.releases is None
        phases, splits = PhaseWork.from_jobs(jobs, order), np.arange(1, total)
        if model == "fresh":
            gated = _fresh_makespans(phases, total, k, splits, np.zeros(n))
        else:
            gated = _general_makespans(phases, total, k, splits, model, np.zeros(n))
        assert np.array_equal(plain.makespans, gated)


def test_unit_map_phases_with_zero_gates_repeat_the_scalar_one():
    """Whole tens of seconds end together (rows sorted by position); k up to 13 takes M's rows
    both column by column and by numpy's own reductions (`SHORT_ROWS`)."""
    rng = np.random.default_rng(4)
    for _ in range(40):
        work = rng.integers(1, 6, int(rng.integers(1, 16))).astype(float) * 10
        k = int(rng.integers(1, SHORT_ROWS + 6))
        finish, completion = unit_map_phase(work, k)
        rows_finish, rows_completion = unit_map_phases(work, k, np.zeros((3, work.size)))
        assert all(np.array_equal(row, finish) for row in rows_finish)
        assert all(np.array_equal(row, completion) for row in rows_completion)


def test_row_reductions_are_numpys():
    """Row minima, counts and running counts, short rows and wide: numpy's numbers and types."""
    rng = np.random.default_rng(7)
    for width in range(1, SHORT_ROWS + 4):
        values = rng.choice([0.5, 1.0, 2.0, np.inf, -0.0, 0.0], size=(6, width))
        mask = rng.random((6, width)) < 0.5
        reduced = RowReductions(width)
        least, count, running = reduced.least(values), reduced.count(mask), reduced.running(mask)
        assert np.array_equal(least, values.min(axis=1)) and least.dtype == np.float64
        assert np.array_equal(count, mask.sum(axis=1)) and count.dtype == np.int64
        assert np.array_equal(running, np.cumsum(mask, axis=1)) and running.dtype == np.int64


# -- against a brute-force loop ----------------------------------------------------------------------
def _brute_rates(active, slots, task_time, model):
    if not active:
        return {}
    if model == "fresh":
        return {p: slots / len(active) for p in active}
    caps = {p: max(1.0, math.ceil(w / task_time[p] - 1e-9)) for p, w in active.items()}
    level, free, ordered = math.inf, slots, sorted(caps.values())
    for i, cap in enumerate(ordered):
        if free / (len(ordered) - i) <= cap:
            level = free / (len(ordered) - i)
            break
        free -= cap
    return {p: min(cap, level) for p, cap in caps.items()}


def brute_makespan(phases, total, k, map_slots, model):
    """One split, real time, plain Python: the head of the admission order enters M when M has
    room and its own release has passed (the ones behind it wait for it); that release is an
    event when M has room."""
    n = phases.map_work.size
    slots = (float(map_slots), float(total - map_slots))
    work = (phases.map_work.tolist(), phases.reduce_work.tolist())
    times = (phases.map_time.tolist(), phases.reduce_time.tolist())
    release = phases.release.tolist()
    in_map: dict[int, float] = {}
    in_reduce: dict[int, float] = {}
    queue: deque[int] = deque()
    head, left, clock = 0, n, 0.0
    while left:
        while len(in_map) < k and head < n and release[head] <= clock * (1 + SIMULTANEOUS):
            in_map[head] = work[0][head]
            head += 1
        map_rate = _brute_rates(in_map, slots[0], times[0], model)
        reduce_rate = _brute_rates(in_reduce, slots[1], times[1], model)
        gaps = [w / map_rate[p] for p, w in in_map.items()] + [w / reduce_rate[p] for p, w in in_reduce.items()]
        if len(in_map) < k and head < n:
            gaps.append(release[head] - clock)
        step = min(gaps)
        cutoff = step * (1 + SIMULTANEOUS)
        maps_done = sorted(p for p, w in in_map.items() if w / map_rate[p] <= cutoff)
        reduces_done = [p for p, w in in_reduce.items() if w / reduce_rate[p] <= cutoff]
        clock += step
        for p in in_map:
            in_map[p] -= map_rate[p] * step
        for p in in_reduce:
            in_reduce[p] -= reduce_rate[p] * step
        for p in maps_done:
            del in_map[p]
            if work[1][p] > 0:
                queue.append(p)
            else:
                left -= 1
        for p in reduces_done:
            del in_reduce[p]
            left -= 1
        while queue and len(in_reduce) < k:
            p = queue.popleft()
            in_reduce[p] = work[1][p]
    return clock


@pytest.mark.parametrize("model", MODELS)
def test_vectorized_agrees_with_brute_force(model):
    """120 random batches with releases (some 0, some out of admission order), every split."""
    for rng, jobs, total, k, order in instances(31 if model == "fresh" else 32, 120):
        releases = random_releases(rng, len(jobs))
        plan = configure_slots(jobs, total, k, order=order.tolist(), model=model, releases=releases.tolist())
        phases = PhaseWork.from_jobs(jobs, order, releases)
        expected = [brute_makespan(phases, total, k, s, model) for s in range(1, total)]
        np.testing.assert_allclose(plan.makespans, expected, rtol=1e-9)


# -- properties ---------------------------------------------------------------------------------------
def test_delaying_a_release_never_shortens_fresh_with_k_one():
    """With k = 1 and equal sharing each job runs alone in each phase, a two-machine flow shop
    in a fixed order: C1_p = max(C1_{p-1}, r_p) + a_p, C2_p = max(C2_{p-1}, C1_p) + b_p, which
    only grows with r. (With k >= 2, or capped, it need not: the two tests above.)"""
    rng = np.random.default_rng(41)
    for _ in range(80):
        n, total = int(rng.integers(1, 9)), int(rng.integers(2, 14))
        jobs = [Job(f"j{i}", int(rng.integers(1, 20)), int(rng.integers(0, 10)), float(rng.uniform(1, 60)),
                    float(rng.uniform(1, 60))) for i in range(n)]
        order = rng.permutation(n).tolist()
        releases = rng.uniform(0, 300, n) * (rng.random(n) < 0.7)
        before = configure_slots(jobs, total, 1, order=order, releases=releases.tolist()).makespans
        releases[int(rng.integers(n))] += rng.uniform(0, 200)
        after = configure_slots(jobs, total, 1, order=order, releases=releases.tolist()).makespans
        assert np.all(after >= before * (1 - 1e-12))


@pytest.mark.parametrize("model", MODELS)
def test_makespan_covers_each_release_and_its_work(model):
    """No job can enter M before its release (nor before the releases ahead of it), then needs
    at least map_work / s_m + reduce_work / s_r: the makespan is at least that, for every job."""
    for rng, jobs, total, k, order in instances(51, 60):
        releases = random_releases(rng, len(jobs))
        plan = configure_slots(jobs, total, k, order=order.tolist(), model=model, releases=releases.tolist())
        splits = np.arange(1, total)
        gate = np.maximum.accumulate(releases[order])
        for position, index in enumerate(order):
            job = jobs[index]
            bound = gate[position] + job.map_work / splits + job.reduce_work / (total - splits)
            assert np.all(plan.makespans >= bound * (1 - 1e-12))
            assert np.all(plan.makespans >= releases[index])


@pytest.mark.parametrize("model", MODELS)
def test_a_common_release_shifts_the_whole_curve(model):
    for _, jobs, total, k, order in instances(61, 30):
        plain = configure_slots(jobs, total, k, order=order.tolist(), model=model).makespans
        shifted = configure_slots(jobs, total, k, order=order.tolist(), model=model, releases=[500.0] * len(jobs))
        np.testing.assert_allclose(shifted.makespans, plain + 500.0, rtol=1e-12)


def test_submit_times_as_releases_and_one_split():
    rng = np.random.default_rng(71)
    jobs = [job.with_changes(submit=float(rng.integers(0, 40) * 10)) for job in random_jobs(rng, 7)]
    submits = [job.submit for job in jobs]
    for model in MODELS:
        plan = configure_slots(jobs, 9, 2, order=[3, 1, 0, 6, 2, 5, 4], model=model, releases="submit")
        explicit = configure_slots(jobs, 9, 2, order=[3, 1, 0, 6, 2, 5, 4], model=model, releases=submits)
        assert np.array_equal(plan.makespans, explicit.makespans) and plan.releases == tuple(submits)
        for s in (1, 4, 8):
            single = fluid_makespan(jobs, s, 9 - s, 2, order=[3, 1, 0, 6, 2, 5, 4], model=model, releases="submit")
            assert single == pytest.approx(plan.makespans[s - 1], rel=1e-12)


@pytest.mark.parametrize(
    ("releases", "message"),
    [
        ([0.0], r"releases: must give one release time per job \(2\), got 1"),
        ([0.0, -1.0], r"releases\[1\]: must be >= 0"),
        ([math.nan, 0.0], r"releases\[0\]: must be a finite number"),
        ([0.0, math.inf], r"releases\[1\]: must be a finite number"),
        ([True, 0.0], r"releases\[0\]: must be a number"),
        (["10", 0.0], r"releases\[0\]: must be a number"),
        ([0.0, 2e9], r"releases\[1\]: must be <= 1e\+09"),
        ("later", 'releases: must be a list of numbers, "submit" or null'),
        (5, "releases: must be a list of numbers, got int"),
    ],
)
def test_bad_releases(releases, message):
    jobs = [Job("a", 1, 1, 10, 10), Job("b", 1, 1, 10, 10)]
    with pytest.raises(InvalidInput, match=message):
        configure_slots(jobs, 4, 2, releases=releases)
    with pytest.raises(InvalidInput, match=message):
        fluid_makespan(jobs, 2, 2, 2, releases=releases)


# -- the simulator ------------------------------------------------------------------------------------
EXACT = SimOptions(rack_factor={"cpu": 1.0}, off_rack_factor={"cpu": 1.0})


@pytest.mark.parametrize(("map_slots", "reduce_slots"), [(4, 4), (2, 6), (6, 2)])
@pytest.mark.parametrize("k", [1, 2])
def test_simulated_fresh_static_run_is_close(map_slots, reduce_slots, k):
    """Tasks of 1 s: a (400 maps, 200 reduces, released at 0), b (200, 400, at 300), c (400, 100,
    at 320), admitted a, c, b. b may not pass c, so the plan submits it at max(300, 320) = 320
    (FRESH admits a job of its order as it arrives, so the submit times carry the strict order).
    On 4:4 with k = 1: a maps 0-100 and reduces 100-150; idle until 320; c maps 320-420 and
    reduces 420-445; b maps 420-470 and reduces 470-570. With k = 2, b and c share M from 320:
    b's maps end at 420, c's at 470; b reduces alone, then with c: c ends at 520, b at 545.

    Tolerance 2 s (two task times, 0.4%): the simulator runs whole tasks, so a phase may end up
    to about a task time after the fluid one (a last, partial wave), and the fluid model never
    sees that. b and c enter M together, so FRESH's assignment (smallest share of slots since
    submission) is the fluid equal sharing; a job entering while another runs would be favoured
    until it caught up, which no task size makes small."""
    specs = [("a", 400, 200, 0.0), ("b", 200, 400, 300.0), ("c", 400, 100, 320.0)]
    order = [0, 2, 1]
    releases = [spec[3] for spec in specs]
    submits = np.maximum.accumulate(np.array(releases)[order])
    submit = {index: float(submits[position]) for position, index in enumerate(order)}
    jobs = [Job(name, maps, reduces, 1.0, 1.0, submit=submit[i], intensity="cpu")
            for i, (name, maps, reduces, _) in enumerate(specs)]
    cluster = Cluster(nodes=1, map_slots=map_slots, reduce_slots=reduce_slots, heartbeat=0)
    result = simulate(jobs, cluster, Fresh(k=k, dynamic=False, order=[specs[i][0] for i in order]), options=EXACT)
    fluid = fluid_makespan(jobs, map_slots, reduce_slots, k, order=order, releases=releases)
    assert fluid == fluid_makespan(jobs, map_slots, reduce_slots, k, order=order, releases="submit")
    if map_slots == 4:
        assert fluid == (570.0 if k == 1 else 545.0)
    assert abs(result.makespan - fluid) <= 2.0
