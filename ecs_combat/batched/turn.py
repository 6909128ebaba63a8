"""Turns with several combat phases (RULES.md section 8) in the batched engine.

One run keeps the state arrays of every turn across all their combat phases: combat phase k of
every turn is played at once (turns with fewer combat phases sit it out, as a combat phase
without attackers). Rows for every creature the turn may see (tokens, creatures entering in
any combat) exist from the start, off the battlefield, so all phases share one row layout.
Before each phase the combat's own arrays (attackers, blocks, strikers, divisions, events, the
steps taken) are reset and read from that phase; damage, power and toughness, keywords,
counters, the plugins' state and columns, tapped creatures, life and the players who lost
carry over.

A phase's declarations come either from files (:class:`TurnScenario`: a tapped or dead
creature declared as attacker or blocker is an input error naming ``combats[i]``) or, in bulk
simulations, from drawn intentions (:class:`DrawnPhase`: the creatures able to attack or block
when the phase begins do, the others are left out), decided over whole arrays; or a bulk run's
`declarer` chooses them as the phase begins, from the state then (decisions,
:mod:`ecs_combat.batched.phase_start`).

This module holds many turns as arrays (:class:`TurnBatch`); :mod:`.turn_play` plays them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ecs_combat.batched.arrays import BoolArray, CombatBatch, IntArray
from ecs_combat.batched.builder import BatchBuilder
from ecs_combat.batched.builder_arrays import built_batch, combat_arrays
from ecs_combat.batched.phase_start import PhaseDeclarer
from ecs_combat.errors import RefusedError
from ecs_combat.plugin.phases import COMBAT, Phase
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.usage import used_keywords

if TYPE_CHECKING:
    from ecs_combat.scenario.turns import TurnScenario

I64 = np.int64
#: ``MainCasts.target`` of a spell with no target.
NO_TARGET = np.iinfo(np.int64).min


@dataclass
class MainCasts:
    """Spells cast in main phases between two combat phases, one row per cast, by battle and
    then in the order they are cast."""

    battle: IntArray = field(default_factory=lambda: np.zeros(0, I64))
    #: Index into the batch's `card_names`.
    card: IntArray = field(default_factory=lambda: np.zeros(0, I64))
    #: Player row.
    caster: IntArray = field(default_factory=lambda: np.zeros(0, I64))
    #: Creature row, ``-1 - player row`` for a player, or :data:`NO_TARGET`.
    target: IntArray = field(default_factory=lambda: np.zeros(0, I64))
    #: Row of the token the spell creates, or -1.
    token: IntArray = field(default_factory=lambda: np.zeros(0, I64))


@dataclass
class DrawnPhase:
    """A combat phase of a bulk simulation, declared as it begins from drawn intentions.

    Each creature of the attacking player that may attack (on the battlefield, untapped, no
    rule against it, one of `only` where that is set) and wants to attacks; each creature of
    the other players that may block and wants to blocks the attacker of its battle that
    `choice` (in [0, 1)) picks among them, if the rules allow that block.
    """

    #: [battles] attacking player row, or -1 where the battle has no such phase.
    player: IntArray
    #: [creature rows] whether it attacks if it may.
    attack: BoolArray
    #: [creature rows] whether it blocks if it may.
    block: BoolArray
    #: [creature rows] which of its battle's attackers it blocks.
    choice: Any
    #: [creature rows] the only creatures that may attack (a phase only some may attack
    #: in), or None: any.
    only: BoolArray | None = None


@dataclass
class TurnBatch:
    """Many turns as arrays: the first combat phase as a :class:`CombatBatch` (its rows are
    every creature of the turn), then the later phases and the spells cast before each."""

    first: CombatBatch
    #: Per later combat phase: a batch sharing `first`'s rows (from files), or drawn
    #: declarations (bulk).
    later: list[CombatBatch | DrawnPhase] = field(default_factory=list)
    #: [phases][battles] attacking player row of each combat phase (-1: none).
    players: list[IntArray] = field(default_factory=list)
    #: Spells cast before each combat phase (one entry per phase, or none at all).
    casts: list[MainCasts] = field(default_factory=list)
    #: [creature rows] summoning sick (302.6): it came under its controller's control this
    #: turn; None: none is.
    sick: BoolArray | None = None
    #: [phases][battles] the combat phase (index) each combat phase was added directly after,
    #: or -1 (after a main phase, or one of the turn's own); none: no such phases.
    parent: list[IntArray] = field(default_factory=list)
    #: [phases][battles] the creature row whose ability adds the combat phase (Throat Wolf),
    #: or -1; none: no such phases.
    source: list[IntArray] = field(default_factory=list)
    #: Bulk decisions: chooses each combat phase's declarations as it begins (the first
    #: phase's blocks, each later drawn phase's attacks and blocks) instead of the drawn
    #: ones; None: as drawn.
    declarer: PhaseDeclarer | None = None

    @property
    def n_phases(self) -> int:
        """The most combat phases a turn of the batch has."""
        return 1 + len(self.later)


def turns_to_batch(turns: Sequence[TurnScenario], registry: Registry) -> TurnBatch:
    """One :class:`TurnBatch` holding every turn, battle ``i`` being ``turns[i]``.

    Creature rows of a turn: its creatures, then, phase by phase, the tokens of the spells cast
    before it and the creatures its events bring, in the order they would enter.
    """
    combats = [sc for t in turns for sc in t.combats]
    names = used_keywords(
        combats,
        registry,
        creatures=[spec for t in turns for spec in t.tokens.values()],
        cards=[c.card for t in turns for c in t.casts],
    )
    layout = BatchBuilder(registry, names)
    prows: list[dict[str, int]] = []
    crows: list[dict[str, int]] = []
    sick: list[bool] = []
    for b, turn in enumerate(turns):
        layout.files.append(turn.file)
        prow = layout.add_players(b, turn.players.values())
        crow = {cid: layout.creature(b, spec, prow, True) for cid, spec in turn.creatures.items()}
        groups = turn.casts_before()
        for k, cast_group in enumerate(groups):
            for cast in cast_group:
                if cast.token is not None and cast.token in turn.tokens:
                    crow[cast.token] = layout.creature(b, turn.tokens[cast.token], prow, False)
            if k < len(turn.combats):
                for spec in layout.entering(turn.combats[k]):
                    crow[spec.id] = layout.creature(b, spec, prow, False)
        for tid, spec in turn.tokens.items():  # tokens no cast creates: never on the battlefield
            if tid not in crow:
                crow[tid] = layout.creature(b, spec, prow, False)
        layout.resolve_references(crow)
        layout.add_targets(turn.creatures.values(), crow)  # provoke's, for every phase
        prows.append(prow)
        crows.append(crow)
        specs = {**turn.creatures, **turn.tokens}
        for sc in turn.combats:
            specs.update((ev.creature.id, ev.creature) for ev in sc.events if ev.creature)
        # creatures entering during the turn (tokens, `enter` events) came under their
        # controller's control this turn too
        sick.extend(specs[cid].summoning_sick or cid not in turn.creatures for cid in crow)
    base = built_batch(layout, len(turns))
    n_rows = base.n_creatures
    n_phases = max(1, *(len(t.combats) for t in turns))
    phases: list[CombatBatch] = []
    players: list[IntArray] = []
    parents: list[IntArray] = []
    sources: list[IntArray] = []
    combat_index = [_combat_indices(turn.phases) for turn in turns]
    for k in range(n_phases):
        builder = BatchBuilder(registry, names)
        builder.attacking = [-1] * n_rows
        attacking = np.full(len(turns), -1, I64)
        parent = np.full(len(turns), -1, I64)
        source = np.full(len(turns), -1, I64)
        for b, turn in enumerate(turns):
            if k < len(turn.combats):
                builder.add_combat(b, turn.combats[k], prows[b], crows[b])
                phase = turn.combat_phases()[k]
                attacking[b] = prows[b][phase.player]
                if phase.follows >= 0:
                    parent[b] = combat_index[b][phase.follows]
                if phase.source is not None:
                    source[b] = crows[b].get(phase.source, -1)
        phases.append(dataclasses.replace(base, **combat_arrays(builder, n_rows)))
        players.append(attacking)
        parents.append(parent)
        sources.append(source)
    casts = [_main_casts(turns, k, layout, prows, crows) for k in range(n_phases)]
    later: list[CombatBatch | DrawnPhase] = list(phases[1:])
    return TurnBatch(phases[0], later, players, casts, np.asarray(sick, np.bool_), parents, sources)


def _combat_indices(phases: Sequence[Phase]) -> list[int]:
    """For each phase of a schedule, its index among the combat phases (-1: a main phase)."""
    out: list[int] = []
    n = 0
    for p in phases:
        out.append(n if p.kind == COMBAT else -1)
        n += p.kind == COMBAT
    return out


def _main_casts(
    turns: Sequence[TurnScenario],
    k: int,
    layout: BatchBuilder,
    prows: list[dict[str, int]],
    crows: list[dict[str, int]],
) -> MainCasts:
    """The main-phase casts of every turn between combat phases k - 1 and k."""
    rows: list[tuple[int, int, int, int, int]] = []
    for b, turn in enumerate(turns):
        groups = turn.casts_before()
        if k >= len(turn.combats):
            continue
        for cast in groups[k]:
            if cast.target is None:
                target = int(NO_TARGET)
            elif cast.target in prows[b]:
                target = -1 - prows[b][cast.target]
            else:
                target = crows[b][cast.target]
            token = crows[b][cast.token] if cast.token is not None else -1
            card = layout.card_index.get(cast.card, -1)
            if card < 0:
                raise RefusedError(f"no castable card {cast.card!r} in the card library")
            rows.append((b, card, prows[b][cast.caster], target, token))
    a = np.asarray(rows, I64).reshape(-1, 5)
    return MainCasts(*(a[:, i].copy() for i in range(5)))


__all__ = [
    "NO_TARGET",
    "DrawnPhase",
    "MainCasts",
    "TurnBatch",
    "turns_to_batch",
]
