"""Bulk turns with decisions = "optimal" (CONTRACT section 8, RULES sections 8 and 9): every
combat phase of every battle's turn is decided as it begins, from the battle's state then (the
first phase's attacks among the drawn attackers, each later phase's among its creatures, and
their blocks), as `best_attacks` decides that phase as a scenario; by hand on small turns; the
replayed turn file resolves to the recorded outcome; the same seed gives the same results."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_replay import TURN_SPEC, assert_recorded, invoke, rows

import ecs_combat
from ecs_combat import Registry
from ecs_combat.batched.boards import Declarations, with_declarations
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.phase_start import PhaseStart
from ecs_combat.batched.turn_play import TurnRun
from ecs_combat.decisions import best_attacks, turn_decided
from ecs_combat.scenario.model import Scenario
from ecs_combat.simulation.deciding import decided
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.replay import replay_text
from ecs_combat.simulation.spec_reader import load_spec, parse_spec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "specs" / "optimal-turn.toml"

#: B's Throat Wolf adds a combat phase for B after A's; A casts Resurgence in its postcombat
#: main phase: combat phases A (the turn's), B (the Wolf's), A (Resurgence's). Keywords that
#: restrict blocks and make attackers divide, and lure, whose required blocks (509.1c) make
#: creatures die in well-played phases too.
MIXED: dict[str, Any] = {
    "attackers": [1, 2],
    "blockers_per_attacker": [0, 1],
    "power": [1, 4],
    "toughness": [1, 4],
    "life": 8,
    "keywords": {
        "vigilance": 0.5,
        "first strike": 0.2,
        "trample": 0.2,
        "deathtouch": 0.1,
        "flying": 0.2,
        "menace": 0.1,
        "lure": 0.3,
    },
    "turn": {
        "creatures": [{"card": "Throat Wolf", "controller": "defending player"}],
        "casts": [{"card": "Resurgence", "caster": "attacking player", "main": 2}],
    },
    "decisions": "optimal",
}


def decided_phases(
    registry: Registry, doc: dict[str, Any], seed: int, n: int
) -> tuple[TurnRun, list[tuple[PhaseStart, Declarations]]]:
    """Battles 0..n-1 of a run of the SPEC, played as a chunk is: each combat phase's start
    and the declarations chosen for it."""
    generator = make_generator(parse_spec(doc, registry, "turn.toml"), registry)
    drawn, known = decided(generator, draw_battles(generator, seed, 0, n), None)
    assert known is None and drawn.turn is not None and drawn.turn.declarer is not None
    declarer = drawn.turn.declarer
    seen: list[tuple[PhaseStart, Declarations]] = []

    def recording(start: PhaseStart) -> Declarations:
        seen.append((start, declarer(start)))
        return seen[-1][1]

    turn = dataclasses.replace(drawn.turn, declarer=recording)
    run = TurnRun(BatchedEngine(registry).schedules, turn, record=False, strict=False)
    run.play_turns()
    run.raise_error()
    return run, seen


def as_decision(start: PhaseStart, bare: Scenario, b: int) -> Scenario:
    """Battle b of a phase's state as the scenario RULES section 9 decides: its attacking
    player listed first (the active player), creatures tapped as they are, and in a later phase
    the attacking player's creatures that may not attack in it (a Throat Wolf's phase) tapped."""
    state = start.state
    lo, hi = np.searchsorted(state.battle, [b, b + 1]).tolist()
    present = [r for r in range(lo, hi) if state.present[r]]
    assert state.tapped is not None
    creatures = {}
    for row, (cid, c) in zip(present, bare.creatures.items(), strict=True):
        kept = bool(state.tapped[row])
        may = start.may_attack
        if may is not None and state.controller[row] == start.attacker[b] and not may[row]:
            kept = True
        creatures[cid] = dataclasses.replace(c, tapped=kept)
    names = list(bare.players)
    first = names[int(start.attacker[b]) - int(np.searchsorted(state.player_battle, b))]
    players = {first: bare.players[first]} | {p: v for p, v in bare.players.items() if p != first}
    return dataclasses.replace(bare, creatures=creatures, players=players)


def blocks_of(scenario: Scenario) -> dict[str, str | list[str]]:
    """``combat.blockers`` as `best_blocks` shows them: one attacker, or a list of several."""
    return {b: a[0] if len(a) == 1 else list(a) for b, a in scenario.blockers.items()}


#: MIXED with creatures that may block several attackers (509.1a), attack triggers that pump
#: attackers before blocks (exalted, battle cry) and skulk, whose legality compares powers
#: then (702.118b; RULES 4), and lure's requirement (509.1c).
SEVERAL: dict[str, Any] = {
    **MIXED,
    "keywords": {
        "vigilance": 0.3,
        "trample": 0.2,
        "skulk": 0.3,
        "exalted": 0.3,
        "battle cry": 0.2,
        "can block an additional creature": 0.3,
        "can block any number of creatures": 0.2,
        "lure": 0.2,
    },
}


@pytest.mark.parametrize(
    ("doc", "several", "seed"), [(MIXED, 0, 3), (SEVERAL, 1, 8)], ids=["mixed", "several"]
)
def test_every_phase_is_decided_as_best_blocks_and_best_attacks_decide_its_state(
    registry: Registry, doc: dict[str, Any], several: int, seed: int
) -> None:
    """RULES 9, per combat phase of the turn (RULES 8: as it begins, the creatures as they
    are then): the first phase's attackers (a set of the drawn ones) and blocks are
    `best_attacks`' first among the drawn attackers on the scenario of its state; each later
    phase's attackers and blocks are `best_attacks`' first (ties as shown first), on the
    scenario of that phase's state; with blockers of several attackers and attack triggers
    too."""
    # (well-played attacks rarely let a creature block several attackers: a seed where one
    # does, for SEVERAL)
    _, seen = decided_phases(registry, doc, seed, 60)
    assert [s.index for s, _ in seen] == [0, 1, 2]
    counts = {
        "blocks": 0,
        "attacks": 0,
        "declined": 0,
        "tapped": 0,
        "dead": 0,
        "first attacks": 0,
        "first declined": 0,
    }
    double = 0
    for start, chosen in seen:
        bare = batch_to_scenarios(start.state, registry)
        mine = batch_to_scenarios(with_declarations(start.state, chosen), registry)
        for b in np.flatnonzero(start.attacker >= 0).tolist():
            scenario = as_decision(start, bare[b], b)
            if start.may_attack is None:  # the first phase: among the drawn attackers
                drawn = frozenset(scenario.attackers)
                if not drawn:
                    continue
                scenario = dataclasses.replace(scenario, attackers={})
                best = best_attacks(scenario, registry, top=1, only=drawn).best[0]
                assert mine[b].attackers == best.attackers, (start.index, b)
                counts["first attacks"] += bool(best.attackers)
                counts["first declined"] += not best.attackers
            else:
                assert start.state.tapped is not None
                lo, hi = np.searchsorted(start.state.battle, [b, b + 1]).tolist()
                counts["tapped"] += bool(start.state.tapped[lo:hi].any())
                counts["dead"] += not start.state.present[lo:hi].all()
                scenario = dataclasses.replace(scenario, attackers={})
                best = best_attacks(scenario, registry, top=1).best[0]
                assert mine[b].attackers == best.attackers, (start.index, b)
                counts["attacks"] += bool(best.attackers)
                counts["declined"] += not best.attackers and any(
                    c.controller == next(iter(scenario.players)) and not c.tapped
                    for c in scenario.creatures.values()
                )
            assert blocks_of(mine[b]) == best.blockers, (start.index, b)
            counts["blocks"] += bool(best.blockers)
            double += any(len(a) > 1 for a in mine[b].blockers.values())
    # the battles exercise blocks, later attacks made and declined, and later phases whose
    # state differs from the first's (tapped attackers, creatures that died)
    assert all(n >= 3 for n in counts.values()), str(counts)
    assert double >= several


def spec_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(text))
    return path


def simulate_json(*args: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(invoke("simulate", *args, "--json"))
    return doc


WOLF_TURN = """\
attackers = 1
blockers_per_attacker = 0
power = 2
toughness = 2
[turn]
creatures = [{ card = "Throat Wolf", controller = "defending player" }]
"""


def test_the_wolf_keeps_the_drawn_attacker_home_and_attacks_in_its_own(tmp_path: Path) -> None:
    """A's 2/2 is drawn to attack; B's Throat Wolf (3/1 firstest strike, RULES 8) is home.
    Score for the phase's attacking player (game, material, life, poison; RULES 9), value =
    power + toughness:

    - first phase, A's attack: attacking, the Wolf blocks (its 3 firstest-strike damage kills
      the 2/2 before it strikes: (0, -4, 0, 0); no block: (0, 0, 2, 0); B minimises: the
      block), so attacking is worth (0, -4, 0, 0) against (0, 0, 0, 0) for staying home: A
      does not attack (CONTRACT 9: the attack is chosen among the drawn attackers);
    - B's Wolf phase (only the Wolf may attack): A's untapped 2/2 blocking dies to firstest
      strike, (0, 4, 0, 0) for B, against (0, 0, 3, 0) unblocked: A lets it through; B
      attacks ((0, 0, 3, 0) beats (0, 0, 0, 0)).
    So every battle: nobody dies, 3 damage to players. Drawn, the Wolf stays home in the first
    phase (2 damage) and attacks the tapped 2/2's player (3): 5.
    """
    spec = spec_file(tmp_path, WOLF_TURN)
    doc = simulate_json(str(spec), "-n", "50", "--seed", "1", "--decisions", "optimal")
    [m] = doc["matchups"]
    assert m["neither_dies"] == m["battles"] == 50
    assert m["damage_to_players"] == 3 * 50
    assert doc["spec"]["decisions"] == "optimal"
    drawn = simulate_json(str(spec), "-n", "50", "--seed", "1")
    [d] = drawn["matchups"]
    assert d["neither_dies"] == 50 and d["damage_to_players"] == 5 * 50


FLYER_TURN = """\
attackers = 1
blockers_per_attacker = 0
power = 2
toughness = 2
[attacker.keywords]
flying = 1.0
vigilance = 1.0
[turn]
creatures = [{ card = "Throat Wolf", controller = "attacking player" },
             { card = "Throat Wolf", controller = "defending player" }]
casts = [{ card = "Resurgence", caster = "attacking player", main = 2 }]
[[turn.combats]]
attack = 1.0
block = 1.0
[[turn.combats]]
attack = 1.0
block = 1.0
"""


def test_a_later_attack_leaves_home_what_would_die_for_nothing(tmp_path: Path) -> None:
    """A's 2/2 flyer with vigilance attacks; each player has a Throat Wolf (3/1 firstest
    strike) at home. Combat phases (RULES 8): A's, B's Wolf's, A's Wolf's, then after the
    postcombat main phase where A casts Resurgence (A's creatures gain first strike and
    vigilance), A's again. Scores for the attacking player of each phase (RULES 9):

    - A's: the Wolf can't block the flyer (no reach): 2 damage, the flyer stays untapped;
    - B's Wolf phase: B's Wolf attacking is blocked by A's Wolf (both firstest strike: both
      die, material 4 - 4 = 0) rather than let through (life 3 for B): (0, 0, 0, 0), the same
      as not attacking, and the fewest attackers are shown first: B does not attack;
    - A's Wolf phase, the same the other way: A's Wolf does not attack;
    - Resurgence's phase: A may attack with the flyer and its Wolf. B's Wolf blocks A's Wolf
      if it attacks: both deal 3 firstest-strike damage at once, both die, material 0, the
      same as no block and no attack. So the flyer attacks alone (2 life: (0, 0, 2, 0)
      beats every set with the Wolf, whose value for A is (0, 0, 2, 0) only with the flyer
      too, and shown later as it has more attackers).
    Every battle: nobody dies, 4 damage. Drawn, both Wolves attack in their phases and block.
    """
    spec = spec_file(tmp_path, FLYER_TURN)
    doc = simulate_json(str(spec), "-n", "40", "--seed", "2", "--decisions", "optimal")
    [m] = doc["matchups"]
    assert m["neither_dies"] == m["battles"] == 40
    assert m["damage_to_players"] == 4 * 40
    drawn = simulate_json(str(spec), "-n", "40", "--seed", "2")
    assert drawn["matchups"][0]["neither_dies"] < 40


def test_same_seed_same_results_whatever_the_chunks() -> None:
    """The same SPEC, N and seed give the same summary in chunks of any size and with
    workers (the decisions of one battle don't depend on the others)."""
    base = [str(EXAMPLE), "-n", "600", "--seed", "4"]
    one = simulate_json(*base, "--chunk-size", "1024")
    other = simulate_json(*base, "--chunk-size", "128", "--workers", "2")
    for doc in (one, other):
        doc.pop("run", None)
    assert one == other
    assert one["spec"]["decisions"] == "optimal"
    drawn = simulate_json(*base, "--decisions", "drawn")
    drawn.pop("run", None)
    assert drawn != one


#: test_replay.py's turn SPEC (both players' Throat Wolves, a Resurgence for A in main phase 1,
#: `[[casts]]` of Hat Trick, hats, 6 life so that games end) with decisions, smaller battles
#: and the casts on attackers (a cast on a blocker would depend on the blocks).
DECIDED_TURN_SPEC = (
    TURN_SPEC.replace("attackers = [1, 3]", 'decisions = "optimal"\nattackers = [1, 2]')
    .replace("blockers_per_attacker = [0, 2]", "blockers_per_attacker = [0, 1]")
    .replace("probability = 0.3\n", 'probability = 0.3\ntarget = "attacker"\n')
)


def test_every_replayed_decided_turn_resolves_to_its_recorded_outcome(
    tmp_path: Path, registry: Registry
) -> None:
    """--replay K of a decided run prints battle K's turn with what each phase chose
    (attackers, blockers, the best line's divisions); resolved on both engines it gives the
    outcome the run recorded (the state the search started from is the turn's). The battles
    include later attacks and blocks, divisions, casts, phases that did not happen (a Wolf
    that died blocking) and players who lost."""
    spec = spec_file(tmp_path, DECIDED_TURN_SPEC)
    out = tmp_path / "battles.csv"
    n = 40
    invoke("simulate", str(spec), "-n", str(n), "--seed", "5", "--out", str(out))
    battles, creatures = rows(out), rows(tmp_path / "battles.creatures.csv")
    generator = make_generator(load_spec(str(spec), registry), registry)
    seen = dict.fromkeys(
        ["later attacks", "later blocks", "divisions", "casts", "skipped", "lost"], 0
    )
    for k in range(n):
        turn_text = replay_text(generator, registry, 5, k, ())
        written = tomllib.loads(turn_text)
        later = written["combats"][1:]
        seen["later attacks"] += any(c["attackers"] for c in later)
        seen["later blocks"] += any(c.get("blockers") for c in later)
        seen["divisions"] += any(c.get("divide") for c in written["combats"])
        seen["casts"] += bool(written["combats"][0].get("events"))
        turn = tmp_path / f"turn-{k}.toml"
        turn.write_text(turn_text)
        for engine in ("reference", "batched"):
            [result] = ecs_combat.resolve(turn, engine=engine, registry=registry)
            doc = result.to_json()
            assert_recorded(doc, k, battles, creatures)
        seen["skipped"] += bool(doc["skipped_phases"])
        seen["lost"] += any(p["lost"] for p in doc["players"].values())
    assert all(seen.values()), seen


def test_a_turn_too_large_to_search_is_refused(tmp_path: Path) -> None:
    """The largest decision counted over the turn's phases: in Resurgence's phase A may attack
    with its 5 attackers (any subset), B's 15 creatures block each: sum over s of C(5, s)
    (s + 1)^15 = 633,653,946,352 > 100,000 (the first phase's 6^15 = 470,184,984,576 is
    less)."""
    spec = spec_file(
        tmp_path,
        """\
        decisions = "optimal"
        attackers = 5
        blockers_per_attacker = 3
        [turn]
        casts = [{ card = "Resurgence", caster = "attacking player", main = 2 }]
        """,
    )
    p = subprocess.run(
        ["ecs-combat", "simulate", str(spec), "-n", "10"], capture_output=True, text=True
    )
    assert p.returncode == 2, p.stderr
    assert "decisions" in p.stderr and "Traceback" not in p.stderr
    assert "combat phase 2 of its largest battle" in p.stderr
    assert "633,653,946,352 declarations" in p.stderr


def test_the_installed_command_runs_the_example() -> None:
    """The example SPEC with [turn] and decisions = "optimal" runs on the installed command;
    good play changes its battles (the same seed draws the same creatures)."""
    args = ["ecs-combat", "simulate", str(EXAMPLE), "-n", "300", "--seed", "1", "--json"]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    optimal = json.loads(done.stdout)
    drawn = json.loads(
        subprocess.run(
            [*args, "--decisions", "drawn"], capture_output=True, text=True, check=True
        ).stdout
    )
    assert optimal["spec"]["decisions"] == "optimal" and "decisions" not in drawn["spec"]
    assert optimal["battles"] == drawn["battles"] == 300
    assert optimal["matchups"] != drawn["matchups"]


@pytest.mark.parametrize("k", [0, 8])
def test_a_decided_phase_start_is_the_turn_state(registry: Registry, k: int) -> None:
    """The state a later phase is decided from is the turn's as the phase begins: a creature
    that died is not there, one that attacked without vigilance is tapped (RULES 8)."""
    _, seen = decided_phases(registry, MIXED, 3 + k, 40)
    first, second = seen[0][0], seen[1][0]
    attacked = seen[0][1].attacking >= 0
    vigilant = first.state.keywords & np.uint64(1 << first.state.keyword_names.index("vigilance"))
    assert second.state.tapped is not None
    on = second.state.present
    assert (second.state.tapped[attacked & on] == (vigilant[attacked & on] == 0)).all()
    assert not second.state.present.all()  # some died in the first phase


def test_attack_boards_made_in_groups_decide_the_same(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later phase's attack boards are made for groups of battles at a time (memory): groups
    of a few battles declare exactly what one group of all does."""
    _, whole = decided_phases(registry, MIXED, 9, 50)
    monkeypatch.setattr(turn_decided, "BOARD_ROWS", 40)
    _, grouped = decided_phases(registry, MIXED, 9, 50)
    assert len(whole) == len(grouped) == 3
    for (_, a), (_, b) in zip(whole, grouped, strict=True):
        for name in ("attacking", "block_blocker", "block_attacker", "division_source"):
            assert getattr(a, name).tolist() == getattr(b, name).tolist(), name
        assert a.division_amount.tolist() == b.division_amount.tolist()
    assert (whole[2][1].attacking >= 0).any()
