"""The keywords a combat uses: what decides which systems and hooks both engines call."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.model import CreatureSpec, Scenario


def used_keywords(
    scenarios: Sequence[Scenario],
    registry: Registry,
    creatures: Iterable[CreatureSpec] = (),
    cards: Iterable[str] = (),
) -> tuple[str, ...]:
    """The keywords some scenario uses (printed, counters, events, cards), and some other
    creatures and cards, in registry order: a batch's masks need bits for these only, however
    many keywords are installed."""
    used: set[str] = set()
    for name in cards:
        found = registry.card(name)
        if found is not None:
            used.update(found.keywords)

    def creature(spec: CreatureSpec) -> None:
        used.update(spec.keywords)
        used.update(k for k in spec.counters if k in registry.keywords)

    for spec in creatures:
        creature(spec)
    for sc in scenarios:
        for spec in sc.creatures.values():
            creature(spec)
        for ev in sc.events:
            used.update(ev.keywords)
            if ev.action in registry.event_actions:  # the keyword the action belongs to
                used.add(registry.event_actions[ev.action].keyword)
            used.update(k for k in ev.counters if k in registry.keywords)
            if ev.creature is not None:
                creature(ev.creature)
            if ev.card is not None:
                card = registry.card(ev.card)
                if card is not None:
                    used.update(card.keywords)
    return with_required(registry, used)  # what a used keyword's static ability may give


def with_required(registry: Registry, keywords: Iterable[str]) -> tuple[str, ...]:
    """The keywords and those their definitions require, in registry order."""
    used = set(keywords)
    todo = list(used)
    while todo:
        kw = registry.keyword(todo.pop())
        for needed in kw.requires if kw is not None else ():
            if needed not in used:
                used.add(needed)
                todo.append(needed)
    return tuple(k for k in registry.keywords if k in used)


def static_ability_keywords(registry: Registry) -> frozenset[str] | None:
    """The keywords whose static abilities (``static_keywords`` hooks) may change a creature:
    a static ability belongs to its plugin's keywords. None if a plugin with one owns no
    keyword (it may change any creature)."""
    out: set[str] = set()
    for plugin in registry.plugins_implementing("static_keywords"):
        owned = {k for k, p in registry.keyword_plugin.items() if p == plugin}
        if not owned:
            return None
        out |= owned
    return frozenset(out)


def attack_system_keywords(registry: Registry, taps_matter: bool = True) -> frozenset[str] | None:
    """The keywords of the ``declare-attackers`` systems, which may change creatures before
    blockers are declared; None if one names no keyword (it runs for every creature).
    Without `taps_matter`, those of systems that change only which attackers tap
    (``only_writes``, writing at most ``taps``) are left out."""
    out: set[str] = set()
    for s in registry.systems_at("declare-attackers"):
        if not taps_matter and s.system.only_writes and s.system.writes <= {"taps"}:
            continue
        if not s.system.keywords:
            return None
        out |= s.system.keywords
    return frozenset(out)
