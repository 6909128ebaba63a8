"""The heatmap of `ecs-combat simulate --plot`: per matchup, the attacker's wins, the trades and
the blocker's wins, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ecs_combat.simulation.options import PLOT
from ecs_combat.simulation.outfiles import atomic_path

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The panels: the summary's count, its interval (if any), the panel's title, its colours.
PANELS = (
    ("attacker_wins", "attacker_win_rate_ci95", "attacker wins\n(only the blocking side loses creatures)", "Greens"),
    ("trades", None, "trades\n(both sides lose creatures)", "Oranges"),
    ("blocker_wins", "blocker_win_rate_ci95", "blocker wins\n(only the attacking side loses creatures)", "Reds"),
)  # fmt: skip


def heatmap_figure(doc: dict[str, Any]) -> Figure:
    """Three heatmaps side by side, rows the attacker's label and columns the blocker's: the
    share of each matchup's battles the attacker won, that traded, and that the blocker won,
    in percent (the wins with their 95% interval under them); the rest of the battles are those
    where nobody died. Each panel's colours span the shares found in it, so small
    differences show."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

    attackers = list(dict.fromkeys(m["attacker"] for m in doc["matchups"]))
    blockers = list(dict.fromkeys(m["blocker"] for m in doc["matchups"]))
    where = {(m["attacker"], m["blocker"]): m for m in doc["matchups"]}
    longest = min(40, max(len(label) for label in [*attackers, *blockers]))
    # square cells of 0.8 in; room for the colour bars, the row labels and, under the
    # columns, their labels (slanted)
    size = (
        3 * (0.8 * len(blockers) + 1.2) + 0.07 * longest,
        0.8 * len(attackers) + 0.05 * longest + 2,
    )
    fig = Figure(figsize=size, layout="constrained")
    axes = fig.subplots(1, len(PANELS), sharey=True)
    for p, (ax, (count, interval, title, colors)) in enumerate(zip(axes, PANELS, strict=True)):
        rate = np.full((len(attackers), len(blockers)), np.nan)
        for (a, b), m in where.items():
            rate[attackers.index(a), blockers.index(b)] = 100 * m[count] / m["battles"]
        low, high = float(np.nanmin(rate)), float(np.nanmax(rate))
        if high - low < 1e-9:  # one rate: a scale around it
            low, high = max(0.0, low - 1), min(100.0, high + 1)
        image = ax.imshow(np.ma.masked_invalid(rate), cmap=colors, vmin=low, vmax=high)
        ax.set_xticks(range(len(blockers)), blockers, rotation=35, ha="right", fontsize=8)
        ax.set_yticks(range(len(attackers)), attackers, fontsize=8)
        ax.tick_params(axis="y", labelleft=p == 0)
        ax.set_xlabel("blocker")
        if p == 0:
            ax.set_ylabel("attacker")
        ax.set_title(title, fontsize=10)
        digits = 0 if high - low >= 10 else 1
        for i, j in np.ndindex(rate.shape):
            if np.isnan(rate[i, j]):
                continue
            text = f"{rate[i, j]:.{digits}f}%"
            if interval is not None:
                lo, hi = where[(attackers[i], blockers[j])][interval]
                text += f"\n({100 * lo:.{digits}f}-{100 * hi:.{digits}f})"
            dark = (rate[i, j] - low) / (high - low) > 0.6
            ax.text(
                j, i, text, ha="center", va="center", fontsize=7,
                color="white" if dark else "black",
            )  # fmt: skip
        bar = fig.colorbar(image, ax=ax, shrink=0.8)
        bar.ax.yaxis.set_major_formatter(PercentFormatter(xmax=100, decimals=digits))
    spec_file = doc["run"].get("spec_file")
    what = doc["simulation"] + (f" {Path(spec_file).name}" if spec_file else "")
    fig.suptitle(
        f"Outcomes by matchup, in percent of its battles (the rest: nobody died)\n"
        f"{what}, {doc['battles']:,} battles, seed {doc['seed']}",
        fontsize=11,
    )
    return fig


def plot_heatmap(doc: dict[str, Any], path: str) -> None:
    """Draw the heatmap of :func:`heatmap_figure` to a PNG file."""
    fig = heatmap_figure(doc)
    with atomic_path(path, PLOT) as tmp:
        fig.savefig(tmp, format="png", dpi=120)
