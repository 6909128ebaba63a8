"""Banding (702.22) as a bundled plugin, on both engines, with outcomes derived by hand:
bands (``combat.bands``, 702.22c-d), a band blocked as one (702.22h), and who divides the
damage of the creatures facing a creature with banding (702.22j-k), in ``resolve`` and in the
decision search."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest
from conftest import Resolve
from decisions_brute import best_line_value
from scenario_text import combat, creature, divide, toml_value

from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.decisions import best_blocks
from ecs_combat.scenario.writer import scenario_document
from tests.test_decisions import agrees_with_brute_force
from tests.test_turns import turn_resolver

PLAYERS = "[players.A]\n[players.B]\n"


def bands(*groups: list[str]) -> str:
    return f"bands = {toml_value(list(groups))}\n"


def error_of(text: str, registry: Registry) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_scenario(tomllib.loads(text), registry, "t.toml")
    return caught.value


def damage(out: dict[str, object], step: int = 0) -> set[tuple[str, str, int]]:
    steps = out["steps"]
    assert isinstance(steps, list)
    return {(d["source"], d["target"], d["amount"]) for d in steps[step]["damage"]}


#: A 1/1 flier with banding and a 3/3 attack B in a band; B's 2/2 bear blocks the 3/3.
BAND = (
    PLAYERS
    + creature("hero", "A", 1, 1, "banding", "flying")
    + creature("ogre", "A", 3, 3)
    + creature("bear", "B", 2, 2)
    + combat({"hero": "B", "ogre": "B"}, {"bear": "ogre"})
    + bands(["hero", "ogre"])
)


# -- a band is blocked as one (702.22h); the attacking player divides (702.22k) --------------


def test_702_22h_a_creature_blocking_one_member_blocks_the_band(resolve: Resolve) -> None:
    """The bear blocks the ogre, so it blocks the hero too, although it can't block a flier
    (702.22h): the hero deals its 1 to the bear, not to B. A divides the bear's 2 (702.22k):
    both to the ogre. The bear takes 1 + 3 and dies; the ogre has 2 marked; B keeps 20."""
    out = resolve(BAND + divide("regular", "bear", {"ogre": 2}))
    assert damage(out) == {("hero", "bear", 1), ("ogre", "bear", 3), ("bear", "ogre", 2)}
    assert out["steps"][0]["died"] == ["bear"]
    assert out["players"]["B"]["life"] == 20
    assert out["creatures"]["ogre"]["damage"] == 2
    assert out["creatures"]["hero"]["alive"] is True


def test_702_22k_the_attacking_player_may_send_it_all_to_the_banding_creature(
    resolve: Resolve,
) -> None:
    """A puts the bear's 2 on the hero (any split, 702.22k): the hero dies, the ogre has
    no damage."""
    out = resolve(BAND + divide("regular", "bear", {"hero": 2}))
    assert damage(out) == {("hero", "bear", 1), ("ogre", "bear", 3), ("bear", "hero", 2)}
    assert sorted(out["steps"][0]["died"]) == ["bear", "hero"]
    assert out["creatures"]["ogre"]["damage"] == 0


def test_702_22k_a_choice_among_two_needs_the_division(resolve: Resolve) -> None:
    """Without ``combat.divide`` for the bear, which blocks two creatures, A's choice is
    missing: an input error naming the bear, at combat.divide."""
    with pytest.raises(InputError) as caught:
        resolve(BAND)
    assert caught.value.path == "combat.divide"
    assert "A divides bear's damage among ogre, hero in the regular step (banding" in str(
        caught.value
    )


def test_702_22k_one_recipient_is_no_choice(resolve: Resolve) -> None:
    """Outside a band, a bear blocking the hero alone deals it its 2: nothing to choose."""
    out = resolve(
        PLAYERS
        + creature("hero", "A", 1, 1, "banding")
        + creature("bear", "B", 2, 2)
        + combat({"hero": "B"}, {"bear": "hero"})
    )
    assert damage(out) == {("hero", "bear", 1), ("bear", "hero", 2)}
    assert out["steps"][0]["died"] == ["hero"]


# -- a creature with banding blocks: the defending player divides (702.22j) --------------------

GIANT = PLAYERS + creature("giant", "A", 5, 5, "trample") + creature("knight", "B", 1, 2, "banding")


def test_702_22j_the_defending_player_divides_the_attacker_any_way(resolve: Resolve) -> None:
    """A 5/5 trampler blocked by a 1/2 with banding and a 0/4 wall: B divides its 5 (702.22j)
    and may put all of it on the wall, none on the knight, although the knight has not been
    assigned lethal damage (no lethal-first rule for that player's split)."""
    out = resolve(
        GIANT
        + creature("wall", "B", 0, 4)
        + combat({"giant": "B"}, {"knight": "giant", "wall": "giant"})
        + divide("regular", "giant", {"wall": 5})
    )
    assert damage(out) == {("giant", "wall", 5), ("knight", "giant", 1)}
    assert out["steps"][0]["died"] == ["wall"]
    assert out["players"]["B"]["life"] == 20


def test_702_22j_trample_excess_does_not_reach_the_player(resolve: Resolve) -> None:
    """The 5/5 trampler blocked by the 1/2 with banding alone: its 5 all go to the knight,
    none to B (702.22j: never to a player, trample's excess included)."""
    out = resolve(GIANT + combat({"giant": "B"}, {"knight": "giant"}))
    assert damage(out) == {("giant", "knight", 5), ("knight", "giant", 1)}
    assert out["players"]["B"]["life"] == 20


def test_702_22j_a_division_to_the_player_is_an_error(resolve: Resolve) -> None:
    """Sending some of the trampler's damage to B when B divides it is illegal."""
    with pytest.raises(InputError) as caught:
        resolve(
            GIANT
            + combat({"giant": "B"}, {"knight": "giant"})
            + divide("regular", "giant", {"knight": 2, "B": 3})
        )
    assert caught.value.path == "combat.divide[0].amounts.B"
    assert "giant can't assign damage to 'B'" in str(caught.value)


# -- combat.bands (702.22c-d) ----------------------------------------------------------------


def test_702_22c_at_most_one_creature_without_banding(registry: Registry) -> None:
    err = error_of(
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("orc", "A", 2, 2)
        + combat({"ogre": "B", "orc": "B"})
        + bands(["ogre", "orc"]),
        registry,
    )
    assert err.path == "combat.bands[0]"
    assert "ogre, orc have no banding: a band has at most one creature without it" in str(err)


def test_702_22d_a_band_attacks_one_player(registry: Registry) -> None:
    err = error_of(
        "[players.A]\n[players.B]\n[players.C]\n"
        + creature("hero", "A", 1, 1, "banding")
        + creature("ogre", "A", 3, 3)
        + combat({"hero": "B", "ogre": "C"})
        + bands(["hero", "ogre"]),
        registry,
    )
    assert err.path == "combat.bands[0]"
    assert "attack B, C (702.22d)" in str(err)


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ('["hero"]', "must be a list of strings, not a string"),
        ('[["hero", "bear"]]', "'bear' is not attacking"),
        ('[["hero", "hreo"]]', "unknown creature 'hreo'"),
        ('[["hero"], ["hero", "ogre"]]', "'hero' is also in combat.bands[0]"),
        ('"hero"', "must be a list of lists of attacker ids, not a string"),
    ],
)
def test_bands_errors(registry: Registry, given: str, says: str) -> None:
    text = BAND.replace('bands = [["hero", "ogre"]]', f"bands = {given}")
    assert says in str(error_of(text, registry))


# -- decisions: the search lets the player who divides choose --------------------------------


def test_702_22k_decisions_the_attacking_player_divides_the_blocker(registry: Registry) -> None:
    """A 4/5 wurm against the band of a 1/1 with banding and a 3/3. Blocking either blocks
    both (702.22h) and A divides the wurm's 4 (702.22k): A loses only the hero (value 2);
    the wurm takes 4 and lives. Not blocking costs B 4 life. B minimises (game, material,
    life): blocking, (0, -2, 0). Without the band the wurm blocks the 3/3 alone, which dies,
    and the hero deals B 1: (0, -6, 1)."""
    text = (
        PLAYERS
        + creature("hero", "A", 1, 1, "banding")
        + creature("ogre", "A", 3, 3)
        + creature("wurm", "B", 4, 5)
        + combat({"hero": "B", "ogre": "B"})
    )
    banded = parse_scenario(tomllib.loads(text + bands(["hero", "ogre"])), registry, "t.toml")
    d = best_blocks(banded, registry, top=3)
    assert d.declarations == 3
    assert [tuple(c.score.values()) for c in d.best] == [(0, -2, 0, 0)] * 2 + [(0, 0, 4, 0)]
    for choice in d.best[:2]:
        (division,) = choice.divide
        amounts = division["amounts"]
        assert division["source"] == "wurm" and sum(amounts.values()) == 4
        assert amounts.get("hero", 0) >= 1 and amounts.get("ogre", 0) < 3  # only the hero dies
    alone = parse_scenario(tomllib.loads(text), registry, "t.toml")
    assert tuple(best_blocks(alone, registry, top=1).best[0].score.values()) == (0, -6, 1, 0)


def test_702_22j_decisions_the_defending_player_divides_the_attacker(registry: Registry) -> None:
    """A 4/4 attacks B, who has a 1/1 with banding and a 2/2. B minimises (game, material,
    life): no block (0, 0, 4); the 1/1 alone dies (0, 2, 0); the 2/2 alone dies (0, 4, 0);
    both: B divides the 4/4's damage (702.22j) and loses only the 1/1, giving the 2/2 less
    than its 2 (0, 2, 0), where A dividing would kill both (0, 6, 0). Not blocking is best."""
    text = (
        PLAYERS
        + creature("brute", "A", 4, 4)
        + creature("knight", "B", 1, 1, "banding")
        + creature("bear", "B", 2, 2)
        + combat({"brute": "B"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml")
    d = best_blocks(sc, registry, top=4)
    assert d.declarations == 4
    scores = {tuple(sorted(c.blockers)): tuple(c.score.values()) for c in d.best}
    assert scores == {
        (): (0, 0, 4, 0),
        ("knight",): (0, 2, 0, 0),
        ("bear", "knight"): (0, 2, 0, 0),
        ("bear",): (0, 4, 0, 0),
    }
    (both,) = [c for c in d.best if len(c.blockers) == 2]
    (division,) = both.divide
    assert division["source"] == "brute" and division["amounts"].get("bear", 0) < 2


def test_702_22h_a_blocker_declared_on_two_members_blocks_each_once(resolve: Resolve) -> None:
    """The bear is declared blocking both members (a hero without flying here): the band
    adds nothing twice; A divides its 2 as given, 1 to each: the hero dies, the ogre has 1
    marked."""
    out = resolve(
        BAND.replace(
            'blockers = { "bear" = "ogre" }', 'blockers = { "bear" = ["ogre", "hero"] }'
        ).replace('["banding", "flying"]', '["banding"]')  # a declared block of a flier: illegal
        + divide("regular", "bear", {"ogre": 1, "hero": 1})
    )
    assert damage(out) == {
        ("hero", "bear", 1), ("ogre", "bear", 3), ("bear", "ogre", 1), ("bear", "hero", 1)
    }  # fmt: skip
    assert sorted(out["steps"][0]["died"]) == ["bear", "hero"]


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_bands_in_a_turn_file(engine: str, registry: Registry) -> None:
    """A turn's combat phase takes `bands` too, with its messages at combats[i]: the same
    band as BAND, the bear's 2 all on the hero; without the division, an error at
    combats[0].divide."""
    text = BAND.replace("[combat]", "[turn]\n[[combats]]")
    run = turn_resolver(engine, registry)
    given = divide("regular", "bear", {"hero": 2}).replace("combat.divide", "combats.divide")
    out = run(text + given)
    (combat_out,) = out["combats"]
    assert damage(combat_out) == {("hero", "bear", 1), ("ogre", "bear", 3), ("bear", "hero", 2)}
    with pytest.raises(InputError) as caught:
        run(text)
    assert caught.value.path == "combats[0].divide"


def test_the_scenario_writer_keeps_bands(registry: Registry) -> None:
    """A decided scenario written back (``--write``) keeps its bands."""
    sc = parse_scenario(tomllib.loads(BAND), registry, "t.toml")
    doc = scenario_document(sc, registry)
    assert doc["combat"]["bands"] == [["hero", "ogre"]]
    assert parse_scenario(doc, registry, "t.toml").bands == [("hero", "ogre")]


def test_702_22k_decided_divisions_are_always_listed(resolve: Resolve, registry: Registry) -> None:
    """A 1/4 imp blocks the band of a 1/1 with banding and a 3/3: A divides its 1 (702.22k)
    and puts it on the 3/3 (nobody of A's dies), which is what the default division would
    do; but a split any way has no default in `resolve`, so the decision lists it anyway,
    and each decided line resolves (on both engines) to the outcome it was scored with."""
    text = (
        PLAYERS
        + creature("hero", "A", 1, 1, "banding")
        + creature("ogre", "A", 3, 3)
        + creature("imp", "B", 1, 4)
        + combat({"hero": "B", "ogre": "B"})
        + bands(["hero", "ogre"])
    )
    d = best_blocks(parse_scenario(tomllib.loads(text), registry, "t.toml"), registry, top=3)
    blocking = [c for c in d.best if c.blockers]
    assert len(blocking) == 2
    for choice in blocking:
        (division,) = choice.divide
        assert division == {"step": "regular", "source": "imp", "amounts": {"ogre": 1}}
        lines = "".join(divide(x["step"], x["source"], x["amounts"]) for x in choice.divide)
        blocks = f"blockers = {toml_value(choice.blockers)}\n"
        out = resolve(text.replace("bands =", blocks + "bands =") + lines)
        assert out["steps"] == choice.outcome["steps"]


# -- a blocker shared by a trampler and an attacker the defending player divides -------------

#: A 3/3 trampler and a 3/3 bear attack B; a 0/4 wall that can block an additional creature
#: blocks both, and a 0/1 with banding blocks the bear too, so B divides the bear's 3 between
#: the wall and the knight (702.22j) while A divides the wurm's 3 between the wall and B.
SHARED = (
    PLAYERS
    + creature("wurm", "A", 3, 3, "trample")
    + creature("bear", "A", 3, 3)
    + creature("wall", "B", 0, 4, "can block an additional creature")
    + creature("knight", "B", 0, 1, "banding")
    + combat({"wurm": "B", "bear": "B"})
)
SHARED_BLOCKS = {"wall": ["wurm", "bear"], "knight": "bear"}


def shared_blocks(*lines: str) -> str:
    return SHARED.replace(
        "[combat]\n", "[combat]\n" + f"blockers = {toml_value(SHARED_BLOCKS)}\n"
    ) + "".join(lines)


def test_702_19c_trample_counts_the_damage_the_defending_player_assigns(resolve: Resolve) -> None:
    """B puts the bear's 3 on the wall (702.22j), so the wall is assigned 1 + 3 = 4, lethal:
    the wurm may send 2 of its 3 to B (702.19c counts damage other creatures assign the wall
    in the step). The wall dies; B loses 2; the knight takes nothing."""
    out = resolve(
        shared_blocks(
            divide("regular", "wurm", {"wall": 1, "B": 2}),
            divide("regular", "bear", {"wall": 3}),
        )
    )
    assert damage(out) == {("wurm", "wall", 1), ("wurm", "B", 2), ("bear", "wall", 3)}
    assert out["steps"][0]["died"] == ["wall"]
    assert out["players"]["B"]["life"] == 18
    assert out["creatures"]["knight"]["damage"] == 0


def test_702_19c_the_same_trample_without_the_bears_damage_is_an_error(resolve: Resolve) -> None:
    """B puts the bear's 3 on the knight: the wall is assigned only the wurm's 1 of its 4, so
    the wurm's 2 to B break 702.19c: an input error at the wurm's division."""
    with pytest.raises(InputError) as caught:
        resolve(
            shared_blocks(
                divide("regular", "wurm", {"wall": 1, "B": 2}),
                divide("regular", "bear", {"knight": 3}),
            )
        )
    assert caught.value.path == "combat.divide[0].amounts"
    assert "wurm assigns damage to B before assigning lethal damage to wall" in str(caught.value)


def test_702_19c_702_22j_decisions_count_the_defending_players_division(
    resolve: Resolve, registry: Registry
) -> None:
    """With the blocks of SHARED_BLOCKS, A divides the wurm's 3 (wall w, B 3 - w), then B
    the bear's 3 (wall x, knight 3 - x), among the replies that keep the wurm's division
    legal: w + x >= 4 where 3 - w > 0 (702.19c, 702.22j). The wall (value 4) dies when
    w + x >= 4, the knight (value 1) when x < 3. B minimises (game, material, life):
    w = 3: x = 0 (knight dies, wall lives), (0, 1, 0); w = 2: x = 3, (0, 4, 1) (x = 2 also
    kills the knight); w = 1: x = 3 only, (0, 4, 2); w = 0: no legal reply, not a choice.
    A maximises: w = 1, (0, 4, 2). A search that ignored B's damage to the wall would allow
    only w = 3 and answer (0, 1, 0). The decided line replays on both engines."""
    sc = parse_scenario(tomllib.loads(SHARED), registry, "t.toml")
    d = best_blocks(sc, registry, top=20)
    (choice,) = [c for c in d.best if c.blockers == SHARED_BLOCKS]
    assert tuple(choice.score.values()) == (0, 4, 2, 0)
    assert choice.divide == [
        {"step": "regular", "source": "wurm", "amounts": {"wall": 1, "B": 2}},
        {"step": "regular", "source": "bear", "amounts": {"wall": 3}},
    ]
    lines = [divide(x["step"], x["source"], x["amounts"]) for x in choice.divide]
    out = resolve(shared_blocks(*lines))
    assert out["steps"] == choice.outcome["steps"]
    assert out["players"]["B"]["life"] == 18


def test_702_19c_702_22j_decisions_agree_with_brute_force(registry: Registry) -> None:
    """Each of SHARED's block declarations, answered by the players' divisions in turn (the
    defending player's only among replies that keep the wurm's division legal), scores what
    the brute-force oracle gives it (every line resolved on the reference engine, which
    refuses the illegal ones); the best, count and ties agree too."""
    sc = parse_scenario(tomllib.loads(SHARED), registry, "t.toml")
    d = best_blocks(sc, registry, top=50)
    assert len(d.best) == d.declarations == 12
    for choice in d.best:
        blockers = {k: (v,) if isinstance(v, str) else tuple(v) for k, v in choice.blockers.items()}
        declared = dataclasses.replace(sc, blockers=blockers)
        brute = best_line_value(declared, registry, tuple(choice.score))
        assert tuple(choice.score.values()) == brute, blockers
    agrees_with_brute_force(tomllib.loads(SHARED), registry)


def test_702_2c_702_19c_a_deathtouch_share_from_the_defending_player_is_lethal(
    resolve: Resolve, registry: Registry
) -> None:
    """SHARED with a 1/1 deathtouch bear: B divides its 1 (702.22j). Any of it on the wall is
    lethal damage assigned to the wall (702.2c), so the wurm may send all 3 to B (702.19c);
    with it on the knight, the wurm must put all 3 on the 0/4 wall. By hand: A's w on the wall
    (3 - w to B), B's x in {0, 1} on the wall; w < 3 forces x = 1: the wall dies, B loses
    3 - w; w = 3: B picks x = 0 and loses the knight only, (0, 1, 0). A picks w = 0: (0, 4, 3).
    The explicit line resolves so on both engines; the oracle agrees."""
    bear = creature("bear", "A", 3, 3)
    text = SHARED.replace(bear, creature("bear", "A", 1, 1, "deathtouch"))
    assert "deathtouch" in text
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml")
    (choice,) = [c for c in best_blocks(sc, registry, top=50).best if c.blockers == SHARED_BLOCKS]
    assert tuple(choice.score.values()) == (0, 4, 3, 0)
    assert choice.divide == [
        {"step": "regular", "source": "wurm", "amounts": {"B": 3}},
        {"step": "regular", "source": "bear", "amounts": {"wall": 1}},
    ]
    declared = dataclasses.replace(sc, blockers={"wall": ("wurm", "bear"), "knight": ("bear",)})
    assert best_line_value(declared, registry, tuple(choice.score)) == (0, 4, 3, 0)
    blocks = f"blockers = {toml_value(SHARED_BLOCKS)}\n"
    out = resolve(
        text.replace("[combat]\n", "[combat]\n" + blocks)
        + divide("regular", "wurm", {"B": 3})
        + divide("regular", "bear", {"wall": 1})
    )
    assert damage(out) == {("wurm", "B", 3), ("bear", "wall", 1)}
    assert out["steps"][0]["died"] == ["wall"]
    assert out["players"]["B"]["life"] == 17
