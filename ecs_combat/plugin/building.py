"""Building the :class:`~ecs_combat.plugin.registry.Registry` from the registered plugins:
each registration hook called plugin by plugin, in order, and what it returns checked (damage
steps, keywords, counters, state, systems, kernel parts, restrictions, cards, phase rules,
score terms, event actions)."""

from __future__ import annotations

from typing import Any

import pluggy

from ecs_combat.errors import PluginError
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


def _unavailable_only(
    reg: Registry, items: list[tuple[str, KernelPart | KernelColumn]]
) -> set[str]:
    """The plugins whose kernel parts all stand for systems of unavailable keywords only
    (infect without the poison plugin): their kernel items are left out."""
    out = set()
    for plugin in {p for p, _ in items}:
        named = [
            s.system.keywords
            for systems in reg.systems.values()
            for s in systems
            if s.plugin == plugin
            and any(isinstance(i, KernelPart) and i.system == s.system.name for p, i in items
                    if p == plugin)
        ]  # fmt: skip
        if named and all(kws and kws <= reg.unavailable.keys() for kws in named):
            out.add(plugin)
    return out


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


def build_registry(
    pm: pluggy.PluginManager,
    infos: list[tuple[str, str | None, str | None, str]],
    blocked: frozenset[str],
    installed: set[str],
) -> Registry:
    """The registry of what the plugins registered in `pm` provide (`infos`: each plugin's
    name, distribution, version and module, in the order they were registered; `installed`:
    the names of the installed plugins' entry points)."""
    build = _Builder(pm, infos, blocked)
    build.steps()
    build.keywords()
    build.counters_and_state()
    build.systems(installed)
    build.restrictions()
    build.cards()
    build.kernel_parts()  # after the cards: a `cast` part is a card's
    build.phase_rules()
    build.score_terms()
    build.event_actions()
    return build.with_plugins(infos)


class _Builder:
    """The registry as the registration hooks fill it, and what each plugin contributed."""

    def __init__(
        self,
        pm: pluggy.PluginManager,
        infos: list[tuple[str, str | None, str | None, str]],
        blocked: frozenset[str],
    ) -> None:
        self.pm = pm
        self.reg = Registry(manager=pm, blocked=blocked)
        self.rank = {name: i for i, (name, *_) in enumerate(infos)}
        self.step_names: set[str] = set()
        #: Plugin -> what it contributed, by kind ("keywords", "steps", ...).
        self.contributed: dict[str, dict[str, list[Any]]] = {}

    def collect(self, hook: str, kind: Any) -> list[tuple[str, Any]]:
        """:func:`_collect` of the registered plugins."""
        return _collect(self.pm, self.rank, hook, kind)

    def credit(self, plugin: str, what: str, item: Any) -> None:
        """Note that `plugin` contributed `item` (listed by ``ecs-combat plugins``)."""
        self.contributed.setdefault(plugin, {}).setdefault(what, []).append(item)

    def steps(self) -> None:
        """The damage steps: the core's and the plugins', each order taken once."""
        steps: dict[str, tuple[str, DamageStep]] = {s.name: ("core", s) for s in CORE_STEPS}
        for plugin, step in self.collect("register_damage_steps", DamageStep):
            if step.name in steps and steps[step.name][1] != step:
                other = steps[step.name][0]
                raise PluginError(
                    f"plugin {plugin!r} defines damage step {step.name!r} differently "
                    f"from {other!r}: {step} != {steps[step.name][1]}"
                )
            steps.setdefault(step.name, (plugin, step))
            self.credit(plugin, "steps", step.name)
        orders: dict[int, str] = {}
        for name, (plugin, step) in steps.items():
            if step.order in orders:
                raise PluginError(
                    f"plugin {plugin!r}: damage step {name!r} has the same order ({step.order}) "
                    f"as {orders[step.order]!r}"
                )
            orders[step.order] = name
        self.reg.steps = sorted((s for _, s in steps.values()), key=lambda s: s.order)
        self.step_names = set(steps)

    def keywords(self) -> None:
        """The keywords: each defined once, with a known parameter and known damage steps."""
        reg = self.reg
        for plugin, kw in self.collect("register_keywords", Keyword):
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
            unknown = (kw.strikes_in | kw.withholds_from) - self.step_names
            if unknown:
                raise PluginError(
                    f"plugin {plugin!r}: keyword {kw.name!r} names unknown damage step(s) "
                    f"{sorted(unknown)}"
                )
            reg.keywords[kw.name] = kw
            reg.keyword_plugin[kw.name] = plugin
            self.credit(plugin, "keywords", kw.name)

    def counters_and_state(self) -> None:
        """Counter kinds and plugin state; then the keywords whose requirements are unmet
        are set apart (unavailable), and those that make tokens noted."""
        reg = self.reg
        for plugin, kind in self.collect("register_counters", CounterKind):
            if kind.name in reg.counter_kinds or kind.name in reg.keywords:
                raise PluginError(
                    f"plugin {plugin!r} defines counter kind {kind.name!r} a second time"
                )
            reg.counter_kinds[kind.name] = kind
        for plugin, state in self.collect("register_state", StateField):
            problem = _state_problem(state, reg)
            if problem:
                raise PluginError(f"plugin {plugin!r}: state {state.key!r}: {problem}")
            reg.state.setdefault(state.owner, {})[state.key] = state
            self.credit(plugin, "state", f"{state.owner}.{state.key}")
        _drop_unmet_requirements(reg)
        reg.token_makers = frozenset(k.name for k in reg.keywords.values() if k.tokens)

    def systems(self, installed: set[str]) -> None:
        """The systems at each point, their names checked, each point's in order."""
        reg = self.reg
        for plugin, system in self.collect("register_systems", System):
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
            self.credit(plugin, "systems", (system.point, system.name))
        names = {*installed, *reg.blocked, *reg.keywords, *reg.unavailable, *self.rank}
        check_system_names(reg.systems, names)
        for point, scheduled in reg.systems.items():
            positions = order_systems(point, [(s.plugin, s.system) for s in scheduled])
            scheduled[:] = [scheduled[i] for i in positions]

    def kernel_parts(self) -> None:
        """The compiled forms of systems: parts and columns, each checked."""
        reg = self.reg
        items = self.collect("register_kernel_parts", KernelPart | KernelColumn)
        unusable = _unavailable_only(reg, items)
        for plugin, item in items:
            if plugin in unusable:
                continue  # its keywords are unavailable: its columns may name missing state
            problem = kernel_problem(item, plugin, reg)
            if problem:
                raise PluginError(f"plugin {plugin!r}: {problem}")
            if isinstance(item, KernelColumn):
                reg.kernel_columns.setdefault(plugin, []).append(item)
            else:
                reg.kernel_parts[(plugin, item.system)] = item
        for scheduled in (s for systems in reg.systems.values() for s in systems):
            part = scheduled.system.kernel  # a shape's (skeletons): the plugin's own first
            key = (scheduled.plugin, scheduled.system.name)
            if part is None or key in reg.kernel_parts:
                continue
            problem = kernel_problem(part, scheduled.plugin, reg)
            if problem:
                raise PluginError(f"plugin {scheduled.plugin!r}: {problem}")
            reg.kernel_parts[key] = part

    def restrictions(self) -> None:
        """The restrictions of the keywords available."""
        reg = self.reg
        for plugin, restriction in self.collect("register_restrictions", Restriction):
            if restriction.kind not in KINDS or not callable(restriction.test):
                raise PluginError(
                    f"plugin {plugin!r}: restriction of {restriction.keyword!r} has kind "
                    f"{restriction.kind!r} (kinds: {', '.join(KINDS)}) or a test that is not "
                    "callable"
                )
            if restriction.keyword in reg.keywords:
                reg.restrictions.setdefault(restriction.kind, []).append(restriction)

    def cards(self) -> None:
        """The card library: each face's name once; split cards by their full name too."""
        reg = self.reg
        for plugin, card in self.collect("register_cards", Card | SplitCard):
            faces = card.faces if isinstance(card, SplitCard) else (card,)
            for face in faces:
                key = face.name.casefold()
                if key in reg.cards:
                    raise PluginError(f"plugin {plugin!r} defines card {face.name!r} a second time")
                reg.cards[key] = face
            if isinstance(card, SplitCard):
                reg.split_cards[card.name.casefold()] = card
            self.credit(plugin, "cards", card.name)

    def phase_rules(self) -> None:
        """The rules plugins give for adding phases (500.8)."""
        for plugin, phase_rule in self.collect("register_phase_rules", PhaseRule):
            if not callable(phase_rule.after):
                raise PluginError(
                    f"plugin {plugin!r}: phase rule {phase_rule.name!r} has an `after` that is "
                    "not callable"
                )
            self.reg.phase_rules.append(phase_rule)

    def score_terms(self) -> None:
        """The decisions' score terms plugins add, each reading an int player state."""
        reg = self.reg
        for plugin, term in self.collect("register_score_terms", ScoreTerm):
            player = reg.state.get("player", {}).get(term.player_key)
            if player is None or player.kind != "int":
                raise PluginError(
                    f"plugin {plugin!r}: score term {term.name!r} reads player state "
                    f"{term.player_key!r}, which no plugin declares as an int"
                )
            if term.name in CORE_SCORE_TERMS or term.name in reg.score_terms:
                raise PluginError(
                    f"plugin {plugin!r} defines score term {term.name!r} a second time"
                )
            reg.score_terms[term.name] = term

    def event_actions(self) -> None:
        """The scenario event actions of the keywords available."""
        reg = self.reg
        for plugin, action in self.collect("register_event_actions", EventAction):
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

    def with_plugins(self, infos: list[tuple[str, str | None, str | None, str]]) -> Registry:
        """The registry, with each plugin's information and contributions."""
        for name, dist, version, module in infos:
            c = self.contributed.get(name, {})
            self.reg.plugins.append(
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
        return self.reg
