"""Simulation speed on one core, and what each bot strength costs per decision.

Prints whole 4-seat Classic games per second with four normal bots, player-turns per game (a
player-turn is one ``turn_started`` event), µs per player-turn (engine and bots together), and the
time per decision of each strength (mean, p95, max). The hard bot runs with its default time budget
(30 ms, hard limit 50 ms), as it does against people.

    .venv/bin/python benchmarks/simulate.py [--games 200] [--decision-games 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from opolyx.bots import derive_seed, make_bot, play_game
from opolyx.bots.base import Bot
from opolyx.engine.compiled import build_name
from opolyx.engine.game import Game, new_game


class Timed:
    """Wraps a bot and records how long each ``choose`` takes."""

    def __init__(self, bot: Bot, sink: list[float]) -> None:
        self.bot = bot
        self.strength = bot.strength
        self.sink = sink

    def choose(self, game: Game, seat: int) -> dict[str, Any]:
        t = time.perf_counter()
        action = self.bot.choose(game, seat)
        self.sink.append(time.perf_counter() - t)
        return action


def whole_games(games: int, repeat: int) -> None:
    """The same games ``repeat`` times; the best run is reported (a shared machine only ever slows one down)."""
    turns = 0

    def count(game: Game, events: list[dict[str, Any]]) -> None:
        nonlocal turns
        for e in events:
            if e["type"] == "turn_started":
                turns += 1

    runs = []
    saves: list[dict[str, Any]] = []
    for _ in range(repeat):
        turns = 0
        start = time.process_time()
        for k in range(games):
            game = play_game("classic", 4, derive_seed(1, "bench", k), ["normal"] * 4, on_events=count)
            if len(saves) < games:
                saves.append(game.to_save())
        runs.append(time.process_time() - start)
    elapsed = min(runs)
    played = turns
    # The engine alone: the same games replayed action by action, no bots (the floor bots cannot beat).
    engine = []
    for _ in range(repeat):
        start = time.process_time()
        for save in saves:
            game = new_game("classic", 4, save["seed"], seat_info=save["seat_info"])
            for seat, action in save["actions"]:
                count(game, game.apply(seat, action))
        engine.append(time.process_time() - start)
    print(f"classic, 4 normal bots, {games} games on one core (CPU time, best of {repeat}, {build_name()}):")
    turns = played
    print(f"  {games / elapsed:8.1f} games/s")
    print(f"  {turns / games:8.1f} player-turns per game")
    print(f"  {elapsed / turns * 1e6:8.1f} µs per player-turn (engine + bots + event hook)")
    engine_us = min(engine) / turns * 1e6
    print(f"  {engine_us:8.1f} µs of it in the engine (the same games replayed without bots), "
          f"{elapsed / turns * 1e6 - engine_us:.1f} µs bots and loop")
    if repeat > 1:
        print(f"  runs: {', '.join(f'{r / turns * 1e6:.1f}' for r in runs)} µs per player-turn")


def decisions(games: int) -> None:
    times: dict[str, list[float]] = {"easy": [], "normal": [], "hard": []}
    for k in range(games):
        strengths = ["hard", "normal", "easy", "normal"]
        r = k % 4
        strengths = strengths[r:] + strengths[:r]
        bots = [Timed(make_bot(s, derive_seed(2, k, i)), times[s]) for i, s in enumerate(strengths)]
        play_game("classic", 4, derive_seed(3, "bench", k), strengths, bots=bots)
    print(f"time per decision (classic, hard/normal/easy/normal, {games} games, hard in time mode):")
    print(f"  {'bot':<8} {'decisions':>10} {'mean µs':>10} {'p95 µs':>10} {'max µs':>10}")
    for name, values in times.items():
        values.sort()
        n = len(values)
        mean = sum(values) / n
        p95 = values[min(n - 1, int(n * 0.95))]
        print(f"  {name:<8} {n:10d} {mean * 1e6:10.1f} {p95 * 1e6:10.1f} {values[-1] * 1e6:10.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="whole games with four normal bots")
    parser.add_argument("--decision-games", type=int, default=20, help="games for the per-decision timings")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the whole games; the best is reported")
    args = parser.parse_args()
    whole_games(args.games, args.repeat)
    decisions(args.decision_games)


if __name__ == "__main__":
    main()
