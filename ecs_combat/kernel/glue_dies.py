"""The generated glue of ``dies`` parts: the parts called for a creature that died, the bits
of their keywords, a creature's counters kept through a check (704.3, 704.5q) and its
plugins' columns renewed as it returns as a new object (400.7)."""

from __future__ import annotations

from ecs_combat.plugin.kernels import KernelColumn
from ecs_combat.plugin.registry import Registry


def dies_glue(
    dying: list[tuple[int, str, int, bool]],
    owns: tuple[tuple[str, tuple[KernelColumn, ...]], ...],
    registry: Registry,
) -> list[str]:
    """The functions the template's checks call (:mod:`.template_checks`): ``dies_parts``,
    ``dies_bits``, ``counters_of``, ``put_counters`` and ``renew_own``; `dying` the
    ``dies`` parts, each its number, name, plugin's place among `owns` and whether it has
    an `enters`."""
    dies = ["def dies_parts(row, c, st, bt, guards, o):"]
    for i, name, own, enters in dying:
        back = f"{name}(row, c, o[{own}]) and return_to_battlefield(row, c, st, bt, o)"
        then = f"enters_{i}(row, c, o[{own}])" if enters else "pass"
        dies.append(f"    if st.kw[row] & guards[{i}]:\n        if {back}:\n            {then}")
        dies.append("        return")
    dies.append("    pass")
    bits = " | ".join([f"guards[{d[0]}]" for d in dying] + ["np.uint64(0)"])
    counters: dict[tuple[str, str], str] = {}  # one array per kind of counters
    for i, (_, columns) in enumerate(owns):
        for col in columns:
            if col.counters is not None and col.owner == "creature":
                counters.setdefault((col.kind, col.counters), f"o[{i}].{col.name}[row]")
    read = list(counters.values()) if dying else []  # else nothing reads them
    kept = ["def put_counters(row, o, kept):", "    pass"]
    kept += [f"    {name} = kept[{j}]" for j, name in enumerate(read)]
    renew = ["def renew_own(row, o):", "    pass"]
    for i, (_, columns) in enumerate(owns):
        for col in columns:
            value = fresh_value(col, registry)
            if col.owner == "creature" and value is not None:
                renew.append(f"    o[{i}].{col.name}[row] = {value!r}")
    return [
        "\n".join(dies),
        f"def dies_bits(guards):\n    return {bits}",
        f"def counters_of(row, o, wanted):\n    if wanted:\n        return ({''.join(n + ', ' for n in read)})"
        f"\n    return ({'0, ' * len(read)})",
        "\n".join(kept),
        "\n".join(renew),
    ]


def fresh_value(column: KernelColumn, registry: Registry) -> int | bool | None:
    """A plugin column's value on a new object (400.7): zero for counters and scratch, the
    state's default; None (kept) for printed state and keyword parameters."""
    if column.parameters is not None:
        return None
    zero = False if column.kind == "bool" else 0
    if column.state is not None:
        field = registry.state_fields(column.owner).get(column.state)
        if field is None or field.printed:
            return None
        default = field.default if isinstance(field.default, bool | int) else zero
        return bool(default) if column.kind == "bool" else int(default)
    return zero
