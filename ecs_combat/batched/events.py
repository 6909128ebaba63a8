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
from ecs_combat.batched.arrays import (
    ACTION_CODE,
    IntArray,
)
from ecs_combat.batched.keywords import add_instances, change_counters, refresh, update_own
from ecs_combat.batched.numeric import distinct_values, mask_of
from ecs_combat.batched.results import GAME_ENDED, HAPPENED
from ecs_combat.batched.state import Run
from ecs_combat.batched.views import CardTargets, RowSide
from ecs_combat.errors import call_plugin
from ecs_combat.plugin.definitions import color_mask
from ecs_combat.plugin.payloads import BatchEventDamage

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


def events_at(run: Run, point: int, why: SmallArray) -> None:
    """The events at a point, round by round; state-based actions after each."""
    b = run.batch
    for rows in run.combat.rounds[point]:
        battle = b.event_battle[rows]
        skip = why[battle]
        skip = np.where((skip == HAPPENED) & run.players.game_over[battle], GAME_ENDED, skip)
        run.combat.ev_skip[rows] = skip
        go = rows[skip == HAPPENED]
        if go.size:
            apply_events(run, go)
            battles = mask_of(run.nb, b.event_battle[go])
            refresh(run, battles)
            state_based_actions(run, battles)


def apply_events(run: Run, rows: IntArray) -> None:
    """Apply one event in each of some battles (CONTRACT.md section 1)."""
    b = run.batch
    action = b.event_action[rows]
    target = b.event_target[rows]
    code = ACTION_CODE
    enter = action == code["enter"]
    if enter.any():
        t = target[enter]
        run.creatures.writable("entered")
        run.combat.writable_attacking()
        run.creatures.on_bf[t] = True
        run.creatures.entered[t] = True
        # 506.3b-c: it attacks only if the attacking player controls it and the player it
        # would attack is still in the game.
        player = b.event_player[rows[enter]]
        active = run.players.active_of(run.creatures.battle[t])
        attacks = (run.creatures.controller[t] == active) & ~run.players.lost[player]
        run.combat.attacking[t] = np.where(attacks, player, -1)
        run.combat.att[t] = attacks
        run.combat.in_combat[t] = attacks
    damage = action == code["damage"]
    if damage.any():
        deal_event_damage(run, rows[damage], target[damage])
    cast = action == code["cast"]
    if cast.any():
        cast_cards(run, rows[cast])
    creature = ~enter & ~damage & ~cast
    creature &= run.creatures.on_bf[np.where(creature, target, 0)]
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
            _apply(run, name, rows[sel], target[sel])
    registry = run.schedule.registry
    for i, (name, added) in enumerate(registry.event_actions.items()):
        sel = creature & (action == len(code) + i)
        if sel.any():
            plugin = registry.event_action_plugin[name]
            what = f"event action {name!r} (batched)"
            assert added.apply_batched is not None  # refused when the run began
            call_plugin(plugin, what, added.apply_batched, run.context, target[sel])


def _apply(run: Run, action: str, rows: IntArray, t: IntArray) -> None:
    """One kind of event on creatures still on the battlefield."""
    b = run.batch
    if action == "grant":
        run.keywords.base[t] |= b.event_keywords[rows].astype(run.schedule.kt)
        update_own(run, t)
        given = np.flatnonzero(np.isin(b.event_instance_event, rows))
        if given.size:  # the events' instances, after the rows' earlier ones
            target = b.event_target[b.event_instance_event[given]]
            add_instances(
                run, target, b.event_instance_keyword[given], b.event_instance_parameter[given]
            )
    elif action == "remove":
        kws = b.event_keywords[rows].astype(run.schedule.kt)
        run.keywords.base[t] &= ~kws
        if run.keywords.counter is not None:
            run.keywords.counter[t] &= ~kws
        if run.keywords.removed is None:
            run.keywords.removed = np.zeros(run.n, run.schedule.kt)
        run.keywords.removed[t] |= kws
        update_own(run, t)
        if run.keywords.inst_row.size:  # every instance of a removed keyword goes
            gone = np.zeros(run.n, run.schedule.kt)
            gone[t] = kws
            bits = (
                np.ones(1, run.schedule.kt) << run.keywords.inst_kw.astype(run.schedule.kt)
            ).astype(run.schedule.kt)
            keep = (gone[run.keywords.inst_row] & bits) == 0
            run.keywords.inst_row = run.keywords.inst_row[keep]
            run.keywords.inst_kw = run.keywords.inst_kw[keep]
            run.keywords.inst_param = run.keywords.inst_param[keep]
    elif action == "counters":
        if b.event_counters is None:  # no counter changes at all
            return
        change_counters(run, t, b.event_counters[rows])
    elif action == "pump":
        run.creatures.writable("power")
        run.creatures.writable("toughness")
        run.creatures.power[t] += b.event_power[rows]
        run.creatures.toughness[t] += b.event_toughness[rows]
    elif action == "remove-from-combat":
        remove_from_combat(run, t)
    elif action == "destroy":
        destroy_rows(run, t)


def deal_event_damage(run: Run, rows: IntArray, target: IntArray) -> None:
    """`damage` events (one in each of some battles): noncombat damage to a player, or to a
    creature still on the battlefield (120.3), less what the ``event-damage`` systems
    prevent."""
    here = (target < 0) | run.creatures.on_bf[np.maximum(target, 0)]
    rows, target = rows[here], target[here]
    amount = run.batch.event_amount[rows].astype(I64)
    if run.schedule.systems["event-damage"]:
        payload = BatchEventDamage(target.copy(), amount.copy())
        run_systems(run, "event-damage", payload)
        amount = np.clip(np.asarray(payload.amount, I64), 0, amount)
    to_player = target < 0
    if to_player.any():
        np.subtract.at(run.players.life, -1 - target[to_player], amount[to_player])
    creature = ~to_player
    run.creatures.marked[target[creature]] += amount[creature]


def cast_cards(run: Run, rows: IntArray) -> None:
    """Cast cards by `cast` events, one in each of some battles."""
    b = run.batch
    tokens = np.full(rows.shape, -1, I64) if b.event_token is None else b.event_token[rows]
    resolve_casts(run, b.event_card[rows], b.event_player[rows], b.event_target[rows], tokens)


def cast_in_main(
    run: Run, cards: IntArray, casters: IntArray, targets: IntArray, tokens: IntArray
) -> None:
    """Cast spells during a main phase (``turn.casts``), outside combat, at most one in each
    battle: each resolves (608.2b: an illegal target, such as one a card wants attacking or
    blocking, makes it do nothing), then state-based actions are checked in those battles
    (704.3). Casts in battles whose game is over do nothing.

    Per cast: `cards` an index into ``run.batch.card_names``, `casters` a player row,
    `targets` a creature row or ``-1 - player_row`` (any value for a card that targets
    nothing), `tokens` the row of the creature token it creates (a row that exists from the
    start, not present) or -1. No creature is attacking or blocking then: the caller ends each
    combat phase before the main phase that follows it.
    """
    battle = run.players.battle[casters]
    if np.unique(battle).size != battle.size:
        raise ValueError("cast_in_main casts at most one spell in each battle at a time")
    go = ~run.players.game_over[battle]
    if not go.any():
        return
    resolve_casts(run, cards[go], casters[go], targets[go], tokens[go])
    battles = mask_of(run.nb, battle[go])
    refresh(run, battles)
    state_based_actions(run, battles)


def resolve_casts(
    run: Run, cards: IntArray, casters: IntArray, targets: IntArray, tokens: IntArray
) -> None:
    """Spells resolve, one in each of some battles: each checks its target (608.2b), applies
    its effect, and puts the creature token it creates (row `tokens`, or -1) onto the
    battlefield under its caster's control, not in combat. Each card resolves once over all
    its casts; state-based actions are the caller's."""
    b = run.batch
    to_creature = (targets >= 0) & (targets < run.n)
    to_player = (targets < 0) & (targets >= -len(run.players.lost))  # else: no target
    player = np.where(to_player, -1 - targets, 0)
    c = np.flatnonzero(to_creature)  # the casts that target a creature, and their rows
    t = targets[c]
    legal = np.zeros(len(targets), np.bool_)
    legal[c] = run.creatures.on_bf[t]
    if run.keywords.static and legal.any():
        refresh(run, mask_of(run.nb, run.players.battle[casters[legal]]))
    all_cards = [run.schedule.registry.card(name) for name in b.card_names]
    card_colors = [0 if card is None else color_mask(card.colors) for card in all_cards]
    spell_colors = np.asarray(card_colors, I64)[cards[c]]
    sides = RowSide(run, t, run.creatures.controller[t] != casters[c], spell_colors)
    for restriction in run.schedule.registry.restrictions_of("target"):
        legal[c] &= np.asarray(restriction.test(sides), np.bool_)
    attacking = np.zeros(len(targets), np.bool_)
    blocking = np.zeros(len(targets), np.bool_)
    attacking[c], blocking[c] = run.combat.att[t], run.combat.blocking[t]
    for ci in distinct_values(cards):
        card = all_cards[ci]
        assert card is not None  # checked when the run began
        rule = card.target
        this = cards == ci
        if rule.kind == "none":
            ok = this
        else:
            ok = legal & this
            if rule.caster_controls:
                ok[c] &= run.creatures.controller[t] == casters[c]
            if rule.blocking_or_blocked:
                blocked = np.zeros(len(targets), np.bool_)
                blocked[c] = run.combat.blocked[t]
                ok &= blocking | (attacking & blocked)
            elif rule.in_combat:
                ok &= attacking | blocking
            if rule.kind == "any":  # a player is legal while in the game (115.4)
                ok |= this & to_player & ~run.players.lost[player]
        if not ok.any():
            continue
        if card.resolve is not None:
            card.resolve(CardTargets(run, targets[ok], casters[ok], rule.kind))
        made = tokens[ok]
        made = made[made >= 0]
        if made.size:
            run.creatures.writable("entered")
            run.creatures.on_bf[made] = True
            run.creatures.entered[made] = True
            run.creatures.token[made] = True


# -- output ---------------------------------------------------------------------------------
