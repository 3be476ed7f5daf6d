"""Rent (docs/rules.md §§6, 13, 18, 19): what a tenant owes and how much of it the rent tax takes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from opolyx.rules import CARD_BONUS_PERCENT

if TYPE_CHECKING:
    from opolyx.engine.state import GameState

#: The card bonus is capped at one third (docs/rules.md §6).
CARD_BONUS_CAP_PERCENT: Final = 33


def owns_group(game: GameState, seat: int, group: str) -> bool:
    owner = game.owner
    for i in game.board.groups[group]:  # noqa: SIM110 - a plain loop: ``all`` over a generator costs twice this
        if (who := owner[i]) is None or who != seat:
            return False
    return True


def held(game: GameState, squares: tuple[int, ...], seat: int) -> int:
    """How many of ``squares`` (the dealerships, the utilities) ``seat`` owns: counted on every such rent."""
    owner = game.owner
    count = 0
    for i in squares:
        if (who := owner[i]) is not None and who == seat:
            count += 1
    return count


def base_rent(game: GameState, square: int) -> int:
    """Rent before cards, gods and tax: by level, group, or how many dealerships/utilities the owner holds."""
    sq = game.board.squares[square]
    owner = game.owner[square]
    assert owner is not None
    if sq.kind == "street":
        lvl = game.level[square]
        if lvl == 0:
            assert sq.group is not None
            return sq.rents[0] * 2 if owns_group(game, owner, sq.group) else sq.rents[0]
        return sq.rents[lvl]
    if sq.kind == "dealership":
        return game.board.dealership_rents[held(game, game.board.dealerships, owner) - 1]
    return game.last_total * game.board.utility_multipliers[held(game, game.board.utilities, owner) - 1]


def card_bonus_percent(cards: dict[int, str], square: int) -> int:
    rarity = cards.get(square)
    if rarity is None:
        return 0
    return min(CARD_BONUS_CAP_PERCENT, CARD_BONUS_PERCENT[rarity])


def rent_due(game: GameState, square: int, tenant: int) -> tuple[int, int]:
    """Return (amount the tenant pays, part of it the rent tax takes away from the owner)."""
    owner = game.owner[square]
    assert owner is not None
    rent = base_rent(game, square)
    owner_p = game.players[owner]
    rent += rent * card_bonus_percent(owner_p.cards, square) // 100
    surcharge = 0
    if game.rules.gods:
        pct = game.rules.god_surcharge_percent
        if owner_p.god == "wealth":
            surcharge += rent * pct // 100
        if game.players[tenant].god == "misfortune":
            surcharge += rent * pct // 100
    amount = rent + surcharge
    tax = amount * game.rules.rent_tax_percent_x100(game.round) // 10000
    return amount, tax
