"""The exact packing MILP: phases as columns (set partitioning), solved by HiGHS.

The compact linearization (`build_packing_model`: binaries y[j, p, v, role],
L_p >= each job's time) is exact but its LP bound is weak: a job can be spread
thinly over phases, so on 20 jobs HiGHS still sees gaps near 21% after a
minute. This is its Dantzig-Wolfe reformulation, the same decisions grouped
by phase: a binary x_s per feasible phase s (a set of jobs, each with its VM
count and role), cost c_s = the phase's length;

    minimize    sum_s c_s x_s
    subject to  sum_{s containing j} x_s = 1   for every job j   (one_phase)

Phases carry no labels here, so the symmetry between interchangeable phases
is gone entirely. The LP relaxation is solved by column generation
(solvers/packing/lp.py): the covering LP over a pool of columns gives duals
pi_j >= 0, and the pricing (`columns.best_by_level`, an exact knapsack
over every candidate phase length at once) finds the phases with negative
reduced cost. HiGHS solves the integer program over the pool whenever it
grows, started from the greedy schedule (whose phases are in the pool).

When a gap remains, the search branches best-first on how many phases are at
least lambda seconds long (`CountRow`): one side at most the floor of the LP's
count, the other at least its ceiling. The rows' duals only depend on a
phase's length, so the pricing stays the same knapsack. The threshold settles
the phases' lengths longest first (`lp.branching_row`): the gap is
almost all in the lengths (random_batch(40, 2) on P = 9: root LP 6,743.25,
6,814.22 with the two longest phases' lengths fixed, 6,817.74, the optimum,
with three), so splitting the longest undecided one moves the bound where the
most fractional count anywhere (the rule before) cut among short phases and
moved it by seconds per split. Column generation in a region stops once its
bound reaches the incumbent (Farley's bound holds with count rows too:
`lp._farley`). After each split, the integer program over the pool's
columns that could be in a better schedule of a child (`_Search._dive`, a few
thousand at most) looks for a better incumbent, at a fraction of the whole
pool's cost. Before a region is split, a short list closes it when its gap is
small (`_Search._listed`): every phase whose reduced cost there is at most what
a phase of a better schedule can have (`LpBound.slack`) is listed
(`listing.PhaseLister`); a better schedule in the region uses only such
phases, so the integer program over them and the incumbent's decides it. A
list within half the slack is made first and the whole one only when that is
short (`PhaseLister.probe`). A region whose LP counts are all whole is closed
the same way at the end (when branching runs out of time, the least bound of
the regions left is the result's bound), with the pool in its integer program.
The root itself is tried that way first, before any branching: when its gap is
small the list is short and the proof immediate; when it is not (over
`ROOT_PHASES` phases, or `ROOT_ENUMERATION` of the time), the list is dropped.
When the enumeration does not finish in time, what was found still feeds the
integer program and the result has status time_limit with the proven bound and
gap. Time split: root column generation up to 30% of the limit (90% if it has
not converged, then no branching), the root's enumeration up to 5% more,
branching up to 85%, enumeration up to 95%, then the last integer program. The
column generation keeps its LP in one HiGHS instance (`solvers.backends.milp.WarmLp`):
each round starts from the last basis.

What it proves within the benchmark's limit, and how long it takes, is in
docs/solvers.md (benchmark `packing`).
"""

from __future__ import annotations

import heapq
import math
import warnings

import numpy as np

from solvers.backends.milp import solve_arrays
from solvers.base import SolveStatus, Stopwatch
from solvers.certify import Claim, UncertifiedResult, check_claim, own_proof
from solvers.packing.columns import candidate_lengths, level_tables
from solvers.packing.listing import PhaseLister
from solvers.packing.lp import ColumnPool, CountRow, LpBound, branching_row, generate_columns, initial_pool, with_row
from solvers.packing.methods import _greedy
from solvers.packing.problem import (
    PROBLEM,
    PackingInstance,
    PhaseSchedule,
    Placement,
    grow_longest,
    make_schedule,
    phase_total,
    simple_bound,
)
from solvers.registry import register_method

ENUMERATION_LIMIT = 200_000
#: The root's enumeration (before any branching) lists at most this many phases and takes at
#: most this fraction of the time limit (ending by 85% of it, when branching would).
ROOT_PHASES = 5_000
ROOT_ENUMERATION = 0.05
#: Bytes the knapsack tables may take: the pricing holds about four tables of lengths x (N + 1)^2
#: numbers (measured: 935 MiB at its peak for 20 jobs on N = 100, one table 0.24 GiB), the
#: enumeration one per job more. Over it the step is not taken (greedy is returned, or the
#: enumeration skipped): 128 VMs with 100 jobs would want 11 GB to price and 60 GB to enumerate.
TABLE_BYTES = 4 << 30
#: A region met in branching is first tried by enumeration, listing at most `NODE_PHASES` phases in
#: at most `NODE_SHARE` of the time limit, when its gap is at most `NODE_RETRY` times the least gap
#: that failed so far: lists grow quickly with the gap (random_batch(40, 1) on P = 9: closed at a
#: gap of 19.5 s, 0.28%, in about 0.4 s; not listed in 1 s at 28 s), and a failed try is wasted time.
#: (2% of the limit cut off lists that would have closed their regions on a slow machine.)
NODE_PHASES = 20_000
NODE_SHARE = 0.08
NODE_RETRY = 0.5
#: The integer program after each split (`_Search._dive`) takes at most this many columns per child
#: and this fraction of the time limit.
NODE_COLUMNS = 3_000
DIVE_SHARE = 0.02
#: Branching ends at this fraction of the time limit; the open regions' enumeration follows.
BRANCHING = 0.85


def table_bytes(instance: PackingInstance, copies: int) -> int:
    """What ``copies`` knapsack tables over every candidate length take (8-byte numbers)."""
    return int(copies) * candidate_lengths(instance).size * (instance.vms + 1) ** 2 * 8


def _integer_program(pool: ColumnPool, start: list[list[Placement]] | None, *, time_limit: float, seed: int,
                     mip_gap: float, use_start: bool = True, among: np.ndarray | None = None):
    """Set partitioning over the pool's cheapest column of each job set (`ColumnPool.cheapest`;
    only among the columns ``among`` when given), with the pool index and cost of each of its
    columns. Leaving out dominated columns loses nothing, and keeps HiGHS's presolve from removing
    a column the MIP start uses (HiGHS 1.16.0 then reported "optimal" with objective 0)."""
    n = pool.instance.jobs
    kept, costs = pool.cheapest(among)
    columns = pool.matrix()[:, kept]
    guess = pool.start(start, kept) if start is not None and use_start else None
    solved = solve_arrays(costs, columns, np.ones(n), np.ones(n), np.zeros(kept.size), np.ones(kept.size),
                          integer=True, time_limit=time_limit, seed=seed, mip_gap=mip_gap, start=guess)
    return solved, kept, costs, columns


def _partition(values: np.ndarray | None, columns) -> np.ndarray | None:
    """The chosen columns when ``values`` is a 0/1 vector covering every job exactly once, else None."""
    if values is None or not np.all((np.abs(values) < 1e-6) | (np.abs(values - 1) < 1e-6)):
        return None
    chosen = values > 0.5
    if not np.array_equal(columns @ chosen.astype(np.float64), np.ones(columns.shape[0])):
        return None
    return np.flatnonzero(chosen)


def _polish(phases: list[list[Placement]], instance: PackingInstance) -> list[list[Placement]]:
    """Spread each all-primary phase's spare VMs over its longest jobs (never lengthens a phase)."""
    polished = []
    for phase in phases:
        if any(p.role != "primary" for p in phase):
            polished.append(phase)
            continue
        polished.append(grow_longest(instance, phase))
    return polished


class _Search:
    """The incumbent, the pool and the clock of one solve."""

    def __init__(self, instance: PackingInstance, time_limit: float, seed: int, mip_gap: float) -> None:
        self.clock = Stopwatch()
        self.instance, self.time_limit, self.seed, self.mip_gap = instance, time_limit, seed, mip_gap
        self.tables = level_tables(instance)
        greedy = _greedy(instance, time_limit=time_limit, seed=seed)
        self.pool = initial_pool(instance, greedy)
        self.best, self.total = [list(p) for p in greedy.phases], greedy.objective
        #: The best bound proven without HiGHS's word: combinatorial, then the certified LP bound.
        self.lower = simple_bound(instance)
        self.failed_certificates: list[str] = []
        #: The certified bound of the last integer program over the pool (a bound on every schedule
        #: when the pool holds every phase that could improve on the incumbent: `prove`).
        self.pool_bound = -math.inf
        self.failed_gap = math.inf  # the least gap of a region that branching failed to close by listing
        #: Whether the enumeration's tables fit (`TABLE_BYTES`): one per job more than the pricing's.
        self.can_list = table_bytes(instance, instance.jobs + 1) <= TABLE_BYTES

    def closed(self, bound: float) -> bool:
        return self.total - bound <= self.mip_gap * self.total + 1e-12 * self.total  # relative only

    def improve(self, until: float | None = None, among: np.ndarray | None = None) -> float | None:
        """The integer program over the pool (until ``until`` seconds on the clock, at most the time
        limit; over the columns ``among`` and the incumbent's when given); keeps what beats the
        incumbent. Its certified bound when its optimum is certified (`solvers.certify`: the
        solution partitions the jobs, its cost is what HiGHS reported, and HiGHS's bound is at least
        our LP bound and at most the incumbent), else None; over the whole pool that bound is also
        `pool_bound`. A failed certificate is retried once without the MIP start."""
        end = self.time_limit if until is None else min(until, self.time_limit)
        if among is not None:
            among = np.concatenate([among, self.pool.holding(self.best)])  # the incumbent stays feasible
        for use_start in (True, False):
            remaining = max(1e-3, end - self.clock.seconds)
            solved, kept, costs, columns = _integer_program(self.pool, self.best, time_limit=remaining,
                                                            seed=self.seed, mip_gap=self.mip_gap,
                                                            use_start=use_start, among=among)
            chosen = _partition(solved.values, columns)
            if chosen is not None:
                phases = [self.pool.phases[kept[c]] for c in chosen]
                total = phase_total(phases, self.instance)
                if total < self.total * (1 - 1e-12):  # relative: times may be milliseconds
                    self.best, self.total = phases, total
            if solved.status is not SolveStatus.OPTIMAL:
                return None
            recomputed = float(costs[chosen].sum()) if chosen is not None else math.inf
            claim = Claim(solved.status, solved.objective, solved.bound)
            problem = check_claim(claim, recomputed, lower=self.lower, upper=self.total, gap=self.mip_gap,
                                  feasible=chosen is not None)
            if problem is None:
                bound = max(float(solved.bound), self.lower)
                if among is None:
                    self.pool_bound = bound
                return bound
            self.failed_certificates.append(problem)
        return None

    def columns(self, deadline: float, rows: tuple[CountRow, ...] = ()) -> LpBound:
        # Past the cutoff the region is closed (`closed`): no more columns are needed for it.
        return generate_columns(self.instance, self.pool, self.tables, deadline=min(deadline, self.time_limit),
                                clock=self.clock, seed=self.seed, rows=rows, limit=self.time_limit,
                                cutoff=self.total * (1 - self.mip_gap))

    def branch(self, root: LpBound, deadline: float) -> tuple[float, list[LpBound] | None]:
        """Best-first branching on phase counts by length (`CountRow`): the bound over every
        region, and the regions left open (None when time ran out first). A region whose counts
        are all whole in its LP cannot be split this way; it stays open for the enumeration."""
        heap: list[tuple[float, int, LpBound]] = [(root.bound, 0, root)]
        whole: list[LpBound] = []
        dropped = math.inf  # the least bound of the regions closed on the way (within the gap)
        made = 1
        while heap:
            if self.closed(heap[0][0]):
                break  # the heap is ordered: every region left is closed too
            if self.clock.seconds >= deadline:
                return min(b for b, _, _ in heap + [(lp.bound, 0, lp) for lp in whole]), None
            bound, _, node = heapq.heappop(heap)
            if not node.converged:
                node = self.columns(deadline, node.rows)
                if not node.converged:
                    heapq.heappush(heap, (max(bound, node.bound), made, node))
                    made += 1
                    continue
            split = branching_row(node, self.pool)
            listed = self._listed(node, deadline, always=split is None)
            if listed is not None:  # closed: nothing in it beats the incumbent; its bound still counts
                dropped = min(dropped, max(bound, listed))
                continue
            if split is None:
                whole.append(node)
                continue
            threshold, count = split
            children = [self.columns(deadline, with_row(node.rows, threshold, lower, upper))
                        for lower, upper in ((0.0, math.floor(count)), (math.ceil(count), np.inf))]
            self._dive(children)
            for child in children:
                child_bound = max(bound, child.bound)
                if not self.closed(child_bound):
                    heapq.heappush(heap, (child_bound, made, child))
                    made += 1
                else:
                    dropped = min(dropped, child_bound)
        open_regions = whole + [node for _, _, node in heap if not self.closed(node.bound)]
        # Every region's bound counts, closed ones too: within the gap is not above the optimum.
        every = [lp.bound for lp in whole] + [b for b, _, _ in heap] + [dropped]
        return min(min(every), self.total), open_regions

    def _dive(self, children: list[LpBound]) -> None:
        """The integer program over the pool's columns that could be in a better schedule in an
        open child: reduced cost there at most the child's gap (at most `NODE_COLUMNS`, the
        cheapest), with the incumbent's, for at most `DIVE_SHARE` of the time limit. A heuristic:
        its bound proves nothing, but it is a fraction of the whole pool's integer program (which
        took about 1 s per split at 5,000 columns, the better part of branching)."""
        picked = []
        for child in children:
            if child.duals is None or self.closed(child.bound):
                continue
            reduced = self.pool.reduced_costs(child, self.tables.levels)
            near = np.flatnonzero(reduced <= self.total - child.bound)
            picked.append(near[np.argsort(reduced[near], kind="stable")[:NODE_COLUMNS]])
        if picked:
            self.improve(until=self.clock.seconds + DIVE_SHARE * self.time_limit, among=np.concatenate(picked))

    def _listed(self, node: LpBound, deadline: float, always: bool = False) -> float | None:
        """Close one region by enumeration (as `prove` does for several, at the end): every phase
        that could be in a better schedule there joins the pool, and the integer program over them
        and the incumbent's, certified, is then at least as good as any schedule in the region.
        Tried on regions whose gap is small enough (`NODE_RETRY`), and ``always`` on one that cannot
        be split (random_batch(20, 3) on P = 9: its optimum was in such a region, found only by the
        last enumeration after 8 s of branching), within `NODE_SHARE` of the limit. The region's
        proven bound when it is closed (every schedule in it costs at least the certified bound:
        HiGHS stops within ``mip_gap``, so not the incumbent), else None."""
        gap = self.total - node.bound
        if not self.can_list or node.duals is None or (gap > NODE_RETRY * self.failed_gap and not always):
            return None
        found, whole = self._phases_within_gap(
            node, limit=NODE_PHASES, deadline=min(deadline, self.clock.seconds + NODE_SHARE * self.time_limit),
            probe=True)
        if whole or always:
            # A better schedule in the region uses listed phases only: the integer program over
            # them and the incumbent's decides the region, at a fraction of the whole pool's cost.
            # Cut short, the list of a region that cannot be split still feeds it good phases.
            phases = [phase for _, phase in found]
            for phase in phases:
                self.pool.add(phase)
            bound = self.improve(until=deadline, among=self.pool.holding(phases))
            if bound is not None and whole:
                return bound
        # Other lists cut short stay out of the pool: they would slow every integer program after.
        self.failed_gap = min(self.failed_gap, gap)
        return None

    def _phases_within_gap(self, lp: LpBound, *, limit: int, deadline: float, probe: bool = False) -> tuple[list, bool]:
        """Every phase whose reduced cost in ``lp``'s region is at most what a phase of a better
        schedule there can have (`LpBound.slack`, padded for rounding), and whether the list is
        complete; with ``probe``, given up early when the list within half of it is already long
        (`PhaseLister.probe`)."""
        slack = lp.slack(self.total)
        lister = PhaseLister(self.tables, lp.duals, slack * (1 + 1e-9) + 1e-9, shift=lp.shift)
        if probe:
            return lister.probe(limit=limit, deadline=deadline, clock=self.clock)
        return lister.within(lister.slack, limit=limit, deadline=deadline, clock=self.clock)

    def prove(
        self, open_regions: list[LpBound], until: float = 0.95, limit: int = ENUMERATION_LIMIT, partial: bool = True,
        probe: bool = False,
    ) -> bool:
        """Enumerate, for each open region, every phase that could still be in a better schedule
        there (at most ``limit`` per region, until ``until`` x the time limit), then solve the
        integer program over all of them: optimal if every list was complete. Incomplete lists
        still feed the integer program good phases, unless ``partial`` is False: then an
        incomplete list is dropped and nothing is solved."""
        complete = True
        if not self.can_list:
            self.improve()  # the enumeration's tables would not fit: no proof this way
            return False
        for index, lp in enumerate(open_regions):
            if not lp.converged or lp.duals is None:
                complete = False
                continue
            # The rest of the time (5% after the last enumeration) is for what follows.
            share = (until * self.time_limit - self.clock.seconds) / (len(open_regions) - index)
            found, whole = self._phases_within_gap(lp, limit=limit, deadline=self.clock.seconds + max(0.0, share),
                                                   probe=probe)
            complete = complete and whole
            if not (whole or partial):
                return False
            for _, phase in found:
                self.pool.add(phase)
        return self.improve() is not None and complete


@register_method(PROBLEM, "milp", exact=True)
def _milp(instance: PackingInstance, *, time_limit: float, seed: int, mip_gap: float = 1e-6,
          **_: object) -> PhaseSchedule:
    """Set partitioning over phases by column generation and HiGHS, started from "greedy" (module docstring)."""
    if table_bytes(instance, 4) > TABLE_BYTES:
        # Too large to price: the greedy schedule, proven only if it meets our own bound.
        clock = Stopwatch()
        greedy = _greedy(instance, time_limit=time_limit, seed=seed)
        status, bound = own_proof(greedy.objective, simple_bound(instance))
        return make_schedule(list(greedy.phases), instance, status, "milp-columns", clock, bound)
    search = _Search(instance, time_limit, seed, mip_gap)
    root = search.columns(0.3 * time_limit)
    search.lower = max(search.lower, root.bound)
    search.improve()
    if not (root.converged or search.closed(search.lower)):
        # A slow start (large N: the knapsack has (N + 1)^2 states per length): keep generating,
        # the pool growing, for up to 90% of the time; branching needs a converged root anyway.
        later = search.columns(0.9 * time_limit)
        root = later if later.converged or later.bound > root.bound else root
        search.lower = max(search.lower, root.bound)
        search.improve()
    bound, proven = search.lower, search.closed(search.lower)
    if not proven and root.converged:
        # The root as the one open region: a small gap is closed at once (`random_batch(40)` on
        # P = 9: the incumbent 0.034% above the root bound, a hundred-odd phases within it, listed
        # in about a second, where branching's first child alone took 28 s and did not converge).
        # A larger gap stops at `ROOT_PHASES` phases or `ROOT_ENUMERATION` of the time; what it
        # found is dropped and branching follows as before.
        until = min(BRANCHING, search.clock.seconds / time_limit + ROOT_ENUMERATION)
        if search.prove([root], until=until, limit=ROOT_PHASES, partial=False, probe=True):
            proven, bound = True, max(bound, search.pool_bound)
        else:
            search.failed_gap = search.total - root.bound  # a region's own list is tried below it only
    if not proven and root.converged:
        bound, open_regions = search.branch(root, BRANCHING * time_limit)
        bound = max(bound, search.lower)
        proven = search.closed(bound)
        if not proven and open_regions is not None and search.clock.seconds < time_limit:
            # The enumeration's integer program may also reach the bound without a full list.
            if search.prove(open_regions):
                proven, bound = True, max(bound, search.pool_bound)
            else:
                proven = search.closed(bound)
    if search.failed_certificates and not proven:
        warnings.warn(UncertifiedResult(f"milp: HiGHS's optimum over the phase pool was not certified "
                                        f"({search.failed_certificates[0]}): reported as time_limit"), stacklevel=3)
    best = _polish(search.best, instance)
    total = phase_total(best, instance)
    bound = min(bound, total)  # a bound is never above a schedule we hold
    status = SolveStatus.OPTIMAL if proven else SolveStatus.TIME_LIMIT
    return make_schedule(best, instance, status, "milp-columns", search.clock, bound)
