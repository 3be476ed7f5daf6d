"""What the normal bot's trade proposals are worth to it: two ``normal`` bots against two that never propose a
trade (they still answer offers, as ``NormalBot.trades = False`` makes them), seats alternating.

A pure-Python player-turn of four ``normal`` bots costs about twice one of bots that never propose
(``turn_cost.py``): the looking for a trade and the trading game it leads to. This is the other side of that
bill, the share of games the proposing pair wins against the pair that saves that time. Prints both pairs'
win shares with 95 % Wilson intervals and the CPU time per game.

    .venv/bin/python benchmarks/trade_gain.py [--games 1000] [--mode classic] [--seed 5]
"""

from __future__ import annotations

import argparse
import time

from opolyx.bots import derive_seed, play_game
from opolyx.bots.normal import NormalBot
from opolyx.sim.stats import wilson


def proposing_pair_won(mode: str, seed: int, index: int) -> bool:
    """Game ``index``: True if a seat of the proposing pair won it (their seats are 0 and 2 in even games, 1 and 3
    in odd ones)."""
    game_seed = derive_seed(seed, "trade-gain", mode, index)
    proposing = index % 2
    bots = []
    for k in range(4):
        bot = NormalBot(derive_seed(game_seed, "bot", k))
        bot.trades = k % 2 == proposing
        bots.append(bot)
    game = play_game(mode, 4, game_seed, ["normal"] * 4, bots=bots)
    assert game.result is not None
    return any(pl["place"] == 1 and pl["seat"] % 2 == proposing for pl in game.result["placements"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    start = time.process_time()
    won = sum(proposing_pair_won(args.mode, args.seed, k) for k in range(args.games))
    spent = time.process_time() - start
    for label, wins in (("proposing trades", won), ("never proposing", args.games - won)):
        low, high = wilson(wins, args.games)
        print(f"{label:17} {wins / args.games:6.1%} of {args.games} {args.mode} games (95 %: {low:.1%}–{high:.1%})")
    print(f"{spent / args.games * 1e3:.1f} ms CPU per game")


if __name__ == "__main__":
    main()
