"""The contexts' actions on both engines (docs/plugins.md, section 3a): `destroy` through
the `destroy` systems (701.8, 702.12), `sacrifice` of several creatures at once with one run
of the `dies` systems (701.17, 700.4), `remove_from_combat` (506.4), `remove_damage`, and the
state-based check after the end-of-combat systems (704.3). Each expected value is derived by
hand from the scenario."""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
import pytest
from conftest import ENGINES, bundled_registry, engine_resolver
from scenario_text import combat, creature

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchDeaths,
    BatchEndOfCombat,
    CombatContext,
    Deaths,
    Keyword,
    System,
    hookimpl,
    parse_scenario,
)


class Actions:
    """Test keywords, each one action at a point:

    - ``doomed``: at end of combat, an effect destroys it;
    - ``pact``: at end of combat, every creature with it is sacrificed, all at once;
    - ``wilt``: at end of combat, it gets -0/-1 (a 1/1 is then 1/0: only the state-based
      check after the end-of-combat systems puts it into the graveyard, 704.5f);
    - ``retreat``: as attackers are declared, it is removed from combat;
    - ``mend``: at end of combat, all damage is removed from it.

    A `dies` system records, per engine, the creatures of each call (how many calls).
    """

    def __init__(self) -> None:
        self.__name__ = "actions"
        self.deaths: dict[str, list[list[str]]] = {"reference": [], "batched": []}
        self.destroyed: dict[str, list[bool]] = {"reference": [], "batched": []}

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword(k) for k in ("doomed", "pact", "wilt", "retreat", "mend")]

    @hookimpl
    def register_systems(self) -> list[System]:
        def end(combat: CombatContext, _: None) -> None:
            here = [c for c in combat.creatures() if combat.on_battlefield(c)]
            for c in here:
                if combat.has(c, "doomed"):
                    self.destroyed["reference"].append(combat.destroy(c))
            combat.sacrifice([c for c in here if combat.has(c, "pact")])
            for c in here:
                if combat.has(c, "wilt"):
                    combat.pump(c, 0, -1)
                if combat.has(c, "mend"):
                    combat.remove_damage(c)

        def end_batched(batch: BatchContext, eoc: BatchEndOfCombat) -> None:
            here = batch.on_battlefield() & eoc.battles[batch.battle()]
            doomed = np.flatnonzero(here & batch.has("doomed"))
            if doomed.size:
                self.destroyed["batched"] += batch.destroy(doomed).tolist()
            here = batch.on_battlefield() & eoc.battles[batch.battle()]
            batch.sacrifice(np.flatnonzero(here & batch.has("pact")))
            here = batch.on_battlefield() & eoc.battles[batch.battle()]
            batch.pump(np.flatnonzero(here & batch.has("wilt")), 0, -1)
            batch.remove_damage(np.flatnonzero(here & batch.has("mend")))

        def retreat(combat: CombatContext, declaration: AttackDeclaration) -> None:
            for c in declaration.attackers:
                if combat.has(c, "retreat"):
                    combat.remove_from_combat(c)

        def retreat_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
            batch.remove_from_combat(np.flatnonzero(declaration.attackers & batch.has("retreat")))

        def dies(combat: CombatContext, deaths: Deaths) -> None:
            self.deaths["reference"].append([combat.creature_id(c) for c in deaths.creatures])

        def dies_batched(batch: BatchContext, deaths: BatchDeaths) -> None:
            rows = np.flatnonzero(deaths.creatures)
            self.deaths["batched"].append([batch.creature_id(int(r)) for r in rows])

        return [
            System("end-of-combat", "act", end, end_batched),
            System("declare-attackers", "retreat", retreat, retreat_batched, {"retreat"}),
            System("dies", "record", dies, dies_batched),
        ]


def run(engine: str, text: str) -> tuple[dict[str, Any], Actions]:
    plugin = Actions()
    registry = bundled_registry(extra=(plugin,))
    scenario = parse_scenario(tomllib.loads("[players.A]\n[players.B]\n" + text), registry, "t")
    plugin.deaths = {"reference": [], "batched": []}  # the loader's own look at attacks
    return engine_resolver(engine, registry)(scenario).to_json(), plugin


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def test_destroy_kills_and_runs_dies_once(engine: str) -> None:
    """701.8: the doomed 2/2 attacks unblocked (B: 20 - 2 = 18), then is destroyed at end of
    combat: not alive, not in any step's `died` (an effect's death), one `dies` call."""
    out, plugin = run(engine, creature("rat", "A", 2, 2, "doomed") + combat({"rat": "B"}))
    assert out["players"]["B"]["life"] == 18
    assert out["creatures"]["rat"]["alive"] is False
    assert out["steps"][-1]["died"] == []
    assert plugin.destroyed[engine] == [True]
    assert plugin.deaths[engine] == [["rat"]]


def test_destroy_goes_through_indestructible(engine: str) -> None:
    """702.12b: the destroy systems keep an indestructible creature: destroy says False, it
    stays, nothing dies."""
    text = creature("rat", "A", 2, 2, "doomed", "indestructible") + combat({"rat": "B"})
    out, plugin = run(engine, text)
    assert out["creatures"]["rat"]["alive"] is True
    assert plugin.destroyed[engine] == [False]
    assert plugin.deaths[engine] == []


def test_sacrifice_of_a_group_runs_the_dies_systems_once(engine: str) -> None:
    """701.17, 700.4: two creatures sacrificed by one action die together: one `dies` call
    naming both (in scenario order); the third creature, without pact, stays."""
    text = (
        creature("a1", "A", 1, 1, "pact")
        + creature("a2", "A", 1, 1)
        + creature("a3", "A", 1, 1, "pact")
        + combat({"a1": "B", "a2": "B"})
    )
    out, plugin = run(engine, text)
    assert plugin.deaths[engine] == [["a1", "a3"]]
    alive = {cid: c["alive"] for cid, c in out["creatures"].items()}
    assert alive == {"a1": False, "a2": True, "a3": False}
    assert out["players"]["B"]["life"] == 18


def test_state_based_actions_follow_the_end_of_combat_systems(engine: str) -> None:
    """704.3: the wilting 1/1 is 1/0 after the end-of-combat systems; the state-based check
    that follows puts it into the graveyard (704.5f). Without that check it would end the
    combat alive with toughness 0."""
    out, plugin = run(engine, creature("leaf", "A", 1, 1, "wilt") + combat({"leaf": "B"}))
    assert out["creatures"]["leaf"]["alive"] is False
    assert plugin.deaths[engine] == [["leaf"]]


def test_remove_from_combat_as_attackers_are_declared(engine: str) -> None:
    """506.4: the retreating 3/3 is removed from combat as it attacks: it deals no damage
    (B stays at 20); it was still declared, so it is tapped (508.1f)."""
    text = (
        creature("scout", "A", 3, 3, "retreat")
        + creature("bear", "A", 2, 2)
        + combat({"scout": "B", "bear": "B"})
    )
    out, _ = run(engine, text)
    assert out["players"]["B"]["life"] == 18  # the bear's 2 only
    assert {(d["source"], d["amount"]) for d in out["steps"][0]["damage"]} == {("bear", 2)}


def test_remove_damage_at_end_of_combat(engine: str) -> None:
    """The mending 2/4 blocks a 3/3 and is dealt 3; at end of combat its damage is removed
    (0); the attacker keeps its 2."""
    text = (
        creature("ogre", "A", 3, 3)
        + creature("wall", "B", 2, 4, "mend")
        + combat({"ogre": "B"}, {"wall": "ogre"})
    )
    out, _ = run(engine, text)
    assert out["creatures"]["wall"]["damage"] == 0
    assert out["creatures"]["wall"]["alive"] is True
    assert out["creatures"]["ogre"]["damage"] == 2
