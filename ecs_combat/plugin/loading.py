"""Finding, loading and checking plugins (entry points, ``-p MODULE``, ``-p no:NAME``), and
building the :class:`~ecs_combat.plugin.registry.Registry` of what they provide."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Sequence
from importlib import metadata
from types import ModuleType
from typing import Any

import pluggy

from ecs_combat.errors import InputError, PluginError
from ecs_combat.plugin import hookspecs
from ecs_combat.plugin.definitions import (
    PARAMETERS,
    REGULAR_STEP,
    Card,
    CounterKind,
    DamageStep,
    Keyword,
    ScoreTerm,
    SplitCard,
    StateField,
    normalize_keyword,
    plugin_name_for,
)
from ecs_combat.plugin.event_actions import CORE_EVENT_ACTIONS, EventAction
from ecs_combat.plugin.kernels import KernelColumn, KernelPart, kernel_problem
from ecs_combat.plugin.ordering import order_systems
from ecs_combat.plugin.phases import PhaseRule
from ecs_combat.plugin.registry import (
    CORE_SCORE_TERMS,
    PluginInfo,
    Registry,
    ScheduledSystem,
)
from ecs_combat.plugin.restrictions import KINDS, Restriction
from ecs_combat.plugin.schedule import POINT_NAMES, System
from ecs_combat.plugin.system_names import check_system_names
from ecs_combat.suggest import closest, did_you_mean, some_names

ENTRY_POINT_GROUP = "ecs_combat"
DISABLE_AUTOLOAD_ENV = "ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD"
PLUGINS_ENV = "ECS_COMBAT_PLUGINS"

#: The core's regular combat damage step (510.1-510.2).
CORE_STEPS = (DamageStep(REGULAR_STEP, 30, default=True, rule="510.1"),)

#: Scenario keys of the core, which plugins' state may not take.
CORE_KEYS = {
    "creature": frozenset(
        {
            "id", "name", "controller", "power", "toughness", "keywords", "counters", "damage",
            "summoning_sick", "tapped", "colors", "types", "card", "value", "targets",
        }
    ),
    "player": frozenset({"life", "lands"}),
}  # fmt: skip
STATE_KINDS = {"bool": bool, "int": int, "creature": type(None)}


def _block_names(spec: str) -> set[str]:
    return {spec, plugin_name_for(spec)}


def parse_plugin_options(options: Iterable[str]) -> tuple[list[str], set[str]]:
    """Split ``-p`` values into modules to load and plugin names to block (``no:NAME``)."""
    load: list[str] = []
    block: set[str] = set()
    for opt in options:
        if opt.startswith("no:"):
            block |= _block_names(opt[3:])
        else:
            load.append(opt)
    return load, block


def known_plugin_names(load: Iterable[str] = ()) -> set[str]:
    """The names ``-p no:NAME`` may block: every installed entry point (loaded or not) and
    every module loaded explicitly (`load` and ``ECS_COMBAT_PLUGINS``)."""
    env = [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]
    installed = {ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return installed | set(env) | set(load)


def check_plugin_options(options: Iterable[str]) -> None:
    """Raise :class:`InputError` for a ``no:NAME`` that names no known plugin, in either
    spelling (``first_strike``, ``first strike``), naming the known ones and the closest."""
    options = list(options)
    if not any(opt.startswith("no:") for opt in options):
        return  # nothing to check: the entry points are not read twice
    load, _ = parse_plugin_options(options)
    known = known_plugin_names(load)
    for opt in options:
        if not opt.startswith("no:"):
            continue
        name = opt[3:]
        if _block_names(name) & known:
            continue
        match = closest(name, known)
        if match is not None and " " in name.strip():
            match = match.replace("_", " ")
        hint = f"; did you mean {match!r}?" if match is not None else ""
        raise InputError(
            "-p",
            opt,
            f"no plugin is named {name!r}{hint} (known: {some_names(name, known) or 'none'}; "
            "`ecs-combat plugins` lists them)",
        )


def load_registry(
    load: Sequence[str] = (),
    block: Iterable[str] = (),
    autoload: bool | None = None,
    extra: Sequence[object] = (),
) -> Registry:
    """Load plugins and build the registry.

    `autoload` defaults to true unless ``ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD`` is set. `load`
    lists modules to import and register explicitly (``ECS_COMBAT_PLUGINS``, comma-separated,
    adds more); `block` names plugins not to load; `extra` registers plugin objects directly.
    """
    if autoload is None:
        autoload = not os.environ.get(DISABLE_AUTOLOAD_ENV)
    blocked: set[str] = set()
    for name in block:
        blocked |= _block_names(name)
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in blocked:
        pm.set_blocked(name)
    infos: list[tuple[str, str | None, str | None, str]] = []
    #: Top-level package -> distributions, read once: it lists every installed file.
    packages: dict[str, list[str]] = {}
    found = _Distributions()

    if autoload:
        for ep in sorted(found.entry_points, key=lambda e: e.name):
            if ep.name in blocked or pm.has_plugin(ep.name):
                continue
            dist_name, version = found.name_and_version(ep.dist)
            try:
                plugin = ep.load()
            except Exception as exc:  # any import failure is the plugin's, reported by name
                raise PluginError(
                    f"plugin {ep.name!r} ({ep.value}, from {dist_name or 'unknown'}) "
                    f"failed to import: {type(exc).__name__}: {exc}"
                ) from exc
            _register(pm, plugin, ep.name)
            infos.append((ep.name, dist_name, version, _module_name(plugin)))

    env_modules = [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]
    for modname in [*env_modules, *load]:
        if modname in blocked or pm.has_plugin(modname):
            continue
        try:
            module = importlib.import_module(modname)
        except Exception as exc:
            raise PluginError(
                f"plugin {modname!r} failed to import: {type(exc).__name__}: {exc}"
                f"{_module_hint(modname, exc)}"
            ) from exc
        if pm.is_registered(module):  # already loaded through its entry point
            continue
        _register(pm, module, modname)
        entry_point = found.by_module.get(modname)
        if entry_point is not None:  # a plugin module of an installed distribution
            infos.append((modname, *found.name_and_version(entry_point.dist), modname))
            continue
        packages = packages or dict(metadata.packages_distributions())
        infos.append((modname, *_distribution_of(module, packages, found), modname))

    for obj in extra:
        name = getattr(obj, "__name__", None) or type(obj).__name__
        _register(pm, obj, name)
        infos.append((name, None, None, _module_name(obj)))

    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        hooks = {n: c for n, c in vars(pm.hook).items() if isinstance(c, pluggy.HookCaller)}
        unknown = sorted(
            n
            for n, c in hooks.items()
            if not c.has_spec() and any(i.plugin is exc.plugin for i in c.get_hookimpls())
        )
        known = sorted(n for n, c in hooks.items() if c.has_spec())
        raise PluginError(
            f"plugin {pm.get_name(exc.plugin)!r} implements unknown hook(s) {unknown} "
            f"(the hooks are: {', '.join(known)})"
        ) from exc
    return _build(pm, infos, frozenset(blocked))


def _module_hint(modname: str, exc: Exception) -> str:
    """A suggestion among the installed plugin modules when `modname` itself does not exist."""
    if not isinstance(exc, ModuleNotFoundError) or exc.name != modname:
        return ""
    modules = {ep.module for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return did_you_mean(modname, modules)


def _module_name(plugin: object) -> str:
    if isinstance(plugin, ModuleType):
        return plugin.__name__
    return type(plugin).__module__


class _Distributions:
    """The installed plugins' entry points, and the names and versions of distributions, each
    distribution's metadata read once (a distribution provides many plugins; reading its
    metadata, its whole description included, took 40% of loading the bundled ones)."""

    def __init__(self) -> None:
        self.entry_points = metadata.entry_points(group=ENTRY_POINT_GROUP)
        #: Module -> the entry point naming it (the first by name, where several do).
        self.by_module: dict[str, metadata.EntryPoint] = {}
        for ep in sorted(self.entry_points, key=lambda e: e.name):
            self.by_module.setdefault(ep.module, ep)
        self._read: dict[int, tuple[str | None, str | None]] = {}
        self._versions: dict[str, str] = {}

    def name_and_version(self, dist: metadata.Distribution | None) -> tuple[str | None, str | None]:
        """The distribution's name and version (None, None for none)."""
        if dist is None:
            return None, None
        if id(dist) not in self._read:
            read = dist.metadata
            self._read[id(dist)] = read["Name"], read["Version"]
        return self._read[id(dist)]

    def version(self, name: str) -> str:
        """The version of the distribution named `name`."""
        if name not in self._versions:
            self._versions[name] = metadata.version(name)
        return self._versions[name]


def _distribution_of(
    module: ModuleType, packages: dict[str, list[str]], found: _Distributions
) -> tuple[str | None, str | None]:
    top = module.__name__.split(".")[0]
    dists = packages.get(top, [])
    if not dists:
        return None, None
    return dists[0], found.version(dists[0])


def _register(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {name!r} breaks a hook's contract: {exc}") from exc
    except ValueError as exc:
        raise PluginError(f"plugin {name!r} could not be registered: {exc}") from exc


def _collect(
    pm: pluggy.PluginManager, rank: dict[str, int], hook: str, kind: Any
) -> list[tuple[str, Any]]:
    """Call a registration hook plugin by plugin, in the order the plugins were registered
    (`rank`: entry points by name, then ``ECS_COMBAT_PLUGINS`` and ``-p`` modules as given,
    then objects passed directly), and check what each returns (instances of `kind`, a class
    or a union of classes)."""
    what = " or ".join(k.__name__ for k in getattr(kind, "__args__", (kind,)))
    found: list[tuple[str, Any]] = []
    caller = getattr(pm.hook, hook)
    impls = sorted(caller.get_hookimpls(), key=lambda i: rank.get(i.plugin_name, len(rank)))
    for impl in impls:
        try:
            values = impl.function()
        except Exception as exc:
            raise PluginError(
                f"plugin {impl.plugin_name!r}: {hook}() raised {type(exc).__name__}: {exc}"
            ) from exc
        if values is None or isinstance(values, str | bytes) or not hasattr(values, "__iter__"):
            raise PluginError(
                f"plugin {impl.plugin_name!r}: {hook}() must return a list of "
                f"{what}, not {type(values).__name__}"
            )
        for value in values:
            if not isinstance(value, kind):
                raise PluginError(
                    f"plugin {impl.plugin_name!r}: {hook}() returned {value!r}, "
                    f"which is not a {what}"
                )
            found.append((impl.plugin_name, value))
    return found


def _provided(reg: Registry) -> set[str]:
    """What a keyword may require: keywords, counter kinds and ``owner.key`` plugin state."""
    state = {f"{owner}.{key}" for owner, fields in reg.state.items() for key in fields}
    return reg.keywords.keys() | reg.counter_kinds.keys() | state


def _requirement_reason(reg: Registry, name: str) -> str:
    """Why a required name is missing, in words."""
    owner, _, key = name.partition(".")
    if key and owner in CORE_KEYS:
        return f"{owner} state {key!r}, which no loaded plugin declares"
    if "/" in name:
        return f"counters of kind {name!r}, which no loaded plugin defines"
    return reg.unknown_keyword_reason(name)


def _drop_unmet_requirements(reg: Registry) -> None:
    """Move keywords whose required keywords, counter kinds or state are missing to
    `reg.unavailable`, transitively."""
    dropped = True
    while dropped:
        dropped = False
        for kw in list(reg.keywords.values()):
            missing = sorted(kw.requires - _provided(reg))
            if not missing:
                continue
            plugin = reg.keyword_plugin.pop(kw.name)
            del reg.keywords[kw.name]
            needs = "; ".join(_requirement_reason(reg, m) for m in missing)
            reg.unavailable[kw.name] = (
                f"keyword {kw.name!r} (plugin {plugin!r}) is unavailable: it requires {needs}"
            )
            dropped = True


def _state_problem(state: StateField, reg: Registry) -> str | None:
    """What is wrong with a plugin's state declaration, or None."""
    if state.owner not in CORE_KEYS:
        return f"owner must be 'creature' or 'player', not {state.owner!r}"
    if state.kind not in STATE_KINDS:
        return f"kind must be one of {', '.join(STATE_KINDS)}, not {state.kind!r}"
    if state.kind == "creature" and state.owner != "creature":
        return "only creatures' state may name a creature"
    wanted = STATE_KINDS[state.kind]
    if type(state.default) is not wanted:
        return f"default {state.default!r} is not a {state.kind}"
    if state.default_from is not None and state.default_from not in reg.state.get(state.owner, {}):
        return f"default_from {state.default_from!r} is not a key declared before it"
    if state.key in CORE_KEYS[state.owner] or state.key in reg.state.get(state.owner, {}):
        return f"the key is already the {'core' if state.key in CORE_KEYS[state.owner] else 'another plugin'}'s"
    return None


def _build(
    pm: pluggy.PluginManager,
    infos: list[tuple[str, str | None, str | None, str]],
    blocked: frozenset[str],
) -> Registry:
    reg = Registry(manager=pm, blocked=blocked)
    rank = {name: i for i, (name, *_) in enumerate(infos)}
    steps: dict[str, tuple[str, DamageStep]] = {s.name: ("core", s) for s in CORE_STEPS}
    contributed: dict[str, dict[str, list[Any]]] = {}

    for plugin, step in _collect(pm, rank, "register_damage_steps", DamageStep):
        if step.name in steps and steps[step.name][1] != step:
            other = steps[step.name][0]
            raise PluginError(
                f"plugin {plugin!r} defines damage step {step.name!r} differently "
                f"from {other!r}: {step} != {steps[step.name][1]}"
            )
        steps.setdefault(step.name, (plugin, step))
        contributed.setdefault(plugin, {}).setdefault("steps", []).append(step.name)
    orders: dict[int, str] = {}
    for name, (plugin, step) in steps.items():
        if step.order in orders:
            raise PluginError(
                f"plugin {plugin!r}: damage step {name!r} has the same order ({step.order}) "
                f"as {orders[step.order]!r}"
            )
        orders[step.order] = name
    reg.steps = sorted((s for _, s in steps.values()), key=lambda s: s.order)

    for plugin, kw in _collect(pm, rank, "register_keywords", Keyword):
        if kw.parameter not in PARAMETERS:
            raise PluginError(
                f"plugin {plugin!r}: keyword {kw.name!r} has parameter {kw.parameter!r} "
                f"(one of: {', '.join(repr(p) for p in PARAMETERS)})"
            )
        if kw.name in reg.keywords:
            raise PluginError(
                f"plugin {plugin!r} defines keyword {kw.name!r}, "
                f"already defined by {reg.keyword_plugin[kw.name]!r}"
            )
        unknown = (kw.strikes_in | kw.withholds_from) - steps.keys()
        if unknown:
            raise PluginError(
                f"plugin {plugin!r}: keyword {kw.name!r} names unknown damage step(s) "
                f"{sorted(unknown)}"
            )
        reg.keywords[kw.name] = kw
        reg.keyword_plugin[kw.name] = plugin
        contributed.setdefault(plugin, {}).setdefault("keywords", []).append(kw.name)

    for plugin, kind in _collect(pm, rank, "register_counters", CounterKind):
        if kind.name in reg.counter_kinds or kind.name in reg.keywords:
            raise PluginError(f"plugin {plugin!r} defines counter kind {kind.name!r} a second time")
        reg.counter_kinds[kind.name] = kind
    for plugin, state in _collect(pm, rank, "register_state", StateField):
        problem = _state_problem(state, reg)
        if problem:
            raise PluginError(f"plugin {plugin!r}: state {state.key!r}: {problem}")
        reg.state.setdefault(state.owner, {})[state.key] = state
        contributed.setdefault(plugin, {}).setdefault("state", []).append(
            f"{state.owner}.{state.key}"
        )
    _drop_unmet_requirements(reg)
    reg.token_makers = frozenset(k.name for k in reg.keywords.values() if k.tokens)

    for plugin, system in _collect(pm, rank, "register_systems", System):
        if system.point not in POINT_NAMES:
            raise PluginError(
                f"plugin {plugin!r}: system {system.name!r} names unknown point "
                f"{system.point!r} (the points are: {', '.join(POINT_NAMES)})"
            )
        if not callable(system.reference) or not (
            system.batched is None or callable(system.batched)
        ):
            raise PluginError(
                f"plugin {plugin!r}: system {system.name!r} has a form that is not callable"
            )
        reg.systems.setdefault(system.point, []).append(ScheduledSystem(plugin, system))
        contributed.setdefault(plugin, {}).setdefault("systems", []).append(
            (system.point, system.name)
        )
    installed = {ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    check_system_names(reg.systems, {*installed, *blocked, *reg.keywords, *reg.unavailable, *rank})
    for point, scheduled in reg.systems.items():
        positions = order_systems(point, [(s.plugin, s.system) for s in scheduled])
        scheduled[:] = [scheduled[i] for i in positions]

    for plugin, restriction in _collect(pm, rank, "register_restrictions", Restriction):
        if restriction.kind not in KINDS or not callable(restriction.test):
            raise PluginError(
                f"plugin {plugin!r}: restriction of {restriction.keyword!r} has kind "
                f"{restriction.kind!r} (kinds: {', '.join(KINDS)}) or a test that is not callable"
            )
        if restriction.keyword in reg.keywords:
            reg.restrictions.setdefault(restriction.kind, []).append(restriction)

    for plugin, card in _collect(pm, rank, "register_cards", Card | SplitCard):
        faces = card.faces if isinstance(card, SplitCard) else (card,)
        for face in faces:
            key = face.name.casefold()
            if key in reg.cards:
                raise PluginError(f"plugin {plugin!r} defines card {face.name!r} a second time")
            reg.cards[key] = face
        if isinstance(card, SplitCard):
            reg.split_cards[card.name.casefold()] = card
        contributed.setdefault(plugin, {}).setdefault("cards", []).append(card.name)

    # after the cards: a `cast` part is a card's
    for plugin, item in _collect(pm, rank, "register_kernel_parts", KernelPart | KernelColumn):
        problem = kernel_problem(item, plugin, reg)
        if problem:
            raise PluginError(f"plugin {plugin!r}: {problem}")
        if isinstance(item, KernelColumn):
            reg.kernel_columns.setdefault(plugin, []).append(item)
        else:
            reg.kernel_parts[(plugin, item.system)] = item

    for plugin, phase_rule in _collect(pm, rank, "register_phase_rules", PhaseRule):
        if not callable(phase_rule.after):
            raise PluginError(
                f"plugin {plugin!r}: phase rule {phase_rule.name!r} has an `after` that is not "
                "callable"
            )
        reg.phase_rules.append(phase_rule)

    for plugin, term in _collect(pm, rank, "register_score_terms", ScoreTerm):
        player = reg.state.get("player", {}).get(term.player_key)
        if player is None or player.kind != "int":
            raise PluginError(
                f"plugin {plugin!r}: score term {term.name!r} reads player state "
                f"{term.player_key!r}, which no plugin declares as an int"
            )
        if term.name in CORE_SCORE_TERMS or term.name in reg.score_terms:
            raise PluginError(f"plugin {plugin!r} defines score term {term.name!r} a second time")
        reg.score_terms[term.name] = term

    for plugin, action in _collect(pm, rank, "register_event_actions", EventAction):
        if action.name in CORE_EVENT_ACTIONS or action.name in reg.event_actions:
            raise PluginError(f"plugin {plugin!r} defines event action {action.name!r} again")
        if not callable(action.apply):
            raise PluginError(
                f"plugin {plugin!r}: event action {action.name!r} has an `apply` that is not "
                "callable"
            )
        if normalize_keyword(action.keyword) in reg.keywords:
            reg.event_actions[action.name] = action
            reg.event_action_plugin[action.name] = plugin

    for name, dist, version, module in infos:
        c = contributed.get(name, {})
        reg.plugins.append(
            PluginInfo(
                name=name,
                distribution=dist,
                version=version,
                module=module,
                keywords=tuple(c.get("keywords", ())),
                steps=tuple(c.get("steps", ())),
                cards=tuple(c.get("cards", ())),
                systems=tuple(c.get("systems", ())),
                state=tuple(c.get("state", ())),
            )
        )
    return reg
