"""The esper worlds combats run in: each combat (or turn) in its own, deleted afterwards.

esper keeps the current world in module globals, so combats in different threads of a process
take turns (:func:`isolated_world`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import esper

_world_ids = itertools.count()
#: Held while a body runs in an esper world: esper's current world is one per process, so a
#: combat in another thread would switch it away mid-combat.
_world_lock = threading.RLock()


@contextmanager
def isolated_world() -> Iterator[str]:
    """Run the body in a fresh esper world, deleted afterwards; one thread at a time."""
    with _world_lock:
        previous = esper.current_world
        name = f"ecs-combat-{next(_world_ids)}"
        esper.switch_world(name)
        try:
            yield name
        finally:
            esper.switch_world(previous)
            esper.delete_world(name)
