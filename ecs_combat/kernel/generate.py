"""The kernel of a plugin set, as source: the core's template (:mod:`.template`) with every
kernel part copied in, renamed, and the glue that calls them where their systems run, in the
schedule's order, each guarded by its keywords' bits.

Everything is one module, so numba's cache keeps it whole; its name is a hash of every part's
source, the template, this generator and numba's version (:class:`KernelSource`).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import textwrap
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ecs_combat.errors import PluginError
from ecs_combat.kernel.glue_dies import dies_glue
from ecs_combat.plugin.kernels import (
    CHOOSE_ARGUMENTS,
    CORE_COLUMNS,
    CORE_WRITABLE,
    ENTERS_ARGUMENTS,
    KERNEL_POINTS,
    POINT_COLUMNS,
    TRIGGER_EVENTS,
    KernelColumn,
    KernelPart,
)
from ecs_combat.plugin.registry import Registry

#: The line of the template after which its glue (calling no part) begins.
GLUE_MARK = "# -- glue: the generator writes"
#: The line of the template's triggers after which their source begins, and the template's
#: import of them (one module once generated).
TRIGGERS_MARK = "# -- kernel source: the generator copies"
TRIGGERS_IMPORT = "from ecs_combat.kernel.template_triggers import has_any, triggers_at\n"
LOG_IMPORT = "from ecs_combat.kernel.template_log import deal_logged, log_deaths\n"
CHECKS_IMPORT = (
    "from ecs_combat.kernel.template_checks import check_apart, check_state, dies_bits\n"
)
#: The template's functions called from Python: compiled on their own (the rest is inlined).
ENTRY_POINTS = ("resolve_range", "one_on_one_range")
#: The template's functions compiled on their own, not inlined where they are called: the
#: triggers and the "dies" triggers (a battle's combat with all of it inline takes two to three
#: times the compile time).
OWN_FUNCTIONS = ("triggers_at", "resolve_dies", "deal_logged", "check_apart")
#: Names a part may call besides its arguments.
BUILTINS = frozenset({"min", "max", "abs", "range", "True", "False", "None"})
#: The argument whose attributes are the point's own columns, per point.
POINT_ARGUMENT = {
    "assign-damage": "a",
    "state-based-actions": "k",
    "cast": "g",
    "declare-attackers": "t",
    "declare-blockers": "t",
}
#: A trigger part's event, as the template numbers it (``EVENT_*``).
EVENT_CODES = {e: i for i, e in enumerate(e for p in TRIGGER_EVENTS.values() for e in p)}


@dataclass(frozen=True)
class PartSource:
    """One part as the kernel calls it."""

    plugin: str
    part: KernelPart
    #: The keywords that guard it (none: called for every element).
    keywords: frozenset[str]
    #: Its name in the kernel, and its source there.
    name: str
    text: str
    #: Its plugin's place among the kernel's `own` columns.
    own: int
    #: ``cast``: where its grants' bits begin in the kernel's array of them.
    bits: int = 0
    #: Its `choose` in the kernel (named ``choose_`` and its number), or "".
    choose_text: str = ""
    #: Its `enters` in the kernel (named ``enters_`` and its number), or "".
    enters_text: str = ""


@dataclass(frozen=True)
class KernelSource:
    """A plugin set's kernel: its parts, the plugins' own columns, the module's text."""

    parts: tuple[PartSource, ...]
    #: Per plugin with parts, in order: its name and its columns.
    owns: tuple[tuple[str, tuple[KernelColumn, ...]], ...]
    text: str
    digest: str

    def covers(self, plugin: str, system: str) -> bool:
        """Whether the kernel has a part for a plugin's system."""
        return any(p.plugin == plugin and p.part.system == system for p in self.parts)

    def casts(self) -> tuple[PartSource, ...]:
        """The ``cast`` parts (cards' effects), in the order the kernel numbers them."""
        return tuple(p for p in self.parts if p.part.point == "cast")


def generate(registry: Registry) -> KernelSource:
    """The kernel of a registry's plugin set."""
    parts: list[PartSource] = []
    plugins: list[str] = []
    found: list[tuple[str, KernelPart, frozenset[str]]] = []
    for point in KERNEL_POINTS:
        for scheduled in registry.systems_at(point):
            part = registry.kernel_part(scheduled)
            if part is not None:
                found.append((scheduled.plugin, part, scheduled.system.keywords))
    found += [(plugin, p, frozenset()) for (plugin, _), p in registry.kernel_parts.items()
              if p.point == "cast"]  # fmt: skip
    bits = 0
    for plugin, part, keywords in found:
        if plugin not in plugins:
            plugins.append(plugin)
        name = f"part_{len(parts)}"
        columns = registry.kernel_columns.get(plugin, [])
        names = {c.name for c in columns}
        text = part_text(plugin, part, name, names)
        chooser = entering = ""
        if part.choose is not None:
            chooser = part_text(plugin, part, f"choose_{len(parts)}", names, "choose")
        if part.enters is not None:
            entering = part_text(plugin, part, f"enters_{len(parts)}", names, "enters")
        own = plugins.index(plugin)
        parts.append(PartSource(plugin, part, keywords, name, text, own, bits, chooser, entering))
        bits += len(part.grants)
    owns = tuple((p, tuple(registry.kernel_columns.get(p, []))) for p in plugins)
    body = template_body()
    chunks = [
        "# Generated by ecs_combat.kernel.generate: the core's template and the plugins' kernel",
        "# parts. Do not edit: the file is named by the hash of its ingredients.",
        "from numba import njit\n",
        # No reference counts (nothing allocates): with them, a call passing tuples of arrays
        # costs hundreds of nanoseconds. Every function but the entry point is inlined
        # (compiled on their own, the per-battle and per-step calls cost 3x the time).
        "_njit = njit(_nrt=False, inline='always')\n",
        entry_points(body.replace("\ndef ", "\n@_njit\ndef ")),
        own_types(owns),
        *(f"@_njit\n{p.text}" for p in parts),
        *(f"@_njit\n{p.choose_text}" for p in parts if p.choose_text),
        *(f"@_njit\n{p.enters_text}" for p in parts if p.enters_text),
        *(f"@_njit\n{g}" for g in glue(parts) + trigger_glue(parts)),
        *(f"@_njit\n{g}" for g in dies_glue(dying(parts), owns, registry)),
    ]
    text = "\n\n".join(chunks) + "\n"
    digest = hashlib.sha256(
        "\n".join(
            [text, Path(__file__).read_text(), numba_version(), repr([c for _, c in owns])]
        ).encode()
    ).hexdigest()[:20]
    return KernelSource(tuple(parts), owns, text, digest)


def dying(parts: list[PartSource]) -> list[tuple[int, str, int, bool]]:
    """The ``dies`` parts: each its number, name, plugin's place and whether it has an
    `enters`."""
    return [
        (i, p.name, p.own, bool(p.enters_text))
        for i, p in enumerate(parts)
        if p.part.point == "dies"
    ]


def template_body() -> str:
    """The template's source (:mod:`.template`, its glue left out), its triggers'
    (:mod:`.template_triggers`) and its checks' (:mod:`.template_checks`, each from its
    mark on), as one module's."""
    here = Path(__file__).parent
    template = (here / "template.py").read_text()
    body = template[: template.index(GLUE_MARK)].replace("from __future__ import annotations\n", "")
    body = body.replace(TRIGGERS_IMPORT, "").replace(CHECKS_IMPORT, "").replace(LOG_IMPORT, "")
    for name in ("template_triggers.py", "template_checks.py", "template_log.py"):
        text = (here / name).read_text()
        body += text[text.index(TRIGGERS_MARK) :]
    return body


def entry_points(body: str) -> str:
    """The template's entry points compiled on their own, cached, releasing the GIL."""
    for name in ENTRY_POINTS:
        body = body.replace(
            f"@_njit\ndef {name}(", f"@njit(cache=True, nogil=True, _nrt=False)\ndef {name}("
        )
    for name in OWN_FUNCTIONS:
        body = body.replace(f"@_njit\ndef {name}(", f"@njit(_nrt=False)\ndef {name}(")
    return body


def own_types(owns: tuple[tuple[str, tuple[KernelColumn, ...]], ...]) -> str:
    """The named tuples of the plugins' own columns (`OWNS`, None for a plugin without)."""
    lines = []
    for i, (_, columns) in enumerate(owns):
        if columns:
            lines.append(f"Own{i} = namedtuple({f'Own{i}'!r}, {[c.name for c in columns]!r})")
    names = [f"Own{i}" if columns else "None" for i, (_, columns) in enumerate(owns)]
    lines.append(f"OWNS = ({''.join(n + ', ' for n in names)})")
    return "\n".join(lines)


def numba_version() -> str:
    """The installed numba's version ("" if none), read without importing it."""
    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:
        return ""


def part_text(plugin: str, part: KernelPart, name: str, own: set[str], second: str = "") -> str:
    """A part's source (with `second`, its ``"choose"``'s or ``"enters"``') as the kernel
    holds it: renamed, undecorated, its plugin's numbers written in; a part reading a name
    it may not is the plugin's error."""
    what = f"plugin {plugin!r}: kernel part {part.system!r}" + (f" ({second})" if second else "")
    chooses = second == "choose"
    fn = getattr(part, second) if second else part.function
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError) as exc:
        raise PluginError(f"{what}: its source can't be read ({exc})") from exc
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise PluginError(f"{what}: must be a function defined with def")
    arguments = [a.arg for a in node.args.args]
    expected = {"choose": CHOOSE_ARGUMENTS, "enters": ENTERS_ARGUMENTS}.get(
        second, KERNEL_POINTS[part.point]
    )
    if len(arguments) != len(expected) or node.args.vararg or node.args.kwarg:
        raise PluginError(
            f"{what}: takes ({', '.join(arguments)}); at {part.point} a part takes "
            f"({', '.join(expected)})"
        )
    node.decorator_list = []
    node.name = name
    node.returns = None
    for a in node.args.args:
        a.annotation = None
    columns = {arguments[expected.index("c")]: set(CORE_COLUMNS), arguments[-1]: own}
    if part.point in POINT_ARGUMENT:
        columns[arguments[expected.index(POINT_ARGUMENT[part.point])]] = set(
            POINT_COLUMNS[part.point]
        )
    local = set(arguments) | {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            known = columns.get(n.value.id)
            if known is not None and n.attr not in known:
                raise PluginError(f"{what}: {n.value.id}.{n.attr} is no column it may read")
    core = arguments[expected.index("c")]
    for n in ast.walk(node):
        written = n.value if isinstance(n, ast.Subscript) else n
        if (
            isinstance(n, ast.Subscript | ast.Attribute)
            and isinstance(n.ctx, ast.Store)
            and isinstance(written, ast.Attribute)
            and isinstance(written.value, ast.Name)
            and written.value.id == core
            and (chooses or written.attr not in CORE_WRITABLE.get(part.point, ()))
        ):
            raise PluginError(
                f"{what}: writes {core}.{written.attr}; at {part.point} a part writes "
                f"{', '.join(f'{core}.{w}' for w in CORE_WRITABLE.get(part.point, ())) or 'no core column'}"
                ", its point's own columns and its plugin's"
            )
    numbers = Numbers({**fn.__globals__, **dict(part.numbers)}, local, what)
    numbers.visit(node)
    return ast.unparse(node)


class Numbers(ast.NodeTransformer):
    """Writes a part's module-level numbers in; refuses any other name from outside it."""

    def __init__(self, names: dict[str, object], local: set[str], what: str) -> None:
        self.names = names
        self.local = local
        self.what = what

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if not isinstance(node.ctx, ast.Load) or node.id in self.local or node.id in BUILTINS:
            return node
        value = self.names.get(node.id, getattr(builtins, node.id, None))
        if isinstance(value, bool | int | float):
            return ast.copy_location(ast.Constant(value), node)
        raise PluginError(
            f"{self.what}: uses {node.id!r}; a part may use its arguments, min, max, abs, "
            "range and its module's numbers only"
        )


#: Whether a creature assigning damage fights one with a keyword of `bits`: a creature
#: still blocking it, or one it blocks still attacking (for ``assign-damage`` parts guarded
#: by the recipient).
FIGHTS = """def fights(row, bits, c, st, bt, bl):
    if c.attacking[row]:
        for q in range(st.a_start[row], st.a_start[row] + st.a_count[row]):
            if c.blocking[bl.blocker[q]] and st.kw[bl.blocker[q]] & bits:
                return True
        return False
    b = c.battle[row]
    for q in range(bt.blocks[b], bt.blocks[b + 1]):
        x = bl.attacker[q]
        if bl.blocker[q] == row and c.attacking[x] and st.kw[x] & bits:
            return True
    return False"""


def glue(parts: list[PartSource]) -> list[str]:
    """The functions the template calls where systems run, calling the parts in order."""

    def guarded(i: int, row: str, call: str, indent: str) -> str:
        if not parts[i].keywords:
            return f"{indent}{call}"
        return f"{indent}if st.kw[{row}] & guards[{i}]:\n{indent}    {call}"

    at = {
        point: [i for i, p in enumerate(parts) if p.part.point == point] for point in KERNEL_POINTS
    }
    assign = ["def assign_parts(row, c, st, bt, bl, a, guards, o):", "    pass"]
    fought = [i for i in at["assign-damage"] if parts[i].part.guard == "recipient"]
    for i in at["assign-damage"]:  # those guarded by a creature it fights last
        if i not in fought:
            call = f"{parts[i].name}(row, c, a, o[{parts[i].own}])"
            assign.append(guarded(i, "row", call, "    "))
    for i in fought:
        call = f"{parts[i].name}(row, c, a, o[{parts[i].own}])"
        test = f"guards[{i}] and fights(row, guards[{i}], c, st, bt, bl)"
        assign.append(f"    if {test}:\n        {call}")
    deal = ["def deal_parts(source, recipient, amount, c, st, guards, o):"]
    react = ["def react_parts(source, recipient, amount, c, st, guards, o):", "    pass"]
    replace = ["def replace_parts(source, recipient, amount, c, st, guards, o):"]
    for i in at["deal-damage"]:
        p = parts[i]
        call = f"{p.name}(source, recipient, amount, c, o[{p.own}])"
        lines = react if p.part.reaction else replace if p.part.replacement else deal
        if not p.part.reaction:
            call = f"amount = {call}"
        if p.part.replacement:  # the batch's bit first: no row read in batches without it
            test = "recipient" if p.part.guard == "recipient" else "source"
            test = f"guards[{i}] and amount > 0 and st.kw[{test}] & guards[{i}]"
            lines.append(f"    if {test}:\n        {call}")
        elif p.part.guard == "recipient" and p.keywords:
            lines.append(
                f"    if guards[{i}] and recipient >= 0 and st.kw[recipient] & guards[{i}]:"
                f"\n        {call}"
            )
        else:
            lines.append(guarded(i, "source", call, "    "))
    deal.append("    return amount")
    replace.append("    return amount")
    players = ["def player_parts(p0, p1, c, st, k, guards, o):", "    pass"]
    creatures = ["def creature_parts(row, c, st, k, guards, o):", "    pass"]
    for i in at["state-based-actions"]:
        p = parts[i]
        if p.part.per == "player":
            players += ["    for p in range(p0, p1):", f"        {p.name}(p, c, k, o[{p.own}])"]
        else:
            creatures.append(guarded(i, "row", f"{p.name}(row, c, k, o[{p.own}])", "    "))
    destroy = ["def destroy_parts(row, c, st, guards, o):"]
    for i in at["destroy"]:
        p = parts[i]
        call = f"if not {p.name}(row, c, o[{p.own}]):\n        return False"
        if p.keywords:
            call = f"if st.kw[row] & guards[{i}] and not {p.name}(row, c, o[{p.own}]):"
            call += "\n        return False"
        destroy.append(f"    {call}")
    destroy.append("    return True")
    cast = ["def cast_parts(part, row, caster, c, st, cb, o):", "    pass"]
    for n, i in enumerate(at["cast"]):
        p = parts[i]
        g = f"Cast(st.kw, cb[{p.bits}:{p.bits + len(p.part.grants)}])"
        cast.append(f"    if part == {n}:\n        {p.name}(row, caster, c, {g}, o[{p.own}])")
    glued = (assign, deal, react, replace, players, creatures, destroy, cast)
    return ["\n".join(f) for f in glued] + [FIGHTS]


def trigger_glue(parts: list[PartSource]) -> list[str]:
    """The functions the template calls for a trigger resolving (or acting at once), and
    for its target as it is put on the stack."""
    resolve = ["def trigger_parts(part, row, n, other, c, t, o):", "    pass"]
    choose = ["def choose_parts(part, row, c, t, o):"]
    for i, p in enumerate(parts):
        if p.part.point in TRIGGER_EVENTS:
            call = f"{p.name}(row, n, other, c, t, o[{p.own}])"
            resolve.append(f"    if part == {i}:\n        {call}")
        if p.choose_text:
            call = f"choose_{i}(row, c, t, o[{p.own}])"
            choose.append(f"    if part == {i}:\n        return {call}")
    choose.append("    return -1")
    return ["\n".join(resolve), "\n".join(choose)]


def trigger_table(parts: tuple[PartSource, ...]) -> list[tuple[int, int, int, bool]]:
    """Per trigger part, in order: its point (0: attackers declared, 1: blockers), event
    (the template's ``EVENT_*``), number among the parts, and whether it acts at once."""
    points = list(TRIGGER_EVENTS)
    return [
        (points.index(p.part.point), EVENT_CODES[p.part.event], i, p.part.at_once)
        for i, p in enumerate(parts)
        if p.part.point in TRIGGER_EVENTS
    ]
