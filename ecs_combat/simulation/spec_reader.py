"""Reading a SPEC file: a TOML or JSON document, checked key by key into a
:class:`~ecs_combat.simulation.spec.BattleSpec` (format in docs/simulate.md). Every problem is
an :class:`~ecs_combat.errors.InputError` naming the file, the key path and what is wrong;
unknown keys are errors.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario import documents
from ecs_combat.scenario.checks import Checker, check_document, describe_integer, type_name
from ecs_combat.scenario.instances import parse_instance
from ecs_combat.simulation.pool import CardPool, PoolReader
from ecs_combat.simulation.spec import (
    DECISIONS,
    DEFAULT_LIFE,
    MAX_ATTACKERS,
    MAX_BATTLE_CREATURES,
    MAX_BLOCKERS_PER_ATTACKER,
    MAX_MATCHUP_KEYWORDS,
    MAX_STAT,
    TOURNAMENT_RANGE,
    BattleSpec,
    Range,
    SideSpec,
    decisions_refused,
    most_creatures,
    race_refused,
    requires_blocks,
)
from ecs_combat.simulation.spec_casts import parse_casts
from ecs_combat.simulation.spec_race import parse_race, refuse_beside_race
from ecs_combat.simulation.turns import parse_turn
from ecs_combat.suggest import did_you_mean


class SpecReader(Checker):
    """Typed, validated access to a raw SPEC document."""

    TOP = documents.MARKS["spec"]
    SIDE = frozenset({"power", "toughness", "keywords", "state", "pool"})
    #: What the cards of a pool decide: not given beside ``[pool]``.
    CARD_DECIDES = ("power", "toughness", "keywords", "matchup")

    def __init__(self, registry: Registry, file: str) -> None:
        super().__init__(file)
        self.registry = registry
        #: Whether the blocks are chosen (``decisions = "optimal"``), not drawn.
        self.optimal = False

    def range(self, value: Any, path: str, lo: int, hi: int | None = None) -> Range:
        """An integer, or ``[min, max]`` (both included)."""
        if isinstance(value, list):
            if len(value) != 2:
                raise self.fail(
                    path, f"must be an integer or [min, max], not a list of {len(value)}"
                )
            a = self.integer(value[0], f"{path}[0]", lo, hi)
            b = self.integer(value[1], f"{path}[1]", lo, hi)
            if a > b:
                raise self.fail(path, f"min {a} is greater than max {b}")
            return a, b
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"must be an integer or [min, max], not {type_name(value)}")
        n = self.integer(value, path, lo, hi)
        return n, n

    def probability(self, value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(path, f"probability must be a number, not {type_name(value)}")
        if not 0.0 <= value <= 1.0:
            shown = describe_integer(value) if isinstance(value, int) else value
            raise self.fail(path, f"probability must be between 0 and 1, not {shown}")
        return float(value)

    def keyword(self, name: Any, path: str) -> str:
        if not isinstance(name, str) or not name.strip():
            raise self.fail(path, f"must be a keyword name, not {type_name(name)}")
        kw = self.registry.keyword(name)
        if kw is None:
            try:  # "bushido 2", "protection from red": a keyword with its parameter
                kw = self.registry.keyword(parse_instance(name, self.registry).name)
            except ValueError:
                kw = None
            if kw is None:
                raise self.fail(path, self.registry.unknown_keyword_reason(name))
        if kw.parameter:
            example = f"{kw.name} 2" if kw.parameter == "number" else f"{kw.name} from red"
            raise self.fail(
                path,
                f"{kw.name!r} takes a {kw.parameter} ({example!r}), and a SPEC draws keywords "
                "without parameters only: leave it out, or resolve scenario files that write "
                "its instances",
            )
        if not self.optimal and requires_blocks(self.registry, (kw.name,)):
            raise self.fail(
                path,
                f"{kw.name!r} sets a block requirement (509.1c), and a SPEC's drawn blocks obey "
                'restrictions only: leave it out, or choose the blocks (decisions = "optimal")',
            )
        return kw.name

    def keyword_probabilities(self, value: Any, path: str) -> dict[str, float]:
        table = self.table(value, path)
        out: dict[str, float] = {}
        for key, p in table.items():
            where = f"{path}.{key}"
            name = self.keyword(key, where)
            if name in out:
                raise self.fail(where, f"keyword {name!r} is listed twice")
            out[name] = self.probability(p, where)
        return out

    def side(
        self, raw: Any, path: str, base: SideSpec, base_keywords: dict[str, float]
    ) -> SideSpec:
        t = self.table(raw, path)
        self.keys(t, path, self.SIDE)
        keywords = dict(base_keywords)
        if "keywords" in t:
            keywords.update(self.keyword_probabilities(t["keywords"], f"{path}.keywords"))
        return SideSpec(
            power=(
                self.range(t["power"], f"{path}.power", 0, MAX_STAT) if "power" in t else base.power
            ),
            toughness=(
                self.range(t["toughness"], f"{path}.toughness", 1, MAX_STAT)
                if "toughness" in t
                else base.toughness
            ),
            keywords=self._in_registry_order(keywords),
            state={
                **base.state,
                **self.state_probabilities(t.get("state", {}), f"{path}.state", "creature"),
            },
        )

    def state_probabilities(self, raw: Any, path: str, owner: str) -> dict[str, float]:
        """Probabilities of yes-or-no state plugins add to creatures or players."""
        t = self.table(raw, path)
        fields = self.registry.state_fields(owner)
        yes_or_no = {k for k, f in fields.items() if f.kind == "bool"}
        self.keys(t, path, frozenset(yes_or_no))
        drawn = {k: self.probability(v, f"{path}.{k}") for k, v in t.items()}
        return {k: drawn[k] for k in fields if drawn.get(k, 0) > 0}

    def _in_registry_order(self, probabilities: dict[str, float]) -> dict[str, float]:
        return {k: probabilities[k] for k in self.registry.keywords if probabilities.get(k, 0) > 0}

    def matchup(self, raw: Any) -> tuple[str, ...]:
        if not isinstance(raw, list):
            raise self.fail("matchup", f"must be a list of keywords, not {type_name(raw)}")
        names: list[str] = []
        for i, item in enumerate(raw):
            name = self.keyword(item, f"matchup[{i}]")
            if name in names:
                raise self.fail(f"matchup[{i}]", f"keyword {name!r} is listed twice")
            names.append(name)
        if len(names) > MAX_MATCHUP_KEYWORDS:
            raise self.fail("matchup", f"at most {MAX_MATCHUP_KEYWORDS} keywords, not {len(names)}")
        return tuple(names)

    def pool(self, doc: dict[str, Any]) -> CardPool | None:
        """The card pool of the SPEC, if it has ``pool`` tables; then the cards decide power,
        toughness and keywords, which are refused beside it."""
        sides = {s: self.table(doc.get(s, {}), s) for s in ("attacker", "blocker")}
        if "pool" not in doc and not any("pool" in t for t in sides.values()):
            return None
        for key in self.CARD_DECIDES:
            for where, t in (("", doc), *sides.items()):
                if key in t:
                    path = f"{where}.{key}" if where else key
                    raise self.fail(
                        path,
                        "a SPEC with a card pool takes power, toughness and keywords from the "
                        "cards, and labels battles by card: leave it out",
                    )
        return PoolReader(self, self.registry).pool(
            doc.get("pool"), sides["attacker"].get("pool"), sides["blocker"].get("pool")
        )

    def parse(self, raw: Any) -> BattleSpec:
        doc = self.table(raw, "")
        check_document(doc, self.file)
        self.keys(doc, "", self.TOP)
        # a race's declarations are legal ones, requirements obeyed, whether searched or drawn
        self.optimal = doc.get("decisions") == "optimal" or "race" in doc
        if "race" in doc:
            refuse_beside_race(self, doc)
        pool = self.pool(doc)
        keywords = self.keyword_probabilities(doc.get("keywords", {}), "keywords")
        state = self.table(doc.get("state", {}), "state")
        self.keys(state, "state", frozenset({"creature", "player"}))
        base = SideSpec(
            power=self.range(doc.get("power", list(TOURNAMENT_RANGE)), "power", 0, MAX_STAT),
            toughness=self.range(
                doc.get("toughness", list(TOURNAMENT_RANGE)), "toughness", 1, MAX_STAT
            ),
            state=self.state_probabilities(state.get("creature", {}), "state.creature", "creature"),
        )
        if pool is not None and "turn" in doc:
            raise self.fail(
                "turn",
                "a SPEC draws either real cards from a pool or a turn with several combat "
                "phases, not both (card pools play one combat phase)",
            )
        spec = BattleSpec(
            attackers=self.range(doc.get("attackers", 1), "attackers", 1, MAX_ATTACKERS),
            blockers_per_attacker=self.range(
                doc.get("blockers_per_attacker", 1),
                "blockers_per_attacker",
                0,
                MAX_BLOCKERS_PER_ATTACKER,
            ),
            life=self.integer(doc.get("life", DEFAULT_LIFE), "life", 1),
            player_state=self.state_probabilities(
                state.get("player", {}), "state.player", "player"
            ),
            attacker=self.side(doc.get("attacker", {}), "attacker", base, keywords),
            blocker=self.side(doc.get("blocker", {}), "blocker", base, keywords),
            casts=parse_casts(self, doc.get("casts", [])),
            matchup=self.matchup(doc.get("matchup", [])),
            turn=parse_turn(self, doc["turn"]) if "turn" in doc else None,
            pool=pool,
        )
        if most_creatures(spec) > MAX_BATTLE_CREATURES:
            raise self.fail(
                "attackers" if "attackers" in doc else "blockers_per_attacker",
                f"its largest battle would have {most_creatures(spec):,} creatures "
                f"({spec.attackers[1]:,} attackers and up to "
                f"{spec.blockers_per_attacker[1]:,} blockers per attacker"
                + (", and the turn's creatures" if spec.turn is not None else "")
                + f"); a battle has at most {MAX_BATTLE_CREATURES:,}",
            )
        if "race" in doc:
            spec = replace(spec, race=parse_race(self, doc))
            why = race_refused(spec, self.registry)
            if why is not None:
                raise self.fail("race", f"refused for this SPEC: {why}")
        if "decisions" in doc:
            spec = replace(spec, decisions=self.decisions(doc["decisions"]))
            why = decisions_refused(spec, self.registry)
            if why is not None:
                raise self.fail("decisions", f'"optimal" is refused for this SPEC: {why}')
        return spec

    def decisions(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.fail(
                "decisions",
                f"must be one of {', '.join(map(repr, DECISIONS))}, not {type_name(value)}",
            )
        if value not in DECISIONS:
            raise self.fail(
                "decisions",
                f"must be one of {', '.join(map(repr, DECISIONS))}, not {value!r}"
                f"{did_you_mean(value, list(DECISIONS))}",
            )
        return value


def parse_spec(doc: Any, registry: Registry, file: str = "<spec>") -> BattleSpec:
    """Validate a raw SPEC document (a dict as read from TOML)."""
    return SpecReader(registry, file).parse(doc)


def load_spec(path: str | Path, registry: Registry) -> BattleSpec:
    """Read and validate a SPEC file (TOML or JSON)."""
    ((where, doc),) = documents.read_documents(path, "spec")
    return parse_spec(doc, registry, where)
