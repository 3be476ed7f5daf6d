"""What the normal bot's trade proposals are worth to it: two ``normal`` bots against two that never propose a
trade (they still answer offers, as ``NormalBot.trades = False`` makes them), seats alternating.

A pure-Python player-turn of four ``normal`` bots costs about twice one of bots that never propose
(``turn_cost.py``): the looking for a trade and the trading game it leads to. This is the other side of that
bill, the share of games the proposing pair wins against the pair that saves that time. Prints both pairs'
win shares with 95 % Wilson intervals and the CPU time per game.

With ``--scan-every K`` (K of 2 or more) the pair compared is instead two ``normal`` bots that look for a trade
to propose only in every K-th round (:class:`ScanEvery`) against two that look in every round: a cheaper trade
policy's strength, the other side of what ``turn_cost.py --scan-every K`` shows it saves.

    .venv/bin/python benchmarks/trade_gain.py [--games 1000] [--mode classic] [--seed 5] [--scan-every K]
"""

from __future__ import annotations

import argparse
import time

from opolyx.bots import derive_seed, play_game
from opolyx.bots.base import Action
from opolyx.bots.heuristics import BoardInfo, Derived
from opolyx.bots.normal import NormalBot
from opolyx.engine.game import Game
from opolyx.sim.stats import wilson


class ScanEvery(NormalBot):
    """The ``normal`` bot looking for a trade to propose only in every ``every``-th round (in Team games, where
    allies share, in every round as before). A scan that finds nothing is skipped anyway while the tables it
    read stay the same, so the looking saved is less than the rounds skipped: the scan falls due in the next
    round it looks."""

    def __init__(self, seed: int, every: int = 2) -> None:
        super().__init__(seed)
        self.every = every

    def propose(self, game: Game, info: BoardInfo, seat: int, res: int, d: Derived) -> Action | None:
        if game.round % self.every and not game.rules.teams:
            return None
        return super().propose(game, info, seat, res, d)


def scan_every_option(text: str) -> int:
    """``--scan-every``'s value, for both scripts that take it: 2 or more (every round is the normal bot
    itself), or 0 for none."""
    every = int(text)
    if every == 1 or every < 0:
        raise argparse.ArgumentTypeError("takes 2 or more (every round is the normal bot itself)")
    return every


def proposing_pair_won(mode: str, seed: int, index: int, scan_every: int = 0) -> bool:
    """Game ``index``: True if a seat of the proposing pair won it (their seats are 0 and 2 in even games, 1 and 3
    in odd ones). With ``scan_every``, that pair proposes as :class:`ScanEvery` does and the other pair as the
    ``normal`` bot does; without, the other pair never proposes."""
    game_seed = derive_seed(seed, "trade-gain", mode, index)
    proposing = index % 2
    bots: list[NormalBot] = []
    for k in range(4):
        ours = k % 2 == proposing
        bot_seed = derive_seed(game_seed, "bot", k)
        bot = ScanEvery(bot_seed, scan_every) if scan_every and ours else NormalBot(bot_seed)
        if not scan_every:
            bot.trades = ours
        bots.append(bot)
    game = play_game(mode, 4, game_seed, ["normal"] * 4, bots=bots)
    assert game.result is not None
    return any(pl["place"] == 1 and pl["seat"] % 2 == proposing for pl in game.result["placements"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--scan-every", type=scan_every_option, default=0,
                        help="compare bots looking for trades in every K-th round with normal bots (K >= 2)")
    args = parser.parse_args()
    start = time.process_time()
    won = sum(proposing_pair_won(args.mode, args.seed, k, args.scan_every) for k in range(args.games))
    spent = time.process_time() - start
    if args.scan_every:
        labels = (f"looking every {args.scan_every}", "looking every round")
    else:
        labels = ("proposing trades", "never proposing")
    for label, wins in zip(labels, (won, args.games - won), strict=True):
        low, high = wilson(wins, args.games)
        print(f"{label:20} {wins / args.games:6.1%} of {args.games} {args.mode} games (95 %: {low:.1%}–{high:.1%})")
    print(f"{spent / args.games * 1e3:.1f} ms CPU per game")


if __name__ == "__main__":
    main()
