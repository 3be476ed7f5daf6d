"""Managing before a roll or in the pay step (docs/rules.md §§4, 7, 8, 9 and 11): the legal listing of
building, selling, mortgaging, redeeming, paying off and trading, in one pass. It sits above the modules whose
checks it mirrors (``building``, ``mortgages``, ``murabaha``, ``trades``); when managing is allowed at all is
``holdings.can_manage``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import holdings, trades
from opolyx.engine.actions import Action
from opolyx.engine.kinds import BUILD, KIND_BITS, KIND_MASK, KINDS, MORTGAGE, PAY_MURABAHA, REDEEM, SELL

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


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
    table = holdings.company_table(game)
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
