"""`ecs-combat simulate` (CONTRACT.md section 3): the keyword tournament, SPEC files, chunks
and seeds, the per-battle file, the heatmap, and both engines giving identical summaries."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_run import run_cli

from ecs_combat import ReferenceEngine, load_scenarios
from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import check_declarations
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import COLUMNS, TABLE_COLUMNS, Tally
from ecs_combat.simulation.spec import strike_keywords, tournament
from ecs_combat.simulation.spec_reader import parse_spec

ROOT = Path(__file__).resolve().parent.parent
MELEE = ROOT / "examples" / "specs" / "melee.toml"
OUTCOMES = ("attacker_wins", "blocker_wins", "trades", "neither_dies")


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("ECS_COMBAT_PLUGINS", None)
    full_env["COLUMNS"] = "200"
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=full_env)


def summary(*args: str) -> dict[str, Any]:
    """`simulate ARGS --json`'s document, the command run in this process (tests/cli_run.py;
    the tests of what it prints run the installed command)."""
    p = run_cli(["simulate", *args, "--json"], env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})
    assert p.returncode == 0, p.stderr
    doc: dict[str, Any] = json.loads(p.stdout)
    return doc


def without_run(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "run"}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# -- the default tournament -----------------------------------------------------------------


def test_default_run_prints_a_table_per_matchup(registry: Registry) -> None:
    p = run("simulate", "--battles", "2000", "--seed", "3")
    assert p.returncode == 0, p.stderr
    assert "Keyword tournament: 2,000 battles" in p.stdout
    for heading in ("attacker", "blocker", "battles", "wins", "trades", "survive"):
        assert heading in p.stdout
    for keyword in strike_keywords(registry):
        assert keyword in p.stdout
    assert "batched engine: 2,000 battles" in p.stdout


def test_json_summary_shape(registry: Registry) -> None:
    doc = summary("--battles", "3000", "--seed", "5")
    assert {"seed", "battles", "creatures", "matchups", "totals", "run"} <= set(doc)
    assert doc["seed"] == 5 and doc["battles"] == 3000 and doc["creatures"] == 6000
    labels = ["none", *strike_keywords(registry)]
    pairs = [(m["attacker"], m["blocker"]) for m in doc["matchups"]]
    assert pairs == [(a, b) for a in labels for b in labels]  # every matchup, in order
    rates = {f"{side}_win_rate{ci}" for side in ("attacker", "blocker") for ci in ("", "_ci95")}
    for m in doc["matchups"]:
        assert set(m) == {"attacker", "blocker", *COLUMNS, *rates}
        assert sum(m[o] for o in OUTCOMES) == m["battles"]
        for side in ("attacker", "blocker"):
            rate, (lo, hi) = m[f"{side}_win_rate"], m[f"{side}_win_rate_ci95"]
            assert rate == round(m[f"{side}_wins"] / m["battles"], 6)
            assert 0 <= lo <= rate <= hi <= 1
    assert sum(m["battles"] for m in doc["matchups"]) == 3000
    for column in COLUMNS:
        assert doc["totals"][column] == sum(m[column] for m in doc["matchups"])
    # one attacker, one blocker, no trample: no damage reaches a player (510.1c)
    assert doc["totals"]["damage_to_players"] == 0
    assert doc["run"]["engine"] == "batched"
    assert {"seconds", "chunk_size", "chunks", "workers"} <= set(doc["run"])


def test_same_seed_same_summary_and_another_seed_differs() -> None:
    a = summary("--battles", "2500", "--seed", "9")
    b = summary("--battles", "2500", "--seed", "9")
    c = summary("--battles", "2500", "--seed", "10")
    assert without_run(a) == without_run(b)
    assert without_run(a) != without_run(c)


def test_results_do_not_depend_on_the_chunk_size() -> None:
    docs = [
        summary("--battles", "3000", "--seed", "4", "--chunk-size", n)
        for n in ("700", "1024", "5000")
    ]
    assert [d["run"]["chunks"] for d in docs] == [5, 3, 1]
    assert without_run(docs[0]) == without_run(docs[1]) == without_run(docs[2])


def test_without_a_seed_the_summary_names_the_seed_it_drew() -> None:
    doc = summary("--battles", "1000")
    again = summary("--battles", "1000", "--seed", str(doc["seed"]))
    assert without_run(doc) == without_run(again)


def test_json_mode_prints_only_the_document() -> None:
    p = run("simulate", "--battles", "1000", "--seed", "1", "--json")
    assert p.returncode == 0
    json.loads(p.stdout)
    assert p.stderr == ""


@pytest.mark.parametrize("spec", [None, MELEE], ids=["tournament", "melee"])
def test_both_engines_give_identical_summaries(spec: Path | None) -> None:
    """CONTRACT.md section 3: same SPEC, N and seed, same results whichever engine runs them."""
    args = [str(spec)] if spec else []
    n = "300" if spec else "1500"
    batched = summary(*args, "--battles", n, "--seed", "21", "--engine", "batched")
    reference = summary(*args, "--battles", n, "--seed", "21", "--engine", "reference")
    assert batched["run"]["engine"] == "batched" and reference["run"]["engine"] == "reference"
    assert without_run(batched) == without_run(reference)


def test_a_single_battle_where_a_step_has_no_damage_at_all() -> None:
    """Seed 1's first battle: both creatures have firstest strike and the blocker dies in the
    firstest-strike step, so nobody deals damage in the regular step (a striker of an earlier
    step, 510.4), anywhere in the batch. Both engines must still agree."""
    batched = summary("--battles", "1", "--seed", "1", "--engine", "batched")
    reference = summary("--battles", "1", "--seed", "1", "--engine", "reference")
    assert without_run(batched) == without_run(reference)
    assert batched["totals"]["attacker_wins"] == 1


# -- third-party strike keywords ------------------------------------------------------------

PLUGIN = """
from ecs_combat import Keyword, hookimpl

@hookimpl
def register_keywords():
    return [Keyword("second strike", strikes_in=frozenset({"regular", "last-strike"}))]
"""


def test_a_third_party_strike_keyword_joins_the_tournament(tmp_path: Path) -> None:
    (tmp_path / "second_strike_plugin.py").write_text(PLUGIN)
    env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    p = run(
        "-p", "second_strike_plugin", "simulate", "-n", "2000", "--seed", "1", "--json", env=env
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert "second strike" in doc["spec"]["keywords"]
    assert any(m["attacker"] == "second strike" for m in doc["matchups"])


def test_a_blocked_plugin_leaves_the_tournament() -> None:
    doc = summary("--battles", "500", "--seed", "1")
    p = run("-p", "no:double strike", "simulate", "-n", "500", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    blocked = json.loads(p.stdout)
    assert "double strike" in doc["spec"]["keywords"]
    assert "double strike" not in blocked["spec"]["keywords"]


# -- SPEC files -----------------------------------------------------------------------------


def test_spec_melee_runs_and_counts_creatures() -> None:
    doc = summary(str(MELEE), "--battles", "500", "--seed", "2")
    assert doc["simulation"] == "spec"
    assert doc["spec"]["attackers"] == [5, 5]
    # 5 attackers and 0-3 blockers each: between 5 and 20 creatures a battle
    assert 5 * 500 < doc["creatures"] < 20 * 500
    labels = {m["attacker"] for m in doc["matchups"]}
    assert labels <= {"none", "first strike", "deathtouch", "first strike + deathtouch"}
    assert doc["totals"]["damage_to_players"] > 0  # unblocked attackers hit the player


def test_spec_without_matchup_keywords_has_one_matchup(tmp_path: Path) -> None:
    spec = write(tmp_path, "s.toml", "attackers = [1, 3]\nblockers_per_attacker = [0, 2]\n")
    doc = summary(str(spec), "--battles", "400", "--seed", "2")
    assert [(m["attacker"], m["blocker"]) for m in doc["matchups"]] == [("any", "any")]
    assert doc["matchups"][0]["battles"] == 400


BAD_SPECS = [
    ("keywords = { trample = 1.5 }", "keywords.trample: probability must be between 0 and 1"),
    ("keywords = { trample = true }", "keywords.trample: probability must be a number"),
    ("keywords = { flapping = 0.1 }", "keywords.flapping: unknown keyword 'flapping'"),
    ("attackers = [3, 1]", "attackers: min 3 is greater than max 1"),
    ("attackers = 0", "attackers: must be between 1 and 1000000, not 0"),
    (
        "blockers_per_attacker = [0, 1, 2]",
        "blockers_per_attacker: must be an integer or [min, max]",
    ),
    ("toughness = [0, 3]", "toughness[0]: must be between 1 and 1000, not 0"),
    ("power = 'big'", "power: must be an integer or [min, max], not a string"),
    ("colour = 'red'", "colour: unknown key 'colour'"),
    ("[attacker]\nspeed = 3", "attacker.speed: unknown key 'speed'"),
    ("[state]\nplayer = { hat = -0.5 }", "state.player.hat: probability must be between 0 and 1"),
    (
        "[[casts]]\ncard = 'Giant Growth'\nprobability = 0.5",
        "casts[0].card: no card 'Giant Growth'",
    ),
    ("[[casts]]\ncard = 'Hat Trick'", "casts[0].probability: missing"),
    (
        "[[casts]]\ncard = 'Hat Trick'\nprobability = 0.5\ntarget = 'player'",
        "casts[0].target: must be one of",
    ),
    (
        "matchup = ['first strike', 'first strike']",
        "matchup[1]: keyword 'first strike' is listed twice",
    ),
    ("matchup = 'first strike'", "matchup: must be a list of keywords"),
    ("attackers = [1, ", "not valid TOML"),
]


@pytest.mark.parametrize(
    ("text", "message"), BAD_SPECS, ids=[m.split(":")[0] for _, m in BAD_SPECS]
)
def test_bad_spec_is_an_input_error_naming_the_place(
    tmp_path: Path, text: str, message: str
) -> None:
    spec = write(tmp_path, "bad.toml", text + "\n")
    p = run_cli(["simulate", str(spec), "--battles", "10"],
                env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})  # in this process  # fmt: skip
    assert p.returncode == 2, p.stderr
    assert str(spec) in p.stderr
    assert message in p.stderr
    assert "Traceback" not in p.stderr
    assert p.stdout == ""


def test_missing_spec_file_is_an_input_error(tmp_path: Path) -> None:
    p = run("simulate", str(tmp_path / "nope.toml"))
    assert p.returncode == 2
    assert "nope.toml" in p.stderr and "no such file" in p.stderr


def test_a_keyword_of_a_blocked_plugin_is_named_in_the_error(tmp_path: Path) -> None:
    spec = write(tmp_path, "s.toml", "keywords = { trample = 0.5 }\n")
    p = run("-p", "no:trample", "simulate", str(spec), "--battles", "10")
    assert p.returncode == 2
    assert "keywords.trample" in p.stderr and "blocked" in p.stderr


# -- what the generator draws ---------------------------------------------------------------


def test_any_range_of_battles_is_drawn_the_same_whatever_the_chunks(registry: Registry) -> None:
    spec = parse_spec({"attackers": [1, 4], "blockers_per_attacker": [0, 3]}, registry)
    gen = make_generator(spec, registry)
    whole = draw_battles(gen, 8, 0, 2500).batch
    parts = [draw_battles(gen, 8, a, b).batch for a, b in ((0, 1000), (1000, 1100), (1100, 2500))]
    assert [p.n_battles for p in parts] == [1000, 100, 1400]
    assert sum(p.n_creatures for p in parts) == whole.n_creatures
    for name in ("power", "toughness", "keywords"):
        joined = np.concatenate([getattr(p, name) for p in parts])
        assert np.array_equal(joined, getattr(whole, name)), name
    for key, column in whole.creature_state.items():
        joined = np.concatenate([p.creature_state[key] for p in parts])
        assert np.array_equal(joined, column), key


def test_generated_attacks_and_blocks_are_legal(registry: Registry) -> None:
    """509.1b: the generator declares no block that the registry's restrictions forbid (flying,
    reach, shadow, menace, defender, decayed, skulk, ...); such a creature stays back instead.
    Checked by the scenario loader's rules. A SPEC draws keywords without parameters and
    without block requirements (lure) only: it refuses the others."""
    required = {r.keyword for r in registry.restrictions_of("block-requirement")}
    drawable = [k for k, kw in registry.keywords.items() if not kw.parameter and k not in required]
    assert {"flying", "reach", "shadow", "menace", "defender", "decayed", "skulk"} <= set(drawable)
    doc = {
        "attackers": [1, 4],
        "blockers_per_attacker": [0, 3],
        "keywords": {k: 0.2 for k in drawable},
    }
    gen = make_generator(parse_spec(doc, registry), registry)
    batch = draw_battles(gen, 2, 0, 1500).batch
    scenarios = batch_to_scenarios(batch, registry)
    for scenario in scenarios:
        check_declarations(scenario, registry)
    drawn_to_block = int((batch.controller % 2 == 1).sum())
    assert 0 < batch.block_blocker.shape[0] < drawn_to_block  # some blocks were left out


def test_tournament_draws_each_keyword_uniformly(registry: Registry) -> None:
    gen = make_generator(tournament(registry), registry)
    drawn = draw_battles(gen, 1, 0, 60_000)
    counts = np.bincount(drawn.attacker_code, minlength=gen.n_codes)
    expected = 60_000 / gen.n_codes
    assert np.all(np.abs(counts - expected) < 0.1 * expected)
    assert set(np.unique(drawn.batch.power).tolist()) == set(range(1, 7))
    assert set(np.unique(drawn.batch.toughness).tolist()) == set(range(1, 7))


def test_tournament_shortcut_builds_what_the_general_builder_builds(registry: Registry) -> None:
    """The tournament's one-on-one shortcut and :func:`assemble` give the same batch."""
    gen = make_generator(tournament(registry), registry)
    assert gen._free_blocks  # no bundled strike keyword restricts attacks or blocks
    fast = draw_battles(gen, 4, 0, 3000)
    gen._free_blocks = False
    general = draw_battles(gen, 4, 0, 3000)
    for f in dataclasses.fields(CombatBatch):
        a, b = getattr(fast.batch, f.name), getattr(general.batch, f.name)
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b), f.name
        elif isinstance(a, dict):
            assert a.keys() == b.keys(), f.name
            for key in a:
                assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key
        else:
            assert a == b, f.name
    assert np.array_equal(fast.attacking_side, general.attacking_side)


def test_tallies_merge_associatively() -> None:
    rng = np.random.default_rng(0)

    def tally(n: int) -> Tally:
        return Tally.of(
            rng.integers(0, 3, n), rng.integers(0, 3, n), rng.integers(0, 4, n),
            (rng.integers(0, 5, n), rng.integers(0, 2, n), rng.integers(0, 2, n)), 3, 2 * n,
        )  # fmt: skip

    a, b, c = tally(50), tally(70), tally(90)
    left, right = a.merge(b).merge(c), a.merge(b.merge(c))
    assert left.counts.keys() == right.counts.keys()
    assert all(np.array_equal(left.counts[k], right.counts[k]) for k in left.counts)
    assert left.battles == 210 and left.creatures == 420


def test_batch_to_scenarios_gives_back_the_same_combats(registry: Registry) -> None:
    """The reference engine behind the batched interface: every scenario of the suite, put in a
    batch and turned back into scenarios, resolves exactly as the original does."""
    files = sorted((ROOT / "tests" / "scenarios").glob("*.toml"))
    files += sorted((ROOT / "examples" / "scenarios").glob("*.toml"))
    scenarios = [s for f in files for s in load_scenarios(f, registry)]
    assert len(scenarios) > 10
    batch = scenarios_to_batch(scenarios, registry)
    engine = ReferenceEngine(registry)
    back = batch_to_scenarios(batch, registry)
    for original, again in zip(scenarios, back, strict=True):
        assert engine.resolve(again).to_json() == engine.resolve(original).to_json(), original.file


# -- files ----------------------------------------------------------------------------------


def test_out_csv_holds_one_row_per_battle(tmp_path: Path) -> None:
    out = tmp_path / "battles.csv"
    doc = summary("--battles", "2100", "--seed", "6", "--out", str(out), "--chunk-size", "1000")
    with out.open(newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == TABLE_COLUMNS
    body = rows[1:]
    assert [int(r[0]) for r in body] == list(range(2100))
    outcome = {"attacker wins": 0, "blocker wins": 0, "trade": 0, "neither dies": 0}
    for r in body:
        outcome[r[3]] += 1
    totals = doc["totals"]
    assert outcome == {
        "attacker wins": totals["attacker_wins"],
        "blocker wins": totals["blocker_wins"],
        "trade": totals["trades"],
        "neither dies": totals["neither_dies"],
    }
    assert all(r[4] == "1" and r[5] == "1" for r in body)  # one attacker, one blocker
    # the creatures beside the battles, and no temporary file left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["battles.creatures.csv", "battles.csv"]


def test_out_with_an_unknown_suffix_is_refused_before_running(tmp_path: Path) -> None:
    p = run("simulate", "--battles", "10", "--out", str(tmp_path / "battles.xlsx"))
    assert p.returncode == 2
    assert "--out" in p.stderr and ".csv" in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_out_parquet_matches_csv(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    summary("--battles", "1500", "--seed", "6", "--out", str(tmp_path / "b.parquet"))
    summary("--battles", "1500", "--seed", "6", "--out", str(tmp_path / "b.csv"))
    table = pq.read_table(tmp_path / "b.parquet")
    with (tmp_path / "b.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert table.column_names == list(TABLE_COLUMNS)
    assert table.column("outcome").to_pylist() == [r["outcome"] for r in rows]
    assert table.column("attacker").to_pylist() == [r["attacker"] for r in rows]


def test_out_parquet_without_pyarrow_says_how_to_install(tmp_path: Path) -> None:
    blocker = tmp_path / "no_pyarrow"
    blocker.mkdir()
    (blocker / "pyarrow.py").write_text("raise ImportError('pyarrow is not installed')\n")
    env = {"PYTHONPATH": f"{blocker}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    p = run("simulate", "-n", "10", "--out", str(tmp_path / "b.parquet"), env=env)
    assert p.returncode == 2
    assert 'pip install "ecs-combat[parquet]"' in p.stderr
    assert not (tmp_path / "b.parquet").exists()


def test_plot_writes_a_png(tmp_path: Path) -> None:
    png = tmp_path / "heatmap.png"
    p = run("simulate", "--battles", "3000", "--seed", "2", "--plot", str(png))
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000


def test_plot_must_be_png(tmp_path: Path) -> None:
    p = run("simulate", "--battles", "10", "--plot", str(tmp_path / "heatmap.jpg"))
    assert p.returncode == 2 and ".png" in p.stderr


def test_unwritable_out_is_an_input_error(tmp_path: Path) -> None:
    p = run("simulate", "--battles", "10", "--out", str(tmp_path / "missing" / "b.csv"))
    assert p.returncode == 2
    assert "cannot write" in p.stderr and "Traceback" not in p.stderr


def test_python_dash_m_floor_prints_counts() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "ecs_combat.bench.floor", "--battles", "5000", "--seed", "1"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert sum(doc[o] for o in OUTCOMES) == 5000


def test_a_spec_with_damage_as_counters_gives_the_same_tallies_on_both_engines(
    tmp_path: Path,
) -> None:
    """Generated battles have the -1/-1 counter column wither and infect write (the batched
    engine once refused them), and both engines tally them alike."""
    spec = write(
        tmp_path,
        "wither.toml",
        """\
        attackers = 2
        blockers_per_attacker = [1, 2]
        matchup = ["wither", "infect"]

        [attacker]
        keywords = { wither = 0.5, infect = 0.5 }
        """,
    )
    args = (str(spec), "-n", "200", "--seed", "3")
    batched = summary(*args, "--engine", "batched")
    assert without_run(batched) == without_run(summary(*args, "--engine", "reference"))


def test_the_documented_summary_is_a_real_run() -> None:
    """docs/simulate.md's sample `--json` summary is what the command prints for its options
    (its first matchup shown, the others elided; `run` says how it was made: only its keys)."""
    text = (ROOT / "docs" / "simulate.md").read_text()
    found = re.search(r"<!-- summary: simulate ([^>]*) -->\n```json\n(.*?)```", text, re.S)
    assert found
    documented = json.loads(found.group(2))
    doc = summary(*found.group(1).split())
    assert documented["matchups"][-1] == "..."
    assert documented["matchups"][:-1] == doc["matchups"][: len(documented["matchups"]) - 1]
    assert set(documented["run"]) == set(doc["run"])
    for key in set(doc) - {"matchups", "run"}:
        assert documented[key] == doc[key], key


REFUSER = """
from ecs_combat import InputError, Keyword, System, hookimpl


def refuse(combat, declaration):
    raise InputError(None, "combat.bands", "a band needs a creature with banding (702.22c)")


def refuse_batched(batch, declaration):
    if declaration.attackers.any():
        raise InputError(None, "combat.bands", "a band needs a creature with banding (702.22c)")


@hookimpl
def register_keywords():
    return [Keyword("refuser", rule="test")]


@hookimpl
def register_systems():
    return [System("declare-attackers", "refuse", refuse, refuse_batched, {"refuser"})]
"""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_plugins_input_refusal_during_a_run_is_a_clean_exit_2(
    tmp_path: Path, workers: str
) -> None:
    """An input error a plugin raises while battles resolve (a banding-style refusal, in
    this process or a worker's) is the one-line refusal with exit status 2, not "internal
    error: RemoteError" and exit 1 (issue 30, item 8)."""
    (tmp_path / "refuser_kw.py").write_text(REFUSER)
    spec = tmp_path / "spec.toml"
    spec.write_text("[keywords]\nrefuser = 0.5\n")
    p = run(
        "-p", "refuser_kw", "simulate", str(spec), "-n", "1000", "--workers", workers,
        env={"PYTHONPATH": str(tmp_path)},
    )  # fmt: skip
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip() == (
        "ecs-combat: combat.bands: a band needs a creature with banding (702.22c)"
    )
