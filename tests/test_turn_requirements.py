"""Block requirements in turn files (RULES 8, 509.1c): each combat phase's blocks are checked
as blockers are declared, after its attack triggers, as in a single combat. Provoke (702.39)
can untap a creature that attacking tapped earlier in the turn and make it block; a
declaration that ignores that requirement, or lure's, is an input error naming the phase's
blockers. Rule tests on both engines, expected values derived by hand."""

from __future__ import annotations

from typing import Any

import pytest

from ecs_combat import InputError, Registry
from tests.conftest import ENGINES
from tests.test_turns import turn_of, turn_resolver

#: A's Throat Wolf has provoke targeting B's Throat Wolf: the schedule is A's turn combat,
#: B's Wolf's combat phase (after A's first), A's Wolf's (after B's first). B's Wolf attacks
#: A in phase 2 (3 damage: A 20 -> 17) and is tapped; in phase 3 A's Wolf attacks B, and its
#: provoke trigger untaps B's Wolf, which must block it.
WOLVES = """
[players.A]
[players.B]

[creatures.wa]
card = "Throat Wolf"
controller = "A"
keywords = ["firstest strike", "provoke"]
targets = { provoke = "wb" }

[creatures.wb]
card = "Throat Wolf"
controller = "B"

[[combats]]
attackers = {}

[[combats]]
attackers = { wb = "A" }

[[combats]]
attackers = { wa = "B" }
"""


def error(engine: str, registry: Registry, text: str) -> str:
    with pytest.raises(InputError) as caught:
        turn_resolver(engine, registry)(text)
    return str(caught.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_702_39_provoke_untaps_a_creature_that_attacked_earlier_and_it_blocks(
    engine: str, registry: Registry
) -> None:
    """Phase 3: provoke untaps wb (tapped by its attack in phase 2) and wb blocks wa. Both
    3/1 firstest strikers deal 3 to each other at once: both die (each of phases 2 and 3
    has a firstest-strike and a regular step). A lost 3 in phase 2 (17); B loses nothing (wa
    was blocked)."""
    out: dict[str, Any] = turn_resolver(engine, registry)(WOLVES + 'blockers = { wb = "wa" }\n')
    assert [len(c["steps"]) for c in out["combats"]] == [0, 2, 2]
    assert out["combats"][2]["steps"][0]["died"] == ["wa", "wb"]
    assert out["creatures"]["wa"]["alive"] is False and out["creatures"]["wb"]["alive"] is False
    assert (out["players"]["A"]["life"], out["players"]["B"]["life"]) == (17, 20)


@pytest.mark.parametrize("engine", ENGINES)
def test_509_1c_ignoring_provokes_requirement_is_an_error_naming_the_phase(
    engine: str, registry: Registry
) -> None:
    """Phase 3 without the block: wb, untapped by provoke, is able to block wa and doesn't;
    the blocks obey 0 of the 1 requirement they could: exit 2 naming combats[2].blockers."""
    message = error(engine, registry, WOLVES)
    assert message == (
        "turn.toml: combats[2].blockers: 'wb' is able to block 'wa' and doesn't: provoke (wa) "
        "requires it; the blocks obey 0 of the 1 requirements they could (702.39, 509.1c)"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_509_1a_a_tapped_blocker_nothing_untaps_is_still_an_error(
    engine: str, registry: Registry
) -> None:
    """Without provoke, wb is still tapped in phase 3 (its attack in phase 2 tapped it), so
    declaring it as a blocker is wrong, with the message of before."""
    text = WOLVES.replace('keywords = ["firstest strike", "provoke"]', "").replace(
        'targets = { provoke = "wb" }', ""
    )
    assert error(engine, registry, text + 'blockers = { wb = "wa" }\n') == (
        "turn.toml: combats[2].blockers.wb: 'wb' can't block in combat phase 3: it is tapped: "
        "attacking earlier this turn tapped it (508.1f)"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_509_1c_a_requirement_is_for_its_own_combat_phase(engine: str, registry: Registry) -> None:
    """The goblin's provoke makes the ogre block it in the first combat phase (Resurgence
    adds a second, with the goblin's vigilance so it may attack again). In the second phase
    the goblin attacks again and its provoke triggers again; the ogre blocks it both times,
    and blocks nothing else. Blocking another attacker in phase 2 with the ogre ignores the
    new requirement: an error naming combats[1]; phase 1's requirement doesn't carry over to
    an attack without provoke's trigger (the bear's)."""
    base = """
[players.A]
[players.B]

[creatures.goblin]
controller = "A"
power = 1
toughness = 5
keywords = ["provoke", "vigilance"]
targets = { provoke = "ogre" }

[creatures.bear]
controller = "A"
power = 2
toughness = 2
keywords = ["vigilance"]

[creatures.ogre]
controller = "B"
power = 1
toughness = 5

[turn]
casts = [{ card = "Resurgence", caster = "A", main = 1 }]

[[combats]]
attackers = { goblin = "B" }
blockers = { ogre = "goblin" }
"""
    resolve = turn_resolver(engine, registry)
    # phase 2: only the bear attacks: no provoke trigger, the ogre may block it or not
    out = resolve(base + '[[combats]]\nattackers = { bear = "B" }\n')
    assert out["players"]["B"]["life"] == 18  # 20 - the unblocked bear's 2
    out = resolve(base + '[[combats]]\nattackers = { bear = "B" }\nblockers = { ogre = "bear" }\n')
    # the ogre took 1 from the goblin in phase 1 and 2 from the bear in phase 2
    assert out["players"]["B"]["life"] == 20 and out["creatures"]["ogre"]["damage"] == 3
    # phase 2: both attack: the goblin's provoke triggers again; the ogre must block it
    both = base + '[[combats]]\nattackers = { goblin = "B", bear = "B" }\n'
    assert error(engine, registry, both + 'blockers = { ogre = "bear" }\n').startswith(
        "turn.toml: combats[1].blockers: 'ogre' is able to block 'goblin' and doesn't: "
        "provoke (goblin) requires it"
    )


def test_the_wolves_turn_loads(registry: Registry) -> None:
    """The turn file itself is valid: the errors above come from playing it."""
    assert len(turn_of(WOLVES, registry).combats) == 3
