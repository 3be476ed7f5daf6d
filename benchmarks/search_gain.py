"""What the hard bot's look-ahead adds, measured on paired games: the same seeds with the search on and off.

Each game seats one challenger against three copies of the hard bot without search (``hard-nosearch``),
the challenger's seat rotating. Game ``k`` is played twice with the same seeds, once with the search on and
once off: the two games are identical until the search first overturns a heuristic choice, so most
pairs end alike and the paired difference has a far smaller error than two independent tables would.
Prints both win rates, the paired difference with its standard error, how many pairs ended differently,
and the head-to-head reading of the search-on table (the searching seat's rate against the average of
the three seats without search).

    PYTHONPATH=. .venv/bin/python benchmarks/search_gain.py [--games 1200] [--mode classic] [--seed 5]
"""

from __future__ import annotations

import argparse
import math
import time

from opolyx.bots import derive_seed, play_game
from opolyx.bots.base import Bot
from opolyx.bots.hard import HardBot


def play(mode: str, seed: int, index: int, search: bool) -> bool:
    """Game ``index``: True if the challenger (search on or off) won it."""
    game_seed = derive_seed(seed, "search-gain", mode, index)
    seat = index % 4
    bots: list[Bot] = [HardBot(derive_seed(game_seed, "bot", k), deterministic=True, lookahead=k == seat and search)
                       for k in range(4)]
    game = play_game(mode, 4, game_seed, ["hard"] * 4, bots=bots)
    assert game.result is not None
    return any(pl["seat"] == seat and pl["place"] == 1 for pl in game.result["placements"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    start = time.process_time()
    on = [play(args.mode, args.seed, k, True) for k in range(args.games)]
    off = [play(args.mode, args.seed, k, False) for k in range(args.games)]
    n = args.games
    diffs = [int(a) - int(b) for a, b in zip(on, off, strict=True)]
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
    rate_on, rate_off = sum(on) / n, sum(off) / n
    print(f"{args.mode}, {n} paired games, seed {args.seed}, {time.process_time() - start:.0f} s CPU")
    print(f"  search on : {100 * rate_on:5.1f} % wins against three hard-nosearch (chance 25 %)")
    print(f"  search off: {100 * rate_off:5.1f} % wins in the same seats and seeds")
    print(f"  paired difference {100 * mean:+.1f} points (standard error {100 * se:.1f}); "
          f"{sum(1 for d in diffs if d)} of {n} pairs ended differently")
    print(f"  head-to-head (search on table): searching seat {100 * rate_on:.1f} % vs each seat without "
          f"{100 * (1 - rate_on) / 3:.1f} %, a gap of {100 * (rate_on - (1 - rate_on) / 3):.1f} points")


if __name__ == "__main__":
    main()
