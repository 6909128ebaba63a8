"""The checks of a turn's declarations in the batched engine (RULES 4, 8): attackers and
blockers as each combat phase begins, blocks as blockers are declared, who may attack (508.1a,
302.6); a battle with an illegal declaration gets the reference engine's input error."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ecs_combat.batched.arrays import BoolArray, IntArray
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.keywords import has
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, State
from ecs_combat.batched.turn import TurnBatch
from ecs_combat.batched.views import RowSide
from ecs_combat.errors import InputError
from ecs_combat.plugin.restrictions import Side
from ecs_combat.rules.legality import check_blocks as check_blocks_of
from ecs_combat.rules.legality import why_cannot_attack as why_not
from ecs_combat.rules.turn_legality import (
    GONE,
    NEVER_ENTERED,
    TAPPED,
    TAPPED_AT_START,
    cannot_attack,
    cannot_block,
    left_the_game,
    not_allowed_to_attack,
)

if TYPE_CHECKING:
    from ecs_combat.scenario.turns import TurnScenario

I64 = np.int64
#: What :func:`why_cannot_attack` says when no rule keeps the creature from attacking.
NO_REASON = "the rules don't let it attack"


class Turn(Protocol):
    """What the checks read of the turns being played (:class:`.turn_play.TurnRun`)."""

    #: The state of the combat phase being played.
    state: State
    turns: TurnBatch
    #: The turns the batch was built from (battle order), for the words of errors.
    scenarios: Sequence[TurnScenario] | None
    #: The combat phase being played.
    k: int
    #: [creature rows] summoning sick (302.6), or None: none is.
    sick: BoolArray | None
    #: Whether blocks are checked as blockers are declared (else left out silently).
    strict: bool


def may_attack(
    frame: Frame, kw: KeywordRows, c: CreatureRows, sick: BoolArray | None, rows: IntArray
) -> BoolArray:
    """Whether the rules let some creatures attack as they are now (508.1a), summoning
    sickness included (302.6: `sick` rows, None: none); tapped and off-the-battlefield
    aside."""
    registry = frame.schedule.registry
    side = RowSide(frame, kw, c, rows, np.zeros(rows.size, np.bool_), np.zeros(rows.size, I64))
    ok = np.ones(rows.size, np.bool_)
    for r in registry.restrictions_of("attack"):
        ok &= np.asarray(r.test(side), np.bool_)
    if sick is not None and sick[rows].any():
        hasty = np.zeros(rows.size, np.bool_)
        for r in registry.restrictions_of("summoning-sickness"):
            hasty |= np.asarray(r.test(side), np.bool_)
        ok &= ~sick[rows] | hasty
    return ok


def why_cannot_attack(
    frame: Frame, kw: KeywordRows, c: CreatureRows, sick: BoolArray | None, row: int
) -> str:
    """The rules' words for why a creature can't attack (for an error message)."""
    rows = np.array([row], I64)
    side = RowSide(frame, kw, c, rows, np.zeros(1, np.bool_), np.zeros(1, I64))
    is_sick = sick is not None and bool(sick[row])
    return why_not(side, is_sick, frame.schedule.registry) or NO_REASON


def keep_blocks(combat: CombatRows, keep: BoolArray) -> None:
    """Keep only some of the phase's blocks (still grouped by attacker); the phase's batch
    says so too."""
    bb, ba, rank = combat.bb[keep], combat.ba[keep], combat.rank[keep]
    combat.batch = dataclasses.replace(
        combat.batch, block_blocker=bb, block_attacker=ba, block_rank=rank
    )
    combat.keep_blocks(keep, len(combat.att))


def tapped_at_start(t: Turn, row: int) -> bool:
    """Whether the turn's file gives the creature ``tapped = true``."""
    tapped = t.turns.first.tapped
    return tapped is not None and bool(tapped[row])


def file_order(t: Turn, rows: IntArray, table: str) -> list[int]:
    """Rows of declared attackers or blockers in the order the turn file lists them in
    the phase's entry (``attackers`` or ``blockers``), so that a battle's first error is
    the reference engine's."""
    turns = t.scenarios
    if turns is None or rows.size < 2:
        return [int(r) for r in rows]
    ids = t.state.frame.batch.creature_ids or []
    battle_of = t.state.creatures.battle

    def place(row: int) -> tuple[int, int]:
        battle = int(battle_of[row])
        listed = list(getattr(turns[battle].combats[t.k], table))
        return battle, listed.index(ids[row]) if ids[row] in listed else len(listed)

    return sorted((int(r) for r in rows), key=place)


def check_declarations(t: Turn) -> None:
    """A creature declared as attacker must be on the battlefield and untapped as the
    phase begins (508.1a), a blocker on the battlefield; else the battle's input error,
    and the declaration is left out. Whether blockers are untapped is checked as blockers
    are declared (:func:`check_blocks`): an attack trigger may untap one (provoke)."""
    state = t.state
    frame, kw, errors = state.frame, state.keywords, state.errors
    c, combat, lost = state.creatures, state.combat, state.players.lost
    able = c.on_bf & ~c.tapped
    attackers = np.flatnonzero(combat.att)
    defender_gone = lost[combat.attacking[attackers]]
    allowed = may_attack(frame, kw, c, t.sick, attackers)
    bad_att = attackers[~able[attackers] | ~allowed | defender_gone]
    bb = combat.bb
    bad_blk = np.unique(bb[~c.on_bf[bb]]) if combat.nblocks else np.zeros(0, I64)
    if not (bad_att.size or bad_blk.size):
        return
    for error, rows, table in (
        (cannot_attack, bad_att, "attackers"),
        (cannot_block, bad_blk, "blockers"),
    ):
        for row in file_order(t, rows, table):
            battle = int(c.battle[row])
            why = (
                (TAPPED_AT_START if tapped_at_start(t, row) else TAPPED)
                if c.on_bf[row]
                else GONE
                if c.entered[row]
                else NEVER_ENTERED
            )
            if table == "attackers" and able[row] and lost[combat.attacking[row]]:
                why = left_the_game(frame.pid(int(combat.attacking[row])))  # its defender left
            elif table == "attackers" and able[row]:  # a rule keeps it from attacking now
                file = frame.file_of(battle)
                rule = why_cannot_attack(frame, kw, c, t.sick, row)
                errors.fail(battle, not_allowed_to_attack(file, t.k, frame.cid(row), rule))
                continue
            errors.fail(battle, error(frame.file_of(battle), t.k, frame.cid(row), why))
    combat.writable_attacking()
    combat.att[bad_att] = False
    combat.attacking[bad_att] = -1
    keep_blocks(combat, c.on_bf[combat.bb] & combat.att[combat.ba])


def check_blocks(t: Turn) -> None:
    """The phase's blocks must be legal as blockers are declared, with the creatures as
    they are then (509.1a-c, RULES 4): after the declare-attackers step, with everything
    earlier in the turn. The blockers must be untapped (an attack trigger may have untapped
    one: provoke); the plugins' restrictions hold; and in a battle with a requirement
    (a ``block-requirement`` keyword such as lure, or one an attack trigger made), the
    blocks obey as many as possible. A battle with an illegal block gets the input error
    the reference engine gives (:func:`ecs_combat.rules.legality.check_blocks`), and its
    blocks are left out."""
    if not t.strict or t.scenarios is None:
        return
    state = t.state
    frame, kw, errors = state.frame, state.keywords, state.errors
    c, combat, registry = state.creatures, state.combat, frame.schedule.registry
    # a blocker or attacker that left during the attack triggers neither blocks nor is
    # blocked (RULES 11.3): its blocks are not declared, and not checked
    present = c.on_bf[combat.bb] & combat.att[combat.ba]
    if combat.returned is not None:
        present &= ~combat.returned[combat.bb]
    if not present.all():
        keep_blocks(combat, present)
    bb, ba = combat.bb, combat.ba
    tapped = c.on_bf[bb] & c.tapped[bb]  # 509.1a
    for row in file_order(t, np.unique(bb[tapped]), "blockers"):
        why = TAPPED_AT_START if tapped_at_start(t, row) else TAPPED
        battle = int(c.battle[row])
        errors.fail(battle, cannot_block(frame.file_of(battle), t.k, frame.cid(row), why))
    failed = np.zeros(frame.nb, np.bool_)
    failed[c.battle[bb[tapped]]] = True
    opp, none = np.ones(bb.size, np.bool_), np.zeros(bb.size, I64)
    blocker, attacker = RowSide(frame, kw, c, bb, opp, none), RowSide(frame, kw, c, ba, opp, none)
    ok = np.ones(bb.size, np.bool_)
    for r in registry.restrictions_of("block"):
        ok &= np.asarray(r.test(blocker), np.bool_)
    for r in registry.restrictions_of("block-pair"):
        ok &= np.asarray(r.test(attacker, blocker), np.bool_)
    need = np.ones(bb.size, I64)
    for r in registry.restrictions_of("blockers"):
        need = np.maximum(need, np.asarray(r.test(attacker), I64))
    ok &= np.bincount(ba, minlength=frame.n)[ba] >= need
    wanted = np.zeros(frame.nb, np.bool_)  # battles with a requirement: checked one by one
    for made, _, _ in combat.required_blocks:
        wanted[c.battle[made]] = True
    for r in registry.restrictions_of("block-requirement"):  # on either side of a block
        wanted[c.battle[c.on_bf & has(frame, kw, r.keyword)]] = True
    check = (wanted & ~failed).copy()
    check[c.battle[bb[~ok]]] = True
    check &= ~failed
    for battle in np.flatnonzero(check).tolist():
        failed[battle] = _block_error(t, battle)
    if failed.any():
        keep_blocks(combat, ~failed[c.battle[combat.bb]])


def _block_error(t: Turn, battle: int) -> bool:
    """Record the input error of a battle's first illegal block, worded as the reference
    engine words it (with the requirements the attack triggers made and the creatures
    unable to block: tapped or gone); whether there is one."""
    assert t.scenarios is not None
    state = t.state
    frame, kw, c, combat = state.frame, state.keywords, state.creatures, state.combat
    ids = frame.batch.creature_ids or []
    first, last = np.searchsorted(c.battle, [battle, battle + 1]).tolist()
    row = {ids[r]: r for r in range(first, last)}

    def side(cid: str) -> Side:
        one = np.array([row[cid]], I64)
        return OneRowSide(RowSide(frame, kw, c, one, np.ones(1, np.bool_), np.zeros(1, I64)))

    made = [
        (ids[b], ids[a], keyword)
        for blockers, attackers, keyword in combat.required_blocks
        for b, a in zip(blockers.tolist(), attackers.tolist(), strict=True)
        if first <= b < last
    ]
    scenario = t.scenarios[battle].combats[t.k]
    unable = [  # tapped or gone: no requirement (a declared blocker's tapping is checked)
        ids[r]
        for r in range(first, last)
        if (not c.on_bf[r] or c.tapped[r]) and ids[r] not in scenario.blockers
    ]
    returned = combat.returned
    listed = {*scenario.blockers, *scenario.attackers}
    gone = [  # left during this phase's attack triggers (RULES 11.3)
        ids[r]
        for r in range(first, last)
        if ids[r] in listed
        and (
            not c.on_bf[r]
            or (returned is not None and returned[r])
            or (ids[r] in scenario.attackers and not combat.att[r])
        )
    ]
    path = combat.path
    try:
        check_blocks_of(
            scenario, frame.schedule.registry, side, path, made=made, tapped=unable, gone=gone
        )
    except InputError as exc:
        state.errors.fail(battle, exc)
        return True
    return False


class OneRowSide:
    """One row of a :class:`RowSide` as a single creature's side (numpy scalars), for the
    legality functions that word the errors."""

    def __init__(self, side: RowSide) -> None:
        self.side = side

    def has(self, keyword: str) -> np.bool_:
        return np.bool_(self.side.has(keyword)[0])

    def values(self, keyword: str) -> int:
        return int(self.side.values(keyword)[0])

    def count(self, keyword: str) -> int:
        return int(self.side.count(keyword)[0])

    @property
    def colors(self) -> int:
        return int(self.side.colors[0])

    @property
    def power(self) -> int:
        return int(self.side.power[0])

    @property
    def opponent(self) -> bool:
        return bool(self.side.opponent[0])

    @property
    def spell_colors(self) -> int:
        return int(self.side.spell_colors[0])

    @property
    def from_creature(self) -> bool:
        return bool(self.side.from_creature[0])

    @property
    def types(self) -> int:
        return int(self.side.types[0])

    @property
    def lands(self) -> int:
        return int(self.side.lands[0])
