"""A SPEC's block of battles drawn, made ready for the kernel and tallied, compiled: the same
random numbers, in the same order, as :meth:`SpecGenerator.draw
<ecs_combat.simulation.generate.SpecGenerator.draw>` takes from the block's generator (numba's
``integers`` and ``random`` are numpy's, bit for bit), and the batch
:func:`~ecs_combat.simulation.assemble.assemble` would build, written into the kernel's own
arrays (:mod:`.spec_player`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ecs_combat.kernel.cache_repair import guard

#: ``cast_kind``: a blocked attacker, an attacker, a blocker (``CAST_TARGETS``).
BLOCKED_ATTACKER, ATTACKER, BLOCKER = 0, 1, 2
#: A drawn 32-bit word's float32 uniform is its top 24 bits.
SHIFT = np.uint32(8)


@njit(cache=True, nogil=True)
def reset(work: Any, fresh: Any, segments: Any, rows: int) -> None:  # pragma: no cover
    """The kernel's state back to its first values: each segment (offset, words, bytes a
    row or 0 for a column copied whole, whether its words are all one) of `work` from
    `fresh`, 8-byte words each, a row column's first `rows` rows only; a segment of one
    word repeated is filled with it, not copied."""
    for s in range(segments.shape[0]):
        offset, size, per_row = segments[s, 0], segments[s, 1], segments[s, 2]
        if per_row:
            size = min(size, (rows * per_row + 7) // 8)
        if segments[s, 3]:
            work[offset : offset + size] = fresh[offset]
        else:
            work[offset : offset + size] = fresh[offset : offset + size]


@njit(cache=True, nogil=True)
def draw_block(
    n: int, n_att: Any, per_att: Any, power_a: Any, power_b: Any, toughness_a: Any,
    toughness_b: Any, words: Any, player_values: Any, kw_limits: Any, kw_bits: Any, chance_limits: Any,
    player_chances: Any, tables: Any, legal: Any, casts: Any, core: Any, attacking: Any,
    keywords: Any, info: Any, starts: Any, blocks: Any, events: Any, drawn: Any,
    player_drawn: Any,
) -> int:  # fmt: skip  # pragma: no cover
    """`n` battles made from their random numbers as :meth:`SpecGenerator.draw` and
    ``assemble`` make them, written as the kernel reads them; their number of creature
    rows, or -1 if they would not fit the arrays.

    The numbers, as drawn: attackers per battle `n_att`, blockers per attacker `per_att`,
    power and toughness per row for an attacker and for a blocker, `words` the 32-bit words
    whose top 24 bits make the float32 uniforms (keyword-major, then chance-major),
    `player_values` [p, 2n] the players' uniforms. `kw_limits` [2, k] and `chance_limits` [2, s]: per side, each
    keyword's and each chance's (creature states, then casts) limit on a word; `kw_bits`
    [2**k] the keyword mask of each set of keywords (bit ``j``: keyword ``j``);
    `player_chances` [p] the players' states'; `tables` [3, 2**k]: per set of keywords,
    whether it may attack, how many blockers it needs, and its matchup code; `legal` [2**k,
    2**k]: whether a blocker with a set may block an attacker with another; `casts` [c, 3]:
    each cast's target kind, kernel part and target rule.

    Written, per creature row: `core` [5] (battle, controller, player attacked or -1,
    power, toughness), `attacking`, `keywords` (masks), `info` [6] (role, keyword set,
    blocks or is blocked, matchup code, scratch, attacker drawn to block); `starts` [3, n +
    1] where each battle's creatures, blocks and events begin; `blocks` [2] (blocker,
    attacker), `events` [4] (target, caster, part, rule); `drawn` [s] the chances drawn,
    `player_drawn` [p, 2n] the players'."""
    total: int = n_att.sum() + per_att.sum()
    if total > core.shape[1]:
        return -1
    battle, role, target = core[0], info[0], info[5]
    r = 0
    a = 0
    for b in range(n):
        starts[0, b] = r
        first = r
        for _ in range(n_att[b]):
            battle[r] = b
            role[r] = 0
            target[r] = -1
            r += 1
        for j in range(n_att[b]):
            for _ in range(per_att[a + j]):
                battle[r] = b
                role[r] = 1
                target[r] = first + j
                r += 1
        a += n_att[b]
    starts[0, n] = total
    for i in range(total):
        blocker = role[i] == 1
        core[3, i] = power_b[i] if blocker else power_a[i]
        core[4, i] = toughness_b[i] if blocker else toughness_a[i]
    _keywords(total, words, kw_limits, kw_bits, chance_limits, tables, info, keywords, drawn)
    for key in range(player_chances.shape[0]):
        for x in range(2 * n):
            player_drawn[key, x] = player_values[key, x] < player_chances[key]
    _blocks(n, n_att, total, tables, legal, core, attacking, info, starts, blocks)
    _casts(n, casts, core, attacking, info, starts, events, drawn, drawn.shape[0] - casts.shape[0])
    return total


@njit(inline="always")
def _keywords(
    total: int, words: Any, kw_limits: Any, kw_bits: Any, chance_limits: Any, tables: Any,
    info: Any, keywords: Any, drawn: Any,
) -> None:  # fmt: skip  # pragma: no cover
    """Each row's keywords (its set, mask and matchup code) and chances, as drawn: a word's
    top 24 bits below its side's limit (:mod:`ecs_combat.simulation.float_words`)."""
    k = kw_limits.shape[1]
    role, sets, codes = info[0], info[1], info[3]
    for i in range(total):
        sets[i] = 0
    for j in range(k):  # a keyword at a time: each word read in order, no branch
        limit_a, limit_b = kw_limits[0, j], kw_limits[1, j]
        row = words[j * total : (j + 1) * total]
        for i in range(total):
            limit = limit_b if role[i] else limit_a
            sets[i] |= np.int64(row[i] >> SHIFT < limit) << j
    for i in range(total):
        keywords[i] = kw_bits[sets[i]]
        codes[i] = tables[2, sets[i]]
    for j in range(chance_limits.shape[1]):
        limit_a, limit_b = chance_limits[0, j], chance_limits[1, j]
        row = words[(k + j) * total : (k + j + 1) * total]
        for i in range(total):
            drawn[j, i] = row[i] >> SHIFT < (limit_b if role[i] else limit_a)


@njit(inline="always")
def _blocks(
    n: int, n_att: Any, total: int, tables: Any, legal: Any, core: Any, attacking: Any,
    info: Any, starts: Any, blocks: Any,
) -> None:  # fmt: skip  # pragma: no cover
    """Who attacks and the blocks the rules allow, as ``assemble`` finds them: each drawn
    blocker that may block its attacker, which attacks; an attacker left with fewer blockers
    than it needs (702.111b) is unblocked."""
    battle, controller, attacked = core[0], core[1], core[2]
    role, sets, marked, target, count = info[0], info[1], info[2], info[5], info[4]
    may_attack, needed = tables[0], tables[1]
    for i in range(total):
        controller[i] = 2 * battle[i] + role[i]
        attacking[i] = role[i] == 0 and may_attack[sets[i]] != 0
        attacked[i] = controller[i] + 1 if attacking[i] else -1
        count[i] = 0
        marked[i] = 0
    for i in range(total):  # legal alone first, counted per attacker
        t = target[i]
        if t >= 0:
            legal_here = attacking[t] & legal[sets[t], sets[i]]
            marked[i] = legal_here
            count[t] += legal_here
    q = 0
    for b in range(n):  # each drawn blocker's block written, kept if it stands (no branch)
        starts[1, b] = q
        for i in range(starts[0, b] + n_att[b], starts[0, b + 1]):
            t = target[i]
            need = needed[sets[t]]
            blocks[0, q] = i
            blocks[1, q] = t
            q += (marked[i] == 1) & ((need <= 1) | (count[t] >= need))
    starts[1, n] = q
    for i in range(total):  # from now on: whether it blocks or is blocked
        marked[i] = 0
    for x in range(q):
        marked[blocks[0, x]] = 1
        marked[blocks[1, x]] = 1


@njit(inline="always")
def _casts(
    n: int, casts: Any, core: Any, attacking: Any, info: Any, starts: Any, events: Any,
    drawn: Any, states: int,
) -> None:  # fmt: skip  # pragma: no cover
    """The cards cast as blockers are declared, as ``assemble`` lists them: by target row,
    then in ``[[casts]]`` order."""
    controller, role, marked = core[1], info[0], info[2]
    e = 0
    for b in range(n):  # each row's event written, kept if drawn and eligible (no branch)
        starts[2, b] = e
        for i in range(starts[0, b], starts[0, b + 1]):
            engaged = marked[i] == 1
            for c in range(casts.shape[0]):
                kind = casts[c, 0]
                if kind == BLOCKED_ATTACKER:
                    eligible = attacking[i] & engaged
                elif kind == ATTACKER:
                    eligible = attacking[i]
                else:
                    eligible = (role[i] == 1) & engaged
                events[0, e] = i
                events[1, e] = controller[i]
                events[2, e] = casts[c, 1]
                events[3, e] = casts[c, 2]
                e += drawn[states + c, i] & eligible
    starts[2, n] = e


@njit(cache=True, nogil=True)
def tally_block(
    lo: int, hi: int, rows: Any, role: Any, codes_of: Any, alive: Any, to_players: Any,
    codes: int, counts: Any,
) -> None:  # fmt: skip  # pragma: no cover
    """Battles `lo` to `hi - 1` added to `counts` [codes * codes + 1, 8]: per (attacker
    code, blocker code) the summary's columns (battles, attacker wins, blocker wins, trades,
    neither dies, damage to players, attackers died, blockers died); the last row's first
    column counts their creatures. `codes_of` [rows]: each row's matchup code."""
    for b in range(lo, hi):
        attacker_died = 0
        blocker_died = 0
        attacker_code = 0
        blocker_code = 0
        for i in range(rows[b], rows[b + 1]):
            if role[i] == 0:
                attacker_code |= codes_of[i]
                attacker_died += 0 if alive[i] else 1
            else:
                blocker_code |= codes_of[i]
                blocker_died += 0 if alive[i] else 1
        key = attacker_code * codes + blocker_code
        counts[key, 0] += 1
        if attacker_died:
            counts[key, 3 if blocker_died else 2] += 1
        else:
            counts[key, 1 if blocker_died else 4] += 1
        counts[key, 5] += to_players[b]
        counts[key, 6] += attacker_died
        counts[key, 7] += blocker_died
        counts[counts.shape[0] - 1, 0] += rows[b + 1] - rows[b]


for _function in (reset, draw_block, tally_block):  # a damaged cache entry never fails a run
    guard(_function)
