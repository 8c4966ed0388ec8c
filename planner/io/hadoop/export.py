"""A plan as the files an operator copies onto a Hadoop cluster (`hadoop_files`, behind the export
targets of `planner.io.hadoop.targets`).

Every target gets the scheduler's files, hdfs-site.xml (replication), topology.json (SLS's
nodes file: hosts ``node001``... in rack order, as the simulator numbers them),
``submissions.tsv`` and ``submit.sh`` (the schedule of `planner.io.hadoop.applied`), and a README
saying what goes where and what the target cannot enforce (`target_notes`). "mrv1" adds one
TaskTracker site file per group of nodes with the same slot counts (``tasktracker-N.xml`` and the
hosts it is for, ``tasktracker-N.hosts``): a split that is not a multiple of the nodes is laid
out exactly, extra map slots on the first nodes and extra reduce slots on the last, so that
every node keeps its own number of slots. VM plans export ``phases.tsv`` and a script that runs
the phases one after another.

Reading the folder back (`planner.io.hadoop.conf.hadoop_run`, ``planner simulate --hadoop-conf
FOLDER``) prepares the same run as the plan itself (`planner.io.hadoop.applied.hadoop_plan_run`);
tests check the results are byte-identical. `planner.io.targets.export_plan` writes the folder.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from xml.sax.saxutils import escape

from models import Cluster, Workload
from models.checks import as_str
from planner.io.hadoop.applied import HADOOP_TARGETS, PLAN_POOL, SUBMIT_GAP, submission_schedule, target_notes
from planner.io.hadoop.plan_files import (
    PHASES_COLUMNS,
    SUBMISSIONS_COLUMNS,
    SUBMISSIONS_COLUMNS_AFTER,
    Submission,
    after_cell,
    check_schedule_names,
)
from planner.plans.plan import Plan
from planner.simulator import SimOptions
from planner.simulator.layout import node_slots, spread

FAIR_MRV1 = "org.apache.hadoop.mapred.FairScheduler"
FIFO_MRV1 = "org.apache.hadoop.mapred.JobQueueTaskScheduler"
FAIR_YARN = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
CAPACITY_YARN = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"
FIFO_YARN = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
#: One container (MB, vcores): YARN's minimum allocation, which the reader assumes too.
CONTAINER = (1024, 1)


def host_names(cluster: Cluster) -> list[list[str]]:
    """Hosts per rack, as the simulator numbers nodes: node001... spread evenly over the racks."""
    names, first = [], 0
    for size in spread(cluster.nodes, cluster.racks):
        names.append([f"node{first + i + 1:03d}" for i in range(size)])
        first += size
    return names


def site_xml(properties: dict[str, object], comment: str) -> str:
    lines = ['<?xml version="1.0"?>', f"<!-- {escape(comment)} -->", "<configuration>"]
    for name, value in properties.items():
        text = str(value).lower() if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else value
        lines.append(f"  <property><name>{escape(name)}</name><value>{escape(str(text))}</value></property>")
    return "\n".join([*lines, "</configuration>", ""])


def hadoop_files(plan: Plan, workload: Workload | None, cluster: Cluster, target: str, *, ready_now: bool = False,
                 options: SimOptions | None = None) -> dict[str, str]:
    """The exported folder's files for one of Hadoop's targets (`HADOOP_TARGETS`), name ->
    content; `planner.io.targets.export_files` checks the plan's fingerprints first and
    `planner.io.targets.export_plan` writes them. Without the workload the schedule submits
    every job at once, in order (its submit times are unknown)."""
    target = as_str(target, "target", choices=HADOOP_TARGETS)
    options = options or SimOptions()
    files = {"topology.json": topology_json(cluster),
             "hdfs-site.xml": site_xml({"dfs.replication": cluster.replication}, "HDFS: block replication")}
    if plan.phases:
        rows = [f"{p}\t{name}\t{vms}\t{role}" for p, phase in enumerate(plan.phases) for name, vms, role in phase]
        files["phases.tsv"] = "\n".join(["\t".join(PHASES_COLUMNS), *rows, ""])
        files["submit.sh"] = _phases_script()
    else:
        files.update(schedule_files(submission_schedule(plan, workload, ready_now=ready_now), target))
        files.update(_mrv1(plan, cluster, options) if target == "mrv1" else _yarn(plan, cluster, options, target))
    files["README.md"] = _readme(plan, cluster, target, sorted(files))
    return files


def _fair_site(prefix: str, fair: bool, options: SimOptions) -> dict[str, object]:
    """The fair scheduler's site settings (preemption off: plans do not preempt); the reader takes
    assign-multiple from this property whatever the scheduler, so other schedulers write it only
    when it is off."""
    if not fair:
        return {} if options.assign_multiple else {f"{prefix}.assignmultiple": False}
    return {f"{prefix}.allocation.file": "fair-scheduler.xml", f"{prefix}.preemption": False,
            f"{prefix}.assignmultiple": options.assign_multiple}


def _mrv1(plan: Plan, cluster: Cluster, options: SimOptions) -> dict[str, str]:
    fair = plan.strategy != "johnson"
    site: dict[str, object] = {"mapred.jobtracker.taskScheduler": FAIR_MRV1 if fair else FIFO_MRV1,
                               "mapred.reduce.slowstart.completed.maps": float(options.reduce_slowstart)}
    site.update(_fair_site("mapred.fairscheduler", fair, options))
    files = {"mapred-site.xml": site_xml(site, "JobTracker: the scheduler and reduce slow-start")}
    if fair:
        files["fair-scheduler.xml"] = (
            f'<?xml version="1.0"?>\n<!-- the plan\'s pool: FIFO in submission order, at most k = {plan.k} '
            f'running jobs -->\n<allocations>\n  <pool name="{PLAN_POOL}">\n    <schedulingMode>fifo'
            f'</schedulingMode>\n    <maxRunningJobs>{plan.k}</maxRunningJobs>\n  </pool>\n</allocations>\n')
    files.update(slot_group_files(plan.map_slots, plan.reduce_slots,
                                  [host for rack in host_names(cluster) for host in rack]))
    return files


def topology_json(cluster: Cluster) -> str:
    """SLS's nodes file for ``cluster``: hosts ``node001``... in rack order (`host_names`)."""
    return "".join(json.dumps({"rack": f"rack{r + 1}", "nodes": [{"node": h} for h in hosts]}) + "\n"
                   for r, hosts in enumerate(host_names(cluster)))


def slot_group_files(map_slots: int, reduce_slots: int, hosts: Sequence[str]) -> dict[str, str]:
    """A split of ``map_slots`` and ``reduce_slots`` over ``hosts`` (in the nodes file's order) as
    TaskTracker slot groups: ``tasktracker-N.xml`` (the group's slot maxima) and
    ``tasktracker-N.hosts`` per group of hosts with the same counts, laid out as the simulator
    lays a split out (extra map slots on the first hosts, extra reduce slots on the last)."""
    maps, reduces = node_slots(map_slots, reduce_slots, len(hosts))
    groups: dict[tuple[int, int], list[str]] = {}
    for host, pair in zip(hosts, zip(maps, reduces, strict=True), strict=True):
        groups.setdefault(pair, []).append(host)
    files = {}
    for number, ((maps_here, reduces_here), members) in enumerate(groups.items(), start=1):
        files[f"tasktracker-{number}.xml"] = site_xml(
            {"mapred.tasktracker.map.tasks.maximum": maps_here, "mapred.tasktracker.reduce.tasks.maximum":
             reduces_here}, f"TaskTracker mapred-site.xml for the hosts in tasktracker-{number}.hosts")
        files[f"tasktracker-{number}.hosts"] = "\n".join(members) + "\n"
    return files


def yarn_site(cluster: Cluster, fair: bool) -> dict[str, object]:
    """yarn-site.xml's scheduler class and containers: each node's slots as containers of the
    minimum allocation (`CONTAINER`), which the reader reads back as the node's slots."""
    per_node = cluster.map_slots + cluster.reduce_slots
    return {"yarn.resourcemanager.scheduler.class": FAIR_YARN if fair else CAPACITY_YARN,
            "yarn.nodemanager.resource.memory-mb": per_node * CONTAINER[0],
            "yarn.nodemanager.resource.cpu-vcores": per_node * CONTAINER[1],
            "yarn.scheduler.minimum-allocation-mb": CONTAINER[0],
            "yarn.scheduler.minimum-allocation-vcores": CONTAINER[1]}


def _yarn(plan: Plan, cluster: Cluster, options: SimOptions, target: str) -> dict[str, str]:
    fair = target == "yarn-fair"
    site = yarn_site(cluster, fair)
    site.update(_fair_site("yarn.scheduler.fair", fair, options))
    files = {"yarn-site.xml": site_xml(site, "ResourceManager and NodeManagers: scheduler and containers"),
             "mapred-site.xml": site_xml({"mapreduce.job.reduce.slowstart.completedmaps":
                                          float(options.reduce_slowstart)}, "MapReduce jobs: reduce slow-start")}
    if fair:
        limit = "" if plan.strategy == "johnson" else f"\n    <maxRunningApps>{plan.k}</maxRunningApps>"
        files["fair-scheduler.xml"] = (
            f'<?xml version="1.0"?>\n<!-- the plan\'s queue: FIFO in submission order -->\n<allocations>\n'
            f'  <queue name="{PLAN_POOL}">\n    <schedulingPolicy>fifo</schedulingPolicy>{limit}\n  </queue>\n'
            "</allocations>\n")
    else:
        files["capacity-scheduler.xml"] = site_xml(
            {"yarn.scheduler.capacity.root.queues": PLAN_POOL,
             f"yarn.scheduler.capacity.root.{PLAN_POOL}.capacity": 100,
             f"yarn.scheduler.capacity.root.{PLAN_POOL}.maximum-capacity": 100},
            "the plan's queue: the whole cluster, FIFO in submission order")
    return files


#: MRv1's job priorities (``mapred.job.priority``) by level.
MRV1_PRIORITIES = {2: "VERY_HIGH", 1: "HIGH", 0: "NORMAL", -1: "LOW", -2: "VERY_LOW"}


def schedule_files(schedule: Sequence[Submission], target: str) -> dict[str, str]:
    """``submissions.tsv`` (`SUBMISSIONS_COLUMNS`, with ``after`` when jobs wait for jobs:
    `SUBMISSIONS_COLUMNS_AFTER`) and the ``submit.sh`` that submits it."""
    check_schedule_names(schedule)
    dependent = any(s.after is not None for s in schedule)
    rows = [f"{p}\t{s.job}\t{s.at!r}\t{s.pool}\t{s.priority}" + (f"\t{after_cell(s)}" if dependent else "")
            for p, s in enumerate(schedule)]
    columns = SUBMISSIONS_COLUMNS_AFTER if dependent else SUBMISSIONS_COLUMNS
    return {"submissions.tsv": "\n".join(["\t".join(columns), *rows, ""]),
            "submit.sh": submit_script(target, dependent)}


def submit_script(target: str, dependent: bool = False) -> str:
    """The script submitting ``submissions.tsv``: each job in the background at its time, in its
    pool or queue and at its priority (YARN: ``mapreduce.job.priority``, an integer as Hadoop 3
    takes it; MRv1: ``mapred.job.priority``, VERY_LOW..VERY_HIGH for -2..2), so that a ``$SUBMIT``
    that blocks until its job ends (``hadoop jar``, ``spark-submit``) does not run the batch one
    job after another. It waits for every submission and exits non-zero if any failed.

    ``dependent`` (the schedule has the ``after`` column): a job that waits for others is held, in
    the background, until the submissions of their rows have returned successfully, plus each
    delay, so ``$SUBMIT`` must return when its job has finished; a job whose predecessor failed is
    not submitted and counts as failed."""
    mrv1 = target == "mrv1"
    pool = "-Dmapred.fairscheduler.pool" if mrv1 else "-Dmapreduce.job.queuename"
    if mrv1:
        cases = "".join(f"    {level}) level={name} ;;\n" for level, name in MRV1_PRIORITIES.items())
        level = ('  case "$priority" in\n' + cases + '    *) echo "row $position ($job): MRv1 has priorities -2..2, got '
                 '$priority" >&2; exit 2 ;;\n  esac\n')
        priority = "-Dmapred.job.priority=$level"
    else:
        level, priority = "", "-Dmapreduce.job.priority=$priority"
    if dependent:
        about = """# Jobs that wait for other jobs (the after column: rows, each ROW or ROW+DELAY seconds) are held
# until the submissions of those rows have returned successfully, plus the delay: SUBMIT must
# return when its job has finished (`hadoop jar` and `yarn jar` do; spark-submit in cluster mode
# waits by default). A job whose predecessor failed is not submitted, and counts as failed.
"""
        fields, marks = "position job at pool priority after", """marks=$(mktemp -d)
trap 'rm -rf "$marks"' EXIT
"""
        submit = f"""  (
    for item in $(echo "$after" | tr ',' ' '); do
      row=${{item%%+*}}
      pause=0
      case "$item" in *+*) pause=${{item#*+}} ;; esac
      while [ ! -e "$marks/$row.done" ]; do
        if [ -e "$marks/$row.failed" ]; then
          echo "not submitting $position: $job (row $row failed)" >&2
          : > "$marks/$position.failed"
          exit 1
        fi
        sleep 1
      done
      hold=$(awk -v f="$(cat "$marks/$row.done")" -v p="$pause" -v n="$(now)" 'BEGIN {{ h = f + p - n; if (h > 0) printf "%.3f", h; else printf "0" }}')
      if [ "$hold" != 0 ]; then sleep "$hold"; fi
    done
    echo "submitting $position: $job"
    if $SUBMIT "$job" {pool}="$pool" {priority}; then
      now > "$marks/$position.end" && mv "$marks/$position.end" "$marks/$position.done"
    else
      : > "$marks/$position.failed"
      exit 1
    fi
  ) &
"""
    else:
        about, fields, marks = "", "position job at pool priority", ""
        submit = f"""  echo "submitting $position: $job"
  $SUBMIT "$job" {pool}="$pool" {priority} &
"""
    return f"""#!/bin/sh
# Submits the plan's jobs at the times in submissions.tsv (seconds from the start), each in its
# pool or queue and at its priority. Every submission runs in the background: a SUBMIT that
# blocks until its job has finished (`hadoop jar`, `spark-submit`) does not hold back the jobs
# after it. The order is kept by the submission times and the priorities (see README.md). The
# script waits for every submission and exits non-zero if any failed.
{about}# SUBMIT is your command that submits one job by name with extra -D options, e.g. a wrapper
# around `hadoop jar`: SUBMIT=./submit-job sh submit.sh
set -eu
: "${{SUBMIT:?set SUBMIT to the command that submits one job: \\$SUBMIT NAME -D...}}"
cd "$(dirname "$0")"
# the time in seconds, to the nanosecond where date can (GNU), else to the second
now() {{ t=$(date +%s.%N); case "$t" in *N*) date +%s ;; *) echo "$t" ;; esac; }}
start=$(now)
tab=$(printf '\\t')
{marks}pids=""
while IFS="$tab" read -r {fields}; do
  [ "$position" = position ] && continue
{level}  delay=$(awk -v s="$start" -v a="$at" -v n="$(now)" 'BEGIN {{ d = s + a - n; if (d > 0) printf "%.3f", d; else printf "0" }}')
  if [ "$delay" != 0 ]; then sleep "$delay"; fi
{submit}  pids="$pids $!"
done < submissions.tsv
failed=0
for pid in $pids; do
  wait "$pid" || failed=$((failed + 1))
done
if [ "$failed" -gt 0 ]; then
  echo "$failed submission(s) failed" >&2
  exit 1
fi
"""


def _phases_script() -> str:
    return """#!/bin/sh
# Runs the plan's phases one after another (phases.tsv): every job of a phase is started on its
# number of VMs, and the next phase starts when all have finished.
# RUN is your command that runs one job by name on a number of VMs in a role and returns when it
# has finished, e.g. RUN=./run-job sh submit.sh
set -eu
: "${RUN:?set RUN to the command that runs one job: \\$RUN NAME VMS ROLE}"
cd "$(dirname "$0")"
for phase in $(tail -n +2 phases.tsv | cut -f1 | uniq); do
  echo "phase $phase"
  tail -n +2 phases.tsv | awk -F '\\t' -v p="$phase" '$1 == p' | while IFS="$(printf '\\t')" read -r _ job vms role; do
    $RUN "$job" "$vms" "$role" &
  done
  wait
done
"""


#: Where each file of an exported folder goes, by name (`file_place`).
FILE_PLACES = {
    "mapred-site.xml": "the JobTracker's (mrv1) or every job's (YARN) configuration folder",
    "yarn-site.xml": "the ResourceManager's and every NodeManager's configuration folder",
    "fair-scheduler.xml": "beside the scheduler's site file; point the allocation-file property at its path",
    "capacity-scheduler.xml": "the ResourceManager's configuration folder",
    "hdfs-site.xml": "every node's configuration folder (block replication)",
    "topology.json": "for `planner simulate --hadoop-conf`; map its host names to yours",
    "submissions.tsv": "read by submit.sh: position, job, submit_at (s from the start), pool, priority",
    "phases.tsv": "read by submit.sh: phase, job, vms, role",
    "submit.sh": "run it when the batch starts (see its first lines)",
    "changes.diff": "what this export changes of your configuration (a unified diff)",
}


def file_place(name: str, text: str = "", otherwise: str = "") -> str:
    """Where an exported file goes: a slot group's site file and hosts, a file of `FILE_PLACES`,
    an allocation file by its content, else ``otherwise``."""
    if name.startswith("tasktracker-") and name.endswith(".xml"):
        return f"mapred-site.xml of the TaskTrackers listed in {name[:-4]}.hosts (their slot counts)"
    if name.endswith(".hosts"):
        return "the hosts its .xml is for"
    if name in FILE_PLACES:
        return FILE_PLACES[name]
    if name.endswith(".xml") and "<allocations" in text:
        return "the fair scheduler's allocation file (where the allocation-file property points)"
    return otherwise


def _readme(plan: Plan, cluster: Cluster, target: str, names: list[str]) -> str:
    kind = ("a VM plan" if plan.phases else f"{plan.map_slots} map and {plan.reduce_slots} reduce slots, "
            f"admission limit k = {plan.k}, {len(plan.order)} jobs in order")
    lines = [f"# The plan as {target} configuration", "",
             f"Made by `planner export` from a {plan.strategy} plan ({kind}) for {cluster.nodes} nodes in "
             f"{cluster.racks} rack(s). Predicted makespan: {plan.predicted_makespan:,.0f} s.", "",
             "| file | where it goes |", "|---|---|"]
    for name in names:
        lines.append(f"| {name} | {file_place(name)} |")
    lines += ["", "## What this target enforces", ""]
    notes = target_notes(plan, target)
    lines += [f"- {note}" for note in notes] or ["- The split, the order and the admission limit as planned."]
    lines += ["", f"Jobs are submitted in the plan's order, {SUBMIT_GAP * 1000:g} ms apart at least, each in the "
              "background (submit.sh): a blocking submission command does not serialize the batch. A job is never "
              "submitted before its submit time in the workload.",
              "", "Check it before applying: `planner simulate WORKLOAD -c CLUSTER --hadoop-conf THIS_FOLDER` "
              "gives the same result as `planner simulate WORKLOAD -c CLUSTER --plan PLAN --target "
              f"{target}`.", ""]
    return "\n".join(lines)
