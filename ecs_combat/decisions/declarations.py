"""The legal attack and block declarations of a board (508.1, 509.1), as arrays.

Legality is the loader's own (:mod:`ecs_combat.rules.legality`, from the plugins'
restrictions), so a keyword a third party adds takes part with no change. The order in which
ties are shown (RULES section 9): fewest creatures declared, then the declaration read as its
list of (creature, what it blocks or attacks) pairs by place in the file, compared
lexicographically.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import BoolArray, IntArray, play_declarations
from ecs_combat.decisions.bounds import SearchTooLarge, guard_declarations
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.characteristics import at_declare_blockers, may_change
from ecs_combat.rules.legality import check_declarations
from ecs_combat.rules.requirements import BlockRequirements, block_requirements, requirements_obeyed
from ecs_combat.rules.sides import block_capacity, least_blockers
from ecs_combat.scenario.model import Scenario

I64 = np.int64
U64 = np.uint64
MaskArray = npt.NDArray[np.uint64]

#: More candidate declarations than this are refused rather than searched.
MOST_DECLARATIONS = 4_000_000
#: The most creatures a board the decisions search may have: a larger one is refused at once,
#: before any declaration is worked out (a battle of many creatures is for ``resolve``).
MOST_CREATURES = 1_000


@dataclass(frozen=True)
class BlockOptions:
    """Who may block whom on one board, as blockers are declared."""

    #: The attacking creatures' places in the file's creatures (attacker bit i).
    attackers: IntArray
    #: The defending player's creatures able to block, by place in the file.
    blockers: IntArray
    #: [n_blockers, n_attackers] whether the blocker may block that attacker.
    legal: BoolArray
    #: [n_blockers] how many attackers each blocker may block (509.1a).
    capacity: IntArray
    #: [n_attackers] how many blockers at least an attacker must have if blocked (509.1b).
    least: IntArray
    #: The attack's block requirements (509.1c: lure), or None when nothing requires a block.
    requirements: BlockRequirements | None = None
    #: The blockers' ids (as `blockers`).
    blocker_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeclaredPairs:
    """The (blocker, attacker) pairs of every declaration of one board, by creature places
    in the file (CSR: ``start[d]:start[d + 1]``), grouped by attacker with its blockers in
    file order."""

    start: IntArray  #: [n_declarations + 1]
    blocker: IntArray
    attacker: IntArray
    rank: IntArray  #: place of the attacker among those its blocker blocks

    @staticmethod
    def of(masks: MaskArray, attackers: IntArray, blockers: IntArray) -> DeclaredPairs:
        n, na, nb = len(masks), len(attackers), len(blockers)
        # one column per (attacker, blocker) pair, attackers outer
        ai = np.arange(na, dtype=I64).repeat(nb)
        bj = np.tile(np.arange(nb, dtype=I64), na)
        shifts = np.arange(na, dtype=U64)[None, :, None]
        on = ((masks[:, None, :] >> shifts) & U64(1)).astype(np.bool_).reshape(n, na * nb)
        start = np.zeros(n + 1, I64)
        np.cumsum(on.sum(axis=1), out=start[1:])
        row, col = np.nonzero(on)
        ai, bj = ai[col], bj[col]
        # the attacker's place among those its blocker blocks (in file order)
        below = masks[row, bj] & ((U64(1) << ai.astype(U64)) - U64(1))
        return DeclaredPairs(
            start, blockers[bj], attackers[ai], np.bitwise_count(below).astype(I64)
        )


@dataclass(frozen=True)
class BlockDeclarations:
    """Every legal block declaration of one board."""

    options: BlockOptions
    #: [n_declarations, n_blockers] the attackers each blocker blocks, as bits.
    masks: MaskArray
    #: [n_declarations] place of each in the order ties are shown (0 first).
    tie_order: IntArray
    #: The pairs of each declaration.
    pairs: DeclaredPairs

    @property
    def count(self) -> int:
        return int(self.masks.shape[0])

    def only(self, d: int) -> BlockDeclarations:
        """Declaration `d` alone (for searching the best divisions of a chosen block)."""
        masks = self.masks[d : d + 1]
        o = self.options
        return BlockDeclarations(
            o, masks, np.zeros(1, I64), DeclaredPairs.of(masks, o.attackers, o.blockers)
        )


def attackers_able(scenario: Scenario, registry: Registry, player: str) -> list[str]:
    """`player`'s creatures that can attack (508.1a), in file order: each alone is an attack
    the loader accepts. The creatures as attackers are declared don't depend on the attack:
    they are read once."""
    board = dataclasses.replace(scenario, attackers={}, blockers={})
    attacking = at_declare_blockers(board, registry, play_declarations).attacking
    able = []
    for cid, spec in scenario.creatures.items():
        if spec.controller != player:
            continue
        alone = dataclasses.replace(
            scenario, attackers={cid: _other(scenario, player)}, blockers={}
        )
        try:
            check_declarations(alone, registry, attacking=attacking, blocks=False)
        except InputError:
            continue
        able.append(cid)
    return able


def _other(scenario: Scenario, player: str) -> str:
    return next(p for p in scenario.players if p != player)


def block_options(scenario: Scenario, registry: Registry, defender: str) -> BlockOptions:
    """Who among `defender`'s creatures may block which of the scenario's attackers, with the
    creatures as blockers are declared (after the declare-attackers step: RULES 4), as the
    loader judges them."""
    ids = list(scenario.creatures)
    attackers = list(scenario.attackers)
    unblocked = dataclasses.replace(scenario, blockers={})
    # only the defending player's creatures' tapped is read: which attackers tap is not
    at = at_declare_blockers(unblocked, registry, play_declarations, False)
    sides, tapped = at.blocking, at.tapped  # 509.1a: a tapped creature can't block
    # a restriction is checked only where its keyword is (docs/plugins.md 3b)
    present = {k for side in sides.values() for k, _ in side.instances}
    blocking = [r for r in registry.restrictions_of("block") if r.keyword in present]
    pairs = [r for r in registry.restrictions_of("block-pair") if r.keyword in present]
    # a creature that left before blocks (an attack trigger) neither blocks nor is blocked
    # (RULES 11.3), even if it returned as a new object
    blockers = [
        cid
        for cid, spec in scenario.creatures.items()
        if spec.controller == defender
        and cid not in tapped
        and cid not in at.gone
        and all(r.test(sides[cid]) for r in blocking)
    ]
    legal = np.array(
        [
            [a not in at.gone and all(r.test(sides[a], sides[b]) for r in pairs) for a in attackers]
            for b in blockers
        ],
        np.bool_,
    ).reshape(len(blockers), len(attackers))
    least = np.array([least_blockers(sides[a], registry)[0] for a in attackers], I64)
    reqs = None
    # none without a trigger's or a keyword's on the board (block_requirements finds none)
    if at.made or _may_require(unblocked, registry):
        found = block_requirements(unblocked, registry, at.made, {*tapped, *at.gone})
        reqs = found if len(found.pairs) else None
    return BlockOptions(
        np.array([ids.index(a) for a in attackers], I64),
        np.array([ids.index(b) for b in blockers], I64),
        legal,
        np.array([block_capacity(sides[b], registry) for b in blockers], I64),
        least,
        reqs,
        tuple(blockers),
    )


class AttackBlockOptions:
    """:func:`block_options` of a board with each of its attacks declared (:meth:`of`: the
    creatures `able` to attack whose bits are set attacking the defending player). When
    nothing before blocks can change a creature, make one leave or make a block requirement
    (no static ability or declare-attackers system that may, no keyword of a
    ``block-requirement`` restriction on the board), who may block whom is the same pair
    by pair whatever else attacks: the options of the attack of every able creature are
    worked out once, and each attack's are their columns of its attackers."""

    def __init__(
        self, scenario: Scenario, registry: Registry, defender: str, able: list[str]
    ) -> None:
        self.scenario, self.registry, self.defender, self.able = scenario, registry, defender, able
        every = dataclasses.replace(scenario, attackers={c: defender for c in able})
        self._every: BlockOptions | None = None
        if able and not may_change(every, registry, False) and not _may_require(every, registry):
            self._every = block_options(every, registry, defender)

    def of(self, mask: int) -> BlockOptions:
        """The block options of the attack of the able creatures with bits set in `mask`."""
        on = [i for i in range(len(self.able)) if mask >> i & 1]
        every = self._every
        if every is None:
            attackers = {self.able[i]: self.defender for i in on}
            declared = dataclasses.replace(self.scenario, attackers=attackers)
            return block_options(declared, self.registry, self.defender)
        return dataclasses.replace(
            every,
            attackers=every.attackers[on],
            legal=every.legal[:, on],
            least=every.least[on],
        )


def _may_require(scenario: Scenario, registry: Registry) -> bool:
    """Whether a creature of the board has a keyword (or counter) of a block requirement."""
    wanted = {r.keyword for r in registry.restrictions_of("block-requirement")}
    return any(
        not wanted.isdisjoint((*spec.keywords, *spec.counters))
        for spec in scenario.creatures.values()
    )


def _subsets(allowed: int, capacity: int) -> list[int]:
    """The nonempty subsets of the bits of `allowed` with at most `capacity` bits."""
    bits = [1 << i for i in range(allowed.bit_length()) if allowed >> i & 1]
    out = [0]
    for bit in bits:
        out += [s | bit for s in out if bin(s).count("1") < capacity]
    return sorted(s for s in out if s)


#: At most this many shapes of block options are remembered (then forgotten, all at once).
SHAPES_KEPT = 10_000
#: The declarations, tie order and pairs of each shape of block options met so far
#: (:func:`_shape`): they depend on nothing else.
_SHAPES: dict[object, tuple[MaskArray, IntArray, DeclaredPairs]] = {}


def _shape(options: BlockOptions) -> object:
    """What decides a board's declarations, their tie order and pairs: who is where, who may
    block whom, capacities and least blockers (None when block requirements apply)."""
    if options.requirements is not None:
        return None
    o = options
    return (
        o.attackers.tobytes(),
        o.blockers.tobytes(),
        o.legal.shape,
        o.legal.tobytes(),
        o.capacity.tobytes(),
        o.least.tobytes(),
    )


def check_board_size(creatures: int, where: str) -> None:
    """Refuse a board of more than :data:`MOST_CREATURES` creatures, naming its size."""
    if creatures > MOST_CREATURES:
        raise InputError(
            where,
            "creatures",
            f"{creatures:,} creatures: decisions search boards of at most "
            f"{MOST_CREATURES:,} creatures",
        )


def block_declarations(options: BlockOptions, where: str) -> BlockDeclarations:
    """Every legal declaration: each blocker blocks nothing or attackers it may block, up to
    its capacity, and every blocked attacker has at least its least number of blockers
    (worked out once per shape of options, :func:`_shape`)."""
    key = _shape(options)
    known = _SHAPES.get(key) if key is not None else None
    if known is None:
        masks = _declarations(options, where)
        tie = tie_order(masks, options.blockers, options.attackers)
        pairs = DeclaredPairs.of(masks, options.attackers, options.blockers)
        known = (masks, tie, pairs)
        if key is not None:
            if len(_SHAPES) >= SHAPES_KEPT:
                _SHAPES.clear()
            for a in (masks, tie, pairs.start, pairs.blocker, pairs.attacker, pairs.rank):
                a.setflags(write=False)  # shared by every board of the shape
            _SHAPES[key] = known
    return BlockDeclarations(options, *known)


def _declarations(options: BlockOptions, where: str) -> MaskArray:
    """The masks of every legal declaration (:func:`block_declarations`)."""
    per_blocker = blocker_options(options)
    total = math.prod(len(o) for o in per_blocker)
    if total > MOST_DECLARATIONS:
        raise SearchTooLarge(
            where,
            "combat",
            f"{total:,} block declarations are possible; decisions search at most "
            f"{MOST_DECLARATIONS:,}",
        )
    guard_declarations(
        total, len(options.attackers), len(options.blockers), where, "block declarations"
    )
    masks = masks_at(options, per_blocker, np.arange(total, dtype=I64))
    if options.requirements is not None:
        masks = _most_obeying(options, masks)
    return masks


def blocker_options(options: BlockOptions) -> list[list[int]]:
    """Each blocker's choices: nothing (0), or a set of attackers it may block up to its
    capacity (bits)."""
    out = []
    for j in range(len(options.blockers)):
        allowed = sum(1 << int(i) for i in options.legal[j].nonzero()[0])
        out.append([0, *_subsets(allowed, int(options.capacity[j]))])
    return out


def masks_at(options: BlockOptions, per_blocker: list[list[int]], places: IntArray) -> MaskArray:
    """The declarations at some places of the product of the blockers' choices (the last
    blocker's varying fastest) that give each blocked attacker its least number of blockers
    (509.1b); block requirements are not applied."""
    shape = [len(o) for o in per_blocker]
    masks = np.zeros((len(places), len(shape)), U64)
    stride = 1
    for j in range(len(shape) - 1, -1, -1):
        masks[:, j] = np.asarray(per_blocker[j], U64)[(places // stride) % shape[j]]
        stride *= shape[j]
    keep = np.ones(len(masks), np.bool_)
    for i, need in enumerate(options.least):
        if need > 1:
            count = ((masks >> U64(i)) & U64(1)).sum(axis=1)
            keep &= (count == 0) | (count >= need)
    kept: MaskArray = masks[keep]
    return kept


def declarations_of_masks(options: BlockOptions, masks: MaskArray) -> BlockDeclarations:
    """Some of a board's declarations (masks) with their tie order among themselves."""
    return BlockDeclarations(
        options,
        masks,
        tie_order(masks, options.blockers, options.attackers),
        DeclaredPairs.of(masks, options.attackers, options.blockers),
    )


def _most_obeying(options: BlockOptions, masks: MaskArray) -> MaskArray:
    """The declarations obeying as many block requirements as any legal one does (509.1c)."""
    reqs = options.requirements
    assert reqs is not None
    place = {cid: j for j, cid in enumerate(reqs.blockers)}
    # a blocker blocks at most every attacker ("any number" is a huge capacity)
    width = max(min(int(options.capacity.max(initial=1)), len(options.attackers)), 1)
    cand = np.full((len(masks), len(reqs.blockers), width), -1, I64)
    for j, cid in enumerate(options.blocker_ids):
        m = masks[:, j]
        for k in range(width):  # the k-th attacker this blocker blocks, by bit
            low = m & (~m + U64(1))  # lowest set bit
            on = low != 0
            cand[on, place[cid], k] = np.log2(low[on].astype(np.float64)).astype(I64)
            m = m & ~low
    obeyed = requirements_obeyed(reqs, cand)
    kept: MaskArray = masks[obeyed == obeyed.max(initial=0)]
    return kept


def tie_order(masks: MaskArray, creature_place: IntArray, target_place: IntArray) -> IntArray:
    """The place of each declaration in the order ties are shown (RULES section 9)."""
    n = masks.shape[0]
    if n == 0:
        return np.zeros(0, I64)
    width = int(max(creature_place.max(initial=0), target_place.max(initial=0))) + 2
    # the pair list: each declaring creature in file order with its targets in file order
    targets = np.argsort(target_place)
    creatures = np.argsort(creature_place)
    declared = (masks != 0).sum(axis=1).astype(I64)
    if len(targets) and len(creatures):
        on = (masks[:, creatures, None] >> targets.astype(U64)) & U64(1)
        pair = creature_place[creatures][:, None] * width + target_place[targets]
        # each declaration's pairs in order, then -1 (a shorter list first): sorted with
        # the missing ones above every pair, then marked -1
        absent = width * width
        pairs = np.where(on != 0, pair, absent).reshape(n, -1)
        pairs.sort(axis=1)
        pairs[pairs == absent] = -1
        keys = [pairs[:, c] for c in range(pairs.shape[1] - 1, -1, -1)]
    else:
        keys = []
    rank = np.empty(n, I64)
    base = width * width + 1  # a pair plus 1, or 0 for none
    if (len(keys) + 1) * math.log2(base) < 62:  # one key: declared, then the pairs, + 1
        key = declared.copy()
        for k in reversed(keys):
            key *= base
            key += k + 1
        rank[key.argsort(kind="stable")] = np.arange(n, dtype=I64)
    else:
        rank[np.lexsort((*keys, declared))] = np.arange(n, dtype=I64)
    return rank


@dataclass(frozen=True)
class AttackDeclarations:
    """Every legal attack declaration of one board: each a set of attackers."""

    #: Places in the file of the creatures able to attack (attacker bit i).
    able: IntArray
    #: [n_declarations] the attackers as bits.
    masks: MaskArray
    tie_order: IntArray

    @property
    def count(self) -> int:
        return int(self.masks.shape[0])


def attack_declarations(able: IntArray, defender_place: int, where: str) -> AttackDeclarations:
    """Every subset of the creatures able to attack, each attacking the defending player."""
    if len(able) > 20:
        raise InputError(
            where, "creatures", f"{len(able)} creatures can attack: decisions search at most 20"
        )
    places = tuple(able.tolist())
    if len(able) <= REMEMBERED_ATTACKERS:
        masks, order = _remembered_attacks(places, defender_place)
    else:
        masks, order = _attacks(places, defender_place)
    return AttackDeclarations(able, masks, order)


#: Attack declarations of boards with up to this many creatures able to attack are made once
#: per layout (the race's horizon asks them of many boards alike).
REMEMBERED_ATTACKERS = 10


@functools.lru_cache(maxsize=256)
def _remembered_attacks(able: tuple[int, ...], defender_place: int) -> tuple[MaskArray, IntArray]:
    """:func:`_attacks`, remembered; read only."""
    masks, order = _attacks(able, defender_place)
    masks.flags.writeable = False
    order.flags.writeable = False
    return masks, order


def _attacks(able: tuple[int, ...], defender_place: int) -> tuple[MaskArray, IntArray]:
    """Every subset of `able` as bits, and each one's place in the order ties are shown."""
    masks = np.arange(1 << len(able), dtype=U64).reshape(-1, 1)
    bits = (masks >> np.arange(len(able), dtype=U64)) & U64(1)
    # one column per attacker, each either attacking the defending player or not
    per_attacker = bits.astype(U64)
    order = tie_order(per_attacker, np.array(able, I64), np.array([defender_place], I64))
    return masks.reshape(-1), order
