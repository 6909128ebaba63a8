"""Hook specifications: everything a keyword plugin can tell ecs-combat.

A plugin is a module (or object) with functions marked ``@hookimpl`` whose names are the
hooks below. It is found through the ``ecs_combat`` entry-point group, or loaded explicitly
with ``ecs-combat -p MODULE``; ``-p no:NAME`` blocks one. The bundled keywords are plugins of
exactly this kind (``plugins/`` in the source tree).

Hooks are called once, when the plugin registry is built, or once per combat step or
batch: never once per creature in the batched engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ecs_combat.plugin.definitions import (
        Card,
        CounterKind,
        DamageStep,
        Keyword,
        ScoreTerm,
        SplitCard,
        StateField,
    )
    from ecs_combat.plugin.kernels import KernelColumn, KernelPart
    from ecs_combat.plugin.phases import PhaseRule
    from ecs_combat.plugin.restrictions import Restriction
    from ecs_combat.plugin.schedule import System
    from ecs_combat.plugin.views import BatchView, CombatView

PROJECT = "ecs_combat"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_keywords() -> Sequence[Keyword]:
    """Return the keywords this plugin provides.

    Called once when the registry is built. Two plugins may not define the same keyword.
    """
    raise NotImplementedError


@hookspec
def register_damage_steps() -> Sequence[DamageStep]:
    """Return the damage steps this plugin adds.

    Called once when the registry is built. Several plugins may add the same step (first
    strike, double strike and triple strike all add ``first-strike``) if they agree on its
    definition; two different definitions with one name are a plugin error.
    """
    raise NotImplementedError


@hookspec
def register_counters() -> Sequence[CounterKind]:
    """Return the kinds of counters (other than keyword counters) this plugin provides.

    Called once when the registry is built. Scenarios may then put them on creatures
    (``counters``), and their power and toughness changes apply while they are on one.
    """
    raise NotImplementedError


@hookspec
def register_state() -> Sequence[StateField]:
    """Return the state this plugin adds to creatures or players, with its scenario keys.

    Called once when the registry is built. See :class:`ecs_combat.plugin.definitions.StateField`.
    """
    raise NotImplementedError


@hookspec
def register_systems() -> Sequence[System]:
    """Return the systems this plugin adds at the points of a combat.

    Called once when the registry is built. Each :class:`ecs_combat.plugin.schedule.System` names
    its point (one of :data:`ecs_combat.plugin.schedule.POINT_NAMES`, in the order they happen), its
    reference form and its batched form; see :mod:`ecs_combat.plugin.payloads` for what each
    point passes to a system.
    """
    raise NotImplementedError


@hookspec
def register_restrictions() -> Sequence[Restriction]:
    """Return the rules this plugin's keywords set on attacking, blocking and targeting.

    Called once when the registry is built. Both engines and the bulk-simulation generator
    check declarations with them; see :mod:`ecs_combat.plugin.restrictions`.
    """
    raise NotImplementedError


@hookspec
def register_score_terms() -> Sequence[ScoreTerm]:
    """Return terms for the score of combat decisions (:class:`ScoreTerm`): what a player
    getting more of some state of this plugin's is worth (poison counters).

    Called once when the registry is built; the default objective lists them after the
    core's terms, in plugin order.
    """
    raise NotImplementedError


@hookspec
def register_cards() -> Sequence[Card | SplitCard]:
    """Return cards for the card library: spells that scenario ``cast`` events name, creature
    cards that creatures name with ``card``, and split cards (each half cast by its own name).

    Called once when the registry is built.
    """
    raise NotImplementedError


@hookspec
def static_keywords(combat: CombatView) -> dict[str, set[str]]:
    """Return keywords that static abilities give right now, by creature id.

    Called by the reference engine whenever it recomputes keywords (at most once per step or
    event), for keywords such as alpha strike whose effect depends on the combat. Keywords an
    effect removed later this turn are not given back (613.7).
    """
    raise NotImplementedError


@hookspec
def static_keywords_batch(batch: BatchView) -> dict[str, npt.NDArray[np.bool_]]:
    """The batched form of :func:`static_keywords`: a row mask per keyword given.

    Called by the batched engine whenever it recomputes keywords for the whole batch (as
    blockers are declared, as each step begins, after each round of events), and only when the
    batch uses one of the plugin's keywords. A plugin that implements ``static_keywords``
    without this hook makes the batched engine refuse scenarios using its keywords.
    """
    raise NotImplementedError


@hookspec
def register_phase_rules() -> Sequence[PhaseRule]:
    """Return this plugin's rules for adding phases to a turn (Throat Wolf's combat phase).

    Called once when the registry is built. The core asks each rule, as each phase of a turn
    ends, what it adds after that phase; see :mod:`ecs_combat.plugin.phases`.
    """
    raise NotImplementedError


@hookspec
def register_kernel_parts() -> Sequence[KernelPart | KernelColumn]:
    """Return the kernel forms of this plugin's systems and the columns they share.

    Called once when the registry is built. Optional: a batch whose systems all have kernel
    parts is resolved by the compiled kernel, any other by the batched engine; see
    :mod:`ecs_combat.plugin.kernels`.
    """
    raise NotImplementedError
