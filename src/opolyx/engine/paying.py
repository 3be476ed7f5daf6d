"""Paying, raising cash, bankruptcy (docs/rules.md §11): settling a debt, the pay step, the automatic raise
at a timeout, and elimination (bankruptcy, forfeit, resignation). Money to and from the bank and queueing a
debt are the kernel's (``kernel.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import actions, auctions, building, ending, jail, kernel, managing, mortgages, teams
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.state import ALL_SQUARES, Creditor, Debt
from opolyx.engine.worth import liquidation_value

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def settle(game: GameState, debt: Debt, *, auto: bool = False) -> None:
    """Pay a debt in full; rent tax leaves the game, and a creditor already out is paid to the bank."""
    debtor = game.players[debt.debtor]
    paid = []
    for c in debt.creditors:
        debtor.cash -= c.amount
        if c.seat is None or game.players[c.seat].out:
            game.bank_received += c.amount
            received = 0
        else:
            received = c.amount - c.tax
            game.players[c.seat].cash += received
            game.bank_received += c.tax
            game.rent_tax_total += c.tax
        paid.append({"seat": c.seat, "amount": c.amount, "received": received})
    game.debts.remove(debt)
    game.emit("debt_paid", seat=debt.debtor, amount=debt.amount, reason=debt.reason, square=debt.square,
              creditors=paid, auto=auto)
    if debt.reason == "bail":
        jail.release(game, debt.debtor, "bail")
    elif debt.reason == "murabaha" and debt.square is not None:
        game.murabaha.pop(debt.square, None)


def raise_cash(game: GameState, seat: int, target: int) -> None:
    """The automatic raise at a pay-step timeout: sell buildings, then mortgage, cheapest first."""
    p = game.players[seat]
    squares = game.board.squares
    while p.cash < target:
        sellable = [i for i in game.board.companies if game.owner[i] == seat and game.level[i] > 0]
        options = []
        for i in sellable:
            try:
                building.check_sell(game, seat, i)
            except IllegalAction:
                continue
            options.append(i)
        if options:
            i = min(options, key=lambda j: (squares[j].level_cost, j))
            building.sell(game, seat, i, auto=True)
            continue
        mortgageable = []
        for i in game.board.companies:
            if (who := game.owner[i]) is None or who != seat:
                continue
            try:
                mortgages.check_mortgage(game, seat, i)
            except IllegalAction:
                continue
            mortgageable.append(i)
        if not mortgageable:
            return
        i = min(mortgageable, key=lambda j: (squares[j].mortgage_value, j))
        mortgages.mortgage(game, seat, i, auto=True)


def auto_settle(game: GameState, debt: Debt) -> None:
    """A pay step nobody settled: raise the cash and pay, or go bankrupt if even that cannot cover it."""
    raise_cash(game, debt.debtor, debt.amount)
    if game.players[debt.debtor].cash >= debt.amount:
        settle(game, debt, auto=True)
    else:
        eliminate(game, debt.debtor, "bankrupt", debt)


def eliminate(game: GameState, seat: int, reason: str, debt: Debt | None = None) -> None:
    """Bankruptcy, forfeit or resignation (docs/rules.md §§11 and 12)."""
    p = game.players[seat]
    squares = game.board.squares
    owned = [i for i in game.board.companies if (who := game.owner[i]) is not None and who == seat]
    heir = None
    if game.rules.teams:
        for s in kernel.seat_order_from(game, seat):
            if s != seat and not game.players[s].out and teams.allies(game, s, seat):
                heir = s
                break
    if heir is None:
        proceeds = 0
        for i in owned:
            proceeds += game.level[i] * squares[i].level_cost * game.rules.sell_back_percent // 100
            if not game.mortgaged[i] and i not in game.murabaha:
                proceeds += squares[i].mortgage_value
        game.bank_paid += proceeds
        p.cash += proceeds
    debts = [debt] if debt is not None else [d for d in game.debts if d.debtor == seat]
    owed: list[Creditor] = [c for d in debts for c in d.creditors]
    total_owed = sum(c.amount for c in owed)
    available = p.cash
    payouts = []
    if total_owed > 0:
        pot = min(available, total_owed)
        for c in owed:
            share = pot * c.amount // total_owed
            p.cash -= share
            if c.seat is None or game.players[c.seat].out:
                game.bank_received += share
                payouts.append({"seat": c.seat, "amount": share, "received": 0})
            else:
                tax = share * c.tax // c.amount if c.amount else 0
                game.players[c.seat].cash += share - tax
                game.bank_received += tax
                game.rent_tax_total += tax
                payouts.append({"seat": c.seat, "amount": share, "received": share - tax})
    for d in debts:
        if d in game.debts:
            game.debts.remove(d)
    game.debts = [d for d in game.debts if d.debtor != seat]
    game.holdings_log.append(ALL_SQUARES)
    if heir is not None:
        for i in owned:
            game.owner[i] = heir
            m = game.murabaha.get(i)
            if m is not None:
                m.seat = heir
        if owned:
            game.emit_data("companies_inherited", {"seat": heir, "squares": owned, "from": seat})
    else:
        for i in owned:
            game.owner[i] = None
            game.level[i] = 0
            game.mortgaged[i] = False
            game.mortgage_left.pop(i, None)
            game.murabaha.pop(i, None)
    game.bank_received += p.cash
    leftover, p.cash = p.cash, 0
    p.out = True
    p.out_reason = reason
    p.in_jail = False
    game.eliminated.append(seat)
    game.emit("player_out", seat=seat, reason=reason, creditors=payouts, returned=leftover,
              squares=owned, heir=heir)
    for tid in [t.id for t in game.trades.values() if seat in (t.proposer, t.recipient)]:
        del game.trades[tid]
        game.emit("trade_lapsed", trade=tid, reason="player_out")
    a = game.auction
    was_bidding = a is not None and game.phase == "auction" and a.current == seat
    if a is not None and seat in a.order:
        a.passed.add(seat)
        if a.leader == seat:
            # The leader's bid leaves with them: bidding restarts at the list price.
            a.leader = None
            a.bid = None
    if seat == game.turn:
        game.roll_again = False
        game.pending_move = None
        if game.phase in kernel.TURN_CLOCK_PHASES or game.phase == "resolving" or game.phase == "landed":
            game.phase = "resolving"
        elif game.phase == "pay":
            game.phase_before_pay = "resolving"
    alive = [q for q in game.players if not q.out]
    teams_alive = {q.team for q in alive}
    if len(alive) <= 1 or (game.rules.teams and len(teams_alive) <= 1):
        ending.finish(game, "last_team" if game.rules.teams else "last_player")
    elif a is not None and game.phase == "auction":
        auctions.auction_continue(game, advance=was_bidding)


def pay_options(game: GameState, seat: int) -> list[Action]:
    """In one's pay step: pay (when the cash is there), bankruptcy (only when even liquidating everything
    falls short), and raising cash by selling, mortgaging and trading."""
    acts: list[Action] = []
    amount = game.debts[0].amount
    if game.players[seat].cash >= amount:
        acts.append({"type": "pay"})
    if liquidation_value(game, seat) < amount:
        acts.append({"type": "declare_bankruptcy"})
    acts.extend(managing.management_actions(game, seat, pay_step=True))
    return acts


def on_pay(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "pay")
    debt = game.debts[0]
    if game.players[seat].cash < debt.amount:
        raise IllegalAction("insufficient_cash", "raise cash first: sell, mortgage or trade")
    settle(game, debt)


def on_declare_bankruptcy(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "pay")
    debt = game.debts[0]
    if liquidation_value(game, seat) >= debt.amount:
        raise IllegalAction("can_raise_cash", "selling and mortgaging would cover the debt")
    eliminate(game, seat, "bankrupt", debt)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"pay": on_pay, "declare_bankruptcy": on_declare_bankruptcy}
