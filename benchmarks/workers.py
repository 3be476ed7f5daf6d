"""How ``opolyx simulate --workers 2`` scales against one worker, measured in pairs run back to back.

On a shared machine the speed of one run drifts by a fifth or more from one minute to the next, so a
single pair says little. This runs ``--rounds`` rounds; each round plays the same games with one worker and
then with two (through ``simulate``, the command's own function: pool start-up included, the summary
left out), and prints each round's games per second, its ratio, and the median and best ratio. With
``--methods fork,spawn`` each round runs two workers once per start method, so that their start-up costs
compare in the same round. The figures other than speed must be the same for every worker count and
method; the script says so, or stops.

    .venv/bin/python benchmarks/workers.py [--games 4000] [--rounds 5] [--methods fork,spawn]
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from opolyx.engine.compiled import build_name
from opolyx.sim.runner import SimConfig, pool_start_method, simulate


def run(config: SimConfig, workers: int, method: str | None) -> tuple[float, dict[str, Any]]:
    """Games per second (wall clock, as ``opolyx simulate`` reports it) and the figures of one run."""
    figures = simulate(config, workers, start_method=method)
    return figures.pop("performance")["games_per_second"], figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=4000, help="games per run")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of one run per worker count (and method)")
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--methods", default="", help="start methods to compare, e.g. fork,spawn (default: "
                        "the one opolyx simulate uses here)")
    args = parser.parse_args()
    config = SimConfig(args.mode, 4, ("normal",) * 4, games=args.games, seed=1)
    methods = [m for m in args.methods.split(",") if m] or [pool_start_method()]
    print(f"opolyx build: {build_name()}; {args.games} games of {args.mode}, 4 normal bots; two workers started "
          f"by {', '.join(methods)}")
    ratios: dict[str, list[float]] = {m: [] for m in methods}
    reference: dict[str, Any] | None = None
    for r in range(1, args.rounds + 1):
        one, figures = run(config, 1, None)
        reference = reference or figures
        if figures != reference:
            raise SystemExit("one worker's figures changed between rounds")
        line = f"round {r}: 1 worker {one:7.1f} games/s"
        for method in methods:
            two, figures = run(config, 2, method)
            if figures != reference:
                raise SystemExit(f"two workers started by {method} gave other figures than one worker")
            ratios[method].append(two / one)
            line += f" | 2 workers ({method}) {two:7.1f} games/s, {two / one:.2f}x"
        print(line, flush=True)
    print("same figures for every worker count and start method")
    for method, values in ratios.items():
        print(f"2 workers ({method}) / 1 worker: median {statistics.median(values):.2f}, best {max(values):.2f}, "
              f"worst {min(values):.2f} over {len(values)} rounds")


if __name__ == "__main__":
    main()
