"""A scenario's `[[events]]` (CONTRACT.md sections 1 and 6): the actions and points, reading and
checking each event, and the creature tokens that cast cards create."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ecs_combat.plugin.definitions import Card, token_id
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.checks import Checker, type_name
from ecs_combat.scenario.instances import Parameter, parse_instance
from ecs_combat.scenario.model import CreatureSpec, Event, PlayerSpec, Scenario
from ecs_combat.scenario.tokens import reserved_tokens
from ecs_combat.suggest import did_you_mean


class Parser(Protocol):
    """What reading the events needs of the scenario's reader
    (:class:`ecs_combat.scenario.loader.Parser`): its checker, registry and document, the
    players and creatures read so far, and its readers of keywords, counters, player
    references and creature tables."""

    c: Checker
    registry: Registry
    doc: dict[str, Any]
    players: dict[str, PlayerSpec]
    creatures: dict[str, CreatureSpec]

    def keywords(self, value: Any, path: str) -> tuple[tuple[str, ...], tuple[Parameter, ...]]:
        """A keyword list: the names and parameters of its instances."""
        ...

    def counters(self, value: Any, path: str, minimum: int | None) -> dict[str, int]:
        """A table of counters by kind."""
        ...

    def player_ref(self, value: Any, path: str) -> str:
        """A player's id that the scenario declares."""
        ...

    def creature(self, cid: str, raw: Any, path: str) -> CreatureSpec:
        """A creature table, validated."""
        ...


EVENT_ACTIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # action: (required fields, optional fields)
    "grant": (frozenset({"target", "keywords"}), frozenset()),
    "remove": (frozenset({"target", "keywords"}), frozenset()),
    "counters": (frozenset({"target", "counters"}), frozenset()),
    "pump": (frozenset({"target"}), frozenset({"power", "toughness"})),
    "damage": (frozenset({"target", "amount"}), frozenset()),
    "enter": (frozenset({"creature", "attacking"}), frozenset()),
    "remove-from-combat": (frozenset({"target"}), frozenset()),
    "destroy": (frozenset({"target"}), frozenset()),
    # `target` unless the card targets nothing; `token` for a card that creates a creature
    "cast": (frozenset({"card", "caster"}), frozenset({"target", "token"})),
}
DECLARE_BLOCKERS = "declare-blockers"
#: The fields of an event action a plugin adds (:class:`~ecs_combat.plugin.event_actions.EventAction`).
PLUGIN_ACTION_FIELDS: tuple[frozenset[str], frozenset[str]] = (frozenset({"target"}), frozenset())


def event_actions(registry: Registry) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Every event action a scenario may use with the loaded plugins, with its required and
    optional fields: the core's, then the plugins'."""
    return EVENT_ACTIONS | {name: PLUGIN_ACTION_FIELDS for name in registry.event_actions}


def parse_events(p: Parser, scenario: Scenario) -> list[Event]:
    """The `[[events]]` of a scenario document, their references checked in the order the
    events happen."""
    raw = p.doc.get("events", [])
    if not isinstance(raw, list):
        raise p.c.fail("events", f"must be a list of tables, not {type_name(raw)}")
    step_names = p.registry.step_names
    points = [DECLARE_BLOCKERS, *(f"after {s}" for s in step_names)]
    parsed: list[Event] = []
    for i, item in enumerate(raw):
        path = f"events[{i}]"
        t = p.c.table(item, path)
        for key in ("at", "action"):
            if key not in t:
                raise p.c.fail(f"{path}.{key}", "missing")
        at = " ".join(p.c.string(t["at"], f"{path}.at").split())
        if at not in points:
            raise p.c.fail(f"{path}.at", f"unknown point {at!r} (known: {', '.join(points)})")
        action = p.c.string(t["action"], f"{path}.action")
        actions = event_actions(p.registry)
        if action not in actions:
            raise p.c.fail(
                f"{path}.action",
                f"unknown action {action!r} (known: {', '.join(actions)})"
                + did_you_mean(action, list(actions)),
            )
        required, optional = actions[action]
        p.c.keys(t, path, required | optional | {"at", "action"})
        for key in sorted(required):
            if key not in t:
                raise p.c.fail(f"{path}.{key}", f"missing (the {action} action needs it)")
        parsed.append(Event(index=i, at=at, action=action, path=path))
        _event_fields(p, parsed[-1], t)

    # Check references in the order events happen, so a creature entering later can't be
    # the target of an earlier event.
    order = {p: n for n, p in enumerate(points)}
    # the token copies creatures may make (myriad's) may be named: they exist once made
    present: set[str] = set(p.creatures) | {
        token_id(source, player) for source, player in reserved_tokens(scenario, p.registry)
    }
    for ev in sorted(parsed, key=lambda e: (order[e.at], e.index)):
        _event_refs(p, ev, scenario, present)
    return parsed


def _event_fields(p: Parser, ev: Event, t: dict[str, Any]) -> None:
    path = ev.path
    if "keywords" in t:
        names = p.c.string_list(t["keywords"], f"{path}.keywords")
        if not names:
            raise p.c.fail(f"{path}.keywords", "must name at least one keyword")
        ev.keywords, ev.parameters = p.keywords(names, f"{path}.keywords")
    if "counters" in t:
        ev.counters = p.counters(t["counters"], f"{path}.counters", None)
    if ev.action == "pump":
        if "power" not in t and "toughness" not in t:
            raise p.c.fail(path, "the pump action needs power or toughness")
        ev.power = p.c.integer(t.get("power", 0), f"{path}.power")
        ev.toughness = p.c.integer(t.get("toughness", 0), f"{path}.toughness")
    if "amount" in t:
        ev.amount = p.c.integer(t["amount"], f"{path}.amount", 0)
    if "card" in t:
        name = p.c.string(t["card"], f"{path}.card")
        card = p.registry.spell(name)
        if card is None:
            raise p.c.fail(f"{path}.card", p.registry.unknown_card_reason(name))
        for kw in sorted(card.keywords):
            if p.registry.keyword(kw) is None:
                raise p.c.fail(
                    f"{path}.card",
                    f"{card.name} needs {p.registry.unknown_keyword_reason(kw)}",
                )
        ev.card = card.name
    if "caster" in t:
        ev.caster = p.player_ref(t["caster"], f"{path}.caster")
    if ev.action == "cast":
        _cast_fields(p, ev, t)
    if "attacking" in t:
        ev.attacking = p.player_ref(t["attacking"], f"{path}.attacking")
    if "target" in t:
        ev.target = p.c.string(t["target"], f"{path}.target")
    if "creature" in t:
        raw = p.c.table(t["creature"], f"{path}.creature")
        if "id" not in raw:
            raise p.c.fail(f"{path}.creature.id", "missing")
        cid = p.c.string(raw["id"], f"{path}.creature.id")
        ev.creature = p.creature(cid, raw, f"{path}.creature")


def _cast_fields(p: Parser, ev: Event, t: dict[str, Any]) -> None:
    """A `cast` event's `target` and `token`, as its card asks (CONTRACT.md section 6)."""
    path = ev.path
    assert ev.card is not None and ev.caster is not None
    card = p.registry.spell(ev.card)
    assert card is not None
    kind = card.target.kind
    if kind == "none" and "target" in t:
        raise p.c.fail(f"{path}.target", f"{card.name} has no target")
    if kind != "none" and "target" not in t:
        what = "a creature or a player" if kind == "any" else "a creature"
        raise p.c.fail(f"{path}.target", f"missing ({card.name} targets {what})")
    if card.creates is None:
        if "token" in t:
            raise p.c.fail(f"{path}.token", f"{card.name} creates no creature token")
        return
    if "token" not in t:
        raise p.c.fail(
            f"{path}.token",
            f"missing: the id of the {card.creates.name} token {card.name} creates",
        )
    ev.token = p.c.string(t["token"], f"{path}.token")
    try:
        ev.creature = token_creature(card, ev.token, ev.caster, p.registry, f"{path}.token")
    except ValueError as exc:
        raise p.c.fail(f"{path}.card", f"{card.name}'s token: {exc}") from None


def _event_refs(p: Parser, ev: Event, scenario: Scenario, present: set[str]) -> None:
    path = ev.path
    if ev.creature is not None and ev.token is not None:
        if ev.token in present or ev.token in p.players:
            raise p.c.fail(f"{path}.token", f"duplicate id {ev.token!r}")
        present.add(ev.token)
    elif ev.creature is not None:
        cid = ev.creature.id
        if cid in present or cid in p.players:
            raise p.c.fail(f"{path}.creature.id", f"duplicate id {cid!r}")
        assert ev.attacking is not None
        if ev.attacking == ev.creature.controller:
            raise p.c.fail(
                f"{path}.attacking", f"{cid!r} can't attack its own controller {ev.attacking!r}"
            )
        present.add(cid)
    if ev.target is None:
        return
    if ev.target in p.players and (ev.action == "damage" or _any_target(p.registry, ev)):
        return
    if ev.target not in present:
        if ev.target in p.players:
            raise p.c.fail(f"{path}.target", f"{ev.target!r} is a player, not a creature")
        later = " (it enters only later)" if ev.target in entered_ids(p.doc) else ""
        hint = "" if later else did_you_mean(ev.target, sorted(present))
        raise p.c.fail(f"{path}.target", f"unknown creature {ev.target!r}{later}{hint}")


def _any_target(registry: Registry, ev: Event) -> bool:
    """A `cast` event whose card may target a player ("any target", 115.4)."""
    card = registry.spell(ev.card) if ev.card is not None else None
    return card is not None and card.target.kind == "any"


def entered_ids(doc: Mapping[str, Any]) -> list[str]:
    """The ids of the creatures that enter through a document's events (as they are written:
    the events are not checked yet)."""
    raw = doc.get("events", [])
    ids: list[str] = []
    if isinstance(raw, list):
        for ev in raw:
            if isinstance(ev, Mapping) and isinstance(ev.get("creature"), Mapping):
                cid = ev["creature"].get("id")
                if isinstance(cid, str):
                    ids.append(cid)
            if isinstance(ev, Mapping) and isinstance(ev.get("token"), str):
                ids.append(ev["token"])
    return ids


def token_creature(
    card: Card, token: str, caster: str, registry: Registry, path: str = ""
) -> CreatureSpec:
    """The creature token a card creates (`Card.creates`) with the id `token`: under the
    caster's control, summoning sick (302.6), not in combat, with the plugins' default state.
    ValueError if its keywords are not loaded."""
    made = card.creates
    if made is None:
        raise ValueError(f"{card.name} creates no creature token")
    found = [parse_instance(text, registry) for text in made.keywords]
    state: dict[str, Any] = {}
    for key, f in registry.state_fields("creature").items():
        state[key] = state[f.default_from] if f.default_from is not None else f.default
    return CreatureSpec(
        id=token,
        name=made.name,
        controller=caster,
        power=made.power,
        toughness=made.toughness,
        keywords=tuple(i.name for i in found),
        parameters=tuple(i.parameter for i in found),
        colors=made.colors,
        state=state,
        summoning_sick=True,
        path=path,
        token=True,
    )
