"""Bulk races (a SPEC's ``[race]``, CONTRACT section 9, RULES section 12): each drawn board is
played as a race, its attacking player (A) first; the summary counts race wins, losses and
draws per matchup with 95% intervals and the mean turns to win. Races derived by hand; the
bulk player against each race played alone (``play_race``) on both engines; the same summary
whatever the chunks or workers; ``--replay K`` as a race file that ``ecs-combat race`` plays
to the same end; the SPEC's input errors."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ecs_combat import Registry
from ecs_combat.api_races import turn_resolver
from ecs_combat.cli.main import cli
from ecs_combat.decisions.race import play_race
from ecs_combat.scenario.race import RaceScenario, parse_race
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.races import RacePlayer, play_chunk
from ecs_combat.simulation.simulate import make_engine
from ecs_combat.simulation.spec import RaceSpec, race_seed
from ecs_combat.simulation.spec_reader import parse_spec

#: docs/races.md's first example as a SPEC: every board is A's 3/3 against B's 2/2, both at
#: 5 life (examples/races/ogre-and-bear.toml).
OGRE_AND_BEAR = """\
attackers = 1
blockers_per_attacker = 1
life = 5
[attacker]
power = 3
toughness = 3
[blocker]
power = 2
toughness = 2
"""

#: Small drawn boards with keywords that restrict blocks, strike first and give vigilance.
MIXED = """\
attackers = [1, 2]
blockers_per_attacker = [0, 2]
power = [1, 4]
toughness = [1, 4]
life = 6
matchup = ["flying", "vigilance"]
[keywords]
flying = 0.3
vigilance = 0.3
"first strike" = 0.2
deathtouch = 0.1
"""


def run(tmp_path: Path, text: str, *args: str, name: str = "spec.toml") -> dict[str, Any]:
    spec = tmp_path / name
    spec.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["simulate", str(spec), "--json", *args])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.output)
    return doc


def refused(tmp_path: Path, text: str, *args: str) -> str:
    spec = tmp_path / "spec.toml"
    spec.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["simulate", str(spec), *args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.output


def results(doc: dict[str, Any]) -> dict[str, Any]:
    """A summary without how the run was made."""
    return {k: v for k, v in doc.items() if k != "run"}


# -- by hand ------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_the_ogre_wins_every_race_in_three_turns(tmp_path: Path, engine: str) -> None:
    """docs/races.md: turn 1 the 3/3 attacks and B takes 3 (5 -> 2) rather than lose the bear
    (material first); turn 2 the bear attacks past the tapped ogre (A 5 -> 3); turn 3 the
    bear is tapped and the ogre deals the last 3. Every race: A wins in 3 turns."""
    doc = run(tmp_path, OGRE_AND_BEAR + "[race]\n", "-n", "4", "--seed", "7", "--engine", engine)
    totals = doc["totals"]
    assert doc["simulation"] == "races" and doc["battles"] == 4
    assert (totals["races"], totals["race_wins"], totals["race_losses"]) == (4, 4, 0)
    assert totals["race_draws"] == 0
    assert totals["race_win_rate"] == 1.0
    assert totals["race_win_rate_ci95"][1] == 1.0 and totals["race_win_rate_ci95"][0] < 1.0
    assert totals["mean_turns_to_win"] == 3.0 and totals["mean_turns_to_lose"] is None
    assert doc["spec"]["race"] == {
        "turns": 20,
        "decisions": "optimal",
        "horizon": "combat",
        "seed": 0,
    }
    # 4 races of 3 combats each
    assert doc["run"]["combats_played"] == 12


def test_vigilance_makes_it_five_turns(tmp_path: Path) -> None:
    """docs/races.md: a vigilant ogre: turn 2 B holds back; turn 3 the bear chump-blocks;
    turn 4 B has nothing; turn 5 the ogre deals the last 3 (B 2 -> -1)."""
    text = OGRE_AND_BEAR.replace("toughness = 3\n", "toughness = 3\nkeywords = {vigilance = 1.0}\n")
    doc = run(tmp_path, text + "[race]\n", "-n", "2", "--seed", "1")
    assert doc["totals"]["race_wins"] == 2
    assert doc["totals"]["mean_turns_to_win"] == 5.0


def test_a_race_cut_by_its_turn_limit_is_a_draw(tmp_path: Path) -> None:
    """Two turns of the ogre's race: B at 2, A at 3, nobody has lost: a draw each time."""
    doc = run(tmp_path, OGRE_AND_BEAR + "[race]\nturns = 2\n", "-n", "3", "--seed", "1")
    t = doc["totals"]
    assert (t["race_wins"], t["race_losses"], t["race_draws"]) == (0, 0, 3)
    assert t["race_draw_rate"] == 1.0
    assert t["mean_turns_to_win"] is None


def test_b_wins_when_it_moves_second_with_more(tmp_path: Path) -> None:
    """A's 1/1 against B's 5/5 at 3 life: A's attack would die to the block, so A holds back;
    B's 5/5 attacks, and chump-blocking with the 1/1 beats losing; next turn nothing is left
    to block: B wins in turn 4. (A: a lost creature beats a lost game.)"""
    text = OGRE_AND_BEAR.replace("life = 5", "life = 3").replace(
        "[attacker]\npower = 3\ntoughness = 3", "[attacker]\npower = 1\ntoughness = 1"
    )
    text = text.replace(
        "[blocker]\npower = 2\ntoughness = 2", "[blocker]\npower = 5\ntoughness = 5"
    )
    doc = run(tmp_path, text + "[race]\n", "-n", "2", "--seed", "1")
    t = doc["totals"]
    assert (t["race_wins"], t["race_losses"], t["race_draws"]) == (0, 2, 0)
    assert t["mean_turns_to_lose"] == 4.0


# -- the bulk player against each race played alone ---------------------------------------------


def _races(registry: Registry, text: str, seed: int, n: int) -> Any:
    spec = parse_spec(tomllib.loads(text), registry)
    return make_generator(spec, registry), spec


@pytest.mark.parametrize("engine", ["reference", "batched"])
@pytest.mark.parametrize("decisions", ["optimal", "drawn"])
def test_bulk_races_are_the_races_played_alone(
    registry: Registry, engine: str, decisions: str
) -> None:
    """Each race of a chunk, played together with the others, ends as it does played alone
    (``play_race``, one race, its turns one by one) from the same board and seed."""
    text = MIXED + f'[race]\nturns = 8\ndecisions = "{decisions}"\nseed = 5\n'
    generator, spec = _races(registry, text, 3, 6)
    from ecs_combat.batched.convert import batch_to_scenarios
    from ecs_combat.simulation.generate import draw_battles
    from ecs_combat.simulation.races import race_scenario

    drawn = draw_battles(generator, 3, 0, 6)
    boards = batch_to_scenarios(drawn.batch, registry)
    races = [race_scenario(b, spec.race, k) for k, b in enumerate(boards)]
    together = RacePlayer(registry, make_engine(engine, registry)).play(races)
    for race, state in zip(races, together, strict=True):
        alone = play_race(race, registry, turn_resolver(engine, registry))
        assert (state.winner, len(state.history)) == (alone.winner, len(alone.history))
        assert [t.document for t in state.history] == [t.document for t in alone.history]
        assert state.final_players == alone.final_players


def test_two_combat_races_in_bulk_are_the_races_played_alone(registry: Registry) -> None:
    """With the two-combat horizon (no board remembered: the decision depends on the turn
    too) the bulk races end as each played alone."""
    text = MIXED.replace("attackers = [1, 2]", "attackers = 1").replace(
        "blockers_per_attacker = [0, 2]", "blockers_per_attacker = 1"
    )
    generator, spec = _races(registry, text + '[race]\nturns = 4\nhorizon = "two combats"\n', 0, 2)
    from ecs_combat.batched.convert import batch_to_scenarios
    from ecs_combat.simulation.generate import draw_battles
    from ecs_combat.simulation.races import race_scenario

    drawn = draw_battles(generator, 8, 0, 2)
    races = [
        race_scenario(b, spec.race, k)
        for k, b in enumerate(batch_to_scenarios(drawn.batch, registry))
    ]
    player = RacePlayer(registry, make_engine("batched", registry))
    together = player.play(races)
    assert player.combats_recalled == 0 and player.combats_resolved > 0
    for race, state in zip(races, together, strict=True):
        alone = play_race(race, registry, turn_resolver("batched", registry))
        assert [t.document for t in state.history] == [t.document for t in alone.history]
        assert state.winner == alone.winner


def test_race_seeds_are_the_python_apis(registry: Registry) -> None:
    """Race k's drawn decisions are seeded as ecs_combat.races seeds battle k, within what a
    race file's seed takes; they differ from race to race."""
    seeds = [RaceSpec(seed=3).race_seed(k) for k in range(4)]
    assert seeds == [race_seed(3, k) for k in range(4)]
    assert len(set(seeds)) == 4 and all(0 <= s < 1_000_000_000 for s in seeds)


def test_the_engines_give_the_same_summary(tmp_path: Path) -> None:
    text = MIXED + '[race]\nturns = 6\ndecisions = "drawn"\n'
    a = run(tmp_path, text, "-n", "12", "--seed", "4", "--engine", "reference")
    b = run(tmp_path, text, "-n", "12", "--seed", "4", "--engine", "batched")
    assert results(a) == results(b)


def test_the_same_summary_whatever_the_chunks(tmp_path: Path, registry: Registry) -> None:
    """Chunks of 1, 5 and the default (one chunk) give the same races."""
    text = MIXED + "[race]\nturns = 6\n"
    docs = [
        run(tmp_path, text, "-n", "11", "--seed", "9", *chunk)
        for chunk in ([], ["--chunk-size", "5"], ["--chunk-size", "1"])
    ]
    assert results(docs[0]) == results(docs[1]) == results(docs[2])
    assert docs[2]["run"]["chunks"] == 11
    # the counts are those of the races played in one chunk by the library
    generator, _ = _races(registry, text, 9, 11)
    played = play_chunk(generator, make_engine("batched", registry), 9, 0, 11)
    assert sum(int(c[0]) for c in played.counts.values()) == 11
    assert docs[0]["run"]["combats_played"] == played.player.combats_played


def test_the_same_summary_whatever_the_workers(tmp_path: Path) -> None:
    """Two worker processes (tasks of 3 races) give, byte for byte, the summary of one."""
    spec = tmp_path / "spec.toml"
    spec.write_text(MIXED + '[race]\nturns = 5\ndecisions = "drawn"\n', encoding="utf-8")

    def summary(*args: str) -> str:
        out = subprocess.run(
            ["ecs-combat", "simulate", str(spec), "-n", "9", "--seed", "2", "--json", *args],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        doc = json.loads(out)
        return json.dumps({**results(doc), "played": doc["run"]["combats_played"]})

    assert summary("--workers", "2", "--chunk-size", "3") == summary("--workers", "1")


# -- replay ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("decisions", ["optimal", "drawn"])
def test_a_replayed_race_plays_to_the_same_end(
    tmp_path: Path, registry: Registry, decisions: str
) -> None:
    """``--replay K`` writes race K as a race file; ``ecs-combat race`` plays it as the run
    did (same winner, turns and life)."""
    text = MIXED + f'[race]\nturns = 8\ndecisions = "{decisions}"\nseed = 11\n'
    spec = tmp_path / "spec.toml"
    spec.write_text(text, encoding="utf-8")
    generator, parsed = _races(registry, text, 5, 4)
    from ecs_combat.batched.convert import batch_to_scenarios
    from ecs_combat.simulation.generate import draw_battles
    from ecs_combat.simulation.races import race_scenario

    drawn = draw_battles(generator, 5, 0, 4)
    races = [
        race_scenario(b, parsed.race, k)
        for k, b in enumerate(batch_to_scenarios(drawn.batch, registry))
    ]
    states = RacePlayer(registry, make_engine("batched", registry)).play(races)
    runner = CliRunner()
    for k, state in enumerate(states):
        replay = runner.invoke(cli, ["simulate", str(spec), "--seed", "5", "--replay", str(k)])
        assert replay.exit_code == 0, replay.output
        assert "ecs-combat race" in replay.output
        race = parse_race(tomllib.loads(replay.output), registry)
        assert race.settings.first == "A" and race.settings.seed == parsed.race.race_seed(k)
        path = tmp_path / f"race{k}.toml"
        path.write_text(replay.output, encoding="utf-8")
        played = runner.invoke(cli, ["race", str(path), "--json"])
        assert played.exit_code == 0, played.output
        doc = json.loads(played.output)
        assert doc["winner"] == state.winner
        assert doc["turns_played"] == len(state.history)
        assert {p: v["life"] for p, v in doc["players"].items()} == {
            p: v.life for p, v in state.final_players.items()
        }


def test_the_ogres_replay_is_docs_race(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(OGRE_AND_BEAR + "[race]\n", encoding="utf-8")
    out = CliRunner().invoke(cli, ["simulate", str(spec), "--seed", "1", "--replay", "0"])
    doc = tomllib.loads(out.output)
    assert doc["players"] == {"A": {"life": 5}, "B": {"life": 5}}
    assert doc["creatures"]["c0"] == {"controller": "A", "power": 3, "toughness": 3}
    assert doc["creatures"]["c1"] == {"controller": "B", "power": 2, "toughness": 2}
    assert doc["race"]["first"] == "A" and doc["race"]["turns"] == 20


# -- the readable table ---------------------------------------------------------------------------


@pytest.mark.parametrize("workers", ["1", "2"])
def test_out_writes_a_row_per_race(tmp_path: Path, workers: str) -> None:
    """The ogre's races (docs/races.md): A wins in 3 turns at 3 life, B ends at -1; nobody
    blocked, so neither creature died."""
    out = tmp_path / "races.csv"
    spec = tmp_path / "spec.toml"
    spec.write_text(OGRE_AND_BEAR + "[race]\n", encoding="utf-8")
    args = ["simulate", str(spec), "-n", "3", "--seed", "1", "--out", str(out)]
    result = subprocess.run(
        ["ecs-combat", *args, "--workers", workers, "--chunk-size", "2"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "Races: 3" in result.stdout
    races = out.read_text().splitlines()
    assert races[0] == "battle,attacker,blocker,winner,turns_played,life_a,life_b"
    assert races[1:] == [f"{k},any,any,A,3,3,-1" for k in range(3)]
    creatures = (tmp_path / "races.creatures.csv").read_text().splitlines()
    assert creatures[1:3] == ["0,A,c0,,,3,3,False", "0,B,c1,,,2,2,False"]
    assert len(creatures) == 7


def test_out_marks_who_died(tmp_path: Path) -> None:
    """A's 1/1 against B's 5/5 (as above): the 1/1 chump-blocks in turn 2 and dies; the 5/5
    lives; B wins in 4 turns with A at -2."""
    text = OGRE_AND_BEAR.replace("life = 5", "life = 3")
    text = text.replace("power = 3\ntoughness = 3", "power = 1\ntoughness = 1")
    text = text.replace("power = 2\ntoughness = 2", "power = 5\ntoughness = 5")
    out = tmp_path / "races.csv"
    doc = run(tmp_path, text + "[race]\n", "-n", "1", "--seed", "1", "--out", str(out))
    assert doc["totals"]["race_losses"] == 1
    assert out.read_text().splitlines()[1] == "0,any,any,B,4,-2,3"
    creatures = (tmp_path / "races.creatures.csv").read_text().splitlines()
    assert creatures[1:] == ["0,A,c0,,,1,1,True", "0,B,c1,,,5,5,False"]


def test_the_table_shows_each_matchups_races(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(OGRE_AND_BEAR + "[race]\n", encoding="utf-8")
    out = CliRunner().invoke(cli, ["simulate", str(spec), "-n", "3", "--seed", "1"])
    assert out.exit_code == 0, out.output
    assert "Races: 3 drawn boards" in out.output
    assert "100.0% (43.9-100.0)" in out.output  # A wins 3 of 3: Wilson's 95% interval
    assert "3.0" in out.output.splitlines()[2]


# -- input errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("race", "extra", "args", "message"),
    [
        ('first = "A"\n', "", (), "race.first: a SPEC's race is always begun"),
        ("turns = 0\n", "", (), "race.turns"),
        ("turns = 201\n", "", (), "race.turns"),
        ('horizon = "two combat"\n', "", (), "did you mean 'two combats'"),
        ('decisions = "optimall"\n', "", (), "did you mean 'optimal'"),
        ("trns = 3\n", "", (), "race.trns: unknown key; did you mean 'turns'"),
        ("seed = -1\n", "", (), "race.seed"),
        ("", 'decisions = "optimal"\n', (), "decisions: can't be given beside [race]"),
        ("", "", ("--decisions", "optimal"), "--decisions"),
        ("", "", ("--out", "runs/"), "--out: runs/: a SPEC with [race] keeps no checkpoints"),
    ],
)
def test_input_errors_name_the_key(
    tmp_path: Path, race: str, extra: str, args: tuple[str, ...], message: str
) -> None:
    out = refused(tmp_path, extra + OGRE_AND_BEAR + "[race]\n" + race, "-n", "1", *args)
    assert message in out


def test_a_board_too_large_to_search_is_refused(tmp_path: Path) -> None:
    out = refused(tmp_path, "attackers = 8\nblockers_per_attacker = 2\n[race]\n", "-n", "1")
    assert "race: refused for this SPEC" in out and "100,000" in out


def test_a_race_casts_no_spells(tmp_path: Path) -> None:
    text = OGRE_AND_BEAR + '[[casts]]\ncard = "Giant Growth"\nprobability = 0.5\n[race]\n'
    assert "casts: can't be given beside [race]" in refused(tmp_path, text, "-n", "1")


def test_the_python_api_gives_the_commands_summary(tmp_path: Path) -> None:
    import ecs_combat

    spec = tmp_path / "spec.toml"
    spec.write_text(OGRE_AND_BEAR + "[race]\n", encoding="utf-8")
    sim = ecs_combat.simulate(spec, battles=3, seed=1)
    assert sim.summary["simulation"] == "races"
    assert sim.summary["totals"]["race_wins"] == 3
    assert sim.summary["totals"]["mean_turns_to_win"] == 3.0
    assert list(sim.battles["winner"]) == ["A", "A", "A"]
    assert list(sim.battles["turns_played"]) == [3, 3, 3]
    assert list(sim.creatures["died"]) == [False] * 6
    assert results(sim.summary) == results(
        run(tmp_path, OGRE_AND_BEAR + "[race]\n", "-n", "3", "--seed", "1")
    )


def test_the_python_apis_replay_is_the_race(tmp_path: Path) -> None:
    """ecs_combat.replay(K) of a race SPEC reads race K back; ecs_combat.race plays it to the
    ogre's three-turn win."""
    import ecs_combat

    spec = tmp_path / "spec.toml"
    spec.write_text(OGRE_AND_BEAR + "[race]\n", encoding="utf-8")
    race = ecs_combat.replay(1, spec, seed=1)
    assert isinstance(race, RaceScenario) and race.settings.first == "A"
    final = ecs_combat.race(race, engine="batched")
    assert final.winner == "A" and len(final.history) == 3


# -- races between a card pool's cards ------------------------------------------------------

BEARS_AND_GIANTS = """\
attackers = 1
blockers_per_attacker = 1
life = 20
[pool]
names = ["Grizzly Bears", "Hill Giant"]
[race]
"""


def test_card_pool_races_by_hand(tmp_path: Path) -> None:
    """Grizzly Bears (2/2) and Hill Giant (3/3), one a side, 20 life, per-combat optimal
    (RULES sections 9 and 12; scores game, material, life):

    - Giant (A, first) against Bears: turn 1 the Giant attacks and the Bears don't block
      (blocking loses them: material 4 before life 3); turn 2 the Bears attack past the tapped
      Giant (2); turn 3 the Bears are tapped, the Giant hits again: B loses 3 every odd turn,
      20 life lasts to turn 13 (7 x 3 = 21), A has lost 12: the Giant wins in 13 turns;
    - Bears (A) against Giant: turn 1 the Bears stay home (the Giant would block and kill
      them); from turn 2 the Giant attacks every B turn unblocked (3), the Bears attack the
      tapped Giant every A turn from turn 3 (2): A is at -1 after turn 14, B at 8: the Giant
      wins in 14 turns;
    - Bears against Bears, Giant against Giant: an attack is met by a trade (material 0 beats
      the attacker's life), no better than staying home: nobody attacks, a draw at 20 turns.
    Each card counts from its side, a creature row at a time."""
    out = tmp_path / "r.csv"
    doc = run(tmp_path, BEARS_AND_GIANTS, "-n", "24", "--seed", "1", "--out", str(out))
    assert doc["simulation"] == "card pool races"
    rows = out.read_text().splitlines()[1:]
    pairs = [r.split(",")[1:5] for r in rows]
    expected = {
        ("Hill Giant", "Grizzly Bears"): ("A", "13"),
        ("Grizzly Bears", "Hill Giant"): ("B", "14"),
        ("Hill Giant", "Hill Giant"): ("", "20"),
        ("Grizzly Bears", "Grizzly Bears"): ("", "20"),
    }
    assert all(expected[(a, b)] == (w, t) for a, b, w, t in pairs)
    count = {k: sum((a, b) == k for a, b, _, _ in pairs) for k in expected}
    assert sum(count.values()) == 24 and all(count.values())
    giant, bears = doc["cards"]
    assert (giant["rank"], giant["card"], bears["card"]) == (1, "Hill Giant", "Grizzly Bears")
    giant_bears = count[("Hill Giant", "Grizzly Bears")]
    bears_giant = count[("Grizzly Bears", "Hill Giant")]
    giants, bearss = count[("Hill Giant", "Hill Giant")], count[("Grizzly Bears", "Grizzly Bears")]
    assert giant["races"] == giant_bears + bears_giant + 2 * giants
    assert giant["race_wins"] == bears["race_losses"] == giant_bears + bears_giant
    assert giant["race_losses"] == bears["race_wins"] == 0
    assert (giant["race_draws"], bears["race_draws"]) == (2 * giants, 2 * bearss)
    assert giant["moving_first"]["mean_turns_to_win"] == 13.0
    assert giant["moving_second"]["mean_turns_to_win"] == 14.0
    assert giant["mean_turns_to_win"] == round(
        (13 * giant_bears + 14 * bears_giant) / (giant_bears + bears_giant), 4
    )
    assert bears["mean_turns_to_win"] is None
    assert bears["race_loss_rate_ci95"][0] < bears["race_loss_rate"] < 1.0
    # the totals are from A's side: A won the Giant-Bears races, B the Bears-Giant ones
    assert doc["totals"]["race_wins"] == giant_bears
    assert doc["totals"]["race_losses"] == bears_giant


def test_card_pool_races_table_and_replay(tmp_path: Path) -> None:
    """The readable table ranks the cards; ``--replay K`` gives race K as a race file that
    ``ecs-combat race`` plays to the same end as the run's per-race row."""
    spec = tmp_path / "spec.toml"
    spec.write_text(BEARS_AND_GIANTS, encoding="utf-8")
    shown = CliRunner().invoke(cli, ["simulate", str(spec), "-n", "8", "--seed", "1"])
    assert shown.exit_code == 0, shown.output
    assert "Races between cards" in shown.output
    assert shown.output.index("Hill Giant") < shown.output.index("Grizzly Bears")
    out = tmp_path / "r.csv"
    run(tmp_path, BEARS_AND_GIANTS, "-n", "8", "--seed", "1", "--out", str(out))
    rows = out.read_text().splitlines()[1:]
    for k in (1, 2):
        replay = CliRunner().invoke(
            cli, ["simulate", str(spec), "-n", "8", "--seed", "1", "--replay", str(k)]
        )
        assert replay.exit_code == 0, replay.output
        race = tmp_path / f"race{k}.toml"
        race.write_text(replay.output, encoding="utf-8")
        played = CliRunner().invoke(cli, ["race", str(race), "--json"])
        assert played.exit_code == 0, played.output
        doc = json.loads(played.output)
        winner, turns = rows[k].split(",")[3:5]
        assert (doc["winner"] or "", doc["turns_played"]) == (winner, int(turns))
