"""Cheap valuations shared by every bot, read straight from the game's attributes.

Bots decide thousands of times per simulated game, so nothing here calls ``snapshot()`` or
``legal_actions()``: the engine's public attributes (``owner``, ``level``, ``mortgaged``, ``players``…)
are read directly and the board's shape is precomputed once per board. The legality checks in this
module mirror the engine's own so that a bot can act without listing every legal action; the test
suite checks each chosen action against ``legal_actions`` to keep the two in step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

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
    #: Per colour group: (members, a getter reading the members' entries of a per-square list, rent rows).
    street_groups: tuple[tuple[tuple[int, ...], Callable[[Sequence[Any]], tuple[Any, ...]],
                               tuple[tuple[int, ...], ...]], ...]
    dealership_get: Callable[[Sequence[Any]], tuple[Any, ...]]
    company_get: Callable[[Sequence[Any]], tuple[Any, ...]]
    utility_get: Callable[[Sequence[Any]], tuple[Any, ...]]


_BOARDS: dict[str, BoardInfo] = {}


def _getter(squares: Sequence[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """``f(values)`` → the tuple ``values[j] for j in squares``, in C (``itemgetter``)."""
    if len(squares) == 1:
        j = squares[0]
        return lambda values: (values[j],)
    return itemgetter(*squares)


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
            street_groups=tuple((m, _getter(m), tuple(sq[j].rents for j in m)) for m in board.groups.values()),
            dealership_get=_getter(board.dealerships),
            company_get=_getter(board.companies),
            utility_get=_getter(board.utilities),
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
    return derived(game, info).threat[seat]


def threat_profile_scan(game: Game, info: BoardInfo, seat: int) -> tuple[int, int]:
    """:func:`threat_profile` by scanning the board (the reference the cached tables are tested against)."""
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
    rent = derived(game, info).rent
    n = info.n
    cost = 0.0
    for total in range(2, 13):
        j = (pos + total) % n
        o = owner[j]
        if o is not None:
            if o != seat and not allies(game, o, seat):
                cost += DICE_P[total] * rent[j]
        elif info.tax[j]:
            cost += DICE_P[total] * info.tax[j]
    return cost


def reserve(game: Game, info: BoardInfo, seat: int) -> int:
    """Cash to keep back so that one unlucky landing does not force a fire sale."""
    return derived(game, info).reserve[seat]


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
    """Everything ``seat`` holds, valued with group completion; used to score trades and positions.

    Only the first street held of a group brings its own levels and mortgage into the sum (the others'
    are left out): the normal bot's thresholds were tuned against exactly this value.
    """
    return _holdings(game, info, seat, game.owner if owner is None else owner, every_street=False)


def standing(game: Game, info: BoardInfo, seat: int) -> float:
    """Cash plus everything held, for scoring look-ahead: like :func:`holding_value`, but every street's
    levels and mortgage count — scored the other way, a look-ahead would see the cost of building but
    little of its value."""
    return game.players[seat].cash + _holdings(game, info, seat, game.owner, every_street=True)


def _holdings(game: Game, info: BoardInfo, seat: int, own: list[int | None], *, every_street: bool) -> float:
    total = 0.0
    mortgaged, level = game.mortgaged, game.level
    prices, kinds, hot, level_cost = info.price, info.kind, info.hot, info.level_cost
    pct = game.rules.redemption_percent
    dealers = utils = -1
    done: set[int] = set()
    for i, o in zip(info.companies, info.company_get(own), strict=True):
        if o != seat:
            continue
        kind = kinds[i]
        price = prices[i]
        if kind == "street":
            members = info.group_members[i]
            if members[0] in done:
                if not every_street:
                    continue
            else:
                done.add(members[0])
                k = held = 0
                for j in members:
                    if own[j] == seat:
                        k += 1
                        held += prices[j]
                total += held * _GROUP_FACTOR.get((k, len(members)), 1.0) * hot[i]
        elif kind == "dealership":
            if dealers < 0:
                dealers = sum(1 for j in info.dealerships if own[j] == seat)
            total += price * (1.0 + 0.125 * (dealers - 1))
        else:
            if utils < 0:
                utils = sum(1 for j in info.utilities if own[j] == seat)
            total += price * (0.75 + 0.2 * (utils - 1))
        if mortgaged[i]:
            total -= price // 2 * pct // 100
        total += level[i] * level_cost[i]
    return total


# ---------------------------------------------------------------------- derived tables, cached


def _teams_key(game: Game) -> tuple[int | None, ...] | None:
    return tuple(p.team for p in game.players) if game.rules.teams else None


class Derived:
    """Everything the bots read off *who owns what, at which level, mortgaged or not* — never cash,
    positions or the turn — computed once per such state instead of once (or twice) per decision.

    Rents, the threat profile and reserve per seat, the groups each seat holds whole or but one street
    of, and lazily the holding value per seat; ``memo`` keeps other per-state results (trade deltas,
    trade values). Ownership changes a few times a round while bots decide a dozen times, so nearly
    every decision reads these tables instead of scanning the board. Every ``memo`` key is
    ``(kind, seat, seat, squares, squares, …)`` for a result that follows from those two seats' holdings
    and those squares alone, so new tables keep the entries that a change leaves standing (:meth:`keep`).
    """

    __slots__ = (
        "by_owner",
        "complete",
        "holding",
        "info",
        "key",
        "level",
        "memo",
        "mortgaged",
        "mortgaged_by",
        "near",
        "owner",
        "rent",
        "reserve",
        "rules",
        "short_one",
        "teams",
        "threat",
        "top_by",
        "total_by",
        "unowned",
        "values",
    )

    def __init__(self, game: Game, info: BoardInfo, base: Derived | None = None) -> None:
        if base is not None:
            # Through the constructor rather than ``object.__new__``, which compiled classes refuse.
            self._relevel(game, base)
            return
        self.key: tuple[Game, int] = (game, game.seq)
        self.info = info
        self.rules = game.rules
        self.teams = _teams_key(game)
        owner = self.owner = list(game.owner)
        level = self.level = list(game.level)
        mortgaged = self.mortgaged = list(game.mortgaged)
        seats = game.seats
        rent = self.rent = [0] * info.n
        top_by = [0] * seats
        total_by = [0] * seats
        complete: list[list[tuple[int, ...]]] = [[] for _ in range(seats)]
        short_one: list[list[tuple[int, ...]]] = [[] for _ in range(seats)]
        near: list[list[tuple[int, int]]] = [[] for _ in range(seats)]
        mortgaged_by: list[list[int]] = [[] for _ in range(seats)]
        unowned = 0
        # Streets, a group at a time (the rent of an unbuilt street doubles when its group is whole).
        for members, get, rows in info.street_groups:
            held = get(owner)
            n = len(held)
            o = held[0]
            if o is not None and held.count(o) == n:
                complete[o].append(members)
                for j, row in zip(members, rows, strict=True):
                    if mortgaged[j]:
                        mortgaged_by[o].append(j)
                        continue
                    lvl = level[j]
                    r = rent[j] = row[lvl] if lvl else row[0] * 2
                    total_by[o] += r
                    if r > top_by[o]:
                        top_by[o] = r
                continue
            free = held.count(None)
            unowned += free
            if free == n:
                continue
            for x in range(n):
                o = held[x]
                if o is None:
                    continue
                j = members[x]
                if mortgaged[j]:
                    mortgaged_by[o].append(j)
                else:
                    r = rent[j] = rows[x][level[j]]
                    total_by[o] += r
                    if r > top_by[o]:
                        top_by[o] = r
                if held.count(o) == n - 1 and held.index(o) == x:
                    short_one[o].append(members)
                    y = next(y for y in range(n) if held[y] != o)
                    m = held[y]
                    if m is not None and not allies(game, m, o):
                        near[o].append((members[y], m))
        for squares, get, table, mult in ((info.dealerships, info.dealership_get, info.dealership_rents, 1),
                                          (info.utilities, info.utility_get, info.utility_multipliers, 7)):
            held = get(owner)
            unowned += held.count(None)
            for j, o in zip(squares, held, strict=True):
                if o is None:
                    continue
                if mortgaged[j]:
                    mortgaged_by[o].append(j)
                    continue
                r = rent[j] = mult * table[held.count(o) - 1]
                total_by[o] += r
                if r > top_by[o]:
                    top_by[o] = r
        self.unowned = unowned
        for m in mortgaged_by:
            m.sort()
        self.mortgaged_by = mortgaged_by
        self.top_by = top_by
        self.total_by = total_by
        self._threats(game)
        self.complete = complete
        self.short_one = short_one
        self.near = near
        self.holding: list[float | None] = [None] * seats
        self.memo: dict[tuple[object, ...], object] = {}
        #: Trade value (SPEC.md 8) per company asked about: it follows from the mortgages alone.
        self.values: dict[int, int] = {}
        #: Results that follow from ownership alone (and who is out), kept while only levels or mortgages
        #: change: the normal bot's trade targets per (seat, eliminated seats).
        self.by_owner: dict[tuple[int, tuple[int, ...]], list[tuple[int, int]]] = {}

    def _threats(self, game: Game) -> None:
        """Threat profile and reserve per seat from the rents per owner (``top_by``, ``total_by``)."""
        seats = game.seats
        top_by, total_by = self.top_by, self.total_by
        threat: list[tuple[int, int]] = []
        res: list[int] = []
        if self.teams is None:
            everyone = sum(total_by)
            ranked = sorted(top_by, reverse=True)
            for seat in range(seats):
                top = (ranked[1] if seats > 1 else 0) if top_by[seat] == ranked[0] else ranked[0]
                total = everyone - total_by[seat]
                threat.append((top, total))
                res.append(min(600 + top // 2 + total // 20, 8000))
        else:
            for seat in range(seats):
                top = total = 0
                for o in range(seats):
                    if o == seat or allies(game, o, seat):
                        continue
                    total += total_by[o]
                    if top_by[o] > top:
                        top = top_by[o]
                threat.append((top, total))
                res.append(min(600 + top // 2 + total // 20, 8000))
        self.threat = threat
        self.reserve = res

    def releveled(self, game: Game) -> Derived:
        """These tables after building or selling only (same owners and mortgages, other levels).

        Levels change only inside whole groups, so nothing but rents, threats and holdings moves.
        """
        return Derived(game, self.info, self)

    def _relevel(self, game: Game, base: Derived) -> None:
        self.key = (game, game.seq)
        self.info, self.rules, self.teams = base.info, base.rules, base.teams
        self.owner, self.mortgaged = base.owner, base.mortgaged
        self.unowned, self.complete, self.mortgaged_by = base.unowned, base.complete, base.mortgaged_by
        self.near, self.short_one = base.near, base.short_one
        level = self.level = list(game.level)
        old = base.level
        rows = base.info.rents
        rent = self.rent = list(base.rent)
        top_by = self.top_by = list(base.top_by)
        total_by = self.total_by = list(base.total_by)
        owner, mortgaged = base.owner, base.mortgaged
        rescan: set[int] = set()
        built: list[int] = []
        for j in base.info.companies:
            lvl = level[j]
            if lvl == old[j]:
                continue
            built.append(j)
            o = owner[j]
            if o is None or mortgaged[j]:
                continue
            group = base.info.group_members[j]
            r = rows[j][lvl] if lvl else (rows[j][0] * 2 if all(owner[x] == o for x in group) else rows[j][0])
            before = rent[j]
            rent[j] = r
            total_by[o] += r - before
            if r > top_by[o]:
                top_by[o] = r
            elif before == top_by[o] and r < before:
                rescan.add(o)
        for o in rescan:
            top_by[o] = max(rent[j] for j in base.info.companies if owner[j] == o)
        self._threats(game)
        self.values = base.values  # trade values follow from the mortgages, which stay
        if base.key[0] is game and (base.memo or any(v is not None for v in base.holding)):
            self.keep(base, built)
        else:  # a look-ahead copy starts afresh: its tables change at every step, and nothing would be read
            self.holding, self.memo = [None] * game.seats, {}
        self.by_owner = base.by_owner

    def keep(self, base: Derived, changed: list[int]) -> None:
        """Take over from ``base`` (tables of the same game, board and rules) what the ``changed`` companies
        (other owner, level or mortgage) leave standing: the holding value of each seat that held none of
        them before and holds none now, and the memo entries about two such seats and other squares. A
        purchase or a build then costs the judgements of the seats it involves, not every seat's."""
        old_owner, owner = base.owner, self.owner
        seats: set[int | None] = {old_owner[j] for j in changed} | {owner[j] for j in changed}
        self.holding = [None if s in seats else v for s, v in enumerate(base.holding)]
        memo: dict[tuple[object, ...], object] = {}
        if base.memo:
            touched = set(changed)
            for k, v in base.memo.items():
                if (k[1] not in seats and k[2] not in seats and touched.isdisjoint(cast("tuple[int, ...]", k[3]))
                        and touched.isdisjoint(cast("tuple[int, ...]", k[4]))):
                    memo[k] = v
        self.memo = memo

    def holding_value(self, game: Game, seat: int) -> float:
        v = self.holding[seat]
        if v is None:
            v = self.holding[seat] = holding_value(game, self.info, seat)
        return v

    def trade_value(self, game: Game, square: int) -> int:
        """The trade value (SPEC.md 8) of one company, asked of the engine once per mortgage state."""
        v = self.values.get(square)
        if v is None:
            from opolyx.engine.state import Offer

            v = self.values[square] = game.trade_value(Offer(0, (square,)))
        return v


_LAST: list[Derived | None] = [None]


def derived(game: Game, info: BoardInfo) -> Derived:
    """The :class:`Derived` tables of ``game`` now.

    One entry is kept: a hit needs the same game at the same ``seq``, or — for a game that moved on
    without a purchase, build or mortgage, and for look-ahead copies — equal ownership, levels and
    mortgages (compared by content, so the answer never depends on which game asked before).
    """
    d = _LAST[0]
    if d is not None and d.key[0] is game and d.key[1] == game.seq:
        return d
    same_owners = (
        d is not None
        and d.owner == game.owner
        and d.info is info
        and (d.rules is game.rules or d.rules == game.rules)
        and d.teams == _teams_key(game)
        and len(d.reserve) == game.seats
    )
    if same_owners and d is not None and d.mortgaged == game.mortgaged:
        if d.level == game.level:
            d.key = (game, game.seq)
            return d
        d = d.releveled(game)
        _LAST[0] = d
        return d
    new = Derived(game, info)
    if same_owners and d is not None:
        new.by_owner = d.by_owner  # a mortgage changed, not who owns what
    if (d is not None and d.key[0] is game and d.info is info and (d.rules is game.rules or d.rules == game.rules)
            and len(d.holding) == game.seats):  # the same game moving on (a look-ahead copy starts afresh)
        mortgaged, d_mortgaged = game.mortgaged, d.mortgaged
        if mortgaged == d_mortgaged:
            new.values = d.values  # a trade value follows from the square's mortgage alone
        else:
            new.values = {j: v for j, v in d.values.items() if mortgaged[j] == d_mortgaged[j]}
        if d.memo or any(v is not None for v in d.holding):
            get, companies = info.company_get, info.companies
            changed: list[int] = []
            for now, before in ((game.owner, d.owner), (mortgaged, d_mortgaged), (game.level, d.level)):
                if now != before:
                    changed += [j for j, a, b in zip(companies, get(now), get(before), strict=True) if a != b]
            new.keep(d, changed)
    _LAST[0] = new
    return new


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
    for j in info.group_members[i]:  # noqa: SIM110 - a plain loop: ``any`` over a generator costs twice this
        if level[j]:
            return True
    return False


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
