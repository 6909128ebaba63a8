"""The common lines of a JSON Lines file (:class:`~ecs_combat.scenario.quick_rows.LineRows`) as
one :class:`CombatBatch`, column by column: the batch ``scenarios_to_batch`` makes of the same
lines' scenarios, without a scenario for each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.batched.builder import keyword_bits
from ecs_combat.plugin.definitions import FROM_WORDS
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.usage import with_required
from ecs_combat.scenario.quick_rows import Keywords, LineRows, state_defaults

I64 = np.int64
IntArray = npt.NDArray[np.int64]


def rows_to_batch(rows: LineRows, registry: Registry, files: Sequence[str]) -> CombatBatch:
    """One batch holding the lines of `rows`, battle i being the i-th, read from ``files[i]``
    (``FILE:LINE``)."""
    used = {name for k in set(rows.keywords) if k is not None for name in k[0]}
    names = with_required(registry, used)
    bits = keyword_bits(names)  # refuses more keywords than the masks hold
    index = {name: b.bit_length() - 1 for name, b in bits.items()}
    n_creatures = len(rows.battle)
    listed = [k for k in set(rows.keywords) if k is not None]
    code = np.fromiter(
        map(({None: -1} | {k: i for i, k in enumerate(listed)}).__getitem__, rows.keywords),
        I64,
        n_creatures,
    )
    each = [[(index[n], _parameter(p)) for n, p in zip(*k, strict=True)] for k in listed]
    inst = _instances(code, each)
    masks = np.array([*(_mask(k, bits) for k in listed), 0], np.uint64)  # -1: none
    empty = np.zeros(0, I64)
    # the fields left out (events, divisions, targets, counters) take CombatBatch's defaults:
    # none; the two indices are empty arrays, as scenarios_to_batch gives them
    return CombatBatch(
        n_battles=rows.n_battles,
        keyword_names=names,
        player_battle=rows.player_battle,
        life=rows.life,
        battle=rows.battle,
        controller=rows.controller,
        power=rows.power,
        toughness=rows.toughness,
        damage=rows.damage,
        keywords=masks[code],
        colors=rows.colors,
        types=rows.types,
        player_lands=np.zeros(len(rows.player_battle), I64),
        present=np.ones(n_creatures, np.bool_),
        counter_names=(*names, *registry.counter_kinds),
        creature_state=_state(registry, "creature", n_creatures),
        player_state=_state(registry, "player", len(rows.player_battle)),
        instance_row=inst[:, 0].copy(),
        instance_keyword=inst[:, 1].copy(),
        instance_parameter=inst[:, 2].copy(),
        creature_ids=rows.creature_ids,
        creature_names=rows.creature_names,
        player_ids=rows.player_ids,
        battle_files=files,
        attacking=rows.attacking,
        block_blocker=rows.block_blocker,
        block_attacker=rows.block_attacker,
        block_rank=np.zeros(len(rows.block_blocker), I64),
        division_index=empty.copy(),
        event_index=empty.copy(),
        card_names=tuple(card.name for card in registry.spells()),
        value_row=np.array(sorted(rows.values), I64),
        value=np.array([rows.values[r] for r in sorted(rows.values)], I64),
    )


def _instances(code: IntArray, listed: list[list[tuple[int, int]]]) -> IntArray:
    """The keyword instances of creatures whose keyword lists are `code` (-1 for none) among
    `listed` (each a list of keyword indices and parameters), as rows of (creature row,
    keyword, parameter) by creature row, each creature's in its list's order."""
    count = np.array([len(k) for k in listed] + [0], I64)  # -1: none
    flat = np.array([i for k in listed for i in k], I64).reshape(-1, 2)
    first = np.cumsum(count) - count
    with_some = np.flatnonzero(count[code])
    each = count[code[with_some]]
    row = np.repeat(with_some, each)
    within = np.arange(len(row)) - np.repeat(np.cumsum(each) - each, each)
    at = first[code[row]] + within
    return np.stack([row, flat[at, 0], flat[at, 1]], axis=1) if len(row) else np.zeros((0, 3), I64)


def _mask(k: Keywords, bits: dict[str, int]) -> int:
    out = 0
    for name in k[0]:
        out |= bits[name]
    return out


def _parameter(p: Any) -> int:
    """A keyword instance's parameter as the batch codes it."""
    return -1 if p is None else FROM_WORDS.index(p) if isinstance(p, str) else int(p)


def _state(registry: Registry, owner: str, n: int) -> dict[str, Any]:
    """The plugins' state of `n` rows given nothing: the defaults (a creature reference: -1)."""
    fields = registry.state_fields(owner)
    return {
        key: np.full(n, -1 if value is None else value, np.bool_ if f.kind == "bool" else I64)
        for (key, value), f in zip(
            state_defaults(registry, owner).items(), fields.values(), strict=True
        )
    }
