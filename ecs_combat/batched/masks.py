"""The registry's keyword declarations as bit masks over one batch's keyword bits."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.errors import RefusedError
from ecs_combat.plugin.definitions import Keyword
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.pipeline import StepPlan

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


#: Keyword fields this engine reads, or knows need nothing at resolution (the loader checks
#: declarations; names, rules and summaries are words). A keyword switching on any other field
#: makes the batched engine refuse scenarios that use it rather than answer wrongly.
UNDERSTOOD_FIELDS = frozenset(
    {
        "name",
        "rule",
        "counter",
        "target",
        "strikes_in",
        "withholds_from",
        "requires",
        "summary",
        "parameter",
        "defender_sacrifices",  # the loader checks `sacrifices` with it
        "tokens",  # rows reserved as the batch is built (from_scenarios.py)
    }
)


@dataclass(frozen=True)
class KeywordMasks:
    """The registry's keyword fields as bitmasks over one batch's keyword bits."""

    names: tuple[str, ...]
    bit: dict[str, int]
    #: Per step (registry order): keywords that strike in it, keywords that sit it out.
    strike: tuple[int, ...]
    withhold: tuple[int, ...]
    #: Keywords the batched engine can't resolve, with the reason.
    refused: dict[str, str]

    @classmethod
    def build(
        cls, registry: Registry, plans: Sequence[StepPlan], names: Sequence[str]
    ) -> KeywordMasks:
        """Masks for a batch whose bit ``i`` is keyword ``names[i]``."""
        if len(names) > 64:
            raise RefusedError(f"{len(names)} keyword bits; the batched engine's masks hold 64")
        bit = {name: 1 << i for i, name in enumerate(names)}
        defs: dict[str, Keyword] = {}
        refused: dict[str, str] = {}
        for name in names:
            kw = registry.keywords.get(name)
            if kw is None:
                refused[name] = f"keyword {name!r} is not in the plugin registry"
                continue
            defs[name] = kw
            for f in dataclasses.fields(kw):  # a subclass's fields too
                if f.name not in UNDERSTOOD_FIELDS and getattr(kw, f.name) != f.default:
                    refused[name] = (
                        f"keyword {name!r} sets {f.name}, which the batched engine doesn't model"
                    )
        for name, owner in registry.without_batched_form().items():
            if name in bit:
                refused[name] = (
                    f"plugin {owner!r} (keyword {name!r}) adds a system without a batched form"
                )
        static_only = set(registry.plugins_implementing("static_keywords")) - set(
            registry.plugins_implementing("static_keywords_batch")
        )
        for name in names:
            plugin = registry.keyword_plugin.get(name)
            if plugin in static_only:
                refused[name] = (
                    f"plugin {plugin!r} (keyword {name!r}) implements static_keywords but not "
                    "static_keywords_batch"
                )

        def having(flag: Callable[[Keyword], object]) -> int:
            return sum(bit[n] for n, kw in defs.items() if flag(kw))

        return cls(
            names=tuple(names),
            bit=bit,
            strike=tuple(sum(bit[k] for k in p.strike_keywords if k in bit) for p in plans),
            withhold=tuple(sum(bit[k] for k in p.withhold_keywords if k in bit) for p in plans),
            refused=refused,
        )

    def decode(self, mask: int) -> set[str]:
        """The keyword names of a mask."""
        return {name for name, b in self.bit.items() if mask & b}
