"""Cheap valuations shared by every bot, read straight from the game's attributes.

Bots decide thousands of times per simulated game, so nothing here calls ``snapshot()`` or
``legal_actions()``: the engine's public attributes (``owner``, ``level``, ``mortgaged``, ``players``…)
are read directly and the board's shape is precomputed once per board. The legality checks in this
module mirror the engine's own so that a bot can act without listing every legal action; the test
suite checks each chosen action against ``legal_actions`` to keep the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opolyx.engine.game import Game
    from opolyx.rules import Board

Action = dict[str, object]

#: Probability of each two-dice total 2..12 (index = total).
DICE_P: tuple[float, ...] = (0, 0, 1 / 36, 2 / 36, 3 / 36, 4 / 36, 5 / 36, 6 / 36, 5 / 36, 4 / 36, 3 / 36, 2 / 36,
                             1 / 36)

#: How much more than its price a street is worth when it is the k-th of n owned in its group.
#: Completing a group doubles rent and unlocks building, which is where games are won.
_GROUP_FACTOR: dict[tuple[int, int], float] = {
    (1, 2): 1.0, (2, 2): 2.0,
    (1, 3): 1.0, (2, 3): 1.2, (3, 3): 2.0,
}

#: Groups that people (and the dice, thanks to the jail) land on most; a slight bias when valuing.
_HOT_GROUPS = {"orange": 1.15, "red": 1.1, "pink": 1.05, "light_blue": 1.0}


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """The board reshaped for fast lookups: per-square tuples instead of objects and dicts."""

    n: int
    kind: tuple[str, ...]
    price: tuple[int, ...]
    level_cost: tuple[int, ...]
    rents: tuple[tuple[int, ...], ...]
    tax: tuple[int, ...]
    group_of: tuple[str | None, ...]
    group_members: tuple[tuple[int, ...], ...]  # per square: the squares of its group (empty if none)
    groups: tuple[tuple[str, tuple[int, ...]], ...]
    companies: tuple[int, ...]
    dealerships: tuple[int, ...]
    utilities: tuple[int, ...]
    dealership_rents: tuple[int, ...]
    utility_multipliers: tuple[int, ...]
    hot: tuple[float, ...]


_BOARDS: dict[str, BoardInfo] = {}


def board_info(board: Board) -> BoardInfo:
    info = _BOARDS.get(board.name)
    if info is None:
        sq = board.squares
        members = tuple(board.groups[s.group] if s.group else () for s in sq)
        info = BoardInfo(
            n=len(sq),
            kind=tuple(s.kind for s in sq),
            price=tuple(s.price for s in sq),
            level_cost=tuple(s.level_cost for s in sq),
            rents=tuple(s.rents for s in sq),
            tax=tuple(s.tax for s in sq),
            group_of=tuple(s.group for s in sq),
            group_members=members,
            groups=tuple(board.groups.items()),
            companies=board.companies,
            dealerships=board.dealerships,
            utilities=board.utilities,
            dealership_rents=board.dealership_rents,
            utility_multipliers=board.utility_multipliers,
            hot=tuple(_HOT_GROUPS.get(s.group or "", 1.0) for s in sq),
        )
        _BOARDS[board.name] = info
    return info


def allies(game: Game, a: int, b: int) -> bool:
    if a == b:
        return True
    if not game.rules.teams:
        return False
    ta = game.players[a].team
    return ta is not None and ta == game.players[b].team


def owns_group(owner: list[int | None], members: tuple[int, ...], seat: int) -> bool:
    return all(owner[j] == seat for j in members)


def rent_estimate(game: Game, info: BoardInfo, i: int) -> int:
    """The rent a tenant would owe on company ``i`` now (dice for utilities taken at their mean of 7)."""
    owner = game.owner[i]
    if owner is None or game.mortgaged[i]:
        return 0
    kind = info.kind[i]
    if kind == "street":
        lvl = game.level[i]
        if lvl:
            return info.rents[i][lvl]
        base = info.rents[i][0]
        return base * 2 if owns_group(game.owner, info.group_members[i], owner) else base
    own = game.owner
    if kind == "dealership":
        held = sum(1 for j in info.dealerships if own[j] == owner)
        return info.dealership_rents[held - 1]
    held = sum(1 for j in info.utilities if own[j] == owner)
    return 7 * info.utility_multipliers[held - 1]


def threat_profile(game: Game, info: BoardInfo, seat: int) -> tuple[int, int]:
    """(highest rent an opponent could charge me, sum of opponents' rents) — how dangerous the board is."""
    owner = game.owner
    top = total = 0
    for i in info.companies:
        o = owner[i]
        if o is None or o == seat or allies(game, o, seat):
            continue
        r = rent_estimate(game, info, i)
        total += r
        if r > top:
            top = r
    return top, total


def expected_step_cost(game: Game, info: BoardInfo, seat: int, pos: int) -> float:
    """Expected rent and tax of the next two-dice roll from ``pos``: the short-term risk of rolling."""
    owner = game.owner
    n = info.n
    cost = 0.0
    for total in range(2, 13):
        j = (pos + total) % n
        o = owner[j]
        if o is not None:
            if o != seat and not allies(game, o, seat):
                cost += DICE_P[total] * rent_estimate(game, info, j)
        elif info.tax[j]:
            cost += DICE_P[total] * info.tax[j]
    return cost


def reserve(game: Game, info: BoardInfo, seat: int) -> int:
    """Cash to keep back so that one unlucky landing does not force a fire sale."""
    top, total = threat_profile(game, info, seat)
    r = 600 + top // 2 + total // 20
    return min(r, 8000)


def marginal_value(game: Game, info: BoardInfo, seat: int, i: int, owner: list[int | None] | None = None) -> float:
    """What owning company ``i`` is worth to ``seat``, counting group completion and blocking others."""
    own = game.owner if owner is None else owner
    price = info.price[i]
    kind = info.kind[i]
    if kind == "street":
        members = info.group_members[i]
        n = len(members)
        mine = 0
        others: set[int] = set()
        for j in members:
            if j == i:
                continue
            o = own[j]
            if o == seat:
                mine += 1
            elif o is not None:
                others.add(o)
        if not others:
            before = mine * _GROUP_FACTOR.get((mine, n), 1.0) if mine else 0.0
            after = (mine + 1) * _GROUP_FACTOR.get((mine + 1, n), 1.0)
            gain = (after - before) * price if mine else price
        else:
            gain = price
            if len(others) == 1 and mine == 0:
                # Whoever else holds the rest would complete the group with this one: blocking is worth money.
                o = next(iter(others))
                if sum(1 for j in members if own[j] == o) == n - 1:
                    gain = price * 1.5
        return gain * info.hot[i]
    if kind == "dealership":
        held = sum(1 for j in info.dealerships if own[j] == seat and j != i)
        return price * (1.0 + 0.25 * held)
    held = sum(1 for j in info.utilities if own[j] == seat and j != i)
    return price * (0.75 + 0.35 * held)


def holding_value(game: Game, info: BoardInfo, seat: int, owner: list[int | None] | None = None) -> float:
    """Everything ``seat`` holds, valued with group completion; used to score trades and positions."""
    own = game.owner if owner is None else owner
    total = 0.0
    seen_groups: set[str] = set()
    for i in info.companies:
        if own[i] != seat:
            continue
        kind = info.kind[i]
        if kind == "street":
            g = info.group_of[i]
            assert g is not None
            if g in seen_groups:
                continue
            seen_groups.add(g)
            members = info.group_members[i]
            mine = [j for j in members if own[j] == seat]
            k, n = len(mine), len(members)
            factor = _GROUP_FACTOR.get((k, n), 1.0)
            total += sum(info.price[j] for j in mine) * factor * info.hot[i]
        elif kind == "dealership":
            held = sum(1 for j in info.dealerships if own[j] == seat)
            total += info.price[i] * (1.0 + 0.125 * (held - 1))
        else:
            held = sum(1 for j in info.utilities if own[j] == seat)
            total += info.price[i] * (0.75 + 0.2 * (held - 1))
        if game.mortgaged[i]:
            total -= info.price[i] // 2 * game.rules.redemption_percent // 100
        total += game.level[i] * info.level_cost[i]
    return total


# ---------------------------------------------------------------------- legality mirrors of the engine


def can_manage(game: Game, seat: int, *, pay_step: bool) -> bool:
    phase = game.phase
    if phase == "turn":
        return seat == game.turn
    return pay_step and phase == "pay" and game.debts[0].debtor == seat


def can_build(game: Game, info: BoardInfo, seat: int, i: int) -> bool:
    if info.kind[i] != "street" or game.owner[i] != seat or i in game.built:
        return False
    lvl = game.level[i]
    if lvl >= game.rules.max_level:
        return False
    members = info.group_members[i]
    owner, mortgaged, level = game.owner, game.mortgaged, game.level
    even = game.rules.even_building
    for j in members:
        if owner[j] != seat or mortgaged[j]:
            return False
        if even and level[j] < lvl:
            return False
    return game.players[seat].cash >= info.level_cost[i]


def can_sell(game: Game, info: BoardInfo, seat: int, i: int) -> bool:
    if game.owner[i] != seat or info.kind[i] != "street":
        return False
    lvl = game.level[i]
    if lvl == 0:
        return False
    if game.rules.even_building:
        level = game.level
        for j in info.group_members[i]:
            if level[j] > lvl:
                return False
    return True


def group_has_buildings(game: Game, info: BoardInfo, i: int) -> bool:
    level = game.level
    return any(level[j] for j in info.group_members[i])


def can_mortgage(game: Game, info: BoardInfo, seat: int, i: int) -> bool:
    return (
        game.owner[i] == seat
        and not game.mortgaged[i]
        and i not in game.murabaha
        and not group_has_buildings(game, info, i)
    )


def redemption(game: Game, info: BoardInfo, i: int) -> int:
    return info.price[i] // 2 * game.rules.redemption_percent // 100


def tradeable(game: Game, info: BoardInfo, seat: int, i: int) -> bool:
    return game.owner[i] == seat and i not in game.murabaha and not group_has_buildings(game, info, i)


def liquidation(game: Game, info: BoardInfo, seat: int) -> int:
    """Mirror of the engine's ``liquidation_value`` without the board-object lookups."""
    total = game.players[seat].cash
    pct = game.rules.sell_back_percent
    owner, level, mortgaged, mur = game.owner, game.level, game.mortgaged, game.murabaha
    for i in info.companies:
        if owner[i] != seat:
            continue
        if level[i]:
            total += level[i] * info.level_cost[i] * pct // 100
        if not mortgaged[i] and i not in mur:
            total += info.price[i] // 2
    return total
