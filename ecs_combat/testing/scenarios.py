"""Random legal scenario documents (:func:`scenarios`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ecs_combat.errors import InputError
from ecs_combat.plugin.definitions import Keyword
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import why_cannot_attack
from ecs_combat.rules.sides import least_blockers
from ecs_combat.scenario.loader import parse_scenario
from ecs_combat.testing.drawing import (
    Draw,
    copy_document,
    creature_table,
    declared_side,
    draw_events,
    draw_state,
    drop_blocks,
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

    kws = keywords_to_draw(registry, keywords)
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

    pids = ["A", "B", "C", "D"][: max(2, min(players, 4))]
    doc_players = {p: {"life": draw(integers(1, 20))} for p in pids}
    creatures: dict[str, dict[str, Any]] = {}
    for i in range(draw(integers(1, attackers))):
        creatures[f"a{i}"] = creature_table(draw, "A", kws, registry)
    for i in range(draw(integers(0, blockers))):
        creatures[f"b{i}"] = creature_table(draw, draw(sampled(pids[1:])), kws, registry)
    sides = {cid: declared_side(t, registry) for cid, t in creatures.items()}

    attacking: dict[str, str] = {}
    for cid in creatures:
        able = cid.startswith("a") and why_cannot_attack(sides[cid], False, registry) is None
        if able and draw(integers(0, 7)) < 7:
            attacking[cid] = draw(sampled(pids[1:]))
    blocks: dict[str, list[str]] = {}
    for cid, table in creatures.items():
        if cid in attacking:
            continue
        options = [
            a
            for a, p in attacking.items()
            if p == table["controller"] and may_block(sides[a], sides[cid], registry)
        ]
        if options and draw(integers(0, 7)) < 7:
            blocks[cid] = [draw(sampled(options))]
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
    legal_scenario(doc, registry)
    return doc


def legal_scenario(doc: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """Leave out of `doc` the drawn events, plugin state and blocks the loader or the
    reference engine refuses (a block an attack trigger made illegal: RULES 11.3), until both
    accept it; returns `doc`."""
    reference, _ = engines_for(registry)
    for _ in range(12):
        try:
            reference.resolve(parse_scenario(copy_document(doc), registry, "scenario.toml"))
            return doc
        except InputError as exc:
            if not (
                drop_event(doc.get("events"), exc.path, "")
                or drop_state_key(doc, exc.path, registry)
                or drop_blocks(doc, exc.path)
            ):
                raise
            if "events" in doc and not doc["events"]:
                del doc["events"]
    return doc
