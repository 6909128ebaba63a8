"""A combat phase of bulk turns as it begins, for the decisions made then (``decisions =
"optimal"`` in a SPEC with ``[turn]``): the state written as a batch of one combat, who may
attack and who may block (the blocks themselves are judged on each board as its blockers are
declared, after its attack triggers: :mod:`ecs_combat.batched.block_rules`).

The state batch has every row of the turn: a creature on the battlefield is present, with its
damage marked, counters, keywords (printed and granted), power and toughness (before
counters, "until end of turn" effects included, as a scenario would give them), tapped or not,
and the plugins' state; a creature that died or has not entered is not present. Resolved as one
combat by the batched engine, it plays the phase as the turn would (the search's candidate
combats are copies of it, :mod:`ecs_combat.decisions.turn_decided`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ecs_combat.batched.arrays import BoolArray, CombatBatch, IntArray
from ecs_combat.batched.boards import Declarations, without_blocks
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.keywords import refresh
from ecs_combat.batched.state import CreatureRows, PlayerRows, State
from ecs_combat.batched.views import able_to_block

I64 = np.int64


@dataclass(frozen=True)
class PhaseStart:
    """Combat phase `index` of every battle's turn as it begins (after the main phases'
    spells), before anything is declared."""

    index: int
    #: Every row of the turn as the phase begins; for the first phase its drawn attackers
    #: attack and its `[[casts]]` are events; no blocks, no divisions.
    state: CombatBatch
    #: [n_battles] the phase's attacking player row, -1 where the phase does not happen.
    attacker: IntArray
    #: [n_battles] its defending player row (the other of two), -1 where it does not happen.
    defender: IntArray
    #: [N] the creatures that may be declared attacking (508.1a: on the battlefield, untapped,
    #: the attacking player's, no rule against it, summoning sickness included, one of the
    #: phase's only attackers where it has them); None: the attackers are the state's own.
    may_attack: BoolArray | None
    #: [N] the defending player's creatures that may block (untapped, on the battlefield, no
    #: rule against blocking at all).
    may_block: BoolArray


#: Chooses a combat phase's attacks, blocks and divisions as it begins, by rows of the turn.
PhaseDeclarer = Callable[[PhaseStart], Declarations]


def phase_start(
    state: State,
    k: int,
    player: IntArray,
    allowed: Callable[[IntArray], BoolArray],
    happens: BoolArray,
    template: CombatBatch,
    only: BoolArray | None,
) -> PhaseStart:
    """Combat phase `k` of a turn's `state` as it begins in the battles where it `happens`,
    `player` its attacking player row (-1: none); `allowed` whether the rules let some
    creatures attack now (508.1a, 302.6); `template` is the phase's batch before
    declarations (its attacks are kept for the first phase: `only` is then None), `only`
    the creatures that may attack in it (None: any). The static-keyword hooks run first:
    the creatures' keywords as they are now."""
    refresh(state, None)
    frame, c, p, kw = state.frame, state.creatures, state.players, state.keywords
    attacker = np.where(happens & (player >= 0), player, -1)
    seats = np.bincount(p.battle, minlength=frame.nb)
    first = np.searchsorted(p.battle, np.arange(frame.nb))
    defender = np.where(attacker >= 0, first + (attacker - first + 1) % np.maximum(seats, 1), -1)
    ready = c.on_bf & ~c.tapped & ~p.game_over[c.battle]
    mine = attacker[c.battle]
    as_batch = _state(c, kw, p, template, happens)
    may_attack = None
    if k > 0:
        may_attack = ready & (c.controller == mine) & (mine >= 0)
        if only is not None:
            may_attack &= only
        rows = np.flatnonzero(may_attack)
        may_attack[rows] = allowed(rows)
    theirs = defender[c.battle]
    may_block = ready & (c.controller == theirs) & (theirs >= 0)
    rows = np.flatnonzero(may_block)
    may_block[rows] = able_to_block(frame, kw, c, rows)
    return PhaseStart(k, as_batch, attacker, defender, may_attack, may_block)


def _state(
    c: CreatureRows, kw: KeywordRows, p: PlayerRows, template: CombatBatch, happens: BoolArray
) -> CombatBatch:
    """The turn's state as a batch of one combat (see the module's docstring)."""
    counts = None if kw.counts is None else kw.counts.matrix()
    power, toughness = c.power.copy(), c.toughness.copy()
    if counts is not None:  # counters give their power and toughness again as it is played
        gives = counts @ kw.counter_pt
        power -= gives[:, 0]
        toughness -= gives[:, 1]
    attacking = np.where(c.on_bf & happens[c.battle], template.attacking, -1)
    return without_blocks(
        template,
        life=p.life.copy(),
        power=power,
        toughness=toughness,
        damage=c.marked.copy(),
        keywords=kw.base.astype(np.uint64),
        counters=counts,
        present=c.on_bf.copy(),
        tapped=c.tapped.copy(),
        attacking=attacking.astype(I64),
        creature_state={key: v.copy() for key, v in c.states.items()},
        player_state={key: v.copy() for key, v in p.states.items()},
        instance_row=kw.inst_row.copy(),
        instance_keyword=kw.inst_kw.copy(),
        instance_parameter=kw.inst_param.copy(),
    )
