"""A test kit for keyword plugins: random legal scenarios, and the engines checked against
each other.

A plugin's batched form must give exactly what its reference form gives (CONTRACT.md 2). With
this module, a plugin package tests that in a few lines::

    from hypothesis import given, settings
    from ecs_combat.testing import assert_engines_agree, registry_with, scenarios

    REGISTRY = registry_with("ecs_combat_alpha_strike")

    @settings(max_examples=200, deadline=None)
    @given(scenarios(REGISTRY, keywords=["alpha strike", "first strike"]))
    def test_engines_agree(doc):
        assert_engines_agree(REGISTRY, doc)

:func:`scenarios` draws the plugins' state and scenario events too; :func:`turns` draws whole
turns with several combat phases, checked with :func:`assert_turn_engines_agree`.

It is also a pytest plugin (entry point ``ecs_combat`` in the group ``pytest11``, loaded
wherever ecs-combat is installed): the fixture :func:`ecs_combat_registry` gives the bundled
plugins plus those :func:`ecs_combat_plugins` names (override that fixture in a
``conftest.py`` to name yours).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Any

import pytest

from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.definitions import COLORS, FROM_WORDS, Keyword
from ecs_combat.plugin.phases import COMBAT
from ecs_combat.plugin.registry import Registry, load_registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.legality import least_blockers, why_cannot_attack
from ecs_combat.rules.sides import KeywordSide
from ecs_combat.scenario.instances import parse_instance
from ecs_combat.scenario.loader import parse_scenario
from ecs_combat.scenario.turn_loader import parse_turn

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = [
    "assert_engines_agree",
    "assert_turn_engines_agree",
    "bundled_plugins",
    "draw_events",
    "draw_state",
    "ecs_combat_plugins",
    "ecs_combat_registry",
    "instance_text",
    "legal_scenario",
    "legal_turn",
    "phase_adders",
    "registry_with",
    "resolve_both",
    "resolve_turn_both",
    "scenarios",
    "turns",
]

# Hypothesis is imported where a strategy is drawn, so the pytest plugin (the fixtures) loads
# without it.
Draw = Callable[["SearchStrategy[Any]"], Any]
#: Creature names drawn now and then (the id is the name otherwise), for keywords that read
#: names: digits, punctuation, case, accents and a repeat.
NAMES = ("Goblin 2", "Goblin-A", "goblin a", "Zebra", "Aardvark", "Ørn")


def bundled_plugins() -> dict[str, str]:
    """The plugins bundled with ecs-combat: entry-point name -> module."""
    return {
        ep.name: ep.value
        for ep in metadata.distribution("ecs-combat").entry_points
        if ep.group == "ecs_combat"
    }


def registry_with(*modules: str, extra: Sequence[object] = ()) -> Registry:
    """A registry of exactly the bundled plugins plus the named modules (and plugin objects
    `extra`): no other installed plugin, whatever the environment says."""
    bundled = [m for _, m in sorted(bundled_plugins().items())]
    return load_registry(load=[*bundled, *modules], autoload=False, extra=extra)


# -- scenarios ------------------------------------------------------------------------------


def instance_text(draw: Draw, keyword: Keyword) -> str:
    """One instance of a keyword as a scenario writes it, with a drawn parameter where it
    takes one: ``bushido 2``, ``protection from red``."""
    from hypothesis import strategies as st

    if keyword.parameter == "number":
        return f"{keyword.name} {draw(st.integers(1, 3))}"
    if keyword.parameter == "color":
        return f"{keyword.name} from {draw(st.sampled_from(FROM_WORDS))}"
    return keyword.name


def _side(table: dict[str, Any], registry: Registry) -> KeywordSide:
    """A drawn creature as the declaration rules see it."""
    instances = [parse_instance(text, registry) for text in table.get("keywords", [])]
    pairs: list[tuple[str, int | str | None]] = [(i.name, i.parameter) for i in instances]
    pairs += [(k, None) for k, n in table.get("counters", {}).items() if n > 0]
    colors = sum(1 << COLORS.index(c) for c in table.get("colors", []))
    return KeywordSide(pairs, colors, power=table["power"])


def _may_block(attacker: KeywordSide, blocker: KeywordSide, registry: Registry) -> bool:
    """509.1a-b: the registry's rules let `blocker` block `attacker`."""
    return all(bool(r.test(blocker)) for r in registry.restrictions_of("block")) and all(
        bool(r.test(attacker, blocker)) for r in registry.restrictions_of("block-pair")
    )


def _creature(
    draw: Draw, controller: str, keywords: Sequence[Keyword], registry: Registry
) -> dict[str, Any]:
    """A creature table: mostly power above 0, so most combats deal damage."""
    from hypothesis import strategies as st

    toughness = draw(st.integers(1, 5))
    table: dict[str, Any] = {
        "controller": controller,
        "power": draw(st.sampled_from([1, 2, 3, 4, 5, 0])),
        "toughness": toughness,
    }
    if keywords:
        chosen = draw(st.lists(st.sampled_from(keywords), max_size=3))
        table["keywords"] = [instance_text(draw, kw) for kw in chosen]
        counters = [kw.name for kw in keywords if kw.counter]
        if counters and draw(st.integers(0, 3)) == 3:
            table["counters"] = {draw(st.sampled_from(counters)): draw(st.integers(1, 2))}
    colors = draw(st.lists(st.sampled_from(COLORS), max_size=2, unique=True))
    if colors:
        table["colors"] = colors
    if draw(st.integers(0, 3)) == 3:
        table["damage"] = draw(st.integers(0, toughness - 1))
    if draw(st.booleans()):
        table["name"] = draw(st.sampled_from(NAMES))
    return table


def scenarios(
    registry: Registry,
    keywords: Sequence[str] | None = None,
    players: int = 2,
    attackers: int = 3,
    blockers: int = 3,
    state: bool = True,
    events: bool = True,
) -> SearchStrategy[dict[str, Any]]:
    """Scenario documents (as read from TOML) the loader accepts, whose creatures have the
    given `keywords` (default: every keyword of the registry but those with block requirements),
    with drawn parameters where a
    keyword takes one, random colors and now and then a name.

    Player ``A`` attacks with up to `attackers` creatures; up to `blockers` creatures of the
    other players block, each only where the registry's restrictions allow (509.1), and an
    attacker left with fewer blockers than it needs is unblocked. Attackers mostly have power
    above 0 and are mostly blocked, so most battles reach a damage step that deals damage.

    With `state`, the plugins' state (:meth:`Registry.state_fields`) is drawn now and then:
    yes-or-no and number state, creature references paired both ways (soulbond). With
    `events`, a few scenario events (``events``, RULES 7) happen at drawn points: keywords
    granted and removed, counters, pumps, noncombat damage, destruction, removal from combat
    and the library's instants cast. What the loader or the reference engine refuses of the
    drawn state and events is left out, so every document is legal.
    """
    from hypothesis import strategies as st

    kws = _keywords_for(registry, keywords)
    return st.composite(_scenario)(registry, kws, players, attackers, blockers, state, events)


def _scenario(
    draw: Draw,
    registry: Registry,
    kws: Sequence[Keyword],
    players: int,
    attackers: int,
    blockers: int,
    state: bool = False,
    events: bool = False,
) -> dict[str, Any]:
    from hypothesis import strategies as st

    pids = ["A", "B", "C", "D"][: max(2, min(players, 4))]
    doc_players = {p: {"life": draw(st.integers(1, 20))} for p in pids}
    creatures: dict[str, dict[str, Any]] = {}
    for i in range(draw(st.integers(1, attackers))):
        creatures[f"a{i}"] = _creature(draw, "A", kws, registry)
    for i in range(draw(st.integers(0, blockers))):
        creatures[f"b{i}"] = _creature(draw, draw(st.sampled_from(pids[1:])), kws, registry)
    sides = {cid: _side(t, registry) for cid, t in creatures.items()}

    attacking: dict[str, str] = {}
    for cid in creatures:
        able = cid.startswith("a") and why_cannot_attack(sides[cid], False, registry) is None
        if able and draw(st.integers(0, 7)) < 7:
            attacking[cid] = draw(st.sampled_from(pids[1:]))
    blocks: dict[str, list[str]] = {}
    for cid, table in creatures.items():
        if cid in attacking:
            continue
        options = [
            a
            for a, p in attacking.items()
            if p == table["controller"] and _may_block(sides[a], sides[cid], registry)
        ]
        if options and draw(st.integers(0, 7)) < 7:
            blocks[cid] = [draw(st.sampled_from(options))]
    for a in attacking:  # too few blockers means none (509.1b)
        need, _ = least_blockers(sides[a], registry)
        mine = [b for b, attacked in blocks.items() if a in attacked]
        if 0 < len(mine) < need:
            for b in mine:
                del blocks[b]
    combat: dict[str, Any] = {"attackers": attacking}
    if blocks:
        combat["blockers"] = {b: a[0] for b, a in blocks.items()}
    doc: dict[str, Any] = {"players": doc_players, "creatures": creatures, "combat": combat}
    if state:
        draw_state(draw, doc, registry)
    if events:
        found = draw_events(draw, doc, registry, kws)
        if found:
            doc["events"] = found
    if state or events:
        legal_scenario(doc, registry)
    return doc


# -- plugin state and events ----------------------------------------------------------------


def draw_state(draw: Draw, doc: dict[str, Any], registry: Registry) -> None:
    """Put the plugins' state (``register_state``) on some creatures and players of `doc`:
    yes-or-no state now and then, numbers from 0 to 3, and creature references to another
    creature of the same controller, written on both creatures (a soulbond pair)."""
    from hypothesis import strategies as st

    tables = {"creature": doc["creatures"], "player": doc["players"]}
    for owner, by_id in tables.items():
        for key, field_ in registry.state_fields(owner).items():
            for oid, table in by_id.items():
                if key in table or draw(st.integers(0, 3)) != 0:
                    continue
                if field_.kind == "bool":
                    table[key] = True
                elif field_.kind == "int":
                    table[key] = draw(st.integers(0, 3))
                elif field_.kind == "creature" and owner == "creature":
                    mates = [
                        c
                        for c, t in by_id.items()
                        if c != oid and t["controller"] == table["controller"] and key not in t
                    ]
                    if mates:
                        mate = draw(st.sampled_from(mates))
                        table[key], by_id[mate][key] = mate, oid


def _at(draw: Draw, registry: Registry) -> str:
    """When an event happens: as blockers are declared, or after a damage step."""
    from hypothesis import strategies as st

    points = ["declare-blockers", *(f"after {n}" for n in registry.step_names)]
    return str(draw(st.sampled_from(points)))


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
    from hypothesis import strategies as st

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
    found: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, 2))):
        action = draw(st.sampled_from(actions))
        event: dict[str, Any] = {"at": _at(draw, registry), "action": action}
        target = draw(st.sampled_from(creatures))
        if action in ("grant", "remove"):
            chosen = draw(st.lists(st.sampled_from(keywords), min_size=1, max_size=2))
            event.update(target=target, keywords=[instance_text(draw, k) for k in chosen])
        elif action == "counters":
            change = draw(st.sampled_from([1, 1, 2, -1]))
            event.update(target=target, counters={draw(st.sampled_from(kinds)): change})
        elif action == "pump":
            event.update(
                target=target,
                power=draw(st.integers(-1, 2)),
                toughness=draw(st.integers(-1, 2)),
            )
        elif action == "damage":
            event.update(
                target=draw(st.sampled_from([*creatures, *players])),
                amount=draw(st.integers(0, 3)),
            )
        elif action == "cast":
            card = draw(st.sampled_from(cards))
            event.update(card=card.name, caster=draw(st.sampled_from(players)))
            if card.target.kind == "any":
                event["target"] = draw(st.sampled_from([*creatures, *players]))
            elif card.target.kind != "none":
                event["target"] = target
            if card.creates is not None:
                event["token"] = f"token{i}"
        else:
            event["target"] = target
        found.append(event)
    return found


def _drop_state_key(doc: dict[str, Any], path: str, registry: Registry) -> bool:
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


def _drop_event(events: list[dict[str, Any]] | None, path: str, prefix: str) -> bool:
    """Leave out the event an error's path names (``events[1].target``)."""
    match = re.match(re.escape(prefix) + r"events\[(\d+)\]", path)
    if match is None or not events or int(match.group(1)) >= len(events):
        return False
    del events[int(match.group(1))]
    return True


def legal_scenario(doc: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """Leave out of `doc` the drawn events and plugin state the loader or the reference
    engine refuses, until both accept it; returns `doc`."""
    reference, _ = _engines_of(registry)
    for _ in range(12):
        try:
            reference.resolve(parse_scenario(_copy(doc), registry, "scenario.toml"))
            return doc
        except InputError as exc:
            if not (
                _drop_event(doc.get("events"), exc.path, "")
                or _drop_state_key(doc, exc.path, registry)
            ):
                raise
            if "events" in doc and not doc["events"]:
                del doc["events"]
    return doc


def _copy(doc: dict[str, Any]) -> dict[str, Any]:
    copied: dict[str, Any] = json.loads(json.dumps(doc))
    return copied


# -- the engines against each other ----------------------------------------------------------

_engines: list[tuple[Registry, ReferenceEngine, BatchedEngine]] = []


def _engines_of(registry: Registry) -> tuple[ReferenceEngine, BatchedEngine]:
    for known, reference, batched in _engines:
        if known is registry:
            return reference, batched
    _engines[:] = [(registry, ReferenceEngine(registry), BatchedEngine(registry))]
    return _engines[0][1], _engines[0][2]


def _outcome(run: Callable[[], dict[str, Any]]) -> Any:
    try:
        return run()
    except InputError as exc:
        return ("InputError", str(exc))
    except RefusedError as exc:
        return ("refused", str(exc))


def resolve_both(
    registry: Registry, doc: dict[str, Any], file: str = "scenario.toml"
) -> tuple[Any, Any]:
    """The ``resolve --json`` document of a scenario document on the reference engine and on
    the batched engine; an input error found as it resolves is ``("InputError", message)``, a
    refusal of the batched engine ``("refused", message)``. An invalid document raises the
    loader's :class:`InputError`."""
    scenario = parse_scenario(_copy(doc), registry, file)
    reference, batched = _engines_of(registry)
    return (
        _outcome(lambda: reference.resolve(scenario).to_json()),
        _outcome(lambda: batched.resolve_many([scenario])[0].to_json()),
    )


def assert_engines_agree(
    registry: Registry, doc: dict[str, Any], file: str = "scenario.toml", refusal_ok: bool = False
) -> Any:
    """Resolve a scenario document on both engines and fail unless they give the same
    ``resolve --json`` document, or the same input error. A refusal of the batched engine
    fails too, unless `refusal_ok`. Returns the reference engine's outcome."""
    return _agree(doc, *resolve_both(registry, doc, file), refusal_ok)


def _agree(doc: dict[str, Any], ref: Any, bat: Any, refusal_ok: bool) -> Any:
    """Fail unless the two outcomes are equal (a refusal of the batched engine fails too,
    unless `refusal_ok`); return the reference engine's."""
    if isinstance(bat, tuple) and bat[0] == "refused":
        if refusal_ok:
            return ref
        raise AssertionError(f"the batched engine refuses the document: {bat[1]}")
    if ref != bat:
        raise AssertionError(
            "the engines disagree on\n"
            + json.dumps(doc, indent=1)
            + f"\nreference: {json.dumps(ref)}\nbatched:   {json.dumps(bat)}"
        )
    return ref


# -- turns ----------------------------------------------------------------------------------

_adders: dict[int, tuple[Registry, list[str], list[str]]] = {}


def phase_adders(registry: Registry) -> tuple[list[str], list[str]]:
    """The card library's cards that add a combat phase to a turn (500.8, the plugins' phase
    rules), found by trying each on a small turn: the spells that do when the active player
    casts them in the first main phase (those that target nothing), and the creature cards
    that do when a defending player controls one."""
    known = _adders.get(id(registry))
    if known is not None and known[0] is registry:
        return known[1], known[2]

    def combat_phases(creatures: dict[str, Any], casts: list[dict[str, Any]]) -> int:
        doc = {
            "players": {"A": {}, "B": {}},
            "creatures": {"a0": {"controller": "A", "power": 1, "toughness": 1}, **creatures},
            "turn": {"active": "A", "casts": casts},
        }
        try:
            phases = parse_turn(doc, registry, "turn.toml").phases
        except InputError:
            return 0
        return len([p for p in phases if p.kind == COMBAT])

    spells, creatures = [], []
    for card in registry.cards.values():
        if "creature" in card.types:
            if combat_phases({"b0": {"card": card.name, "controller": "B"}}, []) > 1:
                creatures.append(card.name)
        elif (
            card.target.kind == "none"
            and card.creates is None
            and combat_phases({}, [{"card": card.name, "caster": "A", "main": 1}]) > 1
        ):
            spells.append(card.name)
    _adders[id(registry)] = (registry, spells, creatures)
    return spells, creatures


def turns(
    registry: Registry,
    keywords: Sequence[str] | None = None,
    players: int = 2,
    creatures: int = 3,
    combats: int = 3,
    state: bool = True,
    events: bool = True,
) -> SearchStrategy[dict[str, Any]]:
    """Turn documents (RULES 8: ``turn`` and ``[[combats]]``) the loader and both turn
    engines accept, with several combat phases: player ``A``'s turn, with a spell that adds
    combat phases cast in its first main phase (Resurgence: another combat phase of ``A``'s)
    and now and then a creature card that adds them for a defending player (Throat Wolf: a
    combat phase of its own after ``A``'s first), where the registry has such cards
    (:func:`phase_adders`). Each player has up to `creatures` creatures with the given `keywords`
    (as for :func:`scenarios`); in each of the first `combats` combat phases its player
    attacks with some creatures and the others block where the registry's restrictions allow,
    with a few events (`events`) and plugin state (`state`) as for :func:`scenarios`. What a
    turn engine refuses as the turn is played (a creature tapped or dead by then) is left
    out, so every document is legal; most turns deal combat damage."""
    from hypothesis import strategies as st

    kws = _keywords_for(registry, keywords)
    return st.composite(_turn)(registry, kws, players, creatures, combats, state, events)


def _keywords_for(registry: Registry, keywords: Sequence[str] | None) -> list[Keyword]:
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


def _turn(
    draw: Draw,
    registry: Registry,
    kws: Sequence[Keyword],
    players: int,
    creatures: int,
    combats: int,
    state: bool,
    events: bool,
) -> dict[str, Any]:
    from hypothesis import strategies as st

    pids = ["A", "B", "C", "D"][: max(2, min(players, 4))]
    doc_players = {p: {"life": draw(st.sampled_from([20, 20, 10, 5, 3]))} for p in pids}
    tables: dict[str, dict[str, Any]] = {}
    for p in pids:
        for i in range(draw(st.integers(1 if p == "A" else 0, creatures))):
            tables[f"{p.lower()}{i}"] = _creature(draw, p, kws, registry)
    casts: list[dict[str, Any]] = []
    spells, creature_cards = phase_adders(registry)
    if spells and draw(st.integers(0, 4)) > 0:
        casts.append({"card": draw(st.sampled_from(spells)), "caster": "A", "main": 1})
    if creature_cards and draw(st.integers(0, 2)) == 0:
        owner = draw(st.sampled_from(pids[1:]))
        tables[f"{owner.lower()}_adds"] = {
            "card": draw(st.sampled_from(creature_cards)),
            "controller": owner,
        }
    doc: dict[str, Any] = {
        "players": doc_players,
        "creatures": tables,
        "turn": {"active": "A", "casts": casts},
    }
    if state:
        draw_state(draw, doc, registry)
    phases = [p for p in parse_turn(_copy(doc), registry, "turn.toml").phases if p.kind == COMBAT]
    sides = {cid: _side(t, registry) for cid, t in tables.items() if "card" not in t}
    entries: list[dict[str, Any]] = []
    for phase in phases[:combats]:
        mine = [c for c, t in tables.items() if t["controller"] == phase.player]
        if phase.only_attackers is not None:
            mine = [c for c in mine if c in phase.only_attackers]
        others = [p for p in pids if p != phase.player]
        attacking = {
            c: draw(st.sampled_from(others))
            for c in mine
            if (c not in sides or why_cannot_attack(sides[c], False, registry) is None)
            and draw(st.integers(0, 5)) > 0
        }
        blocks: dict[str, str] = {}
        for cid, table in tables.items():
            if cid in attacking or table["controller"] == phase.player or cid not in sides:
                continue
            options = [
                a
                for a, p in attacking.items()
                if p == table["controller"]
                and (a not in sides or _may_block(sides[a], sides[cid], registry))
            ]
            if options and draw(st.integers(0, 3)) > 0:
                blocks[cid] = draw(st.sampled_from(options))
        for a in attacking:  # too few blockers means none (509.1b)
            need, _ = least_blockers(sides[a], registry) if a in sides else (1, None)
            mine_blocking = [b for b, attacked in blocks.items() if attacked == a]
            if 0 < len(mine_blocking) < need:
                for b in mine_blocking:
                    del blocks[b]
        entry: dict[str, Any] = {"attackers": attacking}
        if blocks:
            entry["blockers"] = blocks
        if events:
            found = draw_events(draw, doc, registry, kws)
            if found:
                entry["events"] = found
        entries.append(entry)
    doc["combats"] = entries
    return legal_turn(doc, registry)


def _drop_declaration(doc: dict[str, Any], path: str) -> bool:
    """Leave out what an error's path in ``combats[k]`` names: an event, a blocker, an
    attacker (and the blocks of it), else that combat phase's entry and the later ones."""
    match = re.match(r"combats\[(\d+)\]\.?(\w+)?\.?([^.\[]+)?", path)
    if match is None or int(match.group(1)) >= len(doc.get("combats", [])):
        return False
    k, table, name = int(match.group(1)), match.group(2), match.group(3)
    entry = doc["combats"][k]
    if table == "events" and _drop_event(entry.get("events"), path, f"combats[{k}].") is True:
        return True
    if table == "blockers" and entry.get("blockers"):
        if name in entry["blockers"]:
            del entry["blockers"][name]
        else:
            del entry["blockers"]
        return True
    if table == "attackers" and name in entry.get("attackers", {}):
        del entry["attackers"][name]
        for b, a in list(entry.get("blockers", {}).items()):
            if a == name:
                del entry["blockers"][b]
        return True
    del doc["combats"][k:]
    return True


def legal_turn(doc: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """Leave out of a turn document what the loader or the reference turn engine refuses
    (drawn events and state, declarations of creatures tapped or gone by their combat
    phase), until both accept it; returns `doc`."""
    from ecs_combat.scenario.turn_loader import parse_turn

    reference, _ = _engines_of(registry)
    for _ in range(40):
        try:
            reference.resolve_turn(parse_turn(_copy(doc), registry, "turn.toml"))
            return doc
        except InputError as exc:
            if not (
                _drop_declaration(doc, exc.path)
                or _drop_event(doc.get("events"), exc.path, "")
                or _drop_state_key(doc, exc.path, registry)
            ):
                raise
    raise AssertionError(f"no legal turn from\n{json.dumps(doc, indent=1)}")


def resolve_turn_both(
    registry: Registry, doc: dict[str, Any], file: str = "turn.toml"
) -> tuple[Any, Any]:
    """The ``resolve --json`` document of a turn document on the reference engine and on the
    batched engine, as :func:`resolve_both` does for a scenario."""
    turn = parse_turn(_copy(doc), registry, file)
    reference, batched = _engines_of(registry)
    return (
        _outcome(lambda: reference.resolve_turn(turn).to_json()),
        _outcome(lambda: batched.resolve_turns([turn])[0].to_json()),
    )


def assert_turn_engines_agree(
    registry: Registry, doc: dict[str, Any], file: str = "turn.toml", refusal_ok: bool = False
) -> Any:
    """Resolve a turn document on both engines and fail unless they give the same
    ``resolve --json`` document, or the same input error, as :func:`assert_engines_agree`
    does for a scenario. Returns the reference engine's outcome."""
    return _agree(doc, *resolve_turn_both(registry, doc, file), refusal_ok)


# -- pytest fixtures ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ecs_combat_plugins() -> list[str]:
    """The modules of the plugins under test, beside the bundled ones: override it in your
    ``conftest.py`` (``return ["my_package"]``)."""
    return []


@pytest.fixture(scope="module")
def ecs_combat_registry(ecs_combat_plugins: list[str]) -> Registry:
    """A registry of exactly the bundled plugins plus those `ecs_combat_plugins` names."""
    return registry_with(*ecs_combat_plugins)
