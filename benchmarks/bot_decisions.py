"""Time per decision of our bots at the table, against the field of outside strategies.

Each game seats one bot of the measured strength against three copies of a field strategy (rotating over
the field), and times every ``choose`` of the measured seat. The hard bot runs as it does against people:
on its time budget (``--hard-ms``, default 30 ms, never past 45 ms), so its rollout count adapts to the
machine. Prints mean, p50, p99 and max per strength. Times are the thread's CPU time: on a shared machine
(load far above its cores) wall-clock time measures the neighbours, not the bot. Even CPU time grows with
the neighbours (shared caches); ``--repeat N`` plays the same games N times and keeps, per decision, the
least time of the N (the games and decisions are the same each time; a neighbour only ever adds), which
is what comparing two versions on a busy machine needs.

    PYTHONPATH=. .venv/bin/python benchmarks/bot_decisions.py [--games 12] [--hard-games 4] [--mode classic]
                                                              [--repeat 1]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from opolyx.bots import derive_seed, make_bot, play_game
from opolyx.bots.base import Bot
from opolyx.engine.game import Game
from opolyx.sim.field import STRATEGIES


class Timed:
    """Wraps a bot and records how long each ``choose`` takes."""

    def __init__(self, bot: Bot, sink: list[float]) -> None:
        self.bot = bot
        self.strength = bot.strength
        self.sink = sink

    def choose(self, game: Game, seat: int) -> dict[str, Any]:
        t = time.thread_time()
        action = self.bot.choose(game, seat)
        self.sink.append(time.thread_time() - t)
        return action


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(strength: str, games: int, mode: str, hard_ms: float | None) -> list[float]:
    times: list[float] = []
    field = sorted(STRATEGIES)
    for k in range(games):
        opponent = field[k % len(field)]
        seed = derive_seed(2, "decisions", strength, k)
        seat = k % 4
        bots: list[Bot] = [STRATEGIES[opponent](derive_seed(seed, s)) for s in range(4)]
        bots[seat] = Timed(make_bot(strength, derive_seed(seed, "me"), budget_ms=hard_ms), times)
        play_game(mode, 4, seed, [b.strength for b in bots], bots=bots)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="games for the normal bot")
    parser.add_argument("--hard-games", type=int, default=4, help="games for the hard bot")
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--hard-ms", type=float, default=None)
    parser.add_argument("--repeat", type=int, default=1,
                        help="normal bot: per decision, the least time of this many runs")
    args = parser.parse_args()
    for strength, games in (("normal", args.games), ("hard", args.hard_games)):
        if games <= 0:
            continue
        # The hard bot's time budget makes its decisions vary from run to run: it is measured once.
        repeat = max(1, args.repeat) if strength == "normal" else 1
        runs = [measure(strength, games, args.mode, args.hard_ms) for _ in range(repeat)]
        times = [min(ts) for ts in zip(*runs, strict=True)]
        ms = [t * 1000 for t in times]
        slow = sum(1 for t in ms if t > 1.0)
        best = f", least of {repeat} runs" if repeat > 1 else ""
        print(f"{strength:<7} {len(ms):7d} decisions over {games} games ({args.mode}{best}): "
              f"mean {statistics.mean(ms):.4f} ms, "
              f"p50 {percentile(ms, 0.5):.4f} ms, p99 {percentile(ms, 0.99):.4f} ms, max {max(ms):.2f} ms, "
              f"{slow} over 1 ms")


if __name__ == "__main__":
    main()
