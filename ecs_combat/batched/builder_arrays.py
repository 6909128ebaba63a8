"""A :class:`~ecs_combat.batched.builder.BatchBuilder`'s rows, collected as Python
lists, made into the arrays of one :class:`CombatBatch`: the creatures and players, and the
combat (attackers, blocks, divisions, events)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import CombatBatch

if TYPE_CHECKING:
    from ecs_combat.batched.builder import BatchBuilder


def built_batch(builder: BatchBuilder, n_battles: int) -> CombatBatch:
    """The batch of the rows a builder collected: `n_battles` battles, its lists made arrays."""
    i64 = np.int64
    k = len(builder.counter_names)
    counters = _counter_table(builder.counters, len(builder.battle), k)
    inst = np.asarray(builder.instances, i64).reshape(-1, 3)
    aims = np.asarray(builder.aims, i64).reshape(-1, 4)
    made = np.asarray(sorted(builder.tokens), i64).reshape(-1, 3)
    return CombatBatch(
        n_battles=n_battles,
        keyword_names=builder.names,
        player_battle=np.asarray(builder.player_battle, i64),
        life=np.asarray(builder.life, i64),
        battle=np.asarray(builder.battle, i64),
        controller=np.asarray(builder.controller, i64),
        power=np.asarray(builder.power, i64),
        toughness=np.asarray(builder.toughness, i64),
        damage=np.asarray(builder.damage, i64),
        keywords=np.asarray(builder.keywords, np.uint64),
        colors=np.asarray(builder.colors, i64),
        types=np.asarray(builder.types, i64),
        player_lands=np.asarray(builder.lands, i64),
        present=np.asarray(builder.present, np.bool_),
        tapped=np.asarray(builder.tapped, np.bool_) if any(builder.tapped) else None,
        counters=counters,
        counter_names=builder.counter_names,
        creature_state={
            k: np.asarray(v, np.bool_ if builder.creature_fields[k].kind == "bool" else i64)
            for k, v in builder.creature_state.items()
        },
        player_state={
            k: np.asarray(v, np.bool_ if builder.player_fields[k].kind == "bool" else i64)
            for k, v in builder.player_state.items()
        },
        instance_row=inst[:, 0].copy(),
        instance_keyword=inst[:, 1].copy(),
        instance_parameter=inst[:, 2].copy(),
        target_source=aims[:, 0].copy(),
        target_keyword=aims[:, 1].copy(),
        target_instance=aims[:, 2].copy(),
        target_row=aims[:, 3].copy(),
        token_key=made[:, 0] * len(builder.player_battle) + made[:, 1],
        token_row=made[:, 2].copy(),
        creature_ids=builder.creature_ids,
        creature_names=builder.creature_names,
        player_ids=builder.player_ids,
        battle_files=builder.files,
        **combat_arrays(builder, len(builder.battle)),
    )


def combat_arrays(builder: BatchBuilder, n_rows: int) -> dict[str, Any]:
    """The combat's fields of a :class:`CombatBatch` (attackers, blocks, divisions,
    events) for `n_rows` creature rows."""
    i64 = np.int64
    k = len(builder.counter_names)
    attacking = builder.attacking + [-1] * (n_rows - len(builder.attacking))
    ev = np.asarray(builder.ev, i64).reshape(-1, 10)
    event_counters = _counter_table(builder.ev_counters, len(builder.ev), k)
    div = np.asarray(builder.div, i64).reshape(-1, 5)
    ev_inst = np.asarray(builder.ev_instances, i64).reshape(-1, 3)
    chosen = np.asarray(builder.sacrifices, i64).reshape(-1, 2)
    band = None
    if builder.band:
        band = np.full(n_rows, -1, i64)
        pairs = np.asarray(builder.band, i64)
        band[pairs[:, 0]] = pairs[:, 1]
    values = np.asarray(builder.values, i64).reshape(-1, 2)
    return dict(
        sacrifice_player=chosen[:, 0].copy(),
        sacrifice_row=chosen[:, 1].copy(),
        value_row=values[:, 0].copy(),
        value=values[:, 1].copy(),
        attacking=np.asarray(attacking, i64),
        band=band,
        block_blocker=np.asarray(builder.block_blocker, i64),
        block_attacker=np.asarray(builder.block_attacker, i64),
        block_rank=np.asarray(builder.block_rank, i64),
        event_instance_event=ev_inst[:, 0].copy(),
        event_instance_keyword=ev_inst[:, 1].copy(),
        event_instance_parameter=ev_inst[:, 2].copy(),
        division_step=div[:, 0].copy(),
        division_source=div[:, 1].copy(),
        division_recipient=div[:, 2].copy(),
        division_amount=div[:, 3].copy(),
        division_index=div[:, 4].copy(),
        event_battle=ev[:, 0].copy(),
        event_point=ev[:, 1].copy(),
        event_action=ev[:, 2].copy(),
        event_target=ev[:, 3].copy(),
        event_keywords=np.asarray(builder.ev_keywords, np.uint64),
        event_counters=event_counters,
        event_power=ev[:, 4].copy(),
        event_toughness=ev[:, 5].copy(),
        event_amount=ev[:, 6].copy(),
        event_player=ev[:, 7].copy(),
        event_card=ev[:, 8].copy(),
        event_index=ev[:, 9].copy(),
        card_names=builder.cards,
        event_token=(
            np.asarray(builder.ev_tokens, i64) if any(t >= 0 for t in builder.ev_tokens) else None
        ),
    )


def _counter_table(
    counts: list[tuple[int, int, int]], rows: int, kinds: int
) -> npt.NDArray[np.int64] | None:
    """A [rows, kinds] table of the (row, kind, count) entries collected; None for none."""
    if not counts:
        return None
    table = np.zeros((rows, kinds), np.int64)
    for row, col, n in counts:
        table[row, col] = n
    return table
