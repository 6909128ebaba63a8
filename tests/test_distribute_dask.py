"""Scaling out `ecs-combat simulate` on a real local Dask cluster (docs/distributed.md): the
same summary as a single process, the Python API with a Dask client, a worker missing a plugin,
the scheduler handshake. The tests that need the cluster are in this file, so that it is started
once and stopped as soon as they are done (an idle cluster's processes keep using CPU)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_distribute import BATTLES, SECOND_STRIKE, run, simulate, without_run

from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.distribute import Simulation
from ecs_combat.simulation.executors import check_scheduler
from ecs_combat.simulation.simulate import summary
from ecs_combat.simulation.spec_reader import parse_spec


@pytest.fixture(scope="module")
def registry() -> Registry:
    """The plugins of this installation, found as a worker process finds them (entry points)."""
    return load_registry()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A real local Dask cluster: two worker processes of one thread each."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local


def test_same_summary_for_one_worker_two_workers_and_a_dask_cluster(cluster: Any) -> None:
    """The judged comparison: --workers 1, --workers 2 and a LocalCluster, same seed."""
    one = simulate("--battles", BATTLES, "--seed", "8", "--workers", "1")
    two = simulate("--battles", BATTLES, "--seed", "8", "--workers", "2")
    dask = simulate("--battles", BATTLES, "--seed", "8", "--scheduler", cluster.scheduler_address)
    assert one["battles"] == 400_000
    assert without_run(one) == without_run(two) == without_run(dask)
    assert (one["run"]["workers"], two["run"]["workers"], dask["run"]["workers"]) == (1, 2, 2)
    assert one["run"]["tasks"] == two["run"]["tasks"] == dask["run"]["tasks"] == 4
    assert dask["run"]["scheduler"] == cluster.scheduler_address


def test_python_api_with_a_dask_client_executor(registry: Registry, cluster: Any) -> None:
    from distributed import Client

    spec = parse_spec({"attackers": [1, 3], "blockers_per_attacker": [0, 2]}, registry)
    simulation = Simulation(spec, 4, 200_000, registry=registry)
    alone = simulation.run()
    with Client(cluster) as client:
        remote = Simulation(spec, 4, 200_000, registry=registry).run(client.get_executor(), 2)
    assert remote.tasks > 1
    a = summary(simulation.generator, spec, 4, alone)
    b = summary(simulation.generator, spec, 4, remote)
    assert without_run(a) == without_run(b)


def test_a_dask_worker_missing_a_plugin_is_reported(cluster: Any, tmp_path: Path) -> None:
    """The plugin module is importable here but not on the cluster's workers."""
    (tmp_path / "second_strike_plugin.py").write_text(SECOND_STRIKE)
    env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    p = run(
        "-p", "second_strike_plugin", "simulate", "-n", "2000", "--scheduler",
        cluster.scheduler_address, env=env,
    )  # fmt: skip
    assert p.returncode == 1, p.stderr
    assert "a worker could not load the plugins" in p.stderr
    assert "second_strike_plugin" in p.stderr and "Traceback" not in p.stderr


def test_a_real_scheduler_passes_the_handshake(cluster: Any) -> None:
    check_scheduler(cluster.scheduler_address, timeout=10)
