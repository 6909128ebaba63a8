"""A test kit for keyword plugins: random legal scenarios, and the engines checked against
each other.

A plugin's batched form must give exactly what its reference form gives (CONTRACT.md 2). With
this module, a plugin package tests that in a few lines::

    from hypothesis import given
    from ecs_combat.testing import (
        agreement_settings, assert_engines_agree, registry_with, scenarios
    )

    REGISTRY = registry_with("ecs_combat_alpha_strike")

    @agreement_settings()  # 200 drawn scenarios (AGREEMENT_EXAMPLES): 40 find too little
    @given(scenarios(REGISTRY, keywords=["alpha strike", "first strike"]))
    def test_engines_agree(doc):
        assert_engines_agree(REGISTRY, doc)

Where the plugin set's compiled kernel (its plugins' kernel parts) resolves a scenario,
:func:`assert_engines_agree` checks its outcome against the reference engine's too
(:func:`assert_kernel_agrees`). :func:`scenarios` draws the plugins' state and scenario events too; :func:`turns` draws whole
turns with several combat phases, checked with :func:`assert_turn_engines_agree`.

It is also a pytest plugin (entry point ``ecs_combat`` in the group ``pytest11``, loaded
wherever ecs-combat is installed): the fixture :func:`ecs_combat_registry` gives the bundled
plugins plus those :func:`ecs_combat_plugins` names (override that fixture in a
``conftest.py`` to name yours).
"""

from __future__ import annotations

from ecs_combat.testing.agreement import (
    AGREEMENT_EXAMPLES,
    agreement_settings,
    assert_engines_agree,
    assert_turn_engines_agree,
    resolve_both,
    resolve_turn_both,
)
from ecs_combat.testing.drawing import draw_events, draw_state, instance_text
from ecs_combat.testing.fixtures import ecs_combat_plugins, ecs_combat_registry
from ecs_combat.testing.kernels import assert_kernel_agrees
from ecs_combat.testing.registries import bundled_plugins, engines_for, registry_with
from ecs_combat.testing.scenarios import legal_scenario, scenarios
from ecs_combat.testing.turns import legal_turn, phase_adders, turns

__all__ = [
    "AGREEMENT_EXAMPLES",
    "agreement_settings",
    "assert_engines_agree",
    "assert_kernel_agrees",
    "assert_turn_engines_agree",
    "bundled_plugins",
    "draw_events",
    "draw_state",
    "ecs_combat_plugins",
    "ecs_combat_registry",
    "engines_for",
    "instance_text",
    "legal_scenario",
    "legal_turn",
    "phase_adders",
    "registry_with",
    "resolve_both",
    "resolve_turn_both",
    "scenarios",
    "turns",
]
