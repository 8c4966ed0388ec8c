"""Reference workloads shaped like the papers' (used by the notebooks, benchmarks and tests).

- `set_a_batch`: a task-level batch shaped like FRESH's Set A (map-heavy and
  reduce-heavy jobs alternating, all submitted at 0);
- `packing_workload`: VM-level batches shaped like the Packing paper's W1-W6
  (its Table 1 job mixes), on `paper_cluster`;
- `random_batch`: random profiled VM-level batches.

Packing workloads.

The paper measured seven MapReduce jobs on its cluster: small and big sort
(s-srt, b-srt), k-means (s-kmns, b-kmns) and inverted index (s-inv, b-inv),
and a small document similarity (s-dsim). We do not have its measured
runtimes, so each job type gets a power-law profile F(n) = a n^b (seconds on
n VMs) chosen to match the paper's qualitative findings: sort and inverted
index are IO-bound and scale sub-linearly (they saturate the disks), k-means
and document similarity are CPU-bound and scale almost linearly; the big
variants process about six times the data. The workloads are mixes of these
types, from all-small to all-big, as in the paper's table.

| type | intensity | a (s) | b | F(20) (s) |
|---|---|---|---|---|
| s-srt | io | 1200 | -0.55 | 231 |
| s-kmns | cpu | 1600 | -0.90 | 108 |
| s-inv | io | 900 | -0.60 | 149 |
| s-dsim | cpu | 2400 | -0.85 | 188 |
| b-srt | io | 7200 | -0.65 | 1033 |
| b-kmns | cpu | 9600 | -0.92 | 612 |
| b-inv | io | 5400 | -0.70 | 662 |
"""

from __future__ import annotations

import numpy as np

from models import Cluster, InvalidInput, Job, PowerLawProfile
from models.checks import as_int

JOB_TYPES: dict[str, tuple[str, float, float]] = {
    "s-srt": ("io", 1200.0, -0.55),
    "s-kmns": ("cpu", 1600.0, -0.90),
    "s-inv": ("io", 900.0, -0.60),
    "s-dsim": ("cpu", 2400.0, -0.85),
    "b-srt": ("io", 7200.0, -0.65),
    "b-kmns": ("cpu", 9600.0, -0.92),
    "b-inv": ("io", 5400.0, -0.70),
}

# How many jobs of each type each workload runs.
MIXES: dict[str, dict[str, int]] = {
    "W1": {"s-srt": 2, "s-kmns": 2, "s-inv": 2, "s-dsim": 2},
    "W2": {"s-srt": 3, "s-kmns": 3, "b-srt": 1, "b-kmns": 1},
    "W3": {"s-inv": 3, "s-dsim": 3, "b-inv": 1, "b-kmns": 1},
    "W4": {"s-srt": 2, "s-kmns": 2, "s-inv": 1, "s-dsim": 1, "b-srt": 1, "b-kmns": 1, "b-inv": 1},
    "W5": {"b-srt": 2, "b-kmns": 2, "b-inv": 2, "s-dsim": 2},
    "W6": {"s-srt": 2, "s-kmns": 2, "s-inv": 1, "s-dsim": 1, "b-srt": 2, "b-kmns": 2, "b-inv": 2},
}


def paper_cluster(machines: int = 10) -> Cluster:
    """P machines with k = 2 disks (primary VMs) each, r = 2 primaries per extra VM, alpha = 1.3."""
    return Cluster(nodes=machines, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)


def packing_workload(name: str) -> list[Job]:
    """The jobs of workload ``name`` (W1-W6), named type-1, type-2, ..."""
    if name not in MIXES:
        raise InvalidInput("name", f"unknown packing workload {name!r}; known: {', '.join(MIXES)}")
    jobs = []
    for kind, count in MIXES[name].items():
        intensity, a, b = JOB_TYPES[kind]
        jobs += [Job(f"{kind}-{i + 1}", intensity=intensity, profile=PowerLawProfile.from_coefficients(a, b))
                 for i in range(count)]
    return jobs


def random_batch(n: int, seed: int = 0) -> list[Job]:
    """n jobs with F(n) = a n^b, a uniform in 500-5000 s, b uniform in -1..-0.3, intensity drawn
    from cpu / io / balanced with equal odds (the pairs and packing benchmarks' random batches)."""
    rng = np.random.default_rng(seed)
    return [
        Job(f"j{i}", intensity=str(rng.choice(["cpu", "io", "balanced"])),
            profile=PowerLawProfile.from_coefficients(float(rng.uniform(500, 5000)), float(rng.uniform(-1, -0.3))))
        for i in range(n)
    ]


def set_a_batch(count: int = 10) -> list[Job]:
    """``count`` jobs submitted at 0, alternating (FRESH's Set A mixes map-heavy and reduce-heavy
    jobs; its Table I counts are not used here):

    - wordcount-like wc0, wc2, ...: 80 maps x 30 s, 10 reduces x 20 s (2,400 + 200 slot-s);
    - terasort-like ts1, ts3, ...: 40 maps x 20 s, 40 reduces x 60 s (800 + 2,400 slot-s).

    Numbers are zero-padded to the width of ``count - 1`` (wc00 ... ts19 for 20 jobs).
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidInput("count", f"must be an integer >= 1, got {count!r}")
    width = len(str(count - 1))
    return [Job(f"wc{i:0{width}d}", 80, 10, 30.0, 20.0) if i % 2 == 0 else Job(f"ts{i:0{width}d}", 40, 40, 20.0, 60.0)
            for i in range(count)]


def crosscheck_cases(count: int, seed: int = 0, *, jobs: tuple[int, int] = (2, 4)) -> list[tuple[list[Job], Cluster]]:
    """``count`` small random VM-level instances for checking exact methods against exhaustive search.

    Case i draws from SeedSequence([seed, i]): between ``jobs[0]`` and ``jobs[1]`` jobs with
    F(n) = a n^b (a uniform in 20-200 s, b in -1..0.2, so some jobs slow down with more VMs),
    intensities cpu / io / balanced with equal odds, on a cluster of 1-4 nodes with 1-2 disks
    (tight: N = 1-2 VMs; loose: up to 8), primaries_per_extra 1 or 2 and alpha 1-1.5.
    """
    count = as_int(count, "count", minimum=0)
    low, high = jobs
    cases = []
    for i in range(count):
        rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
        n = int(rng.integers(low, high + 1))
        batch = [Job(f"j{k}", intensity=str(rng.choice(["cpu", "io", "balanced"])),
                     profile=PowerLawProfile.from_coefficients(float(rng.uniform(20, 200)), float(rng.uniform(-1, 0.2))))
                 for k in range(n)]
        cluster = Cluster(nodes=int(rng.integers(1, 5)), disks=int(rng.integers(1, 3)),
                          primaries_per_extra=int(rng.integers(1, 3)),
                          overcommit_penalty=round(float(rng.uniform(1.0, 1.5)), 2))
        cases.append((batch, cluster))
    return cases
