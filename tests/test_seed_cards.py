"""The cards of the seed rulings (RULES.md sections 6 and 8) on both engines: Joint Assault,
Response // Resurgence, Assault // Battery; their `cast` events, their split-card
characteristics (709.4), Resurgence's phases (500.8), and spells cast in a main phase
(`cast_in_main`). Expected values are derived by hand in each test."""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
import pytest
from conftest import Resolve, dealt, step_names

from ecs_combat import CastInMain, InputError, Registry, parse_scenario
from ecs_combat.batched import events as batched_events
from ecs_combat.batched import keywords as batched_keywords
from ecs_combat.batched.combat import play
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.batched.results import Results
from ecs_combat.plugin.phases import COMBAT, MAIN
from ecs_combat.reference import events as reference_events
from ecs_combat.reference.combat import Combat
from ecs_combat.reference.world import isolated_world
from ecs_combat.rules.pipeline import plan_steps
from ecs_combat.rules.turn_schedule import schedule
from ecs_combat.scenario.events import token_creature
from ecs_combat.scenario.model import CreatureSpec
from ecs_combat.simulation.spec_reader import parse_spec

PLAYERS = """
[players.A]
[players.B]
"""

# A 2/2 paired with a 1/1 (soulbond: written on both), attacking; B's 3/3 bear blocks it.
PAIRED = (
    PLAYERS
    + """
[creatures.lancer]
controller = "A"
power = 2
toughness = 2
paired_with = "mate"

[creatures.mate]
controller = "A"
power = 1
toughness = 1
paired_with = "lancer"

[creatures.bear]
controller = "B"
power = 3
toughness = 3

[combat]
attackers = { lancer = "B" }
blockers = { bear = "lancer" }
"""
)


def cast(at: str, card: str, caster: str, **fields: str) -> str:
    """A `cast` event as TOML."""
    extra = "".join(f'{k} = "{v}"\n' for k, v in fields.items())
    return (
        f'\n[[events]]\nat = "{at}"\naction = "cast"\ncard = "{card}"\ncaster = "{caster}"\n{extra}'
    )


def pt(out: dict[str, Any], cid: str) -> tuple[int, int]:
    c = out["creatures"][cid]
    return c["power"], c["toughness"]


# -- Joint Assault (RULES.md 6: +2/+2, and +2/+2 to its soulbond partner) -----------------------


def test_joint_assault_pumps_the_target_and_its_partner(resolve: Resolve) -> None:
    """Lancer 2/2 -> 4/4, its partner mate 1/1 -> 3/3. Regular step: lancer deals 4 to the
    3/3 bear (dies), the bear deals 3 to the 4/4 lancer (survives)."""
    out = resolve(PAIRED + cast("declare-blockers", "Joint Assault", "A", target="lancer"))
    assert pt(out, "lancer") == (4, 4) and pt(out, "mate") == (3, 3)
    assert dealt(out, "regular") == {("lancer", "bear", 4), ("bear", "lancer", 3)}
    assert out["creatures"]["lancer"]["alive"] and not out["creatures"]["bear"]["alive"]


def test_joint_assault_without_a_pair_pumps_the_target_only(resolve: Resolve) -> None:
    """Unpaired: lancer 4/4, mate stays 1/1."""
    text = PAIRED.replace('paired_with = "mate"\n', "").replace('paired_with = "lancer"\n', "")
    out = resolve(text + cast("declare-blockers", "Joint Assault", "A", target="lancer"))
    assert pt(out, "lancer") == (4, 4) and pt(out, "mate") == (1, 1)


def test_joint_assault_needs_no_combat_and_pumps_the_partner_in_combat(resolve: Resolve) -> None:
    """The target need not be in combat (mate, not attacking): mate 3/3, and its partner
    lancer 4/4 kills the bear and survives its 3 damage."""
    out = resolve(PAIRED + cast("declare-blockers", "Joint Assault", "A", target="mate"))
    assert pt(out, "mate") == (3, 3) and pt(out, "lancer") == (4, 4)
    assert not out["creatures"]["bear"]["alive"]


def test_joint_assault_on_an_illegal_target_gives_the_partner_nothing(resolve: Resolve) -> None:
    """608.2b: the bear (first strike) kills the 2/2 lancer in the first-strike step; Joint
    Assault on it afterwards does nothing, and its partner mate stays 1/1."""
    text = PAIRED.replace(
        "power = 3\ntoughness = 3\n", 'power = 3\ntoughness = 3\nkeywords = ["first strike"]\n'
    )
    out = resolve(text + cast("after first-strike", "Joint Assault", "A", target="lancer"))
    assert not out["creatures"]["lancer"]["alive"]
    assert pt(out, "mate") == (1, 1)


def test_joint_assault_checks_the_pair_as_it_resolves(resolve: Resolve) -> None:
    """Mate (1/1) attacks too and B's first-striking wall kills it in the first-strike step;
    Joint Assault on lancer after that step: the partner is gone, lancer alone gets +2/+2."""
    text = (
        PAIRED
        + """
[creatures.wall]
controller = "B"
power = 1
toughness = 5
keywords = ["first strike"]
"""
    )
    text = text.replace('attackers = { lancer = "B" }', 'attackers = { lancer = "B", mate = "B" }')
    text = text.replace(
        'blockers = { bear = "lancer" }', 'blockers = { bear = "lancer", wall = "mate" }'
    )
    out = resolve(text + cast("after first-strike", "Joint Assault", "A", target="lancer"))
    assert not out["creatures"]["mate"]["alive"]
    assert pt(out, "mate") == (1, 1) and pt(out, "lancer") == (4, 4)
    assert dealt(out, "regular") == {("lancer", "bear", 4), ("bear", "lancer", 3)}


# -- Response (5 damage to target attacking or blocking creature) --------------------------------

DUEL = (
    PLAYERS
    + """
[creatures.knight]
controller = "A"
power = 3
toughness = 3

[creatures.bear]
controller = "B"
power = 3
toughness = 3

[creatures.squire]
controller = "B"
power = 1
toughness = 1

[combat]
attackers = { knight = "B" }
blockers = { bear = "knight" }
"""
)


def test_response_kills_an_attacker(resolve: Resolve) -> None:
    """5 damage to the 3/3 knight: it dies before damage; the bear deals and takes nothing."""
    out = resolve(DUEL + cast("declare-blockers", "Response", "B", target="knight"))
    knight = out["creatures"]["knight"]
    assert (knight["alive"], knight["damage"]) == (False, 5)
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 20


def test_response_kills_a_blocker(resolve: Resolve) -> None:
    """5 damage to the blocking bear: it dies; the knight stays blocked (509.1h) and deals no
    damage (no trample)."""
    out = resolve(DUEL + cast("declare-blockers", "Response", "A", target="bear"))
    assert (out["creatures"]["bear"]["alive"], out["creatures"]["bear"]["damage"]) == (False, 5)
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 20


def test_response_on_a_creature_not_in_combat_does_nothing(resolve: Resolve) -> None:
    """The squire neither attacks nor blocks: an illegal target (608.2b), no damage."""
    out = resolve(DUEL + cast("declare-blockers", "Response", "A", target="squire"))
    assert out["creatures"]["squire"] == {**out["creatures"]["squire"], "alive": True, "damage": 0}


def test_response_on_a_creature_protected_from_its_color_does_nothing(resolve: Resolve) -> None:
    """702.16c: protection from white makes the bear an illegal target of Response (red and
    white), so the spell does nothing; the bear and the knight trade 3 each."""
    text = DUEL.replace(
        "power = 3\ntoughness = 3\n\n[creatures.squire]",
        'power = 3\ntoughness = 3\nkeywords = ["protection from white"]\n\n[creatures.squire]',
    )
    out = resolve(text + cast("declare-blockers", "Response", "A", target="bear"))
    assert dealt(out, "regular") == {("knight", "bear", 3), ("bear", "knight", 3)}


# -- Resurgence (first strike and vigilance to the caster's creatures) ---------------------------


def test_resurgence_in_combat_gives_the_casters_creatures_first_strike(resolve: Resolve) -> None:
    """Cast by B at declare-blockers: B's bear (and squire) gain first strike, A's knight
    doesn't. First-strike step: the bear deals 3 to the knight, which dies; no regular
    damage from the knight."""
    out = resolve(DUEL + cast("declare-blockers", "Resurgence", "B"))
    assert step_names(out) == ["first-strike", "regular"]
    assert dealt(out, "first-strike") == {("bear", "knight", 3)}
    assert dealt(out, "regular") == set()
    assert out["creatures"]["bear"]["damage"] == 0


def test_resurgence_gives_vigilance(registry: Registry) -> None:
    """Reference engine: after Resurgence, each of the caster's creatures has first strike
    and vigilance, the other player's none."""
    sc = parse_scenario(tomllib.loads(DUEL), registry, "t.toml")
    with isolated_world():
        combat = Combat(registry, plan_steps(registry), sc)
        combat.declare()
        reference_events.cast_in_main(combat, CastInMain("Resurgence", "B", 1))
        combat.refresh_keywords()
        for cid, gained in (("bear", True), ("squire", True), ("knight", False)):
            kws = combat.board.keywords(combat.board.creatures[cid])
            assert ({"first strike", "vigilance"} <= kws) is gained, cid


# -- Assault (2 damage to any target) and Battery (a 3/3 green Elephant token) -------------------


def test_assault_on_a_player(resolve: Resolve) -> None:
    """115.4: a player is an "any target": B 20 -> 18 (the knight is blocked: no combat
    damage to B)."""
    out = resolve(DUEL + cast("declare-blockers", "Assault", "A", target="B"))
    assert out["players"]["B"]["life"] == 18


def test_assault_to_a_player_at_two_life_ends_the_game(resolve: Resolve) -> None:
    """B at 2 takes 2: 0 life, loses (704.5a) as state-based actions follow the spell."""
    text = DUEL.replace("[players.B]", "[players.B]\nlife = 2")
    out = resolve(text + cast("declare-blockers", "Assault", "A", target="B"))
    assert out["players"]["B"] == {**out["players"]["B"], "life": 0, "lost": True}


def test_assault_on_a_creature(resolve: Resolve) -> None:
    """2 damage to the 1/1 squire, not in combat (any target): it dies. 2 to the 3/3 knight
    before damage, then 3 from the bear: 5 marked, it dies in the regular step."""
    out = resolve(
        DUEL
        + cast("declare-blockers", "Assault", "B", target="squire")
        + cast("declare-blockers", "Assault", "B", target="knight")
    )
    assert (out["creatures"]["squire"]["alive"], out["creatures"]["squire"]["damage"]) == (False, 2)
    assert out["creatures"]["knight"] == {**out["creatures"]["knight"], "alive": False, "damage": 5}


def test_battery_creates_the_token_with_the_given_id(resolve: Resolve) -> None:
    """111.1: a 3/3 Elephant under B's control, not in combat: it deals and takes no combat
    damage; a later Assault marks 2 damage on it, which it survives."""
    out = resolve(
        DUEL
        + cast("declare-blockers", "Battery", "B", token="elephant")
        + cast("after regular", "Assault", "A", target="elephant")
    )
    assert out["creatures"]["elephant"] == {
        "alive": True,
        "damage": 2,
        "power": 3,
        "toughness": 3,
        "counters": {},
    }
    assert dealt(out, "regular") == {("knight", "bear", 3), ("bear", "knight", 3)}


def test_a_battery_that_is_not_cast_makes_no_token(resolve: Resolve) -> None:
    """No creature has first strike: there is no first-strike step, so the cast after it
    doesn't happen (skipped) and there is no Elephant."""
    out = resolve(DUEL + cast("after first-strike", "Battery", "B", token="elephant"))
    assert "elephant" not in out["creatures"]
    assert [e["event"] for e in out["skipped_events"]] == [0]


def test_battery_token_is_green_and_a_resurgence_after_it_includes_it(registry: Registry) -> None:
    """The token's characteristics come from the card: green, 3/3, named Elephant, summoning
    sick (302.6)."""
    card = registry.spell("Battery")
    assert card is not None
    spec = token_creature(card, "elephant", "B", registry)
    assert (spec.name, spec.power, spec.toughness, spec.colors) == ("Elephant", 3, 3, ("green",))
    assert spec.controller == "B" and spec.summoning_sick


# -- split cards (709.4) ---------------------------------------------------------------------------


def test_split_card_characteristics(registry: Registry) -> None:
    """Assault // Battery: mana value 1 + 4 = 5, red and green; Response // Resurgence:
    2 + 5 = 7, red and white. On the stack a half has its own: Assault is a red sorcery with
    mana value 1."""
    ab = registry.split_card_of("Assault")
    assert ab is not None and ab.name == "Assault // Battery"
    assert (ab.mana_value, set(ab.colors)) == (5, {"red", "green"})
    assert registry.split_card_of("battery") is ab
    rr = registry.split_card_of("Resurgence")
    assert rr is not None and rr.name == "Response // Resurgence"
    assert (rr.mana_value, set(rr.colors)) == (7, {"red", "white"})
    assault = registry.spell("Assault")
    assert assault is not None
    assert (assault.mana_value, assault.colors, assault.types) == (1, ("red",), ("sorcery",))
    response = registry.spell("Response")
    assert response is not None and (response.mana_value, set(response.colors)) == (
        2,
        {"red", "white"},
    )


# -- Resurgence's phases (RULES.md 8) ---------------------------------------------------------------

WOLF = CreatureSpec("wolf", "Throat Wolf", "B", 3, 1, card="Throat Wolf")


def phases(
    registry: Registry, casts: list[CastInMain], wolves: bool = False
) -> list[tuple[str, str, str]]:
    creatures = {"wolf": WOLF} if wolves else {}
    found = schedule(("A", "B"), "A", creatures, casts, registry.phase_rules)
    return [(p.kind, p.player, p.created_by) for p in found]


def test_resurgence_adds_a_combat_and_a_main_phase(registry: Registry) -> None:
    """RULES.md 8 vector: [A, B], a Wolf for B, A casts Resurgence in the precombat main:
    main A, combat A (Resurgence), combat B (Throat Wolf), main A (Resurgence), combat A,
    main A."""
    got = phases(registry, [CastInMain("Resurgence", "A", 1)], wolves=True)
    assert got == [
        (MAIN, "A", "turn"),
        (COMBAT, "A", "Resurgence (A)"),
        (COMBAT, "B", "Throat Wolf (wolf)"),
        (MAIN, "A", "Resurgence (A)"),
        (COMBAT, "A", "turn"),
        (MAIN, "A", "turn"),
    ]


def test_resurgence_cast_by_the_other_player_gives_the_active_player_the_combat(
    registry: Registry,
) -> None:
    """Cast by B in A's postcombat main: the added combat's attacking player is A (the active
    player); created by B's spell."""
    got = phases(registry, [CastInMain("Resurgence", "B", 2)])
    assert got == [
        (MAIN, "A", "turn"),
        (COMBAT, "A", "turn"),
        (MAIN, "A", "turn"),
        (COMBAT, "A", "Resurgence (B)"),
        (MAIN, "A", "Resurgence (B)"),
    ]


def test_other_main_phase_spells_add_no_phase(registry: Registry) -> None:
    """Assault or Battery cast in a main phase add nothing; only Resurgence does."""
    got = phases(registry, [CastInMain("Assault", "A", 1, target="B")])
    assert got == [(MAIN, "A", "turn"), (COMBAT, "A", "turn"), (MAIN, "A", "turn")]


# -- spells cast in a main phase (cast_in_main), both engines ----------------------------------------

FIELD = (
    PLAYERS
    + """
[creatures.knight]
controller = "A"
power = 3
toughness = 3

[creatures.squire]
controller = "B"
power = 1
toughness = 1
"""
)


Outcome = tuple[list[dict[str, Any]], list[dict[str, set[str]]]]


def main_casts(
    registry: Registry, engine: str, texts: list[str], casts: list[list[CastInMain]]
) -> Outcome:
    """Per battle, creatures and players (JSON) after its casts, and each creature's keywords
    then; the casts are cast one round at a time outside combat, after a combat phase without
    attackers (`casts[b]`: battle b's, in order)."""
    scenarios = [parse_scenario(tomllib.loads(t), registry, "t.toml") for t in texts]
    if engine == "reference":
        out, keywords = [], []
        for sc, mine in zip(scenarios, casts, strict=True):
            with isolated_world():
                combat = Combat(registry, plan_steps(registry), sc)
                combat.declare()
                for c in mine:
                    reference_events.cast_in_main(combat, c)
                out.append(combat.finish().to_json())
                keywords.append(
                    {cid: combat.board.keywords(e) for cid, e in combat.board.creatures.items()}
                )
        return [{k: o[k] for k in ("creatures", "players")} for o in out], keywords
    tokens = []
    for sc, mine in zip(scenarios, casts, strict=True):  # token rows exist from the start
        for c in mine:
            if c.token is not None:
                card = registry.spell(c.card)
                assert card is not None
                sc.creatures[c.token] = token_creature(card, c.token, c.caster, registry)
                tokens.append(c.token)
    names = [c.card for mine in casts for c in mine]
    batch = scenarios_to_batch(scenarios, registry, names)
    assert batch.creature_ids is not None and batch.player_ids is not None
    cids, pids = batch.creature_ids, batch.player_ids
    start = {
        b: [i for i, pb in enumerate(batch.player_battle) if pb == b] for b in range(len(texts))
    }
    batch.present = batch.present.copy()
    for i, cid in enumerate(cids):
        if cid in tokens:
            batch.present[i] = False
    state = BatchedEngine(registry).start(batch, record=True)
    play(state)

    def row(b: int, ident: str | None) -> int:
        if ident is None:
            return -1
        players = start[b]
        for p in players:
            if pids[p] == ident:
                return -1 - p
        c0 = np.flatnonzero(batch.battle == b)
        return int(next(r for r in c0 if cids[r] == ident))

    for k in range(max(len(m) for m in casts)):
        now = [(b, m[k]) for b, m in enumerate(casts) if k < len(m)]
        batched_events.cast_in_main(
            state,
            np.asarray([batch.card_names.index(c.card) for _, c in now], np.int64),
            np.asarray([-1 - row(b, c.caster) for b, c in now], np.int64),
            np.asarray([row(b, c.target) for b, c in now], np.int64),
            np.asarray([row(b, c.token) for b, c in now], np.int64),
        )
    frame = state.frame
    has = {
        name: batched_keywords.has(frame, state.keywords, name) for name in frame.schedule.masks.bit
    }
    keywords: list[dict[str, set[str]]] = [{} for _ in texts]
    for r, cid in enumerate(cids):
        if state.creatures.entered[r]:
            keywords[int(batch.battle[r])][cid] = {k for k, rows in has.items() if rows[r]}
    log = state.records.log
    assert log is not None
    results = Results(frame, state.creatures, state.keywords, state.combat, state.players, log)
    results_built = results.build()
    json = [{k: o.to_json()[k] for k in ("creatures", "players")} for o in results_built]
    return json, keywords


def test_cast_in_main_assault_battery_and_joint_assault(registry: Registry, engine: str) -> None:
    """Battle 0: Assault to B (20 -> 18), then Battery (a 3/3 Elephant for A), then Joint
    Assault on it (5/5). Battle 1: Assault on the squire (1/1: dies), then Response on the
    knight, not in combat: does nothing (608.2b)."""
    got, _ = main_casts(
        registry,
        engine,
        [FIELD, FIELD],
        [
            [
                CastInMain("Assault", "A", 1, target="B"),
                CastInMain("Battery", "A", 1, token="elephant"),
                CastInMain("Joint Assault", "A", 1, target="elephant"),
            ],
            [
                CastInMain("Assault", "A", 1, target="squire"),
                CastInMain("Response", "B", 1, target="knight"),
            ],
        ],
    )
    assert got[0]["players"]["B"]["life"] == 18
    elephant = got[0]["creatures"]["elephant"]
    assert (elephant["alive"], elephant["power"], elephant["toughness"]) == (True, 5, 5)
    assert got[1]["creatures"]["squire"]["alive"] is False
    assert got[1]["creatures"]["knight"]["damage"] == 0
    assert "elephant" not in got[1]["creatures"]


def test_cast_in_main_resurgence_reaches_creatures_as_it_resolves(
    registry: Registry, engine: str
) -> None:
    """Resurgence by A, then Battery: the Elephant enters after Resurgence resolved, so only
    the knight gains first strike and vigilance; B's squire is not A's."""
    got, keywords = main_casts(
        registry,
        engine,
        [FIELD],
        [[CastInMain("Resurgence", "A", 1), CastInMain("Battery", "A", 1, token="elephant")]],
    )
    assert got[0]["creatures"]["elephant"]["alive"] is True
    assert keywords[0] == {
        "knight": {"first strike", "vigilance"},
        "squire": set(),
        "elephant": set(),
    }


def test_cast_in_main_after_the_game_ended_does_nothing(registry: Registry, engine: str) -> None:
    """B at 2: the first Assault ends the game (B loses); the second is not cast."""
    text = FIELD.replace("[players.B]", "[players.B]\nlife = 2")
    got, _ = main_casts(
        registry,
        engine,
        [text],
        [
            [
                CastInMain("Assault", "A", 1, target="B"),
                CastInMain("Assault", "A", 1, target="knight"),
            ]
        ],
    )
    assert got[0]["players"]["B"]["lost"] is True
    assert got[0]["creatures"]["knight"]["damage"] == 0


# -- the scenario format ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "place", "words"),
    [
        (cast("declare-blockers", "Battery", "A"), "events[0].token", "missing"),
        (cast("declare-blockers", "Battery", "A", token="bear"), "events[0].token", "duplicate id"),
        (cast("declare-blockers", "Battery", "A", token="B"), "events[0].token", "duplicate id"),
        (
            cast("declare-blockers", "Battery", "A", token="e", target="bear"),
            "events[0].target",
            "Battery has no target",
        ),
        (
            cast("declare-blockers", "Assault", "A", target="knight", token="e"),
            "events[0].token",
            "creates no creature token",
        ),
        (cast("declare-blockers", "Assault", "A"), "events[0].target", "a creature or a player"),
        (cast("declare-blockers", "Response", "A", target="B"), "events[0].target", "is a player"),
        (
            cast("declare-blockers", "Resurgence", "A", target="knight"),
            "events[0].target",
            "no target",
        ),
    ],
)
def test_cast_event_errors(registry: Registry, event: str, place: str, words: str) -> None:
    with pytest.raises(InputError) as err:
        parse_scenario(tomllib.loads(DUEL + event), registry, "t.toml")
    assert place in str(err.value) and words in str(err.value)


def test_two_tokens_with_one_id_are_an_error(registry: Registry) -> None:
    text = (
        DUEL
        + cast("declare-blockers", "Battery", "A", token="e")
        + cast("after regular", "Battery", "B", token="e")
    )
    with pytest.raises(InputError, match=r"events\[1\]\.token: duplicate id 'e'"):
        parse_scenario(tomllib.loads(text), registry, "t.toml")


def test_a_target_event_before_the_token_exists_is_an_error(registry: Registry) -> None:
    text = (
        DUEL
        + cast("after regular", "Battery", "A", token="e")
        + cast("declare-blockers", "Assault", "B", target="e")
    )
    with pytest.raises(InputError, match="enters only later"):
        parse_scenario(tomllib.loads(text), registry, "t.toml")


@pytest.mark.parametrize(
    ("card", "why"), [("Resurgence", "has no target"), ("Battery", "creates a creature token")]
)
def test_a_spec_draws_no_card_without_a_creature_target(
    registry: Registry, card: str, why: str
) -> None:
    """SPEC casts put a card on drawn target creatures: a card without a target, or making a
    token (whose id a SPEC can't give), is an input error."""
    text = f'[[casts]]\ncard = "{card}"\nprobability = 0.5'
    with pytest.raises(InputError, match=rf"casts\[0\]\.card: {card} can't be drawn.*{why}"):
        parse_spec(tomllib.loads(text), registry, "melee.toml")


def test_a_spec_may_cast_response(registry: Registry) -> None:
    spec = parse_spec(
        tomllib.loads('[[casts]]\ncard = "response"\nprobability = 0.5'), registry, "s.toml"
    )
    assert [c.card for c in spec.casts] == ["Response"]
