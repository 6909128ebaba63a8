"""The compiled kernel (ecs_combat/kernel): the same outcomes as the numpy engine and the
reference engine, hand-derived rules on it, how it is chosen, and what the CLI imports.

The kernel compiles once per session into a cache shared by the test processes (pytest's
cache directory). ``test_parts_run_as_python`` runs this module again with
``NUMBA_DISABLE_JIT=1``: the template and the plugins' parts run as Python.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_hats import hat_trick

from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.batched.arrays import BatchOutcome, CombatBatch
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.kernel.runner import Kernel
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec import TournamentSpec, strike_keywords
from ecs_combat.simulation.spec_reader import parse_spec
from ecs_combat.testing import assert_kernel_agrees, registry_with, scenarios

ROOT = Path(__file__).resolve().parent.parent
#: Keywords whose systems all have kernel parts, or that have none (declaration-time only).
KERNEL_KEYWORDS = [
    "first strike", "double strike", "firstest strike", "last strike", "triple strike",
    "deathtouch", "trample", "lifelink", "indestructible", "flying", "reach", "menace",
]  # fmt: skip
#: The test venv's third-party plugins, blocked where the CLI runs (poisonous adds a system
#: without keywords and without a kernel part: with it, no batch runs in the kernel).
THIRD_PARTY = ["-p", "no:alpha_strike", "-p", "no:poisonous", "-p", "no:legacy"]
NOT_JITTED = os.environ.get("NUMBA_DISABLE_JIT") == "1"
#: The bundled plugins, for drawing scenarios at import time.
BUNDLED = registry_with()


@pytest.fixture(scope="module", autouse=True)
def kernels_on(pytestconfig: pytest.Config) -> Iterator[None]:
    """Kernels on for this module, compiled into a cache shared across the session."""
    saved = {k: os.environ.get(k) for k in ("ECS_COMBAT_KERNELS", "ECS_COMBAT_KERNEL_CACHE")}
    os.environ["ECS_COMBAT_KERNELS"] = "1"
    os.environ["ECS_COMBAT_KERNEL_CACHE"] = str(pytestconfig.cache.mkdir("ecs-combat-kernels"))
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="module")
def engines(registry: Registry) -> tuple[BatchedEngine, BatchedEngine]:
    """The batched engine with the compiled kernel, and without (the numpy engine)."""
    return BatchedEngine(registry), BatchedEngine(registry, kernels=False)


def kernel_outcome(engine: BatchedEngine, batch: CombatBatch) -> BatchOutcome:
    """The kernel's outcome of a batch it must resolve."""
    kernel = engine.kernel()
    assert kernel is not None
    schedule = engine.schedules.of([batch])
    assert kernel.refusal(schedule, batch) == ""
    return kernel.resolve(schedule, batch)


def assert_same(a: BatchOutcome, b: BatchOutcome) -> None:
    """Every array of two outcomes equal, dtypes too (the summaries are then the same bytes)."""
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, dict):
            assert x.keys() == y.keys(), f.name
            for key in x:
                assert x[key].dtype == y[key].dtype and np.array_equal(x[key], y[key]), key
        else:
            assert x.dtype == y.dtype, f.name
            assert np.array_equal(x, y), f.name


def resolve_text(engine: BatchedEngine, registry: Registry, text: str) -> BatchOutcome:
    scenario = parse_scenario(tomllib.loads(text), registry, "test.toml")
    return kernel_outcome(engine, scenarios_to_batch([scenario], registry))


# -- the same outcomes as the numpy engine ---------------------------------------------------


def test_tournament_batches_are_resolved_alike(
    registry: Registry, engines: tuple[BatchedEngine, BatchedEngine]
) -> None:
    kernel, numpy_engine = engines
    generator = make_generator(TournamentSpec(strike_keywords(registry)), registry)
    batch = draw_battles(generator, 7, 0, 3000).batch
    ours = kernel_outcome(kernel, batch)
    assert_same(ours, numpy_engine.resolve_batch(batch))
    assert_same(ours, kernel.resolve_batch(batch))  # dispatched to the kernel
    assert ours.steps_taken[:, :].any(axis=1).sum() >= 4  # several steps took place


SPEC = """
attackers = [1, 4]
blockers_per_attacker = [0, 3]
power = [0, 6]
toughness = [1, 6]
life = 4
matchup = ["deathtouch"]
[keywords]
"first strike" = 0.1
"double strike" = 0.1
"last strike" = 0.05
deathtouch = 0.15
trample = 0.2
lifelink = 0.2
indestructible = 0.1
flying = 0.1
reach = 0.1
menace = 0.05
"""


def test_drawn_melees_are_resolved_alike(
    registry: Registry, engines: tuple[BatchedEngine, BatchedEngine]
) -> None:
    """Many blockers, low life (players lose mid-combat), every kernel part."""
    kernel, numpy_engine = engines
    spec = parse_spec(tomllib.loads(SPEC), registry, "melee.toml")
    batch = draw_battles(make_generator(spec, registry), 11, 0, 1500).batch
    ours = kernel_outcome(kernel, batch)
    assert_same(ours, numpy_engine.resolve_batch(batch))
    assert ours.lost.any() and ours.life_gained is not None and ours.life_gained.any()


@settings(max_examples=25 if NOT_JITTED else 80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(doc=scenarios(BUNDLED, keywords=KERNEL_KEYWORDS, players=3, state=False, events=False))
def test_three_engines_agree_on_drawn_scenarios(doc: dict[str, Any]) -> None:
    """The kit's check (kernel against the reference engine), and the kernel against the
    numpy engine exactly: three players, so one may leave the game mid-combat (800.4a).
    Counters, which the kernel lacks, are left out (a few documents are then illegal)."""
    for c in doc["creatures"].values():
        c.pop("counters", None)
    assert_three_engines_agree(doc)


def test_the_example_melee_with_its_casts_is_resolved_alike(
    registry: Registry, engines: tuple[BatchedEngine, BatchedEngine]
) -> None:
    """examples/specs/melee.toml as users run it: Hat Trick cast on blocked attackers (its
    kernel part, the `cast` point), hats on creatures and players."""
    kernel, numpy_engine = engines
    text = (ROOT / "examples/specs/melee.toml").read_text()
    spec = parse_spec(tomllib.loads(text), registry, "melee.toml")
    batch = draw_battles(make_generator(spec, registry), 5, 0, 1500).batch
    assert len(batch.event_battle) > 500  # a cast on about one blocked attacker in five
    ours = kernel_outcome(kernel, batch)
    assert_same(ours, numpy_engine.resolve_batch(batch))
    steps = [s.name for s in registry.steps]
    assert ours.steps_taken[steps.index("last-strike")].any()  # triple strike was granted


@st.composite
def casts_of_hat_trick(draw: st.DrawFn) -> dict[str, Any]:
    """A drawn scenario with hats, and Hat Trick cast on drawn creatures by drawn players
    as blockers are declared (legal targets or not: an illegal one does nothing)."""
    doc: dict[str, Any] = draw(
        scenarios(BUNDLED, keywords=KERNEL_KEYWORDS, players=3, state=False, events=False)
    )
    for c in doc["creatures"].values():
        c.pop("counters", None)
        if c.get("damage", 0) >= c["toughness"]:
            c.pop("damage")  # begins with lethal damage: the kernel refuses it
        c["hat"] = draw(st.booleans())
    for p in doc["players"].values():
        p["hat"] = draw(st.booleans())
    names, players = sorted(doc["creatures"]), sorted(doc["players"])
    doc["events"] = [
        {
            "at": "declare-blockers",
            "action": "cast",
            "card": "Hat Trick",
            "caster": draw(st.sampled_from(players)),
            "target": draw(st.sampled_from(names)),
        }
        for _ in range(draw(st.integers(1, 3)))
    ]
    return doc


@settings(max_examples=20 if NOT_JITTED else 60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])  # fmt: skip
@given(doc=casts_of_hat_trick())
def test_three_engines_agree_on_drawn_casts(doc: dict[str, Any]) -> None:
    """The kit's check (the kernel's `cast` part against the reference engine's Hat Trick)
    and the kernel against the numpy engine exactly."""
    try:
        scenario = parse_scenario(doc, BUNDLED, "drawn.toml")
    except InputError:
        assume(False)
    assert assert_kernel_agrees(BUNDLED, doc)
    batch = scenarios_to_batch([scenario], BUNDLED)
    with_kernel, numpy_engine = engines_of(BUNDLED)
    assert_same(kernel_outcome(with_kernel, batch), numpy_engine.resolve_batch(batch))


_engines: dict[int, tuple[BatchedEngine, BatchedEngine]] = {}


def engines_of(registry: Registry) -> tuple[BatchedEngine, BatchedEngine]:
    if id(registry) not in _engines:
        _engines[id(registry)] = BatchedEngine(registry), BatchedEngine(registry, kernels=False)
    return _engines[id(registry)]


def assert_three_engines_agree(doc: dict[str, Any]) -> None:
    """The kit's check of `doc` (kernel against the reference engine; a document the kernel
    does not take is assumed away), and the kernel against the numpy engine exactly."""
    assume(assert_kernel_agrees(BUNDLED, doc))
    batch = scenarios_to_batch([parse_scenario(doc, BUNDLED, "drawn.toml")], BUNDLED)
    with_kernel, numpy_engine = engines_of(BUNDLED)
    assert_same(kernel_outcome(with_kernel, batch), numpy_engine.resolve_batch(batch))


# -- rules, derived by hand, on the kernel -----------------------------------------------------

PLAYERS = "[players.a]\nlife = 20\n[players.b]\nlife = 20\n"


def creature(name: str, who: str, power: int, toughness: int, *keywords: str) -> str:
    kws = ", ".join(f'"{k}"' for k in keywords)
    return (
        f'[creatures.{name}]\ncontroller = "{who}"\npower = {power}\n'
        f"toughness = {toughness}\nkeywords = [{kws}]\n"
    )


def test_deathtouch_and_trample(registry: Registry, engines: tuple[BatchedEngine, Any]) -> None:
    """702.2c, 702.19b: a 4/4 deathtouch trampler blocked by a 3/3 assigns 1 lethal damage
    to it and 3 to the player; the blocker is destroyed (704.5h), and deals 3 back."""
    text = PLAYERS + creature("x", "a", 4, 4, "deathtouch", "trample") + creature("y", "b", 3, 3)
    text += '[combat]\nattackers = { x = "b" }\nblockers = { y = "x" }\n'
    out = resolve_text(engines[0], registry, text)
    assert out.life.tolist() == [20, 17]
    assert out.alive.tolist() == [True, False]
    assert out.damage.tolist() == [3, 1]
    assert out.damage_to_players.tolist() == [3]


def test_double_strike_and_lifelink(registry: Registry, engines: tuple[BatchedEngine, Any]) -> None:
    """702.4b, 702.15b: a 2/2 double strike lifelink attacker blocked by a 3/3 deals 2 in the
    first-strike step and 2 in the regular step, gaining 4 life; the 3/3 dies in the regular
    step, dealing its 3 at the same time: both die."""
    text = PLAYERS + creature("x", "a", 2, 2, "double strike", "lifelink")
    text += creature("y", "b", 3, 3) + '[combat]\nattackers = { x = "b" }\nblockers = { y = "x" }\n'
    out = resolve_text(engines[0], registry, text)
    assert out.life.tolist() == [24, 20]
    assert out.alive.tolist() == [False, False] and out.died_in_step.tolist() == [True, True]
    assert out.life_gained is not None and out.life_gained.tolist() == [4, 0]
    steps = [s.name for s in registry.steps]
    taken = {steps[i] for i in np.flatnonzero(out.steps_taken[:, 0])}
    assert taken == {"first-strike", "regular"}


def test_indestructible_and_lethal(registry: Registry, engines: tuple[BatchedEngine, Any]) -> None:
    """702.12b: an indestructible 1/1 blocker dealt 5 by a deathtouch source is neither
    destroyed by lethal damage (704.5g) nor by deathtouch (704.5h)."""
    text = (
        PLAYERS
        + creature("x", "a", 5, 5, "deathtouch")
        + creature("y", "b", 1, 1, "indestructible")
    )
    text += '[combat]\nattackers = { x = "b" }\nblockers = { y = "x" }\n'
    out = resolve_text(engines[0], registry, text)
    assert out.alive.tolist() == [True, True]
    assert out.damage.tolist() == [1, 5]
    assert out.life.tolist() == [20, 20]


@pytest.mark.parametrize(
    ("caster_hat", "creature_hat", "wall_damage", "steps"),
    [
        (False, False, 3, {"first-strike", "regular"}),  # +1/+1, first strike
        (True, False, 3, {"first-strike", "regular"}),  # the caster's hat alone: nothing more
        (False, True, 6, {"first-strike", "regular"}),  # double strike: 3 twice
        (True, True, 9, {"first-strike", "regular", "last-strike"}),  # triple strike
    ],
)
def test_hat_trick_in_the_kernel(
    registry: Registry,
    engines: tuple[BatchedEngine, Any],
    caster_hat: bool,
    creature_hat: bool,
    wall_damage: int,
    steps: set[str],
) -> None:
    """RULES.md 5, Hat Trick, cast as blockers are declared on A's 2/2 goblin blocked by B's
    0/12 wall: the goblin is 3/3 and strikes once, twice (702.4b) or three times."""
    out = resolve_text(engines[0], registry, hat_trick(caster_hat, creature_hat))
    assert out.power.tolist() == [3, 0] and out.toughness.tolist() == [3, 12]
    assert out.damage.tolist() == [0, wall_damage]
    names = [s.name for s in registry.steps]
    assert {names[i] for i in np.flatnonzero(out.steps_taken[:, 0])} == steps
    doc = tomllib.loads(hat_trick(caster_hat, creature_hat))
    assert assert_kernel_agrees(registry, doc)


def test_hat_trick_on_an_illegal_target_does_nothing_in_the_kernel(
    registry: Registry, engines: tuple[BatchedEngine, Any]
) -> None:
    """608.2b: B casts it on A's goblin (it must target a creature its caster controls): it
    does nothing, and the goblin deals 2 in the regular step only."""
    out = resolve_text(engines[0], registry, hat_trick(True, True, caster="B"))
    assert out.power.tolist() == [2, 0] and out.damage.tolist() == [0, 2]


# -- how the kernel is chosen, and what it lacks -------------------------------------------------


def test_kernels_off_by_environment(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECS_COMBAT_KERNELS", "0")
    assert BatchedEngine(registry).kernel() is None
    monkeypatch.setenv("ECS_COMBAT_KERNELS", "1")
    assert BatchedEngine(registry).kernel() is not None
    assert BatchedEngine(registry, kernels=False).kernel() is None


def test_what_the_kernel_refuses(registry: Registry, engines: tuple[BatchedEngine, Any]) -> None:
    """Events, and a system without a kernel part (training's attack trigger), go to the
    numpy engine; the refusal says why."""
    kernel = engines[0].kernel()
    assert kernel is not None
    base = PLAYERS + creature("x", "a", 2, 2) + creature("y", "b", 1, 1)
    combat = '[combat]\nattackers = { x = "b" }\n'
    event = '[[events]]\nat = "declare-blockers"\naction = "pump"\ntarget = "x"\npower = 1\ntoughness = 1\n'
    for text, why in (
        (base + combat + event, "the batch has events"),
        (PLAYERS + creature("x", "a", 2, 2, "training") + combat, "has no kernel part"),
        (hat_trick(keywords='["hexproof"]'), "target restriction of 'hexproof'"),
    ):
        scenario = parse_scenario(tomllib.loads(text), registry, "t.toml")
        batch = scenarios_to_batch([scenario], registry)
        assert why in kernel.refusal(engines[0].schedules.of([batch]), batch)


def test_a_plugin_part_reading_an_unknown_column_is_its_error() -> None:
    from ecs_combat import KernelPart, PluginError, System, hookimpl

    def reference(combat: Any, assignment: Any) -> None: ...

    def part(row: int, c: Any, a: Any, own: Any) -> None:
        a.one_is_lethal[row] = c.powre[row] > 0

    class Typo:
        @hookimpl
        def register_systems(self) -> list[System]:
            return [System("assign-damage", "typo", reference, lambda b, p: None)]

        @hookimpl
        def register_kernel_parts(self) -> list[KernelPart]:
            return [KernelPart("assign-damage", "typo", part)]

    registry = registry_with(extra=[Typo()])
    with pytest.raises(PluginError, match=r"c\.powre is no column"):
        Kernel(registry)


def test_a_plugin_part_writing_a_core_column_is_its_error() -> None:
    """Only deal-damage parts write core columns, and only life and life_gained."""
    from ecs_combat import KernelPart, PluginError, System, hookimpl

    def reference(combat: Any, check: Any) -> None: ...

    def part(row: int, c: Any, k: Any, own: Any) -> None:
        c.marked[row] = 0

    class Healer:
        @hookimpl
        def register_systems(self) -> list[System]:
            return [System("state-based-actions", "heal", reference, lambda b, p: None)]

        @hookimpl
        def register_kernel_parts(self) -> list[KernelPart]:
            return [KernelPart("state-based-actions", "heal", part)]

    registry = registry_with(extra=[Healer()])
    with pytest.raises(PluginError, match=r"writes c\.marked; at state-based-actions a part "):
        Kernel(registry)


# -- the command line and the parts as Python ----------------------------------------------------


def run(*args: str, env: dict[str, str] | None = None, code: str | None = None) -> Any:
    """The installed command (or `code` in this interpreter), in this module's environment."""
    command = [sys.executable, "-c", code, *args] if code else ["ecs-combat", *args]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, env={**os.environ, **(env or {})},
        timeout=600,
    )  # fmt: skip


IMPORTED = """
import sys
from click.testing import CliRunner
from ecs_combat.cli.main import cli
result = CliRunner().invoke(cli, sys.argv[1:])
assert result.exit_code == 0, result.output
print("numba" in sys.modules)
"""


@pytest.mark.skipif(NOT_JITTED, reason="run once, with the JIT")
def test_cli_imports_numba_only_for_bulk_runs() -> None:
    """Start-up of --version, resolve and plugins stays without numba; simulate imports it."""
    scenario = "examples/scenarios/cerberus-vs-boar.toml"
    assert (ROOT / scenario).exists()
    for args in (["--version"], ["resolve", scenario], ["plugins"]):
        for value in ("", "1"):  # kernels by default, and asked for
            got = run(*args, code=IMPORTED, env={"ECS_COMBAT_KERNELS": value}).stdout
            assert got.strip() == "False", (args, value)
    out = run(*THIRD_PARTY, "simulate", "-n", "2000", "--seed", "1", "--json", code=IMPORTED)
    assert out.stdout.strip().endswith("True"), out.stderr


@pytest.mark.skipif(NOT_JITTED, reason="run once, with the JIT")
def test_cli_summaries_are_the_same_bytes() -> None:
    """--json summaries with the kernel and with the numpy engine (ECS_COMBAT_KERNELS=0), but
    for their `run` part (times)."""
    for spec in ([], ["docs/examples/specs/trample.toml"]):
        args = [*THIRD_PARTY, "simulate", *spec, "-n", "20000", "--seed", "7", "--json"]
        kernel, numpy_engine = run(*args), run(*args, env={"ECS_COMBAT_KERNELS": "0"})
        assert kernel.returncode == 0, kernel.stderr
        ours, theirs = json.loads(kernel.stdout), json.loads(numpy_engine.stdout)
        assert ours.pop("run") != theirs.pop("run")  # times differ, at least
        assert json.dumps(ours) == json.dumps(theirs) and ours["battles"] == 20000


@pytest.mark.skipif(NOT_JITTED, reason="run once, with the JIT")
def test_cli_without_numba_falls_back_with_one_line() -> None:
    """No numba (an import that fails): one line says so, the numpy engine answers the same."""
    code = (
        "import sys; sys.modules['numba'] = None; sys.argv[0] = 'ecs-combat'\n"
        "from ecs_combat.cli.main import main; main()"
    )
    args = [*THIRD_PARTY, "simulate", "-n", "2000", "--seed", "3", "--json"]
    out = run(*args, code=code)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "numba can't be imported" in lines[0], out.stderr
    assert "the numpy engine resolves every batch" in lines[0]
    expected = json.loads(run(*args).stdout)
    got = json.loads(out.stdout)
    assert got.pop("run") and expected.pop("run") and got == expected


@pytest.mark.skipif(NOT_JITTED, reason="run once, with the JIT")
def test_cli_kernels_build_and_list() -> None:
    built = run(*THIRD_PARTY, "kernels", "build")
    assert built.returncode == 0 and "ready in" in built.stdout, built.stderr
    listed = run(*THIRD_PARTY, "kernels")
    name = Path(built.stdout.splitlines()[-1].split(":")[0]).name
    assert any(
        line.startswith(name) and line.endswith("yes") for line in listed.stdout.splitlines()
    )
    entries = {
        line.split()[0]: line.split()[-1]
        for line in listed.stdout.splitlines()
        if line.split() and line.split()[-1].isdigit()
    }
    for entry in ("resolve_range", "one_on_one_range", "draw_block", "reset", "tally_block"):
        assert int(entries[entry]) >= 1, listed.stdout  # every entry point a run can use
    again = run(*THIRD_PARTY, "kernels", "build", env={"ECS_COMBAT_KERNELS": "0"})
    lines = again.stdout.splitlines()
    assert again.returncode == 0 and len(lines) == 4, again.stderr
    assert all("read from the cache" in line for line in lines[:3]), again.stdout
    assert again.stderr == ""  # build reports its own compiles: no compile line


@pytest.mark.skipif(NOT_JITTED, reason="run once, with the JIT")
def test_a_kernels_setting_other_than_0_or_1_is_refused_in_one_line() -> None:
    out = run("simulate", "-n", "10", env={"ECS_COMBAT_KERNELS": "yes"})
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (
        "ecs-combat: ECS_COMBAT_KERNELS: must be 0 (the numpy engine) or 1 (compiled "
        "kernels), not 'yes'\n"
    )


def test_a_runs_size_is_counted_in_creatures(registry: Registry) -> None:
    """The tournament's battles have 2 creatures; a SPEC's the middle of its ranges: 1 to 3
    attackers (2) with 0 to 2 blockers each (1) is 2 * (1 + 1) = 4."""
    from ecs_combat.simulation.spec import mean_creatures

    assert mean_creatures(TournamentSpec(strike_keywords(registry))) == 2.0
    text = "attackers = [1, 3]\nblockers_per_attacker = [0, 2]\n"
    assert mean_creatures(parse_spec(tomllib.loads(text), registry)) == 4.0


def test_kernels_by_default(
    registry: Registry, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Unset: a simulate run of 5,000,000 creatures or more (battles times their mean size)
    uses the kernel once built ahead (and one of 50,000,000 or more, not built, hints at
    building it); a smaller run, and anything else, the numpy engine. 1: the kernel, built or
    not; 0: never."""
    from ecs_combat.kernel import availability, cache

    monkeypatch.setenv("ECS_COMBAT_KERNEL_CACHE", str(tmp_path))
    for value, on, explicit in (("", False, False), ("1", True, True), ("0", False, False)):
        monkeypatch.setenv("ECS_COMBAT_KERNELS", value)
        assert (availability.wanted(), availability.forced()) == (on, explicit)
        if value:
            assert availability.for_run(10**8, registry) == ""  # given: kept as it is
            assert os.environ["ECS_COMBAT_KERNELS"] == value
    for creatures, value, hint in (
        (4_999_999, "0", False), (5 * 10**6, "built", False), (5 * 10**7, "built", True)
    ):  # fmt: skip
        monkeypatch.delenv("ECS_COMBAT_KERNELS")
        said = availability.for_run(creatures, registry)
        assert os.environ["ECS_COMBAT_KERNELS"] == value
        assert ("`ecs-combat kernels build`" in said) == hint, said
    assert availability.wanted() and not availability.forced()
    assert BatchedEngine(registry).kernel() is None  # not built
    kernel = Kernel(registry)
    cache.mark_built(kernel.source)
    assert cache.is_built(kernel.source)
    assert BatchedEngine(registry).kernel() is not None
    monkeypatch.delenv("ECS_COMBAT_KERNELS")
    assert availability.for_run(5 * 10**7, registry) == ""  # built: no hint
    monkeypatch.setenv("ECS_COMBAT_KERNELS", "1")
    cache.built_path(kernel.source).unlink()
    assert BatchedEngine(registry).kernel() is not None  # 1: built or not


@pytest.mark.skipif(NOT_JITTED, reason="nothing compiles without the JIT")
def test_a_compile_is_said_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """A function numba's cache does not hold: one line says it compiles, what, and how to
    skip it or do it ahead; said once a process, and not after quiet_compiles."""
    import numba

    from ecs_combat.kernel import compiles

    assert compiles.numba_missing() == ""  # the listener is in place
    saved = dict(compiles._announce)
    compiles._announce.update(on=True, said=False)
    try:
        with caplog.at_level("WARNING", logger="ecs_combat"):
            numba.njit(lambda x: x + 1)(1)
            numba.njit(lambda x: x + 2)(1)
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 1 and "compiling the plugin set's kernel (<lambda>" in said[0]
        assert "ECS_COMBAT_KERNELS=0 skips it" in said[0] and "kernels build" in said[0]
        caplog.clear()
        compiles._announce.update(said=False)
        compiles.quiet_compiles()
        with caplog.at_level("WARNING", logger="ecs_combat"):
            numba.njit(lambda x: x + 3)(1)
        assert caplog.records == []
    finally:
        compiles._announce.update(saved)


@pytest.mark.skipif(NOT_JITTED, reason="this is the run without the JIT")
def test_parts_run_as_python() -> None:
    """The template and the parts run as Python (NUMBA_DISABLE_JIT=1): coverage, debugging."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", __file__, str(ROOT / "tests/test_kernel_draws.py"),
         str(ROOT / "tests/test_kernel_specs.py"),
         str(ROOT / "tests/test_kernel_triggers.py"), str(ROOT / "tests/test_kernel_damage.py"),
         str(ROOT / "tests/test_kernel_one_on_one_draw.py"), str(ROOT / "tests/test_kernel_dies.py"),
         str(ROOT / "tests/test_kernel_pool_draw.py"),
         "-q", "-p", "no:randomly", "-x"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


def test_a_plugin_without_kernel_parts_still_works() -> None:
    """Poisonous (examples/poisonous) has no kernel parts: a batch using it goes to the numpy
    engine, which answers as before (an unblocked 2/2 with poisonous 3: 3 poison, 702.70);
    its systems name poisonous, so a batch without it is left to the kernel."""
    pytest.importorskip("ecs_combat_poisonous")
    registry = registry_with("ecs_combat_poisonous")
    engine = BatchedEngine(registry)
    kernel = engine.kernel()
    assert kernel is not None
    text = PLAYERS + creature("x", "a", 2, 2, "poisonous 3") + '[combat]\nattackers = { x = "b" }\n'
    scenario = parse_scenario(tomllib.loads(text), registry, "t.toml")
    generator = make_generator(TournamentSpec(strike_keywords(registry)), registry)
    drawn = draw_battles(generator, 5, 0, 500).batch
    batch = scenarios_to_batch([scenario], registry)
    why = kernel.refusal(engine.schedules.of([batch]), batch)
    assert "'poisonous triggers" in why and "no kernel part" in why
    assert engine.resolve_batch(batch).player_state["poison"].tolist() == [0, 3]
    assert kernel.refusal(engine.schedules.of([drawn]), drawn) == ""
    assert_same(
        engine.resolve_batch(batch), BatchedEngine(registry, kernels=False).resolve_batch(batch)
    )
