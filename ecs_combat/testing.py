"""A test kit for keyword plugins: random legal scenarios, and the engines checked against
each other.

A plugin's batched form must give exactly what its reference form gives (CONTRACT.md 2). With
this module, a plugin package tests that in a few lines::

    from hypothesis import given, settings
    from ecs_combat.testing import assert_engines_agree, registry_with, scenarios

    REGISTRY = registry_with("ecs_combat_alpha_strike")

    @settings(max_examples=200, deadline=None)
    @given(scenarios(REGISTRY, keywords=["alpha strike", "first strike"]))
    def test_engines_agree(doc):
        assert_engines_agree(REGISTRY, doc)

It is also a pytest plugin (entry point ``ecs_combat`` in the group ``pytest11``, loaded
wherever ecs-combat is installed): the fixture :func:`ecs_combat_registry` gives the bundled
plugins plus those :func:`ecs_combat_plugins` names (override that fixture in a
``conftest.py`` to name yours).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Any

import pytest

from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.definitions import COLORS, Keyword
from ecs_combat.plugin.registry import Registry, load_registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.legality import least_blockers, why_cannot_attack
from ecs_combat.rules.sides import KeywordSide
from ecs_combat.scenario.instances import parse_instance
from ecs_combat.scenario.loader import parse_scenario

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = [
    "assert_engines_agree",
    "bundled_plugins",
    "ecs_combat_plugins",
    "ecs_combat_registry",
    "instance_text",
    "registry_with",
    "resolve_both",
    "scenarios",
]

# Hypothesis is imported where a strategy is drawn, so the pytest plugin (the fixtures) loads
# without it.
Draw = Callable[["SearchStrategy[Any]"], Any]
#: Creature names drawn now and then (the id is the name otherwise), for keywords that read
#: names: digits, punctuation, case, accents and a repeat.
NAMES = ("Goblin 2", "Goblin-A", "goblin a", "Zebra", "Aardvark", "Ørn")


def bundled_plugins() -> dict[str, str]:
    """The plugins bundled with ecs-combat: entry-point name -> module."""
    return {
        ep.name: ep.value
        for ep in metadata.distribution("ecs-combat").entry_points
        if ep.group == "ecs_combat"
    }


def registry_with(*modules: str, extra: Sequence[object] = ()) -> Registry:
    """A registry of exactly the bundled plugins plus the named modules (and plugin objects
    `extra`): no other installed plugin, whatever the environment says."""
    bundled = [m for _, m in sorted(bundled_plugins().items())]
    return load_registry(load=[*bundled, *modules], autoload=False, extra=extra)


# -- scenarios ------------------------------------------------------------------------------


def instance_text(draw: Draw, keyword: Keyword) -> str:
    """One instance of a keyword as a scenario writes it, with a drawn parameter where it
    takes one: ``bushido 2``, ``protection from red``."""
    from hypothesis import strategies as st

    if keyword.parameter == "number":
        return f"{keyword.name} {draw(st.integers(1, 3))}"
    if keyword.parameter == "color":
        return f"{keyword.name} from {draw(st.sampled_from(COLORS))}"
    return keyword.name


def _side(table: dict[str, Any], registry: Registry) -> KeywordSide:
    """A drawn creature as the declaration rules see it."""
    instances = [parse_instance(text, registry) for text in table.get("keywords", [])]
    pairs: list[tuple[str, int | str | None]] = [(i.name, i.parameter) for i in instances]
    pairs += [(k, None) for k, n in table.get("counters", {}).items() if n > 0]
    colors = sum(1 << COLORS.index(c) for c in table.get("colors", []))
    return KeywordSide(pairs, colors, power=table["power"])


def _may_block(attacker: KeywordSide, blocker: KeywordSide, registry: Registry) -> bool:
    """509.1a-b: the registry's rules let `blocker` block `attacker`."""
    return all(bool(r.test(blocker)) for r in registry.restrictions_of("block")) and all(
        bool(r.test(attacker, blocker)) for r in registry.restrictions_of("block-pair")
    )


def _creature(
    draw: Draw, controller: str, keywords: Sequence[Keyword], registry: Registry
) -> dict[str, Any]:
    """A creature table: mostly power above 0, so most combats deal damage."""
    from hypothesis import strategies as st

    toughness = draw(st.integers(1, 5))
    table: dict[str, Any] = {
        "controller": controller,
        "power": draw(st.sampled_from([1, 2, 3, 4, 5, 0])),
        "toughness": toughness,
    }
    if keywords:
        chosen = draw(st.lists(st.sampled_from(keywords), max_size=3))
        table["keywords"] = [instance_text(draw, kw) for kw in chosen]
        counters = [kw.name for kw in keywords if kw.counter]
        if counters and draw(st.integers(0, 3)) == 3:
            table["counters"] = {draw(st.sampled_from(counters)): draw(st.integers(1, 2))}
    colors = draw(st.lists(st.sampled_from(COLORS), max_size=2, unique=True))
    if colors:
        table["colors"] = colors
    if draw(st.integers(0, 3)) == 3:
        table["damage"] = draw(st.integers(0, toughness - 1))
    if draw(st.booleans()):
        table["name"] = draw(st.sampled_from(NAMES))
    return table


def scenarios(
    registry: Registry,
    keywords: Sequence[str] | None = None,
    players: int = 2,
    attackers: int = 3,
    blockers: int = 3,
) -> SearchStrategy[dict[str, Any]]:
    """Scenario documents (as read from TOML) the loader accepts, whose creatures have the
    given `keywords` (default: every keyword of the registry but those with block requirements),
    with drawn parameters where a
    keyword takes one, random colors and now and then a name.

    Player ``A`` attacks with up to `attackers` creatures; up to `blockers` creatures of the
    other players block, each only where the registry's restrictions allow (509.1), and an
    attacker left with fewer blockers than it needs is unblocked. Attackers mostly have power
    above 0 and are mostly blocked, so most battles reach a damage step that deals damage.
    """
    from hypothesis import strategies as st

    # blocks are drawn by the restrictions only: by default, leave out keywords with block
    # requirements (509.1c, lure), whose drawn blocks the loader could refuse
    required = {r.keyword for r in registry.restrictions_of("block-requirement")}
    names = (
        [k for k in registry.keywords if k not in required] if keywords is None else list(keywords)
    )
    unknown = [k for k in names if registry.keyword(k) is None]
    if unknown:
        raise ValueError(f"keywords the registry doesn't have: {', '.join(unknown)}")
    kws = [kw for k in names if (kw := registry.keyword(k)) is not None]
    return st.composite(_scenario)(registry, kws, players, attackers, blockers)


def _scenario(
    draw: Draw,
    registry: Registry,
    kws: Sequence[Keyword],
    players: int,
    attackers: int,
    blockers: int,
) -> dict[str, Any]:
    from hypothesis import strategies as st

    pids = ["A", "B", "C", "D"][: max(2, min(players, 4))]
    doc_players = {p: {"life": draw(st.integers(1, 20))} for p in pids}
    creatures: dict[str, dict[str, Any]] = {}
    for i in range(draw(st.integers(1, attackers))):
        creatures[f"a{i}"] = _creature(draw, "A", kws, registry)
    for i in range(draw(st.integers(0, blockers))):
        creatures[f"b{i}"] = _creature(draw, draw(st.sampled_from(pids[1:])), kws, registry)
    sides = {cid: _side(t, registry) for cid, t in creatures.items()}

    attacking: dict[str, str] = {}
    for cid in creatures:
        able = cid.startswith("a") and why_cannot_attack(sides[cid], False, registry) is None
        if able and draw(st.integers(0, 7)) < 7:
            attacking[cid] = draw(st.sampled_from(pids[1:]))
    blocks: dict[str, list[str]] = {}
    for cid, table in creatures.items():
        if cid in attacking:
            continue
        options = [
            a
            for a, p in attacking.items()
            if p == table["controller"] and _may_block(sides[a], sides[cid], registry)
        ]
        if options and draw(st.integers(0, 7)) < 7:
            blocks[cid] = [draw(st.sampled_from(options))]
    for a in attacking:  # too few blockers means none (509.1b)
        need, _ = least_blockers(sides[a], registry)
        mine = [b for b, attacked in blocks.items() if a in attacked]
        if 0 < len(mine) < need:
            for b in mine:
                del blocks[b]
    combat: dict[str, Any] = {"attackers": attacking}
    if blocks:
        combat["blockers"] = {b: a[0] for b, a in blocks.items()}
    return {"players": doc_players, "creatures": creatures, "combat": combat}


# -- the engines against each other ----------------------------------------------------------

_engines: list[tuple[Registry, ReferenceEngine, BatchedEngine]] = []


def _engines_of(registry: Registry) -> tuple[ReferenceEngine, BatchedEngine]:
    for known, reference, batched in _engines:
        if known is registry:
            return reference, batched
    _engines[:] = [(registry, ReferenceEngine(registry), BatchedEngine(registry))]
    return _engines[0][1], _engines[0][2]


def _outcome(run: Callable[[], dict[str, Any]]) -> Any:
    try:
        return run()
    except InputError as exc:
        return ("InputError", str(exc))
    except RefusedError as exc:
        return ("refused", str(exc))


def resolve_both(
    registry: Registry, doc: dict[str, Any], file: str = "scenario.toml"
) -> tuple[Any, Any]:
    """The ``resolve --json`` document of a scenario document on the reference engine and on
    the batched engine; an input error found as it resolves is ``("InputError", message)``, a
    refusal of the batched engine ``("refused", message)``. An invalid document raises the
    loader's :class:`InputError`."""
    scenario = parse_scenario(json.loads(json.dumps(doc)), registry, file)
    reference, batched = _engines_of(registry)
    return (
        _outcome(lambda: reference.resolve(scenario).to_json()),
        _outcome(lambda: batched.resolve_many([scenario])[0].to_json()),
    )


def assert_engines_agree(
    registry: Registry, doc: dict[str, Any], file: str = "scenario.toml", refusal_ok: bool = False
) -> Any:
    """Resolve a scenario document on both engines and fail unless they give the same
    ``resolve --json`` document, or the same input error. A refusal of the batched engine
    fails too, unless `refusal_ok`. Returns the reference engine's outcome."""
    ref, bat = resolve_both(registry, doc, file)
    if isinstance(bat, tuple) and bat[0] == "refused":
        if refusal_ok:
            return ref
        raise AssertionError(f"the batched engine refuses the scenario: {bat[1]}")
    if ref != bat:
        raise AssertionError(
            "the engines disagree on\n"
            + json.dumps(doc, indent=1)
            + f"\nreference: {json.dumps(ref)}\nbatched:   {json.dumps(bat)}"
        )
    return ref


# -- pytest fixtures ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ecs_combat_plugins() -> list[str]:
    """The modules of the plugins under test, beside the bundled ones: override it in your
    ``conftest.py`` (``return ["my_package"]``)."""
    return []


@pytest.fixture(scope="module")
def ecs_combat_registry(ecs_combat_plugins: list[str]) -> Registry:
    """A registry of exactly the bundled plugins plus those `ecs_combat_plugins` names."""
    return registry_with(*ecs_combat_plugins)
