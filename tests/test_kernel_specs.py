"""A SPEC's battles drawn, played and tallied in the compiled kernel
(ecs_combat/simulation/spec_blocks.py, ecs_combat/kernel/spec_draw.py, spec_player.py):
tallies derived by hand, the same summaries as the numpy path for the same seeds, and the
SPECs that take the numpy path.

Shares test_kernels.py's compiled cache; ``test_parts_run_as_python`` there runs this module
too with ``NUMBA_DISABLE_JIT=1`` (smaller runs then).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_kernels import NOT_JITTED, THIRD_PARTY, kernels_on, run  # noqa: F401

from ecs_combat import Registry
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.simulation.compiled import compiled_counts
from ecs_combat.simulation.generate import Generator
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import simulate, summary
from ecs_combat.simulation.spec_reader import parse_spec

ROOT = Path(__file__).resolve().parent.parent
#: Battles a comparison runs: a whole block of 1,024 and part of the next.
BATTLES = 150 if NOT_JITTED else 1500
#: Every way a SPEC's draw and blocks can go in the kernel: ranges differing per side,
#: attackers that may not attack (defender), blockers needed (menace), blocks forbidden by
#: pairs (flying, reach, horsemanship), creature states drawn per side, a player state, and
#: Hat Trick cast on each kind of target.
EVERYTHING = {
    "attackers": [1, 3],
    "blockers_per_attacker": [0, 3],
    "power": [0, 4],
    "toughness": [1, 3],
    "life": 4,
    "matchup": ["flying", "menace", "first strike"],
    "keywords": {
        "first strike": 0.2,
        "deathtouch": 0.2,
        "trample": 0.2,
        "lifelink": 0.2,
        "indestructible": 0.1,
        "flying": 0.3,
        "reach": 0.2,
        "menace": 0.3,
        "defender": 0.2,
        "horsemanship": 0.2,
    },
    "blocker": {"power": [1, 6], "keywords": {"trample": 0, "flying": 0.5}},
    "state": {"creature": {"hat": 0.4}, "player": {"hat": 0.6}},
    "casts": [
        {"card": "Hat Trick", "probability": 0.5},
        {"card": "Hat Trick", "probability": 0.3, "target": "attacker"},
        {"card": "Hat Trick", "probability": 0.3, "target": "blocker"},
    ],
}


@pytest.fixture(scope="module")
def engines(registry: Registry) -> tuple[BatchedEngine, BatchedEngine]:
    """The batched engine with the compiled kernel, and without (the numpy engine)."""
    return BatchedEngine(registry), BatchedEngine(registry, kernels=False)


def spec_of(doc: dict[str, Any], registry: Registry) -> Generator:
    return make_generator(parse_spec(doc, registry), registry)


def summaries(
    generator: Generator,
    engines: tuple[BatchedEngine, BatchedEngine],
    seed: int,
    n: int,
    chunk: int,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The summaries of the kernel's run and the numpy engine's, but for `run`."""
    out = []
    for engine in engines:
        made = summary(
            generator, generator.spec, seed, simulate(generator, "batched", engine, seed, n, chunk)
        )
        made.pop("run")
        out.append(made)
    return out[0], out[1]


def test_every_battle_trades_and_none_is_blocked(
    registry: Registry, engines: tuple[BatchedEngine, BatchedEngine]
) -> None:
    """By hand: a 2/2 attacker blocked by a 2/2 deals and is dealt lethal damage (510.2,
    704.5g): every battle a trade, one death a side, no damage to the player. Unblocked,
    three 3/1 attackers deal 9 to the defending player (510.1a), and nobody dies."""
    trades = spec_of(
        {"attackers": 1, "blockers_per_attacker": 1, "power": 2, "toughness": 2}, registry
    )
    counts = compiled_counts(trades, engines[0], 3, 0, 100)
    assert counts is not None  # the kernel's path
    assert counts[0].tolist() == [100, 0, 0, 100, 0, 0, 100, 100]
    assert counts[-1, 0] == 200  # creatures
    unblocked = spec_of(
        {"attackers": 3, "blockers_per_attacker": 0, "power": 3, "toughness": 1}, registry
    )
    counts = compiled_counts(unblocked, engines[0], 3, 10, 60)
    assert counts is not None
    assert counts[0].tolist() == [50, 0, 0, 0, 50, 50 * 9, 0, 0] and counts[-1, 0] == 150


def test_menace_and_flying_decide_the_blocks_by_hand(
    registry: Registry, engines: tuple[BatchedEngine, BatchedEngine]
) -> None:
    """By hand: a 1/1 flier drawn to be blocked by two 5/5s without flying or reach is
    unblocked (702.9b) and deals 1 to the player; a 1/1 with menace drawn to be blocked by
    one creature is unblocked (702.111b), by two is blocked and dies."""
    flier: dict[str, Any] = {
        "attackers": 1,
        "power": 1,
        "toughness": 1,
        "blocker": {"power": 5, "toughness": 5},
    }
    one = spec_of({**flier, "blockers_per_attacker": 2, "keywords": {"flying": 1.0},
                   "blocker": {**flier["blocker"], "keywords": {"flying": 0}}}, registry)  # fmt: skip
    counts = compiled_counts(one, engines[0], 1, 0, 20)
    assert counts is not None and counts[0].tolist() == [20, 0, 0, 0, 20, 20, 0, 0]
    for blockers, expected in ((1, [20, 0, 0, 0, 20, 20, 0, 0]), (2, [20, 0, 20, 0, 0, 0, 20, 0])):
        menace = spec_of({**flier, "blockers_per_attacker": blockers, "keywords": {"menace": 1.0},
                          "blocker": {**flier["blocker"], "keywords": {"menace": 0}}}, registry)  # fmt: skip
        counts = compiled_counts(menace, engines[0], 1, 0, 20)
        assert counts is not None and counts[0].tolist() == expected, blockers


@pytest.mark.parametrize(
    ("path", "battles"),
    [("examples/specs/melee.toml", BATTLES), ("docs/examples/specs/trample.toml", BATTLES),
     pytest.param("examples/specs/large-melee.toml", 2,
                  marks=pytest.mark.skipif(NOT_JITTED, reason="10,000 creatures a battle"))],
)  # fmt: skip
def test_example_specs_as_the_numpy_path(
    registry: Registry, engines: tuple[BatchedEngine, BatchedEngine], path: str, battles: int
) -> None:
    """The documented SPECs the kernel draws: the same summary as the numpy engine's."""
    generator = spec_of(tomllib.loads((ROOT / path).read_text()), registry)
    assert compiled_counts(generator, engines[0], 5, 0, 1) is not None  # the kernel's path
    ours, theirs = summaries(generator, engines, 5, battles, 1024 if battles > 2 else 1)
    assert ours == theirs and ours["battles"] == battles


@pytest.mark.parametrize(("seed", "chunk", "threads"), [(1, 512, "1"), (2, 4096, "2")])
def test_everything_a_spec_draws_as_the_numpy_path(
    registry: Registry,
    engines: tuple[BatchedEngine, BatchedEngine],
    seed: int,
    chunk: int,
    threads: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """:data:`EVERYTHING`, in chunks inside a block and over blocks, on one and two threads."""
    monkeypatch.setenv("ECS_COMBAT_KERNEL_THREADS", threads)
    generator = spec_of(EVERYTHING, registry)
    assert compiled_counts(generator, engines[0], seed, 0, 1) is not None
    ours, theirs = summaries(generator, engines, seed, BATTLES, chunk)
    assert ours == theirs and ours["battles"] == BATTLES
    assert len(ours["matchups"]) > 20  # the codes of three matchup keywords, both sides


@pytest.mark.parametrize(
    "doc",
    [
        {"keywords": {"skulk": 0.5}},  # its block rule reads power: not one of keywords alone
        {"keywords": {"training": 0.5}},  # a trigger without a kernel part (counters)
        {"decisions": "optimal"},
        tomllib.loads((ROOT / "examples/specs/extra-combat.toml").read_text()),  # a turn
    ],
)
def test_specs_the_kernel_does_not_draw(
    registry: Registry, engines: tuple[BatchedEngine, BatchedEngine], doc: dict[str, Any]
) -> None:
    """They take the numpy path: the same summary as with kernels off."""
    generator = spec_of({"attackers": 2, "blockers_per_attacker": [0, 2], **doc}, registry)
    assert compiled_counts(generator, engines[0], 1, 0, 10) is None
    ours, theirs = summaries(generator, engines, 1, 60, 1024)
    assert ours == theirs


def test_a_card_pool_is_not_drawn_as_a_spec(registry: Registry) -> None:
    doc = tomllib.loads((ROOT / "docs/examples/specs/two-drops.toml").read_text())
    assert spec_of(doc, registry).compiled_spec() is None


@pytest.mark.skipif(NOT_JITTED, reason="run once, with the JIT")
def test_cli_melee_summaries_are_the_same_bytes() -> None:
    """`ecs-combat simulate examples/specs/melee.toml --json` with the kernel and with the
    numpy engine (ECS_COMBAT_KERNELS=0), but for `run`."""
    args = [
        *THIRD_PARTY,
        "simulate",
        "examples/specs/melee.toml",
        "-n",
        "3000",
        "--seed",
        "7",
        "--json",
    ]
    kernel, numpy_engine = run(*args), run(*args, env={"ECS_COMBAT_KERNELS": "0"})
    assert kernel.returncode == 0, kernel.stderr
    ours, theirs = json.loads(kernel.stdout), json.loads(numpy_engine.stdout)
    ours.pop("run"), theirs.pop("run")
    assert json.dumps(ours) == json.dumps(theirs) and ours["battles"] == 3000


#: Keywords a drawn SPEC takes from (every one has kernel parts or none, and block rules of
#: keywords alone).
DRAWN_KEYWORDS = [
    "first strike", "double strike", "deathtouch", "trample", "lifelink", "indestructible",
    "flying", "reach", "menace", "defender", "horsemanship", "last strike",
]  # fmt: skip
probabilities = st.sampled_from([0.0, 0.1, 0.5, 1.0])
ranges = st.tuples(st.integers(0, 3), st.integers(0, 3)).map(lambda r: [min(r), max(r)])
sides = st.fixed_dictionaries(
    {},
    optional={
        "power": ranges,
        "toughness": ranges.map(lambda r: [r[0] + 1, r[1] + 1]),
        "keywords": st.dictionaries(st.sampled_from(DRAWN_KEYWORDS), probabilities, max_size=4),
        "state": st.fixed_dictionaries({"hat": probabilities}),
    },
)
casts = st.lists(
    st.fixed_dictionaries(
        {"card": st.just("Hat Trick"), "probability": probabilities},
        optional={"target": st.sampled_from(["blocked attacker", "attacker", "blocker"])},
    ),
    max_size=2,
)
drawn_specs = st.fixed_dictionaries(
    {
        "attackers": ranges.map(lambda r: [r[0] + 1, r[1] + 1]),
        "blockers_per_attacker": ranges,
        "keywords": st.dictionaries(st.sampled_from(DRAWN_KEYWORDS), probabilities, max_size=6),
        "life": st.integers(1, 6),
        "matchup": st.lists(st.sampled_from(DRAWN_KEYWORDS), max_size=2, unique=True),
        "blocker": sides,
        "casts": casts,
    },
    optional={
        "state": st.fixed_dictionaries({"player": st.fixed_dictionaries({"hat": probabilities})})
    },
)


@settings(max_examples=8 if NOT_JITTED else 40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
@given(doc=drawn_specs, seed=st.integers(0, 2**32 - 1))
def test_drawn_specs_as_the_numpy_path(
    registry: Registry, engines: tuple[BatchedEngine, BatchedEngine], doc: dict[str, Any], seed: int
) -> None:
    """Any SPEC drawn from the keywords above: the kernel draws it, with the numpy engine's
    summary (60 battles, in chunks of 25)."""
    generator = spec_of(doc, registry)
    assert compiled_counts(generator, engines[0], seed, 0, 1) is not None
    ours, theirs = summaries(generator, engines, seed, 60, 25)
    assert ours == theirs
