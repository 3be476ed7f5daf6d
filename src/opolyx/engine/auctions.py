"""Buying and auctions (docs/rules.md §5): buying at list price, declining, and the round-robin auction."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import actions, kernel, murabaha
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.state import Auction

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def auction_minimum(game: GameState) -> int:
    """The only bid allowed now: the list price to open, then one step above the current bid."""
    a = game.auction
    assert a is not None
    return a.minimum(game.board.squares[a.square].price, game.rules.auction_step)


def start_auction(game: GameState, decliner: int, square: int) -> None:
    """Everyone still in bids, in seat order from the player after the decliner; the decliner bids last."""
    order = [s for s in [*kernel.seat_order_from(game, decliner)[1:], decliner] if not game.players[s].out]
    game.auction = Auction(square=square, order=order, passed=set(), id=game.new_id())
    game.phase = "auction"
    if (reported := game.reported) is None or "auction_started" in reported:
        game.emit("auction_started", square=square, order=list(order),
                  minimum=game.board.squares[square].price)
    auction_continue(game, advance=False)


def auction_continue(game: GameState, *, advance: bool = True) -> None:
    """Move the bidding on to the next bidder, auto-passing anyone short of the minimum."""
    a = game.auction
    assert a is not None
    if advance:
        a.index = (a.index + 1) % len(a.order)
    while True:
        active = [s for s in a.order if s not in a.passed]
        if a.leader is not None and active == [a.leader]:
            auction_won(game)
            return
        if not active:
            game.emit("auction_unsold", square=a.square)
            game.auction = None
            game.phase = "resolving"
            return
        s = a.order[a.index]
        if s in a.passed or s == a.leader:
            a.index = (a.index + 1) % len(a.order)
            continue
        if game.players[s].cash < auction_minimum(game):
            a.passed.add(s)
            game.emit("auction_passed", seat=s, auto=True, reason="cash")
            a.index = (a.index + 1) % len(a.order)
            continue
        a.turn_id = game.new_id()
        return


def auction_won(game: GameState) -> None:
    """Everyone else has passed: the highest bidder pays and takes the company."""
    a = game.auction
    assert a is not None and a.leader is not None and a.bid is not None
    kernel.pay_bank(game, a.leader, a.bid)
    game.owner[a.square] = a.leader
    game.holdings_log.append(a.square)
    game.emit("auction_won", seat=a.leader, square=a.square, amount=a.bid)
    game.auction = None
    game.phase = "resolving"


def buy_options(game: GameState, seat: int) -> list[Action]:
    """Landing on an unowned company: buy at list price (if affordable), by Murabaha (Halal VIP), or decline."""
    acts: list[Action] = []
    assert game.offer_square is not None
    if game.players[seat].cash >= game.board.squares[game.offer_square].price:
        acts.append({"type": "buy"})
    if murabaha.can_buy(game, seat):
        acts.append({"type": "buy_murabaha"})
    acts.append({"type": "decline"})
    return acts


def bid_options(game: GameState, seat: int) -> list[Action]:
    """On one's bidding turn: the minimum bid (if affordable) or a pass."""
    minimum = auction_minimum(game)
    if game.players[seat].cash >= minimum:
        return [{"type": "bid", "amount": minimum}, {"type": "pass"}]
    return [{"type": "pass"}]


def on_buy(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "buy")
    i = game.offer_square
    assert i is not None
    price = game.board.squares[i].price
    if game.players[seat].cash < price:
        raise IllegalAction("insufficient_cash", "not enough cash to buy")
    kernel.pay_bank(game, seat, price)
    game.owner[i] = seat
    game.holdings_log.append(i)
    game.offer_square = None
    if (reported := game.reported) is None or "company_bought" in reported:
        game.emit("company_bought", seat=seat, square=i, price=price)
    game.phase = "resolving"


def decline(game: GameState, seat: int, *, auto: bool = False) -> None:
    """Nobody is forced to buy; a declined company goes to auction at once."""
    i = game.offer_square
    assert i is not None
    game.offer_square = None
    if (reported := game.reported) is None or "purchase_declined" in reported:
        game.emit("purchase_declined", seat=seat, square=i, auto=auto)
    start_auction(game, seat, i)


def on_decline(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "buy")
    decline(game, seat)


def on_bid(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "auction")
    a = game.auction
    assert a is not None
    minimum = auction_minimum(game)
    amount = action.get("amount", minimum)
    if amount != minimum:
        raise IllegalAction("bad_bid", f"the only bid allowed now is {minimum}")
    if game.players[seat].cash < minimum:
        raise IllegalAction("insufficient_cash", "not enough cash for the minimum bid")
    a.bid = minimum
    a.leader = seat
    if (reported := game.reported) is None or "auction_bid" in reported:
        game.emit("auction_bid", seat=seat, square=a.square, amount=minimum)
    auction_continue(game)


def on_pass(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "auction")
    a = game.auction
    assert a is not None
    a.passed.add(seat)
    if (reported := game.reported) is None or "auction_passed" in reported:
        game.emit("auction_passed", seat=seat, auto=False, reason="pass")
    auction_continue(game)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"buy": on_buy, "decline": on_decline, "bid": on_bid, "pass": on_pass}
