"""What the kit's strategies draw: creatures, keyword instances, the plugins' state and scenario
events; and how a drawn document loses what the loader refuses of it. Hypothesis is imported
where something is drawn, so the pytest plugin (the fixtures) loads without it."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ecs_combat.plugin.definitions import COLORS, FROM_WORDS, Keyword
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import starting_toughness
from ecs_combat.rules.sides import KeywordSide
from ecs_combat.scenario.instances import parse_instance

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

Draw = Callable[["SearchStrategy[Any]"], Any]
#: Creature names drawn now and then (the id is the name otherwise), for keywords that read
#: names: digits, punctuation, case, accents and a repeat.
NAMES = ("Goblin 2", "Goblin-A", "goblin a", "Zebra", "Aardvark", "Ørn")


# The strategies drawn from, each built once per distinct argument: a strategy built at every
# draw (``st.integers(0, 3)`` inside a composite) is looked up in Hypothesis's strategy cache and
# validated each time, most of a drawn document's cost. What is drawn is the same.


@functools.lru_cache(maxsize=4096)
def integers(low: int, high: int) -> SearchStrategy[int]:
    """``st.integers(low, high)``, built once."""
    from hypothesis import strategies as st

    return st.integers(low, high)


@functools.cache
def booleans() -> SearchStrategy[bool]:
    """``st.booleans()``, built once."""
    from hypothesis import strategies as st

    return st.booleans()


@functools.lru_cache(maxsize=4096)
def _sampled(options: tuple[Any, ...]) -> SearchStrategy[Any]:
    from hypothesis import strategies as st

    return st.sampled_from(options)


def sampled(options: Sequence[Any]) -> SearchStrategy[Any]:
    """``st.sampled_from(options)``, built once for options that can be hashed."""
    key = tuple(options)
    try:
        return _sampled(key)
    except TypeError:  # unhashable options (plugin objects): built each time
        from hypothesis import strategies as st

        return st.sampled_from(key)


@functools.lru_cache(maxsize=4096)
def _lists(
    options: tuple[Any, ...], min_size: int, max_size: int, unique: bool
) -> SearchStrategy[list[Any]]:
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(options), min_size=min_size, max_size=max_size, unique=unique)


def lists_of(
    options: Sequence[Any], min_size: int = 0, max_size: int = 3, unique: bool = False
) -> SearchStrategy[list[Any]]:
    """``st.lists(st.sampled_from(options), ...)``, built once for options that can be
    hashed."""
    key = tuple(options)
    try:
        return _lists(key, min_size, max_size, unique)
    except TypeError:
        from hypothesis import strategies as st

        return st.lists(st.sampled_from(key), min_size=min_size, max_size=max_size, unique=unique)


def instance_text(draw: Draw, keyword: Keyword) -> str:
    """One instance of a keyword as a scenario writes it, with a drawn parameter where it
    takes one: ``bushido 2``, ``protection from red``."""

    if keyword.parameter == "number":
        return f"{keyword.name} {draw(integers(1, 3))}"
    if keyword.parameter == "color":
        return f"{keyword.name} from {draw(sampled(FROM_WORDS))}"
    if keyword.parameter == "pt":
        return f"{keyword.name} +{draw(integers(0, 2))}/+{draw(integers(0, 2))}"
    return keyword.name


def declared_side(table: dict[str, Any], registry: Registry) -> KeywordSide:
    """A drawn creature as the declaration rules see it."""
    instances = [parse_instance(text, registry) for text in table.get("keywords", [])]
    pairs: list[tuple[str, int | str | None]] = [(i.name, i.parameter) for i in instances]
    pairs += [(k, None) for k, n in table.get("counters", {}).items() if n > 0]
    colors = sum(1 << COLORS.index(c) for c in table.get("colors", []))
    return KeywordSide(pairs, colors, power=table["power"])


def may_block(attacker: KeywordSide, blocker: KeywordSide, registry: Registry) -> bool:
    """509.1a-b: the registry's rules let `blocker` block `attacker`."""
    return all(bool(r.test(blocker)) for r in registry.restrictions_of("block")) and all(
        bool(r.test(attacker, blocker)) for r in registry.restrictions_of("block-pair")
    )


def creature_table(
    draw: Draw, controller: str, keywords: Sequence[Keyword], registry: Registry
) -> dict[str, Any]:
    """A creature table: mostly power above 0, so most combats deal damage."""

    toughness = draw(integers(1, 5))
    table: dict[str, Any] = {
        "controller": controller,
        "power": draw(sampled([1, 2, 3, 4, 5, 0])),
        "toughness": toughness,
    }
    counters: dict[str, int] = {}
    if keywords:
        chosen = draw(lists_of(keywords, max_size=3))
        table["keywords"] = [instance_text(draw, kw) for kw in chosen]
        kinds = [kw.name for kw in keywords if kw.counter]
        if kinds and draw(integers(0, 3)) == 3:
            counters[draw(sampled(kinds))] = draw(integers(1, 2))
    kinds = list(registry.counter_kinds)  # +1/+1 and -1/-1: toughness down to 1 now and then
    if kinds and draw(integers(0, 3)) == 3:
        for kind in draw(lists_of(kinds, min_size=1, max_size=2, unique=True)):
            counters[kind] = draw(integers(1, 2))
        # it starts with toughness 1 or more (0 or less is an input error, RULES 11.2): an
        # attack trigger's or an event's -1/-1 counter can then bring it to 0
        toughness = starting_toughness(toughness, counters, registry)
        if toughness < 1:
            table["toughness"] += 1 - toughness
            toughness = 1
    if counters:
        table["counters"] = counters
    colors = draw(lists_of(COLORS, max_size=2, unique=True))
    if colors:
        table["colors"] = colors
    if draw(integers(0, 3)) == 3:
        table["damage"] = draw(integers(0, toughness - 1))
    if draw(booleans()):
        table["name"] = draw(sampled(NAMES))
    return table


def keywords_to_draw(registry: Registry, keywords: Sequence[str] | None) -> list[Keyword]:
    """The keywords to draw: by default every keyword of the registry but those with block
    requirements (509.1c, lure), whose drawn blocks the loader could refuse (blocks are drawn
    by the restrictions only)."""
    required = {r.keyword for r in registry.restrictions_of("block-requirement")}
    names = (
        [k for k in registry.keywords if k not in required] if keywords is None else list(keywords)
    )
    unknown = [k for k in names if registry.keyword(k) is None]
    if unknown:
        raise ValueError(f"keywords the registry doesn't have: {', '.join(unknown)}")
    return [kw for k in names if (kw := registry.keyword(k)) is not None]


def draw_state(draw: Draw, doc: dict[str, Any], registry: Registry) -> None:
    """Put the plugins' state (``register_state``) on some creatures and players of `doc`:
    yes-or-no state now and then, numbers from 0 to 3, and creature references to another
    creature of the same controller, written on both creatures (a soulbond pair)."""

    tables = {"creature": doc["creatures"], "player": doc["players"]}
    for owner, by_id in tables.items():
        for key, field_ in registry.state_fields(owner).items():
            for oid, table in by_id.items():
                if key in table or draw(integers(0, 3)) != 0:
                    continue
                if field_.kind == "bool":
                    table[key] = True
                elif field_.kind == "int":
                    table[key] = draw(integers(0, 3))
                elif field_.kind == "creature" and owner == "creature":
                    mates = [
                        c
                        for c, t in by_id.items()
                        if c != oid and t["controller"] == table["controller"] and key not in t
                    ]
                    if mates:
                        mate = draw(sampled(mates))
                        table[key], by_id[mate][key] = mate, oid


def _at(draw: Draw, registry: Registry) -> str:
    """When an event happens: as blockers are declared, or after a damage step."""

    points = ["declare-blockers", *(f"after {n}" for n in registry.step_names)]
    return str(draw(sampled(points)))


def draw_events(
    draw: Draw,
    doc: dict[str, Any],
    registry: Registry,
    keywords: Sequence[Keyword],
    instants_only: bool = True,
) -> list[dict[str, Any]]:
    """Up to two scenario events (RULES 7) on `doc`'s creatures and players: `keywords`
    granted and removed, counters (keyword counters of `keywords`, the registry's counter
    kinds), pumps, noncombat damage, destruction, removal from combat, and casts of the card
    library's instants."""

    creatures = list(doc["creatures"])
    players = list(doc["players"])
    if not creatures:
        return []
    kinds = [*registry.counter_kinds, *(k.name for k in keywords if k.counter)]
    cards = [
        c
        for c in registry.cards.values()
        if "creature" not in c.types and (not instants_only or "instant" in c.types)
    ]
    actions = ["pump", "damage", "destroy", "remove-from-combat"]
    actions += ["grant", "remove"] * bool(keywords) + ["counters"] * bool(kinds)
    actions += ["cast"] * bool(cards)
    names = {k.name for k in keywords}  # the plugins' actions of these keywords (regenerate)
    actions += [a for a, added in registry.event_actions.items() if added.keyword in names]
    found: list[dict[str, Any]] = []
    for i in range(draw(integers(0, 2))):
        action = draw(sampled(actions))
        event: dict[str, Any] = {"at": _at(draw, registry), "action": action}
        target = draw(sampled(creatures))
        if action in ("grant", "remove"):
            chosen = draw(lists_of(keywords, min_size=1, max_size=2))
            event.update(target=target, keywords=[instance_text(draw, k) for k in chosen])
        elif action == "counters":
            change = draw(sampled([1, 1, 2, -1]))
            event.update(target=target, counters={draw(sampled(kinds)): change})
        elif action == "pump":
            event.update(
                target=target,
                power=draw(integers(-1, 2)),
                toughness=draw(integers(-1, 2)),
            )
        elif action == "damage":
            event.update(
                target=draw(sampled([*creatures, *players])),
                amount=draw(integers(0, 3)),
            )
        elif action == "cast":
            card = draw(sampled(cards))
            event.update(card=card.name, caster=draw(sampled(players)))
            if card.target.kind == "any":
                event["target"] = draw(sampled([*creatures, *players]))
            elif card.target.kind != "none":
                event["target"] = target
            if card.creates is not None:
                event["token"] = f"token{i}"
        else:
            event["target"] = target
        found.append(event)
    return found


def drop_state_key(doc: dict[str, Any], path: str, registry: Registry) -> bool:
    """Leave out the state key an error's path names (``creatures.x.paired_with``)."""
    parts = path.split(".")
    for owner, table_key in (("creature", "creatures"), ("player", "players")):
        keys = registry.state_fields(owner)
        if len(parts) >= 3 and parts[0] == table_key and parts[2] in keys:
            table = doc[table_key].get(parts[1], {})
            removed = table.pop(parts[2], None) is not None
            for other in doc[table_key].values():  # a reference both ways: both sides
                if keys[parts[2]].kind == "creature" and other.get(parts[2]) == parts[1]:
                    del other[parts[2]]
                    removed = True
            return removed
    return False


def drop_blocks(doc: dict[str, Any], path: str, prefix: str = "combat") -> bool:
    """Leave out the block an error's path names (``combat.blockers.x``), or every block for
    an error of the whole declaration (``combat.blockers``: a requirement, blocks an attack
    trigger's departure left too few, RULES 11.3; ``combat.divide``: a division the scenario
    must give and the drawing doesn't, banding's, 702.22j-k)."""
    combat = doc.get("combat", {})
    blockers = combat.get("blockers")
    if not blockers or not (path.startswith(f"{prefix}.blockers") or path == f"{prefix}.divide"):
        return False
    named = path.removeprefix(f"{prefix}.blockers").removeprefix(".")
    if named in blockers:
        del blockers[named]
    else:
        blockers.clear()
    if not blockers:
        del combat["blockers"]
    return True


def drop_event(events: list[dict[str, Any]] | None, path: str, prefix: str) -> bool:
    """Leave out the event an error's path names (``events[1].target``)."""
    match = re.match(re.escape(prefix) + r"events\[(\d+)\]", path)
    if match is None or not events or int(match.group(1)) >= len(events):
        return False
    del events[int(match.group(1))]
    return True


def copy_document(doc: dict[str, Any]) -> dict[str, Any]:
    copied: dict[str, Any] = json.loads(json.dumps(doc))
    return copied
