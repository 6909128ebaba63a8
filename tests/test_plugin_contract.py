"""The plugin contract: systems see typed contexts, never an engine; the order of a point's
systems comes from sets and before/after constraints; hooks are collected in registration
order; both engines skip the systems of keywords a combat doesn't use."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import numpy as np
import pytest
from conftest import bundled_registry
from scenario_text import combat, creature

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchBlockDeclaration,
    BatchContext,
    BatchDamageEvent,
    BatchTriggers,
    BlockDeclaration,
    CombatContext,
    CombatResult,
    DamageEvent,
    Keyword,
    PhaseRule,
    PluginError,
    System,
    Trigger,
    hookimpl,
    parse_scenario,
)
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.reference.engine import ReferenceEngine

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_FILES = sorted([*ROOT.glob("plugins/*.py"), *ROOT.glob("examples/*/ecs_combat_*/**/*.py")])
SYSTEM_ARGS = {"combat", "batch"}
ACCEPTED = {"CombatContext", "BatchContext", "CombatView", "BatchView"}
#: The example plugin packages (alpha-strike, poisonous, legacy, ...): each has a pyproject.
EXAMPLE_PACKAGES = sorted(p.parent for p in ROOT.glob("examples/*/pyproject.toml"))


def test_every_plugin_file_is_checked() -> None:
    """The checks below read the bundled plugins and every example package's modules."""
    assert len(EXAMPLE_PACKAGES) >= 3
    for package in EXAMPLE_PACKAGES:
        assert any(package in path.parents for path in PLUGIN_FILES), package.name
    assert ROOT / "examples" / "legacy" / "ecs_combat_legacy" / "__init__.py" in PLUGIN_FILES


def test_no_plugin_imports_esper_or_an_engine() -> None:
    """Plugins reach the engines only through the contexts (docs/plugins.md); the example
    packages' tests use the public names only (``ecs_combat.BatchedEngine``)."""
    offenders = []
    for path in [*PLUGIN_FILES, *sorted(ROOT.glob("examples/*/tests/*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")
                if top[0] == "esper" or top[:2] in (
                    ["ecs_combat", "reference"],
                    ["ecs_combat", "batched"],
                ):
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert PLUGIN_FILES and offenders == []


def test_no_system_argument_is_typed_any() -> None:
    """Every function taking a `combat` or `batch` argument types it with a context (or, for
    the static-keyword hooks, a view)."""
    offenders = []
    for path in PLUGIN_FILES:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            for arg in node.args.args:
                if arg.arg in SYSTEM_ARGS:
                    note = ast.unparse(arg.annotation) if arg.annotation else "nothing"
                    if note not in ACCEPTED:
                        offenders.append(f"{path.name}:{node.name}({arg.arg}: {note})")
    assert offenders == []


# -- ordering --------------------------------------------------------------------------------


def _noop(_: CombatContext, __: DamageEvent) -> None:
    return None


def _noop_batched(_: BatchContext, __: BatchDamageEvent) -> None:
    return None


class Plugin:
    """A plugin object named `name` adding systems at ``deal-damage``."""

    def __init__(self, name: str, *systems: System) -> None:
        self.__name__ = name
        self.systems = list(systems)

    @hookimpl
    def register_systems(self) -> list[System]:
        return self.systems


def _system(name: str, **order: set[str]) -> System:
    return System("deal-damage", name, _noop, _noop_batched, **order)  # type: ignore[arg-type]


def _order(*plugins: Plugin) -> list[str]:
    registry = bundled_registry(extra=plugins)
    ours = {s.name for p in plugins for s in p.systems}
    return [s.system.name for s in registry.systems_at("deal-damage") if s.system.name in ours]


def test_before_and_after_order_systems_whatever_the_plugin_names() -> None:
    """Without constraints "a" runs before "b" (plugin names); `after` puts it last, and a
    chain c after b after a holds across three plugins."""
    assert _order(Plugin("pa", _system("a")), Plugin("pb", _system("b"))) == ["a", "b"]
    assert _order(Plugin("pa", _system("a", after={"pb"})), Plugin("pb", _system("b"))) == [
        "b",
        "a",
    ]
    chain = _order(
        Plugin("pa", _system("c", after={"second"})),
        Plugin("pb", _system("b", sets={"second"}, after={"first"})),
        Plugin("pc", _system("a", sets={"first"}, before={"second"})),
    )
    assert chain == ["a", "b", "c"]


def test_the_standard_sets_run_in_their_order() -> None:
    """At deal-damage, prevention runs before replacements, which run before reactions:
    protection (prevention) before wither (replacement) before lifelink (reaction), and a
    plugin's reaction system after all three though its name sorts first."""
    registry = bundled_registry(extra=(Plugin("aaa", _system("late", sets={"reaction"})),))
    names = [s.system.name for s in registry.systems_at("deal-damage")]
    prevent = names.index("protection prevents damage")
    wither = names.index("damage as -1/-1 counters")
    lifelink = names.index("lifelink gains life")
    assert prevent < wither < lifelink
    assert names.index("late") > wither


def test_a_cycle_is_a_plugin_error_naming_both_plugins() -> None:
    with pytest.raises(PluginError, match=r"cycle.*'pa'.*'pb'|cycle.*'pb'.*'pa'"):
        _order(
            Plugin("pa", _system("a", after={"pb"})),
            Plugin("pb", _system("b", after={"pa"})),
        )


def test_two_unordered_systems_writing_one_field_are_a_plugin_error() -> None:
    """Both write `source`, nothing orders them: the error names both plugins and the field;
    ordering them, or declaring them ambiguous, is accepted."""
    with pytest.raises(PluginError, match=r"'pa'.*'pb'.*\['source'\]"):
        _order(
            Plugin("pa", _system("a", writes={"source"})),
            Plugin("pb", _system("b", writes={"source"})),
        )
    ordered = _order(
        Plugin("pa", _system("a", writes={"source"}, after={"pb"})),
        Plugin("pb", _system("b", writes={"source"})),
    )
    assert ordered == ["b", "a"]
    fine = _order(
        Plugin("pa", _system("a", writes={"source"}, ambiguous_with={"pb"})),
        Plugin("pb", _system("b", writes={"source"})),
    )
    assert fine == ["a", "b"]


def test_a_plugin_writing_what_protection_writes_must_say_where_it_goes() -> None:
    """A doubler writing `amount` in no set is ambiguous with protection's prevention."""
    with pytest.raises(PluginError, match=r"protection.*'dbl'|'dbl'.*protection"):
        _order(Plugin("dbl", _system("double", writes={"amount"})))
    assert _order(Plugin("dbl", _system("double", writes={"amount"}, sets={"replacement"})))


def test_before_and_after_must_name_something_known() -> None:
    """A typo in `after` is a plugin error naming the plugin, the name and the closest known
    one (it would otherwise order nothing); a keyword or plugin that is installed, in either
    spelling, and the standard sets are known."""
    with pytest.raises(
        PluginError,
        match=r"plugin 'pa': system 'a' at deal-damage: `after` names 'lifelnk', .*"
        r"did you mean 'lifelink'\?",
    ):
        _order(Plugin("pa", _system("a", after={"lifelnk"})))
    with pytest.raises(PluginError, match=r"`before` names 'nobody'"):
        _order(Plugin("pa", _system("a", before={"nobody"})))
    with pytest.raises(PluginError, match=r"plugin 'pa'.*`ambiguous_with` names 'protecton'"):
        _order(Plugin("pa", _system("a", ambiguous_with={"protecton"})))
    assert _order(Plugin("pa", _system("a", after={"lifelink", "first_strike", "prevention"})))


def test_sets_of_another_point_and_unknown_fields_are_plugin_errors() -> None:
    """`sets={"conditions"}` is a set of state-based-actions, not of deal-damage; `writes`
    must name a field of the point's payloads (reference or batched)."""
    with pytest.raises(PluginError, match=r"'pa'.*`sets` names 'conditions'.*not of deal-damage"):
        _order(Plugin("pa", _system("a", sets={"conditions"})))
    with pytest.raises(
        PluginError, match=r"'pa'.*`writes` names 'ammount'.*did you mean 'amount'\?"
    ):
        _order(Plugin("pa", _system("a", writes={"ammount"}, sets={"replacement"})))
    assert _order(Plugin("pa", _system("a", writes={"life_gained"}, sets={"reaction"})))


def test_registration_hooks_are_collected_in_registration_order() -> None:
    """Plugins passed directly are registered in the order given; their phase rules are
    collected in that order (not reversed), whatever their names."""

    class Rules:
        def __init__(self, name: str) -> None:
            self.__name__ = name

        @hookimpl
        def register_phase_rules(self) -> list[PhaseRule]:
            return [PhaseRule(self.__name__, lambda view: [])]

    registry = bundled_registry(extra=(Rules("zeta"), Rules("alpha")))
    ours = [r.name for r in registry.phase_rules if r.name in {"zeta", "alpha"}]
    assert ours == ["zeta", "alpha"]


# -- the contexts ------------------------------------------------------------------------------


class Counting:
    """A keyword ``counted`` whose declare-attackers system counts its calls, and a keyword
    ``tapper`` that taps the creatures blocking it and reads their power through the
    contexts."""

    def __init__(self) -> None:
        self.__name__ = "counting"
        self.calls = {"reference": 0, "batched": 0}
        self.power_seen: dict[str, list[int]] = {"reference": [], "batched": []}
        self.tapped_seen: dict[str, list[bool]] = {"reference": [], "batched": []}

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword("counted"), Keyword("tapper")]

    @hookimpl
    def register_systems(self) -> list[System]:
        def count(_: CombatContext, __: AttackDeclaration) -> None:
            self.calls["reference"] += 1

        def count_batched(_: BatchContext, __: BatchAttackDeclaration) -> None:
            self.calls["batched"] += 1

        def tap(combat: CombatContext, declaration: BlockDeclaration) -> None:
            for blocker, attacker in declaration.blocks:
                if combat.has(attacker, "tapper"):
                    combat.tap(blocker)
                    self.power_seen["reference"].append(combat.power(blocker))
                    self.tapped_seen["reference"].append(combat.tapped(blocker))

        def tap_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
            hit = batch.has("tapper")[declaration.attackers]
            rows = declaration.blockers[hit]
            batch.tap(rows)
            self.power_seen["batched"] += batch.power()[rows].tolist()
            self.tapped_seen["batched"] += batch.tapped()[rows].tolist()

        return [
            System("declare-attackers", "count", count, count_batched, {"counted"}),
            System("declare-blockers", "tap blockers", tap, tap_batched, {"tapper"}),
        ]


def _resolve_both(plugin: Counting, *keywords: str) -> list[CombatResult]:
    registry = bundled_registry(extra=(plugin,))
    text = (
        "[players.A]\n[players.B]\n"
        + creature("bear", "A", 2, 5, *keywords)
        + creature("wall", "B", 1, 4, counters={"+1/+1": 2})
        + combat({"bear": "B"}, {"wall": "bear"})
    )
    scenario = parse_scenario(tomllib.loads(text), registry, "t.toml")
    # The loader runs the attack systems on the reference engine to check the blocks with the
    # characteristics as blockers are declared (509.1a); count the resolving only.
    plugin.calls = {"reference": 0, "batched": 0}
    return [ReferenceEngine(registry).resolve(scenario), BatchedEngine(registry).resolve(scenario)]


def test_both_engines_skip_systems_whose_keywords_the_combat_does_not_use() -> None:
    """No creature has ``counted``: neither engine calls its system; with it, each once."""
    plugin = Counting()
    _resolve_both(plugin)
    assert plugin.calls == {"reference": 0, "batched": 0}
    _resolve_both(plugin, "counted")
    assert plugin.calls == {"reference": 1, "batched": 1}


def test_a_system_taps_a_creature_and_reads_its_power_through_the_context() -> None:
    """The wall blocking the tapper is tapped at declare-blockers in both engines and stays
    tapped; its power as read is 1 printed + 2 from its +1/+1 counters = 3."""
    plugin = Counting()
    reference, _ = _resolve_both(plugin, "tapper")
    assert plugin.tapped_seen == {"reference": [True], "batched": [True]}
    assert plugin.power_seen == {"reference": [3], "batched": [3]}
    assert reference.creatures["wall"].tapped is True
    assert reference.creatures["bear"].tapped is True  # attacking taps it (508.1f)
    plugin = Counting()
    reference, _ = _resolve_both(plugin)
    assert reference.creatures["wall"].tapped is False


def test_batched_queries_are_read_only() -> None:
    """A system can't write an engine array it only reads (it would change the engine)."""
    seen: list[str] = []

    class Writer:
        __name__ = "writer"

        @hookimpl
        def register_keywords(self) -> list[Keyword]:
            return [Keyword("writer")]

        @hookimpl
        def register_systems(self) -> list[System]:
            def reference(_: CombatContext, __: AttackDeclaration) -> None:
                return None

            def batched(batch: BatchContext, _: BatchAttackDeclaration) -> None:
                for array in (batch.power(), batch.on_battlefield(), batch.life()):
                    with pytest.raises(ValueError, match="read-only"):
                        array[:] = 0
                    seen.append(str(array.dtype))
                marks = batch.marks("writer: mark", np.int64)
                marks[:] = 7  # a plugin's own column is writable
                assert batch.has_marks("writer: mark")

            return [System("declare-attackers", "write", reference, batched, {"writer"})]

    registry = bundled_registry(extra=(Writer(),))
    text = "[players.A]\n[players.B]\n" + creature("bear", "A", 2, 2, "writer")
    text += combat({"bear": "B"})
    scenario = parse_scenario(tomllib.loads(text), registry, "t.toml")
    seen.clear()  # the loader's legality played its declaration too (a system without a part)
    BatchedEngine(registry).resolve(scenario)
    assert seen == ["int64", "bool", "int64"]


#: The keywords whose instances :class:`Reader` reads.
READ = ("protection", "bushido", "flanking")


class Reader:
    """A keyword ``read`` whose declare-blockers system records, per creature id, what both
    contexts say of each creature's colors, card types, controller's lands and instances of
    protection, bushido and flanking, and of the triggers ``trigger_each_instance`` puts on the stack
    with no creatures given."""

    __name__ = "reader"

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, tuple[object, ...]]] = {"reference": {}, "batched": {}}

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword("read")]

    @hookimpl
    def register_systems(self) -> list[System]:
        def noop(_: CombatContext, __: Trigger) -> None:
            return None

        def noop_batched(_: BatchContext, __: BatchTriggers) -> None:
            return None

        def read(combat: CombatContext, declaration: BlockDeclaration) -> None:
            for c in combat.creatures():
                self.seen["reference"][combat.creature_id(c)] = (
                    combat.colors(c),
                    combat.types(c),
                    combat.lands(combat.controller(c)),
                    *(tuple(combat.instances(c, k)) for k in READ),
                )
            before = len(declaration.triggers)  # other plugins' block triggers come first
            declaration.trigger_each_instance(combat, "bushido", noop)
            triggered = [combat.creature_id(t.source) for t in declaration.triggers[before:]]
            self.seen["reference"]["triggers"] = tuple(triggered)

        def read_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
            colors, types, lands = batch.colors(), batch.types(), batch.lands()
            controller = batch.controller()
            instances = {k: batch.instances(k) for k in READ}
            for row in range(batch.rows):
                per_keyword = [p[rows == row] for rows, p in instances.values()]
                self.seen["batched"][batch.creature_id(row)] = (
                    int(colors[row]),
                    int(types[row]),
                    int(lands[controller[row]]),
                    *(tuple(int(v) for v in p) for p in per_keyword),
                )
            before = len(declaration.triggers)
            declaration.trigger_each_instance(batch, "bushido", noop_batched)
            sources = np.concatenate([t.source for t in declaration.triggers[before:]])
            self.seen["batched"]["triggers"] = tuple(batch.creature_id(r) for r in sources)

        return [System("declare-blockers", "read", read, read_batched, {"read"})]


def test_both_contexts_speak_one_vocabulary() -> None:
    """colors, types and lands are bit masks in both contexts (bit i for COLORS[i],
    CARD_TYPES[i], LAND_TYPES[i]); a keyword instance's parameter is an integer in both (a
    number, a FROM_WORDS index, -1 without one: flanking); trigger_each_instance on a block declaration
    takes (context, keyword, resolve) and triggers for the creatures in blocks in both.
    Worked by hand: red = COLORS[3] -> 8, green = COLORS[4] -> 16; artifact = CARD_TYPES[0]
    -> 1; swamp = LAND_TYPES[2] -> 4, nonbasic = LAND_TYPES[5] -> 32; protection from
    everything = FROM_WORDS[6]."""
    plugin = Reader()
    registry = bundled_registry(extra=(plugin,))
    text = (
        '[players.A]\n[players.B]\nlands = ["swamp", "nonbasic"]\n'
        + creature(
            "bear", "A", 2, 2, "read", "bushido 2", "flanking", "bushido 1",
            colors=["red", "green"], types=["artifact"],
        )
        + creature("wall", "B", 0, 4, "protection from red", "protection from everything")
        + creature("elf", "B", 1, 1)
        + combat({"bear": "B"}, {"wall": "bear"})
    )  # fmt: skip
    scenario = parse_scenario(tomllib.loads(text), registry, "t.toml")
    ReferenceEngine(registry).resolve(scenario)
    BatchedEngine(registry).resolve(scenario)
    expected: dict[str, tuple[object, ...]] = {
        "bear": (8 | 16, 1, 0, (), (2, 1), (-1,)),
        "wall": (0, 0, 4 | 32, (3, 6), (), ()),
        "elf": (0, 0, 4 | 32, (), (), ()),
        "triggers": ("bear", "bear"),
    }
    assert plugin.seen["reference"] == expected
    assert plugin.seen["batched"] == expected
