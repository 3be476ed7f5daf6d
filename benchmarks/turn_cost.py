"""What a player-turn costs by the bots at the table: four ``normal`` bots, the same bots with their trade
proposals switched off, the same bots looking for a trade to propose as often as ever but never proposing
one (the same games as without proposals: the difference is the looking), and four ``easy`` bots, each over
the same span of rounds, on one core.

``peer.py`` compares opolyx's player-turn with the peer's, whose games run about 520 player-turns without
trades. A ``normal``-bot game of opolyx ends in about 180: the bots trade streets that complete colour
groups, so levels go up, rents grow, and pay steps, mortgages and sales follow. Those are decisions and
actions the quieter games never have, and they make a player-turn dearer whatever the engine and bots cost
per step. This script shows how much: each line-up plays Classic with the round limit set to ``--rounds``
(45 by default, about the length of a ``normal``-bot game, so every line-up is measured over the same part
of a game), played as ``opolyx simulate`` plays (its event counters and collector set-up, no log of the
actions). The first line is the same ``normal`` games without the round limit, whole as ``peer.py`` times
them (the seeds are ``engine_share.py``'s, not the simulator's).

Prints µs per player-turn (CPU time, best of ``--repeat`` rounds; each round plays every line-up once, in
turn, as ``peer.py`` does, so a slow spell of a shared machine falls on all of them), player-turns per game
and actions per player-turn (decisions the bots made, pay steps included), and whether opolyx runs compiled.
``--scan-every K`` adds, second, whole games of ``normal`` bots that look for a trade to propose only in every
K-th round (``trade_gain.py --scan-every K`` measures what that costs them in strength).

    .venv/bin/python benchmarks/turn_cost.py [--games 150] [--rounds 45] [--repeat 3] [--scan-every K]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from typing import Any

from peer import interleaved  # beside this script, which Python puts on the path
from trade_gain import ScanEvery, scan_every_option

from opolyx.bots import derive_seed, make_bot, play_game
from opolyx.bots.base import Action, Bot
from opolyx.bots.heuristics import BoardInfo, Derived
from opolyx.bots.normal import NormalBot
from opolyx.engine.compiled import build_name
from opolyx.engine.game import Game
from opolyx.rules import load_board
from opolyx.sim.runner import quiet_collector
from opolyx.sim.stats import COUNTED, GameCollector


def normal(seed: int) -> Bot:
    return make_bot("normal", seed)


def normal_without_proposals(seed: int) -> Bot:
    """The ``normal`` bot that never proposes a trade (it still answers them): the switch its look-ahead
    rollouts use (``NormalBot.trades``)."""
    bot = NormalBot(seed)
    bot.trades = False
    return bot


class ScanningOnly(NormalBot):
    """The ``normal`` bot that looks for a trade to propose as often as ever but never makes one: its games are
    those of :func:`normal_without_proposals`, so the difference between the two lines is what the looking
    costs, apart from what trading does to a game."""

    def propose(self, game: Game, info: BoardInfo, seat: int, res: int, d: Derived) -> Action | None:
        super().propose(game, info, seat, res, d)
        return None


def easy(seed: int) -> Bot:
    return make_bot("easy", seed)


def line_up(games: int, make: Callable[[int], Bot], rules: dict[str, Any] | None,
            actions: dict[str, int], label: str) -> Callable[[], int]:
    """A function playing ``games`` games of four ``make`` bots and returning their player-turns; it notes their
    actions under ``label`` in ``actions`` (the same in every round: a game is a function of its seeds)."""
    board = load_board("classic")

    def run() -> int:
        turns = acted = 0
        for k in range(games):
            seed = derive_seed(1, "bench", k)
            collector = GameCollector(board)
            bots = [make(derive_seed(seed, "bot", s)) for s in range(4)]
            play_game("classic", 4, seed, [bot.strength for bot in bots], bots=bots, rules=rules,
                      on_events=collector, event_types=COUNTED, keep_actions=False)
            turns += collector.turns
            acted += collector.actions
        actions[label] = acted
        return turns

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=45, help="round limit for the line-ups compared")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scan-every", type=scan_every_option, default=0,
                        help="add normal bots looking for trades in every K-th round, no round limit (K >= 2)")
    args = parser.parse_args()
    quiet_collector()
    print(f"opolyx build: {build_name()}; Classic, 4 seats, {args.games} games a line-up; CPU time, best of "
          f"{args.repeat}")
    limited = {"round_limit": args.rounds}
    line_ups: list[tuple[str, Callable[[int], Bot], dict[str, Any] | None]] = [
        ("normal, no round limit", normal, None),
        (f"normal, {args.rounds} rounds", normal, limited),
        (f"normal without proposals, {args.rounds} rounds", normal_without_proposals, limited),
        (f"normal scanning, never proposing, {args.rounds} rounds", ScanningOnly, limited),
        (f"easy, {args.rounds} rounds", easy, limited),
    ]
    if args.scan_every:
        scanning = partial(ScanEvery, every=args.scan_every)
        line_ups.insert(1, (f"normal looking every {args.scan_every} rounds, no limit", scanning, None))
    actions: dict[str, int] = {}
    timed = interleaved(args.repeat, {
        label: line_up(args.games, make, rules, actions, label) for label, make, rules in line_ups
    })
    for label, (times, turns) in timed.items():
        print(f"{label:52} {min(times) / turns * 1e6:7.2f} µs per player-turn  {turns / args.games:6.1f} "
              f"player-turns/game  {actions[label] / turns:4.2f} actions per player-turn")


if __name__ == "__main__":
    main()
