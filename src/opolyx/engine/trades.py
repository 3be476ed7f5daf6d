"""Trades (docs/rules.md §8): offers of cash and companies both ways, validation, the fairness rule, the
proposal template for ``legal_actions``, answers and lapsing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opolyx.engine import holdings, teams
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.state import Offer, Trade
from opolyx.engine.worth import company_value

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def tradeable_by_seat(game: GameState) -> dict[int, tuple[int, ...]]:
    """Companies each seat may trade: no buildings in the whole colour group, no open Murabaha.

    It depends only on ownership, levels and open Murabaha, which change far less often than bots ask for
    legal actions, so the last answer is kept with copies of those three and reused while they are equal
    (a comparison, not a version counter, so state set up by hand in tests can never make it stale).
    """
    owner, level, murabaha = game.owner, game.level, game.murabaha
    open_murabaha = tuple(murabaha)
    cached = game._tradeable
    if cached is not None and cached[0] == owner and cached[1] == level and cached[2] == open_murabaha:
        return cached[3]
    table = holdings.company_table(game)
    built_on = [any(level[j] > 0 for j in squares) for squares in table.groups]
    lists: dict[int, list[int]] = {p.seat: [] for p in game.players}
    for i, g, _cost, _redeem in table.rows:
        o = owner[i]
        if o is None or (g >= 0 and built_on[g]) or i in murabaha:
            continue
        lists[o].append(i)
    tradeable = {seat: tuple(squares) for seat, squares in lists.items()}
    game._tradeable = (list(owner), list(level), open_murabaha, tradeable)
    return tradeable


def template(game: GameState, seat: int) -> Action | None:
    """``propose_trade`` as a described template: too many combinations to list (docs/engine.md)."""
    if sum(1 for t in game.trades.values() if t.proposer == seat) >= game.rules.max_open_trades:
        return None
    players = game.players
    partners = [p.seat for p in players if not p.out and p.seat != seat]
    if not partners:
        return None
    tradeable = tradeable_by_seat(game)
    return {
        "type": "propose_trade",
        "template": True,
        "to": partners,
        "give": {"cash_max": players[seat].cash, "squares": list(tradeable[seat])},
        "take": {str(o): {"cash_max": players[o].cash, "squares": list(tradeable[o])} for o in partners},
        "fairness_percent": game.rules.trade_fairness_percent,
    }


def trade_value(game: GameState, offer: Offer) -> int:
    """Cash at face value plus each company's value (docs/rules.md §8). A loop, not ``sum`` over a
    generator: the bots value offers by the thousand, and a generator costs more than the sum."""
    value = offer.cash
    for i in offer.squares:
        value += company_value(game, i)
    return value


def is_fair(game: GameState, proposer: int, recipient: int, give: Offer, take: Offer) -> bool:
    """The smaller side is worth at least half the larger; allies may give each other anything."""
    if teams.allies(game, proposer, recipient):
        return True
    a, b = trade_value(game, give), trade_value(game, take)
    small, large = min(a, b), max(a, b)
    return small * 100 >= large * game.rules.trade_fairness_percent


def unfair(game: GameState, give: Offer, take: Offer) -> IllegalAction:
    """The refusal of an unfair offer, with the numbers to fix it: both sides' values (cash at face value,
    a company at its price, mortgaged at price minus its redemption cost) and the range the other side must
    fall in, so a proposer can compute a fair offer instead of guessing (both too little and too much fail)."""
    a, b = trade_value(game, give), trade_value(game, take)
    percent = game.rules.trade_fairness_percent
    small, large = min(a, b), max(a, b)
    data = {
        "give_value": a,
        "take_value": b,
        "fairness_percent": percent,
        # Given the larger side, the smaller must reach this; given the smaller, the larger may not pass that.
        "smaller_side_at_least": -(-large * percent // 100),
        "larger_side_at_most": small * 100 // percent if percent else None,
    }
    return IllegalAction(
        "unfair_trade",
        f"the smaller side must be worth at least {percent} % of the larger: you give {a}, you take {b} "
        f"(the smaller side needs at least {data['smaller_side_at_least']})",
        data,
    )


def parse_offer(game: GameState, raw: Any) -> Offer:
    """One side of an offer as sent (``{"cash": .., "squares": [..]}``), checked for shape only."""
    if raw is None:
        return Offer()
    if not isinstance(raw, dict):
        raise IllegalAction("bad_trade", "each side of a trade is an object with cash and squares")
    cash = raw.get("cash", 0)
    squares = raw.get("squares", [])
    if not isinstance(cash, int) or isinstance(cash, bool) or cash < 0:
        raise IllegalAction("bad_trade", "cash must be a whole non-negative amount")
    if not isinstance(squares, list):
        raise IllegalAction("bad_trade", "squares must be a list of square numbers")
    n = len(game.board.squares)
    for i in squares:
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n:
            raise IllegalAction("bad_trade", "squares must be a list of square numbers")
    if len(set(squares)) != len(squares):
        raise IllegalAction("bad_trade", "a square is listed twice")
    return Offer(cash, tuple(sorted(squares)))


def check_trade_items(game: GameState, proposer: int, recipient: int, give: Offer, take: Offer) -> None:
    """Both sides still hold what they offer: checked on proposing, on accepting, and after every action."""
    for seat, offer in ((proposer, give), (recipient, take)):
        if game.players[seat].out:
            raise IllegalAction("trade_invalid", f"seat {seat} is out of the game")
        # The leading bid of a running auction is committed: trading it away would leave the
        # winner unable to pay (negative cash), so such an offer is short of cash and lapses.
        a = game.auction
        committed = a.bid if a is not None and a.leader == seat and a.bid is not None else 0
        if offer.cash > game.players[seat].cash - committed:
            raise IllegalAction("insufficient_cash", f"seat {seat} does not have that much cash")
        for i in offer.squares:
            if (who := game.owner[i]) is None or who != seat or not game.board.squares[i].is_company:
                raise IllegalAction("not_owner", f"seat {seat} does not own square {i}")
            if i in game.murabaha:
                raise IllegalAction("murabaha_open", "a company under Murabaha cannot be traded")
            if holdings.group_has_buildings(game, i):
                raise IllegalAction("has_buildings", "only companies without buildings can be traded")


def may_offer(game: GameState, seat: int, i: int, group: tuple[int, ...] | None = None) -> bool:
    """Whether ``seat`` may put square ``i`` into a trade: ``check_trade_items``'s tests of one company (only
    companies are ever owned). ``group`` is ``holdings.street_group(game, i)`` when the caller has it."""
    return ((who := game.owner[i]) is not None and who == seat and i not in game.murabaha
            and not holdings.group_has_buildings(game, i, group))


def lapse_invalid(game: GameState) -> None:
    """Offers lapse at once when they become invalid or unfair (run after every accepted action)."""
    if not game.trades:
        return
    for t in list(game.trades.values()):
        try:
            check_trade_items(game, t.proposer, t.recipient, t.give, t.take)
        except IllegalAction:
            del game.trades[t.id]
            game.emit("trade_lapsed", trade=t.id, reason="invalid")
            continue
        if not is_fair(game, t.proposer, t.recipient, t.give, t.take):
            # e.g. an offered company was mortgaged since: the fairness rule holds until accepted
            del game.trades[t.id]
            game.emit("trade_lapsed", trade=t.id, reason="unfair")


def answer_actions(game: GameState, seat: int) -> list[Action]:
    """Open offers may be answered (recipient) or cancelled (proposer) at any time, in any phase."""
    acts: list[Action] = []
    for t in game.trades.values():
        if t.recipient == seat:
            acts.append({"type": "accept_trade", "trade": t.id})
            acts.append({"type": "decline_trade", "trade": t.id})
        elif t.proposer == seat:
            acts.append({"type": "cancel_trade", "trade": t.id})
    return acts


def expire(game: GameState, action: Action) -> None:
    """An offer's own clock ran out (docs/rules.md §12)."""
    t = trade_arg(game, action)
    del game.trades[t.id]
    game.emit("trade_lapsed", trade=t.id, reason="expired")


def on_propose_trade(game: GameState, seat: int | None, action: Action) -> None:
    assert seat is not None
    if not holdings.can_manage(game, seat, pay_step=True):
        raise IllegalAction("wrong_phase", "propose trades before your roll or while you owe a payment")
    if sum(1 for t in game.trades.values() if t.proposer == seat) >= game.rules.max_open_trades:
        raise IllegalAction("too_many_trades", "at most 3 open offers at a time")
    to = action.get("to")
    if not isinstance(to, int) or isinstance(to, bool) or not 0 <= to < game.seats or to == seat:
        raise IllegalAction("bad_trade", "'to' must be another seat")
    if game.players[to].out:
        raise IllegalAction("player_out", "that player is out of the game")
    give = parse_offer(game, action.get("give"))
    take = parse_offer(game, action.get("take"))
    if not (give.cash or give.squares or take.cash or take.squares):
        raise IllegalAction("bad_trade", "an empty trade")
    check_trade_items(game, seat, to, give, take)
    if not is_fair(game, seat, to, give, take):
        raise unfair(game, give, take)
    t = Trade(game.new_id(), seat, to, give, take)
    game.trades[t.id] = t
    if (reported := game.reported) is None or "trade_proposed" in reported:
        game.emit_data("trade_proposed", t.to_public(game.rules.trade_seconds))


def trade_arg(game: GameState, action: Action) -> Trade:
    tid = action.get("trade")
    t = game.trades.get(tid) if isinstance(tid, int) else None
    if t is None:
        raise IllegalAction("no_such_trade", f"no open trade {tid!r}")
    return t


def on_accept_trade(game: GameState, seat: int | None, action: Action) -> None:
    t = trade_arg(game, action)
    if seat != t.recipient:
        raise IllegalAction("not_recipient", "only the recipient can accept")
    check_trade_items(game, t.proposer, t.recipient, t.give, t.take)
    a, b = game.players[t.proposer], game.players[t.recipient]
    a.cash += t.take.cash - t.give.cash
    b.cash += t.give.cash - t.take.cash
    for i in t.give.squares:
        game.owner[i] = t.recipient
    for i in t.take.squares:
        game.owner[i] = t.proposer
    game.holdings_log.extend(t.give.squares)
    game.holdings_log.extend(t.take.squares)
    del game.trades[t.id]
    game.emit_data("trade_accepted", t.to_public(game.rules.trade_seconds))


def on_decline_trade(game: GameState, seat: int | None, action: Action) -> None:
    t = trade_arg(game, action)
    if seat != t.recipient:
        raise IllegalAction("not_recipient", "only the recipient can decline")
    del game.trades[t.id]
    if (reported := game.reported) is None or "trade_declined" in reported:
        game.emit("trade_declined", trade=t.id, seat=seat)


def on_cancel_trade(game: GameState, seat: int | None, action: Action) -> None:
    t = trade_arg(game, action)
    if seat != t.proposer:
        raise IllegalAction("not_proposer", "only the proposer can cancel")
    del game.trades[t.id]
    game.emit("trade_cancelled", trade=t.id, seat=seat)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {
    "propose_trade": on_propose_trade,
    "accept_trade": on_accept_trade,
    "decline_trade": on_decline_trade,
    "cancel_trade": on_cancel_trade,
}
