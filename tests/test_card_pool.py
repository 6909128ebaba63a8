"""Bulk simulations of real cards (issue 10 item 5): `[pool]` filters, battles drawn from card
indices, the per-card tally (hand-derived), seeds, both engines, and the command's outputs."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import subprocess
import textwrap
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_run import Completed
from cli_run import run_cli as in_process
from rich.console import Console

from ecs_combat import ReferenceEngine
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.cli.card_table import render_card_summary
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import check_declarations
from ecs_combat.simulation.card_draw import CARD_COLUMNS, CardGenerator
from ecs_combat.simulation.card_summary import card_summary
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.outcomes import outcome_codes
from ecs_combat.simulation.pool import PoolFilter, select
from ecs_combat.simulation.simulate import (
    default_chunk_size,
    make_engine,
    simulate,
)
from ecs_combat.simulation.spec import BattleSpec
from ecs_combat.simulation.spec_reader import parse_spec

ROOT = Path(__file__).resolve().parent.parent
TWO_DROPS = ROOT / "docs" / "examples" / "specs" / "two-drops.toml"


def spec_of(registry: Registry, text: str) -> BattleSpec:
    return parse_spec(tomllib.loads(textwrap.dedent(text)), registry, "pool.toml")


def run_cli(*args: str) -> Completed:
    """The command in this process (tests/cli_run.py): the pool is read once per test worker."""
    return in_process(args, env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, in a process of its own."""
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=env)


def names(cards: list[Any]) -> list[str]:
    return [c.facts.name for c in cards]


# -- the filters ------------------------------------------------------------------------------


def test_filter_mana_value_and_keyword_hand_checked(registry: Registry) -> None:
    # Read from the cards' texts: the exact 2-drops with bushido. Araba Mothrider (Flying,
    # Bushido 1), Hand of Cruelty (Protection from white, Bushido 1), Hand of Honor (Protection
    # from black, Bushido 1), Inner-Chamber Guard (Bushido 2), Jade Avenger (Bushido 2). Six
    # more 2-drops with bushido have other text (Kuro's Taken regenerates ...): approximate.
    exact = select(PoolFilter(mana_value=(2, 2), keywords=("bushido",)), registry)
    assert names(exact) == [
        "Araba Mothrider",
        "Hand of Cruelty",
        "Hand of Honor",
        "Inner-Chamber Guard",
        "Jade Avenger",
    ]
    both = select(PoolFilter(mana_value=(2, 2), keywords=("bushido",), approximate=True), registry)
    assert len(both) == 11
    assert "Kuro's Taken" in names(both)
    # Green among them: Jade Avenger only; white: Araba Mothrider, Hand of Honor, Inner-Chamber
    # Guard (3).
    green = PoolFilter(mana_value=(2, 2), keywords=("bushido",), colors=("green",))
    assert names(select(green, registry)) == ["Jade Avenger"]
    white = PoolFilter(mana_value=(2, 2), keywords=("bushido",), colors=("white",))
    assert len(select(white, registry)) == 3


def test_filter_names_sets_and_back_faces(registry: Registry) -> None:
    pool = PoolFilter(names=("white knight", "Watchwolf"))
    assert names(select(pool, registry)) == ["Watchwolf", "White Knight"]
    # Watchwolf's first set is RAV; White Knight's LEA.
    assert names(select(PoolFilter(names=pool.names, sets=("RAV",)), registry)) == ["Watchwolf"]
    # Ludevic's Abomination is the back face of a transforming card: no mana cost of its own.
    back = PoolFilter(names=("Ludevic's Abomination",), approximate=True)
    assert select(back, registry) == []
    with_back = PoolFilter(names=back.names, approximate=True, without_mana_cost=True)
    assert names(select(with_back, registry)) == ["Ludevic's Abomination"]


def test_pool_spec_sides_and_card_arrays(registry: Registry) -> None:
    spec = spec_of(
        registry,
        """
        [pool]
        names = ["White Knight", "Hand of Cruelty", "Watchwolf"]
        [blocker.pool]
        names = ["Watchwolf"]
        """,
    )
    pool = spec.pool
    assert pool is not None
    assert pool.names == ("Hand of Cruelty", "Watchwolf", "White Knight")
    assert pool.attacker.tolist() == [0, 1, 2] and pool.blocker.tolist() == [1]
    assert pool.power.tolist() == [2, 3, 2] and pool.toughness.tolist() == [2, 3, 2]
    # Colors as bit masks, bit i for COLORS[i] (white 1, blue 2, black 4, red 8, green 16).
    assert pool.colors.tolist() == [4, 1 | 16, 1]
    assert [str(i) for i in pool.instances[0]] == ["protection from white", "bushido 1"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[pool]\nnames = ['Whtie Knight']", "pool.names[0]: no creature card named 'Whtie Knight' "
         "in the card database; did you mean 'White Knight'?"),
        ("[pool]\nnames = ['Brindle Boar']", "pool.names[0]: Brindle Boar is approximate (ignored: "
         "Sacrifice Brindle Boar: You gain 4 life.): add approximate = true to the pool to draw it"),
        ("power = 3\n[pool]\nmana_value = 2", "power: a SPEC with a card pool takes power, "
         "toughness and keywords from the cards, and labels battles by card: leave it out"),
        ("[attacker.pool]\nmana_value = 2", "blocker.pool: missing: a SPEC draws both sides from "
         "card pools or neither (give [pool] for both, or [blocker.pool] beside [attacker.pool])"),
        ("[pool]\ncolors = ['grene']", "pool.colors[0]: 'grene' is not a color (one of white, "
         "blue, black, red, green, colorless); did you mean 'green'?"),
        ("[pool]\nmana_value = [3, 2]", "pool.mana_value: min 3 is greater than max 2"),
        ("[pool]\nnames = [\"Ludevic's Abomination\"]\napproximate = true", "pool.names[0]: "
         "Ludevic's Abomination has no mana cost (the back face of a transforming card, or never "
         "cast): add without_mana_cost = true to the pool to draw it"),
        ("[pool]\nnames = ['Whtie Knight']\n[attacker.pool]\ncolors = ['white']",
         "pool.names[0]: no creature card named 'Whtie Knight' in the card database; did you "
         "mean 'White Knight'?"),
        ("[pool]\nnames = ['White Knight']\n[blocker.pool]\ncolors = ['purple']",
         "blocker.pool.colors[0]: 'purple' is not a color (one of white, blue, black, red, "
         "green, colorless)"),
        ("[pool]\nmana_value = 0.5", "pool: no card of the database matches this pool (exact "
         "cards only: approximate = true adds the others)"),
        ("[pool]\nsize = 2", "pool.size: unknown key 'size' (allowed: approximate, colors, funny, "
         "keywords, mana_value, names, sets, without_mana_cost)"),
    ],
)  # fmt: skip
def test_pool_errors_name_the_key(registry: Registry, text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_spec(tomllib.loads(text), registry, "pool.toml")
    assert str(caught.value) == f"pool.toml: {message}"


# -- the per-card tally, by hand ------------------------------------------------------------

#: Outcome of each (attacker, blocker) pair, hand-derived (CR 702.16 protection, 702.45
#: bushido, 702.7 first strike), as (attacker's result, blocker's result, damage to players):
#: - White Knight (W 2/2 first strike, protection from black) and Hand of Cruelty (B 2/2
#:   protection from white, bushido 1) can't block each other (509.1b): nobody dies, 2 damage.
#: - White Knight vs itself: first strike both, 2 damage each: a trade. Hand of Cruelty vs
#:   itself: bushido makes both 3/3, 3 damage each: a trade. Watchwolf (GW 3/3) vs itself: trade.
#: - White Knight attacks, Watchwolf blocks: 2 first-strike damage doesn't kill the 3/3, which
#:   deals 3 back: the blocker wins; the other way round the attacker wins.
#: - Hand of Cruelty attacks: Watchwolf is white and can't block it: 2 damage, nobody dies.
#: - Watchwolf attacks, Hand of Cruelty blocks (3/3 by bushido): Watchwolf's damage is white
#:   and prevented, Hand of Cruelty deals 3: the blocker wins.
PAIRS = {
    ("White Knight", "Hand of Cruelty"): ("neither_dies", "neither_dies", 2),
    ("Hand of Cruelty", "White Knight"): ("neither_dies", "neither_dies", 2),
    ("White Knight", "White Knight"): ("trades", "trades", 0),
    ("Hand of Cruelty", "Hand of Cruelty"): ("trades", "trades", 0),
    ("Watchwolf", "Watchwolf"): ("trades", "trades", 0),
    ("White Knight", "Watchwolf"): ("losses", "wins", 0),
    ("Watchwolf", "White Knight"): ("wins", "losses", 0),
    ("Hand of Cruelty", "Watchwolf"): ("neither_dies", "neither_dies", 2),
    ("Watchwolf", "Hand of Cruelty"): ("losses", "wins", 0),
}
THREE = """
[pool]
names = ["White Knight", "Hand of Cruelty", "Watchwolf"]
"""


def expected_cards(pairs: Counter[tuple[str, str]]) -> dict[str, dict[str, dict[str, int]]]:
    out: dict[str, dict[str, dict[str, int]]] = {}
    for (a, b), count in pairs.items():
        a_result, b_result, damage = PAIRS[(a, b)]
        for card, role, result in ((a, "as_attacker", a_result), (b, "as_blocker", b_result)):
            row = out.setdefault(card, {}).setdefault(role, dict.fromkeys(CARD_COLUMNS, 0))
            row["battles"] += count
            row[result] += count
            row["damage_to_players"] += damage * count
            row["died"] += count * (result in ("losses", "trades"))
            if role == "as_attacker":  # one on one, only the attacker can damage a player
                row["dealt_to_players"] += damage * count
    return out


@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_per_card_tally_matches_hand_derived_outcomes(
    registry: Registry, engine: str, tmp_path: Path
) -> None:
    spec = spec_of(registry, THREE)
    generator = make_generator(spec, registry)
    assert isinstance(generator, CardGenerator)
    n = 300
    drawn = draw_battles(generator, 5, 0, n)
    pool_names = spec.pool.names if spec.pool else ()
    pairs = Counter(
        (pool_names[a], pool_names[b])
        for a, b in zip(drawn.attacker_code.tolist(), drawn.blocker_code.tolist(), strict=True)
    )
    assert len(pairs) == 9
    run = simulate(generator, engine, make_engine(engine, registry), 5, n, 128)
    doc = card_summary(generator.pool, spec, 5, run)
    expected = expected_cards(pairs)
    for card in doc["cards"]:
        for role in ("as_attacker", "as_blocker"):
            got = {k: card[role][k] for k in CARD_COLUMNS}
            assert got == expected[card["card"]][role], (card["card"], role)
        assert card["battles"] == card["as_attacker"]["battles"] + card["as_blocker"]["battles"]

    # Ranked by the documented net wins, worked out from the hand-derived tally:
    # (wins - losses) / battles, then damage to players per battle; each role's rates too.
    def both(card: str) -> dict[str, int]:
        return {k: sum(expected[card][r][k] for r in expected[card]) for k in CARD_COLUMNS}

    def net(card: str) -> float:
        return (both(card)["wins"] - both(card)["losses"]) / both(card)["battles"]

    def damage(card: str) -> float:
        return both(card)["dealt_to_players"] / both(card)["battles"]

    ranked = [c["card"] for c in doc["cards"]]
    assert ranked == sorted(expected, key=lambda card: (-net(card), -damage(card)))
    for card in doc["cards"]:
        for role in ("as_attacker", "as_blocker"):
            counts = expected[card["card"]][role]
            fought = counts["battles"]
            assert card[role]["trade_rate"] == round(counts["trades"] / fought, 6)
            assert card[role]["loss_rate"] == round(counts["losses"] / fought, 6)
            assert card[role]["damage_per_battle"] == round(counts["dealt_to_players"] / fought, 6)
            total = card[role]["win_rate"] + card[role]["trade_rate"] + card[role]["loss_rate"]
            assert abs(total + card[role]["neither_dies_rate"] - 1) < 1e-5
    assert [c["net_wins"] for c in doc["cards"]] == [round(net(card), 6) for card in ranked]
    assert doc["totals"]["battles"] == n


def test_sample_agrees_with_the_reference_engine_scenario_by_scenario(registry: Registry) -> None:
    """Battles of the 2-drop pool (colors, protection, bushido, flying, exalted...) converted to
    scenarios and resolved one by one agree with the batched tally, battle by battle."""
    spec = parse_spec(tomllib.loads(TWO_DROPS.read_text()), registry, "two-drops.toml")
    generator = make_generator(spec, registry)
    drawn = draw_battles(generator, 11, 0, 400)
    batched = make_engine("batched", registry).resolve_batch(drawn.batch)
    code, _, _ = outcome_codes(drawn, batched)
    scenarios = batch_to_scenarios(drawn.batch, registry)
    reference = ReferenceEngine(registry)
    assert len(scenarios) == 400
    left_out = 0
    for i, scenario in enumerate(scenarios):
        check_declarations(scenario, registry)  # every block declared is legal (509.1b)
        if scenario.attackers and not scenario.blockers:  # and every block left out is not
            attacker, blocker = list(scenario.creatures)
            declared = dataclasses.replace(scenario, blockers={blocker: (attacker,)})
            with pytest.raises(InputError):
                check_declarations(declared, registry)
            left_out += 1
        result = reference.resolve(scenario)
        dead = {c for c, state in result.creatures.items() if not state.alive}
        a_dead = any(scenario.creatures[c].controller == "A" for c in dead)
        b_dead = any(scenario.creatures[c].controller != "A" for c in dead)
        assert 2 * a_dead + b_dead == int(code[i]), (i, scenario)
    assert left_out > 40  # flyers, protection, shadow, skulk ...


def test_same_seed_same_tally_whatever_the_chunks(registry: Registry) -> None:
    spec = parse_spec(tomllib.loads(TWO_DROPS.read_text()), registry, "two-drops.toml")
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    one = simulate(generator, "batched", engine, 7, 5000, 5000).tally
    two = simulate(generator, "batched", engine, 7, 5000, 1024).tally
    other = simulate(generator, "batched", engine, 8, 5000, 5000).tally
    assert one.cards is not None and two.cards is not None and other.cards is not None
    assert np.array_equal(one.cards, two.cards)
    assert not np.array_equal(one.cards, other.cards)
    # Each battle counts once for its attacker's card and once for its blocker's.
    assert one.cards[:, 0, 0].sum() == one.cards[:, 1, 0].sum() == 5000


def test_battles_of_several_creatures_count_each_creature(registry: Registry) -> None:
    spec = spec_of(registry, "attackers = 2\nblockers_per_attacker = [0, 2]\n" + THREE)
    generator = make_generator(spec, registry)
    drawn = draw_battles(generator, 3, 0, 500)
    run = simulate(generator, "batched", make_engine("batched", registry), 3, 500, 500)
    assert run.tally.cards is not None
    per_role = run.tally.cards[:, :, 0].sum(axis=0)
    assert per_role.tolist() == [
        int(drawn.attacking_side.sum()),
        int((~drawn.attacking_side).sum()),
    ]
    assert set(drawn.attacker_code.tolist()) == {-1}  # always two attackers: "several"


# -- the command ----------------------------------------------------------------------------


def test_command_json_table_csv_and_chart(tmp_path: Path) -> None:
    spec = tmp_path / "three.toml"
    spec.write_text(THREE)
    out, chart = tmp_path / "battles.csv", tmp_path / "cards.png"
    p = run_cli("simulate", str(spec), "-n", "400", "--seed", "2", "--json", "--out", str(out),
                "--plot", str(chart))  # fmt: skip
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["simulation"] == "card pool"
    assert [c["rank"] for c in doc["cards"]] == [1, 2, 3]
    net_wins = [c["net_wins"] for c in doc["cards"]]
    assert net_wins == sorted(net_wins, reverse=True)
    assert doc["run"]["written"] == [
        {"what": "per-battle results", "path": str(out)},
        {"what": "the chart of the best and worst cards", "path": str(chart)},
    ]
    for c in doc["cards"]:
        lo, hi = c["win_rate_ci95"]
        assert lo <= c["win_rate"] <= hi
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 400
    pairs = Counter((r["attacker"], r["blocker"]) for r in rows)
    expected = expected_cards(pairs)
    for card in doc["cards"]:
        assert card["as_attacker"]["wins"] == expected[card["card"]]["as_attacker"]["wins"]
        assert card["as_blocker"]["losses"] == expected[card["card"]]["as_blocker"]["losses"]
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    plain = run_cli("simulate", str(spec), "-n", "400", "--seed", "2")
    assert plain.returncode == 0, plain.stderr
    lines = plain.stdout.splitlines()
    assert lines[0] == "Card pool three.toml: 400 battles, 3 cards, seed 2"
    assert lines[1].split()[:4] == ["rank", "card", "p/t", "keywords"]
    assert lines[2].split()[:2] == ["1", doc["cards"][0]["card"].split()[0]]


def test_command_bad_pool_exits_2(tmp_path: Path) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text("[pool]\nnames = ['Whtie Knight']\n")
    p = run_cli("simulate", str(spec), "-n", "10")
    assert p.returncode == 2
    assert p.stderr.strip().endswith("did you mean 'White Knight'?")
    assert "Traceback" not in p.stderr


def test_documented_two_drops_ranking_is_what_the_run_gives(registry: Registry) -> None:
    """docs/simulate.md shows an excerpt of the 2-drop ranking (1,000,000 battles, seed 1)."""
    text = (ROOT / "docs" / "simulate.md").read_text()
    block = re.search(r"<!-- two-drops -->\n```\n(.*?)```", text, re.S)
    assert block
    shown = block.group(1).splitlines()
    spec = parse_spec(tomllib.loads(TWO_DROPS.read_text()), registry, str(TWO_DROPS))
    generator = make_generator(spec, registry)
    assert isinstance(generator, CardGenerator)
    battles = 1_000_000
    run = simulate(
        generator, "batched", make_engine("batched", registry), 1, battles,
        default_chunk_size(spec, "batched"),
    )  # fmt: skip
    doc = card_summary(generator.pool, spec, 1, run)
    doc["run"]["spec_file"] = "docs/examples/specs/two-drops.toml"
    console = Console(file=io.StringIO(), width=300)
    render_card_summary(doc, console, "")
    printed = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert printed[:7] == shown[:7]
    assert printed[-4:-1] == shown[-4:-1]
    assert shown[-1].startswith("batched engine: 1,000,000 battles in ")
    # the JSON of the first card shown in the page is that run's
    row = re.search(r"<!-- card-row: [^>]* -->\n```json\n(.*?)```", text, re.S)
    assert row
    assert json.loads(row.group(1)) == doc["cards"][0]


def test_approximate_cards_say_what_is_ignored(registry: Registry) -> None:
    spec = spec_of(
        registry,
        """
        [pool]
        names = ["Brindle Boar", "Watchwolf"]
        approximate = true
        """,
    )
    generator = make_generator(spec, registry)
    assert isinstance(generator, CardGenerator)
    run = simulate(generator, "batched", make_engine("batched", registry), 1, 200, 200)
    cards = {c["card"]: c for c in card_summary(generator.pool, spec, 1, run)["cards"]}
    assert cards["Brindle Boar"]["status"] == "approximate"
    assert cards["Brindle Boar"]["ignored_text"] == ["Sacrifice Brindle Boar: You gain 4 life."]
    assert cards["Watchwolf"]["status"] == "exact" and "ignored_text" not in cards["Watchwolf"]
    # A 2/2 never beats the 3/3: Watchwolf loses no battle.
    assert cards["Watchwolf"]["losses"] == 0 and cards["Brindle Boar"]["wins"] == 0


def test_checkpoints_and_workers_keep_the_per_card_tally(tmp_path: Path) -> None:
    spec = tmp_path / "three.toml"
    spec.write_text(THREE)
    args = ("simulate", str(spec), "-n", "3000", "--seed", "4", "--json")
    plain = run_cli(*args)
    assert plain.returncode == 0, plain.stderr
    runs = tmp_path / "runs"
    saved = run_cli(*args, "--out", f"{runs}/")
    resumed = run_cli(*args, "--out", f"{runs}/", "--resume")
    workers = installed(*args, "--workers", "2")  # the installed command starts the workers
    expected = {k: v for k, v in json.loads(plain.stdout).items() if k != "run"}
    for p in (saved, resumed, workers):
        assert p.returncode == 0, p.stderr
        assert {k: v for k, v in json.loads(p.stdout).items() if k != "run"} == expected
    assert json.loads(resumed.stdout)["run"]["battles_resumed"] == 3000
    task = json.loads(next(runs.glob("task-*.json")).read_text())
    assert len(task["cards"]) == 3 and len(task["cards"][0]) == 2


@pytest.mark.parametrize("width", [80, 120, 200])
def test_terminal_table_fits_the_terminal(registry: Registry, width: int) -> None:
    spec = spec_of(registry, THREE)
    generator = make_generator(spec, registry)
    assert isinstance(generator, CardGenerator)
    run = simulate(generator, "batched", make_engine("batched", registry), 1, 300, 300)
    doc = card_summary(generator.pool, spec, 1, run)
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)
    render_card_summary(doc, console, "batched engine")
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert all(len(line.rstrip()) <= width for line in lines)
    text = "\n".join(lines)
    for card in ("Hand of Cruelty", "Watchwolf", "White Knight", "rate"):
        assert card in text
    # the role columns (win, trade and loss rates) need about 110 columns
    assert ("w/t/l" in text) == (width >= 120)
    assert "damage" in text


def test_both_engines_give_the_same_two_drop_summary(registry: Registry) -> None:
    spec = parse_spec(tomllib.loads(TWO_DROPS.read_text()), registry, "two-drops.toml")
    generator = make_generator(spec, registry)
    assert isinstance(generator, CardGenerator)
    docs = []
    for engine in ("batched", "reference"):
        run = simulate(generator, engine, make_engine(engine, registry), 9, 600, 256)
        doc = card_summary(generator.pool, spec, 9, run)
        doc.pop("run")
        docs.append(doc)
    assert docs[0] == docs[1]
    assert sum(c["battles"] for c in docs[0]["cards"]) == 1200


def test_pool_and_turn_together_are_refused(registry: Registry) -> None:
    """A card pool plays one combat phase: a SPEC asking for both is an input error."""
    text = (
        '[pool]\nmana_value = 2\n\n[turn]\ncreatures = [{ card = "Throat Wolf", '
        'controller = "defending player" }]\n'
    )
    with pytest.raises(InputError) as caught:
        parse_spec(tomllib.loads(text), registry, "pool.toml")
    assert "pool.toml: turn: a SPEC draws either real cards from a pool" in str(caught.value)
