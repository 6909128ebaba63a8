"""The heatmap of `ecs-combat simulate --plot`: the attacker's win rate per matchup."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ecs_combat.simulation.outfiles import atomic_path

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def heatmap_figure(doc: dict[str, Any]) -> Figure:
    """The attacker win rate of every matchup (attacker label x blocker label), in percent,
    with its 95% interval under it; the colours span the rates found, from the lowest (red)
    to the highest (green)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

    attackers = list(dict.fromkeys(m["attacker"] for m in doc["matchups"]))
    blockers = list(dict.fromkeys(m["blocker"] for m in doc["matchups"]))
    rate = np.full((len(attackers), len(blockers)), np.nan)
    for m in doc["matchups"]:
        rate[attackers.index(m["attacker"]), blockers.index(m["blocker"])] = (
            100 * m["attacker_wins"] / m["battles"]
        )
    low, high = float(np.nanmin(rate)), float(np.nanmax(rate))
    if high - low < 1e-9:  # one rate: a scale around it
        low, high = max(0.0, low - 1), min(100.0, high + 1)
    size = (max(6.0, 1.1 * len(blockers) + 3), max(4.5, 0.8 * len(attackers) + 2))
    fig = Figure(figsize=size, layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(np.ma.masked_invalid(rate), cmap="RdYlGn", vmin=low, vmax=high)
    ax.set_xticks(range(len(blockers)), blockers, rotation=30, ha="right")
    ax.set_yticks(range(len(attackers)), attackers)
    ax.set_xlabel("blocker")
    ax.set_ylabel("attacker")
    digits = 0 if high - low >= 10 else 1
    interval = {(m["attacker"], m["blocker"]): m["attacker_win_rate_ci95"] for m in doc["matchups"]}
    for i, j in np.ndindex(rate.shape):
        if not np.isnan(rate[i, j]):
            shade = (rate[i, j] - low) / (high - low)
            color = "white" if shade < 0.2 or shade > 0.85 else "black"
            lo, hi = interval[(attackers[i], blockers[j])]
            ax.text(
                j, i, f"{rate[i, j]:.{digits}f}%\n({100 * lo:.{digits}f}-{100 * hi:.{digits}f})",
                ha="center", va="center", fontsize=8, color=color,
            )  # fmt: skip
    spec_file = doc["run"].get("spec_file")
    what = doc["simulation"] + (f" {Path(spec_file).name}" if spec_file else "")
    ax.set_title(
        f"Attacker win rate by matchup\n{what}, {doc['battles']:,} battles, seed {doc['seed']}",
        fontsize=11,
    )
    bar = fig.colorbar(image, ax=ax, label="attacker wins (only the blocking side loses creatures)")
    bar.ax.yaxis.set_major_formatter(PercentFormatter(xmax=100, decimals=digits))
    return fig


def plot_heatmap(doc: dict[str, Any], path: str) -> None:
    """Draw the heatmap of :func:`heatmap_figure` to a PNG file."""
    fig = heatmap_figure(doc)
    with atomic_path(path, "--plot") as tmp:
        fig.savefig(tmp, format="png", dpi=120)
