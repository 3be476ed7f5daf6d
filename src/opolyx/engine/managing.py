"""Managing before a roll or in the pay step (SPEC.md sections 4, 7, 8, 9 and 11): when building, selling,
mortgaging, redeeming, paying off and trading are allowed, and the legal listing of all of them in one pass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from opolyx.engine import trades
from opolyx.engine.actions import Action
from opolyx.engine.kinds import BUILD, KIND_BITS, KIND_MASK, KINDS, MORTGAGE, PAY_MURABAHA, REDEEM, SELL
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


def management_actions(game: GameState, seat: int, *, pay_step: bool) -> list[Action]:
    """Build/sell/mortgage/redeem/pay-off options (in board order) and the trade template."""
    acts: list[Action] = [
        {"type": KINDS[c & KIND_MASK], "square": c >> KIND_BITS} for c in management_codes(game, seat, pay_step)
    ]
    template = trades.template(game, seat)
    if template is not None:
        acts.append(template)
    return acts


def management_codes(game: GameState, seat: int, pay_step: bool) -> list[int]:
    """Build/sell/mortgage/redeem/pay-off options as action codes (``codes``), in one pass over the seat's
    companies in board order; every one of them carries a square.

    This mirrors the ``check_*`` validators of ``building``, ``mortgages`` and ``murabaha`` exactly (the
    property tests apply every listed action), but avoids raising an exception per refused candidate: bots
    call it for every decision.
    """
    acts: list[int] = []
    owner = game.owner
    if seat not in owner:
        return acts
    level, mortgaged = game.level, game.mortgaged
    rules = game.rules
    even, max_level = rules.even_building, rules.max_level
    cash = game.players[seat].cash
    murabaha = game.murabaha
    built = game.built
    table = company_table(game)
    groups, rows = table.groups, table.rows
    # Per colour group, computed when first needed: (may build: owned whole and nothing mortgaged, lowest
    # level, highest level). Only building needs the first two, and never in the pay step.
    states: list[tuple[bool, int, int] | None] = [None] * len(groups)
    for k, i in enumerate(table.squares):
        o = owner[i]
        if o is None or o != seat:
            continue
        _, g, level_cost, redeem = rows[k]
        at = i << KIND_BITS
        if g >= 0:
            state = states[g]
            if state is None:
                state = states[g] = _group_state(groups[g], owner, level, mortgaged, seat, pay_step)
            may_build, low, high = state
            lvl = level[i]
            if may_build and lvl < max_level and (not even or lvl <= low) and i not in built and cash >= level_cost:
                acts.append(at | BUILD)
            if lvl > 0 and (not even or lvl >= high):
                acts.append(at | SELL)
            if not mortgaged[i] and high == 0 and i not in murabaha:
                acts.append(at | MORTGAGE)
        elif not mortgaged[i] and i not in murabaha:
            acts.append(at | MORTGAGE)
        if not pay_step:
            if mortgaged[i] and cash >= redeem:
                acts.append(at | REDEEM)
            if murabaha:
                m = murabaha.get(i)
                if m is not None and cash >= m.amount:
                    acts.append(at | PAY_MURABAHA)
    return acts


def _group_state(
    squares: tuple[int, ...],
    owner: list[int | None],
    level: list[int],
    mortgaged: list[bool],
    seat: int,
    pay_step: bool,
) -> tuple[bool, int, int]:
    """(may build, lowest level, highest level) of one colour group for ``management_codes``. The lowest
    level matters only for building, so it is 0 when the seat may not build."""
    may_build = not pay_step
    low = high = level[squares[0]]
    for j in squares:
        o = owner[j]
        if o is None or o != seat or mortgaged[j]:
            may_build = False
        lv = level[j]
        if lv < low:
            low = lv
        elif lv > high:
            high = lv
    return (may_build, low if may_build else 0, high)
