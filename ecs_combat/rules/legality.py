"""Whether the declared attacks and blocks are legal (508.1, 509.1), by the plugins'
restrictions (:mod:`ecs_combat.plugin.restrictions`).

A scenario that declares an illegal attack or block is an input error naming the creatures and
the rule. Legality is checked as attackers and blockers are declared, with the creatures'
characteristics **at that moment** (RULES 4): what the declare-attackers step changed
(exalted's +1/+1) counts for blocks, and in a later combat phase of a turn everything earlier
in the turn. Keywords gained or lost later don't undo a declaration (509.1b).

The functions here take the creatures as :class:`~ecs_combat.plugin.restrictions.Side`
objects; the characteristics themselves come from the engines, the one source of them:
:func:`ecs_combat.rules.characteristics.sides_at_declare_blockers` for a scenario (what
the scenario loader and the decision search use), each engine's own view of its creatures in
a turn's combat phases. Without sides, :func:`check_declarations` reads the creatures as the
scenario declares them (:func:`spec_side`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy.typing as npt

from ecs_combat.errors import InputError
from ecs_combat.plugin.definitions import color_mask
from ecs_combat.plugin.registry import Registry
from ecs_combat.plugin.restrictions import Restriction, Side
from ecs_combat.rules.requirements import (
    IntArray,
    MadeRequirement,
    block_requirements,
    check_requirements,
    requirements_obeyed,
)
from ecs_combat.rules.sides import least_blockers, spec_side
from ecs_combat.rules.turn_legality import TAPPED_AT_START
from ecs_combat.suggest import did_you_mean

if TYPE_CHECKING:
    from ecs_combat.scenario.model import Scenario


def starting_toughness(toughness: int, counters: Mapping[str, int], registry: Registry) -> int:
    """A creature's toughness as the scenario puts it onto the battlefield: printed plus what
    its counters give (122.1a), before any effect."""
    kinds = registry.counter_kinds
    return toughness + sum(kinds[k].toughness * n for k, n in counters.items() if k in kinds)


def toughness_message(toughness: int, printed: int) -> str:
    """Why a starting toughness of 0 or less is wrong (704.5f), RULES 11.2: the same words for
    a file (at ``creatures.<id>.toughness``, or ``.counters`` when its counters bring it
    there) and for arrays."""
    counted = f" ({printed} and its counters)" if toughness != printed else ""
    return (
        f"toughness {toughness}{counted}: a creature with toughness 0 or less "
        "can't be on the battlefield (704.5f)"
    )


def lethal_damage_message(damage: int, toughness: int, printed: int) -> str:
    """Why marked damage in the input is wrong (704.5g): the same words in both engines."""
    counted = f" ({printed} and its counters)" if toughness != printed else ""
    return (
        f"{damage} damage on a creature with toughness {toughness}{counted} "
        "would already have destroyed it (704.5g)"
    )


def check_declarations(
    scenario: Scenario,
    registry: Registry,
    blocking: Mapping[str, Side] | None = None,
    attacking: Mapping[str, Side] | None = None,
    blocks: bool = True,
    tapped_at_blocks: Collection[str] | None = None,
    made: Sequence[MadeRequirement] = (),
    gone: Collection[str] = (),
) -> None:
    """Raise :class:`InputError` for the first illegal attack or block of the scenario (only
    the attacks without `blocks`).

    `attacking` holds the creatures as attackers are declared, `blocking` as blockers are
    declared (both by id, as :mod:`ecs_combat.rules.characteristics` gives them); a
    creature missing from them is read as the scenario declares it (:func:`spec_side`).
    `tapped_at_blocks` are the creatures tapped as blockers are declared (default: those the
    scenario gives ``tapped = true``); `made` the requirements triggers made; `gone` the
    creatures that left before blockers are declared (:func:`blocks_declared`)."""
    sides = _Sides(scenario, registry)
    _Declarations(scenario.file, "combat", registry, sides.reader(attacking)).attacks(scenario)
    if blocks:
        if tapped_at_blocks is None:
            tapped_at_blocks = [cid for cid, c in scenario.creatures.items() if c.tapped]
        check_blocks(
            scenario,
            registry,
            sides.reader(blocking),
            made=made,
            tapped=tapped_at_blocks,
            gone=gone,
        )


def check_blocks(
    scenario: Scenario,
    registry: Registry,
    side: Callable[[str], Side],
    where: str = "combat",
    made: Sequence[MadeRequirement] = (),
    tapped: Collection[str] = (),
    gone: Collection[str] = (),
) -> None:
    """Raise :class:`InputError` for the first illegal block of the scenario (509.1a-c), the
    creatures read through `side` (id -> its characteristics as blockers are declared); the
    key paths begin with `where` (``combat``, or ``combats[1]`` in a turn). The blocks
    checked are those still declared once the creatures in `gone` have left
    (:func:`blocks_declared`)."""
    _Declarations(scenario.file, where, registry, side).blocks(scenario, made, tapped, gone)


def blocks_declared(scenario: Scenario, gone: Collection[str]) -> Scenario:
    """The scenario as blockers are declared, once the creatures in `gone` have left the
    battlefield or combat (an attack trigger, the state-based actions after it; a creature
    that returned as a new object counts as gone, 400.7): a listed blocker among them doesn't
    block, an attacker among them is not attacking, so not blocked (509.1a, RULES 11.3)."""
    if not gone:
        return scenario
    blockers: dict[str, tuple[str, ...]] = {}
    for b, attacked in scenario.blockers.items():
        still = tuple(a for a in attacked if a not in gone)
        if b not in gone and still:
            blockers[b] = still
    attackers = {a: p for a, p in scenario.attackers.items() if a not in gone}
    return dataclasses.replace(scenario, attackers=attackers, blockers=blockers)


def why_cannot_attack(side: Side, summoning_sick: bool, registry: Registry) -> str | None:
    """Why a creature can't attack (508.1a, 302.6), or None."""
    for r in registry.restrictions_of("attack"):
        if not r.test(side):
            return f"it has {r.keyword} and can't attack ({r.rule})"
    if summoning_sick and not any(
        r.test(side) for r in registry.restrictions_of("summoning-sickness")
    ):
        allowing = sorted({r.keyword for r in registry.restrictions_of("summoning-sickness")})
        without = f" and has no {_either(allowing)}" if allowing else ""
        return f"it came under its controller's control this turn (summoning_sick = true){without}: it can't attack (302.6)"
    return None


def why_not_a_legal_target(side: Side, registry: Registry) -> Restriction | None:
    """The restriction that keeps a spell from targeting a creature, or None (115.4)."""
    for r in registry.restrictions_of("target"):
        if not r.test(side):
            return r
    return None


def check_targets(scenario: Scenario, registry: Registry) -> None:
    """Raise :class:`InputError` for a ``targets`` entry naming a creature that could never be
    a legal target of that keyword's trigger (RULES 10): not a creature; for a target the
    defending player controls, one its source's controller controls, or not controlled by the
    player the source attacks; for an attacking creature, one not declared as an attacker; or
    one a ``target`` restriction forbids to a source of its colors (hexproof, protection)."""
    for cid, spec in scenario.creatures.items():
        for keyword, ids in spec.targets.items():
            kw = registry.keyword(keyword)
            assert kw is not None
            for i, tid in enumerate(ids):
                path = f"{spec.path}.targets.{keyword}" + (f"[{i}]" if len(ids) > 1 else "")
                why = _why_not_a_target(scenario, registry, cid, tid, kw.target)
                if why is not None:
                    raise InputError(
                        scenario.file,
                        path,
                        f"{tid!r} can't be the target of "
                        f"{keyword} ({cid}): {why} ({kw.rule or '115.1'})",
                    )


def _why_not_a_target(
    scenario: Scenario, registry: Registry, source: str, target: str, kind: str
) -> str | None:
    creatures = scenario.creatures
    if target not in creatures:
        if target in scenario.players:
            return "it is a player, and the target must be a creature"
        return "no creature has that id" + did_you_mean(target, creatures)
    mine, theirs = creatures[source], creatures[target]
    if kind == "creature the defending player controls":
        if theirs.controller == mine.controller:
            return f"{mine.controller!r} controls both, and the target must be an opponent's"
        attacked = scenario.attackers.get(source)
        if attacked is not None and theirs.controller != attacked:
            return f"{source!r} attacks {attacked!r}, and {target!r} is {theirs.controller!r}'s"
    if kind == "attacking creature" and target not in scenario.attackers:
        return "it is not declared as an attacker"
    if kind == "attacking creature" and target == source:  # RULES 11.7: mentor's own power
        return "it is the source itself, and the target must be another attacking creature"
    side = spec_side(theirs, registry, scenario.players[theirs.controller].lands)
    side = dataclasses.replace(
        side,
        opponent=theirs.controller != mine.controller,
        spell_color_bits=color_mask(mine.colors),
        source_is_creature=True,
    )
    refused = why_not_a_legal_target(side, registry)
    if refused is not None:
        says = refused.says.format(creature=repr(target), caster=repr(mine.controller))
        return says or f"it has {refused.keyword}"
    return None


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


class _Sides:
    """The creatures of a scenario as given sides, else as the scenario declares them."""

    def __init__(self, scenario: Scenario, registry: Registry) -> None:
        self.sc = scenario
        self.reg = registry

    def reader(self, given: Mapping[str, Side] | None) -> Callable[[str], Side]:
        def side(cid: str) -> Side:
            found = None if given is None else given.get(cid)
            if found is not None:
                return found
            spec = self.sc.creatures[cid]
            return spec_side(spec, self.reg, self.sc.players[spec.controller].lands)

        return side


class _Declarations:
    def __init__(
        self, file: str, where: str, registry: Registry, side: Callable[[str], Side]
    ) -> None:
        self.file = file
        self.where = where
        self.reg = registry
        self.side = side

    def fail(self, path: str, message: str) -> InputError:
        return InputError(self.file, f"{self.where}.{path}", message)

    def attacks(self, sc: Scenario) -> None:
        for cid in sc.attackers:
            if sc.creatures[cid].tapped:  # 508.1a; nothing untaps it before attackers
                raise self.fail(
                    f"attackers.{cid}", f"{cid!r} can't attack: {TAPPED_AT_START} (508.1a)"
                )
            why = why_cannot_attack(self.side(cid), sc.creatures[cid].summoning_sick, self.reg)
            if why is not None:
                raise self.fail(f"attackers.{cid}", f"{cid!r}{why.removeprefix('it')}")

    def blocks(
        self,
        listed: Scenario,
        made: Sequence[MadeRequirement],
        tapped: Collection[str],
        gone: Collection[str] = (),
    ) -> None:
        sc = blocks_declared(listed, gone)
        if gone:  # they can't block, so they have no requirement either
            tapped = {*tapped, *gone}
        for cid in sc.blockers:  # 509.1a: a tapped creature can't be declared as a blocker
            if cid in tapped:
                raise self.fail(
                    f"blockers.{cid}", f"{cid!r} can't block: {TAPPED_AT_START} (509.1a)"
                )
        for cid, attacked in sc.blockers.items():
            self.blocker(cid, attacked)
        for cid in sc.attackers:
            left = [b for b in listed.blockers_of(cid) if b in gone]
            self.enough_blockers(cid, sc.blockers_of(cid), left)
        check_requirements(sc, self.reg, made, tapped, self.where)  # 509.1c

    def blocker(self, cid: str, attacked: tuple[str, ...]) -> None:
        """509.1a-b: it can block, and it can block each attacker it blocks."""
        path = f"blockers.{cid}"
        mine = self.side(cid)
        for r in self.reg.restrictions_of("block"):
            if not r.test(mine):
                raise self.fail(path, f"{cid!r} has {r.keyword} and can't block ({r.rule})")
        for aid in attacked:
            theirs = self.side(aid)
            for r in self.reg.restrictions_of("block-pair"):
                if not r.test(theirs, mine):
                    says = r.says.format(attacker=repr(aid), blocker=repr(cid))
                    raise self.fail(path, f"{cid!r} can't block {aid!r}: {says} ({r.rule})")

    def enough_blockers(self, cid: str, blockers: Sequence[str], left: Sequence[str] = ()) -> None:
        """509.1b: an attacker that can't be blocked except by N or more creatures; `left`
        are its listed blockers that left before blocks (RULES 13, version 1.3: the blocks
        left break the restriction, an error at ``combat.blockers``)."""
        if not blockers:
            return
        need, rule = least_blockers(self.side(cid), self.reg)
        if rule is not None and len(blockers) < need:
            who = ", ".join(repr(b) for b in blockers)
            why = ""
            if left:
                gone = ", ".join(repr(b) for b in left)
                why = (
                    f"; {gone} left the battlefield before blockers were declared and "
                    f"{'doesn' if len(left) == 1 else 'don'}'t block (RULES 11.3)"
                )
            raise self.fail(
                "blockers" if left else f"blockers.{blockers[0]}",
                f"{cid!r} has {rule.keyword} and can't be blocked except by {need} or "
                f"more creatures, but only {who} {'blocks' if len(blockers) == 1 else 'block'}"
                f" it ({rule.rule}){why}",
            )


def score_block_requirements(
    scenario: Scenario, registry: Registry, candidates: npt.ArrayLike
) -> tuple[IntArray, int]:
    """For a decision search: how many block requirements (509.1c: lure, ...) each candidate
    declaration of a scenario's blocks obeys, and the most any declaration can obey.

    `candidates` is ``[K, B]``: for each candidate and each potential blocker of
    ``block_requirements(scenario, registry).blockers`` (the creatures of the players other
    than the attacking player, in scenario order) the index of the attacker it blocks in
    ``.attackers`` (the scenario's attackers, in order) or -1; or ``[K, B, M]`` for blockers
    that block several attackers, padded with -1. Keep the candidates whose count equals the
    maximum: the others are illegal declarations.
    """
    reqs = block_requirements(scenario, registry)
    return requirements_obeyed(reqs, candidates), reqs.most_obeyable()
