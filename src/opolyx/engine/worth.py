"""Valuations: net worth (docs/rules.md §16), trade value (section 8) and what liquidation would raise."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def redemption_cost(game: GameState, square: int) -> int:
    return game.board.squares[square].mortgage_value * game.rules.redemption_percent // 100


def company_value(game: GameState, square: int) -> int:
    """A company at its price, or price minus its redemption cost when mortgaged."""
    price = game.board.squares[square].price
    if game.mortgaged[square]:
        return price - redemption_cost(game, square)
    return price


def net_worth(game: GameState, seat: int) -> int:
    worth = game.players[seat].cash
    squares = game.board.squares
    for i in game.board.companies:
        if (who := game.owner[i]) is not None and who == seat:
            worth += company_value(game, i) + game.level[i] * squares[i].level_cost
    for m in game.murabaha.values():
        if m.seat == seat:
            worth -= m.amount
    return worth


def liquidation_value(game: GameState, seat: int) -> int:
    """Cash plus what selling every building and mortgaging every company would raise now."""
    total = game.players[seat].cash
    squares = game.board.squares
    sell_pct = game.rules.sell_back_percent
    owner, level, mortgaged, murabaha = game.owner, game.level, game.mortgaged, game.murabaha
    for i in game.board.companies:
        if (who := owner[i]) is None or who != seat:
            continue
        if level[i]:
            total += level[i] * squares[i].level_cost * sell_pct // 100
        if not mortgaged[i] and i not in murabaha:
            total += squares[i].mortgage_value
    return total
