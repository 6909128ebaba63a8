"""The arrays of a batch's attack and block triggers for the kernel (the template's
``Triggers``): the keyword instances with their numbers, room to note each battle's
triggers, the kernel's trigger parts; and when a batch's keyword parameters, or the targets
its triggers choose, keep it out."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from ecs_combat.batched.arrays import CombatBatch, IntArray
from ecs_combat.kernel.arrays import AnyArray, fixed, starts
from ecs_combat.kernel.generate import KernelSource, trigger_table
from ecs_combat.plugin.kernels import TRIGGER_EVENTS
from ecs_combat.plugin.registry import Registry

I64 = np.int64
U64 = np.uint64


def triggering(source: KernelSource, bit: dict[str, int]) -> int:
    """The bits of the keywords trigger parts read the instances of."""
    out = 0
    for p in source.parts:
        if p.part.point in TRIGGER_EVENTS:
            for kw in p.keywords:
                out |= bit.get(kw, 0)
    return out


def choosing(source: KernelSource, registry: Registry, bit: dict[str, int]) -> tuple[int, int, int]:
    """The bits of the keywords whose trigger parts choose a target (`choose`): those
    that target an attacking creature, the others; and of those with a target restriction."""
    restricted = sum(bit.get(r.keyword, 0) for r in registry.restrictions_of("target"))
    attackers = others = 0
    for p in source.parts:
        if p.part.choose is not None:
            for kw in p.keywords:
                keyword = registry.keywords.get(kw)
                if keyword is not None and keyword.target == "attacking creature":
                    attackers |= bit.get(kw, 0)
                else:
                    others |= bit.get(kw, 0)
    return attackers, others, restricted


def trigger_refusal(b: CombatBatch, read: int, targets: tuple[int, int, int]) -> str:
    """Why the kernel can't resolve a batch's keyword parameters (`read`: the bits of
    those parts read) or the targets its triggers choose (:func:`choosing`), or ``""``."""
    if b.instance_row.size and bool((b.instance_parameter >= 0).any()):
        why = parameter_refusal(b, read)
        if why:
            return why
    attackers, others, restricted = targets
    if restricted and (attackers or others):
        return target_refusal(b, attackers, others, restricted)
    return ""


def target_refusal(b: CombatBatch, attackers: int, others: int, restricted: int) -> str:
    """Why the kernel can't resolve the targets trigger parts choose, or ``""``: a
    creature they could target (an attacker, for `attackers`' keywords) in the battle of
    an attacker with one of those keywords has a keyword with a target restriction
    (`restricted`), which the kernel does not ask."""
    kw = np.asarray(b.keywords, U64)
    battle = np.asarray(b.battle, I64)
    attacking = np.asarray(b.attacking) >= 0
    guarded = (kw & U64(restricted)) != 0
    for bits, among in ((attackers, attacking), (others, np.ones(len(kw), np.bool_))):
        choosers = attacking & ((kw & U64(bits)) != 0)
        if bits and bool(choosers.any()):
            there = np.zeros(b.n_battles, np.bool_)
            there[battle[choosers]] = True
            if bool((guarded & among & there[battle]).any()):
                return "a target a trigger chooses may have a target restriction"
    return ""


def parameter_refusal(b: CombatBatch, triggering: int) -> str:
    """Why the kernel can't resolve a batch's keyword parameters, or ``""``: only trigger
    parts read them (bushido 2); other parts see none."""
    given = np.asarray(b.instance_keyword)[np.asarray(b.instance_parameter) >= 0]
    read = (np.left_shift(np.uint64(1), given.astype(U64)) & U64(triggering)) != 0
    if not bool(read.all()):
        return "the batch has keyword instances with parameters"
    return ""


def trigger_room(
    source: KernelSource, b: CombatBatch, ba: IntArray, guards: AnyArray, triggering: int
) -> tuple[IntArray, int]:
    """Where each battle's triggers are noted ([battles + 1]), and the scratch they take:
    per trigger part whose keyword the batch has (its `guards` bits among `triggering`), at most one per instance
    of each creature (a creature without listed instances has one) and one per instance of
    each block's attacker."""
    n, nb = b.n_creatures, b.n_battles
    parts = triggering and sum(
        p.part.point in TRIGGER_EVENTS and bool(int(guards[i]) & triggering)
        for i, p in enumerate(source.parts)
    )
    start = np.zeros(nb + 1, I64)
    if not parts:
        return start, 0
    each = np.maximum(np.bincount(np.asarray(b.instance_row, I64), minlength=n), 1)
    battle = np.asarray(b.battle, I64)
    room = np.bincount(battle, each, minlength=nb).astype(I64)
    if len(ba):
        room += np.bincount(battle[ba], each[ba], minlength=nb).astype(I64)
    np.cumsum(room * parts, out=start[1:])
    size = int(start[-1])
    return start, 6 * size + n


def trigger_columns(
    m: ModuleType, source: KernelSource, b: CombatBatch, start: IntArray, work: AnyArray
) -> Any:
    """The kernel's `tg` (template ``Triggers``): the batch's keyword instances by row,
    where each battle's triggers are noted (`start`), their scratch (`work`), and the
    kernel's trigger parts."""
    size = int(start[-1])
    ins = np.asarray(b.instance_keyword, I64)
    table = np.array(trigger_table(source.parts), I64).reshape(-1, 4)
    return m.Triggers(
        fixed(starts(np.asarray(b.instance_row, I64), b.n_creatures), I64),
        fixed(np.left_shift(np.ones(len(ins), U64), ins.astype(U64)), U64),
        fixed(b.instance_parameter, I64),
        fixed(start, I64),
        *(work[i * size : (i + 1) * size] for i in range(6)),
        work[6 * size :],
        *(fixed(table[:, i], I64) for i in range(3)),
        fixed(table[:, 3], np.bool_),
        fixed([0], U64),  # the plan's: set by the caller
    )
