"""Reference workloads shaped like the papers' (used by the notebooks, benchmarks and tests).

- `set_a_batch`: a task-level batch shaped like FRESH's Set A (map-heavy and
  reduce-heavy jobs alternating, all submitted at 0);
- `packing_workload`: VM-level batches W1-W6 exactly as the Packing paper's Table 1,
  on `paper_cluster` (`PAPER_MACHINES` gives the P the paper ran each on);
- `random_batch`: random profiled VM-level batches.

Packing workloads.

The paper (Aboulnaga, Wang, Zhang, "Packing the most onto your cloud") measured
seven Hadoop jobs: small and big sort (s-srt, b-srt: 2.4 GB and 20 GB), k-means
(s-kmns: 2,000 clusters x 10,000 points, 353 MB; b-kmns: 100 x 5,720,000
points, 10 GB), inverted index of Wikipedia (s-inv: its first 32 MB; b-inv: its
first 5 GB), and document similarity over s-inv's index (s-dsim). `MIXES` is
its Table 1. Its measured runtimes (Figure 1) are not published as numbers, so
each type gets a power law F(n) = a n^b (seconds on n VMs), calibrated once, for
all six workloads together, so that our exact solvers (``method="milp"``)
reproduce the paper's reported outcomes:

- W1-W3 on P = 9 (N = 18 VMs, 9 extras): the multi-job packing saves 24-33% of
  the sequential time (every job alone on all N VMs) and pairs fall between;
- W4-W6 on P = 10 (N = 20, 10 extras): pairs equal the multi-job packing and
  both save 16-30%.

What we assumed from the text (the paper gives no per-job numbers):

- intensity: sort is io-bound; k-means is cpu-bound; inverted index is
  cpu-bound (parsing and tokenizing the XML); document similarity is io-bound
  (its map output grows with the square of the posting lists, so it shuffles
  and spills far more than it reads);
- scaling (Figure 1: extra nodes help less and less): the small jobs scale
  sub-linearly, s-srt and s-inv strongly (start-up and per-task overheads
  dominate at 2.4 GB and 32 MB), s-kmns and s-dsim nearly linearly (compute
  per record is large); the big jobs are "large and resource intensive": b-srt
  speeds up more than linearly over the VM counts the schedules use (below
  about 1 GB per VM its map output fits the sort buffers and the extra merge
  passes disappear), b-inv nearly linearly, and b-kmns sub-linearly (an
  iterative job: each iteration pays a job start-up);
- lengths: b-kmns (5.7e10 distance computations an iteration plus 10 GB of
  input each time) is the longest job; b-srt about half of it; b-inv about half
  of b-srt; among the small jobs k-means (4e10 distances an iteration) and
  document similarity are the longest, the 32 MB index the shortest.

The exponents and lengths were then tuned (one set for all workloads, no
per-workload tweaks) on a grid, preferring the setting whose outcomes survive
random +-3% changes of every F(20) and +-0.02 of every b (11 of 12 draws keep
every W4-W6 claim; 19 of 20 draws at +-5% / +-0.03 keep every W1-W3 claim).
Pairs equalling the packing is the delicate claim: it needs b-srt super-linear
(a merged phase of two big sorts then costs more than two phases) and cpu jobs
too long to ride narrowly beside another job. `tests/test_packing_paper.py`
checks every claim.

| type | intensity | F(20) (s) | b | a (s) |
|---|---|---|---|---|
| s-srt | io | 230 | -0.40 | 762 |
| s-kmns | cpu | 500 | -0.90 | 7,411 |
| s-inv | cpu | 45 | -0.35 | 128 |
| s-dsim | io | 330 | -0.90 | 4,891 |
| b-srt | io | 1,000 | -1.40 | 66,289 |
| b-kmns | cpu | 2,000 | -0.63 | 13,203 |
| b-inv | cpu | 540 | -0.87 | 7,316 |

Measured with these profiles (sequential, pairs, packing; seconds):
W1 1,626 / 1,269 / 1,141 (pairs save 21.9%, packing 29.9%), W2 1,439 / 1,113 /
991 (22.7%, 31.1%), W3 2,229 / 1,724 / 1,576 (22.6%, 29.3%) on P = 9; W4 2,310 /
1,892 / 1,892 (18.1%), W5 6,540 / 5,395 / 5,395 (17.5%), W6 7,080 / 5,695 /
5,695 (19.6%) on P = 10.
"""

from __future__ import annotations

import numpy as np

from models import Cluster, Job, PowerLawProfile
from models.checks import as_int, as_str
from models.limits import MAX_JOBS, MAX_NODES

#: (intensity, F(20) in seconds, b) of each job type: F(n) = F(20) (n / 20)^b (module docstring).
_PROFILES: dict[str, tuple[str, float, float]] = {
    "s-srt": ("io", 230.0, -0.40),
    "s-kmns": ("cpu", 500.0, -0.90),
    "s-inv": ("cpu", 45.0, -0.35),
    "s-dsim": ("io", 330.0, -0.90),
    "b-srt": ("io", 1000.0, -1.40),
    "b-kmns": ("cpu", 2000.0, -0.63),
    "b-inv": ("cpu", 540.0, -0.87),
}

#: (intensity, a, b) of each job type: F(n) = a n^b seconds on n VMs.
JOB_TYPES: dict[str, tuple[str, float, float]] = {
    kind: (intensity, at_20 / 20.0**b, b) for kind, (intensity, at_20, b) in _PROFILES.items()
}

#: The Packing paper's Table 1 ("Complex Workloads Used"): how many jobs of each type.
MIXES: dict[str, dict[str, int]] = {
    "W1": {"s-srt": 2, "s-kmns": 2, "s-inv": 1},
    "W2": {"s-srt": 2, "s-kmns": 1, "s-inv": 1, "s-dsim": 1},
    "W3": {"s-srt": 3, "s-kmns": 2, "s-inv": 1, "s-dsim": 1},
    "W4": {"s-srt": 1, "b-srt": 1, "b-inv": 2},
    "W5": {"b-srt": 2, "b-kmns": 2, "b-inv": 1},
    "W6": {"b-srt": 2, "b-kmns": 2, "b-inv": 2},
}

#: The number of physical machines P the paper ran each workload on (its Figures 2 and 3).
PAPER_MACHINES: dict[str, int] = {"W1": 9, "W2": 9, "W3": 9, "W4": 10, "W5": 10, "W6": 10}


def paper_cluster(machines: int = 10) -> Cluster:
    """P = ``machines`` physical machines with k = 2 disks (primary VMs) each, r = 2 primaries per
    extra VM, alpha = 1.3: N = 2P VMs and P extra VMs."""
    machines = as_int(machines, "machines", minimum=1, maximum=MAX_NODES)
    return Cluster(nodes=machines, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)


def packing_workload(name: str) -> list[Job]:
    """The jobs of workload ``name`` (W1-W6), named type-1, type-2, ..."""
    as_str(name, "name", choices=MIXES)
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

    Numbers are zero-padded to the width of ``count - 1`` (wc00 ... ts19 for 20 jobs); at most
    `MAX_JOBS` jobs.
    """
    count = as_int(count, "count", minimum=1, maximum=MAX_JOBS)
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
