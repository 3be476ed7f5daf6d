"""What each kind of action costs a player-turn: the bot's decision that chose it and the engine's apply, for
four ``normal`` bots in Classic, on one core.

``engine_share.py`` splits a player-turn between the engine and the bots, and ``turn_cost.py`` by line-up; neither
says which decisions the time goes to. This script plays ``turn_cost.py``'s ``normal`` games without a round limit
(``engine_share.py``'s seeds) as ``opolyx simulate`` plays them (its event counters and collector set-up, no log of
the actions) and times every decision (the bot's ``choose``) and every apply (from the decision's end until the
events reach the simulator's collector) by the type of the action, less the timer's own cost. The same games played
untimed (CPU time, best of ``--repeat``) give the player-turn's real cost, and each type's share of the timed total
is shown as its part of it, in µs per player-turn.

It answers how far from a target per player-turn the commonest step alone is: a plain ``roll`` (the
decision to roll, and the move, the landing and the next turn's start it sets off) comes more than once
every player-turn.

    .venv/bin/python benchmarks/action_cost.py [--games 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from typing import Any

from engine_share import best_of  # beside this script, which Python puts on the path
from turn_cost import line_up, normal

from opolyx.bots import derive_seed, play_game
from opolyx.bots.base import Action, Bot
from opolyx.engine.compiled import build_name
from opolyx.engine.game import Game
from opolyx.rules import load_board
from opolyx.sim.runner import quiet_collector
from opolyx.sim.stats import COUNTED, GameCollector


def timer_cost() -> int:
    """ns that two back-to-back ``perf_counter_ns`` calls add to what they time (the least of many tries)."""
    clock = time.perf_counter_ns
    least = 10**9
    for _ in range(20_000):
        start = clock()
        least = min(least, clock() - start)
    return least


class Ledger:
    """Decision and apply times in ns, summed per action type."""

    def __init__(self, overhead: int) -> None:
        self.overhead = overhead
        self.decided: dict[str, int] = defaultdict(int)
        self.applied: dict[str, int] = defaultdict(int)
        self.count: dict[str, int] = defaultdict(int)
        self.kind: str | None = None
        self.mark = 0
        self.collector: GameCollector | None = None  # the game being played's

    def decision(self, kind: str, start: int, end: int) -> None:
        self.decided[kind] += max(0, end - start - self.overhead)
        self.count[kind] += 1
        self.kind, self.mark = kind, end

    def events(self, game: Game, events: list[Any]) -> None:
        """``play_game``'s event hook: the apply of the action just decided ends here (the start events have
        none); then the simulator's collector takes the events."""
        end = time.perf_counter_ns()
        if self.kind is not None:
            self.applied[self.kind] += max(0, end - self.mark - self.overhead)
            self.kind = None
        assert self.collector is not None
        self.collector.take(game, events)


class TimedBot:
    """A bot whose every decision is timed into a :class:`Ledger` under the type of the action it chose."""

    def __init__(self, bot: Bot, ledger: Ledger) -> None:
        self.bot = bot
        self.strength = bot.strength
        self.ledger = ledger

    def choose(self, game: Game, seat: int) -> Action:
        start = time.perf_counter_ns()
        action = self.bot.choose(game, seat)
        self.ledger.decision(action["type"], start, time.perf_counter_ns())
        return action


def play_timed(games: int, ledger: Ledger) -> int:
    """``turn_cost.line_up``'s ``normal`` games with every step timed into ``ledger``; returns their player-turns."""
    board = load_board("classic")
    turns = 0
    for k in range(games):
        seed = derive_seed(1, "bench", k)
        collector = ledger.collector = GameCollector(board)
        bots: list[Bot] = [TimedBot(normal(derive_seed(seed, "bot", s)), ledger) for s in range(4)]
        play_game("classic", 4, seed, ["normal"] * 4, bots=bots, on_events=ledger.events, event_types=COUNTED,
                  keep_actions=False)
        turns += collector.turns
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    quiet_collector()
    ledger = Ledger(timer_cost())
    turns = play_timed(args.games, ledger)
    play = line_up(args.games, normal, None, {}, "normal")

    def untimed() -> None:
        play()

    per_turn = best_of(args.repeat, untimed) / turns * 1e6
    timed = sum(ledger.decided.values()) + sum(ledger.applied.values())
    print(f"opolyx build: {build_name()}; Classic, 4 normal bots, {args.games} games, {turns / args.games:.1f} "
          f"player-turns/game")
    print(f"untimed: {per_turn:.2f} µs per player-turn (CPU time, best of {args.repeat}); timed: "
          f"{timed / turns / 1000:.2f} µs (the timer's own {ledger.overhead} ns taken out of each timing; the "
          f"rest, the game loop and the collector, is shared out in proportion below)")
    print(f"{'action':20} {'per turn':>8} {'bot µs':>7} {'engine µs':>9} {'share':>6} {'µs per player-turn':>19}")
    kinds = sorted(ledger.count, key=lambda k: -(ledger.decided[k] + ledger.applied[k]))
    for kind in kinds:
        n = ledger.count[kind]
        spent = ledger.decided[kind] + ledger.applied[kind]
        print(f"{kind:20} {n / turns:8.3f} {ledger.decided[kind] / n / 1000:7.2f} "
              f"{ledger.applied[kind] / n / 1000:9.2f} {spent / timed:6.1%} {spent / timed * per_turn:19.2f}")


if __name__ == "__main__":
    main()
