"""A batch of jobs and its file form."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, overload

from models.checks import as_items, as_iterable, as_mapping, as_str, check_keys, shown
from models.dag import Precedence
from models.errors import InvalidInput, InvalidType
from models.fileio import dump_mapping, read_mapping
from models.job import Job
from models.limits import MAX_JOBS, MAX_WORKLOAD_TASKS

_JOB_FIELDS = tuple(Job.__dataclass_fields__)
_DEFAULTS = {name: f.default for name, f in Job.__dataclass_fields__.items()}


class Workload:
    """An ordered batch of jobs with unique names; the jobs' ``after`` name jobs of the batch and
    make no cycle (`precedence`)."""

    __slots__ = ("_index", "_precedence", "jobs", "name", "tasks")

    def __init__(self, jobs: Iterable[Job], name: str | None = None) -> None:
        checked: list[Job] = []
        index: dict[str, int] = {}
        tasks = 0
        for position, job in enumerate(as_iterable(jobs, "jobs")):
            if not isinstance(job, Job):
                raise InvalidType(f"jobs[{position}]", f"must be a Job, got {shown(job)} ({type(job).__name__})")
            if job.name in index:
                raise InvalidInput(
                    f"jobs[{position}].name", f"duplicate job name {shown(job.name)} (also jobs[{index[job.name]}])"
                )
            if position >= MAX_JOBS:
                raise InvalidInput("jobs", f"a workload has at most {MAX_JOBS:,} jobs")
            tasks += job.map_tasks + job.reduce_tasks
            if tasks > MAX_WORKLOAD_TASKS:
                raise InvalidInput(f"jobs[{position}]", f"the workload's tasks pass {MAX_WORKLOAD_TASKS:,} here "
                                                        "(map and reduce tasks of all jobs together)")
            index[job.name] = position
            checked.append(job)
        if name is not None:
            as_str(name, "name")
        self.jobs: tuple[Job, ...] = tuple(checked)
        #: Map and reduce tasks of every job: what one run simulates (counted once, here).
        self.tasks = tasks
        self.name = name
        self._index = index
        self._precedence = Precedence(checked) if any(job.after for job in checked) else None

    @property
    def precedence(self) -> Precedence:
        """The jobs' dependencies as a checked graph (`models.dag.Precedence`)."""
        if self._precedence is None:
            self._precedence = Precedence(self.jobs)
        return self._precedence

    @property
    def has_dependencies(self) -> bool:
        """Whether any job waits for another (``after``)."""
        return any(job.after for job in self.jobs)

    def __len__(self) -> int:
        return len(self.jobs)

    def __iter__(self) -> Iterator[Job]:
        return iter(self.jobs)

    @overload
    def __getitem__(self, key: int | str) -> Job: ...
    @overload
    def __getitem__(self, key: slice) -> Workload: ...
    def __getitem__(self, key):
        if isinstance(key, str):
            if key not in self._index:
                raise KeyError(key)
            return self.jobs[self._index[key]]
        if isinstance(key, slice):
            return Workload(self.jobs[key], self.name)
        return self.jobs[key]

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Workload) and self.jobs == other.jobs and self.name == other.name

    def __repr__(self) -> str:
        label = f" {shown(self.name)}" if self.name else ""
        return f"<Workload{label}: {len(self.jobs)} jobs>"

    @property
    def names(self) -> list[str]:
        return [job.name for job in self.jobs]

    def to_records(self) -> list[dict[str, Any]]:
        """Flat records, one per job, with the derived work columns (for a DataFrame)."""
        rows = []
        for job in self.jobs:
            row = {name: getattr(job, name) for name in _JOB_FIELDS if name not in ("profile", "after")}
            row["after"] = ", ".join(
                dependency.job if not dependency.delay else f"{dependency.job} (+{dependency.delay:g} s)"
                for dependency in job.after
            )
            row["map_work"] = job.map_work
            row["reduce_work"] = job.reduce_work
            rows.append(row)
        return rows

    def to_dict(self) -> dict[str, Any]:
        """The file form: defaults are left out so files stay short."""
        data: dict[str, Any] = {}
        if self.name:
            data["name"] = self.name
        data["jobs"] = [job_to_dict(job) for job in self.jobs]
        return data

    @classmethod
    def from_dict(cls, data: object) -> Workload:
        mapping = as_mapping(data, "")
        check_keys(mapping, ("name", "jobs"), "", required=("jobs",))
        raw_jobs = mapping["jobs"]
        if not isinstance(raw_jobs, list):
            raise InvalidInput("jobs", f"must be a list of jobs, got {type(raw_jobs).__name__}")
        if len(raw_jobs) > MAX_JOBS:
            raise InvalidInput("jobs", f"a workload has at most {MAX_JOBS:,} jobs, got {len(raw_jobs):,}")
        jobs = []
        for position, raw in enumerate(raw_jobs):
            try:
                jobs.append(job_from_dict(raw))
            except InvalidInput as error:
                raise error.within(f"jobs[{position}]") from None
        name = mapping.get("name")
        return cls(jobs, name=as_str(name, "name") if name is not None else None)

    @classmethod
    def from_file(cls, path: str | Path) -> Workload:
        """Load a YAML or JSON workload file (see README, "Workload files")."""
        data = read_mapping(path)
        try:
            return cls.from_dict(data)
        except InvalidInput as error:
            raise error.in_file(str(path)) from None

    def to_file(self, path: str | Path) -> None:
        """Write the workload as YAML or JSON (by suffix), atomically."""
        dump_mapping(self.to_dict(), path)


def as_jobs(value: object, field: str = "jobs") -> list[Job]:
    """The jobs of a `Workload` or of a sequence of `Job` objects, as a list; anything else is an
    `InvalidType` naming the field (``jobs[2]: must be a Job, got dict``)."""
    if isinstance(value, Workload):
        return list(value.jobs)
    items = as_items(value, field)
    for position, item in enumerate(items):
        if not isinstance(item, Job):
            raise InvalidType(f"{field}[{position}]", f"must be a Job, got {shown(item)} ({type(item).__name__})")
    return items


def job_from_dict(data: object) -> Job:
    mapping = as_mapping(data, "")
    check_keys(mapping, _JOB_FIELDS, "", required=("name",))
    fields = dict(mapping)
    if fields.get("profile") is not None:
        # Profiles need scikit-learn (a second to import); a workload without them never loads it,
        # nor does the simulator, so its worker processes start light.
        from models.profiles.base import profile_from_mapping

        try:
            fields["profile"] = profile_from_mapping(fields["profile"])
        except InvalidInput as error:
            raise error.within("profile") from None
    return Job(**fields)


def job_to_dict(job: Job) -> dict[str, Any]:
    data: dict[str, Any] = {"name": job.name}
    for name in _JOB_FIELDS[1:]:
        value = getattr(job, name)
        if name == "after":
            if value:
                data["after"] = [dependency.to_item() for dependency in value]
        elif name == "profile":
            if value is not None:
                from models.profiles import profile_to_dict

                data["profile"] = profile_to_dict(value)
        elif value != _DEFAULTS[name] or name in ("map_tasks", "map_time"):
            data[name] = value
    return data
