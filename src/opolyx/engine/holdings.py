"""What managing and trading read of a seat's holdings (docs/rules.md §§4, 7, 8 and 9): when a seat may
manage at all, the board's company table, and whether a colour group carries buildings. Beneath
``building``, ``mortgages``, ``murabaha``, ``trades`` and ``managing``, which all ask these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from opolyx.engine.worth import redemption_cost

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


@dataclass(frozen=True, slots=True)
class CompanyTable:
    """What managing needs about the companies of one board and redemption rate. It never changes during a
    game, so it is built once and shared by every game and copy (bots list actions for every decision).

    ``rows`` has one entry per company in board order: (square, colour group number or -1 for dealerships
    and utilities, level cost, redemption cost); ``squares`` holds the same squares alone, so that the
    seat's companies are found before any row is unpacked. ``groups`` holds per colour group its squares.

    Plain loops over these tuples, not ``itemgetter``/``compress`` over the board's lists: compiled, a loop
    over the seat's companies costs a fraction of the calls into C builtins, and interpreted it is a little faster too.
    """

    rows: tuple[tuple[int, int, int, int], ...]
    squares: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]


_COMPANY_TABLES: dict[tuple[str, int], CompanyTable] = {}


def company_table(game: GameState) -> CompanyTable:
    key = (game.board.name, game.rules.redemption_percent)
    table = _COMPANY_TABLES.get(key)
    if table is None:
        board = game.board
        names = list(board.groups)
        rows = []
        for i in board.companies:
            sq = board.squares[i]
            group = names.index(sq.group) if sq.kind == "street" and sq.group else -1
            rows.append((i, group, sq.level_cost, redemption_cost(game, i)))
        table = CompanyTable(
            rows=tuple(rows),
            squares=tuple(board.companies),
            groups=tuple(tuple(board.groups[name]) for name in names),
        )
        _COMPANY_TABLES[key] = table
    return table


def can_manage(game: GameState, seat: int, *, pay_step: bool) -> bool:
    """Build/redeem only before a roll; sell/mortgage/trade also in one's own pay step."""
    if game.phase == "turn":
        return seat == game.turn
    return pay_step and game.phase == "pay" and game.debts[0].debtor == seat


def street_group(game: GameState, i: int) -> tuple[int, ...]:
    """The squares of street ``i``'s colour group; empty for any other square."""
    sq = game.board.squares[i]
    if sq.kind != "street" or sq.group is None:
        return ()
    return game.board.groups[sq.group]


def group_has_buildings(game: GameState, i: int, group: tuple[int, ...] | None = None) -> bool:
    """Any level anywhere in the company's colour group: it then cannot be mortgaged or traded. ``group`` is
    ``street_group(game, i)`` when the caller has it at hand."""
    if group is None:
        name = game.board.squares[i].group
        if name is None:
            return False
        group = game.board.groups[name]
    level = game.level
    for j in group:  # noqa: SIM110 - a plain loop: ``any`` over a generator costs twice this
        if level[j]:
            return True
    return False
    level = game.level
    for j in game.board.groups[group]:  # noqa: SIM110 - a plain loop: ``any`` over a generator costs twice this
        if level[j]:
            return True
    return False
