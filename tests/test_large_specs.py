"""SPECs that draw large battles (issue 36): ``attackers`` and ``blockers_per_attacker`` up to
battles of 1,000,000 creatures, drawn in seeded blocks small enough to keep a chunk's memory
flat; the former SPECs drawn exactly as before; the decision search refusing such boards at
once, with their size."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli

from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.seeded_blocks import BLOCK, battles_per_block
from ecs_combat.simulation.simulate import default_chunk_size, make_engine, max_chunk_size, simulate
from ecs_combat.simulation.spec import MAX_BATTLE_CREATURES
from ecs_combat.simulation.spec_reader import parse_spec


def test_a_spec_within_the_former_limits_keeps_blocks_of_1024_battles(registry: Registry) -> None:
    """64 attackers and 16 blockers each (1,088 creatures) were the most a SPEC could ask:
    such SPECs keep their seeded blocks, so a seed draws the battles it always drew."""
    for doc in ({"attackers": 64, "blockers_per_attacker": 16}, {"attackers": [1, 4]}):
        assert battles_per_block(parse_spec(doc, registry)) == BLOCK == 1024


def test_a_large_spec_draws_blocks_of_at_most_65536_creatures(registry: Registry) -> None:
    """5,000 attackers and 1 blocker each: 10,000 creatures a battle, 65,536 // 10,000 = 6
    battles a block; 500,000 attackers and 1 blocker each: one battle a block."""
    spec = parse_spec({"attackers": 5_000, "blockers_per_attacker": 1}, registry)
    assert battles_per_block(spec) == 6
    assert default_chunk_size(spec, "batched") == 12  # ceil(65,536 / 10,000 / 6) = 2 blocks
    assert max_chunk_size(spec) == 204  # 2,097,152 / 10,000 = 209 battles: 34 whole blocks
    huge = parse_spec({"attackers": 500_000, "blockers_per_attacker": 1}, registry)
    assert battles_per_block(huge) == 1 and default_chunk_size(huge, "batched") == 1


def test_a_large_battle_is_drawn_whole_and_the_same_whatever_the_chunks(
    registry: Registry,
) -> None:
    """2,000 attackers, each with exactly one blocker: every battle has 4,000 creatures, half
    of them attacking; battles 0-9 drawn at once or in three ranges across blocks (16 battles
    a block) are the same battles."""
    spec = parse_spec({"attackers": 2_000, "blockers_per_attacker": 1}, registry)
    assert battles_per_block(spec) == 16
    gen = make_generator(spec, registry)
    whole = draw_battles(gen, 3, 10, 40).batch
    assert whole.n_battles == 30 and whole.n_creatures == 30 * 4_000
    assert int((whole.attacking >= 0).sum()) == 30 * 2_000
    parts = [draw_battles(gen, 3, a, b).batch for a, b in ((10, 15), (15, 33), (33, 40))]
    for name in ("power", "toughness", "attacking"):
        joined = np.concatenate(
            [getattr(p, name) >= 0 if name == "attacking" else getattr(p, name) for p in parts]
        )
        expected = getattr(whole, name)
        assert np.array_equal(joined, expected >= 0 if name == "attacking" else expected), name


def test_a_large_spec_simulates_the_same_whatever_the_chunk_size(registry: Registry) -> None:
    """Results do not depend on the chunk size: one chunk of 30 battles or chunks of 7 (not
    whole blocks) tally the same battles, 3,000 creatures each."""
    spec = parse_spec(
        {"attackers": 1_500, "blockers_per_attacker": 1, "keywords": {"first strike": 0.2}},
        registry,
    )
    engine = make_engine("batched", registry)
    gen = make_generator(spec, registry)
    runs = [simulate(gen, "batched", engine, 5, 30, size).tally for size in (30, 7)]
    assert runs[0].battles == runs[1].battles == 30
    assert runs[0].creatures == runs[1].creatures == 30 * 3_000
    counts = [{k: v.tolist() for k, v in run.counts.items()} for run in runs]
    assert counts[0] == counts[1]


def test_a_battle_over_a_million_creatures_is_refused_with_its_size(registry: Registry) -> None:
    with pytest.raises(InputError) as exc:
        parse_spec({"attackers": 600_000, "blockers_per_attacker": [0, 1]}, registry, "s.toml")
    assert str(exc.value) == (
        "s.toml: attackers: its largest battle would have 1,200,000 creatures (600,000 "
        "attackers and up to 1 blockers per attacker); a battle has at most 1,000,000"
    )
    assert MAX_BATTLE_CREATURES == 1_000_000
    parse_spec({"attackers": 500_000, "blockers_per_attacker": 1}, registry)  # exactly 10^6


def test_the_decision_search_refuses_a_large_spec_at_once(registry: Registry) -> None:
    """A board of 1,000,000 creatures: refused by its size, without counting its
    declarations (a number of some 300,000 digits)."""
    began = time.process_time()
    with pytest.raises(InputError) as exc:
        parse_spec(
            {"attackers": 500_000, "blockers_per_attacker": 1, "decisions": "optimal"},
            registry,
            "s.toml",
        )
    assert time.process_time() - began < 5  # counting would not end
    assert str(exc.value) == (
        's.toml: decisions: "optimal" is refused for this SPEC: its largest battle has '
        "1,000,000 creatures (500,000 attackers and up to 1 blockers per attacker); decisions "
        "search boards of at most 1,000 creatures: draw fewer attackers or blockers_per_attacker"
    )


def test_simulate_runs_a_spec_of_large_battles(tmp_path: Path) -> None:
    """The command: 3 battles of 20,000 creatures, each attacker blocked by one 1/1 of the
    defending player; 1/1 attackers and blockers trade, so both sides lose every creature."""
    path = tmp_path / "large.toml"
    path.write_text(
        "attackers = 10000\nblockers_per_attacker = 1\npower = 1\ntoughness = 1\nlife = 1000000\n"
    )
    out = run_cli(["simulate", str(path), "-n", "3", "--seed", "1", "--json"])
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    (row,) = doc["matchups"]
    assert (row["battles"], row["trades"], row["damage_to_players"]) == (3, 3, 0)
    assert row["attackers_died"] == row["blockers_died"] == 30_000
    assert doc["creatures"] == 60_000
