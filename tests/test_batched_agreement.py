"""The batched engine agrees with the reference engine (CONTRACT.md section 2: both engines give
identical output for every scenario the batched engine accepts).

Hypothesis generates legal scenarios from the bundled plugins' keywords (loaded explicitly):
two or three players, random keywords and keyword counters, marked damage, hats, soulbond pairs,
single and multiple blocks, explicit divisions (mostly legal) and events of every action at
every point. Most have attackers with power above 0 that are blocked, so most deal combat damage
(docs/testing.md). Each runs through both engines, alone and in batches. The example counts are
bounded and derandomized, so CI runs the same examples every time.

`test_resolve_batch_final_state_matches_resolve_many` alone reaches below the public interface
(`scenarios_to_batch` and the `CombatBatch` arrays): it checks the fast path `simulate` uses.
"""

from __future__ import annotations

import functools
import json
import tomllib
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import BUNDLED_PLUGINS, bundled_registry
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from ecs_combat import (
    COLORS,
    REGULAR_STEP,
    Card,
    InputError,
    Keyword,
    RefusedError,
    Registry,
    Scenario,
    TargetRule,
    hookimpl,
    load_registry,
    parse_scenario,
)
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.cli.main import cli
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.instances import parse_instance
from ecs_combat.testing.drawing import instance_text

if TYPE_CHECKING:  # the card-effect interface, for annotations only
    from ecs_combat.plugin.views import EffectTarget


def _soulbond_boost(target: EffectTarget) -> None:
    target.pump(2, 2)
    target.pump(2, 2, via="paired_with")
    target.note("paired", where=target.related("paired_with"))


#: The keyword a test card grants (a scenario casting it needs the keyword loaded).
GRANTED = "lifelink"


def _hat_rally(target: EffectTarget) -> None:
    target.pump(-1, 0, where=target.state("hat"))
    target.grant(GRANTED, where=np.logical_not(target.caster_state("hat")))


class ExtraCards:
    """Cards that exercise the rest of the EffectTarget API and the other target rules."""

    @hookimpl
    def register_cards(self) -> list[Card]:
        return [
            Card(
                "Test Soulbond Boost",
                "{G}",
                "Target creature gets +2/+2; its soulbond partner too.",
                TargetRule(in_combat=False),
                _soulbond_boost,
            ),
            Card(
                "Test Hat Rally",
                "{W}",
                "Target attacking or blocking creature: -1/-0 if it has a hat; gains a keyword "
                "unless you have a hat.",
                TargetRule(in_combat=True),
                _hat_rally,
                keywords=frozenset({GRANTED}),
            ),
        ]


REGISTRY: Registry = bundled_registry(extra=(ExtraCards(),))
REFERENCE = ReferenceEngine(REGISTRY)
BATCHED = BatchedEngine(REGISTRY)

#: Every loaded keyword; those that keep a creature out of combat last, as the generator's
#: simplest draws come first.
#: Keywords that keep creatures out of combat or damage from being dealt (prevention, life
#: lost before any damage step) come last; so does myriad, which does nothing with two
#: players (most draws): first in the list, it took the simplest draws from keywords that act.
LATE = {"defender", "decayed", "afflict", "protection", "flanking", "annihilator", "myriad"}
#: Keywords with block requirements (509.1c, lure) are left out: the generator's blocks follow
#: the restrictions only (tests/test_requirements.py covers requirements on both engines).
REQUIRED = {r.keyword for r in REGISTRY.restrictions_of("block-requirement")}
#: Known disagreements, left out until fixed: none.
KNOWN: set[str] = set()
#: 702.22c: attackers with banding may attack in a band (``combat.bands``).
BANDING = "banding"
KEYWORDS = sorted(set(REGISTRY.keywords) - REQUIRED - KNOWN, key=lambda k: (k in LATE, k))


#: 122.1b: the keywords that may be keyword counters (RULES.md section 4).
COUNTER_KEYWORDS = sorted(
    {
        "flying", "first strike", "double strike", "deathtouch", "decayed", "exalted", "haste",
        "hexproof", "indestructible", "lifelink", "menace", "reach", "shadow", "trample",
        "vigilance",
    }
    & REGISTRY.keywords.keys()
)  # fmt: skip
#: Every kind of counter: keyword counters and the +1/+1 and -1/-1 counters (122.1a).
COUNTER_KINDS = COUNTER_KEYWORDS + sorted(REGISTRY.counter_kinds)
#: Block legality, from the rules (RULES.md section 4), for the bundled keywords: an attacker
#: with the key can be blocked only by creatures with one of the values (702.9b, 702.28b).
#: 702.31b horsemanship; "can't be blocked" (509.1b): no creature may block it.
BLOCKABLE_ONLY_BY = {
    "flying": {"flying", "reach"},
    "shadow": {"shadow"},
    "horsemanship": {"horsemanship"},
    "can't be blocked": set(),
}
BLOCKS_ONLY = {"shadow": {"shadow"}}  # 702.28b: shadow blocks only shadow
MIN_BLOCKERS = {"menace": 2}  # 702.111b
#: 702.14: each landwalk and the land it walks (player `lands`).
WALKS = {
    "plainswalk": "plains", "islandwalk": "island", "swampwalk": "swamp",
    "mountainwalk": "mountain", "forestwalk": "forest", "nonbasic landwalk": "nonbasic",
}  # fmt: skip
LANDS = sorted(WALKS.values())
CANT_ATTACK = {"defender"}  # 702.3b
CANT_BLOCK = {"decayed", "can't block"}  # 702.147a, 509.1b
SURVIVES_LETHAL = {"indestructible"}  # 702.12b
#: Strike keywords, drawn more often so most combats have more than one damage step.
STRIKES = sorted(
    {"firstest strike", "first strike", "double strike", "triple strike", "last strike"}
    & REGISTRY.keywords.keys()
)
STEPS = REGISTRY.step_names
POINTS = ["declare-blockers", *(f"after {s}" for s in STEPS)]
CARDS = sorted(card.name for card in REGISTRY.spells())
NAMES = ["Goblin 2", "Goblin-A", "Zombie", "aardvark", "Ørn"]
#: CONTRACT.md 1: the event actions.
ACTIONS = ["grant", "remove", "counters", "pump", "damage", "enter", "remove-from-combat",
           "destroy", "cast"]  # fmt: skip

AGREEMENT = settings(
    max_examples=1000,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

Draw = Callable[[st.SearchStrategy[Any]], Any]

# The generator's strategies, each built once: building one per draw (st.integers(0, 9) and
# the like, inside the composite) made Hypothesis look it up in its strategy cache and
# validate it at every draw, most of the generator's time. The draws are the same.


@functools.cache
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@functools.cache
def _sampled(options: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(options)


@functools.cache
def _permutations(values: tuple[Any, ...]) -> st.SearchStrategy[list[Any]]:
    return st.permutations(values)


@functools.cache
def _subsets(allowed: tuple[str, ...], min_size: int) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(allowed), min_size=min_size, max_size=len(allowed), unique=True)


BOOLEANS = st.booleans()
CREATURE_KEYWORDS = st.lists(st.sampled_from(KEYWORDS), max_size=3, unique=True)
CREATURE_COUNTERS = st.dictionaries(st.sampled_from(COUNTER_KINDS), st.integers(0, 2), max_size=2)
CREATURE_COLORS = st.lists(st.sampled_from(COLORS), min_size=1, max_size=2)
PLAYER_LANDS = st.lists(st.sampled_from(LANDS), max_size=2, unique=True)
EVENT_POINTS = st.lists(st.integers(0, len(POINTS) - 1), max_size=5)
EVENT_KEYWORDS = st.lists(st.sampled_from(KEYWORDS), min_size=1, max_size=2)
EVENT_COUNTERS = st.dictionaries(st.sampled_from(COUNTER_KINDS), st.integers(-2, 2), max_size=2)


def _entry(draw: Draw, keyword: str) -> str:
    """One instance of a keyword as scenarios write it, with a parameter where it takes one."""
    return instance_text(draw, REGISTRY.keywords[keyword])


def _instances(table: dict[str, Any]) -> list[tuple[str, Any]]:
    """(keyword, parameter) of each printed instance of a creature table."""
    return [tuple(parse_instance(k, REGISTRY)) for k in table.get("keywords", [])]


def _keywords_of(table: dict[str, Any]) -> set[str]:
    """The keywords a creature table gives as it is declared (printed and counters)."""
    return {k for k, _ in _instances(table)} | {
        k for k, n in table.get("counters", {}).items() if n > 0
    }


def _creature(
    draw: Draw, players: Sequence[str], controller: str | None = None, fights: bool = False
) -> dict[str, Any]:
    """A random creature table. One that `fights` (an attacker or a blocker) mostly has power
    above 0, so most combats deal damage."""
    low = draw(_integers(0, 9)) == 9 if fights else draw(BOOLEANS)
    table: dict[str, Any] = {
        "controller": controller or draw(_sampled(tuple(players))),
        "power": draw(_integers(-1, 0) if low else _integers(1, 5)),
        "toughness": draw(_integers(1, 5)),
    }
    if KEYWORDS:
        keywords = draw(CREATURE_KEYWORDS)
        if controller == players[0] and fights and draw(_integers(0, 9)) < 9:
            keywords = [k for k in keywords if k not in CANT_ATTACK]  # mostly an attacker
        if STRIKES and draw(_integers(0, 2)) == 0:  # the strike family, a third of the time
            keywords = sorted({*keywords, draw(_sampled(tuple(STRIKES)))})
        table["keywords"] = [_entry(draw, k) for k in keywords]
    if COUNTER_KEYWORDS and draw(_integers(0, 3)) == 3:
        table["counters"] = draw(CREATURE_COUNTERS)
    survives = not SURVIVES_LETHAL.isdisjoint(_keywords_of(table))
    counters = table.get("counters", {})
    toughness = table["toughness"] + counters.get("+1/+1", 0) - counters.get("-1/-1", 0)
    if toughness <= 0:  # it would start dead: an input error (RULES 11.2); 1 with them
        table["toughness"] += 1 - toughness
        toughness = 1
    table["damage"] = draw(_integers(0, max(0, toughness + (1 if survives else -1))))
    if draw(BOOLEANS):
        table["hat"] = True
    name = draw(_sampled((None, *NAMES)))
    if name is not None:
        table["name"] = name
    if draw(_integers(0, 3)) == 3:  # colors, for protection (702.16)
        table["colors"] = draw(CREATURE_COLORS)
    if draw(_integers(0, 7)) == 7:  # an artifact creature, for fear and intimidate
        table["types"] = ["artifact"]
    return table


def _may_attack(table: dict[str, Any]) -> bool:
    """508.1a, 702.3b: whether the creature may be declared as an attacker."""
    return CANT_ATTACK.isdisjoint(_keywords_of(table))


def _may_block(
    blocker: dict[str, Any], attacker: dict[str, Any], lands: Sequence[str] = ()
) -> bool:
    """509.1a-b (702.9b, 702.28b, 702.147a, 702.16e, 702.118, 702.14, 702.13, 702.36):
    whether `blocker`, whose controller has `lands`, may block `attacker`."""
    mine, theirs = _keywords_of(blocker), _keywords_of(attacker)
    if any(WALKS.get(k) in lands for k in theirs):  # 702.14c
        return False
    if not CANT_BLOCK.isdisjoint(mine):
        return False
    if any(k in theirs and mine.isdisjoint(v) for k, v in BLOCKABLE_ONLY_BY.items()):
        return False
    protected = {p for k, p in _instances(attacker) if k == "protection"}
    if not protected.isdisjoint(blocker.get("colors", [])):  # 702.16e
        return False
    if protected & {"creatures", "everything"}:  # 702.16e, 702.16j: any creature has them
        return False
    if "multicolored" in protected and len(set(blocker.get("colors", []))) > 1:  # 105.2b
        return False
    if "skulk" in theirs and _power(blocker) > _power(attacker):  # 702.118
        return False
    colors = set(blocker.get("colors", []))
    artifact = "artifact" in blocker.get("types", [])
    if "fear" in theirs and not (artifact or "black" in colors):  # 702.36b
        return False
    if "intimidate" in theirs and not (artifact or colors & set(attacker.get("colors", []))):
        return False  # 702.13b
    return not any(k in mine and theirs.isdisjoint(v) for k, v in BLOCKS_ONLY.items())


def _power(table: dict[str, Any]) -> int:
    """Power as declared: printed, with +1/+1 and -1/-1 counters (122.1a)."""
    counters = table.get("counters", {})
    return int(table["power"]) + counters.get("+1/+1", 0) - counters.get("-1/-1", 0)


def _attack_bonus(
    cid: str,
    attackers: dict[str, str],
    creatures: dict[str, dict[str, Any]],
    players: dict[str, Any],
) -> int:
    """The power a creature's attack triggers give it by the damage steps (RULES 10), as far
    as the scenario shows: battle cry (702.91), melee (702.121), dethrone (702.105), training
    (702.149). Blocks, events and other triggers aren't counted (divisions are "mostly legal")."""
    if cid not in attackers:
        return 0
    count = Counter(k for k, _ in _instances(creatures[cid]))
    others = [a for a in attackers if a != cid]
    bonus = sum(Counter(k for k, _ in _instances(creatures[a]))["battle cry"] for a in others)
    bonus += count["melee"] * len(set(attackers.values()))
    most = max(int(p["life"]) for p in players.values())
    bonus += count["dethrone"] * (int(players[attackers[cid]]["life"]) == most)
    stronger = any(_power(creatures[a]) > _power(creatures[cid]) for a in others)
    return bonus + count["training"] * stronger


def _split(draw: Draw, total: int, parts: int) -> list[int]:
    """`total` split into `parts` non-negative amounts."""
    out = []
    for _ in range(parts - 1):
        n = draw(_integers(0, total))
        out.append(n)
        total -= n
    return [*out, total]


@st.composite
def scenario_docs(draw: Draw) -> dict[str, Any]:
    """A random scenario document (as read from TOML) that the loader accepts. Most have
    attackers with power above 0 and blocks, so most reach a damage step that deals damage
    (`test_most_generated_scenarios_deal_damage`)."""
    pids = ["A", "B", "C"][: draw(_sampled((2, 2, 3)))]
    players: dict[str, Any] = {}
    for p in pids:
        players[p] = {"life": draw(_integers(1, 12))}
        if draw(BOOLEANS):
            players[p]["hat"] = True
        if draw(_integers(0, 3)) == 3:  # lands, for landwalk (702.14)
            players[p]["lands"] = draw(PLAYER_LANDS)
        if "poison" in REGISTRY.state_fields("player") and draw(_integers(0, 3)) == 3:
            players[p]["poison"] = draw(_integers(0, 10))
    creatures: dict[str, dict[str, Any]] = {}
    # the active player's creatures, the attackers; none now and then (508.8)
    mine = 0 if draw(_integers(0, 39)) == 39 else draw(_sampled((1, 2, 3, 1, 2)))
    for i in range(mine):
        creatures[f"c{i}"] = _creature(draw, pids, pids[0], fights=True)
    for i in range(len(creatures), len(creatures) + draw(_sampled((2, 3, 1, 4, 1, 2, 0)))):
        owner = draw(_sampled((*pids[1:], *pids[1:], *pids)))  # blockers, mostly
        creatures[f"c{i}"] = _creature(draw, pids, owner, fights=owner != pids[0])

    taken: set[str] = set()
    for cid, table in creatures.items():  # soulbond pairs, sometimes one-sided
        mates = [
            o
            for o, t in creatures.items()
            if o != cid
            and t["controller"] == table["controller"]
            and "paired_with" not in t
            and o not in taken
        ]
        if cid not in taken and mates and draw(_integers(0, 3)) == 3:
            mate = draw(_sampled(tuple(mates)))
            table["paired_with"] = mate
            taken |= {cid, mate}
            if draw(BOOLEANS):
                creatures[mate]["paired_with"] = cid

    attackers: dict[str, str] = {}
    for cid, table in creatures.items():
        if table["controller"] == pids[0] and _may_attack(table) and draw(_integers(0, 7)) < 7:
            attackers[cid] = draw(_sampled(tuple(pids[1:])))
    if not attackers and draw(_integers(0, 9)) < 9:  # mostly someone attacks
        able = [c for c, t in creatures.items() if t["controller"] == pids[0] and _may_attack(t)]
        if able:
            attackers[able[0]] = draw(_sampled(tuple(pids[1:])))
    blockers: dict[str, list[str]] = {}
    for cid, table in creatures.items():
        if cid in attackers:
            continue
        options = [
            a
            for a, p in attackers.items()
            if p == table["controller"]
            and _may_block(table, creatures[a], players[p].get("lands", []))
        ]
        if options and draw(_integers(0, 7)) < 7:
            size = draw(_sampled((1, 1, 1, 2, 3)))
            blockers[cid] = list(draw(_permutations(tuple(options)))[: min(size, len(options))])
    for a in attackers:  # menace: too few blockers means none
        need = max((MIN_BLOCKERS.get(k, 1) for k in _keywords_of(creatures[a])), default=1)
        mine = [b for b, attacked in blockers.items() if a in attacked]
        if 0 < len(mine) < need:
            for b in mine:
                blockers[b].remove(a)
                if not blockers[b]:
                    del blockers[b]
    combat: dict[str, Any] = {
        "attackers": attackers,
        "blockers": {b: a[0] if len(a) == 1 and draw(BOOLEANS) else a for b, a in blockers.items()},
    }
    banding = [a for a in attackers if BANDING in _keywords_of(creatures[a])]
    if banding and draw(BOOLEANS):  # a band (702.22c-d), half the time
        defender = attackers[banding[0]]
        others = [a for a, p in attackers.items() if p == defender and a not in banding]
        band = [a for a in banding if attackers[a] == defender] + others[:1]
        if len(band) > 1:
            combat["bands"] = [list(draw(_permutations(tuple(band))))]

    divide = []
    seen: set[tuple[str, str]] = set()
    for _ in range(draw(_sampled((0, 1, 0, 2)))):  # explicit divisions, half the time
        sources = [*attackers, *blockers]
        if not sources:
            break
        source = draw(_sampled(tuple(sources)))
        step = draw(_sampled((*STEPS, REGULAR_STEP, REGULAR_STEP)))  # mostly regular
        if (step, source) in seen:
            continue
        seen.add((step, source))
        if source in attackers:
            allowed = [b for b, attacked in blockers.items() if source in attacked]
            allowed.append(attackers[source])
        else:
            allowed = list(blockers[source])
        legal = draw(_integers(0, 7)) < 7  # mostly legal: some recipient, the right total
        chosen = draw(_subsets(tuple(allowed), int(legal)))
        power = max(
            _power(creatures[source]) + _attack_bonus(source, attackers, creatures, players), 0
        )
        if legal:
            amounts = dict(zip(chosen, _split(draw, power, len(chosen)), strict=True))
        else:
            amounts = {r: draw(_integers(0, 4)) for r in chosen}
        divide.append({"step": step, "source": source, "amounts": amounts})
    if divide:
        combat["divide"] = divide

    events = _events(draw, pids, list(creatures))
    doc: dict[str, Any] = {"players": players, "creatures": creatures, "combat": combat}
    if events:
        doc["events"] = events
    return doc


def _events(draw: Draw, pids: Sequence[str], present: list[str]) -> list[dict[str, Any]]:
    """Random events, each naming only creatures there by then; file order is shuffled except
    among events at the same point."""
    points = sorted(draw(EVENT_POINTS))
    chronological: list[tuple[int, dict[str, Any]]] = []
    entered = 0
    for p in points:
        action = draw(_sampled(tuple(ACTIONS)))
        if not present and action not in ("enter", "damage"):
            action = "enter"
        if action == "counters" and not COUNTER_KEYWORDS:
            action = "pump"
        ev: dict[str, Any] = {"at": POINTS[p], "action": action}
        if action == "enter":
            table = _creature(draw, pids)
            table["id"] = f"e{entered}"
            entered += 1
            ev["creature"] = table
            ev["attacking"] = draw(_sampled(tuple(q for q in pids if q != table["controller"])))
        elif action == "damage":
            ev["target"] = draw(_sampled((*present, *pids)))
            ev["amount"] = draw(_integers(0, 4))
        elif action == "cast":
            card = REGISTRY.spell(draw(_sampled(tuple(CARDS))))
            assert card is not None
            ev["card"] = card.name
            if card.target.kind == "any":
                ev["target"] = draw(_sampled((*present, *pids)))
            elif card.target.kind == "creature":
                ev["target"] = draw(_sampled(tuple(present)))
            if card.creates is not None:
                ev["token"] = f"t{entered}"
                entered += 1
        else:
            ev["target"] = draw(_sampled(tuple(present)))
        if action in ("grant", "remove"):
            names = draw(EVENT_KEYWORDS)
            ev["keywords"] = [_entry(draw, k) for k in names]
        elif action == "counters":
            ev["counters"] = draw(EVENT_COUNTERS)
        elif action == "pump":
            ev["power"] = draw(_integers(-3, 3))
            ev["toughness"] = draw(_integers(-3, 3))
        if action == "cast":
            ev["caster"] = draw(_sampled(tuple(pids)))
        chronological.append((p, ev))
        if action == "enter":
            present.append(ev["creature"]["id"])
        if "token" in ev:
            present.append(ev["token"])
    order = draw(_permutations(tuple(range(len(chronological)))))
    out: list[dict[str, Any]] = [{} for _ in chronological]
    for p in set(points):
        mine = [i for i, (q, _) in enumerate(chronological) if q == p]
        for i, place in zip(mine, sorted(order[i] for i in mine), strict=True):
            out[place] = chronological[i][1]
    return out


def _load(doc: dict[str, Any], file: str = "generated.toml") -> Scenario:
    try:
        return parse_scenario(json.loads(json.dumps(doc)), REGISTRY, file)
    except InputError:
        reject()


def _documents(results: Sequence[CombatResult]) -> list[Any]:
    """The JSON documents, plus each step's strike notes (the readable account's 'why'; the
    rest of the account, such as tapped creatures, is the reference engine's alone)."""
    return [
        [r.to_json(), [[(n.creature, n.deals, n.reason) for n in s.strikes] for s in r.steps]]
        for r in results
    ]


def _reference(scenarios: Sequence[Scenario]) -> Any:
    try:
        return _documents([REFERENCE.resolve(s) for s in scenarios])
    except InputError as exc:
        return ("InputError", str(exc))


def _batched(scenarios: Sequence[Scenario]) -> Any:
    try:
        return _documents(BATCHED.resolve_many(scenarios))
    except InputError as exc:
        return ("InputError", str(exc))


def _deals_damage(doc: dict[str, Any]) -> bool | None:
    """Whether a generated scenario reaches a damage step that deals damage (reference
    engine); None if the loader or the engine rejects it."""
    try:
        out = REFERENCE.resolve(parse_scenario(json.loads(json.dumps(doc)), REGISTRY)).to_json()
    except InputError:
        return None
    return any(step["damage"] for step in out["steps"])


# -- agreement ----------------------------------------------------------------------------------


@AGREEMENT
@given(scenario_docs())
def test_engines_agree_on_each_scenario(doc: dict[str, Any]) -> None:
    """CONTRACT.md 2: identical output, or the same InputError for an illegal division."""
    scenario = _load(doc)
    assert _batched([scenario]) == _reference([scenario])


@settings(AGREEMENT, max_examples=150)
@given(st.lists(scenario_docs(), min_size=2, max_size=8))
def test_engines_agree_on_a_batch(docs: list[dict[str, Any]]) -> None:
    """Many scenarios in one batch resolve as each does alone; the first bad one's error wins."""
    scenarios = [_load(doc, f"battles.jsonl:{i + 1}") for i, doc in enumerate(docs)]
    assert _batched(scenarios) == _reference(scenarios)


@settings(AGREEMENT, max_examples=150)
@given(st.lists(scenario_docs(), min_size=1, max_size=8))
def test_resolve_batch_final_state_matches_resolve_many(docs: list[dict[str, Any]]) -> None:
    """The fast path (no log) ends in the same state as the logged one."""
    scenarios = [_load(doc) for doc in docs]
    try:
        results = BATCHED.resolve_many(scenarios)
    except InputError:
        reject()
    batch = scenarios_to_batch(scenarios, REGISTRY)
    out = BATCHED.resolve_batch(batch)
    assert out.entered is not None and batch.creature_ids is not None
    rows = {(int(batch.battle[row]), cid): row for row, cid in enumerate(batch.creature_ids)}
    assert int(out.entered.sum()) == sum(len(r.creatures) for r in results)
    for b, res in enumerate(results):
        for cid, c in res.creatures.items():
            row = rows[(b, cid)]
            assert out.entered[row]
            got = (
                bool(out.alive[row]),
                int(out.damage[row]),
                int(out.power[row]),
                int(out.toughness[row]),
            )
            assert got == (c.alive, c.damage, c.power, c.toughness)
        to_players = sum(
            n for step in res.steps for _, target, n in step.damage if target in res.players
        )
        assert int(out.damage_to_players[b]) == to_players


# -- the generator and the batched engine's interfaces ------------------------------------------


def test_most_generated_scenarios_deal_damage() -> None:
    """The strategies reach the damage steps: at least 80% of the scenarios they generate are
    legal and deal combat damage in some step (attackers with power above 0, blocks)."""
    seen: list[bool | None] = []

    @settings(AGREEMENT, max_examples=300)
    @given(scenario_docs())
    def record(doc: dict[str, Any]) -> None:
        seen.append(_deals_damage(doc))

    record()
    assert sum(x is True for x in seen) >= 0.8 * len(seen), Counter(seen)


def test_static_keywords_without_the_batched_hook_are_refused() -> None:
    """A plugin whose static ability has no batched form: its keyword's scenarios are refused,
    never answered wrongly (CONTRACT.md 2)."""

    class Glow:
        @hookimpl
        def register_keywords(self) -> list[Keyword]:
            return [Keyword("test glow")]

        @hookimpl
        def static_keywords(self, combat: Any) -> dict[str, set[str]]:
            return {}

    registry = load_registry(autoload=False, extra=[Glow()])
    doc = {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "x": {"controller": "A", "power": 1, "toughness": 1, "keywords": ["test glow"]}
        },
        "combat": {"attackers": {"x": "B"}},
    }
    engine = BatchedEngine(registry)
    with pytest.raises(RefusedError, match="static_keywords_batch"):
        engine.resolve_many([parse_scenario(doc, registry)])
    del doc["creatures"]["x"]["keywords"]  # type: ignore[attr-defined]
    result = engine.resolve_many([parse_scenario(doc, registry)])[0]
    assert result.players["B"].life == 19


def test_cli_resolves_a_jsonl_file_as_one_batch(tmp_path: Any) -> None:
    """CONTRACT.md 2: `resolve --engine batched --json` prints one line per input line, the same
    as the reference engine's."""
    lines = []
    for power in (1, 2, 3):
        lines.append(
            json.dumps(
                {
                    "players": {"A": {}, "B": {"life": 5}},
                    "creatures": {
                        "x": {"controller": "A", "power": power, "toughness": 2},
                        "y": {"controller": "B", "power": 1, "toughness": 2},
                    },
                    "combat": {
                        "attackers": {"x": "B"},
                        "blockers": {} if power == 3 else {"y": "x"},
                    },
                }
            )
        )
    path = tmp_path / "battles.jsonl"
    path.write_text("\n".join(lines) + "\n")
    runner = CliRunner()
    outputs = [
        runner.invoke(cli, ["resolve", str(path), "--json", "--engine", engine])
        for engine in ("batched", "reference")
    ]
    assert [o.exit_code for o in outputs] == [0, 0]
    assert outputs[0].output == outputs[1].output
    assert len(outputs[0].output.splitlines()) == 3


# -- chosen scenarios, through both engines -----------------------------------------------------

TWO = "[players.A]\n[players.B]\nlife = 5\n"
CHOSEN = {
    "702.19b: a trampler may not assign to the player before lethal to its blocker": TWO
    + """
[creatures.giant]
controller = "A"
power = 5
toughness = 5
keywords = ["trample"]
[creatures.wall]
controller = "B"
power = 0
toughness = 4
[combat]
attackers = { giant = "B" }
blockers = { wall = "giant" }
[[combat.divide]]
step = "regular"
source = "giant"
amounts = { wall = 2, B = 3 }
""",
    "702.2c, 702.19b: damage another deathtoucher assigns counts as lethal": TWO
    + """
[creatures.giant]
controller = "A"
power = 5
toughness = 5
keywords = ["trample"]
[creatures.viper]
controller = "A"
power = 1
toughness = 1
keywords = ["deathtouch"]
[creatures.wall]
controller = "B"
power = 0
toughness = 4
[combat]
attackers = { giant = "B", viper = "B" }
blockers = { wall = ["giant", "viper"] }
[[combat.divide]]
step = "regular"
source = "giant"
amounts = { B = 5 }
""",
    "510.1c: a blocked attacker with no blocker left assigns nothing; its division is unused": TWO
    + """
[creatures.giant]
controller = "A"
power = 4
toughness = 4
keywords = ["first strike"]
[creatures.b1]
controller = "B"
power = 1
toughness = 1
[creatures.b2]
controller = "B"
power = 1
toughness = 3
[combat]
attackers = { giant = "B" }
blockers = { b1 = "giant", b2 = "giant" }
[[combat.divide]]
step = "first-strike"
source = "giant"
amounts = { b1 = 1, b2 = 3 }
[[events]]
at = "after first-strike"
action = "grant"
target = "giant"
keywords = ["double strike"]
[[combat.divide]]
step = "regular"
source = "giant"
amounts = { b1 = 2, b2 = 2 }
""",
    "510.1: a division naming a blocker that died earlier is an input error": TWO
    + """
[creatures.giant]
controller = "A"
power = 4
toughness = 4
keywords = ["first strike"]
[creatures.b1]
controller = "B"
power = 1
toughness = 1
[creatures.b2]
controller = "B"
power = 1
toughness = 5
[combat]
attackers = { giant = "B" }
blockers = { b1 = "giant", b2 = "giant" }
[[combat.divide]]
step = "first-strike"
source = "giant"
amounts = { b1 = 1, b2 = 3 }
[[events]]
at = "after first-strike"
action = "grant"
target = "giant"
keywords = ["double strike"]
[[combat.divide]]
step = "regular"
source = "giant"
amounts = { b1 = 2, b2 = 2 }
""",
    "510.1: amounts must total the power the creature has in that step": TWO
    + """
[creatures.giant]
controller = "A"
power = 3
toughness = 3
[creatures.b1]
controller = "B"
power = 1
toughness = 1
[combat]
attackers = { giant = "B" }
blockers = { b1 = "giant" }
[[combat.divide]]
step = "regular"
source = "giant"
amounts = { b1 = 3 }
[[events]]
at = "declare-blockers"
action = "pump"
target = "giant"
power = 1
""",
    "510.1d: a blocker of two attackers divides in its declared order, deathtouch lethal 1": TWO
    + """
[creatures.x]
controller = "A"
power = 2
toughness = 3
[creatures.y]
controller = "A"
power = 2
toughness = 2
[creatures.z]
controller = "A"
power = 1
toughness = 5
keywords = ["menace"]
[creatures.ogre]
controller = "B"
power = 6
toughness = 6
keywords = ["deathtouch"]
[creatures.imp]
controller = "B"
power = 1
toughness = 1
[combat]
attackers = { x = "B", y = "B", z = "B" }
blockers = { ogre = ["y", "x", "z"], imp = ["z"] }
""",
    "800.4a: a player who loses leaves with their creatures; the game goes on for two": """
[players.A]
[players.B]
life = 2
[players.C]
[creatures.a1]
controller = "A"
power = 3
toughness = 3
keywords = ["double strike", "lifelink"]
[creatures.a2]
controller = "A"
power = 2
toughness = 2
[creatures.b1]
controller = "B"
power = 2
toughness = 2
[creatures.c1]
controller = "C"
power = 1
toughness = 1
[combat]
attackers = { a1 = "B", a2 = "C" }
blockers = { c1 = "a2" }
[[events]]
at = "after first-strike"
action = "enter"
creature = { id = "late", controller = "A", power = 1, toughness = 1, keywords = ["decayed"] }
attacking = "C"
[[events]]
at = "after last-strike"
action = "damage"
target = "C"
amount = 1
""",
    "508.8: no attackers, every event listed as skipped in file order": TWO
    + """
[creatures.x]
controller = "A"
power = 1
toughness = 1
[[events]]
at = "after regular"
action = "damage"
target = "B"
amount = 1
[[events]]
at = "declare-blockers"
action = "destroy"
target = "x"
""",
    "702.83b, 702.147a, 702.11b: exalted, decayed and hexproof in one combat": TWO
    + """
[creatures.hero]
controller = "A"
power = 2
toughness = 2
keywords = ["decayed", "hexproof"]
[creatures.angel]
controller = "A"
power = 1
toughness = 1
keywords = ["exalted"]
counters = { exalted = 1 }
[creatures.wall]
controller = "B"
power = 1
toughness = 4
[combat]
attackers = { hero = "B" }
blockers = { wall = "hero" }
[[events]]
at = "declare-blockers"
action = "cast"
card = "Test Soulbond Boost"
caster = "B"
target = "hero"
[[events]]
at = "declare-blockers"
action = "remove"
target = "hero"
keywords = ["hexproof", "decayed"]
[[events]]
at = "declare-blockers"
action = "cast"
card = "Test Soulbond Boost"
caster = "B"
target = "hero"
""",
}


ALPHA_STRIKE = (
    TWO
    + """
[creatures.a]
name = "Aardvark"
controller = "A"
power = 2
toughness = 2
keywords = ["alpha strike"]
[creatures.b]
name = "Aardwolf"
controller = "A"
power = 2
toughness = 2
keywords = ["alpha strike"]
[creatures.z]
name = "Zombie"
controller = "B"
power = 2
toughness = 2
[creatures.y]
name = "Yeti"
controller = "B"
power = 2
toughness = 2
[combat]
attackers = { a = "B", b = "B" }
blockers = { z = "a", y = "b" }
[[events]]
at = "declare-blockers"
action = "remove"
target = "a"
keywords = ["first strike"]
"""
)


@pytest.mark.parametrize("text", CHOSEN.values(), ids=list(CHOSEN))
def test_engines_agree_on_chosen_scenarios(text: str) -> None:
    """Rules the random scenarios reach only rarely, each through both engines."""
    needed = {"trample", "deathtouch", "first strike", "double strike", "menace", "lifelink",
              "decayed", "exalted", "hexproof"}  # fmt: skip
    if not needed <= REGISTRY.keywords.keys():
        pytest.skip("a bundled keyword plugin is not installed")
    scenario = parse_scenario(tomllib.loads(text), REGISTRY, "chosen.toml")
    assert _batched([scenario]) == _reference([scenario])


def test_engines_agree_on_a_third_party_static_ability() -> None:
    """613.7: a static ability (the example alpha-strike plugin's, loaded explicitly) doesn't
    give back a keyword an effect removed; both engines."""
    pytest.importorskip("ecs_combat_alpha_strike")
    registry = load_registry(
        load=[*BUNDLED_PLUGINS.values(), "ecs_combat_alpha_strike"], autoload=False
    )
    scenario = parse_scenario(tomllib.loads(ALPHA_STRIKE), registry, "chosen.toml")
    reference = ReferenceEngine(registry).resolve(scenario)
    batched = BatchedEngine(registry).resolve_many([scenario])[0]
    assert _documents([batched]) == _documents([reference])
    steps = {step["name"]: step["damage"] for step in reference.to_json()["steps"]}
    assert steps["first-strike"] == [{"source": "b", "target": "y", "amount": 2}]
    assert {"source": "a", "target": "z", "amount": 2} in steps["regular"]
