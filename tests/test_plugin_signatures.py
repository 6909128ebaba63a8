"""The plugin surface says what it takes and gives: no ``Any`` in a public signature of the
names ``ecs_combat`` exports from its plugin modules (contexts, payloads, ``System``, ``Side``,
``EffectTarget``, the hooks' specifications, the declarative fields)."""

from __future__ import annotations

import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable, Iterator

import numpy as np
import numpy.typing as npt

import ecs_combat
from ecs_combat.plugin import hookspecs

#: Where the plugin surface's exported names are defined.
SURFACE = "ecs_combat.plugin."


def _mentions_any(tp: object) -> bool:
    """Whether a resolved annotation is or contains ``Any`` (a numpy array's shape, typed
    ``tuple[Any, ...]`` by numpy itself, is not counted: its dtype is)."""
    if tp is typing.Any:
        return True
    if isinstance(tp, list):  # a callable's parameters
        return any(_mentions_any(a) for a in tp)
    if typing.get_origin(tp) is np.ndarray:
        return _mentions_any(typing.get_args(tp)[1])
    return any(_mentions_any(a) for a in typing.get_args(tp) if a is not Ellipsis)


@functools.cache
def _namespace() -> dict[str, object]:
    """The names annotations may use: those of every loaded ecs_combat module (some are
    imported for the type checker only), numpy's and typing's."""
    out: dict[str, object] = {"np": np, "npt": npt, **vars(typing)}
    for name, module in sorted(sys.modules.items()):
        if name.startswith("ecs_combat") and module is not None:
            out.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
    return out


def _hints(obj: Callable[..., object] | type) -> dict[str, object]:
    return typing.get_type_hints(obj, localns=_namespace())


def _callables(cls: type) -> Iterator[tuple[str, Callable[..., object]]]:
    """A class's public methods, properties' getters, and each overload of ``__init__``."""
    for name, member in vars(cls).items():
        if isinstance(member, property) and member.fget is not None:
            yield name, member.fget
        elif inspect.isfunction(member) and (not name.startswith("_") or name == "__init__"):
            overloads = typing.get_overloads(member)
            for i, f in enumerate(overloads or [member]):
                yield (f"{name}#{i}" if overloads else name), f


def _is_alias(obj: object) -> bool:
    """Whether an exported name is a type alias: a generic type or a union of types."""
    return (
        isinstance(obj, types.UnionType | types.GenericAlias) or typing.get_origin(obj) is not None
    )


def offenders() -> list[str]:
    """Every public signature of the plugin surface that mentions ``Any``."""
    found = []
    exported = {n: getattr(ecs_combat, n) for n in ecs_combat.__all__}
    for name, obj in sorted(exported.items()):
        module = getattr(obj, "__module__", "") or ""
        if ecs_combat._LAZY.get(name, "").startswith(SURFACE) and _is_alias(obj):
            if _mentions_any(obj):  # a type alias (StateArray, Verdict, Where, ...)
                found.append(name)
            continue
        if not module.startswith(SURFACE):
            continue
        if inspect.isclass(obj):
            for attr, tp in _hints(obj).items():
                if not attr.startswith("_") and _mentions_any(tp):
                    found.append(f"{name}.{attr}")
            callables = list(_callables(obj))
        elif inspect.isfunction(obj):
            callables = [("", obj)]
        else:
            continue
        for method, f in callables:
            for arg, tp in _hints(f).items():
                if _mentions_any(tp):
                    found.append(f"{name}.{method}({arg})" if method else f"{name}({arg})")
    for name, f in vars(hookspecs).items():
        if inspect.isfunction(f) and hasattr(f, "ecs_combat_spec"):
            found += [f"hook {name}({a})" for a, tp in _hints(f).items() if _mentions_any(tp)]
    return found


def test_no_public_signature_of_the_plugin_surface_mentions_any() -> None:
    """A plugin author reads types, not ``Any``: contexts, payloads, ``System``, ``Side``,
    ``EffectTarget``, ``Restriction``, the hooks."""
    assert offenders() == []


def test_the_check_finds_any() -> None:
    """The check above can fail: ``Any`` alone, inside a union or a callable, and as a numpy
    array's dtype is found; numpy's own shape type is not."""
    int_rows = np.ndarray[tuple[typing.Any, ...], np.dtype[np.int64]]
    any_rows = np.ndarray[tuple[typing.Any, ...], np.dtype[typing.Any]]
    assert _mentions_any(typing.Any)
    assert _mentions_any(int | typing.Any)
    assert _mentions_any(Callable[[int], typing.Any])
    assert _mentions_any(Callable[[int, typing.Any], None])
    assert _mentions_any(any_rows)
    assert not _mentions_any(int_rows)
    assert not _mentions_any(Callable[..., None])
    assert _is_alias(int | None) and _is_alias(any_rows) and not _is_alias(int)
