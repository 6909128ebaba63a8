"""Random legal turn documents with several combat phases (:func:`turns`)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ecs_combat.errors import InputError
from ecs_combat.plugin.definitions import Keyword
from ecs_combat.plugin.phases import COMBAT
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import why_cannot_attack
from ecs_combat.rules.sides import least_blockers
from ecs_combat.scenario.turn_loader import parse_turn
from ecs_combat.testing.drawing import (
    Draw,
    copy_document,
    creature_table,
    declared_side,
    draw_events,
    draw_state,
    drop_event,
    drop_state_key,
    integers,
    keywords_to_draw,
    may_block,
    sampled,
)
from ecs_combat.testing.registries import engines_for

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

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

    kws = keywords_to_draw(registry, keywords)
    return st.composite(_turn)(registry, kws, players, creatures, combats, state, events)


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

    pids = ["A", "B", "C", "D"][: max(2, min(players, 4))]
    doc_players = {p: {"life": draw(sampled([20, 20, 10, 5, 3]))} for p in pids}
    tables: dict[str, dict[str, Any]] = {}
    for p in pids:
        for i in range(draw(integers(1 if p == "A" else 0, creatures))):
            tables[f"{p.lower()}{i}"] = creature_table(draw, p, kws, registry)
    casts: list[dict[str, Any]] = []
    spells, creature_cards = phase_adders(registry)
    if spells and draw(integers(0, 4)) > 0:
        casts.append({"card": draw(sampled(spells)), "caster": "A", "main": 1})
    if creature_cards and draw(integers(0, 2)) == 0:
        owner = draw(sampled(pids[1:]))
        tables[f"{owner.lower()}_adds"] = {
            "card": draw(sampled(creature_cards)),
            "controller": owner,
        }
    doc: dict[str, Any] = {
        "players": doc_players,
        "creatures": tables,
        "turn": {"active": "A", "casts": casts},
    }
    if state:
        draw_state(draw, doc, registry)
    phases = [
        p for p in parse_turn(copy_document(doc), registry, "turn.toml").phases if p.kind == COMBAT
    ]
    sides = {cid: declared_side(t, registry) for cid, t in tables.items() if "card" not in t}
    entries: list[dict[str, Any]] = []
    for phase in phases[:combats]:
        mine = [c for c, t in tables.items() if t["controller"] == phase.player]
        if phase.only_attackers is not None:
            mine = [c for c in mine if c in phase.only_attackers]
        others = [p for p in pids if p != phase.player]
        attacking = {
            c: draw(sampled(others))
            for c in mine
            if (c not in sides or why_cannot_attack(sides[c], False, registry) is None)
            and draw(integers(0, 5)) < 5  # the simplest draw (0) attacks: most attack
        }
        blocks: dict[str, str] = {}
        for cid, table in tables.items():
            if cid in attacking or table["controller"] == phase.player or cid not in sides:
                continue
            options = [
                a
                for a, p in attacking.items()
                if p == table["controller"]
                and (a not in sides or may_block(sides[a], sides[cid], registry))
            ]
            if options and draw(integers(0, 3)) > 0:
                blocks[cid] = draw(sampled(options))
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
    """Leave out what an error's path in ``combats[k]`` names: an event, a blocker (every
    block for ``combats[k].divide``), an attacker (and the blocks of it), else that combat
    phase's entry and the later ones."""
    match = re.match(r"combats\[(\d+)\]\.?(\w+)?\.?([^.\[]+)?", path)
    if match is None or int(match.group(1)) >= len(doc.get("combats", [])):
        return False
    k, table, name = int(match.group(1)), match.group(2), match.group(3)
    entry = doc["combats"][k]
    if table == "events" and drop_event(entry.get("events"), path, f"combats[{k}].") is True:
        return True
    # a division the turn must give and the drawing doesn't (banding's, 702.22j-k): no blocks
    if table in ("blockers", "divide") and entry.get("blockers"):
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

    reference, _ = engines_for(registry)
    for _ in range(40):
        try:
            reference.resolve_turn(parse_turn(copy_document(doc), registry, "turn.toml"))
            return doc
        except InputError as exc:
            if not (
                _drop_declaration(doc, exc.path)
                or drop_event(doc.get("events"), exc.path, "")
                or drop_state_key(doc, exc.path, registry)
            ):
                raise
    raise AssertionError(f"no legal turn from\n{json.dumps(doc, indent=1)}")
