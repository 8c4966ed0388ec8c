"""sweep(): the same results in the same order on every executor, Dask included."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from models import Cluster, InvalidInput, Job, Workload
from planner.proof.sweep import Spec, sweep
from planner.simulator import simulate


def summary_of(jobs: list[Job], cluster: Cluster, scheduler: str, seed: int) -> dict:
    return simulate(jobs, cluster, scheduler, seed=seed, options=None).summary()


def fails_on(value: int) -> int:
    if value == 3:
        raise InvalidInput("value", "three is not allowed")
    return value * value


JOBS = [Job("a", 12, 3, 10.0, 20.0), Job("b", 6, 2, 15.0, 5.0, submit=4.0), Job("c", 20, 0, 3.0, 0.0, submit=9.0)]
CLUSTER = Cluster(nodes=4, racks=2)


def specs() -> list[Spec]:
    return [Spec(summary_of, (JOBS, CLUSTER, scheduler, seed), label=f"{scheduler}/{seed}")
            for scheduler in ("fifo", "fair") for seed in range(3)]


def test_local_processes_threads_and_serial_agree():
    """Six runs (two schedulers x three seeds), with task-time-free defaults but random block
    placement: process pool, a thread pool, serial: identical records in spec order."""
    serial = sweep(specs(), "serial")
    assert [r["scheduler"] for r in serial] == ["fifo"] * 3 + ["fair"] * 3
    assert sweep(specs()) == serial
    with ThreadPoolExecutor(2) as pool:
        assert sweep(specs(), pool) == serial
    assert sweep(specs(), workers=1) == serial


def test_results_come_back_in_spec_order_with_progress():
    seen = []
    results = sweep([Spec(fails_on, (v,)) for v in (5, 1, 4, 2)], progress=lambda done, total: seen.append((done, total)))
    assert results == [25, 1, 16, 4]
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert sweep([]) == []


def test_a_failing_run_raises_its_own_error():
    for executor in ("serial", None):
        with pytest.raises(InvalidInput, match=r"^value: three is not allowed$"):
            sweep([Spec(fails_on, (v,)) for v in range(6)], executor)


@pytest.mark.parametrize("executor, message", [
    ("somewhere", r"^executor: must be 'serial' or a Dask address"),
    (42, r"^executor: must be None, 'serial'"),
])
def test_bad_executors_are_named(executor, message):
    with pytest.raises(InvalidInput, match=message):
        sweep([Spec(fails_on, (1,))], executor)


def test_bad_specs_and_workers_are_named():
    with pytest.raises(InvalidInput, match=r"^specs\[1\]: must be a Spec"):
        sweep([Spec(fails_on, (1,)), (fails_on, 2)])
    with pytest.raises(InvalidInput, match=r"^workers: must be an integer >= 1"):
        sweep([Spec(fails_on, (1,))], workers=0)
    with pytest.raises(InvalidInput, match=r"^args: must be a tuple"):
        Spec(fails_on, [1])


def test_unreachable_dask_scheduler_is_a_clear_error(monkeypatch):
    monkeypatch.setattr("planner.proof.sweep.DASK_CONNECT_SECONDS", 1.0)
    with pytest.raises(InvalidInput, match=r"^executor: cannot reach the Dask scheduler at dask://127.0.0.1:9"):
        sweep([Spec(fails_on, (1,))], "dask://127.0.0.1:9")


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster


def test_dask_client_and_address_give_the_local_results(dask_cluster):
    """A LocalCluster of two worker processes, reached as a Client and as "dask://HOST:PORT":
    byte-for-byte the records of the local process pool, in the same order."""
    import distributed

    local = sweep(specs())
    with distributed.Client(dask_cluster) as client:
        seen = []
        assert sweep(specs(), client, progress=lambda done, total: seen.append(done)) == local
        assert seen == list(range(1, 7))
        assert client.status == "running"  # a client passed in stays open
    address = dask_cluster.scheduler_address.replace("tcp://", "dask://")
    assert sweep(specs(), address) == local
    with pytest.raises(InvalidInput, match=r"^value: three is not allowed$"):
        sweep([Spec(fails_on, (v,)) for v in range(5)], address)


def test_validate_on_dask_equals_local(dask_cluster):
    """The validation report of a small slot plan is the same JSON on Dask and locally."""
    from planner.planning.make import make_plan
    from planner.proof.validate import validate

    workload = Workload(JOBS, name="three")
    plan = make_plan(workload, CLUSTER)
    local = validate(plan, workload, CLUSTER, runs=3, curve_splits=2)
    remote = validate(plan, workload, CLUSTER, runs=3, curve_splits=2,
                      executor=dask_cluster.scheduler_address.replace("tcp://", "dask://"))
    assert remote.to_json() == local.to_json()


class CountedPayload:
    """A megabyte that pickles as plain bytes (a worker needs no test module to load it) and counts
    each time it is pickled, in this process."""

    pickled = 0

    def __init__(self) -> None:
        self.data = bytes(1 << 20)

    def __reduce__(self):
        type(self).pickled += 1
        return (bytes, (self.data,))


def test_dask_sends_an_argument_the_specs_share_once(dask_cluster):
    """Eight runs taking the same megabyte (as a validation's runs take the same batch): the client
    pickles it once, to scatter it, not once per run's task, and every run gets it whole."""
    import distributed

    payload = CountedPayload()
    CountedPayload.pickled = 0
    with distributed.Client(dask_cluster) as client:
        assert sweep([Spec(len, (payload,)) for _ in range(8)], client) == [1 << 20] * 8
    assert CountedPayload.pickled == 1


def test_shared_arguments_are_the_objects_several_specs_take():
    """Positional and keyword arguments count alike, by identity (an equal copy is not shared),
    in order of first use; numbers, strings and None always travel inside the task."""
    from planner.proof.sweep import shared_arguments

    batch, cluster, copy_of_batch = [1, 2], {"nodes": 4}, [1, 2]
    specs = [Spec(fails_on, (7, "x", None, cluster)), Spec(fails_on, (7, "x", batch), {"cluster": cluster}),
             Spec(fails_on, (batch, copy_of_batch))]
    shared = shared_arguments(specs)
    assert len(shared) == 2 and shared[0] is cluster and shared[1] is batch
    assert shared_arguments([Spec(fails_on, (batch, batch))]) == [batch]  # twice in one spec
    assert shared_arguments([Spec(fails_on, (batch,))]) == []


def test_sweeping_solves_and_comparisons_as_the_readme_shows():
    """Plans are picklable results too: a sweep of two packing solves returns them in order,
    equal to solving one by one; `compare` over seeds is a sweep of simulations."""
    from models import PowerLawProfile
    from planner.planning.make import make_plan
    from planner.proof.compare import compare

    workload = Workload([Job(n, 1, 0, 10.0, 0.0, intensity=i, profile=PowerLawProfile.from_coefficients(a, b))
                         for n, a, b, i in (("scan", 120, -1, "io"), ("train", 60, -1, "cpu"), ("flat", 50, 0, "balanced"))])
    cluster = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.5)
    plans = sweep([Spec(make_plan, (workload, cluster, "packing"), {"solver": s}) for s in ("milp", "greedy")])
    assert [p.solver for p in plans] == [make_plan(workload, cluster, "packing", solver=s).solver
                                         for s in ("milp", "greedy")]
    assert plans[0].predicted_makespan <= plans[1].predicted_makespan + 1e-9
    table = compare(Workload(JOBS), CLUSTER, ["fifo", "fair"], seeds=range(3)).table()
    assert [(row["configuration"], row["runs"]) for row in table] == [("fifo", 3), ("fair", 3)]
