"""The easy bot: legal, impulsive, forgetful of the future — a beginner to beat."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.bots.base import Action, BaseBot
from opolyx.bots.heuristics import BoardInfo, derived
from opolyx.engine.building import may_build, may_sell
from opolyx.engine.mortgages import may_mortgage
from opolyx.engine.worth import liquidation_value

if TYPE_CHECKING:
    from opolyx.engine.game import Game
    from opolyx.engine.state import Trade


class EasyBot(BaseBot):
    strength = "easy"

    def on_turn(self, game: Game, info: BoardInfo, seat: int) -> Action:
        p = game.players[seat]
        if p.in_jail:
            if p.cash >= game.rules.jail_bail and self.rng.random() < 0.5:
                return {"type": "pay_bail"}
            return {"type": "jail_roll"}
        if self.rng.random() < 0.3 and derived(game, info).complete[seat]:  # building needs a whole group
            owner = game.owner
            members = info.group_members
            options = [i for i in info.companies if owner[i] == seat and may_build(game, seat, i, members[i])]
            if options:
                return {"type": "build", "square": self.rng.choice(options)}
        return {"type": "roll"}

    def on_buy(self, game: Game, info: BoardInfo, seat: int) -> Action:
        sq = game.offer_square
        assert sq is not None
        if game.players[seat].cash >= info.price[sq] and self.rng.random() < 0.9:
            return {"type": "buy"}
        return {"type": "decline"}

    def on_auction(self, game: Game, info: BoardInfo, seat: int) -> Action:
        a = game.auction
        assert a is not None
        price = info.price[a.square]
        minimum = price if a.bid is None else a.bid + game.rules.auction_step
        if game.players[seat].cash >= minimum and minimum <= price * 1.2 and self.rng.random() < 0.5:
            return {"type": "bid", "amount": minimum}
        return {"type": "pass"}

    def on_pay(self, game: Game, info: BoardInfo, seat: int) -> Action:
        amount = game.debts[0].amount
        if game.players[seat].cash >= amount:
            return {"type": "pay"}
        if liquidation_value(game, seat) < amount:
            return {"type": "declare_bankruptcy"}
        owner = game.owner
        for i in info.companies:
            if owner[i] == seat and may_sell(game, seat, i, info.group_members[i]):
                return {"type": "sell", "square": i}
        for i in info.companies:
            if owner[i] == seat and may_mortgage(game, seat, i, info.group_members[i]):
                return {"type": "mortgage", "square": i}
        return self.fallback(game, seat)

    def on_jackpot(self, game: Game, info: BoardInfo, seat: int) -> Action:
        if self.rng.random() < 0.5:
            count = self.rng.randint(1, 3)
            return {"type": "jackpot_bet", "numbers": sorted(self.rng.sample(range(1, 7), count))}
        return {"type": "jackpot_decline"}

    def on_bus(self, game: Game, info: BoardInfo, seat: int) -> Action:
        return {"type": "choose_bus", "use": self.rng.choice(("sum", "first", "second"))}

    def answer_trade(self, game: Game, info: BoardInfo, seat: int, trade: Trade) -> Action:
        """Face value only: takes any deal that brings in at least what it gives away."""
        if game.trade_value(trade.give) >= game.trade_value(trade.take):
            return {"type": "accept_trade", "trade": trade.id}
        return {"type": "decline_trade", "trade": trade.id}
