"""The engines checked against each other on one document."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.loader import parse_scenario
from ecs_combat.scenario.turn_loader import parse_turn
from ecs_combat.testing.drawing import copy_document
from ecs_combat.testing.kernels import assert_kernel_agrees
from ecs_combat.testing.registries import engines_for

if TYPE_CHECKING:
    from hypothesis import settings

#: How many drawn scenarios an engine-agreement property tries by default: the audit of
#: issue 30 found nothing with 40 where 200 found 45 disagreements.
AGREEMENT_EXAMPLES = 200


def agreement_settings(max_examples: int = AGREEMENT_EXAMPLES) -> settings:
    """Hypothesis settings for an engine-agreement property: `max_examples` drawn documents
    (default :data:`AGREEMENT_EXAMPLES`), no deadline (the engines are built at the first)."""
    import hypothesis

    return hypothesis.settings(max_examples=max_examples, deadline=None)


def _outcome(run: Callable[[], dict[str, Any]]) -> Any:
    try:
        return run()
    except InputError as exc:
        return ("InputError", str(exc))
    except RefusedError as exc:
        return ("refused", str(exc))


def resolve_both(
    registry: Registry, doc: dict[str, Any], file: str = "scenario.toml"
) -> tuple[Any, Any]:
    """The ``resolve --json`` document of a scenario document on the reference engine and on
    the batched engine; an input error found as it resolves is ``("InputError", message)``, a
    refusal of the batched engine ``("refused", message)``. An invalid document raises the
    loader's :class:`InputError`."""
    scenario = parse_scenario(copy_document(doc), registry, file)
    reference, batched = engines_for(registry)
    return (
        _outcome(lambda: reference.resolve(scenario).to_json()),
        _outcome(lambda: batched.resolve_many([scenario])[0].to_json()),
    )


def assert_engines_agree(
    registry: Registry, doc: dict[str, Any], file: str = "scenario.toml", refusal_ok: bool = False
) -> Any:
    """Resolve a scenario document on both engines and fail unless they give the same
    ``resolve --json`` document, or the same input error. A refusal of the batched engine
    fails too, unless `refusal_ok`. Where the plugin set's compiled kernel resolves the
    scenario, its outcome must be the reference engine's too (:func:`assert_kernel_agrees`).
    Returns the reference engine's outcome."""
    out = check_agreement(doc, *resolve_both(registry, doc, file), refusal_ok)
    if not (isinstance(out, tuple) and out[0] == "InputError"):
        assert_kernel_agrees(registry, doc, file)
    return out


def check_agreement(doc: dict[str, Any], ref: Any, bat: Any, refusal_ok: bool) -> Any:
    """Fail unless the two outcomes are equal (a refusal of the batched engine fails too,
    unless `refusal_ok`); return the reference engine's."""
    if isinstance(bat, tuple) and bat[0] == "refused":
        if refusal_ok:
            return ref
        raise AssertionError(f"the batched engine refuses the document: {bat[1]}")
    if ref != bat:
        raise AssertionError(
            "the engines disagree on\n"
            + json.dumps(doc, indent=1)
            + f"\nreference: {json.dumps(ref)}\nbatched:   {json.dumps(bat)}"
        )
    return ref


def resolve_turn_both(
    registry: Registry, doc: dict[str, Any], file: str = "turn.toml"
) -> tuple[Any, Any]:
    """The ``resolve --json`` document of a turn document on the reference engine and on the
    batched engine, as :func:`resolve_both` does for a scenario."""
    turn = parse_turn(copy_document(doc), registry, file)
    reference, batched = engines_for(registry)
    return (
        _outcome(lambda: reference.resolve_turn(turn).to_json()),
        _outcome(lambda: batched.resolve_turns([turn])[0].to_json()),
    )


def assert_turn_engines_agree(
    registry: Registry, doc: dict[str, Any], file: str = "turn.toml", refusal_ok: bool = False
) -> Any:
    """Resolve a turn document on both engines and fail unless they give the same
    ``resolve --json`` document, or the same input error, as :func:`assert_engines_agree`
    does for a scenario. Returns the reference engine's outcome."""
    return check_agreement(doc, *resolve_turn_both(registry, doc, file), refusal_ok)
