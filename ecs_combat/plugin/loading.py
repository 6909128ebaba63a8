"""Finding, loading and checking plugins (entry points, ``-p MODULE``, ``-p no:NAME``); the
:class:`~ecs_combat.plugin.registry.Registry` of what they provide is built by
:mod:`ecs_combat.plugin.building`."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Sequence
from importlib import metadata
from types import FunctionType, MethodType, ModuleType

import pluggy

from ecs_combat.errors import InputError, PluginError
from ecs_combat.plugin import hookspecs
from ecs_combat.plugin.building import build_registry
from ecs_combat.plugin.definitions import (
    plugin_name_for,
)
from ecs_combat.plugin.registry import (
    Registry,
)
from ecs_combat.suggest import closest, did_you_mean, some_names

ENTRY_POINT_GROUP = "ecs_combat"
DISABLE_AUTOLOAD_ENV = "ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD"
PLUGINS_ENV = "ECS_COMBAT_PLUGINS"


#: What pluggy may take for a hook implementation (pluggy's ``_static_hook_attr``).
_HOOKABLE = (FunctionType, staticmethod, classmethod, MethodType)
_ABSENT = object()
#: The names a module's class defines (pluggy's static look-up finds some of them first).
_MODULE_CLASS_NAMES = frozenset(dir(ModuleType))


class _PluginManager(pluggy.PluginManager):
    """pluggy's manager, quicker to register plugin modules: a module's attribute that is no
    function (an imported class, module or constant: most of them), or a function without
    this project's hook marker, is passed over without pluggy's static look-up (which would
    pass it over too: about a tenth of a small ``resolve``). Names the module's class
    defines (``__dict__``, ``__annotations__``) and every other plugin go to pluggy."""

    def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
        if type(plugin) is ModuleType and name not in _MODULE_CLASS_NAMES:
            value = vars(plugin).get(name, _ABSENT)
            if isinstance(value, FunctionType):
                if f"{self.project_name}_impl" not in vars(value):
                    return None
            elif value is not _ABSENT and not isinstance(value, _HOOKABLE):
                return None
        return super().parse_hookimpl_opts(plugin, name)


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
    pm = _PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in blocked:
        pm.set_blocked(name)
    infos: list[tuple[str, str | None, str | None, str]] = []
    found = _Distributions()
    if autoload:
        _load_installed(pm, found, blocked, infos)
    env_modules = [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]
    _load_modules(pm, found, blocked, [*env_modules, *load], infos)
    for obj in extra:
        name = getattr(obj, "__name__", None) or type(obj).__name__
        _register(pm, obj, name)
        infos.append((name, None, None, _module_name(obj)))
    _check_hooks(pm)
    installed = {ep.name for ep in found.entry_points}
    return build_registry(pm, infos, frozenset(blocked), installed)


#: A loaded plugin: its name, distribution, version and module.
Info = tuple[str, str | None, str | None, str]


def _load_installed(
    pm: pluggy.PluginManager, found: _Distributions, blocked: set[str], infos: list[Info]
) -> None:
    """Register the installed plugins (entry points, by name) not blocked; note each in
    `infos`."""
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


def _load_modules(
    pm: pluggy.PluginManager,
    found: _Distributions,
    blocked: set[str],
    modules: list[str],
    infos: list[Info],
) -> None:
    """Import and register plugin modules by name (``ECS_COMBAT_PLUGINS``, ``-p MODULE``)
    not blocked nor loaded already; note each in `infos`, with its distribution if any."""
    #: Top-level package -> distributions, read once: it lists every installed file.
    packages: dict[str, list[str]] = {}
    for modname in modules:
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


def _check_hooks(pm: pluggy.PluginManager) -> None:
    """Every hook a plugin implements is one of the hook specifications (else which are
    not, and which are)."""
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
