"""Small Spark event logs written by the tests: listener events with the fields Spark 3.x writes
(only the ones the importer reads, plus a few it names as not modelled), times in ms from 1_000_000."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The application's start, in Spark's milliseconds: every time below is an offset from it.
EPOCH = 1_000_000


def header(executors: dict[str, int], *, master: str = "spark://127.0.0.1:7077", mode: str = "FIFO",
           app: str = "app-test") -> list[dict[str, Any]]:
    """LogStart, EnvironmentUpdate, ApplicationStart and an ExecutorAdded per executor (id: cores)."""
    events: list[dict[str, Any]] = [
        {"Event": "SparkListenerLogStart", "Spark Version": "3.5.0"},
        {"Event": "SparkListenerEnvironmentUpdate",
         "Spark Properties": {"spark.master": master, "spark.scheduler.mode": mode}},
        {"Event": "SparkListenerApplicationStart", "App Name": "test", "App ID": app, "Timestamp": EPOCH,
         "User": "tester"},
        {"Event": "SparkListenerBlockManagerAdded", "Timestamp": EPOCH},
    ]
    for executor, cores in executors.items():
        events.append({"Event": "SparkListenerExecutorAdded", "Timestamp": EPOCH, "Executor ID": executor,
                       "Executor Info": {"Host": "127.0.0.1", "Total Cores": cores}})
    return events


def stage_info(stage: int, tasks: int, parents: tuple[int, ...] = (), rdds: tuple[int, ...] = (),
               submit: int | None = None) -> dict[str, Any]:
    info: dict[str, Any] = {"Stage ID": stage, "Stage Attempt ID": 0, "Stage Name": f"stage {stage}",
                            "Number of Tasks": tasks, "Parent IDs": list(parents),
                            "RDD Info": [{"RDD ID": r} for r in rdds]}
    if submit is not None:
        info["Submission Time"] = EPOCH + submit
    return info


def job_start(job: int, submit: int, stages: list[dict[str, Any]], **properties: str) -> dict[str, Any]:
    return {"Event": "SparkListenerJobStart", "Job ID": job, "Submission Time": EPOCH + submit,
            "Stage Infos": stages, "Stage IDs": [s["Stage ID"] for s in stages],
            "Properties": {key.replace("_", "."): value for key, value in properties.items()}}


def job_end(job: int, end: int, result: str = "JobSucceeded") -> dict[str, Any]:
    return {"Event": "SparkListenerJobEnd", "Job ID": job, "Completion Time": EPOCH + end,
            "Job Result": {"Result": result}}


def stage_submitted(info: dict[str, Any], submit: int) -> dict[str, Any]:
    return {"Event": "SparkListenerStageSubmitted", "Stage Info": {**info, "Submission Time": EPOCH + submit},
            "Properties": {}}


def task_end(stage: int, task: int, launch: int, finish: int, *, run: int, kind: str = "ShuffleMapTask",
             index: int | None = None, executor: str = "1", deserialize: int = 0, serialize: int = 0,
             fetch_wait: int | None = None, reason: str = "Success", speculative: bool = False,
             attempt: int = 0, shuffle_write: int = 0, input_bytes: int = 0) -> dict[str, Any]:
    """A TaskEnd: times in ms from the epoch; ``run`` is the Executor Run Time."""
    metrics: dict[str, Any] = {"Executor Deserialize Time": deserialize, "Executor Run Time": run,
                               "Result Serialization Time": serialize, "JVM GC Time": 0, "Result Size": 1000,
                               "Shuffle Write Metrics": {"Shuffle Bytes Written": shuffle_write},
                               "Input Metrics": {"Bytes Read": input_bytes},
                               "Output Metrics": {"Bytes Written": 0}}
    if fetch_wait is not None:
        metrics["Shuffle Read Metrics"] = {"Fetch Wait Time": fetch_wait, "Remote Bytes Read": 10,
                                           "Local Bytes Read": 5}
    return {"Event": "SparkListenerTaskEnd", "Stage ID": stage, "Stage Attempt ID": 0, "Task Type": kind,
            "Task End Reason": {"Reason": reason},
            "Task Info": {"Task ID": task, "Index": task if index is None else index, "Attempt": attempt,
                          "Launch Time": EPOCH + launch, "Finish Time": EPOCH + finish, "Executor ID": executor,
                          "Host": "127.0.0.1", "Locality": "PROCESS_LOCAL", "Speculative": speculative,
                          "Getting Result Time": 0, "Failed": reason not in ("Success", "TaskKilled"),
                          "Killed": reason == "TaskKilled"},
            "Task Metrics": metrics}


def lines(events: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(event) + "\n" for event in events).encode()


def write_log(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_bytes(lines(events))
    return path
