"""ecs-combat: Magic: The Gathering combat, rules-faithful and fast.

The public API for plugins and scripts.
"""

from ecs_combat.errors import EcsCombatError, InputError, PluginError, RefusedError
from ecs_combat.plugin.definitions import (
    COLORS,
    REGULAR_STEP,
    Card,
    CounterKind,
    CreatureToken,
    DamageStep,
    Keyword,
    ScoreTerm,
    SplitCard,
    StateField,
    TargetRule,
    normalize_keyword,
)
from ecs_combat.plugin.hookspecs import hookimpl
from ecs_combat.plugin.phases import COMBAT, MAIN, CastInMain, Phase, PhaseRule, TurnView
from ecs_combat.plugin.registry import Registry, load_registry
from ecs_combat.plugin.restrictions import Restriction
from ecs_combat.plugin.schedule import (
    POINT_NAMES,
    POINTS,
    Assignment,
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchBlockDeclaration,
    BatchDamageAssignment,
    BatchDamageEvent,
    BatchDestruction,
    BatchEndOfCombat,
    BatchStateCheck,
    BatchTriggers,
    BlockDeclaration,
    DamageAssignment,
    DamageEvent,
    Dealt,
    Destruction,
    StateCheck,
    System,
    Trigger,
)
from ecs_combat.plugin.views import BatchView, CombatView, EffectTarget
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.loader import load_scenario, load_scenarios, parse_scenario
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario

__all__ = [
    "COLORS",
    "COMBAT",
    "MAIN",
    "POINTS",
    "POINT_NAMES",
    "REGULAR_STEP",
    "Assignment",
    "AttackDeclaration",
    "BatchAttackDeclaration",
    "BatchBlockDeclaration",
    "BatchDamageAssignment",
    "BatchDamageEvent",
    "BatchDestruction",
    "BatchEndOfCombat",
    "BatchStateCheck",
    "BatchTriggers",
    "BatchView",
    "BlockDeclaration",
    "Card",
    "CastInMain",
    "CombatResult",
    "CombatView",
    "CounterKind",
    "CreatureSpec",
    "CreatureToken",
    "DamageAssignment",
    "DamageEvent",
    "DamageStep",
    "Dealt",
    "Destruction",
    "EcsCombatError",
    "EffectTarget",
    "InputError",
    "Keyword",
    "Phase",
    "PhaseRule",
    "PlayerSpec",
    "PluginError",
    "ReferenceEngine",
    "RefusedError",
    "Registry",
    "Restriction",
    "Scenario",
    "ScoreTerm",
    "SplitCard",
    "StateCheck",
    "StateField",
    "System",
    "TargetRule",
    "Trigger",
    "TurnView",
    "hookimpl",
    "load_registry",
    "load_scenario",
    "load_scenarios",
    "normalize_keyword",
    "parse_scenario",
]
