"""Mortgages (docs/rules.md §9): mortgaging to the bank, redeeming (value + 10 %, Halal: exactly the value)
and Speed's expiry countdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import actions, holdings, kernel
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.worth import redemption_cost

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def check_mortgage(game: GameState, seat: int, i: int) -> None:
    """Only an owned, unmortgaged company without Murabaha debt and without buildings in its group."""
    if not game.board.squares[i].is_company:
        raise IllegalAction("not_a_company", "only companies can be mortgaged")
    if (who := game.owner[i]) is None or who != seat:
        raise IllegalAction("not_owner", "you do not own this company")
    if game.mortgaged[i]:
        raise IllegalAction("already_mortgaged", "this company is already mortgaged")
    if i in game.murabaha:
        raise IllegalAction("murabaha_open", "pay off the Murabaha first")
    if holdings.group_has_buildings(game, i):
        raise IllegalAction("has_buildings", "sell every building of the group first")


def may_mortgage(game: GameState, seat: int, i: int, group: tuple[int, ...] | None = None) -> bool:
    """Whether ``check_mortgage`` lets ``seat`` mortgage square ``i`` now (only companies are ever owned).
    ``group`` is ``holdings.street_group(game, i)``, passed by a caller that keeps it per square."""
    return (
        (who := game.owner[i]) is not None and who == seat
        and not game.mortgaged[i]
        and i not in game.murabaha
        and not holdings.group_has_buildings(game, i, group)
    )


def check_redeem(game: GameState, seat: int, i: int) -> None:
    if (who := game.owner[i]) is None or who != seat:
        raise IllegalAction("not_owner", "you do not own this company")
    if not game.mortgaged[i]:
        raise IllegalAction("not_mortgaged", "this company is not mortgaged")
    if game.players[seat].cash < redemption_cost(game, i):
        raise IllegalAction("insufficient_cash", "not enough cash to redeem")


def mortgage(game: GameState, seat: int, i: int, *, auto: bool = False) -> None:
    """Receive the mortgage value (half the price); Speed starts the expiry countdown."""
    value = game.board.squares[i].mortgage_value
    game.mortgaged[i] = True
    game.holdings_log.append(i)
    if game.rules.mortgage_expiry_rounds:
        game.mortgage_left[i] = game.rules.mortgage_expiry_rounds
    game.players[seat].cash += value
    game.bank_paid += value
    if (reported := game.reported) is None or "mortgaged" in reported:
        game.emit("mortgaged", seat=seat, square=i, value=value, auto=auto,
                  rounds_left=game.mortgage_left.get(i))


def tick(game: GameState, seat: int) -> None:
    """Speed: at the start of the owner's turn each mortgage counts down; at 0 the company returns to the bank."""
    for i in sorted(game.mortgage_left):
        if (who := game.owner[i]) is None or who != seat:
            continue
        left = game.mortgage_left[i] - 1
        if left > 0:
            game.mortgage_left[i] = left
            game.emit("mortgage_ticked", seat=seat, square=i, rounds_left=left)
        else:
            del game.mortgage_left[i]
            game.owner[i] = None
            game.mortgaged[i] = False
            game.holdings_log.append(i)
            game.emit("mortgage_expired", seat=seat, square=i)


def on_mortgage(game: GameState, seat: int | None, action: Action) -> None:
    assert seat is not None
    i = actions.square_arg(game, action)
    if not holdings.can_manage(game, seat, pay_step=True):
        raise IllegalAction("wrong_phase", "mortgage before your roll or while you owe a payment")
    check_mortgage(game, seat, i)
    mortgage(game, seat, i)


def on_redeem(game: GameState, seat: int | None, action: Action) -> None:
    assert seat is not None
    i = actions.square_arg(game, action)
    if not holdings.can_manage(game, seat, pay_step=False):
        raise IllegalAction("wrong_phase", "redeem before your roll, on your turn")
    check_redeem(game, seat, i)
    cost = redemption_cost(game, i)
    kernel.pay_bank(game, seat, cost)
    game.mortgaged[i] = False
    game.holdings_log.append(i)
    game.mortgage_left.pop(i, None)
    game.emit("redeemed", seat=seat, square=i, cost=cost)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"mortgage": on_mortgage, "redeem": on_redeem}
