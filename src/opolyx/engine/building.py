"""Building (docs/rules.md §7): raising and selling levels on complete, unmortgaged colour groups, evenly
(all modes but Speed) and at most one level per street per turn."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from opolyx.engine import actions, holdings, kernel
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def check_build(game: GameState, seat: int, i: int) -> None:
    """Refuse a level the rules forbid; ``managing.management_actions`` lists exactly what passes here."""
    sq = game.board.squares[i]
    if sq.kind != "street":
        raise IllegalAction("not_a_street", "only streets carry buildings")
    if (who := game.owner[i]) is None or who != seat:
        raise IllegalAction("not_owner", "you do not own this street")
    assert sq.group is not None
    # One pass over the group for all three group checks (generators cost more than the checks); the
    # refusals keep their order.
    owner, mortgaged, level = game.owner, game.mortgaged, game.level
    incomplete = any_mortgaged = False
    lowest = level[i]
    for j in game.board.groups[sq.group]:
        incomplete = incomplete or (who := owner[j]) is None or who != seat
        any_mortgaged = any_mortgaged or mortgaged[j]
        if level[j] < lowest:
            lowest = level[j]
    if incomplete:
        raise IllegalAction("group_incomplete", "you must own the whole colour group")
    if any_mortgaged:
        raise IllegalAction("group_mortgaged", "a street of this group is mortgaged")
    if level[i] >= game.rules.max_level:
        raise IllegalAction("max_level", "this street is fully built")
    if game.rules.even_building and level[i] > lowest:
        raise IllegalAction("uneven", "build evenly: another street of the group is lower")
    if i in game.built:
        raise IllegalAction("built_this_turn", "a street rises at most one level per turn")
    if game.players[seat].cash < sq.level_cost:
        raise IllegalAction("insufficient_cash", "not enough cash to build")


def check_sell(game: GameState, seat: int, i: int) -> None:
    """Even building holds for selling too: sell from the highest street of the group first."""
    sq = game.board.squares[i]
    if (who := game.owner[i]) is None or who != seat:
        raise IllegalAction("not_owner", "you do not own this street")
    if sq.kind != "street" or game.level[i] == 0:
        raise IllegalAction("no_buildings", "there is nothing to sell here")
    assert sq.group is not None
    if game.rules.even_building and game.level[i] < max(game.level[j] for j in game.board.groups[sq.group]):
        raise IllegalAction("uneven", "sell evenly: another street of the group is higher")


def raisable(game: GameState, seat: int, groups: Iterable[tuple[int, ...]]) -> list[int]:
    """The streets of the colour groups ``groups`` (each as ``holdings.street_group`` gives it) on which ``seat`` may
    raise a level now, cash apart, group by group in the order given: every test of ``check_build`` but the
    last, made once per group. A bot choosing where to build asks this of the groups it holds whole."""
    owner, mortgaged, level = game.owner, game.mortgaged, game.level
    top = game.rules.max_level
    even, built = game.rules.even_building, game.built
    streets: list[int] = []
    for group in groups:
        low = top
        for j in group:
            if (who := owner[j]) is None or who != seat or mortgaged[j]:
                low = -1
                break
            if level[j] < low:
                low = level[j]
        if low < 0 or low >= top:
            continue  # not the seat's alone, a street mortgaged, or the whole group built up
        for j in group:
            lvl = level[j]
            if lvl < top and (not even or lvl <= low) and j not in built:
                streets.append(j)
    return streets


def may_build(game: GameState, seat: int, i: int, group: tuple[int, ...] | None = None) -> bool:
    """Whether ``check_build`` lets ``seat`` raise a level on square ``i`` now. ``group`` is
    ``holdings.street_group(game, i)``, passed by a caller that keeps it per square (the bots' board tables)."""
    if (who := game.owner[i]) is None or who != seat or i in game.built:
        return False
    if group is None:
        group = holdings.street_group(game, i)
    if not group or game.players[seat].cash < game.board.squares[i].level_cost:
        return False
    return i in raisable(game, seat, (group,))


def may_sell(game: GameState, seat: int, i: int, group: tuple[int, ...] | None = None) -> bool:
    """Whether ``check_sell`` lets ``seat`` sell a level of square ``i`` now (``group`` as for ``may_build``)."""
    if (who := game.owner[i]) is None or who != seat:
        return False
    level = game.level
    lvl = level[i]
    if lvl == 0:
        return False
    if group is None:
        group = holdings.street_group(game, i)
    if not group:
        return False
    if game.rules.even_building:
        for j in group:
            if level[j] > lvl:
                return False
    return True


def on_build(game: GameState, seat: int | None, action: Action) -> None:
    assert seat is not None
    i = actions.square_arg(game, action)
    if not holdings.can_manage(game, seat, pay_step=False):
        raise IllegalAction("wrong_phase", "build before your roll, on your turn")
    check_build(game, seat, i)
    cost = game.board.squares[i].level_cost
    kernel.pay_bank(game, seat, cost)
    game.level[i] += 1
    game.holdings_log.append(i)
    game.built.add(i)
    if (reported := game.reported) is None or "built" in reported:
        game.emit("built", seat=seat, square=i, level=game.level[i], cost=cost)


def sell(game: GameState, seat: int, i: int, *, auto: bool = False) -> None:
    """A sold level returns half its cost (``sell_back_percent``)."""
    refund = game.board.squares[i].level_cost * game.rules.sell_back_percent // 100
    game.level[i] -= 1
    game.holdings_log.append(i)
    game.players[seat].cash += refund
    game.bank_paid += refund
    if (reported := game.reported) is None or "sold" in reported:
        game.emit("sold", seat=seat, square=i, level=game.level[i], refund=refund, auto=auto)


def on_sell(game: GameState, seat: int | None, action: Action) -> None:
    assert seat is not None
    i = actions.square_arg(game, action)
    if not holdings.can_manage(game, seat, pay_step=True):
        raise IllegalAction("wrong_phase", "sell before your roll or while you owe a payment")
    check_sell(game, seat, i)
    sell(game, seat, i)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"build": on_build, "sell": on_sell}
