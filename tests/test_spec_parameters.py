"""SPEC files: a keyword that takes a parameter is refused with a message, never drawn without
it (``bushido = 1.0`` used to give the same totals as ``bushido = 0``)."""

from __future__ import annotations

import pytest

from ecs_combat import InputError, Registry
from ecs_combat.simulation.spec_reader import parse_spec


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("bushido", "'bushido' takes a number ('bushido 2')"),
        ("bushido 2", "'bushido' takes a number"),
        ("frenzy 1", "'frenzy' takes a number"),
        ("protection from red", "'protection' takes a color ('protection from red')"),
        ("protection from creatures", "'protection' takes a color ('protection from red')"),
        ("protection from everything", "'protection' takes a color"),
    ],
)
def test_a_keyword_with_a_parameter_is_refused_naming_it(
    registry: Registry, key: str, words: str
) -> None:
    with pytest.raises(InputError) as info:
        parse_spec({"keywords": {key: 1.0}}, registry, "s.toml")
    message = str(info.value)
    assert f"keywords.{key}" in message
    assert words in message
    assert "draws keywords without parameters only" in message


def test_keywords_without_parameters_are_still_drawn(registry: Registry) -> None:
    spec = parse_spec({"keywords": {"trample": 0.5, "battle cry": 0.25}}, registry, "s.toml")
    assert dict(spec.attacker.keywords) == {"trample": 0.5, "battle cry": 0.25}


def test_a_misspelt_keyword_is_still_an_unknown_keyword(registry: Registry) -> None:
    with pytest.raises(InputError, match="bushidoo"):
        parse_spec({"keywords": {"bushidoo 2": 1.0}}, registry, "s.toml")
