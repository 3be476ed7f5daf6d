"""Nine outside-style strategies over one plain chassis that reads only ``legal_actions`` and public state.

The chassis (:class:`FieldBot`) does what any simple simulator bot does: pay when it can, raise cash by
mortgaging lone companies before selling buildings, bid the minimum up to a limit, answer trades by face
value. Each strategy changes a few knobs and, where the literature says something specific, a method:

- ``builder``: buy everything affordable, build at the first chance, a small cash floor, bid up to list
  price, never trade (the plain strategy most simulators ship as their baseline).
- ``colour``: colour-focused — orange, red, light blue and pink first (the most landed-on groups after
  jail), three levels on every street before a fourth anywhere, buys the last street of a group by trade.
- ``hoarder``: cash hoarder — buys and builds only out of a large cushion, never bids over list price.
- ``shark``: auction shark — declines at the square to force an auction, then outbids up to 1.5× the
  price while the others are short of cash.
- ``trader``: trade-happy — proposes a deal every turn (cash for the street that completes a group,
  swaps), accepts anything worth at least as much as it gives at face value.
- ``jailer``: buys everything early, then stays in jail once the board has houses, builds to three.
- ``loner``: buys everything it can pay for, builds at once, turns down every offer (a locked board).
- ``sitter``: the ``loner`` staying in jail once houses stand anywhere but on its own streets.
- ``aggressive``: an aggressive trader — offers list price, then 1.25× and 1.5× for the street that
  completes one of its groups, and sells anything for at least 1.2× its face value.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from opolyx.bots.base import NothingToDo
from opolyx.engine.state import Offer

if TYPE_CHECKING:
    from opolyx.engine.game import Game

Action = dict[str, Any]

#: Colour groups by the share of landings they get in the strategy literature (jail feeds orange and red).
PREFERRED = ("orange", "red", "light_blue", "pink")


class FieldBot:
    """The plain chassis; the class attributes are the knobs the strategies turn."""

    strength = "field"
    #: Cash kept back when buying, building and bidding.
    floor = 500
    #: Highest level built on any street.
    max_level = 5
    #: Auction limit as a multiple of the list price.
    bid_factor = 1.0
    #: Decline at the square and buy through the auction instead.
    force_auction = False
    #: Propose trades at all.
    trades = False
    #: Stay in jail once an opponent has buildings.
    late_jail = False

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.proposed: set[tuple[int, int, int]] = set()

    # ------------------------------------------------------------------ dispatch

    def choose(self, game: Game, seat: int) -> Action:
        acts = game.legal_actions(seat)
        by_type: dict[str, list[Action]] = {}
        for a in acts:
            by_type.setdefault(a["type"], []).append(a)
        if "accept_trade" in by_type:
            for acc in by_type["accept_trade"]:
                trade = game.trades[acc["trade"]]
                if trade.recipient == seat:
                    return acc if self.accepts(game, seat, trade.give, trade.take) else {
                        "type": "decline_trade", "trade": trade.id}
        if game.actor() != seat:
            if "cancel_trade" in by_type:
                return by_type["cancel_trade"][0]
            raise NothingToDo(f"seat {seat} has nothing to decide")
        phase = game.phase
        if phase == "turn":
            return self.turn(game, seat, by_type)
        if phase == "buy":
            return self.buy(game, seat, by_type)
        if phase == "auction":
            return self.bid(game, seat, by_type)
        if phase == "pay":
            return self.pay(game, seat, by_type)
        if phase == "jackpot":
            return {"type": "jackpot_decline"}
        if phase == "bus":
            return {"type": "choose_bus", "use": "sum"}
        if phase == "teleport":
            return {"type": "teleport", "square": self.teleport_square(game, seat)}
        return next(a for a in acts if a["type"] != "resign")

    # ------------------------------------------------------------------ the turn

    def turn(self, game: Game, seat: int, by_type: dict[str, list[Action]]) -> Action:
        p = game.players[seat]
        if self.trades and "propose_trade" in by_type:
            offer = self.propose(game, seat, by_type["propose_trade"][0])
            if offer is not None:
                return offer
        redeem = self.pick_redeem(game, seat, by_type.get("redeem", []))
        if redeem is not None:
            return redeem
        build = self.pick_build(game, seat, by_type.get("build", []))
        if build is not None:
            return build
        if p.in_jail:
            if "pay_bail" in by_type and not self.stay_in_jail(game, seat):
                return {"type": "pay_bail"}
            return {"type": "jail_roll"}
        return {"type": "roll"}

    def stay_in_jail(self, game: Game, seat: int) -> bool:
        if not self.late_jail:
            return False
        return any(lvl > 0 and game.owner[i] != seat for i, lvl in enumerate(game.level))

    def pick_redeem(self, game: Game, seat: int, options: list[Action]) -> Action | None:
        cash = game.players[seat].cash
        for a in options:
            cost = game.board.squares[a["square"]].price // 2 * game.rules.redemption_percent // 100
            if cash - cost >= 3 * self.floor:
                return a
        return None

    def level_cap(self, game: Game, seat: int, square: int) -> int:
        return self.max_level

    def pick_build(self, game: Game, seat: int, options: list[Action]) -> Action | None:
        cash = game.players[seat].cash
        best: Action | None = None
        best_key = (99, 0)
        for a in options:
            i = a["square"]
            sq = game.board.squares[i]
            lvl = game.level[i]
            if lvl >= self.level_cap(game, seat, i) or cash - sq.level_cost < self.floor:
                continue
            key = (lvl, -sq.price)
            if key < best_key:
                best, best_key = a, key
        return best

    # ------------------------------------------------------------------ buying and auctions

    def wants(self, game: Game, seat: int, square: int) -> bool:
        return game.players[seat].cash - game.board.squares[square].price >= self.floor

    def buy(self, game: Game, seat: int, by_type: dict[str, list[Action]]) -> Action:
        sq = game.offer_square
        assert sq is not None
        if not self.force_auction and "buy" in by_type and self.wants(game, seat, sq):
            return {"type": "buy"}
        return {"type": "decline"}

    def bid_limit(self, game: Game, seat: int, square: int) -> int:
        price = game.board.squares[square].price
        return min(int(price * self.bid_factor), game.players[seat].cash - self.floor)

    def bid(self, game: Game, seat: int, by_type: dict[str, list[Action]]) -> Action:
        a = game.auction
        if "bid" in by_type and a is not None:
            amount = by_type["bid"][0].get("amount")
            minimum = amount if isinstance(amount, int) else a.minimum(
                game.board.squares[a.square].price, game.rules.auction_step)
            if minimum <= self.bid_limit(game, seat, a.square):
                return {"type": "bid", "amount": minimum}
        return {"type": "pass"}

    # ------------------------------------------------------------------ paying

    def pay(self, game: Game, seat: int, by_type: dict[str, list[Action]]) -> Action:
        if "pay" in by_type:
            return {"type": "pay"}
        if "declare_bankruptcy" in by_type:
            return {"type": "declare_bankruptcy"}
        mortgages = by_type.get("mortgage", [])
        lone = [a for a in mortgages if not self._whole_group(game, seat, a["square"])]
        if lone:
            return min(lone, key=lambda a: game.board.squares[a["square"]].price)
        if "sell" in by_type:
            return min(by_type["sell"], key=lambda a: game.board.squares[a["square"]].level_cost)
        if mortgages:
            return min(mortgages, key=lambda a: game.board.squares[a["square"]].price)
        return {"type": "declare_bankruptcy"}

    def _whole_group(self, game: Game, seat: int, square: int) -> bool:
        group = game.board.squares[square].group
        return group is not None and all(game.owner[j] == seat for j in game.board.groups[group])

    # ------------------------------------------------------------------ trades

    def accepts(self, game: Game, seat: int, give: Any, take: Any) -> bool:
        """Face value: what comes in must be worth what goes out, and never hand over a whole group."""
        if take.cash > game.players[seat].cash:
            return False
        for i in take.squares:
            group = game.board.squares[i].group
            proposer_would_complete = group is not None and all(
                game.owner[j] != seat or j == i for j in game.board.groups[group]
            ) and all(game.owner[j] is not None for j in game.board.groups[group])
            if proposer_would_complete and not self.trades:
                return False
        return bool(game.trade_value(give) >= game.trade_value(take))

    #: The steps of the price offered for a completing street, as multiples of its value.
    offer_factors: tuple[float, ...] = (1.0, 1.5, 2.0)

    def street_value(self, game: Game, square: int) -> int:
        """What the street is worth to this strategy: its price, less the redemption a mortgage costs."""
        price = game.board.squares[square].price
        return price if not game.mortgaged[square] else price - price // 2 * game.rules.redemption_percent // 100

    def propose(self, game: Game, seat: int, template: Action) -> Action | None:
        """Cash for the one street that completes a group, at up to ``offer_factors`` of its value."""
        owner = game.owner
        cash = game.players[seat].cash
        for members in game.board.groups.values():
            mine = [j for j in members if owner[j] == seat]
            if len(mine) != len(members) - 1:
                continue
            missing = next(j for j in members if owner[j] != seat)
            o = owner[missing]
            if o is None or str(o) not in template["take"]:
                continue
            if missing not in template["take"][str(o)]["squares"]:
                continue
            value = self.street_value(game, missing)
            for factor in self.offer_factors:
                offer = int(value * factor) // 100 * 100
                key = (missing, o, offer)
                if key in self.proposed or offer > cash - self.floor or offer < value // 2:
                    continue
                self.proposed.add(key)
                return {"type": "propose_trade", "to": o, "give": {"cash": offer, "squares": []},
                        "take": {"cash": 0, "squares": [missing]}}
        return None

    # ------------------------------------------------------------------ Speed

    def teleport_square(self, game: Game, seat: int) -> int:
        """The first unowned company ahead, else Start (salary and landing bonus)."""
        pos = game.players[seat].position
        n = len(game.board.squares)
        for step in range(1, n):
            j = (pos + step) % n
            if game.board.squares[j].is_company and game.owner[j] is None:
                return j
        return 0


class BuyEverythingBuilder(FieldBot):
    strength = "builder"


class ColourFocused(FieldBot):
    strength = "colour"
    floor = 1000
    trades = True

    def wants(self, game: Game, seat: int, square: int) -> bool:
        sq = game.board.squares[square]
        cash = game.players[seat].cash
        if sq.group in PREFERRED or self._completes(game, seat, square):
            return cash - sq.price >= 300
        return cash - sq.price >= 4000

    def _completes(self, game: Game, seat: int, square: int) -> bool:
        group = game.board.squares[square].group
        return group is not None and all(game.owner[j] == seat or j == square for j in game.board.groups[group])

    def bid_limit(self, game: Game, seat: int, square: int) -> int:
        price = game.board.squares[square].price
        factor = 1.3 if game.board.squares[square].group in PREFERRED or self._completes(game, seat, square) else 0.9
        return min(int(price * factor), game.players[seat].cash - self.floor)

    def level_cap(self, game: Game, seat: int, square: int) -> int:
        """Three levels everywhere first (the best rent per cost), then on up once every group has three."""
        owned = [i for i, o in enumerate(game.owner) if o == seat and game.board.squares[i].kind == "street"
                 and self._whole_group(game, seat, i)]
        if any(game.level[i] < 3 for i in owned):
            return 3
        return 5


class CashHoarder(FieldBot):
    strength = "hoarder"
    floor = 6000
    max_level = 3


class AuctionShark(FieldBot):
    strength = "shark"
    force_auction = True
    bid_factor = 1.5
    floor = 800
    max_level = 4

    def bid_limit(self, game: Game, seat: int, square: int) -> int:
        price = game.board.squares[square].price
        richest_other = max((q.cash for q in game.players if not q.out and q.seat != seat), default=0)
        limit = int(price * self.bid_factor)
        if richest_other < price:
            limit = price  # nobody else can bid: take it at list price
        return min(limit, game.players[seat].cash - self.floor)


class TradeHappy(FieldBot):
    strength = "trader"
    trades = True
    floor = 700

    def accepts(self, game: Game, seat: int, give: Any, take: Any) -> bool:
        if take.cash > game.players[seat].cash:
            return False
        return bool(game.trade_value(give) >= game.trade_value(take))


class JailStayer(FieldBot):
    strength = "jailer"
    late_jail = True
    max_level = 3
    floor = 600


class Loner(FieldBot):
    """Buys everything it can pay for, builds at once, and turns down every offer: nothing changes hands."""

    strength = "loner"
    floor = 0

    def accepts(self, game: Game, seat: int, give: Any, take: Any) -> bool:
        return False


class JailSitter(Loner):
    strength = "sitter"
    late_jail = True


class AggressiveTrader(FieldBot):
    """Offers up to 1.5× list for a completing street; accepts any deal bringing in 1.2× what it gives."""

    strength = "aggressive"
    trades = True
    floor = 500
    offer_factors: tuple[float, ...] = (1.0, 1.25, 1.5)
    accept_factor = 1.2

    def accepts(self, game: Game, seat: int, give: Any, take: Any) -> bool:
        if take.cash > game.players[seat].cash:
            return False
        return bool(game.trade_value(give) >= self.accept_factor * game.trade_value(take))

    def street_value(self, game: Game, square: int) -> int:
        return int(game.trade_value(Offer(0, (square,))))
