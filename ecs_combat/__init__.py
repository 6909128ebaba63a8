"""ecs-combat: Magic: The Gathering combat, rules-faithful and fast.

The public API for plugins and scripts: scripts load, resolve and simulate through
:mod:`ecs_combat.api` (docs/python.md), plugins through the plugin surface (docs/plugins.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ecs_combat.errors import EcsCombatError, InputError, PluginError, RefusedError

#: The version of the distribution (pyproject.toml reads it from here).
__version__ = "0.1.0"

if TYPE_CHECKING:
    from ecs_combat.api import (
        BATTLE_RESULT_COLUMNS,
        CREATURE_RESULT_COLUMNS,
        OUTCOMES,
        BattleResults,
        Battles,
        Engine,
        SimulationResult,
        Tables,
        battles,
        load,
        resolve,
        resolve_battles,
        simulate,
    )
    from ecs_combat.api_accounts import account, replay, scenarios
    from ecs_combat.api_bulk import Boards, DecidedBattles, best_attacks_of, best_blocks_of
    from ecs_combat.api_decisions import (
        Choice,
        Decision,
        Objective,
        best_attacks,
        best_blocks,
        best_blocks_many,
    )
    from ecs_combat.api_races import (
        DrawnPolicy,
        OptimalPolicy,
        RaceResults,
        RaceScenario,
        RaceState,
        load_race,
        race,
        races,
    )
    from ecs_combat.batched import BatchedEngine, BatchOutcome, CombatBatch
    from ecs_combat.plugin.batch_context import BatchContext
    from ecs_combat.plugin.before_blocks import (
        UNCHANGED,
        BeforeBlocks,
        Changes,
        DeclaredAttack,
        each_instance,
    )
    from ecs_combat.plugin.context import (
        BoolArray,
        CombatContext,
        Creature,
        IntArray,
        MarkValue,
        Player,
        StateArray,
        StateValue,
    )
    from ecs_combat.plugin.definitions import (
        CARD_TYPES,
        COLORS,
        FROM_WORDS,
        LAND_TYPES,
        PT_BASE,
        QUALITIES,
        REGULAR_STEP,
        Card,
        CounterKind,
        CreatureToken,
        DamageStep,
        Keyword,
        PowerToughness,
        ScoreTerm,
        SplitCard,
        StateField,
        TargetRule,
        color_mask,
        from_mask,
        land_mask,
        normalize_keyword,
        parameter_number,
        pt_parameter,
        type_mask,
    )
    from ecs_combat.plugin.event_actions import EventAction
    from ecs_combat.plugin.hookspecs import hookimpl
    from ecs_combat.plugin.kernels import KernelColumn, KernelPart
    from ecs_combat.plugin.loading import load_registry
    from ecs_combat.plugin.payloads import (
        Assignment,
        AttackDeclaration,
        BatchAttackDeclaration,
        BatchBlockDeclaration,
        BatchDamageAssignment,
        BatchDamageEvent,
        BatchDeaths,
        BatchDestruction,
        BatchEndOfCombat,
        BatchEventDamage,
        BatchStateCheck,
        BatchTriggers,
        BlockDeclaration,
        DamageAssignment,
        DamageEvent,
        Dealt,
        Deaths,
        Destruction,
        EventDamage,
        StateCheck,
        Trigger,
    )
    from ecs_combat.plugin.phases import COMBAT, MAIN, CastInMain, Phase, PhaseRule, TurnView
    from ecs_combat.plugin.registry import Registry
    from ecs_combat.plugin.restrictions import Number, Restriction, Side, Truth, Verdict
    from ecs_combat.plugin.schedule import POINT_NAMES, POINTS, SET_ORDER, Point, System
    from ecs_combat.plugin.skeletons import (
        BlockEvent,
        CounterTrigger,
        PumpTrigger,
        attack_trigger,
        block_trigger,
    )
    from ecs_combat.plugin.views import BatchView, CardState, CombatView, EffectTarget, Where
    from ecs_combat.reference.engine import ReferenceEngine
    from ecs_combat.rules.result import CombatResult, TurnResult
    from ecs_combat.scenario.loader import load_scenario, load_scenarios, parse_scenario
    from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario
    from ecs_combat.scenario.turns import TurnScenario

#: Where each public name is defined. Each is imported on first use (PEP 562), so that
#: `import ecs_combat` (every command starts with it, and every plugin imports the plugin
#: surface from here) loads only what it asks for: `ecs-combat --version` loads neither
#: numpy nor the engines (docs/performance.md, "Start-up").
_LAZY = {
    **dict.fromkeys(
        [
            "BoolArray", "CombatContext", "Creature", "IntArray",
            "MarkValue", "Player", "StateArray", "StateValue",
        ],
        "ecs_combat.plugin.context",
    ),
    "BatchContext": "ecs_combat.plugin.batch_context",
    **dict.fromkeys(
        [
            "UNCHANGED", "BeforeBlocks", "Changes", "DeclaredAttack", "each_instance",
        ],
        "ecs_combat.plugin.before_blocks",
    ),
    **dict.fromkeys(
        [
            "CARD_TYPES", "COLORS", "FROM_WORDS", "LAND_TYPES", "QUALITIES",
            "REGULAR_STEP", "Card", "CounterKind", "CreatureToken", "DamageStep",
            "Keyword", "ScoreTerm", "SplitCard", "StateField", "TargetRule",
            "color_mask", "from_mask", "land_mask", "normalize_keyword", "type_mask",
            "PT_BASE", "PowerToughness", "parameter_number", "pt_parameter",
        ],
        "ecs_combat.plugin.definitions",
    ),
    **dict.fromkeys(
        [
            "EventAction",
        ],
        "ecs_combat.plugin.event_actions",
    ),
    **dict.fromkeys(
        [
            "hookimpl",
        ],
        "ecs_combat.plugin.hookspecs",
    ),
    **dict.fromkeys(
        [
            "KernelColumn", "KernelPart",
        ],
        "ecs_combat.plugin.kernels",
    ),
    **dict.fromkeys(
        [
            "load_registry",
        ],
        "ecs_combat.plugin.loading",
    ),
    **dict.fromkeys(
        [
            "Assignment", "AttackDeclaration", "BatchAttackDeclaration",
            "BatchBlockDeclaration", "BatchDamageAssignment", "BatchDamageEvent",
            "BatchDeaths", "BatchDestruction", "BatchEndOfCombat", "BatchEventDamage",
            "BatchStateCheck", "BatchTriggers", "BlockDeclaration", "DamageAssignment",
            "DamageEvent", "Dealt", "Deaths", "Destruction", "EventDamage",
            "StateCheck", "Trigger",
        ],
        "ecs_combat.plugin.payloads",
    ),
    **dict.fromkeys(
        [
            "COMBAT", "MAIN", "CastInMain", "Phase", "PhaseRule", "TurnView",
        ],
        "ecs_combat.plugin.phases",
    ),
    **dict.fromkeys(
        [
            "Registry",
        ],
        "ecs_combat.plugin.registry",
    ),
    **dict.fromkeys(
        [
            "Number", "Restriction", "Side", "Truth", "Verdict",
        ],
        "ecs_combat.plugin.restrictions",
    ),
    **dict.fromkeys(
        [
            "POINT_NAMES", "POINTS", "SET_ORDER", "Point", "System",
        ],
        "ecs_combat.plugin.schedule",
    ),
    **dict.fromkeys(
        [
            "BatchView", "CardState", "CombatView", "EffectTarget", "Where",
        ],
        "ecs_combat.plugin.views",
    ),
    **dict.fromkeys(
        [
            "ReferenceEngine",
        ],
        "ecs_combat.reference.engine",
    ),
    **dict.fromkeys(
        [
            "CombatResult", "TurnResult",
        ],
        "ecs_combat.rules.result",
    ),
    **dict.fromkeys(
        [
            "load_scenario", "load_scenarios", "parse_scenario",
        ],
        "ecs_combat.scenario.loader",
    ),
    **dict.fromkeys(
        [
            "CreatureSpec", "PlayerSpec", "Scenario",
        ],
        "ecs_combat.scenario.model",
    ),
    **dict.fromkeys(
        [
            "BATTLE_RESULT_COLUMNS", "CREATURE_RESULT_COLUMNS", "OUTCOMES", "BattleResults",
            "Battles", "Engine", "SimulationResult", "Tables", "battles", "load", "resolve",
            "resolve_battles", "simulate",
        ],
        "ecs_combat.api",
    ),
    **dict.fromkeys(
        ["Choice", "Decision", "Objective", "best_attacks", "best_blocks", "best_blocks_many"],
        "ecs_combat.api_decisions",
    ),
    **dict.fromkeys(
        ["Boards", "DecidedBattles", "best_attacks_of", "best_blocks_of"], "ecs_combat.api_bulk"
    ),
    **dict.fromkeys(["account", "replay", "scenarios"], "ecs_combat.api_accounts"),
    **dict.fromkeys(
        [
            "DrawnPolicy", "OptimalPolicy", "RaceResults", "RaceScenario", "RaceState",
            "load_race", "race", "races",
        ],
        "ecs_combat.api_races",
    ),
    "BatchOutcome": "ecs_combat.batched",
    "CombatBatch": "ecs_combat.batched",
    "BatchedEngine": "ecs_combat.batched",
    "TurnScenario": "ecs_combat.scenario.turns",
    **dict.fromkeys(
        ["BlockEvent", "CounterTrigger", "PumpTrigger", "attack_trigger", "block_trigger"],
        "ecs_combat.plugin.skeletons",
    ),
}  # fmt: skip


def __getattr__(name: str) -> Any:
    """The public names of :data:`_LAZY`, imported on first use."""
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'ecs_combat' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


__all__ = [
    "BATTLE_RESULT_COLUMNS",
    "CARD_TYPES",
    "COLORS",
    "COMBAT",
    "CREATURE_RESULT_COLUMNS",
    "FROM_WORDS",
    "LAND_TYPES",
    "MAIN",
    "OUTCOMES",
    "POINTS",
    "POINT_NAMES",
    "PT_BASE",
    "QUALITIES",
    "REGULAR_STEP",
    "SET_ORDER",
    "UNCHANGED",
    "Assignment",
    "AttackDeclaration",
    "BatchAttackDeclaration",
    "BatchBlockDeclaration",
    "BatchContext",
    "BatchDamageAssignment",
    "BatchDamageEvent",
    "BatchDeaths",
    "BatchDestruction",
    "BatchEndOfCombat",
    "BatchEventDamage",
    "BatchOutcome",
    "BatchStateCheck",
    "BatchTriggers",
    "BatchView",
    "BatchedEngine",
    "BattleResults",
    "Battles",
    "BeforeBlocks",
    "BlockDeclaration",
    "BlockEvent",
    "Boards",
    "BoolArray",
    "Card",
    "CardState",
    "CastInMain",
    "Changes",
    "Choice",
    "CombatBatch",
    "CombatContext",
    "CombatResult",
    "CombatView",
    "CounterKind",
    "CounterTrigger",
    "Creature",
    "CreatureSpec",
    "CreatureToken",
    "DamageAssignment",
    "DamageEvent",
    "DamageStep",
    "Dealt",
    "Deaths",
    "DecidedBattles",
    "Decision",
    "DeclaredAttack",
    "Destruction",
    "DrawnPolicy",
    "EcsCombatError",
    "EffectTarget",
    "Engine",
    "EventAction",
    "EventDamage",
    "InputError",
    "IntArray",
    "KernelColumn",
    "KernelPart",
    "Keyword",
    "MarkValue",
    "Number",
    "Objective",
    "OptimalPolicy",
    "Phase",
    "PhaseRule",
    "Player",
    "PlayerSpec",
    "PluginError",
    "Point",
    "PowerToughness",
    "PumpTrigger",
    "RaceResults",
    "RaceScenario",
    "RaceState",
    "ReferenceEngine",
    "RefusedError",
    "Registry",
    "Restriction",
    "Scenario",
    "ScoreTerm",
    "Side",
    "SimulationResult",
    "SplitCard",
    "StateArray",
    "StateCheck",
    "StateField",
    "StateValue",
    "System",
    "Tables",
    "TargetRule",
    "Trigger",
    "Truth",
    "TurnResult",
    "TurnScenario",
    "TurnView",
    "Verdict",
    "Where",
    "account",
    "attack_trigger",
    "battles",
    "best_attacks",
    "best_attacks_of",
    "best_blocks",
    "best_blocks_many",
    "best_blocks_of",
    "block_trigger",
    "color_mask",
    "each_instance",
    "from_mask",
    "hookimpl",
    "land_mask",
    "load",
    "load_race",
    "load_registry",
    "load_scenario",
    "load_scenarios",
    "normalize_keyword",
    "parameter_number",
    "parse_scenario",
    "pt_parameter",
    "race",
    "races",
    "replay",
    "resolve",
    "resolve_battles",
    "scenarios",
    "simulate",
    "type_mask",
]
