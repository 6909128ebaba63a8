"""Scenario events over a whole batch, round by round (the n-th event of every battle at
a point at once), and cards cast by them."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.actions import (
    destroy_rows,
    remove_from_combat,
    run_systems,
    state_based_actions,
)
from ecs_combat.batched.arrays import ACTION_CODE, CombatBatch, IntArray
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.keywords import add_instances, change_counters, refresh, update_own
from ecs_combat.batched.numeric import distinct_values, mask_of
from ecs_combat.batched.results import GAME_ENDED, HAPPENED
from ecs_combat.batched.state import Frame, State
from ecs_combat.batched.views import CardTargets, RowSide
from ecs_combat.errors import call_plugin
from ecs_combat.plugin.definitions import color_mask
from ecs_combat.plugin.payloads import BatchEventDamage

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


def events_at(state: State, point: int, why: SmallArray) -> None:
    """The events at a point, round by round; state-based actions after each."""
    b = state.combat.batch
    for rows in state.combat.rounds[point]:
        battle = b.event_battle[rows]
        skip = why[battle]
        skip = np.where((skip == HAPPENED) & state.players.game_over[battle], GAME_ENDED, skip)
        state.combat.ev_skip[rows] = skip
        go = rows[skip == HAPPENED]
        if go.size:
            apply_events(state, go)
            battles = mask_of(state.frame.nb, b.event_battle[go])
            refresh(state, battles)
            state_based_actions(state, battles)


def apply_events(state: State, rows: IntArray) -> None:
    """Apply one event in each of some battles (CONTRACT.md section 1)."""
    b = state.combat.batch
    action = b.event_action[rows]
    target = b.event_target[rows]
    code = ACTION_CODE
    enter = action == code["enter"]
    if enter.any():
        t = target[enter]
        state.creatures.writable("entered")
        state.combat.writable_attacking()
        state.creatures.on_bf[t] = True
        state.creatures.entered[t] = True
        # 506.3b-c: it attacks only if the attacking player controls it and the player it
        # would attack is still in the game.
        player = b.event_player[rows[enter]]
        active = state.players.active_of(state.creatures.battle[t])
        attacks = (state.creatures.controller[t] == active) & ~state.players.lost[player]
        state.combat.attacking[t] = np.where(attacks, player, -1)
        state.combat.att[t] = attacks
        state.combat.in_combat[t] = attacks
    damage = action == code["damage"]
    if damage.any():
        deal_event_damage(state, rows[damage], target[damage])
    cast = action == code["cast"]
    if cast.any():
        cast_cards(state, rows[cast])
    creature = ~enter & ~damage & ~cast
    creature &= state.creatures.on_bf[np.where(creature, target, 0)]
    if not creature.any():
        return
    for name in (
        "grant",
        "remove",
        "counters",
        "pump",
        "remove-from-combat",
        "destroy",
    ):
        sel = creature & (action == code[name])
        if sel.any():
            _apply(state, name, rows[sel], target[sel])
    registry = state.frame.schedule.registry
    for i, (name, added) in enumerate(registry.event_actions.items()):
        sel = creature & (action == len(code) + i)
        if sel.any():
            plugin = registry.event_action_plugin[name]
            what = f"event action {name!r} (batched)"
            assert added.apply_batched is not None  # refused when the state began
            call_plugin(plugin, what, added.apply_batched, state.context, target[sel])


def _apply(state: State, action: str, rows: IntArray, t: IntArray) -> None:
    """One kind of event on creatures still on the battlefield."""
    b = state.combat.batch
    frame, c, kw = state.frame, state.creatures, state.keywords
    if action == "grant":
        _grant(frame, kw, b, rows, t)
    elif action == "remove":
        _remove(frame, kw, b, rows, t)
    elif action == "counters":
        if b.event_counters is None:  # no counter changes at all
            return
        change_counters(frame, c, kw, t, b.event_counters[rows])
    elif action == "pump":
        c.writable("power")
        c.writable("toughness")
        c.power[t] += b.event_power[rows]
        c.toughness[t] += b.event_toughness[rows]
    elif action == "remove-from-combat":
        remove_from_combat(state.combat, t)
    elif action == "destroy":
        destroy_rows(state, t)


def _grant(frame: Frame, kw: KeywordRows, b: CombatBatch, rows: IntArray, t: IntArray) -> None:
    """`grant` events (rows of the phase's batch `b`) on their targets `t`."""
    kt = frame.schedule.kt
    kw.base[t] |= b.event_keywords[rows].astype(kt)
    update_own(kw, t)
    given = np.flatnonzero(np.isin(b.event_instance_event, rows))
    if given.size:  # the events' instances, after the rows' earlier ones
        target = b.event_target[b.event_instance_event[given]]
        add_instances(
            kw, target, b.event_instance_keyword[given], b.event_instance_parameter[given]
        )


def _remove(frame: Frame, kw: KeywordRows, b: CombatBatch, rows: IntArray, t: IntArray) -> None:
    """`remove` events (rows of the phase's batch `b`) on their targets `t`."""
    kt = frame.schedule.kt
    kws = b.event_keywords[rows].astype(kt)
    kw.base[t] &= ~kws
    if kw.counter is not None:
        kw.counter[t] &= ~kws
    if kw.removed is None:
        kw.removed = np.zeros(frame.n, kt)
    kw.removed[t] |= kws
    update_own(kw, t)
    if kw.inst_row.size:  # every instance of a removed keyword goes
        gone = np.zeros(frame.n, kt)
        gone[t] = kws
        bits = (np.ones(1, kt) << kw.inst_kw.astype(kt)).astype(kt)
        keep = (gone[kw.inst_row] & bits) == 0
        kw.inst_row = kw.inst_row[keep]
        kw.inst_kw = kw.inst_kw[keep]
        kw.inst_param = kw.inst_param[keep]


def deal_event_damage(state: State, rows: IntArray, target: IntArray) -> None:
    """`damage` events (one in each of some battles): noncombat damage to a player, or to a
    creature still on the battlefield (120.3), less what the ``event-damage`` systems
    prevent."""
    here = (target < 0) | state.creatures.on_bf[np.maximum(target, 0)]
    rows, target = rows[here], target[here]
    amount = state.combat.batch.event_amount[rows].astype(I64)
    if state.frame.schedule.systems["event-damage"]:
        payload = BatchEventDamage(target.copy(), amount.copy())
        run_systems(state.frame, state.context, "event-damage", payload)
        amount = np.clip(np.asarray(payload.amount, I64), 0, amount)
    to_player = target < 0
    if to_player.any():
        np.subtract.at(state.players.life, -1 - target[to_player], amount[to_player])
    creature = ~to_player
    state.creatures.marked[target[creature]] += amount[creature]


def cast_cards(state: State, rows: IntArray) -> None:
    """Cast cards by `cast` events, one in each of some battles."""
    b = state.combat.batch
    tokens = np.full(rows.shape, -1, I64) if b.event_token is None else b.event_token[rows]
    resolve_casts(state, b.event_card[rows], b.event_player[rows], b.event_target[rows], tokens)


def cast_in_main(
    state: State, cards: IntArray, casters: IntArray, targets: IntArray, tokens: IntArray
) -> None:
    """Cast spells during a main phase (``turn.casts``), outside combat, at most one in each
    battle: each resolves (608.2b: an illegal target, such as one a card wants attacking or
    blocking, makes it do nothing), then state-based actions are checked in those battles
    (704.3). Casts in battles whose game is over do nothing.

    Per cast: `cards` an index into ``state.frame.batch.card_names``, `casters` a player row,
    `targets` a creature row or ``-1 - player_row`` (any value for a card that targets
    nothing), `tokens` the row of the creature token it creates (a row that exists from the
    start, not present) or -1. No creature is attacking or blocking then: the caller ends each
    combat phase before the main phase that follows it.
    """
    battle = state.players.battle[casters]
    if np.unique(battle).size != battle.size:
        raise ValueError("cast_in_main casts at most one spell in each battle at a time")
    go = ~state.players.game_over[battle]
    if not go.any():
        return
    resolve_casts(state, cards[go], casters[go], targets[go], tokens[go])
    battles = mask_of(state.frame.nb, battle[go])
    refresh(state, battles)
    state_based_actions(state, battles)


def resolve_casts(
    state: State, cards: IntArray, casters: IntArray, targets: IntArray, tokens: IntArray
) -> None:
    """Spells resolve, one in each of some battles: each checks its target (608.2b), applies
    its effect, and puts the creature token it creates (row `tokens`, or -1) onto the
    battlefield under its caster's control, not in combat. Each card resolves once over all
    its casts; state-based actions are the caller's."""
    b = state.frame.batch
    to_creature = (targets >= 0) & (targets < state.frame.n)
    to_player = (targets < 0) & (targets >= -len(state.players.lost))  # else: no target
    player = np.where(to_player, -1 - targets, 0)
    c = np.flatnonzero(to_creature)  # the casts that target a creature, and their rows
    t = targets[c]
    legal = np.zeros(len(targets), np.bool_)
    legal[c] = state.creatures.on_bf[t]
    if state.keywords.static and legal.any():
        refresh(state, mask_of(state.frame.nb, state.players.battle[casters[legal]]))
    all_cards = [state.frame.schedule.registry.card(name) for name in b.card_names]
    card_colors = [0 if card is None else color_mask(card.colors) for card in all_cards]
    spell_colors = np.asarray(card_colors, I64)[cards[c]]
    sides = RowSide(
        state.frame,
        state.keywords,
        state.creatures,
        t,
        state.creatures.controller[t] != casters[c],
        spell_colors,
    )
    for restriction in state.frame.schedule.registry.restrictions_of("target"):
        legal[c] &= np.asarray(restriction.test(sides), np.bool_)
    attacking = np.zeros(len(targets), np.bool_)
    blocking = np.zeros(len(targets), np.bool_)
    attacking[c], blocking[c] = state.combat.att[t], state.combat.blocking[t]
    for ci in distinct_values(cards):
        card = all_cards[ci]
        assert card is not None  # checked when the state began
        rule = card.target
        this = cards == ci
        if rule.kind == "none":
            ok = this
        else:
            ok = legal & this
            if rule.caster_controls:
                ok[c] &= state.creatures.controller[t] == casters[c]
            if rule.blocking_or_blocked:
                blocked = np.zeros(len(targets), np.bool_)
                blocked[c] = state.combat.blocked[t]
                ok &= blocking | (attacking & blocked)
            elif rule.in_combat:
                ok &= attacking | blocking
            if rule.kind == "any":  # a player is legal while in the game (115.4)
                ok |= this & to_player & ~state.players.lost[player]
        if not ok.any():
            continue
        if card.resolve is not None:
            targets_seen = CardTargets(
                state.frame,
                state.keywords,
                state.creatures,
                state.players,
                targets[ok],
                casters[ok],
                rule.kind,
            )
            card.resolve(targets_seen)
        made = tokens[ok]
        made = made[made >= 0]
        if made.size:
            state.creatures.writable("entered")
            state.creatures.on_bf[made] = True
            state.creatures.entered[made] = True
            state.creatures.token[made] = True


# -- output ---------------------------------------------------------------------------------
