"""ecs-combat: Magic: The Gathering combat, rules-faithful and fast.

The public API for plugins and scripts.
"""

from ecs_combat.definitions import (
    COLORS,
    REGULAR_STEP,
    Card,
    CounterKind,
    DamageStep,
    Keyword,
    StateField,
    TargetRule,
    normalize_keyword,
)
from ecs_combat.errors import EcsCombatError, InputError, PluginError, RefusedError
from ecs_combat.hookspecs import hookimpl
from ecs_combat.plugins import Registry, load_registry
from ecs_combat.reference import ReferenceEngine
from ecs_combat.restrictions import Restriction
from ecs_combat.result import CombatResult
from ecs_combat.scenario import Scenario, load_scenario, load_scenarios, parse_scenario
from ecs_combat.schedule import (
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

__all__ = [
    "COLORS",
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
    "BlockDeclaration",
    "Card",
    "CombatResult",
    "CounterKind",
    "DamageAssignment",
    "DamageEvent",
    "DamageStep",
    "Dealt",
    "Destruction",
    "EcsCombatError",
    "InputError",
    "Keyword",
    "PluginError",
    "ReferenceEngine",
    "RefusedError",
    "Registry",
    "Restriction",
    "Scenario",
    "StateCheck",
    "StateField",
    "System",
    "TargetRule",
    "Trigger",
    "hookimpl",
    "load_registry",
    "load_scenario",
    "load_scenarios",
    "normalize_keyword",
    "parse_scenario",
]
