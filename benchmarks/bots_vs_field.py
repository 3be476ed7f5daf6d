"""Our bots against the field of outside strategies: win rates with 95 % intervals, paired on the same seeds.

Each cell is one mode and one field strategy: game ``k`` seats one of our bots against three copies of the
strategy, our seat rotating (``k % 4``). Every strength plays game ``k`` with the same game seed and the
same field bots' seeds, so the strengths' rates are *paired*: the difference between two strengths is
printed with the standard error of the per-game differences, which is smaller than two independent
tables would give. In Team mode a bot "wins" when its team does (chance 50 %); elsewhere chance is 25 %.

Also counted per strength: trades our bot accepted that completed the proposer's colour group or handed
over the proposer's last dealership or utility ("sold", the exploit of issue #41), and the offers our bot
made that were declined ("declined").

    PYTHONPATH=src python benchmarks/bots_vs_field.py [--modes classic,blitz] [--fields builder,sitter,...]
        [--strengths easy,normal,hard] [--games 120] [--seed 41] [--save run.json] [--against before.json]

``--save`` writes every game's outcome; ``--against`` reads such a file from an earlier version of the bots (same
seed and games) and prints, per cell and strength, this version's paired difference from it: an A/B of a change
with the error of paired games rather than of two independent tables.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from typing import Any

from opolyx.bots import derive_seed, make_bot, play_game
from opolyx.bots.base import Bot
from opolyx.engine.game import Game
from opolyx.sim.field import STRATEGIES
from opolyx.sim.stats import wilson

MODES = ("classic", "blitz", "speed", "team", "halal", "fortuna")


class Tally:
    """Counts, for the measured seat, trades it accepted that completed a unit for the proposer, and its
    offers that were declined."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.sold = 0
        self.declined = 0
        self.proposed: set[int] = set()

    def __call__(self, game: Game, events: list[dict[str, Any]]) -> None:
        for e in events:
            kind = e["type"]
            if kind == "trade_proposed" and e["from"] == self.seat:
                self.proposed.add(e["id"])
            elif kind == "trade_declined" and e["trade"] in self.proposed:
                self.declined += 1
            elif kind == "trade_accepted" and e["to"] == self.seat:
                self.sold += completes(game, e["from"], e["take"]["squares"])


def completes(game: Game, proposer: int, squares: list[int]) -> int:
    """1 if one of ``squares`` (now the proposer's) completed its group, dealerships or utilities for it."""
    board = game.board
    for i in squares:
        sq = board.squares[i]
        unit = board.groups[sq.group] if sq.group else (
            board.dealerships if sq.kind == "dealership" else board.utilities if sq.kind == "utility" else ())
        if unit and all(game.owner[j] == proposer for j in unit):
            return 1
    return 0


def play(mode: str, field: str, strength: str, seed: int, k: int) -> tuple[bool, int, int]:
    """Game ``k`` of a cell: (our side won, monopolies sold, our offers declined)."""
    game_seed = derive_seed(seed, "vs-field", mode, field, k)
    seat = k % 4
    bots: list[Bot] = [STRATEGIES[field](derive_seed(game_seed, "field", s)) for s in range(4)]
    bots[seat] = make_bot(strength, derive_seed(game_seed, "ours"), deterministic=True)
    info = [{"name": f"{b.strength} {s + 1}", "bot": True, "vip": True} for s, b in enumerate(bots)]
    tally = Tally(seat)
    game = play_game(mode, 4, game_seed, [b.strength for b in bots], bots=bots, seat_info=info, on_events=tally,
                     event_types=frozenset({"trade_proposed", "trade_declined", "trade_accepted"}),
                     keep_actions=False)
    assert game.result is not None
    won = any(pl["seat"] == seat and pl["place"] == 1 for pl in game.result["placements"])
    return won, tally.sold, tally.declined


def paired(a: list[bool], b: list[bool]) -> tuple[float, float]:
    """Mean and standard error of the per-game differences ``a - b`` (points)."""
    n = len(a)
    d = [int(x) - int(y) for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in d) / max(1, n - 1) / n)
    return 100 * mean, 100 * se


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="classic,blitz")
    parser.add_argument("--fields", default=",".join(sorted(STRATEGIES)))
    parser.add_argument("--strengths", default="easy,normal,hard")
    parser.add_argument("--games", type=int, default=120, help="games per cell and strength")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--save", help="write every game's outcome (JSON) for a later --against")
    parser.add_argument("--against", help="a --save file of an earlier version: print the paired differences")
    args = parser.parse_args()
    strengths = args.strengths.split(",")
    saved: dict[str, list[bool]] = {}
    before: dict[str, list[bool]] = {}
    if args.against:
        with open(args.against, encoding="utf-8") as f:
            before = json.load(f)
    start = time.process_time()
    print(f"{args.games} games a cell, seed {args.seed}; win % [95 % interval]; sold / declined per game")
    for mode in args.modes.split(","):
        chance = 50 if mode == "team" else 25
        print(f"\n{mode} (chance {chance} %)")
        for field in args.fields.split(","):
            results = {s: [play(mode, field, s, args.seed, k) for k in range(args.games)] for s in strengths}
            cells = []
            for s in strengths:
                won = [r[0] for r in results[s]]
                lo, hi = wilson(sum(won), len(won))
                sold = sum(r[1] for r in results[s]) / len(won)
                declined = sum(r[2] for r in results[s]) / len(won)
                cells.append(f"{s} {100 * sum(won) / len(won):5.1f} [{100 * lo:4.1f}, {100 * hi:4.1f}] "
                             f"sold {sold:.2f} decl {declined:4.1f}")
            steps = []
            for lo_s, hi_s in itertools.pairwise(strengths):
                mean, se = paired([r[0] for r in results[hi_s]], [r[0] for r in results[lo_s]])
                steps.append(f"{hi_s}-{lo_s} {mean:+.1f}±{se:.1f}")
            for s in strengths:
                won = [r[0] for r in results[s]]
                key = f"{args.seed}/{mode}/{field}/{s}"
                saved[key] = won
                if len(before.get(key, ())) == len(won):
                    mean, se = paired(won, before[key])
                    steps.append(f"{s} vs before {mean:+.1f}±{se:.1f}")
            print(f"  {field:<10} " + " | ".join(cells) + "  | " + ", ".join(steps), flush=True)
            if args.save:
                with open(args.save, "w", encoding="utf-8") as f:
                    json.dump(saved, f)
    print(f"\n{time.process_time() - start:.0f} s CPU")


if __name__ == "__main__":
    main()
