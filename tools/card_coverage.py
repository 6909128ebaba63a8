"""How many database creatures the bundled plugins model exactly, and which missing keywords
would make the most of the rest exact: ``python tools/card_coverage.py [--write]``.

A card is exact when every line of its rules text is a list of keywords the plugins model
(ecs_combat.cards.modeling). For each approximate card this reads its ignored lines against
every keyword MTGJSON names on any card (the ``keywords`` of data/creatures.jsonl.gz): a line
is *only keywords* when each comma-separated part is such a keyword, alone or with a number,
a mana cost, ``from ...`` or a cost after an em dash (``Ward {2}``, ``Cumulative upkeep {1}``,
``Ward—Pay 3 life``); an ability word's ``Landfall — Whenever ...`` is not. A card whose
ignored lines are all only keywords would be exact once those keywords are modeled.

Prints the Markdown that docs/cards.md shows between its ``coverage`` markers; ``--write``
puts it there (tests/test_card_coverage.py checks the page says what this computes).
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ecs_combat.cards.database import database
from ecs_combat.cards.library import modelings
from ecs_combat.plugin.loading import ENTRY_POINT_GROUP, load_registry
from ecs_combat.plugin.registry import Registry

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "data" / "creatures.jsonl.gz"
PAGE = ROOT / "docs" / "cards.md"
BEGIN = "<!-- coverage: tools/card_coverage.py -->\n"
END = "<!-- /coverage -->\n"
#: Keywords shown in the ranking.
TOP = 12
#: What may follow a keyword's name in a keyword line.
_REST = re.compile(r"^(\d+|X|(\{[^}]+\})+|from .+|with .+|)$")
_SEPARATORS = re.compile(r"\s*[,;]\s*")


@dataclass(frozen=True)
class Coverage:
    """The figures docs/cards.md gives."""

    total: int
    exact: int
    #: Approximate cards whose ignored text is only keywords.
    only_keywords: int
    #: Missing keyword -> approximate cards whose ignored text is only keywords and names it.
    named: dict[str, int]
    #: Keywords in greedy order, each with the cards exact once it and those before it are
    #: modeled (cumulative, beyond today's exact ones).
    greedy: list[tuple[str, int]]


def bundled_registry() -> Registry:
    """The registry of the plugins this distribution ships (others installed are blocked)."""
    others = {
        ep.name
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)
        if ep.dist is None or ep.dist.metadata["Name"] != "ecs-combat"
    }
    return load_registry(block=others)


def keyword_names(source: Path = SOURCE) -> set[str]:
    """Every keyword MTGJSON names on a creature card of the source data, lower case."""
    with gzip.open(source, "rt", encoding="utf-8") as f:
        return {k.lower() for line in f if line.strip() for k in json.loads(line)["keywords"]}


def line_keywords(line: str, names: set[str]) -> set[str] | None:
    """The keywords a line of rules text consists of, or None if it is anything else."""
    found: set[str] = set()
    for part in (p for p in _SEPARATORS.split(line.strip().rstrip(".")) if p):
        words = part.split(" ")
        for cut in range(len(words), 0, -1):
            head = " ".join(words[:cut]).lower()
            rest = " ".join(words[cut:])
            if "—" in head and head.split("—")[0] in names:  # Ward—Pay 3 life
                head, rest = head.split("—")[0], ""
            if head in names and (_REST.match(rest) or head.endswith(" with")):
                found.add(head)
                break
        else:
            return None
    return found or None


def coverage(registry: Registry, names: set[str]) -> Coverage:
    """The figures, for the plugins of `registry` and the keyword names `names`."""
    missing = {n for n in names if registry.keyword(n) is None}
    needs: list[frozenset[str]] = []
    exact = 0
    for modeling in modelings(registry):
        if modeling.exact:
            exact += 1
            continue
        need: set[str] = set()
        for line in modeling.ignored:
            read = line_keywords(line, names)
            if read is None or not read <= missing:
                break
            need |= read
        else:
            needs.append(frozenset(need))
    named = Counter(k for need in needs for k in need)
    return Coverage(
        len(database()), exact, len(needs), dict(named.most_common()), _greedy(needs, TOP)
    )


def _greedy(needs: Iterable[frozenset[str]], steps: int) -> list[tuple[str, int]]:
    """Keywords chosen one at a time, each the one that makes the most cards exact with those
    chosen before it (ties: the name first in order), with the cumulative count."""
    pending = list(needs)
    chosen: set[str] = set()
    out: list[tuple[str, int]] = []
    done = 0
    for _ in range(steps):
        gain: Counter[str] = Counter()
        for need in pending:
            left = need - chosen
            if len(left) == 1:
                gain[next(iter(left))] += 1
        if not gain:
            break
        best = min(gain, key=lambda k: (-gain[k], k))
        chosen.add(best)
        done += gain[best]
        pending = [n for n in pending if not n <= chosen]
        out.append((best, done))
    return out


def markdown(c: Coverage) -> str:
    """The Markdown block of docs/cards.md."""
    approximate = c.total - c.exact
    lines = [
        f"- Database creature cards: **{c.total:,}**",
        f"- Exact with the bundled plugins: **{c.exact:,}** ({c.exact / c.total:.1%})",
        f"- Approximate: **{approximate:,}**; of these, **{c.only_keywords:,}** have ignored "
        "text that is only keywords no bundled plugin models (the rest have other rules text)",
        "",
        "| keyword to add | cards it would make exact, with those above | "
        "approximate cards naming it (only keywords) |",
        "|---|---:|---:|",
    ]
    lines += [f"| {k} | {n:,} | {c.named[k]:,} |" for k, n in c.greedy]
    return "\n".join(lines) + "\n"


def main() -> None:
    block = markdown(coverage(bundled_registry(), keyword_names()))
    if "--write" not in sys.argv[1:]:
        print(block, end="")
        return
    text = PAGE.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    PAGE.write_text(text[:start] + block + text[end:])
    print(f"{PAGE.relative_to(ROOT)}: updated")


if __name__ == "__main__":
    main()
