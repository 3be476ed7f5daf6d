"""Halal's Murabaha purchase (docs/rules.md §19a): buying at price + markup owed to the bank, paying it off
before a roll, and the debt falling due. A company under Murabaha cannot be mortgaged or traded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import actions, holdings, kernel
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.state import Creditor, Murabaha

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def can_buy(game: GameState, seat: int) -> bool:
    """Halal only, VIP accounts only, and only when a purchase is on offer; buying needs no cash."""
    return game.rules.murabaha and game.players[seat].vip and game.phase == "buy"


def fall_due(game: GameState, seat: int) -> None:
    """At the start of the holder's turn in the due round or later, the debt comes due through the pay step."""
    for m in sorted(game.murabaha.values(), key=lambda m: m.square):
        if m.seat == seat and game.round >= m.due_round and not any(
            d.reason == "murabaha" and d.square == m.square for d in game.debts
        ):
            kernel.add_debt(game, seat, [Creditor(None, m.amount)], "murabaha", m.square)


def on_buy_murabaha(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "buy")
    if not game.rules.murabaha:
        raise IllegalAction("not_in_mode", "Murabaha exists only in Halal mode")
    if not game.players[seat].vip:
        raise IllegalAction("not_vip", "Murabaha is for VIP accounts")
    i = game.offer_square
    assert i is not None
    price = game.board.squares[i].price
    amount = price * (100 + game.rules.murabaha_markup_percent) // 100
    due = game.round + game.rules.murabaha_rounds
    game.owner[i] = seat
    game.holdings_log.append(i)
    game.murabaha[i] = Murabaha(i, seat, amount, due)
    game.offer_square = None
    game.emit("murabaha_bought", seat=seat, square=i, price=price, amount=amount, due_round=due)
    game.phase = "resolving"


def on_pay_murabaha(game: GameState, seat: int | None, action: Action) -> None:
    assert seat is not None
    i = actions.square_arg(game, action)
    if not holdings.can_manage(game, seat, pay_step=False):
        raise IllegalAction("wrong_phase", "pay a Murabaha off before your roll, on your turn")
    m = game.murabaha.get(i)
    if m is None or m.seat != seat:
        raise IllegalAction("no_murabaha", "you owe no Murabaha on this company")
    if game.players[seat].cash < m.amount:
        raise IllegalAction("insufficient_cash", "not enough cash to pay the Murabaha off")
    kernel.pay_bank(game, seat, m.amount)
    del game.murabaha[i]
    game.emit("murabaha_paid", seat=seat, square=i, amount=m.amount)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"buy_murabaha": on_buy_murabaha, "pay_murabaha": on_pay_murabaha}
