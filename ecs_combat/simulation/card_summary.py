"""The summary of a simulation of real cards: per card, its fights' outcomes as rates a player
reads (overall, as attacker, as blocker); its chart (the table: :mod:`ecs_combat.cli.card_table`).

Each card's figures count the battles it was in, from its side: a **win** when only the other
side lost creatures, a **loss** when only its side did, a **trade** when both did, and
**neither dies** otherwise (no block, or nobody died). Each is given as a rate (per battle),
the win rate with its 95% Wilson interval, and the combat damage the card dealt to players per
battle. Cards are ranked by their **net wins**, the win rate minus the loss rate (of 100
fights, how many more it wins than it loses), then by damage to players per battle, then by
name.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ecs_combat.simulation.card_draw import CARD_COLUMNS, ROLES
from ecs_combat.simulation.intervals import rate_and_interval
from ecs_combat.simulation.options import PLOT
from ecs_combat.simulation.outfiles import atomic_path
from ecs_combat.simulation.pool import CardPool
from ecs_combat.simulation.simulate import COLUMNS, Run, summary_row
from ecs_combat.simulation.spec import Spec

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The chart shows this many best and as many worst cards (all of a pool twice as small).
CHART_CARDS = 15


#: The rates of a card's figures: key, the count it is of per battle.
RATES = {
    "trade_rate": "trades",
    "loss_rate": "losses",
    "neither_dies_rate": "neither_dies",
    "damage_per_battle": "dealt_to_players",
    "life_gained_per_battle": "life_gained",
}


def _figures(counts: npt.NDArray[np.int64]) -> dict[str, Any]:
    """A card's counts (:data:`CARD_COLUMNS`) and the measures read from them: the win rate
    with its interval, the other outcomes' rates, net wins, damage to players and life gained
    per battle (None without battles)."""
    row: dict[str, Any] = {
        name: int(v) for name, v in zip(CARD_COLUMNS, counts.tolist(), strict=True)
    }
    n = row["battles"]
    row["win_rate"], row["win_rate_ci95"] = rate_and_interval(row["wins"], n)
    for key, count in RATES.items():
        row[key] = round(row[count] / n, 6) if n else None
    row["net_wins"] = round((row["wins"] - row["losses"]) / n, 6) if n else None
    return row


def _rank_key(card: dict[str, Any]) -> tuple[Any, ...]:
    """Net wins, then damage to players per battle (both highest first), then the name; cards
    in no battle last."""
    if not card["battles"]:
        return (1, 0.0, 0.0, card["card"].casefold())
    return (0, -card["net_wins"], -card["damage_per_battle"], card["card"].casefold())


def card_rows(pool: CardPool, cards: npt.NDArray[np.int64] | None) -> list[dict[str, Any]]:
    """Per card of the pool: what it is and its figures (all roles, then per role), ranked."""
    if cards is None:
        cards = np.zeros((len(pool), len(ROLES), len(CARD_COLUMNS)), dtype=np.int64)
    out = []
    for i in range(len(pool)):
        row: dict[str, Any] = pool.card(i)
        if pool.ignored[i]:
            row["ignored_text"] = list(pool.ignored[i])
        row.update(_figures(cards[i].sum(axis=0)))
        for r, role in enumerate(ROLES):
            row[f"as_{role}"] = _figures(cards[i, r])
        out.append(row)
    out.sort(key=_rank_key)
    for rank, row in enumerate(out, start=1):
        row["rank"] = rank
    return [{"rank": row.pop("rank"), **row} for row in out]


def card_summary(pool: CardPool, spec: Spec, seed: int, run: Run) -> dict[str, Any]:
    """The machine-readable summary of a simulation of real cards; how the run was made is
    under ``run``."""
    tally = run.tally
    total = np.zeros(len(COLUMNS), dtype=np.int64)
    for row in tally.counts.values():
        total += row
    return {
        "simulation": "card pool",
        "seed": seed,
        "battles": int(total[0]),
        "creatures": tally.creatures,
        "spec": spec.describe(),
        "totals": summary_row(total),
        "cards": card_rows(pool, tally.cards),
        "run": run.describe(),
    }


# ---------------------------------------------------------------------------------------------
# The ranked table


def _chosen(
    cards: list[dict[str, Any]], n: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The best and the worst `n` cards that fought (all of them, as best, if at most 2n)."""
    fought = [c for c in cards if c["battles"]]
    if len(fought) <= 2 * n:
        return fought, []
    return fought[:n], fought[-n:]


def cards_figure(doc: dict[str, Any], n: int = CHART_CARDS) -> Figure:
    """The best and the worst `n` cards by net wins, best at the top: for each, two bars, its
    battles attacking (upper) and blocking (lower), each split into wins, trades, neither dies
    and losses in percent; beside them, in the right margin, the win rate with its interval
    and the net wins. Nothing is drawn over the card names or the figures."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

    best, worst = _chosen(doc["cards"], n)
    groups = [("best", best)] + ([("worst", worst)] if worst else [])
    height = sum(len(g) for _, g in groups) * 0.5 + 1.6 * len(groups) + 1
    fig = Figure(figsize=(12, max(3.5, height)), layout="constrained")
    axes = fig.subplots(len(groups), 1, squeeze=False)[:, 0]
    parts = [
        ("win_rate", "win", "#2e8b57"),
        ("trade_rate", "trade", "#e0b040"),
        ("neither_dies_rate", "neither dies", "#b0b0b0"),
        ("loss_rate", "loss", "#c0392b"),
    ]
    for ax, (which, cards) in zip(axes, groups, strict=True):
        labels = [f"{c['rank']}. {c['card']} ({c['power']}/{c['toughness']})" for c in cards]
        y = np.arange(len(cards))[::-1].astype(float)
        for offset, role in ((0.2, "as_attacker"), (-0.2, "as_blocker")):
            left = np.zeros(len(cards))
            for key, label, color in parts:
                share = np.array([100 * (c[role][key] or 0.0) for c in cards])
                ax.barh(
                    y + offset, share, left=left, color=color, height=0.38,
                    label=label if role == "as_attacker" else None,
                )  # fmt: skip
                left += share
        for yi, c in zip(y, cards, strict=True):
            lo, hi = c["win_rate_ci95"]
            ax.text(
                1.01, yi, f"win {100 * c['win_rate']:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}), "
                f"net {100 * c['net_wins']:+.1f}%", va="center", ha="left", fontsize=8,
                transform=ax.get_yaxis_transform(), clip_on=False,
            )  # fmt: skip
        ax.set_yticks(y, labels, fontsize=9)
        ax.set_ylim(-0.6, len(cards) - 0.4)
        ax.set_xlim(0, 100)
        ax.xaxis.set_major_formatter(PercentFormatter(xmax=100, decimals=0))
        shown_what = f"{which} {len(cards)}" if worst else f"all {len(cards)} cards"
        ax.set_title(
            f"{shown_what} by net wins (win rate minus loss rate); upper bar attacking, lower "
            "bar blocking",
            fontsize=10,
            loc="left",
        )
    axes[0].legend(
        ncols=4, loc="lower right", bbox_to_anchor=(1.0, 1.06), fontsize=8, frameon=False
    )
    axes[-1].set_xlabel("share of the card's battles in that role")
    spec_file = doc["run"].get("spec_file")
    what = f" {Path(spec_file).name}" if spec_file else ""
    fig.suptitle(
        f"Card pool{what}: {doc['battles']:,} battles, {len(doc['cards']):,} cards, "
        f"seed {doc['seed']}",
        fontsize=11,
    )
    return fig


def plot_cards(doc: dict[str, Any], path: str) -> None:
    """Draw the chart of :func:`cards_figure` to a PNG file."""
    fig = cards_figure(doc)
    with atomic_path(path, PLOT) as tmp:
        fig.savefig(tmp, format="png", dpi=120)
