"""A hand-written mutant of the source (tools/mutation_audit.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """Replace `old` (which must occur exactly once in `path`) by `new`; `tests`: the test
    files run against it (none: the audit's rule tests)."""

    id: str
    path: str
    old: str
    new: str
    why: str
    tests: tuple[str, ...] = ()
