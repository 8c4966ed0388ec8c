"""Job scheduling for multi-user MapReduce clusters (Zaharia et al., 2009).

Every set-up runs the simulator's network model (`SimOptions(network=True)`: 1 Gbit/s per node,
the paper's links), since the claims are about bytes moving: remote reads and the shuffle. The
paper's block size is 128 MB. Assumptions, each fixed before the runs:

- **Section 5.3** (FIFO against fair sharing on a batch): the paper's own two jobs, each 100 s of
  maps and 100 s of reduces on the whole cluster (10 nodes x 1 map + 1 reduce slot, 10 maps and
  10 reduces of 100 s each), heartbeat 0, no bytes (the reduces are "computation"), a map as fast
  anywhere (the example has no locality).
- **Section 6.3** (copy-compute splitting, one large job): the paper's 450 nodes in 34 racks, 6 map
  and 4 reduce slots per node, 1.8 TB in 14,624 maps and 5,000 reduces with identity maps (the
  shuffle is the input); maps of 28.5 s (SWIM's conversion of a 123 MB block), uplinks 10x
  oversubscribed (the paper's "10x lower" per node at the aggregation switch), slow-start 0.05, and
  reduces computing 97 s so that the plain run takes the paper's 12.9 minutes. Split: 8 reducers
  per node, 4 computing.
- **Section 6.2.1** (small jobs, Table 3 and Figure 12): the small private cluster (100 nodes, 4
  racks, 6 map slots per node, heartbeat 3 s), map-only scans of 3, 10 and 100 blocks submitted
  together, 1,800 maps in all (the paper ran 10-20 minutes' worth), FIFO with and without delay
  (15 s, 15 s). A scan map reads its block in 3.5 s: the nodes' 4 disks give 200-240 MB/s (the
  paper's "50-60 MB/s each") shared by 6 maps; task times lognormal with cv 0.3.
- **The lone small job** (section 6.2.3: a 16-map, 1-reduce job scanning 2 GB and sending 0.1%
  to its reduce took 35.4 s on average with and without delay scheduling, T1 = 10 s, eight runs
  each): alone on the EC2 cluster (100 nodes, 4 map and 2 reduce slots, one rack, heartbeat 3 s),
  maps of 30.6 s (SWIM's conversion of a 128 MB block), a 1 s reduce, Fair with and without delay
  (10 s, 10 s), mean of seeds 0-7.
"""

from __future__ import annotations

import statistics

from benchmarks.fidelity_claims.claims import Claim, Settings, claim_group, saving, within_absolute
from models import Cluster, Job
from planner.simulator import Fair, Fifo, SimOptions, fair_shares, simulate

SOURCE = "Zaharia"
BLOCK = 128 * 2**20
NETWORK = SimOptions(network=True)


@claim_group("zaharia-fair-shares", SOURCE)
def fair_share_claims(settings: Settings) -> list[Claim]:
    """Figure 3's example: 100 slots, four pools demanding 46, 18, 28 and 16 with weights giving
    shares 50, 10, 25 and 15; the pools that want less than their share give it to the others."""
    del settings
    shares = fair_shares(100, [46, 18, 28, 16], [50, 10, 25, 15])
    return [Claim("ZA-F3-fair-shares", SOURCE, "Figure 3: max-min fair shares of four pools", None, None,
                  "exact", list(shares) == [46, 14, 25, 15], "fair_shares(100, demands, weights)",
                  paper_text="46, 14, 25, 15", ours_text=", ".join(f"{share:g}" for share in shares))]


@claim_group("zaharia-batch", SOURCE)
def batch_claims(settings: Settings) -> list[Claim]:
    """Section 5.3: two jobs of 100 s of maps and 100 s of reduces take 400 s under fair sharing
    and 300 s under FIFO, "FIFO achieves 33% better response time"."""
    del settings
    cluster = Cluster(nodes=10, map_slots=1, reduce_slots=1, heartbeat=0)
    jobs = [Job(f"j{i}", 10, 10, 100.0, 100.0) for i in range(2)]
    anywhere = SimOptions(rack_factor={"balanced": 1.0}, off_rack_factor={"balanced": 1.0})
    fifo = simulate(jobs, cluster, Fifo(), options=anywhere).makespan
    fair = simulate(jobs, cluster, Fair(), options=anywhere).makespan
    gain = 100.0 * (fair / fifo - 1.0)
    setup = "two jobs of 10 maps and 10 reduces of 100 s on 10 + 10 slots"
    return [
        Claim("ZA-5.3-batch-times", SOURCE, "Section 5.3: fair 400 s, FIFO 300 s", None, None, "exact",
              (fair, fifo) == (400.0, 300.0), setup, paper_text="400 / 300 s", ours_text=f"{fair:g} / {fifo:g} s"),
        Claim("ZA-5.3-fifo-better", SOURCE, "Section 5.3: FIFO's batch response time 33% better", 33.3, gain,
              "+-1 pt", within_absolute(gain, 100 / 3, 1.0), setup),
    ]


def copy_compute_makespan(network: bool, split: tuple[int, int] | None) -> float:
    """Section 6.3's one large job (the module docstring's set-up); ``split`` is copy-compute's
    (max_reducers, max_computing), None for standard reduces."""
    cluster = Cluster(nodes=450, racks=34, map_slots=6, reduce_slots=4, rack_oversubscription=10.0)
    job = Job("identity", 14624, 5000, 28.5, 97.0, input_bytes=1.8e12, shuffle_bytes=1.8e12)
    options = SimOptions(network=network, reduce_slowstart=0.05, copy_compute=split)
    return simulate([job], cluster, options=options).makespan


@claim_group("zaharia-copy-compute", SOURCE)
def copy_compute_claims(settings: Settings) -> list[Claim]:
    """Section 6.3: one job on 450 nodes, 12.9 minutes with standard reduces, 11.8 with
    copy-compute splitting, "a 9% gain"."""
    del settings
    plain, split = copy_compute_makespan(True, None), copy_compute_makespan(True, (8, 4))
    gain = saving(split, plain)
    without = saving(copy_compute_makespan(False, (8, 4)), copy_compute_makespan(False, None))
    setup = (f"450 nodes / 34 racks, 14,624 maps, 5,000 reduces; plain {plain:.0f} s, split {split:.0f} s; "
             f"without the network the split gains {without:.1f}%")
    return [
        Claim("ZA-6.3-split-faster", SOURCE, "Section 6.3: copy-compute splitting speeds up one large job",
              None, gain, "faster (gain > 0)", gain > 0, setup, paper_text="faster (9%)"),
        Claim("ZA-6.3-split-gain", SOURCE, "Section 6.3: the gain is 9%", 9.0, gain, "+-5 pt",
              within_absolute(gain, 9.0, 5.0), setup),
    ]


SMALL_JOBS = {3: (600, 2.0, 75.0, 20.0), 10: (180, 37.0, 99.0, 70.0), 100: (18, 84.0, 94.0, 30.0)}
"""Maps per job -> (jobs, paper's node locality % without delay, with delay, throughput gain %)."""


def _small_jobs(maps: int, count: int, delay: tuple[float, float] | None):
    cluster = Cluster(nodes=100, racks=4, map_slots=6, reduce_slots=4, heartbeat=3.0)
    jobs = [Job(f"scan{i}", maps, 0, 3.5, input_bytes=maps * BLOCK, intensity="io") for i in range(count)]
    return simulate(jobs, cluster, Fifo(delay=delay), options=SimOptions(network=True, task_time_cv=0.3))


@claim_group("zaharia-small-jobs", SOURCE)
def small_job_claims(settings: Settings) -> list[Claim]:
    """Section 6.2.1, Table 3 and Figure 12: node locality of 3-, 10- and 100-map scans without
    and with delay scheduling, and delay scheduling's throughput gain (1.2x, 1.7x, 1.3x)."""
    del settings
    claims = []
    for maps, (count, standard, delayed, gain) in SMALL_JOBS.items():
        plain, delay = _small_jobs(maps, count, None), _small_jobs(maps, count, (15.0, 15.0))
        setup = f"{count} scans of {maps} blocks at once, FIFO; makespan {plain.makespan:.0f} s plain, " \
                f"{delay.makespan:.0f} s with delay"
        node_plain, node_delay = 100 * plain.locality["node"], 100 * delay.locality["node"]
        ours_gain = 100.0 * (plain.makespan / delay.makespan - 1.0)
        claims += [
            Claim(f"ZA-T3-{maps}-standard", SOURCE, f"Table 3: {maps}-map jobs' node locality without delay",
                  standard, node_plain, "+-15 pt", within_absolute(node_plain, standard, 15.0), setup),
            Claim(f"ZA-T3-{maps}-delay", SOURCE, f"Table 3: {maps}-map jobs' node locality with delay", delayed,
                  node_delay, "at least the paper's", node_delay >= delayed, setup),
            Claim(f"ZA-F12-{maps}-gain", SOURCE, f"Figure 12: delay's throughput gain on {maps}-map jobs (%)",
                  gain, ours_gain, "+-10 pt", within_absolute(ours_gain, gain, 10.0), setup),
        ]
    return claims


@claim_group("zaharia-lone-job", SOURCE)
def lone_job_claims(settings: Settings) -> list[Claim]:
    """Section 6.2.3: delay scheduling leaves a small job's response time unchanged (35.4 s with
    and without, EC2, where the network keeps up); the job alone, with and without delay."""
    del settings
    cluster = Cluster(nodes=100, map_slots=4, reduce_slots=2, heartbeat=3.0)
    job = Job("scan", 16, 1, 30.6, 1.0, input_bytes=16 * BLOCK, shuffle_bytes=16 * BLOCK / 1000, intensity="io")

    def response(delay: tuple[float, float] | None, options: SimOptions | None) -> float:
        return statistics.fmean(simulate([job], cluster, Fair(delay=delay), seed=seed, options=options).makespan
                                for seed in range(8))

    plain, delayed = response(None, NETWORK), response((10.0, 10.0), NETWORK)
    change = 100.0 * (delayed / plain - 1.0)
    factors = 100.0 * (response((10.0, 10.0), None) / response(None, None) - 1.0)
    setup = (f"16 maps of 30.6 s and a reduce alone on 100 nodes x 4 slots; {plain:.1f} s plain, {delayed:.1f} s "
             f"with delay (with the locality factors instead of the network: {factors:+.1f}%)")
    return [Claim("ZA-6.2.3-lone-job", SOURCE, "Section 6.2.3: delay scheduling leaves a small job's response "
                  "time unchanged (change, %)", 0.0, change, "within 5%", abs(change) <= 5.0, setup)]
