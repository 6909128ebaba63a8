"""Whether the declared attacks and blocks are legal (508.1, 509.1), read from Keyword fields.

A scenario that declares an illegal attack or block is an input error naming the creatures and
the rule. Legality is checked once, as attackers and blockers are declared, with the keywords
the creatures have then (printed and keyword counters): keywords gained or lost later don't
undo a declaration (509.1b). Keywords that plugins' static abilities give during combat are
not seen here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ecs_combat.definitions import Keyword
from ecs_combat.errors import InputError
from ecs_combat.plugins import Registry

if TYPE_CHECKING:
    from ecs_combat.scenario import CreatureSpec, Scenario


def check_declarations(scenario: Scenario, registry: Registry) -> None:
    """Raise :class:`InputError` for the first illegal attack or block of the scenario."""
    _Declarations(scenario, registry).check()


def _cite(kw: Keyword) -> str:
    return kw.rule or kw.name


def _either(names: frozenset[str]) -> str:
    ordered = sorted(names)
    return ordered[0] if len(ordered) == 1 else f"{', '.join(ordered[:-1])} or {ordered[-1]}"


class _Declarations:
    def __init__(self, scenario: Scenario, registry: Registry) -> None:
        self.sc = scenario
        self.reg = registry

    def keywords(self, cid: str) -> list[Keyword]:
        """The definitions of a creature's keywords as it is declared (printed and counters)."""
        spec: CreatureSpec = self.sc.creatures[cid]
        names = set(spec.keywords) | {k for k, n in spec.counters.items() if n > 0}
        return [kw for name in sorted(names) if (kw := self.reg.keyword(name)) is not None]

    def names(self, cid: str) -> set[str]:
        return {kw.name for kw in self.keywords(cid)}

    def fail(self, path: str, message: str) -> InputError:
        return InputError(self.sc.file, path, message)

    def check(self) -> None:
        for cid in self.sc.attackers:
            self.attacker(cid)
        for cid, attacked in self.sc.blockers.items():
            self.blocker(cid, attacked)
        for cid in self.sc.attackers:
            self.enough_blockers(cid)

    def attacker(self, cid: str) -> None:
        """508.1a: it can attack (no keyword forbids it; not summoning sick without a keyword
        that lets it attack anyway, 302.6)."""
        path = f"combat.attackers.{cid}"
        kws = self.keywords(cid)
        for kw in kws:
            if not kw.can_attack:
                raise self.fail(path, f"{cid!r} has {kw.name} and can't attack ({_cite(kw)})")
        spec = self.sc.creatures[cid]
        if spec.summoning_sick and not any(kw.ignores_summoning_sickness for kw in kws):
            allowing = frozenset(
                kw.name for kw in self.reg.keywords.values() if kw.ignores_summoning_sickness
            )
            without = f" and has no {_either(allowing)}" if allowing else ""
            raise self.fail(
                path,
                f"{cid!r} came under its controller's control this turn (summoning_sick = true)"
                f"{without}: it can't attack (302.6)",
            )

    def blocker(self, cid: str, attacked: tuple[str, ...]) -> None:
        """509.1a-b: it can block, and it can block each attacker it blocks."""
        path = f"combat.blockers.{cid}"
        mine = self.keywords(cid)
        my_names = {kw.name for kw in mine}
        for kw in mine:
            if not kw.can_block:
                raise self.fail(path, f"{cid!r} has {kw.name} and can't block ({_cite(kw)})")
        for aid in attacked:
            theirs = self.keywords(aid)
            their_names = {kw.name for kw in theirs}
            for kw in theirs:
                if kw.blockable_only_by and my_names.isdisjoint(kw.blockable_only_by):
                    raise self.fail(
                        path,
                        f"{cid!r} can't block {aid!r}: {aid!r} has {kw.name} and can be blocked "
                        f"only by creatures with {_either(kw.blockable_only_by)}, which {cid!r} "
                        f"doesn't have ({_cite(kw)})",
                    )
            for kw in mine:
                if kw.blocks_only and their_names.isdisjoint(kw.blocks_only):
                    raise self.fail(
                        path,
                        f"{cid!r} can't block {aid!r}: {cid!r} has {kw.name} and can block only "
                        f"creatures with {_either(kw.blocks_only)}, which {aid!r} doesn't have "
                        f"({_cite(kw)})",
                    )

    def enough_blockers(self, cid: str) -> None:
        """509.1b: an attacker that can't be blocked except by N or more creatures."""
        blockers = self.sc.blockers_of(cid)
        if not blockers:
            return
        for kw in self.keywords(cid):
            if len(blockers) < kw.min_blockers:
                who = ", ".join(repr(b) for b in blockers)
                raise self.fail(
                    f"combat.blockers.{blockers[0]}",
                    f"{cid!r} has {kw.name} and can't be blocked except by {kw.min_blockers} or "
                    f"more creatures, but only {who} {'blocks' if len(blockers) == 1 else 'block'}"
                    f" it ({_cite(kw)})",
                )
