"""`simulate` with decisions = "optimal" (CONTRACT section 8; RULES section 9): each drawn
battle's blocks are the defending player's best, searched in bulk; checked against the
scenario search (`best_blocks`) battle by battle, by hand on the tournament, on both engines,
and the SPEC key and option validated."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import subprocess
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_run import Completed, run_cli
from rich.console import Console

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.cards.notes import result_json
from ecs_combat.cli.card_table import render_card_summary
from ecs_combat.decisions import best_attacks, best_blocks
from ecs_combat.decisions.decided import Decider
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.simulation.card_draw import CardGenerator
from ecs_combat.simulation.card_summary import card_summary
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import default_chunk_size, make_engine, simulate, summary
from ecs_combat.simulation.spec import TournamentSpec
from ecs_combat.simulation.spec_reader import parse_spec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "specs" / "optimal-blocks.toml"
TWO_DROPS = ROOT / "docs" / "examples" / "specs" / "two-drops.toml"
#: Several attackers and blockers, with keywords that restrict blocks (flying, reach, menace)
#: and make attackers divide damage (trample, two blockers), and first-strike steps.
MIXED = {
    "attackers": [1, 2],
    "blockers_per_attacker": [0, 2],
    "power": [1, 4],
    "toughness": [1, 4],
    "life": 6,
    "keywords": {
        "trample": 0.4,
        "first strike": 0.3,
        "deathtouch": 0.3,
        "flying": 0.3,
        "reach": 0.3,
        "menace": 0.3,
    },
    "decisions": "optimal",
}


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=env)


def run(*args: str) -> Completed:
    """The same command in this process (tests/cli_run.py)."""
    return run_cli(args, env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})


def summary_of(*args: str) -> dict[str, Any]:
    p = run("simulate", *args, "--json")
    assert p.returncode == 0, p.stderr
    doc: dict[str, Any] = json.loads(p.stdout)
    return doc


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(text))
    return path


# -- the same blocks as the scenario search ------------------------------------------------------


#: Creatures that may block several attackers (509.1a; RULES 9 step 2), the defending player
#: dividing a blocker's damage among them (510.1d), and menace needing two blockers.
SEVERAL = {
    **MIXED,
    "keywords": {
        "can block an additional creature": 0.3,
        "can block any number of creatures": 0.2,
        "trample": 0.3,
        "menace": 0.2,
        "flying": 0.2,
    },
}
#: Attack triggers that pump attackers before blocks are declared (exalted, battle cry), and
#: skulk, whose legality compares powers then (702.118b; RULES 4).
TRIGGERED = {
    **MIXED,
    "keywords": {"skulk": 0.4, "exalted": 0.4, "battle cry": 0.4, "flying": 0.2},
}
#: Lure's requirement (509.1c), obeyed as far as the restrictions let it be, beside flying
#: and menace.
LURED = {
    **MIXED,
    "keywords": {"lure": 0.4, "flying": 0.3, "menace": 0.2, "trample": 0.3, "deathtouch": 0.2},
}

#: Boards all of one shape (two attackers, two creatures that may block) where every
#: declaration is legal: the search lists them all at once (`_every_declaration`).
ALIKE = {
    **MIXED,
    "attackers": 2,
    "blockers_per_attacker": [1, 1],
    "keywords": {"trample": 0.4, "first strike": 0.3, "deathtouch": 0.3},
}


def blockers_of(scenario: Any) -> dict[str, str | list[str]]:
    """``combat.blockers`` as `best_blocks` shows them: one attacker, or a list of several."""
    return {b: a[0] if len(a) == 1 else list(a) for b, a in scenario.blockers.items()}


def skulk_blocked_by_stronger(scenario: Any) -> bool:
    """Whether some skulk attacker is blocked by a creature of greater power as drawn
    (legal only once an attack trigger pumped the attacker)."""
    cs = scenario.creatures
    return any(
        "skulk" in cs[a].keywords and cs[b].power > cs[a].power
        for b, attacked in scenario.blockers.items()
        for a in attacked
    )


def lure_blocked_by_several(scenario: Any) -> bool:
    """Whether some lure attacker is blocked by two creatures or more."""
    cs = scenario.creatures
    return any(
        "lure" in cs[a].keywords and len(scenario.blockers_of(a)) > 1 for a in scenario.attackers
    )


@pytest.mark.parametrize(
    ("doc", "seed", "witness"),
    [
        (MIXED, 7, None),
        (SEVERAL, 3, lambda sc: any(len(a) > 1 for a in sc.blockers.values())),
        (TRIGGERED, 5, skulk_blocked_by_stronger),
        (LURED, 5, lure_blocked_by_several),
        (ALIKE, 2, lambda sc: any(len(sc.blockers_of(a)) > 1 for a in sc.attackers)),
    ],
    ids=["restrictions", "several-attackers", "attack-triggers", "lure", "one-shape"],
)
def test_each_battle_gets_the_attack_and_blocks_best_attacks_gives_its_scenario(
    registry: Registry, doc: dict[str, Any], seed: int, witness: Any
) -> None:
    """RULES 9, CONTRACT 9: for drawn battles written as scenarios without their attacks,
    `best_attacks`' first declaration (ties as shown first: the fewest attackers) is the
    attack the bulk search chose among the drawn attackers, answered by the same blocks, and
    resolving the chosen declarations and divisions on the reference engine gives the best
    line's outcome: with block restrictions; with creatures that may block several attackers
    (509.1a) and divide their damage among them (510.1d); with attack triggers that change a
    block's legality (the creatures as blockers are declared); and with lure's requirements
    (509.1c). At 2 life most attacks threaten the game (RULES 9's first term), so blocks are
    made and the block rules matter."""
    spec = parse_spec({**doc, "life": 2}, registry)
    generator = make_generator(spec, registry)
    drawn = draw_battles(generator, seed, 0, 60)
    chosen, _ = Decider(registry).decide(drawn)
    bare = batch_to_scenarios(drawn.batch, registry)
    mine = batch_to_scenarios(chosen.batch, registry)
    held_back = some_blocked = witnessed = 0
    for plain, decided in zip(bare, mine, strict=True):
        open_board = dataclasses.replace(plain, attackers={}, blockers={}, divisions=[])
        best = best_attacks(open_board, registry, top=1).best[0]
        assert dict(decided.attackers) == best.attackers, plain.file
        assert blockers_of(decided) == best.blockers, plain.file
        outcome = result_json(decided, ReferenceEngine(registry).resolve(decided))
        assert outcome["creatures"] == best.outcome["creatures"]
        assert outcome["players"] == best.outcome["players"]
        held_back += len(decided.attackers) < len(plain.attackers)
        some_blocked += bool(best.blockers)
        witnessed += witness is not None and witness(decided)
    # the battles drawn exercise attacks held back and made, and blocks
    assert held_back >= 3 and any(s.attackers for s in mine)
    assert some_blocked >= 5
    # and what the keywords are drawn for
    assert witness is None or witnessed >= 1


# -- by hand, on the tournament ----------------------------------------------------------------


def tally(spec: TournamentSpec, registry: Registry, engine: str, n: int = 400) -> dict[str, Any]:
    generator = make_generator(spec, registry)
    resolver = make_engine(engine, registry)
    run = simulate(generator, engine, resolver, 3, n, 128)
    doc = summary(generator, spec, 3, run)
    return {(m["attacker"], m["blocker"]): m for m in doc["matchups"]}


@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_a_3_3_attacks_only_where_no_block_beats_it(registry: Registry, engine: str) -> None:
    """Every creature is 3/3; a side has first strike or nothing, life 20. RULES 9 scores
    (game, material, life, poison), value = power + toughness = 6; the attacking player
    maximises over attacking or not (CONTRACT 9), the defender minimises over its blocks:

    - first strike attacks a plain 3/3: a block loses the blocker (0, 6, 0, 0), no block
      costs 3 life (0, 0, 3, 0): the attack is worth (0, 0, 3, 0) > (0, 0, 0, 0) for not
      attacking; it attacks, unblocked: neither dies, 3 damage a battle;
    - plain attacks plain, or first strike attacks first strike: the block trades (0, 0, 0,
      0), the defender's best, equal to not attacking: of equal declarations the fewest
      creatures come first (RULES 9), so it does not attack: neither dies, no damage;
    - plain attacks a first striker: the block kills it for free (0, -6, 0, 0) < not
      attacking: no attack, neither dies.
    With drawn decisions every creature attacks and every battle is blocked."""
    spec = TournamentSpec(("first strike",), (3, 3), (3, 3), 20, decisions="optimal")
    rows = tally(spec, registry, engine)
    fs, none = "first strike", "none"
    m = rows[(fs, none)]
    assert m["neither_dies"] == m["battles"] > 0
    assert m["damage_to_players"] == 3 * m["battles"]
    for key in ((none, none), (fs, fs), (none, fs)):
        assert rows[key]["neither_dies"] == rows[key]["battles"] > 0
        assert rows[key]["damage_to_players"] == 0
    drawn = tally(dataclasses.replace(spec, decisions="drawn"), registry, engine)
    assert drawn[(fs, none)]["attacker_wins"] == drawn[(fs, none)]["battles"]
    assert drawn[(none, none)]["trades"] == drawn[(none, none)]["battles"]


@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_the_block_is_made_when_needed_to_survive(registry: Registry, engine: str) -> None:
    """The same battles at 3 life: the unblocked first striker deals 3, the defending player
    loses the game (game +1), so the chump block (material +6, game 0) is better for it:
    every first strike attacker facing a plain 3/3 is blocked and wins."""
    spec = TournamentSpec(("first strike",), (3, 3), (3, 3), 3, decisions="optimal")
    m = tally(spec, registry, engine)[("first strike", "none")]
    assert m["attacker_wins"] == m["battles"] > 0
    assert m["damage_to_players"] == 0


# -- the command -------------------------------------------------------------------------------


def test_same_seed_same_results_whatever_the_chunks() -> None:
    """CONTRACT 8: same SPEC, N and seed, same results; the summary's spec echoes the key."""
    a = summary_of(str(EXAMPLE), "-n", "3000", "--seed", "5")
    b = summary_of(str(EXAMPLE), "-n", "3000", "--seed", "5", "--chunk-size", "700")
    assert a["spec"]["decisions"] == "optimal"
    assert {k: v for k, v in a.items() if k != "run"} == {k: v for k, v in b.items() if k != "run"}
    c = summary_of(str(EXAMPLE), "-n", "3000", "--seed", "6")
    assert c["totals"] != a["totals"]


def test_both_engines_give_the_same_summary() -> None:
    """Decided with the batched search, the chosen combats resolved on either engine."""
    a = summary_of(str(EXAMPLE), "-n", "300", "--seed", "2")
    b = summary_of(str(EXAMPLE), "-n", "300", "--seed", "2", "--engine", "reference")
    assert a["totals"] == b["totals"] and a["matchups"] == b["matchups"]


def test_the_option_applies_to_the_tournament_and_changes_the_blocks() -> None:
    """--decisions optimal on the tournament: no attacker ever wins alone (a defender never
    blocks to lose its creature for nothing at 20 life); drawn, many do. Nobody dies at all:
    a block the defender makes scores at most 0 for the attacker (a trade, or a win for the
    blocker) where no block scores the attacker's power in life, so such an attack is worth
    at most not attacking, and with equal values the fewest attackers come first (RULES 9):
    the attacks made are the ones left unblocked."""
    optimal = summary_of("-n", "2000", "--seed", "1", "--decisions", "optimal")
    drawn = summary_of("-n", "2000", "--seed", "1")
    assert optimal["spec"]["decisions"] == "optimal" and "decisions" not in drawn["spec"]
    assert optimal["totals"]["attacker_wins"] == 0 < drawn["totals"]["attacker_wins"]
    assert optimal["totals"]["neither_dies"] == 2000
    assert optimal["totals"]["damage_to_players"] > 0 == drawn["totals"]["damage_to_players"]


def test_the_option_overrides_the_spec_key(tmp_path: Path) -> None:
    doc = summary_of(str(EXAMPLE), "-n", "500", "--seed", "1", "--decisions", "drawn")
    assert "decisions" not in doc["spec"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'decisions = "optimul"',
            "decisions: must be one of 'drawn', 'optimal', not 'optimul'; did you mean 'optimal'?",
        ),
        ("decisions = 1", "decisions: must be one of 'drawn', 'optimal', not an integer"),
        (
            'decisions = "optimal"\nattackers = 5\nblockers_per_attacker = [0, 3]',
            "up to 633,653,946,352 declarations (every attack with every block declaration "
            "against it); an exact search takes at most 100,000",
        ),
        (
            'decisions = "optimal"\nattackers = 4\nblockers_per_attacker = 2\n[turn]\n'
            'creatures = [{ card = "Throat Wolf", controller = "defending player" }]',
            'decisions: "optimal" is refused for this SPEC: the first combat phase of its '
            "largest battle (4 attackers, 9 creatures that may block) can have up to 1,953,125 "
            "block declarations",
        ),
        (
            'decisions = "optimal"\n[[casts]]\ncard = "Hat Trick"\nprobability = 0.5\n'
            'target = "blocker"',
            "casts[0] is cast on a blocker, which depends on the blocks",
        ),
    ],
    ids=["typo", "type", "too-many", "turn-too-many", "casts"],
)
def test_the_spec_key_is_validated(tmp_path: Path, text: str, message: str) -> None:
    spec = write(tmp_path, text + "\n")
    p = run("simulate", str(spec), "-n", "10")
    assert p.returncode == 2, p.stderr
    assert message in p.stderr, p.stderr
    assert str(spec) in p.stderr and "Traceback" not in p.stderr


def test_the_option_is_refused_for_a_spec_too_large_to_search() -> None:
    p = installed(
        "simulate", str(ROOT / "examples" / "specs" / "melee.toml"), "--decisions", "optimal"
    )
    assert p.returncode == 2 and "--decisions" in p.stderr and "Traceback" not in p.stderr


def test_two_player_boards_keep_their_sides(registry: Registry) -> None:
    """The decided batch keeps the drawn creatures; its attackers are some of the drawn
    attackers, each attacking the player it was drawn to attack; every block is by a
    defending creature of the same battle against a chosen attacker."""
    spec = parse_spec(MIXED, registry)
    generator = make_generator(spec, registry)
    drawn = draw_battles(generator, 1, 0, 200)
    chosen = Decider(registry).decide(drawn)[0].batch
    attacks = chosen.attacking >= 0
    assert np.array_equal(chosen.attacking[attacks], drawn.batch.attacking[attacks])
    assert 0 < np.count_nonzero(attacks) < np.count_nonzero(drawn.batch.attacking >= 0)
    assert not drawn.attacking_side[chosen.block_blocker].any()
    assert (chosen.attacking[chosen.block_attacker] >= 0).all()
    assert np.array_equal(chosen.battle[chosen.block_blocker], chosen.battle[chosen.block_attacker])


def test_documented_optimal_two_drops_ranking_is_what_the_run_gives(registry: Registry) -> None:
    """docs/simulate.md shows an excerpt of the 2-drop ranking with optimal blocks (100,000
    battles, seed 1)."""
    text = (ROOT / "docs" / "simulate.md").read_text()
    block = re.search(r"<!-- two-drops-optimal -->\n```\n(.*?)```", text, re.S)
    assert block
    shown = block.group(1).splitlines()
    doc = {**tomllib.loads(TWO_DROPS.read_text()), "decisions": "optimal"}
    spec = parse_spec(doc, registry, str(TWO_DROPS))
    generator = make_generator(spec, registry)
    assert isinstance(generator, CardGenerator)
    resolver = make_engine("batched", registry)
    run = simulate(generator, "batched", resolver, 1, 100_000, default_chunk_size(spec, "batched"))
    assert generator.pool is not None
    summary_doc = card_summary(generator.pool, spec, 1, run)
    cards = {c["card"]: c["keywords"] for c in summary_doc["cards"]}
    summary_doc["run"]["spec_file"] = "docs/examples/specs/two-drops.toml"
    console = Console(file=io.StringIO(), width=300)
    render_card_summary(summary_doc, console, "")
    printed = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    printed = [line.rstrip() for line in printed]
    assert printed[:7] == shown[:7]
    assert printed[-4:-1] == shown[-4:-1]
    totals = summary_doc["totals"]
    # attacks are made only where no block beats them (ties: no attack), so nobody wins a
    # fight; a trade is made only where it also swings life (lifelink's gain, trample's
    # excess, afflict's loss), which beats not attacking
    assert totals["attacker_wins"] == totals["blocker_wins"] == 0
    assert totals["neither_dies"] == 98_630 and totals["trades"] == 1_370
    traders = {c["card"] for c in summary_doc["cards"] if c["as_attacker"]["trades"]}
    swing = ("lifelink", "trample", "afflict")
    assert traders and all(any(k.startswith(swing) for k in cards[t]) for t in traders)
    assert totals["damage_to_players"] == 76_595
    # every point of it is credited to the card that dealt it, as in drawn runs
    assert sum(c["dealt_to_players"] for c in summary_doc["cards"]) == 76_595


def test_replay_prints_the_chosen_blocks(registry: Registry) -> None:
    """--replay K of a run with decisions = "optimal" prints battle K with the blocks the run
    resolved: the best blocks of that battle (`best_blocks` on the printed scenario)."""
    for k in range(4):
        p = installed("simulate", str(EXAMPLE), "--seed", "5", "--replay", str(k))
        assert p.returncode == 0, p.stderr
        printed = parse_scenario(tomllib.loads(p.stdout), registry, f"battle {k}")
        best = best_blocks(printed, registry, top=1).best[0]
        assert {b: a[0] for b, a in printed.blockers.items()} == best.blockers
    drawn = installed(
        "simulate", str(EXAMPLE), "--seed", "5", "--replay", "3", "--decisions", "drawn"
    )
    assert (
        drawn.returncode == 0
        and drawn.stdout
        != installed("simulate", str(EXAMPLE), "--seed", "5", "--replay", "3").stdout
    )
