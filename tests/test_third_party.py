"""A third-party keyword plugin: alpha strike (examples/alpha-strike, Unfinity).

"This creature has first strike as long as it is blocking or blocked by a creature whose name
comes later alphabetically (numbers before letters; spaces and punctuation ignored)." The
package is installed by the README's test command; without it these tests are skipped.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sysconfig
import tomllib
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import BUNDLED_PLUGINS, Resolve, dealt, step_names
from hypothesis import given
from hypothesis import strategies as st

from ecs_combat import (
    Card,
    DamageStep,
    Keyword,
    PluginError,
    TargetRule,
    hookimpl,
    load_registry,
    parse_scenario,
)
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.plugin import hookspecs
from ecs_combat.plugin.loading import DISABLE_AUTOLOAD_ENV, PLUGINS_ENV
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine

alpha = pytest.importorskip(
    "ecs_combat_alpha_strike",
    reason="the example plugin is not installed: pip install ./examples/alpha-strike",
)

DISTRIBUTION = "ecs-combat-alpha-strike"


# -- helpers ----------------------------------------------------------------------------------


def ecs_combat(
    *args: str, tmp_path: Path, scenario: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``ecs-combat`` command (with a scenario file written to tmp_path)."""
    script = Path(sysconfig.get_path("scripts")) / "ecs-combat"
    if not script.exists():
        pytest.fail(f"the ecs-combat command is not installed next to the interpreter: {script}")
    argv = [str(script), *args]
    if scenario is not None:
        path = tmp_path / "scenario.toml"
        path.write_text(scenario, encoding="utf-8")
        argv.append(str(path))
    clean = {k: v for k, v in os.environ.items() if k not in (DISABLE_AUTOLOAD_ENV, PLUGINS_ENV)}
    return subprocess.run(
        argv, capture_output=True, text=True, env={**clean, **(env or {})}, timeout=120
    )


def duel(attacker: str, blocker: str, alpha_on: str = "attacker", events: str = "") -> str:
    """A 2/2 attacker blocked by a 2/2 blocker, one of them (`alpha_on`) with alpha strike."""
    keywords = {"attacker": "", "blocker": ""}
    keywords[alpha_on] = 'keywords = ["alpha strike"]'
    return f"""
[players.A]
[players.B]
[creatures.attacker]
name = "{attacker}"
controller = "A"
power = 2
toughness = 2
{keywords["attacker"]}
[creatures.blocker]
name = "{blocker}"
controller = "B"
power = 2
toughness = 2
{keywords["blocker"]}
[combat]
attackers = {{ attacker = "B" }}
blockers = {{ blocker = "attacker" }}
{events}
"""


def assert_first_strike_kill(out: dict[str, Any], striker: str, victim: str) -> None:
    """`striker` dealt first-strike damage, killed `victim`, and took nothing back."""
    assert step_names(out) == ["first-strike", "regular"]
    assert dealt(out, "first-strike") == {(striker, victim, 2)}
    assert dealt(out, "regular") == set()
    assert out["creatures"][victim]["alive"] is False
    assert out["creatures"][striker] == {
        "alive": True,
        "damage": 0,
        "power": 2,
        "toughness": 2,
        "counters": {},
    }


def assert_trade(out: dict[str, Any]) -> None:
    """No first-strike step: both deal regular damage and both die."""
    assert step_names(out) == ["regular"]
    assert dealt(out, "regular") == {("attacker", "blocker", 2), ("blocker", "attacker", 2)}
    assert not out["creatures"]["attacker"]["alive"]
    assert not out["creatures"]["blocker"]["alive"]


# -- the installed command ------------------------------------------------------------------------


def test_plugins_json_lists_alpha_strike_with_distribution_and_version(tmp_path: Path) -> None:
    """CONTRACT.md section 4: `plugins` names the plugin's distribution and version."""
    run = ecs_combat("plugins", "--json", tmp_path=tmp_path)
    assert run.returncode == 0, run.stderr
    plugins = {p["name"]: p for p in json.loads(run.stdout)}
    assert plugins["alpha_strike"] == {
        "name": "alpha_strike",
        "distribution": DISTRIBUTION,
        "version": metadata.version(DISTRIBUTION),
        "module": "ecs_combat_alpha_strike",
        "keywords": ["alpha strike"],
        "parameters": {"alpha strike": None},
        "steps": [],
        "cards": [],
        "systems": [],
        "state": [],
    }


def test_plugins_table_lists_alpha_strike(tmp_path: Path) -> None:
    """The readable listing shows the plugin and its keyword too."""
    run = ecs_combat("plugins", tmp_path=tmp_path, env={"COLUMNS": "200"})
    assert run.returncode == 0, run.stderr
    row = next(line for line in run.stdout.splitlines() if "alpha_strike" in line)
    assert DISTRIBUTION in row
    assert "alpha strike" in row


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_later_blocker_name_gives_first_strike(tmp_path: Path, engine: str) -> None:
    """Alpha strike: Aardvark blocked by Zebra has first strike and kills it first (510.4)."""
    run = ecs_combat(
        "resolve",
        "--engine",
        engine,
        "--json",
        tmp_path=tmp_path,
        scenario=duel("Aardvark", "Zebra"),
    )
    assert run.returncode == 0, run.stderr
    assert_first_strike_kill(json.loads(run.stdout), "attacker", "blocker")


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_earlier_blocker_name_gives_nothing(tmp_path: Path, engine: str) -> None:
    """Alpha strike: Zebra blocked by Aardvark has no first strike: both strike at once."""
    run = ecs_combat(
        "resolve",
        "--engine",
        engine,
        "--json",
        tmp_path=tmp_path,
        scenario=duel("Zebra", "Aardvark"),
    )
    assert run.returncode == 0, run.stderr
    assert_trade(json.loads(run.stdout))


@pytest.mark.parametrize(
    ("attacker", "blocker", "first_strike"),
    [
        ("Goblin 2", "Goblin-A", True),  # "goblin2" < "goblina": numbers before letters
        ("Goblin-A", "Goblin 2", False),
        ("Goblin A", "Goblin 2", False),  # the space and the hyphen are both ignored
    ],
)
def test_numbers_before_letters_punctuation_ignored(
    tmp_path: Path, attacker: str, blocker: str, first_strike: bool
) -> None:
    """Alpha strike: digits sort before letters; spaces and punctuation don't count."""
    run = ecs_combat("resolve", "--json", tmp_path=tmp_path, scenario=duel(attacker, blocker))
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    if first_strike:
        assert_first_strike_kill(out, "attacker", "blocker")
    else:
        assert_trade(out)


def test_blocked_plugin_makes_the_keyword_an_input_error(tmp_path: Path) -> None:
    """`-p no:alpha_strike`: a scenario using the keyword is an input error naming it (exit 2)."""
    run = ecs_combat(
        "-p", "no:alpha_strike", "resolve", tmp_path=tmp_path, scenario=duel("Aardvark", "Zebra")
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert "creatures.attacker.keywords[0]" in run.stderr
    assert "'alpha strike'" in run.stderr
    assert "'alpha_strike' is blocked" in run.stderr
    assert "Traceback" not in run.stderr


def test_missing_first_strike_makes_alpha_strike_an_input_error(tmp_path: Path) -> None:
    """Alpha strike requires first strike: with it blocked, the message names both (exit 2)."""
    run = ecs_combat(
        "-p", "no:first strike", "resolve", tmp_path=tmp_path, scenario=duel("Aardvark", "Zebra")
    )
    assert run.returncode == 2
    assert "keyword 'alpha strike' (plugin 'alpha_strike') is unavailable" in run.stderr
    assert "'first strike'" in run.stderr
    assert "'first_strike' is blocked" in run.stderr
    assert "Traceback" not in run.stderr


def test_explicit_loading_without_autoload(tmp_path: Path) -> None:
    """ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD=1 with `-p MODULE`: exactly those plugins load."""
    options = ["-p", "ecs_combat_alpha_strike", "-p", "ecs_combat_keywords.first_strike"]
    env = {DISABLE_AUTOLOAD_ENV: "1"}
    listing = ecs_combat(*options, "plugins", "--json", tmp_path=tmp_path, env=env)
    assert listing.returncode == 0, listing.stderr
    plugins = {p["name"]: p for p in json.loads(listing.stdout)}
    assert set(plugins) == {"ecs_combat_alpha_strike", "ecs_combat_keywords.first_strike"}
    assert plugins["ecs_combat_alpha_strike"]["distribution"] == DISTRIBUTION
    assert plugins["ecs_combat_alpha_strike"]["version"] == metadata.version(DISTRIBUTION)

    run = ecs_combat(
        *options,
        "resolve",
        "--json",
        tmp_path=tmp_path,
        env=env,
        scenario=duel("Aardvark", "Zebra"),
    )
    assert run.returncode == 0, run.stderr
    assert_first_strike_kill(json.loads(run.stdout), "attacker", "blocker")


def test_explicit_loading_without_first_strike_names_it(tmp_path: Path) -> None:
    """Alpha strike loaded alone: a scenario using it says that first strike is missing."""
    run = ecs_combat(
        "-p",
        "ecs_combat_alpha_strike",
        "resolve",
        tmp_path=tmp_path,
        env={DISABLE_AUTOLOAD_ENV: "1"},
        scenario=duel("Aardvark", "Zebra"),
    )
    assert run.returncode == 2
    assert "it requires unknown keyword 'first strike': no loaded plugin provides it" in run.stderr


def test_explicitly_loading_an_autoloaded_plugin_is_harmless(tmp_path: Path) -> None:
    """`-p MODULE` for a plugin its entry point already loaded registers it once, not twice."""
    run = ecs_combat("-p", "ecs_combat_alpha_strike", "plugins", "--json", tmp_path=tmp_path)
    assert run.returncode == 0, run.stderr
    names = [p["name"] for p in json.loads(run.stdout)]
    assert names.count("alpha_strike") == 1
    assert "ecs_combat_alpha_strike" not in names


# -- rules and decisions, in-process, on both engines --------------------------------------------


@pytest.fixture(scope="module")
def registry() -> Registry:
    """The bundled plugins and the example alpha-strike plugin, loaded explicitly."""
    return load_registry(load=[*BUNDLED_PLUGINS.values(), alpha.__name__], autoload=False)


@pytest.fixture(scope="module")
def both(registry: Registry) -> Resolve:
    """Resolve a TOML scenario with the reference and the batched engine; they must agree."""
    reference = ReferenceEngine(registry)
    batched = BatchedEngine(registry)

    def run(text: str) -> dict[str, Any]:
        scenario = parse_scenario(tomllib.loads(text), registry, "test.toml")
        out = reference.resolve(scenario).to_json()
        assert batched.resolve(scenario).to_json() == out
        return out

    return run


def test_blocker_with_alpha_strike_gets_first_strike(both: Resolve) -> None:
    """Alpha strike works while blocking: Ant blocks Bear and strikes first."""
    out = both(duel("Bear", "Ant", alpha_on="blocker"))
    assert_first_strike_kill(out, "blocker", "attacker")


def test_equal_names_give_nothing(both: Resolve) -> None:
    """Decision: names equal once case, spaces and punctuation are ignored: neither is later."""
    assert_trade(both(duel("Goblin-A", "goblin a")))


def test_case_is_ignored(both: Resolve) -> None:
    """Decision: case-insensitive, so "aardvark" still comes before "Zebra" (and "B" after "a")."""
    assert_first_strike_kill(both(duel("zebra", "ZEBRA'S BANE")), "attacker", "blocker")
    assert_trade(both(duel("b", "A")))


def test_digits_compare_character_by_character(both: Resolve) -> None:
    """Decision: dictionary order, digit by digit: "Goblin 10" comes before "Goblin 9"."""
    assert_first_strike_kill(both(duel("Goblin 10", "Goblin 9")), "attacker", "blocker")


def test_one_later_blocker_among_several_is_enough(both: Resolve) -> None:
    """Decision: blocked by Aardvark and Zebra, Mole has first strike (Zebra comes later)."""
    out = both(
        """
[players.A]
[players.B]
[creatures.mole]
name = "Mole"
controller = "A"
power = 4
toughness = 3
keywords = ["alpha strike"]
[creatures.aardvark]
name = "Aardvark"
controller = "B"
power = 2
toughness = 2
[creatures.zebra]
name = "Zebra"
controller = "B"
power = 2
toughness = 2
[combat]
attackers = { mole = "B" }
blockers = { aardvark = "mole", zebra = "mole" }
"""
    )
    assert step_names(out) == ["first-strike", "regular"]
    assert dealt(out, "first-strike") == {("mole", "aardvark", 2), ("mole", "zebra", 2)}
    assert dealt(out, "regular") == set()
    assert out["creatures"]["mole"]["alive"]


def test_removed_first_strike_is_not_given_back(both: Resolve) -> None:
    """613.7: an effect that removed first strike beats alpha strike's static ability."""
    events = """
[[events]]
at = "declare-blockers"
action = "remove"
target = "attacker"
keywords = ["first strike"]
"""
    assert_trade(both(duel("Aardvark", "Zebra", events=events)))


def test_removed_alpha_strike_gives_nothing(both: Resolve) -> None:
    """Losing alpha strike itself ends its effect before the first-strike step (510.4)."""
    events = """
[[events]]
at = "declare-blockers"
action = "remove"
target = "attacker"
keywords = ["alpha strike"]
"""
    assert_trade(both(duel("Aardvark", "Zebra", events=events)))


def test_blocker_removed_from_combat_no_longer_counts(both: Resolve) -> None:
    """Decision: only creatures still blocking count; a blocked attacker facing none gets
    nothing, and stays blocked (509.1h: no damage to the player)."""
    events = """
[[events]]
at = "declare-blockers"
action = "remove-from-combat"
target = "blocker"
"""
    out = both(duel("Aardvark", "Zebra", events=events))
    assert step_names(out) == ["regular"]
    assert dealt(out, "regular") == set()


def test_granted_alpha_strike_works(both: Resolve) -> None:
    """Alpha strike gained at declare-blockers gives first strike as the step begins (510.4)."""
    scenario = duel("Aardvark", "Zebra").replace('keywords = ["alpha strike"]', "")
    events = """
[[events]]
at = "declare-blockers"
action = "grant"
target = "attacker"
keywords = ["alpha strike"]
"""
    assert_first_strike_kill(both(scenario + events), "attacker", "blocker")


def test_one_batch_of_many_battles_agrees_with_reference(registry: Registry) -> None:
    """static_keywords_batch over several battles at once: the same results, battle by battle."""
    texts = [
        duel("Aardvark", "Zebra"),
        duel("Zebra", "Aardvark"),
        duel("Goblin 2", "Goblin-A"),
        duel("Goblin-A", "goblin a"),
        duel("Bear", "Ant", alpha_on="blocker"),
        duel("Ant", "Bear", alpha_on="blocker"),
    ]
    scenarios = [
        parse_scenario(tomllib.loads(t), registry, f"s{i}.toml") for i, t in enumerate(texts)
    ]
    batched = [r.to_json() for r in BatchedEngine(registry).resolve_many(scenarios)]
    reference = [r.to_json() for r in ReferenceEngine(registry).resolve_many(scenarios)]
    assert batched == reference
    assert [step_names(out) for out in batched] == [
        ["first-strike", "regular"],
        ["regular"],
        ["first-strike", "regular"],
        ["regular"],
        ["first-strike", "regular"],
        ["regular"],
    ]


# -- the registry ---------------------------------------------------------------------------------


def test_registry_makes_alpha_strike_unavailable_without_first_strike() -> None:
    """Keyword.requires: a keyword whose requirement is missing is left out, with the reason."""
    registry = load_registry(block=["first strike"])
    assert registry.keyword("alpha strike") is None
    assert registry.unknown_keyword_reason("Alpha  Strike") == (
        "keyword 'alpha strike' (plugin 'alpha_strike') is unavailable: it requires "
        "unknown keyword 'first strike': its plugin 'first_strike' is blocked"
    )


def test_requirements_are_followed_transitively() -> None:
    """A keyword requiring an unavailable keyword is unavailable too, and says why."""

    class Needy:
        @hookimpl
        def register_keywords(self) -> list[Keyword]:
            return [Keyword("needy", requires=frozenset({"alpha strike"}))]

    registry = load_registry(load=["ecs_combat_alpha_strike"], autoload=False, extra=[Needy()])
    assert registry.keyword("needy") is None
    assert registry.unknown_keyword_reason("needy") == (
        "keyword 'needy' (plugin 'Needy') is unavailable: it requires keyword 'alpha strike' "
        "(plugin 'ecs_combat_alpha_strike') is unavailable: it requires unknown keyword "
        "'first strike': no loaded plugin provides it"
    )


# -- the hooks, directly --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Goblin-A", "goblina"),
        ("Goblin 2", "goblin2"),
        ("Æther Adept", "ætheradept"),  # æ is a letter of its own
        ("Jötun Grunt", "jotungrunt"),  # accents folded
        ("Who // What", "whowhat"),
        ("Ⅻ", "xii"),  # compatibility forms folded
        ("!!!", ""),
    ],
)
def test_name_key(name: str, key: str) -> None:
    """Alpha strike reads only letters and digits, case and accents folded."""
    assert alpha.name_key(name) == key


class FakeBatch:
    """A :class:`ecs_combat.plugin.views.BatchView` over given rows and block pairs."""

    def __init__(
        self, names: Sequence[str], alpha_rows: Sequence[int], pairs: Sequence[tuple[int, int]]
    ):
        self._names = list(names)
        self._alpha = np.zeros(len(names), dtype=np.bool_)
        self._alpha[list(alpha_rows)] = True
        self._pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)

    def has(self, keyword: str) -> Any:
        return self._alpha.copy() if keyword == "alpha strike" else np.zeros(self.rows, np.bool_)

    def name_keys(self) -> list[str]:
        return self._names

    def block_pairs(self) -> tuple[Any, Any]:
        return self._pairs[:, 0].copy(), self._pairs[:, 1].copy()

    @property
    def rows(self) -> int:
        return len(self._names)


class FakeCombat:
    """A :class:`ecs_combat.plugin.views.CombatView` over the same rows (ids are row numbers)."""

    def __init__(self, batch: FakeBatch) -> None:
        self.batch = batch

    def creatures_with(self, keyword: str) -> list[str]:
        return [str(r) for r in np.flatnonzero(self.batch.has(keyword))]

    def name(self, creature: str) -> str:
        return self.batch.name_keys()[int(creature)]

    def blocking(self, creature: str) -> list[str]:
        return [str(a) for b, a in self.batch._pairs if b == int(creature)]

    def blocked_by(self, creature: str) -> list[str]:
        return [str(b) for b, a in self.batch._pairs if a == int(creature)]


def batch_given(batch: FakeBatch) -> set[int]:
    """Rows the batch hook gives first strike."""
    masks = alpha.static_keywords_batch(batch=batch)
    assert set(masks) <= {"first strike"}
    if not masks:
        return set()
    mask = masks["first strike"]
    assert mask.dtype == np.bool_
    assert mask.shape == (batch.rows,)
    return {int(r) for r in np.flatnonzero(mask)}


def reference_given(batch: FakeBatch) -> set[int]:
    """Rows the reference hook gives first strike."""
    given = alpha.static_keywords(combat=FakeCombat(batch))
    assert all(kws == {"first strike"} for kws in given.values())
    return {int(c) for c in given}


def test_batch_hook_over_two_battles() -> None:
    """static_keywords_batch: one mask over every block pair of the batch."""
    names = [
        # battle 0: an alpha attacker blocked by an earlier and a later name
        "Mole", "Aardvark", "Zebra",
        # battle 1: an alpha blocker blocking two attackers, one later; an equal-name pair
        "Goblin 2", "Goblin-A", "Goblin 10", "Elf", "ELF!",
        # battle 2: a later blocker, but the attacker has no alpha strike
        "Ant", "Bee",
    ]  # fmt: skip
    pairs = [(1, 0), (2, 0), (3, 4), (3, 5), (7, 6), (9, 8)]
    batch = FakeBatch(names, alpha_rows=[0, 3, 6], pairs=pairs)
    assert batch_given(batch) == {0, 3}
    assert reference_given(batch) == {0, 3}


def test_batch_hook_gives_nothing_without_blocks_or_alpha_strike() -> None:
    """No block pairs, or no creature with alpha strike: an empty answer."""
    assert batch_given(FakeBatch(["Aardvark", "Zebra"], alpha_rows=[0], pairs=[])) == set()
    assert batch_given(FakeBatch(["Aardvark", "Zebra"], alpha_rows=[], pairs=[(1, 0)])) == set()
    assert batch_given(FakeBatch([], alpha_rows=[], pairs=[])) == set()


NAMES = st.text(alphabet="abAB12 -'éÉ", max_size=4)


@given(
    st.lists(NAMES, min_size=2, max_size=10).flatmap(
        lambda names: st.tuples(
            st.just(names),
            st.sets(st.integers(0, len(names) - 1)),
            st.lists(st.tuples(st.integers(0, len(names) - 1), st.integers(0, len(names) - 1))),
        )
    )
)
def test_batch_hook_agrees_with_reference_hook(
    case: tuple[list[str], set[int], list[tuple[int, int]]],
) -> None:
    """Both hooks give first strike to the same creatures, whatever the names and blocks."""
    names, alpha_rows, pairs = case
    batch = FakeBatch(names, sorted(alpha_rows), [(b, a) for b, a in pairs if b != a])
    assert batch_given(batch) == reference_given(batch)


def test_unknown_hook_is_reported_by_plugin_name() -> None:
    """A misspelt hook is a plugin error naming the plugin, the hook and the real hooks."""

    class Typo:
        @hookimpl
        def register_keyword(self) -> list[Keyword]:
            return []

    with pytest.raises(PluginError) as err:
        load_registry(autoload=False, extra=[Typo()])
    assert str(err.value).startswith(
        "plugin 'Typo' implements unknown hook(s) ['register_keyword']"
    )
    assert "register_keywords" in str(err.value)


# -- the documentation ----------------------------------------------------------------------------


DOCS = Path(__file__).parent.parent / "docs" / "plugins.md"


@pytest.mark.parametrize(
    ("kind", "prefix"),
    [(Keyword, ""), (DamageStep, ""), (Card, "Card."), (TargetRule, "TargetRule.")],
)
def test_docs_describe_every_declarative_field(kind: type[Any], prefix: str) -> None:
    """docs/plugins.md has a table row for every field plugins can set."""
    text = DOCS.read_text(encoding="utf-8")
    for f in dataclasses.fields(kind):
        assert f"| `{prefix}{f.name}` |" in text, f.name


def test_docs_describe_every_hook() -> None:
    """docs/plugins.md has a table row for every hook specification."""
    text = DOCS.read_text(encoding="utf-8")
    for name, _ in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(getattr(hookspecs, name), "ecs_combat_spec"):
            assert f"| `{name}(" in text, name
