"""Upper limits on the values the models accept, in one place so that the README can cite them.

A value beyond a limit makes no sense for a nightly batch and would only make a run take
forever or overflow (2 ** priority, map_tasks * map_time, a cluster of ten million nodes):
the constructors and file readers refuse it with an `InvalidInput` naming the limit. The
limits of runs, seeds and simulator settings are in `planner.limits`.
"""

from __future__ import annotations

# Jobs and workloads.
#: Tasks of one phase (map or reduce) of one job; the busiest FB-2009 job has 56,262 maps.
MAX_TASKS = 1_000_000
#: Map plus reduce tasks of a whole workload. A simulation logs 35 bytes per attempt and keeps
#: the per-task state of unfinished jobs only; the whole FB-2010 day has 8,853,238 tasks.
MAX_WORKLOAD_TASKS = 10_000_000
#: Jobs in a workload.
MAX_JOBS = 100_000
#: Jobs one job waits for (`Job.after`); a batch's dependencies are bounded by the jobs' count
#: times this, and checking them (unknown names, cycles) is linear in that.
MAX_PREDECESSORS = 1_000
#: Seconds: task times, submit times, deadlines, delays and timeouts (about 31.7 years).
MAX_SECONDS = 1e9
#: The shortest mean task time (and F(1) of a profile): a millisecond. Shorter ones are noise, and
#: denormal ones (1e-320) stop the fluid models' arithmetic from advancing.
MIN_TASK_SECONDS = 0.001
#: Job and pool weights lie in [MIN_WEIGHT, MAX_WEIGHT].
MIN_WEIGHT = 1e-6
MAX_WEIGHT = 1e6
#: Priority levels lie in [-MAX_PRIORITY, MAX_PRIORITY]; the fair scheduler doubles a job's
#: weight per level, and 2 ** 1100 does not fit a float.
MAX_PRIORITY = 100

# Clusters.
MAX_NODES = 100_000
#: Map slots and reduce slots per node, each.
MAX_SLOTS_PER_NODE = 1_000
#: All map and reduce slots of a cluster, S = nodes * (map_slots + reduce_slots), and the totals
#: given to the simulator instead of the cluster's (planning is linear in S: about 2 s here).
MAX_TOTAL_SLOTS = 1_000_000
#: Disks (primary VMs) per machine, and primary VMs sharing one overcommitted extra VM.
MAX_DISKS = 64
MAX_PRIMARIES_PER_EXTRA = 1_000
#: N = nodes * disks.
MAX_VMS = 1_000_000
MAX_REPLICATION = 100
MAX_OVERCOMMIT_PENALTY = 100.0
#: A heartbeat is 0 (offer slots at once) or in [MIN_HEARTBEAT, MAX_HEARTBEAT] seconds: a shorter
#: one only multiplies events, a longer one is not a heartbeat.
MIN_HEARTBEAT = 0.001
MAX_HEARTBEAT = 3_600.0
#: A node's network link in Gbit/s: from a megabit (a typo below that) to a terabit.
MIN_NETWORK_GBPS = 0.001
MAX_NETWORK_GBPS = 1_000.0
#: A rack uplink carries its nodes' bandwidth divided by this (1 = non-blocking).
MAX_OVERSUBSCRIPTION = 1_000.0

# Runtime profiles F(n) = a * n^b.
#: |b|; at b = 10 a profile already grows ten orders of magnitude from 1 to 10 VMs.
MAX_EXPONENT = 10.0

# Files.
#: Bytes of any input file (workload, cluster, settings, plan, trace, CSV).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Bytes of a YAML input file: YAML is parsed in Python, about 0.5 MB/s.
MAX_YAML_BYTES = 16 * 1024 * 1024
#: Characters of one number in a file (a longer literal is an error, not a value).
MAX_NUMBER_CHARS = 100
#: Levels of nested lists and mappings in a YAML or JSON file.
MAX_NESTING = 64
#: Nodes that YAML aliases (``*name``) may add by repeating anchored values: a few hundred bytes
#: of nested aliases otherwise expand to gigabytes (the "billion laughs").
MAX_ALIAS_NODES = 100_000
#: Bytes of one CSV cell (Python's csv module's own limit, kept).
MAX_CSV_FIELD = 128 * 1024
#: Characters of a value quoted in an error message; longer ones are cut with an ellipsis.
MAX_SHOWN = 60
#: Bytes counted in a trace or a job (input, shuffle, output), 2^60 (an exbibyte).
MAX_BYTES = 2**60
