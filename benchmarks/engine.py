"""Engine speed: whole games with random legal actions, on one core (issue: the rules engine, Speed).

Prints, for each mode, games per second, actions per second and microseconds per action. The random
player takes a uniformly random listed action (trade templates and resigning left out), so the figures
include ``legal_actions`` as well as ``apply`` — what a simulation pays per decision.

    .venv/bin/python benchmarks/engine.py [--games N] [--seats 4] [--modes classic,blitz,...]
"""

from __future__ import annotations

import argparse
import random
import time

import opolyx
from opolyx.engine.compiled import build_name
from opolyx.rules import mode_names


def play(mode: str, seats: int, seed: int) -> int:
    rng = random.Random(seed)
    game = opolyx.new_game(mode, seats, seed)
    actions = 0
    while not game.is_over:
        seat = game.actor()
        assert seat is not None
        legal = [a for a in game.legal_actions(seat) if a["type"] not in ("propose_trade", "resign")]
        game.apply(seat, rng.choice(legal))
        actions += 1
    return actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--modes", default=",".join(mode_names()))
    args = parser.parse_args()
    print(f"opolyx build: {build_name()}")
    print(f"{'mode':<8} {'games/s':>9} {'actions/s':>11} {'µs/action':>10} {'actions/game':>13}")
    for mode in args.modes.split(","):
        start = time.perf_counter()
        total = sum(play(mode, args.seats, seed) for seed in range(args.games))
        elapsed = time.perf_counter() - start
        print(f"{mode:<8} {args.games / elapsed:9.1f} {total / elapsed:11.0f} {elapsed / total * 1e6:10.2f} "
              f"{total / args.games:13.0f}")


if __name__ == "__main__":
    main()
