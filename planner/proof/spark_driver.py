"""The driver process of a real-engine run (`planner.proof.spark_engine`): ``python -m
planner.proof.spark_driver SPEC.json``.

One SparkContext per process, so each run is a process of its own. The spec (written by
`planner.proof.spark_engine.run_engine_batch`) gives the Spark properties, the engine jobs, the
path of the submission script (`planner.io.spark.submit.submission_script`'s text, written to a
file) and where to write the report. The driver starts the context, waits until every executor
has registered, imports the script, builds one callable per engine job and runs the batch with
the script's ``run_batch``: the jobs are submitted exactly as an exported plan submits them.

The jobs' functions are defined in this module, which runs as ``__main__``: pyspark's cloudpickle
sends them to the executors by value, so the executors need nothing of batchplan. This module
imports only the standard library and pyspark (it does not import the rest of batchplan).

Job kinds, each one Spark job of a map stage and a result stage (one shuffle):

- ``sort``: each map task generates ``records`` random 32-bit keys (seeded by the job's seed and
  the task's index); the shuffle range-partitions them (the keys are uniform, so the ranges are
  even without sampling) and sorts each partition; the result stage checks the order and counts.
- ``wordcount``: each map task generates ``records`` words of text drawn from a fixed vocabulary
  (a few words frequent, most rare), splits and counts them with a map-side combine; the result
  stage sums the counts, which must equal the words generated.
- ``sleep``: each map task sleeps ``seconds``, each reduce task ``reduce_seconds``.
"""

from __future__ import annotations

import importlib.util
import json
import operator
import os
import random
import sys
import tempfile
import time

#: The report's format name and version.
REPORT_FORMAT = "batchplan-spark-engine-run"
REPORT_VERSION = 1
#: How long the driver waits for the executors to register (seconds).
EXECUTOR_WAIT_SECONDS = 180.0
#: Words of the wordcount vocabulary.
VOCABULARY_SIZE = 2000


def _vocabulary() -> list[str]:
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(VOCABULARY_SIZE)]


def sort_job(job: dict):
    maps, reduces, records, seed = job["maps"], job["reduces"], job["records"], job["seed"]

    def generate(index, _numbers):
        rng = random.Random(seed * 1_000_003 + index)
        for _ in range(records):
            yield rng.getrandbits(32), rng.getrandbits(32)

    def key_range(key):
        return (key * reduces) >> 32

    def checked(index, pairs):
        count, previous, ordered = 0, -1, True
        for key, _value in pairs:
            ordered = ordered and key >= previous and key_range(key) == index
            previous = key
            count += 1
        yield count, ordered

    def run(sc):
        data = sc.parallelize(range(maps), maps).mapPartitionsWithIndex(generate)
        parts = data.repartitionAndSortWithinPartitions(reduces, partitionFunc=key_range).mapPartitionsWithIndex(checked)
        found = parts.collect()
        if sum(count for count, _ in found) != maps * records or not all(ordered for _, ordered in found):
            raise RuntimeError(f"sort {job['name']}: the output is not the sorted input")
        return found

    return run


def wordcount_job(job: dict):
    maps, reduces, records, seed = job["maps"], job["reduces"], job["records"], job["seed"]
    vocabulary = _vocabulary()
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]

    def generate(index, _numbers):
        rng = random.Random(seed * 1_000_003 + index)
        words = rng.choices(vocabulary, weights=weights, k=records)
        for start in range(0, records, 12):
            yield " ".join(words[start:start + 12])

    def run(sc):
        lines = sc.parallelize(range(maps), maps).mapPartitionsWithIndex(generate)
        counts = lines.flatMap(str.split).map(lambda word: (word, 1)).reduceByKey(operator.add, reduces)
        total = counts.map(operator.itemgetter(1)).sum()
        if total != maps * records:
            raise RuntimeError(f"wordcount {job['name']}: counted {total} words of {maps * records}")
        return total

    return run


def sleep_job(job: dict):
    maps, reduces, seconds, reduce_seconds = job["maps"], job["reduces"], job["seconds"], job["reduce_seconds"]

    def nap_map(index, _numbers):
        time.sleep(seconds)
        yield index % reduces, 1

    def nap_reduce(pairs):
        time.sleep(reduce_seconds)
        yield sum(count for _key, count in pairs)

    def run(sc):
        pairs = sc.parallelize(range(maps), maps).mapPartitionsWithIndex(nap_map)
        return pairs.reduceByKey(operator.add, reduces).mapPartitions(nap_reduce).collect()

    return run


#: The job builders by kind.
KINDS = {"sort": sort_job, "wordcount": wordcount_job, "sleep": sleep_job}
#: Records per map task of the warm-up's job of each kind.
WARMUP_RECORDS = 2_000
#: A warm-up round is steady when its time is within this fraction of the round before.
WARMUP_STEADY = 0.10
#: The most rounds of a warm-up, however unsteady.
WARMUP_MAX_ROUNDS = 40


def warm_up(sc, group: str, cores: int, jobs: list[dict], seconds: float = 0.0) -> list[float]:
    """Jobs in their own job group before the batch; the seconds of each steady-state round.

    First a job of two stages, two tasks per core, so that every core starts its Python worker
    and runs a shuffle; then a small job of each kind of the batch (a task per core in each
    stage), so that each kind's code is loaded. Then, when ``seconds`` > 0, rounds of one job of
    each kind and size of the batch (sleeps aside; seed 0), at least two, until ``seconds`` have
    passed and a round took within `WARMUP_STEADY` of the round before, or twice ``seconds`` have
    passed, or `WARMUP_MAX_ROUNDS` rounds: the executors' JVMs compile their shuffle and serialization code
    over the first tens of seconds of work (on this machine a round of the benchmark's shapes took
    7.7 s cold and 4.0 s after some 20 s)."""
    sc.setJobGroup(group, group)
    tasks = max(2 * cores, 2)
    sc.parallelize(range(tasks * 100), tasks).map(lambda x: (x % tasks, x)).reduceByKey(lambda a, b: a + b,
                                                                                        tasks).count()
    for kind in sorted({job["kind"] for job in jobs}):
        if kind != "sleep":
            KINDS[kind]({"maps": cores, "reduces": cores, "records": WARMUP_RECORDS, "seed": 0})(sc)
    shapes = sorted({(job["kind"], job["maps"], job["reduces"], job["records"]) for job in jobs
                     if job["kind"] != "sleep"})
    rounds: list[float] = []
    began = time.monotonic()
    while shapes and seconds > 0 and len(rounds) < WARMUP_MAX_ROUNDS:
        started = time.monotonic()
        for kind, maps, reduces, records in shapes:
            KINDS[kind]({"name": f"{group}-{kind}", "maps": maps, "reduces": reduces, "records": records,
                         "seed": 0})(sc)
        rounds.append(time.monotonic() - started)
        spent = time.monotonic() - began
        steady = len(rounds) >= 2 and abs(rounds[-1] - rounds[-2]) <= WARMUP_STEADY * rounds[-2]
        if len(rounds) >= 2 and (spent >= 2 * seconds or (spent >= seconds and steady)):
            break
    sc.setLocalProperty("spark.jobGroup.id", None)
    sc.setLocalProperty("spark.job.description", None)
    return rounds


#: How long the driver waits for a gate's tasks to be running (seconds); each sleeps from its own
#: start, so a late start shortens nothing.
GATE_START_SECONDS = 30.0


def start_gate(sc, group: str, cores: int, seconds: float, folder: str):
    """A job of ``group`` holding every core for ``seconds`` (a sleeping task per core), run in a
    thread of its own. Each task first writes a file into ``folder`` (the executors of a
    local-cluster share the driver's file system), so that the driver sees at once that it runs:
    Spark's status tracker counted the tasks 1.4 to 4.1 s after they started on the benchmark,
    when a 4 s gate was nearly over. Returns once every task has started, or after
    `GATE_START_SECONDS`: the thread, where it records the job's end (time.monotonic) and whether
    every core was held. The batch's submissions then happen while no task computes: on a
    machine whose CPUs the driver shares with the executors, the driver's work to submit 24 jobs
    slowed the tasks of a batch's first 3 s about twofold."""
    import threading

    ended: dict[str, float] = {}
    os.makedirs(folder, exist_ok=True)

    def sleep_on_core(index: int) -> None:  # runs on an executor
        import os as executor_os
        import time as executor_time

        with open(executor_os.path.join(folder, f"started-{index}"), "w", encoding="utf-8"):
            pass
        executor_time.sleep(seconds)

    def hold() -> None:
        sc.setJobGroup(group, group)
        sc.parallelize(range(cores), cores).foreach(sleep_on_core)
        ended["at"] = time.monotonic()

    thread = threading.Thread(target=hold, name="batchplan-gate", daemon=True)
    thread.start()
    deadline = time.monotonic() + GATE_START_SECONDS
    held = False
    while not held and time.monotonic() < deadline and thread.is_alive():
        held = len(os.listdir(folder)) >= cores
        if not held:
            time.sleep(0.005)
    return thread, ended, held


def load_script(path: str):
    """The submission script at ``path``, imported as a module."""
    spec = importlib.util.spec_from_file_location("batchplan_submit", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def registered_executors(sc) -> int:
    """The executors registered with the driver (the block managers, less the driver's own)."""
    return sc._jsc.sc().getExecutorMemoryStatus().size() - 1


def write_json(path: str, data: dict) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".driver-", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        json.dump(data, stream, indent=1)
    os.replace(temporary, path)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m planner.proof.spark_driver SPEC.json", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as stream:
        spec = json.load(stream)
    script = load_script(spec["script"])
    jobs = {job["name"]: KINDS[job["kind"]](job) for job in spec["jobs"]}
    script.check_jobs(jobs, script.check_schedule(script.SCHEDULE))

    from pyspark import SparkConf, SparkContext

    launched = time.monotonic()
    conf = SparkConf(loadDefaults=False).setAll(sorted(spec["conf"].items()))
    sc = SparkContext(conf=conf)
    try:
        context_seconds = time.monotonic() - launched
        while registered_executors(sc) < spec["executors"]:
            if time.monotonic() - launched > EXECUTOR_WAIT_SECONDS:
                raise RuntimeError(f"{registered_executors(sc)} of {spec['executors']} executors registered "
                                   f"after {EXECUTOR_WAIT_SECONDS:.0f} s")
            time.sleep(0.1)
        rounds: list[float] = []
        if spec.get("warmup"):
            rounds = warm_up(sc, spec["warmup_group"],
                             spec["executors"] * int(spec["conf"].get("spark.executor.cores", 1)), spec["jobs"],
                             float(spec.get("warmup_seconds", 0.0)))
        gate = None
        if spec.get("gate_seconds"):
            gate = start_gate(sc, spec["gate_group"], spec["executors"] * int(spec["conf"].get("spark.executor.cores", 1)),
                              float(spec["gate_seconds"]), os.path.join(os.path.dirname(spec["report"]), "gate"))
        ready_seconds = time.monotonic() - launched
        epoch = time.time()
        begin = time.monotonic()
        records = script.run_batch(sc, jobs, script.SCHEDULE, timeout=spec.get("batch_timeout"))
        batch_seconds = time.monotonic() - begin
        gate_end, gate_held = None, None
        if gate is not None:
            gate[0].join()
            gate_end = gate[1].get("at", begin) - begin
            gate_held = gate[2]
        application_id = sc.applicationId
    finally:
        stopping = time.monotonic()
        sc.stop()
    write_json(spec["report"], {
        "format": REPORT_FORMAT, "version": REPORT_VERSION, "application_id": application_id,
        "context_seconds": context_seconds, "ready_seconds": ready_seconds, "batch_start_epoch": epoch,
        "batch_seconds": batch_seconds, "stop_seconds": time.monotonic() - stopping, "jobs": records,
        "warmup_rounds": rounds, "gate_end": gate_end, "gate_held": gate_held,
    })
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
