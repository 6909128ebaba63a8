"""The plugin test kit (ecs_combat.testing) on every bundled keyword: random legal scenarios
using it resolve identically on both engines, and the kit's strategy does what it says (legal
documents, parameters drawn, most battles deal damage)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import ecs_combat.testing as kit
from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.testing import (
    assert_engines_agree,
    bundled_plugins,
    registry_with,
    resolve_both,
    scenarios,
)

REGISTRY = registry_with()
#: Every bundled keyword, read from the registry: a plugin added later is tested too.
#: The kit draws blocks by the restrictions; keywords with block requirements (lure) are
#: tested by tests/test_requirements.py instead.
REQUIRED = {r.keyword for r in REGISTRY.restrictions_of("block-requirement")}
KEYWORDS = sorted(k for k in REGISTRY.keywords if k not in REQUIRED)
KIT = settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_engines_agree_on_scenarios_using_each_keyword(keyword: str) -> None:
    """CONTRACT.md 2, per keyword: its batched form gives what its reference form gives."""

    @KIT
    @given(scenarios(REGISTRY, keywords=[keyword]))
    def check(doc: dict[str, Any]) -> None:
        assert_engines_agree(REGISTRY, doc)

    check()


@KIT
@given(scenarios(REGISTRY))
def test_engines_agree_on_scenarios_mixing_every_keyword(doc: dict[str, Any]) -> None:
    """CONTRACT.md 2, with the keywords together."""
    assert_engines_agree(REGISTRY, doc)


def test_the_registry_fixture_holds_the_bundled_plugins(ecs_combat_registry: Registry) -> None:
    """The fixture loads exactly the bundled plugins (plus none under test here)."""
    assert {p.name for p in ecs_combat_registry.plugins} == set(bundled_plugins().values())


def test_registry_with_adds_the_plugin_under_test() -> None:
    reg = registry_with("ecs_combat_alpha_strike")
    assert "alpha strike" in reg.keywords
    assert "alpha strike" not in REGISTRY.keywords


def test_generated_documents_are_legal_and_mostly_deal_damage() -> None:
    """Every generated document loads (legal attacks and blocks by the registry's rules), and
    at least 80% of them deal combat damage."""
    seen: list[bool] = []

    @settings(KIT, max_examples=150)
    @given(scenarios(REGISTRY))
    def record(doc: dict[str, Any]) -> None:
        parse_scenario(doc, REGISTRY, "kit.toml")
        ref, _ = resolve_both(REGISTRY, doc)
        seen.append(isinstance(ref, dict) and any(s["damage"] for s in ref["steps"]))

    record()
    assert sum(seen) >= 0.8 * len(seen)


def test_parameters_are_drawn_for_keywords_that_take_one() -> None:
    """A color keyword is written ``protection from <color>``, a number one ``<name> N``."""
    texts: set[str] = set()
    by_kind = {
        kind: [k for k in KEYWORDS if REGISTRY.keywords[k].parameter == kind]
        for kind in ("color", "number")
    }
    wanted = [k for ks in by_kind.values() for k in ks[:1]]
    if not wanted:
        pytest.skip("no bundled keyword takes a parameter")

    @settings(KIT, max_examples=60)
    @given(scenarios(REGISTRY, keywords=wanted))
    def record(doc: dict[str, Any]) -> None:
        for table in doc["creatures"].values():
            texts.update(table.get("keywords", []))

    record()
    for k in by_kind["color"][:1]:
        assert any(t.startswith(f"{k} from ") for t in texts)
    for k in by_kind["number"][:1]:
        assert any(t.startswith(f"{k} ") and t.split()[-1].isdigit() for t in texts)


def test_unknown_keywords_are_refused() -> None:
    with pytest.raises(ValueError, match="flyng"):
        scenarios(REGISTRY, keywords=["flyng"])


def test_the_pytest_plugin_loads_without_hypothesis() -> None:
    """The kit is loaded by every pytest run where ecs-combat is installed: its import must
    not need Hypothesis (only drawing scenarios does)."""
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "import ecs_combat.testing as kit\n"
        "assert kit.registry_with().keywords\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_a_disagreement_fails_with_both_documents() -> None:
    """The check can fail: a doctored batched document is reported."""
    doc = {
        "players": {"A": {}, "B": {}},
        "creatures": {"bear": {"controller": "A", "power": 2, "toughness": 2}},
        "combat": {"attackers": {"bear": "B"}},
    }
    ref, bat = resolve_both(REGISTRY, doc)
    assert ref == bat and ref["players"]["B"]["life"] == 18
    _, batched = kit._engines_of(REGISTRY)
    original = batched.resolve_many

    class Doctored:
        def __init__(self, result: Any) -> None:
            self.result = result

        def to_json(self) -> dict[str, Any]:
            out: dict[str, Any] = self.result.to_json()
            out["players"]["B"]["life"] += 1
            return out

    def wrong(scenarios: Any) -> Any:
        return [Doctored(r) for r in original(scenarios)]

    batched.resolve_many = wrong  # type: ignore[method-assign]
    try:
        with pytest.raises(AssertionError, match="the engines disagree"):
            assert_engines_agree(REGISTRY, doc)
    finally:
        batched.resolve_many = original  # type: ignore[method-assign]


def test_an_invalid_document_raises_the_loaders_error() -> None:
    doc = {"players": {"A": {}}, "creatures": {}, "combat": {"attackers": {}}}
    with pytest.raises(InputError):
        assert_engines_agree(REGISTRY, doc)
