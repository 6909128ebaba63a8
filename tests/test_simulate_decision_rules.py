"""Bulk decisions (``decisions = "optimal"``) follow the block rules as the loader and the
engines judge them: a creature that may block several attackers blocks them (509.1a; RULES 9
step 2) and the defending player divides its damage among them (510.1d); blocks are judged on
the creatures as blockers are declared, after the attack triggers (RULES 4: exalted pumps a
skulk attacker, 702.118b); a trigger's requirement is obeyed as far as possible (509.1c:
provoke). Derived by hand, run on both engines, and checked against `best_blocks`."""

from __future__ import annotations

import dataclasses
import json
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_run import run_cli

from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.batched.boards import Segments, with_declarations
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.decisions import best_attacks, best_blocks
from ecs_combat.decisions.decided import Decider
from ecs_combat.scenario.model import Scenario
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.replay import replay_scenario
from ecs_combat.simulation.spec_reader import parse_spec

#: Two 1/1 attackers; each brings 0 or 1 creature of the defending player: a 2/4 that can
#: block any number of creatures.
DOUBLE = """\
decisions = "optimal"
attackers = 2
blockers_per_attacker = [0, 1]
life = 20
[attacker]
power = 1
toughness = 1
[blocker]
power = 2
toughness = 4
[blocker.keywords]
"can block any number of creatures" = 1.0
"""
#: A 1/1 attacker with skulk and exalted against a 2/3.
SKULK = """\
decisions = "optimal"
attackers = 1
blockers_per_attacker = 1
life = 20
[attacker]
power = 1
toughness = 1
[attacker.keywords]
skulk = 1.0
exalted = 1.0
[blocker]
power = 2
toughness = 3
"""


def totals(tmp_path: Path, text: str, engine: str, n: int = 300) -> dict[str, Any]:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    p = run_cli(
        ("simulate", str(path), "-n", str(n), "--seed", "1", "--engine", engine, "--json"),
        env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None},
    )
    assert p.returncode == 0, p.stderr
    doc: dict[str, Any] = json.loads(p.stdout)
    row: dict[str, Any] = doc["matchups"][0]
    return row


def bare(scenario: Scenario) -> Scenario:
    """The scenario with nothing blocked or divided: what the search decides."""
    return dataclasses.replace(scenario, blockers={}, divisions=[])


@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_509_1a_510_1d_one_creature_blocks_both_attackers_and_kills_both(
    tmp_path: Path, engine: str, registry: Registry
) -> None:
    """RULES 9 scores (game, material, life) for the attacking player, the defender
    minimises; values: 1/1 = 2, 2/4 = 6. With one 2/4 against the two 1/1s attacking:

    - no block: (0, 0, 2);
    - it blocks one: that one dies (2 >= 1), it takes 1: (0, -2, 1);
    - it blocks both (509.1a: any number) and divides its 2 damage 1 + 1 (510.1d: the
      defending player's choice): both die, it takes 1 + 1 = 2 < 4: (0, -4, 0), the best.

    So the attacking player (CONTRACT 9) attacks with neither where B has a 2/4 (one 1/1
    alone is blocked and dies: (0, -2, 0); nothing: (0, 0, 0)), and with both where B has
    nothing to block with: 2 damage, nobody dies, in every battle."""
    m = totals(tmp_path, DOUBLE, engine)
    assert m["neither_dies"] == m["battles"]
    assert m["attackers_died"] == m["blockers_died"] == 0
    assert 0 < m["damage_to_players"] < 2 * m["battles"]
    assert m["damage_to_players"] % 2 == 0


def bulk_battles(text: str, registry: Registry, n: int) -> list[tuple[Scenario, Scenario]]:
    """The first `n` battles of a SPEC as drawn (every drawn attacker attacking) and with
    the blocks the bulk search (:meth:`Decider.best`) chooses against those attackers."""
    generator = make_generator(parse_spec(tomllib.loads(text), registry), registry)
    drawn = draw_battles(generator, 1, 0, n)
    best = Decider(registry).best(drawn.batch, ~drawn.attacking_side)
    chosen = with_declarations(drawn.batch, best.declarations)
    return list(
        zip(
            batch_to_scenarios(drawn.batch, registry),
            batch_to_scenarios(chosen, registry),
            strict=True,
        )
    )


def test_a_lone_blocker_of_both_is_what_best_blocks_chooses(registry: Registry) -> None:
    """Against both 1/1s attacking, the battles with one 2/4 declare it blocking both,
    dividing 1 + 1 (above), as `best_blocks` decides the battle's scenario; and the attacking
    player's best attack there is none (`best_attacks`), as the run declares."""
    seen = 0
    generator = make_generator(parse_spec(tomllib.loads(DOUBLE), registry), registry)
    for k, (plain, decided) in enumerate(bulk_battles(DOUBLE, registry, 12)):
        if sum(c.controller == "B" for c in plain.creatures.values()) != 1:
            continue
        seen += 1
        assert decided.blockers == {"c2": ("c0", "c1")}
        (division,) = decided.divisions
        assert division.source == "c2" and dict(division.amounts) == {"c0": 1, "c1": 1}
        best = best_blocks(bare(plain), registry, top=1).best[0]
        assert best.blockers == {"c2": ["c0", "c1"]}
        assert replay_scenario(generator, registry, 1, k).attackers == {}
        open_board = dataclasses.replace(plain, attackers={}, blockers={}, divisions=[])
        assert best_attacks(open_board, registry, top=1).best[0].attackers == {}
    assert seen >= 2


@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_702_118b_an_exalted_skulk_attacker_is_not_sent_into_an_equal_power(
    tmp_path: Path, engine: str, registry: Registry
) -> None:
    """Exalted (702.83) gives the lone 1/1 attacker +1/+1 as it attacks: as blockers are
    declared it is a 2/2, and the 2/3's power 2 is not greater (702.118b): it may block.
    Blocking kills it (2 >= 2) and the 2/3 survives (2 < 3): (0, -2, 0) against (0, 0, 2)
    unblocked, so the attack is worth (0, -2, 0) < (0, 0, 0): the attacking player never
    attacks; nobody dies, no damage. Judged on the drawn powers (2 > 1) the block would be
    refused, the attack worth (0, 0, 2) and made in every battle."""
    m = totals(tmp_path, SKULK, engine, n=50)
    assert m["neither_dies"] == m["battles"] == 50
    assert m["damage_to_players"] == 0
    ((plain, decided),) = bulk_battles(SKULK, registry, 1)
    assert decided.blockers == {"c1": ("c0",)}
    assert best_blocks(bare(plain), registry, top=1).best[0].blockers == {"c1": "c0"}


PROVOKE = """\
[players.A]
life = 20
[players.B]
life = 20
[creatures.goblin]
controller = "A"
power = 3
toughness = 3
keywords = ["provoke"]
{targets}
[creatures.rat]
controller = "A"
power = 1
toughness = 1
[creatures.bear]
controller = "B"
power = 2
toughness = 2
tapped = {tapped}
[combat]
attackers = {{ goblin = "B", rat = "B" }}
"""


def bulk_blocks(scenario: Scenario, registry: Registry) -> dict[str, tuple[str, ...]]:
    """The blocks the bulk search (:class:`Decider`) chooses for one scenario."""
    batch = scenarios_to_batch([scenario], registry)
    first = Segments.of(batch.player_battle, batch.n_battles).start
    defends = batch.controller != first[batch.battle]
    best = Decider(registry).best(batch, np.asarray(defends))
    (decided,) = batch_to_scenarios(with_declarations(batch, best.declarations), registry)
    ids = list(scenario.creatures)
    names = list(decided.creatures)
    return {
        ids[names.index(b)]: tuple(ids[names.index(a)] for a in attacked)
        for b, attacked in decided.blockers.items()
    }


@pytest.mark.parametrize(
    ("targets", "tapped", "blocks"),
    [
        ('targets = { provoke = "bear" }', "true", {"bear": ("goblin",)}),
        ('targets = { provoke = "bear" }', "false", {"bear": ("goblin",)}),
        ("", "false", {"bear": ("rat",)}),
        ("", "true", {}),
    ],
    ids=["provoked-tapped", "provoked", "free", "tapped"],
)
def test_509_1c_the_provoked_creature_blocks_the_provoker(
    registry: Registry, targets: str, tapped: str, blocks: dict[str, tuple[str, ...]]
) -> None:
    """A's goblin 3/3 (provoke) and rat 1/1 attack; B has a bear 2/2. Values 6, 2, 4.
    Unprovoked the bear's options score (game, material, life): no block (0, 0, 4);
    blocking the goblin, the bear dies and the goblin lives (0, 4, 1); blocking the rat, the
    rat dies and the bear lives (0, -2, 3): it blocks the rat; tapped it can't block (509.1a).
    Provoking it, the goblin's trigger untaps it and it must block the goblin if able
    (702.39): only that declaration obeys the one requirement (509.1c), so it is made
    however bad. The bulk search and `best_blocks` agree."""
    text = PROVOKE.format(targets=targets, tapped=tapped)
    doc = tomllib.loads(textwrap.dedent(text))
    scenario = parse_scenario(doc, registry, "provoke.toml", blocks_to_decide=True)
    assert bulk_blocks(scenario, registry) == blocks
    best = best_blocks(scenario, registry, top=1).best[0]
    assert best.blockers == {b: a[0] for b, a in blocks.items()}


def test_the_bound_counts_every_set_a_creature_may_block(tmp_path: Path) -> None:
    """3 attackers and 6 creatures that may block: every attack of s of the attackers (C(3,
    s) of them) with every block declaration against it: sum of C(3, s) (s + 1)^6 = 1 + 192 +
    2,187 + 4,096 = 6,476 declarations when each creature blocks one attacker or none,
    searched; sum of C(3, s) (2^s)^6 = 1 + 192 + 12,288 + 262,144 = 274,625 > 100,000 when
    one may block any set of them: refused, exit status 2 naming `decisions`."""
    base = 'decisions = "optimal"\nattackers = 3\nblockers_per_attacker = 2\n'
    path = tmp_path / "spec.toml"
    path.write_text(base)
    env = {"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None}
    assert run_cli(("simulate", str(path), "-n", "2", "--seed", "1"), env=env).returncode == 0
    path.write_text(base + '[keywords]\n"can block an additional creature" = 0.1\n')
    p = run_cli(("simulate", str(path), "-n", "2", "--seed", "1"), env=env)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "decisions" in p.stderr and "274,625" in p.stderr and "may block several" in p.stderr


def test_lure_is_drawn_only_with_chosen_blocks(tmp_path: Path, registry: Registry) -> None:
    """Drawn blocks obey restrictions only, so a SPEC drawing lure (509.1c) is refused unless
    its blocks are chosen (decisions = "optimal", which obeys the requirements); turning the
    choice off with --decisions drawn is refused too (exit status 2, naming it)."""
    doc = {"keywords": {"lure": 0.5}, "attackers": 1, "blockers_per_attacker": 2}
    with pytest.raises(InputError, match=r"keywords\.lure.*block requirement.*optimal"):
        parse_spec(doc, registry, "s.toml")
    assert parse_spec({**doc, "decisions": "optimal"}, registry).decisions == "optimal"
    path = tmp_path / "spec.toml"
    path.write_text(
        'decisions = "optimal"\nattackers = 1\nblockers_per_attacker = 2\n[keywords]\nlure = 0.5\n'
    )
    env = {"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None}
    ok = run_cli(("simulate", str(path), "-n", "20", "--seed", "1"), env=env)
    assert ok.returncode == 0, ok.stderr
    p = run_cli(("simulate", str(path), "-n", "20", "--seed", "1", "--decisions", "drawn"), env=env)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "--decisions" in p.stderr and "'lure'" in p.stderr and "block requirement" in p.stderr


LURE_WALL = """\
[players.A]
life = 20
[players.B]
life = 20
[creatures.goblin]
controller = "A"
power = 1
toughness = 1
keywords = ["lure"]
[creatures.rat]
controller = "A"
power = 1
toughness = 1
[creatures.wall]
controller = "B"
power = 0
toughness = 4
keywords = ["can block any number of creatures"]
[combat]
attackers = { goblin = "B", rat = "B" }
"""


def test_509_1c_a_wall_of_any_number_blocks_the_lure_and_the_rest(registry: Registry) -> None:
    """The wall (0/4, can block any number of creatures) must block the lure goblin (509.1c):
    the declarations obeying that one requirement are {goblin} and {goblin, rat}; its 0 power
    kills nobody, so they score (0, 0, 1) (the rat's 1 damage) and (0, 0, 0): it blocks both
    (509.1a). The bulk search and `best_blocks` (whose requirement count is bounded by the
    attackers, not by "any number") agree."""
    doc = tomllib.loads(LURE_WALL)
    scenario = parse_scenario(doc, registry, "lure.toml", blocks_to_decide=True)
    assert bulk_blocks(scenario, registry) == {"wall": ("goblin", "rat")}
    best = best_blocks(scenario, registry, top=1).best[0]
    assert best.blockers == {"wall": ["goblin", "rat"]}
