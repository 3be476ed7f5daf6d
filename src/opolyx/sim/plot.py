"""Pictures of a simulation: landing heat on the board, and win rates with their confidence intervals.

matplotlib is imported here only, with the Agg backend, so the simulator runs headless and the CLI
starts quickly when no picture is asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def formats() -> tuple[str, ...]:
    """The file endings a picture can be saved as (``png``, ``svg``, ``pdf``, …)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backend_bases import FigureCanvasBase

    return tuple(FigureCanvasBase.get_supported_filetypes())


def board_cell(index: int, n: int = 40) -> tuple[int, int]:
    """(column, row) of square ``index`` on an 11×11 ring: Start bottom right, play runs clockwise."""
    side = n // 4
    if index <= side:
        return side - index, 0
    if index <= 2 * side:
        return 0, index - side
    if index <= 3 * side:
        return index - 2 * side, side
    return side, 4 * side - index


def write_plot(data: dict[str, Any], path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import cm, colors
    from matplotlib.patches import Rectangle

    landings = data["landing_frequency"]
    shares = [x["share"] for x in landings]
    n = len(shares)
    side = n // 4
    fig = plt.figure(figsize=(15, 6.5))
    ax = fig.add_axes((0.02, 0.05, 0.45, 0.88))
    norm = colors.Normalize(vmin=min(shares), vmax=max(shares) or 1.0)
    cmap = matplotlib.colormaps["YlOrRd"]
    for x in landings:
        col, row = board_cell(x["square"], n)
        ax.add_patch(Rectangle((col, row), 1, 1, facecolor=cmap(norm(x["share"])), edgecolor="black", lw=0.6))
        ax.text(col + 0.5, row + 0.62, str(x["square"]), ha="center", va="center", fontsize=7)
        ax.text(col + 0.5, row + 0.3, f"{x['share']:.1%}", ha="center", va="center", fontsize=6)
    ax.set_xlim(0, side + 1)
    ax.set_ylim(0, side + 1)
    ax.set_aspect("equal")
    ax.axis("off")
    cfg = data["config"]
    ax.set_title(f"Landing frequency — {cfg['mode']}, {cfg['games']} games")
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, fraction=0.04, pad=0.01, format="%.3f")

    panels = (("win_rate_by_bot", "Win rate by bot"), ("win_rate_by_seat", "Win rate by seat"))
    for k, (key, title) in enumerate(panels):
        bx = fig.add_axes((0.55 + k * 0.23, 0.12, 0.19, 0.78))
        rates = data[key]
        labels = list(rates)
        values = [rates[label]["rate"] for label in labels]
        low = [rates[label]["rate"] - rates[label]["ci95"][0] for label in labels]
        high = [rates[label]["ci95"][1] - rates[label]["rate"] for label in labels]
        bx.bar(range(len(labels)), values, yerr=[low, high], capsize=4, color="#d9822b")
        bx.set_xticks(range(len(labels)))
        bx.set_xticklabels(labels if key == "win_rate_by_bot" else [f"seat {s}" for s in labels], rotation=30)
        bx.set_ylim(0, 1)
        bx.set_title(f"{title} (95 % CI)")
        bx.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    fig.savefig(str(path), dpi=110)
    plt.close(fig)
