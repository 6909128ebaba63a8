"""The creatures' keywords, keyword instances and counters in a run, and what changes power
and toughness: who has a keyword now, static abilities' keywords (refresh), counters given
and removed."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import BoolArray, IntArray
from ecs_combat.batched.keyword_rows import Counts, KeywordRows
from ecs_combat.batched.numeric import bits_of, distinct_values, rows_of_battles
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, State
from ecs_combat.errors import RefusedError
from ecs_combat.plugin.definitions import normalize_keyword

I64 = np.int64
#: Flags of one keyword are read from byte planes of the keywords once this many flags were
#: made from every row's keywords in a run (making the planes costs about five of them).
PLANES_AFTER = 4
#: Where instances no keyword list names (counters', static abilities') sort among a row's.
UNLISTED = 1 << 30
AnyArray = npt.NDArray[Any]


def flags(frame: Frame, kw: KeywordRows, mask: int) -> BoolArray:
    """Whether each creature has any keyword of `mask` now. Read-only: it is cached until
    keywords change, and then made again from a copy for the rows that changed only."""
    found = kw.flags.get(mask)
    seen = len(kw.changed)
    if found is not None and found[1] == seen:
        return found[0]
    bits = frame.schedule.kt(mask)
    out: BoolArray
    if found is None:
        kw.made += 1
        one = mask > 0 and mask & (mask - 1) == 0
        if one and kw.made > PLANES_AFTER and kw.cur.flags.c_contiguous:
            byte, value = divmod(mask.bit_length() - 1, 8)  # one keyword: one byte plane
            plane = _planes(kw, byte)
            out = np.not_equal(plane & np.uint8(1 << value), 0)
        else:
            out = ((kw.cur & bits) != 0) if mask else np.zeros(frame.n, np.bool_)
    else:
        out = found[0].copy()
        rows = np.concatenate(kw.changed[found[1] :])
        out[rows] = (kw.cur[rows] & bits) != 0
    out.flags.writeable = False
    kw.flags[mask] = (out, seen)
    return out


def _planes(kw: KeywordRows, byte: int) -> npt.NDArray[np.uint8]:
    """Byte `byte` (0: bits 0-7) of every row's current keywords, contiguous: a test of one
    bit there reads an eighth of what ``cur & bit`` reads. The planes are made once (a
    transpose of `cur`'s bytes) and patched for the rows whose keywords changed since."""
    size = kw.cur.dtype.itemsize
    seen = len(kw.changed)
    if kw.planes is None:
        kw.planes = np.ascontiguousarray(kw.cur.view(np.uint8).reshape(-1, size).T)
    elif kw.planes_seen < seen:
        rows = np.concatenate(kw.changed[kw.planes_seen :])
        kw.planes[:, rows] = kw.cur[rows].view(np.uint8).reshape(-1, size).T
    kw.planes_seen = seen
    plane: npt.NDArray[np.uint8] = kw.planes[byte if sys.byteorder == "little" else size - 1 - byte]
    return plane


def has(frame: Frame, kw: KeywordRows, keyword: str) -> BoolArray:
    """Row mask (read-only): creatures that have a keyword now."""
    bit = frame.schedule.masks.bit.get(normalize_keyword(keyword))
    if bit is None:
        return np.zeros(frame.n, np.bool_)
    view = flags(frame, kw, bit).view()
    view.flags.writeable = False
    return view


def forget_flags(kw: KeywordRows, rows: IntArray | None = None) -> None:
    """Forget the cached keyword flags after keywords changed (of some rows, or of any)."""
    kept = kw.flags or kw.planes is not None
    if rows is not None and kept and kw.changed_rows + len(rows) <= len(kw.base) // 8:
        kw.changed.append(np.array(rows, np.int64))  # patched there when next asked for
        kw.changed_rows += len(rows)
        return
    kw.flags.clear()
    kw.changed.clear()
    kw.changed_rows = 0
    kw.planes = None


class StaticView:
    """:class:`ecs_combat.plugin.views.BatchView` of a run, for static-keyword hooks (it
    reads the creatures, their own keywords and the blocks)."""

    def __init__(
        self, frame: Frame, creatures: CreatureRows, kw: KeywordRows, combat: CombatRows
    ) -> None:
        self.frame, self.creatures, self.kw, self.combat = frame, creatures, kw, combat

    def has(self, keyword: str) -> BoolArray:
        """Creatures on the battlefield whose own keywords include `keyword`."""
        schedule = self.frame.schedule
        bit = schedule.masks.bit.get(normalize_keyword(keyword))
        if bit is None:
            return np.zeros(self.frame.n, np.bool_)
        out: BoolArray = self.creatures.on_bf & ((self.kw.own & schedule.kt(bit)) != 0)
        return out

    def name_keys(self) -> list[str]:
        """Each row's creature name."""
        return names(self.frame, self.creatures)

    def block_pairs(self) -> tuple[IntArray, IntArray]:
        """(blocker rows, attacker rows) of every block still in effect."""
        c = self.combat
        if not c.blocks_declared or not c.nblocks:
            empty = np.zeros(0, I64)
            return empty, empty
        in_effect = c.blocking[c.bb] & c.att[c.ba]
        return c.bb[in_effect], c.ba[in_effect]

    @property
    def rows(self) -> int:
        """The number of creature rows."""
        return self.frame.n


def names(frame: Frame, creatures: CreatureRows) -> list[str]:
    """Each row's creature name (its id if the batch has no names), kept once made."""
    if creatures.names is None:
        b = frame.batch
        found = b.creature_names if b.creature_names is not None else b.creature_ids
        if found is None:
            raise RefusedError("a plugin compares creature names, and the batch has none")
        creatures.names = list(found)
    return creatures.names


def refresh(state: State, battles: BoolArray | None) -> None:
    """Recompute the keywords creatures have (own plus static) in some battles: the
    plugins' static-keyword hooks run."""
    frame = state.frame
    s = frame.schedule
    if s.static_hook is None:
        return  # `cur` is `own`
    kw = state.keywords
    given = np.zeros(frame.n, s.kt)
    view = StaticView(frame, state.creatures, kw, state.combat)
    for result in s.static_hook(batch=view):
        for keyword, rows in result.items():
            name = normalize_keyword(keyword)
            bit = s.masks.bit.get(name)
            if bit is None:
                if name in s.registry.keywords:
                    raise RefusedError(f"a static ability gives {name!r}, which has no bit")
                continue
            given[np.asarray(rows, dtype=np.bool_)] |= s.kt(bit)
    now = kw.own | (given if kw.removed is None else given & ~kw.removed)
    rows_mask = rows_of_battles(battles, state.creatures.battle, frame.per_battle)
    if rows_mask is None:
        kw.cur[:] = now
    else:
        np.copyto(kw.cur, now, where=rows_mask)
    forget_flags(kw)


def counters_begin(frame: Frame, kw: KeywordRows) -> None:
    """Give keyword counters their own mask: own keywords are no longer the printed and
    granted ones alone."""
    kw.counter = np.zeros(frame.n, frame.schedule.kt)
    kw.own = kw.base.copy()
    if not kw.static:
        kw.cur = kw.own


def update_own(kw: KeywordRows, rows: IntArray) -> None:
    """Recompute own keywords (printed, granted, counters) of some rows."""
    if kw.counter is not None:
        kw.own[rows] = kw.base[rows] | kw.counter[rows]
    if not kw.static:  # `cur` is `own`
        forget_flags(kw, rows)


def grant(kw: KeywordRows, rows: IntArray, bits: Any) -> None:
    """Some rows gain keywords (bits, one mask for all or one per row)."""
    kw.base[rows] |= bits
    update_own(kw, rows)


def pump(c: CreatureRows, rows: IntArray, power: IntArray | int, toughness: IntArray | int) -> None:
    """+power/+toughness until end of turn for some rows; nothing for rows that have left
    the battlefield (400.7: the effect can't find them)."""
    here = c.on_bf[rows]
    if not here.all():
        rows = rows[here]
        power = kept(power, here)
        toughness = kept(toughness, here)
    c.writable("power")
    c.writable("toughness")
    c.power[rows] += power
    c.toughness[rows] += toughness


def kept(values: IntArray | int, keep: BoolArray) -> IntArray | int:
    """Per-row values (or one for all) for the rows a mask keeps."""
    if isinstance(values, int) or np.ndim(values) == 0:
        return values
    out: IntArray = np.asarray(values)[keep]
    return out


def change_counters(
    frame: Frame, c: CreatureRows, kw: KeywordRows, t: IntArray, change: IntArray
) -> None:
    """Change counters of rows `t` (distinct) by `change` [len(t), counter columns]: a
    count never goes below 0; keyword counters give their keyword (122.1b); the others
    change power and toughness while on the creature (122.1a)."""
    cols = np.flatnonzero((change != 0).any(axis=0)).tolist()  # the kinds that change
    _change_kinds(frame, c, kw, t, {j: change[:, j] for j in cols})


def _change_kinds(
    frame: Frame, c: CreatureRows, kw: KeywordRows, t: IntArray, changes: dict[int, IntArray]
) -> None:
    """:func:`change_counters` by the kinds that change (ascending), a column each."""
    if kw.counts is None:
        kw.counts = Counts(frame.n, len(frame.batch.counter_names))
    if kw.counter is None:
        counters_begin(frame, kw)
    assert kw.counter is not None
    kt = frame.schedule.kt
    k = len(frame.schedule.masks.names)
    dealt: dict[int, IntArray] = {}  # how much each kind changed, as counts never go below 0
    for j, by in changes.items():
        col = kw.counts.writable(j)
        before = col[t]
        after = np.maximum(before + by, 0)
        col[t] = after
        dealt[j] = after - before
    if any(j < k for j in changes):  # keyword counters (122.1b): the rows' keywords again
        gained = np.zeros(len(t), np.uint64)
        for j, by in changes.items():
            if j < k:
                gained |= (by > 0).astype(np.uint64) << np.uint64(j)
        gained = gained.astype(kt)
        if gained.size:
            kw.counter_bits |= int(np.bitwise_or.reduce(gained))
        still = bits_of(kw.counts.at(t, k) > 0).astype(kt)
        kw.counter[t] = (kw.counter[t] | gained) & still
        update_own(kw, t)
    if len(kw.counter_pt) > k and any(j >= k for j in changes):
        power, toughness = np.zeros(len(t), I64), np.zeros(len(t), I64)
        for j, by in dealt.items():
            gives_power, gives_toughness = kw.counter_pt[j].tolist()
            if gives_power:
                power += by * gives_power
            if gives_toughness:
                toughness += by * gives_toughness
        if power.any() or toughness.any():
            pump(c, t, power, toughness)


def counter(frame: Frame, kw: KeywordRows, kind: str) -> IntArray:
    """Each row's count of a kind of counter (read-only)."""
    counter_names = frame.batch.counter_names
    found = None
    if kw.counts is not None and kind in counter_names:
        found = kw.counts.column(counter_names.index(kind))
    if found is None:
        if kw.no_counters is None:  # one column of zeros, read-only, for every kind
            kw.no_counters = np.zeros(frame.n, I64)
            kw.no_counters.flags.writeable = False
        return kw.no_counters
    return found


def has_counters(frame: Frame, kw: KeywordRows, kind: str) -> bool:
    """Whether any row may have counters of a kind (no row has any until counters of the kind
    are put on a creature of the batch)."""
    counts, names = kw.counts, frame.batch.counter_names
    return counts is not None and kind in names and counts.column(names.index(kind)) is not None


def add_counters(
    frame: Frame,
    c: CreatureRows,
    kw: KeywordRows,
    rows: IntArray,
    kind: str,
    change: IntArray | int,
) -> None:
    """Put (positive) or remove (negative) counters of a kind on some rows (once each)."""
    counter_names = frame.batch.counter_names
    if kind not in counter_names:
        raise RefusedError(f"counters of kind {kind!r} have no column in the batch")
    by = np.zeros(len(rows), I64)
    by[:] = change
    if by.any():
        _change_kinds(frame, c, kw, rows, {counter_names.index(kind): by})
    else:  # nothing changes: as change_counters does with no change
        change_counters(frame, c, kw, rows, np.zeros((len(rows), 0), I64))


def add_instances(kw: KeywordRows, rows: IntArray, keywords: IntArray, params: IntArray) -> None:
    """Add keyword instances after each row's earlier ones."""
    row = np.concatenate([kw.inst_row, rows])
    order = np.argsort(row, kind="stable")
    kw.inst_row = row[order]
    kw.inst_kw = np.concatenate([kw.inst_kw, keywords])[order]
    kw.inst_param = np.concatenate([kw.inst_param, params])[order]


def instances(frame: Frame, kw: KeywordRows, keyword: str) -> tuple[IntArray, IntArray]:
    """(rows, parameters) of the instances of a keyword creatures have now, in row order
    then printed, granted, counter order; a parameter is a number, a color index
    (``COLORS``) or -1. A keyword a row has with no listed instance (a static ability's,
    or a bulk simulation's one bit) counts once, with -1."""
    bit = frame.schedule.masks.bit.get(normalize_keyword(keyword))
    if bit is None:
        return np.zeros(0, I64), np.zeros(0, I64)
    kt = frame.schedule.kt
    index = bit.bit_length() - 1
    sel = np.flatnonzero(kw.inst_kw == index)
    rows, params = kw.inst_row[sel], kw.inst_param[sel]
    listed = np.zeros(frame.n, np.bool_)
    listed[rows] = True
    now = flags(frame, kw, bit)
    keep = now[rows]
    rows, params = rows[keep], params[keep]
    # the rows that have it now with no instance listed (one pass over the rows), or listed
    # but not among their printed and granted keywords (the listed ones looked up)
    single = np.flatnonzero(now & ~listed)
    others = rows[(kw.base[rows] & kt(bit)) == 0]
    if others.size:
        single = np.concatenate([single, np.unique(others)])
    from_counter = np.zeros(0, I64)
    if kw.counter is not None and kw.counter_bits & bit:  # some counter gave it
        from_counter = np.flatnonzero((kw.counter & kt(bit)) != 0)
        keep = listed[from_counter] & ((kw.base[from_counter] & kt(bit)) != 0)
        from_counter = from_counter[keep]
    if not single.size and not from_counter.size:  # the listed ones, in row order already
        return rows, params
    all_rows = np.concatenate([rows, single, from_counter])
    all_params = np.concatenate([params, np.full(len(single) + len(from_counter), -1, I64)])
    order = np.argsort(all_rows, kind="stable")
    return all_rows[order], all_params[order]


def keyword_index(frame: Frame, keyword: str) -> int:
    """A keyword's index in the batch's keyword names, or -1."""
    bit = frame.schedule.masks.bit.get(normalize_keyword(keyword)) if keyword else None
    return -1 if bit is None else bit.bit_length() - 1


def listed_at(
    frame: Frame, kw: KeywordRows, rows: IntArray, keywords: IntArray, instances: IntArray
) -> IntArray:
    """Where each row's `instances`-th instance of keyword index `keywords` is in its list
    of keyword instances (printed, then granted), as the reference engine's ``listed_at``:
    instances no list names come after every listed one."""
    out = UNLISTED + instances
    n_inst = len(kw.inst_row)
    if not n_inst:
        return out
    k = max(len(frame.schedule.masks.names), 1)
    # the instances of the keywords asked about only (their order kept)
    asked = distinct_values(keywords[keywords >= 0])  # a few keywords: one pass each
    if not asked:
        return out
    wanted = kw.inst_kw == asked[0]
    for keyword in asked[1:]:
        wanted |= kw.inst_kw == keyword
    entry = np.flatnonzero(wanted)
    if not entry.size:
        return out
    row = kw.inst_row[entry]
    in_row = entry - np.searchsorted(kw.inst_row, row)  # place in its row
    key = row * k + kw.inst_kw[entry]
    by_key = np.argsort(key, kind="stable")
    keys = key[by_key]
    want = rows * k + keywords
    at = np.searchsorted(keys, want) + instances
    found = (keywords >= 0) & (at < len(entry))
    at = np.where(found, at, 0)
    found &= keys[at] == want
    return np.where(found, in_row[by_key[at]], out)


def types(frame: Frame) -> IntArray:
    """Each row's card types besides creature, as bit masks (0 without them)."""
    found = frame.batch.types
    if found is None or len(found) != frame.n:
        return np.zeros(frame.n, I64)
    return found


def lands(frame: Frame) -> IntArray:
    """Each player row's land types, as bit masks (0 without them)."""
    found = frame.batch.player_lands
    n_players = frame.batch.n_players
    if found is None or len(found) != n_players:
        return np.zeros(n_players, I64)
    return found


def targets(combat: CombatRows, keyword: str) -> tuple[IntArray, IntArray, IntArray]:
    """(source rows, instance, target rows) of the targets the phase's batch gives a
    keyword."""
    b = combat.batch
    name = normalize_keyword(keyword)
    if name not in b.keyword_names:
        return np.zeros(0, I64), np.zeros(0, I64), np.zeros(0, I64)
    sel = b.target_keyword == b.keyword_names.index(name)
    return b.target_source[sel], b.target_instance[sel], b.target_row[sel]


def column(c: CreatureRows, name: str, dtype: Any) -> AnyArray:
    """A plugin's per-creature column, zeros until first written; kept for the batch."""
    col = c.columns.get(name)
    if col is None:
        col = c.columns[name] = np.zeros(len(c.on_bf), dtype)
    return col
