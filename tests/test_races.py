"""Races (RULES section 12, CONTRACT section 9): hand-derived races on both engines, every turn
replayed by `resolve`, the input errors, and the optimal policy against the drawn one."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_run import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.decisions.race import (
    DrawnPolicy,
    OptimalPolicy,
    Policy,
    attack_options,
    play_race,
)
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.race import RaceState, TurnResolver, start
from ecs_combat.rules.result import TurnResult
from ecs_combat.scenario.race import RaceScenario, load_race, parse_race
from ecs_combat.scenario.schema import RACE_TABLES
from ecs_combat.scenario.turn_loader import parse_turn
from ecs_combat.scenario.turns import TurnScenario
from ecs_combat.scenario.writer import turn_toml_text


def resolver(engine: str, registry: Registry) -> TurnResolver:
    if engine == "reference":
        return ReferenceEngine(registry).resolve_turn
    batched = BatchedEngine(registry)

    def one(turn: TurnScenario) -> TurnResult:
        return batched.resolve_turns([turn])[0]

    return one


def race_of(doc: dict[str, Any], registry: Registry) -> RaceScenario:
    return parse_race(doc, registry, "race.toml")


def creature(controller: str, power: int, toughness: int, *keywords: str) -> dict[str, Any]:
    return {
        "controller": controller,
        "power": power,
        "toughness": toughness,
        "keywords": list(keywords),
    }


def played(
    doc: dict[str, Any], registry: Registry, engine: str, **policy: Any
) -> tuple[RaceState, list[dict[str, Any]]]:
    """The race played to its end, and each turn's (player, attackers, blockers) per combat."""
    race = race_of(doc, registry)
    policies = OptimalPolicy(registry, **policy) if policy else None
    state = play_race(race, registry, resolver(engine, registry), policies)
    turns = [
        {
            "player": t.player,
            "combats": [
                (c.player, dict(d.declaration.attackers), dict(d.declaration.blockers))
                for c, d in zip(t.result.combats, t.decided, strict=True)
            ],
        }
        for t in state.history
    ]
    return state, turns


def lives(state: RaceState) -> dict[str, int]:
    return {p: o.life for p, o in state.final_players.items()}


OGRE_AND_BEAR = {
    "players": {"A": {"life": 5}, "B": {"life": 5}},
    "creatures": {"ogre": creature("A", 3, 3), "bear": creature("B", 2, 2)},
    "race": {},
}


def test_a_3_3_races_a_2_2(registry: Registry, engine: str) -> None:
    """A first, per combat (RULES 12). T1: the ogre attacks; blocking loses the bear (material
    4), not blocking 3 life: B takes 3 (5 -> 2). T2: the ogre attacked without vigilance, so
    it is still tapped: the bear attacks unblocked (A 5 -> 3). T3: the bear attacked, so it is
    tapped in turn: it can't chump-block, and the ogre kills B (2 - 3 = -1)."""
    state, turns = played(OGRE_AND_BEAR, registry, engine)
    assert state.winner == "A" and len(state.history) == 3
    assert lives(state) == {"A": 3, "B": -1}
    assert [t["combats"][0][1:] for t in turns] == [
        ({"ogre": "B"}, {}),
        ({"bear": "A"}, {}),
        ({"ogre": "B"}, {}),
    ]
    assert state.seen["bear"].alive and state.seen["ogre"].alive


def test_vigilance_keeps_the_ogre_home(registry: Registry, engine: str) -> None:
    """The same race with a vigilant ogre (702.20): it attacks and still blocks, so in T2 the
    bear's attack would die to it (material -4 for B): B doesn't attack. T3: the untapped bear
    chump-blocks (losing it beats losing the game). T4: B has nothing. T5: B 2 - 3 = -1; A
    never took damage."""
    doc = json.loads(json.dumps(OGRE_AND_BEAR))
    doc["creatures"]["ogre"]["keywords"] = ["vigilance"]
    state, turns = played(doc, registry, engine)
    assert state.winner == "A" and len(state.history) == 5
    assert lives(state) == {"A": 5, "B": -1}
    assert [t["combats"][0][1:] for t in turns] == [
        ({"ogre": "B"}, {}),
        ({}, {}),
        ({"ogre": "B"}, {"bear": "ogre"}),
        ({}, {}),
        ({"ogre": "B"}, {}),
    ]


CRACK_BACK = {
    "players": {"A": {"life": 3}, "B": {"life": 10}},
    "creatures": {"giant": creature("A", 4, 4), "brute": creature("B", 3, 3)},
    "race": {"turns": 6},
}


def test_the_crack_back_decides_the_race(registry: Registry, engine: str) -> None:
    """Per combat, A's 4/4 attacks (B takes 4 rather than lose its 3/3), and B's 3/3 then
    attacks past the tapped giant for exactly A's 3 life: B wins in turn 2. Looking two
    combats ahead, A sees the crack-back and keeps the giant home; B's 3/3 would die
    attacking into it, so neither attacks and nobody wins within the 6 turns."""
    state, turns = played(CRACK_BACK, registry, engine)
    assert state.winner == "B" and len(state.history) == 2
    assert [t["combats"][0][1] for t in turns] == [{"giant": "B"}, {"brute": "A"}]
    assert lives(state) == {"A": 0, "B": 6}
    two = json.loads(json.dumps(CRACK_BACK))
    two["race"]["horizon"] = "two combats"
    state, turns = played(two, registry, engine)
    assert state.winner is None and len(state.history) == 6
    assert all(t["combats"][0][1] == {} for t in turns)
    assert lives(state) == {"A": 3, "B": 10}
    first = state.history[0].decided[0]
    # holding back: nothing this combat, and B's best next combat is not to attack either
    assert first.optimal and first.score == {"game": 0, "material": 0, "life": 0, "poison": 0}


def test_a_persist_creature_returned_in_the_opponents_turn_attacks_next(
    registry: Registry, engine: str
) -> None:
    """302.6, RULES 12: the spirit dies blocking in B's turn and returns 1/1 with a -1/-1
    counter; it has been under A's control since A's next turn began, so it attacks then. It
    is valued as it returned (2), and the counter stays through cleanup (514.2)."""
    doc = {
        "players": {"A": {"life": 3}, "B": {"life": 5}},
        "creatures": {
            "spirit": creature("A", 2, 2, "persist"),
            "ogre": creature("B", 3, 3),
            "goblin": creature("B", 1, 1),
        },
        "race": {"first": "B"},
    }
    race = race_of(doc, registry)
    resolve = resolver(engine, registry)
    policy = OptimalPolicy(registry)
    state = start(race, registry)
    from ecs_combat.rules.race import play

    state = play(state, policy.attack(state), registry, resolve)
    assert state.active == "A" and state.turn == 2
    spirit = state.creatures["spirit"]
    assert spirit.counters == {"-1/-1": 1} and not spirit.summoning_sick and spirit.value == 2
    assert {"spirit": "B"} in attack_options(state, registry)
    state = play(state, policy.attack(state), registry, resolve)
    assert state.history[-1].decided[0].declaration.attackers == {"spirit": "B"}


def test_a_creature_sick_at_the_start_waits_for_its_controllers_first_turn(
    registry: Registry,
) -> None:
    """`summoning_sick = true` (302.6): not in its controller's first turn; from the next."""
    doc = json.loads(json.dumps(OGRE_AND_BEAR))
    doc["creatures"]["ogre"]["summoning_sick"] = True
    race = race_of(doc, registry)
    resolve = resolver("reference", registry)
    policy = OptimalPolicy(registry)
    state = start(race, registry)
    assert attack_options(state, registry) == [{}]
    from ecs_combat.rules.race import play

    state = play(state, policy.attack(state), registry, resolve)  # A's turn 1
    state = play(state, policy.attack(state), registry, resolve)  # B's turn 2
    assert attack_options(state, registry) == [{}, {"ogre": "B"}]


def test_a_throat_wolf_turn_inside_a_race(registry: Registry, engine: str) -> None:
    """B's Throat Wolf (made a vanilla 2/2 here) adds a combat phase after A's first one in
    A's turn (RULES 8). T1: the ogre attacks (B takes 3 rather than lose the wolf), then the
    wolf attacks past the tapped ogre (A 8 -> 6). T2: the wolf attacks again, the ogre still
    tapped (A 4). T3: the ogre attacks while the wolf is tapped: B 3 -> 0."""
    doc = {
        "players": {"A": {"life": 8}, "B": {"life": 6}},
        "creatures": {
            "ogre": creature("A", 3, 3),
            "wolf": {"card": "Throat Wolf", "controller": "B", "power": 2, "toughness": 2,
                     "keywords": []},
        },
        "race": {},
    }  # fmt: skip
    state, turns = played(doc, registry, engine)
    assert state.winner == "A" and len(state.history) == 3
    assert lives(state) == {"A": 4, "B": 0}
    assert turns[0]["combats"] == [("A", {"ogre": "B"}, {}), ("B", {"wolf": "A"}, {})]
    assert turns[1]["combats"] == [("B", {"wolf": "A"}, {})]
    assert turns[2]["combats"] == [("A", {"ogre": "B"}, {})]
    skipped = state.history[2].result.skipped_phases
    assert [s.phase.created_by for s in skipped if s.phase.kind == "combat"] == [
        "Throat Wolf (wolf)"
    ]


RACES = [OGRE_AND_BEAR, CRACK_BACK]


@pytest.mark.parametrize("doc", RACES, ids=["ogre-bear", "crack-back"])
def test_every_turn_replays_on_both_engines(registry: Registry, doc: dict[str, Any]) -> None:
    """CONTRACT 9: each turn written back as a turn file resolves to what the race printed,
    on both engines."""
    state, _ = played(doc, registry, "reference")
    engines = [resolver(e, registry) for e in ("reference", "batched")]
    for t in state.history:
        turn = parse_turn(t.document, registry, "turn.toml")
        for resolve in engines:
            assert resolve(turn).to_json() == t.result.to_json()


def test_the_cli_race_and_its_turn_files(registry: Registry, tmp_path: Path) -> None:
    """`ecs-combat race --json` as CONTRACT 9 has it, the same on both engines; a turn written
    as TOML resolves with `ecs-combat resolve` to the race's turn."""
    path = tmp_path / "race.json"
    path.write_text(json.dumps(OGRE_AND_BEAR))
    outs = []
    for engine in ("reference", "batched"):
        done = run_cli(["race", str(path), "--json", "--engine", engine])
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        out.pop("run")
        outs.append(out)
    out = outs[0]
    assert outs[1] == out
    assert out["race"] == {
        "first": "A", "turns": 20, "decisions": "optimal", "horizon": "combat", "seed": 0
    }  # fmt: skip
    assert out["winner"] == "A" and out["turns_played"] == 3
    first = out["turns"][0]
    assert first["turn"] == 1 and first["player"] == "A"
    assert first["combats"][0]["decided"] == {
        "attackers": {"ogre": "B"},
        "blockers": {},
        "divide": [],
        "score": {"game": 0, "material": 0, "life": 3, "poison": 0},
    }
    assert out["creatures"]["bear"]["alive"] is True
    state, _ = played(OGRE_AND_BEAR, registry, "reference")
    turn_file = tmp_path / "turn3.toml"
    turn_file.write_text(turn_toml_text(state.history[2].document))
    for engine in ("reference", "batched"):
        done = run_cli(["resolve", str(turn_file), "--json", "--engine", engine])
        assert done.returncode == 0, done.stderr
        replayed = json.loads(done.stdout)
        assert replayed["combats"] == [
            {k: v for k, v in c.items() if k != "decided"} for c in out["turns"][2]["combats"]
        ]
    readable = run_cli(["race", str(path)])
    assert "turn 3: A's turn" in readable.stdout and "A wins after 3 turns" in readable.stdout


@pytest.mark.parametrize(
    ("change", "place", "words"),
    [
        (lambda d: d.update(combat={}), "combat", "can't be given beside `race`"),
        (lambda d: d["players"].update(C={}), "players", "exactly two players, not 3"),
        (lambda d: d["race"].update(turns=0), "race.turns", "from 1 to 200, not 0"),
        (lambda d: d["race"].update(turns=201), "race.turns", "from 1 to 200, not 201"),
        (
            lambda d: d["race"].update(horizon="two combat"),
            "race.horizon",
            "did you mean 'two combats'?",
        ),
        (lambda d: d["race"].update(decisions="best"), "race.decisions", "unknown decisions"),
        (lambda d: d["race"].update(first="C"), "race.first", "unknown player 'C'"),
        (lambda d: d["race"].update(turn=3), "race.turn", "did you mean 'turns'?"),
    ],
)
def test_race_input_errors(
    registry: Registry, change: Callable[[dict[str, Any]], None], place: str, words: str
) -> None:
    doc = json.loads(json.dumps(OGRE_AND_BEAR))
    change(doc)
    with pytest.raises(InputError) as caught:
        race_of(doc, registry)
    assert caught.value.path == place and words in caught.value.message


def test_race_errors_from_the_command_line(tmp_path: Path) -> None:
    """Exit 2 and one line naming the file and the place; `resolve` points races to `race`."""
    doc = json.loads(json.dumps(OGRE_AND_BEAR))
    doc["race"]["horizon"] = "two combat"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    done = run_cli(["race", str(path)])
    assert done.returncode == 2
    assert "bad.json: race.horizon: unknown horizon 'two combat'" in done.stderr
    good = tmp_path / "good.json"
    good.write_text(json.dumps(OGRE_AND_BEAR))
    done = run_cli(["resolve", str(good)])
    assert done.returncode == 2 and "ecs-combat race" in done.stderr


def test_drawn_races_repeat_with_their_seed(registry: Registry) -> None:
    doc = json.loads(json.dumps(OGRE_AND_BEAR))
    doc["race"] = {"decisions": "drawn", "seed": 3, "turns": 8}
    race = race_of(doc, registry)
    resolve = resolver("reference", registry)
    a = play_race(race, registry, resolve)
    b = play_race(race, registry, resolve)
    assert [t.document for t in a.history] == [t.document for t in b.history]


VANILLA = st.tuples(st.integers(1, 3), st.integers(1, 3))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    theirs=st.lists(VANILLA, min_size=1, max_size=2),
    life=st.integers(2, 6),
    seed=st.integers(0, 99),
)
def test_optimal_never_loses_to_drawn_with_more_of_everything(
    registry: Registry, theirs: list[tuple[int, int]], life: int, seed: int
) -> None:
    """A sanity property: A moves first with a bigger copy of each of B's creatures (+1/+1)
    plus one more, and more life; playing optimally over two combats (RULES 12) against drawn
    declarations, A never loses. (Looking one combat ahead it can:
    :func:`test_one_combat_ahead_can_lose_a_race_it_should_win`.)"""
    creatures = {f"b{i}": creature("B", p, t) for i, (p, t) in enumerate(theirs)}
    creatures |= {f"a{i}": creature("A", p + 1, t + 1) for i, (p, t) in enumerate(theirs)}
    creatures["extra"] = creature("A", 1, 1)
    doc = {
        "players": {"A": {"life": life + 1}, "B": {"life": life}},
        "creatures": creatures,
        "race": {"turns": 8},
    }
    race = race_of(doc, registry)
    policies: dict[str, Policy] = {
        "A": OptimalPolicy(registry, "two combats"),
        "B": DrawnPolicy(registry, seed),
    }
    state = play_race(race, registry, resolver("reference", registry), policies)
    assert state.winner != "B"


def test_one_combat_ahead_can_lose_a_race_it_should_win(registry: Registry) -> None:
    """Section 9's score puts material before life, one combat at a time: A's 4/3s (life 7)
    never trade with B's 3/2s (life 6) — a trade loses 2 of material — and take 3 instead,
    until B's drawn attacks have brought A to 1 and a 3/2 gets through (turn 6). Looking two
    combats ahead, A sees the crack-back and wins with the same draws."""
    creatures = {f"b{i}": creature("B", 3, 2) for i in range(2)}
    creatures |= {f"a{i}": creature("A", 4, 3) for i in range(2)}
    creatures["extra"] = creature("A", 1, 1)
    doc = {
        "players": {"A": {"life": 7}, "B": {"life": 6}},
        "creatures": creatures,
        "race": {"turns": 8},
    }
    race = race_of(doc, registry)
    resolve = resolver("reference", registry)
    one = play_race(
        race, registry, resolve, {"A": OptimalPolicy(registry), "B": DrawnPolicy(registry, 16)}
    )
    assert (one.winner, len(one.history)) == ("B", 6)
    assert one.history[1].decided[0].declaration.blockers == {}  # no trade with b1
    two = play_race(
        race,
        registry,
        resolve,
        {"A": OptimalPolicy(registry, "two combats"), "B": DrawnPolicy(registry, 16)},
    )
    assert two.winner == "A"


DOCS = Path(__file__).resolve().parent.parent / "docs"
RACE_MARKER = re.compile(r"<!-- race: (\S+) -->\n```json\n(.*?)```", re.S)


def test_the_worked_examples_of_docs_races(registry: Registry) -> None:
    """Every `<!-- race: PATH -->` block of docs/races.md: the race in PATH gives these
    fields (winner, turns_played, life, and decided.N: fields of turn N's first combat)."""
    root = DOCS.parent
    found = RACE_MARKER.findall((DOCS / "races.md").read_text())
    assert len(found) >= 5
    resolve = resolver("reference", registry)
    for path, text in found:
        want = json.loads(text)
        state = play_race(load_race(root / path, registry), registry, resolve)
        assert state.winner == want["winner"], path
        assert len(state.history) == want["turns_played"], path
        assert lives(state) == want["life"], path
        for n, fields in want["decided"].items():
            got = state.history[int(n) - 1].decided[0].to_json()
            assert {k: got[k] for k in fields} == fields, (path, n)


def test_the_python_example_of_docs_races(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (DOCS / "races.md").read_text()
    code = text.split("## From Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(DOCS.parent)
    exec(compile(code, "docs/races.md", "exec"), {})


def test_every_race_key_is_documented() -> None:
    text = (DOCS / "races.md").read_text()
    for where, table in RACE_TABLES.items():
        for key in table:
            assert f"`{key}`" in text, f"{where}.{key}"


def test_a_race_under_a_budget_is_not_called_optimal(tmp_path: Path) -> None:
    """CONTRACT 9: --budget bounds the race's whole search; decisions made once it ran out
    are the best found, and the race says it is not optimal, and why."""
    creatures = {
        f"{p.lower()}{i}": creature(p, 2 + i, 3 - i % 2, k)
        for p in ("A", "B")
        for i, k in enumerate(["first strike", "flying", "vigilance"])
    }
    doc = {
        "players": {"A": {"life": 9}, "B": {"life": 9}},
        "creatures": creatures,
        "race": {"horizon": "two combats", "turns": 4},
    }
    path = tmp_path / "race.json"
    path.write_text(json.dumps(doc))
    done = run_cli(["race", str(path), "--json", "--budget", "0.01"])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["optimal"] is False and "budget" in out["reason"]
    assert run_cli(["race", str(path), "--budget", "0"]).returncode == 2


RACE_KEYWORDS = [
    "flying", "first strike", "deathtouch", "vigilance", "lifelink", "trample", "persist",
    "undying", "reach", "double strike", "infect", "menace", "exalted", "haste",
]  # fmt: skip


@st.composite
def race_boards(draw: st.DrawFn) -> dict[str, Any]:
    creatures = {}
    for player in ("A", "B"):
        for i in range(draw(st.integers(1, 2))):
            creatures[f"{player.lower()}{i}"] = creature(
                player,
                draw(st.integers(0, 4)),
                draw(st.integers(1, 4)),
                *draw(st.lists(st.sampled_from(RACE_KEYWORDS), max_size=2, unique=True)),
            )
            if draw(st.booleans()) and draw(st.booleans()):
                creatures[f"{player.lower()}{i}"]["summoning_sick"] = True
    return {
        "players": {"A": {"life": draw(st.integers(1, 8))}, "B": {"life": draw(st.integers(1, 8))}},
        "creatures": creatures,
        "race": {"turns": 6, "first": draw(st.sampled_from(["A", "B"]))},
    }


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=race_boards())
def test_both_engines_play_the_same_race(registry: Registry, doc: dict[str, Any]) -> None:
    """The race played on each engine is the same race, turn by turn (the decisions read the
    board each engine leaves), and every turn replays on the other engine."""
    race = race_of(doc, registry)
    states = [play_race(race, registry, resolver(e, registry)) for e in ("reference", "batched")]
    ref, bat = states
    assert [t.document for t in ref.history] == [t.document for t in bat.history]
    assert [t.result.to_json() for t in ref.history] == [t.result.to_json() for t in bat.history]
    assert ref.winner == bat.winner
    batched = resolver("batched", registry)
    for t in ref.history:
        assert batched(parse_turn(t.document, registry, "t.toml")).to_json() == t.result.to_json()


def test_a_board_too_large_for_two_combats_is_refused_with_its_size(tmp_path: Path) -> None:
    creatures = {
        f"{p.lower()}{i}": creature(p, 1 + i % 4, 1 + (i * 3) % 4, *kw)
        for p in ("A", "B")
        for i, kw in enumerate([["flying"], ["first strike"], [], ["trample"], [], []])
    }
    doc = {"players": {"A": {}, "B": {}}, "creatures": creatures,
           "race": {"horizon": "two combats", "turns": 2}}  # fmt: skip
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    done = run_cli(["race", str(path), "--json"])
    assert done.returncode == 2
    assert "4,595,232 creature rows at once, more than 262,144" in done.stderr


def test_races_from_arrays(registry: Registry, engine: str) -> None:
    """ecs_combat.races: each battle built from arrays played as a race, A first: the
    hand-derived races above (a 3/3 against a 2/2 at 5 life: A wins in 3 turns at 3 life;
    with vigilance in 5 at 5), as a table and a DataFrame."""
    import ecs_combat

    built = ecs_combat.battles(
        [0, 0, 1, 1], [0, 1, 0, 1], [3, 2, 3, 2], [3, 2, 3, 2],
        keywords={"vigilance": np.array([False, False, True, False])}, life=5,
        registry=registry,
    )  # fmt: skip
    result = ecs_combat.races(built, registry, engine=engine)
    table = result.table("races")
    assert table["winner"].tolist() == [0, 0]
    assert table["turns_played"].tolist() == [3, 5]
    assert table["life_a"].tolist() == [3, 5] and table["life_b"].tolist() == [-1, -1]
    assert table["optimal"].all()
    frame = result.to_pandas()
    assert list(frame.columns) == ["race", "winner", "turns_played", "life_a", "life_b", "optimal"]
    assert result.states[1].history[1].decided[0].declaration.attackers == {}
    with pytest.raises(InputError) as caught:
        ecs_combat.races(built, registry, horizon="two combat")
    assert caught.value.path == "horizon"
