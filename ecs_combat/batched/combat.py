"""One combat phase of every battle of a run, played through (the reference engine's `run`):
declarations (508, 509), the damage steps (:mod:`.damage`), events (:mod:`.events`), the end
of combat; and the final state as arrays."""

from __future__ import annotations

import numpy as np

from ecs_combat.batched import damage, events
from ecs_combat.batched.actions import (
    destroy,
    end_of_combat,
    resolve_triggers,
    run_systems,
    state_based_actions,
)
from ecs_combat.batched.arrays import BatchOutcome, IntArray
from ecs_combat.batched.context import read_only
from ecs_combat.batched.keywords import refresh
from ecs_combat.batched.numeric import battles_with, some
from ecs_combat.batched.results import GAME_ENDED, HAPPENED, NO_ATTACKERS, NO_STEP
from ecs_combat.batched.state import CombatRows, CreatureRows, Errors, Frame, PlayerRows, State
from ecs_combat.errors import InputError
from ecs_combat.plugin.batch_context import BatchContext
from ecs_combat.plugin.payloads import BatchAttackDeclaration, BatchBlockDeclaration
from ecs_combat.rules.legality import lethal_damage_message

I64 = np.int64


def play(state: State) -> None:
    """Play the combat phase through in every battle."""
    declare(state)
    combat, players = state.combat, state.players
    ha = combat.has_attack
    state_based_actions(state, ha)
    rounds = combat.rounds
    if rounds[0]:
        events.events_at(state, 0, np.where(ha, HAPPENED, NO_ATTACKERS).astype(np.int8))
    for s, plan in enumerate(state.frame.schedule.plans):
        act = ha & ~players.game_over
        happen = act  # none take place where none act
        if some(act):
            refresh(state, act)
            if not plan.step.default:
                happen = act & damage.step_exists(
                    state.frame, state.keywords, state.creatures, combat, s
                )
            if some(happen):
                damage.damage_step(state, s, happen)
        combat.steps_taken[s] = happen
        if rounds[s + 1]:  # why an event after the step would not happen
            why = np.where(ha, np.where(act, HAPPENED, GAME_ENDED), NO_ATTACKERS)
            why = np.where(act & ~happen, NO_STEP, why)
            events.events_at(state, s + 1, why.astype(np.int8))
    end_of_combat(state, ha & ~players.game_over)


def declare(state: State) -> None:
    """Declare attackers and blockers (508, 509)."""
    declare_attackers(state)
    if state.frame.policy.check_blocks is not None:
        state.frame.policy.check_blocks()
    combat, c = state.combat, state.creatures
    # A block of or by a creature that left the battlefield or combat before blocks (the
    # attack triggers, the state-based actions after them, a player leaving the game) is
    # not declared, even if the blocker returned as a new object (509.1a, 400.7, RULES 11.3):
    # an attacker all of whose listed blockers are gone is unblocked.
    declared = combat.of_blockers(c.on_bf) & combat.of_attackers(combat.att)
    if combat.returned is not None:
        declared &= ~combat.of_blockers(combat.returned)
    if np.count_nonzero(declared) < len(declared):
        combat.keep_blocks(declared, state.frame.n)
        combat.blocking[combat.bb] = True
        combat.in_combat[combat.bb] = True
    elif combat.nblocks:
        blockers = combat.bb if combat.bb_at is None else combat.bb_at
        combat.blocking[blockers] = True
        combat.in_combat[blockers] = True
    combat.blocks_declared = True
    refresh(state, None)
    if some(combat.has_attack):
        blocking = BatchBlockDeclaration(read_only(combat.bb), read_only(combat.ba))
        run_systems(state.frame, state.context, "declare-blockers", blocking)
        if blocking.added:
            add_blocks(state, blocking.added)
        resolve_triggers(state, blocking.triggers)


def add_blocks(state: State, added: list[tuple[IntArray, IntArray]]) -> None:
    """Blocks the declare-blockers systems added (702.22h), of blockers on the battlefield
    and attackers still attacking: each after the attackers its blocker was declared
    blocking."""
    combat, c = state.combat, state.creatures
    b = np.concatenate([pair[0] for pair in added])
    a = np.concatenate([pair[1] for pair in added])
    keep = c.on_bf[b] & combat.att[a]
    b, a = b[keep], a[keep]
    if b.size == 0:
        return
    rank = (1 << 30) + np.arange(b.size, dtype=I64)  # after every declared one
    combat.bb = np.concatenate([combat.bb, b])
    combat.ba = np.concatenate([combat.ba, a])
    combat.rank = np.concatenate([combat.rank, rank])
    combat.index_blocks(state.frame.n)
    combat.blocking[b] = True
    combat.in_combat[b] = True
    if combat.div_rows:
        combat.pair_keys = np.sort(combat.bb * max(state.frame.n, 1) + combat.ba)
    refresh(state, None)


def declare_attackers(state: State) -> None:
    """Declare attackers and resolve their triggers (508, 508.2): the combat as blockers
    are declared."""
    if state.frame.policy.check_marked_damage:
        check_marked_damage(state.frame, state.creatures, state.errors, state.context)
    combat = state.combat
    att = combat.att.copy()
    combat.has_attack = battles_with(
        att, state.creatures.battle, state.frame.nb, state.frame.per_battle
    )
    combat.in_combat |= att
    # the first state-based check of the combat, before the attack triggers: a creature's
    # +1/+1 and -1/-1 counters annihilate (704.5q: RULES 13, version 1.3)
    state_based_actions(state, None)
    refresh(state, None)
    declaration = BatchAttackDeclaration(att, att.copy())
    run_systems(state.frame, state.context, "declare-attackers", declaration)
    c = state.creatures
    c.tapped = c.tapped | declaration.taps  # tapped earlier in the turn stay tapped
    resolve_triggers(state, declaration.triggers)  # 508.2


def check_marked_damage(
    frame: Frame, c: CreatureRows, errors: Errors, context: BatchContext
) -> None:
    """A creature can't start the combat with lethal damage marked unless nothing
    destroys it (704.5g; the `destroy` systems run): an input error, as the reference
    engine says it."""
    if not some(c.marked != 0):  # no damage marked: the common case
        return
    lethal = c.entered & (c.toughness > 0) & (c.marked >= c.toughness)  # 704.5g
    if not lethal.any():
        return
    printed = np.asarray(frame.batch.toughness, I64)  # as the scenario gives it
    for row in np.flatnonzero(destroy(frame, context, lethal)).tolist():
        battle = int(c.battle[row])
        marked, toughness = int(c.marked[row]), int(c.toughness[row])
        message = lethal_damage_message(marked, toughness, int(printed[row]))
        where = f"creatures.{frame.cid(row)}.damage"
        errors.fail(battle, InputError(frame.file_of(battle), where, message))


def outcome(creatures: CreatureRows, combat: CombatRows, players: PlayerRows) -> BatchOutcome:
    """The final state as arrays."""
    c, p = creatures, players
    return BatchOutcome(
        alive=c.on_bf,
        damage=c.marked,
        power=c.power,
        toughness=c.toughness,
        life=p.life,
        lost=p.lost,
        died_in_step=c.died,
        damage_to_players=p.to_players,
        dealt_to_players=c.dealt_to_players,
        life_gained=c.life_gained,
        entered=c.entered,
        steps_taken=combat.steps_taken,
        player_state=p.states,
        returned=c.returned,
    )
