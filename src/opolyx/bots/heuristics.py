"""Cheap valuations shared by every bot, read straight from the game's attributes.

Bots decide thousands of times per simulated game, so nothing here calls ``snapshot()`` or
``legal_actions()``: the engine's public attributes (``owner``, ``level``, ``mortgaged``, ``players``…)
are read directly and the board's shape is precomputed once per board. What is legal is never decided
here: the bots ask the rule module that owns each rule (``building.may_build``, ``building.raisable``,
``building.may_sell``, ``mortgages.may_mortgage``, ``trades.may_offer``, ``worth.liquidation_value``),
passing each square's colour group from :class:`BoardInfo` so that the engine need not look it up.

An owner (a seat or ``None``) is compared with a seat as ``(who := owner[i]) is not None and who == seat`` on
the hot paths, here and in the engine: compiled, the narrowed test compares two C integers, where
``owner[i] == seat`` boxes the seat and makes a generic Python comparison. Pure Python runs both at the
same speed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from opolyx.engine.state import ALL_SQUARES, Offer
from opolyx.engine.teams import allies

if TYPE_CHECKING:
    from opolyx.engine.game import Game
    from opolyx.rules import Board

Action = dict[str, object]
T = TypeVar("T")

#: Probability of each two-dice total 2..12 (index = total).
DICE_P: Final[tuple[float, ...]] = (0, 0, 1 / 36, 2 / 36, 3 / 36, 4 / 36, 5 / 36, 6 / 36, 5 / 36, 4 / 36, 3 / 36,
                                    2 / 36, 1 / 36)

#: How much more than its price a street is worth when it is the k-th of n owned in its group.
#: Completing a group doubles rent and unlocks building, which is where games are won.
_GROUP_FACTOR: Final[dict[tuple[int, int], float]] = {
    (1, 2): 1.0, (2, 2): 2.0,
    (1, 3): 1.0, (2, 3): 1.2, (3, 3): 2.0,
}

#: Groups that people (and the dice, thanks to the jail) land on most; a slight bias when valuing.
_HOT_GROUPS: Final = {"orange": 1.15, "red": 1.1, "pink": 1.05, "light_blue": 1.0}


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
    company_get: Callable[[Sequence[Any]], tuple[Any, ...]]
    #: Per square, the unit its rent depends on: the index of its colour group in ``street_groups``, the
    #: dealerships (``len(street_groups)``), the utilities (one more), or -1 for a square nobody owns.
    unit_of: tuple[int, ...]
    #: How many units there are: the colour groups, the dealerships and the utilities.
    unit_count: int
    #: Per street, ``_GROUP_FACTOR`` by how many of its group are held (index 0 to the group's size).
    factors: tuple[tuple[float, ...], ...]


_BOARDS: Final[dict[str, BoardInfo]] = {}


def _getter(squares: Sequence[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """``f(values)`` → the tuple ``values[j] for j in squares``, in C (``itemgetter``)."""
    if len(squares) == 1:
        j = squares[0]
        return lambda values: (values[j],)
    return itemgetter(*squares)


#: The board asked about last and its info: asked once per decision, nearly always for the same board,
#: which an identity test answers without hashing its name.
_LAST_BOARD: Final[list[tuple[Board, BoardInfo]]] = []


def board_info(board: Board) -> BoardInfo:
    last = _LAST_BOARD
    if last and last[0][0] is board:
        return last[0][1]
    info = _BOARDS.get(board.name)
    if info is None:
        info = _BOARDS[board.name] = _reshape(board)
    last[:] = [(board, info)]
    return info


def _reshape(board: Board) -> BoardInfo:
    """The :class:`BoardInfo` of ``board``, built once per board. A function apart from :func:`board_info`, which
    is asked once per decision: these comprehensions would make Python create a cell per variable they read on
    each of those calls."""
    sq = board.squares
    members = tuple(board.groups[s.group] if s.group else () for s in sq)
    streets = tuple(board.groups.values())
    unit: dict[int, int] = {j: g for g, m in enumerate(streets) for j in m}
    unit.update({j: len(streets) for j in board.dealerships})
    unit.update({j: len(streets) + 1 for j in board.utilities})
    return BoardInfo(
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
        street_groups=tuple((m, _getter(m), tuple(sq[j].rents for j in m)) for m in streets),
        company_get=_getter(board.companies),
        unit_of=tuple(unit.get(j, -1) for j in range(len(sq))),
        unit_count=len(streets) + 2,
        factors=tuple(tuple(_GROUP_FACTOR.get((k, len(m)), 1.0) for k in range(len(m) + 1)) for m in members),
    )


def owns_group(owner: list[int | None], members: tuple[int, ...], seat: int) -> bool:
    for j in members:  # noqa: SIM110 - a plain loop: ``all`` over a generator makes a generator on every call
        if (who := owner[j]) is None or who != seat:
            return False
    return True


def count_held(owner: list[int | None], squares: tuple[int, ...], seat: int | None) -> int:
    """How many of ``squares`` ``seat`` holds (``None``: how many are unowned)."""
    n = 0
    if seat is None:
        for j in squares:
            if owner[j] is None:
                n += 1
        return n
    for j in squares:
        if (who := owner[j]) is not None and who == seat:
            n += 1
    return n


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
        held = count_held(own, info.dealerships, owner)
        return info.dealership_rents[held - 1]
    held = count_held(own, info.utilities, owner)
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
    d = derived(game, info)
    r = d.reserve[seat]
    return r if r >= 0 else d.reserve_of(seat)  # a known one without a further call


def _reserve_of(top: int, total: int) -> int:
    """:func:`reserve` from the seat's threat profile: the highest rent and the sum of rents it may be charged."""
    r = 600 + top // 2 + total // 20
    return r if r < 8000 else 8000  # ``min`` without the call: once per seat after every change of rents


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
            if o is None:
                continue
            if o == seat:
                mine += 1
            else:
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
                if count_held(own, members, o) == n - 1:
                    gain = price * 1.5
        return gain * info.hot[i]
    if kind == "dealership":
        held = count_held(own, info.dealerships, seat) - (own[i] == seat)
        return price * (1.0 + 0.25 * held)
    held = count_held(own, info.utilities, seat) - (own[i] == seat)
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
    # The sum of the units' shares in unit order, from 0.0: the tables keep each seat's shares
    # (:meth:`Derived.unit_terms`) and sum them the same way.
    total = 0.0
    for unit in range(info.unit_count):
        total += unit_holding(game, info, seat, own, unit, every_street)
    return total


def unit_holding(game: Game, info: BoardInfo, seat: int, own: list[int | None], unit: int,
                 every_street: bool) -> float:
    """``seat``'s share of :func:`holding_value` (or, with ``every_street``, of :func:`standing`) from one
    unit: a colour group, the dealerships or the utilities (``BoardInfo.unit_of``).

    A trade or a purchase changes the shares of the units its squares belong to and no other: a trade's value
    to a seat is the change of those shares alone (:meth:`Derived.holding_change`)."""
    prices, mortgaged, level, level_cost = info.price, game.mortgaged, game.level, info.level_cost
    pct = game.rules.redemption_percent
    groups = info.street_groups
    streets = len(groups)
    total = 0.0
    if unit < streets:
        members = groups[unit][0]
        first = -1
        k = held = 0
        for j in members:
            if (o := own[j]) is not None and o == seat:
                if first < 0:
                    first = j
                k += 1
                held += prices[j]
        if first < 0:
            return 0.0
        total = held * info.factors[first][k] * info.hot[first]
        # Only the first street held brings its levels and mortgage (the normal bot's thresholds were tuned
        # against exactly this), unless every street counts.
        for j in members:
            if (o := own[j]) is None or o != seat:
                continue
            if mortgaged[j]:
                total -= prices[j] // 2 * pct // 100
            lvl = level[j]
            if lvl:
                total += lvl * level_cost[j]
            if not every_street:
                break
        return total
    dealers = unit == streets
    squares = info.dealerships if dealers else info.utilities
    n = count_held(own, squares, seat)
    if n == 0:
        return 0.0
    factor = 1.0 + 0.125 * (n - 1) if dealers else 0.75 + 0.2 * (n - 1)
    for j in squares:
        if (o := own[j]) is None or o != seat:
            continue
        price = prices[j]
        total += price * factor
        if mortgaged[j]:
            total -= price // 2 * pct // 100
        lvl = level[j]
        if lvl:
            total += lvl * level_cost[j]
    return total


# ---------------------------------------------------------------------- derived tables, cached


def _teams_key(game: Game) -> tuple[int | None, ...] | None:
    return tuple(p.team for p in game.players) if game.rules.teams else None


#: A colour group's shape: the seat holding all of it (or None), and each seat holding all but one of its
#: streets (two seats at most, in a group of two) with (that street, its holder) when a rival holds it.
GroupShape = tuple[int | None, tuple[tuple[int, tuple[int, int] | None], ...]]


def _street_rents(game: Game, members: tuple[int, ...], rows: tuple[tuple[int, ...], ...], owner: list[int | None],
                  level: list[int], mortgaged: list[bool], rent: list[int]) -> GroupShape:
    """Write the rents of one colour group's streets into ``rent`` (0 unowned or mortgaged; an unbuilt
    street's rent doubles while its group is whole) and return the group's shape."""
    held = _picked(owner, members)  # a list: its count and index are native calls when compiled
    n = len(held)
    o = held[0]
    if o is not None and held.count(o) == n:
        for x in range(n):  # indexes, not ``zip(..., strict=True)``, which compiled is a generic Python call
            j = members[x]
            lvl = level[j]
            rent[j] = 0 if mortgaged[j] else rows[x][lvl] if lvl else rows[x][0] * 2
        return o, ()
    shorts: list[tuple[int, tuple[int, int] | None]] = []
    for x in range(n):
        o = held[x]
        j = members[x]
        if o is None:
            rent[j] = 0
            continue
        rent[j] = 0 if mortgaged[j] else rows[x][level[j]]
        if held.count(o) == n - 1 and held.index(o) == x:
            y = 0
            while held[y] == o:  # the one street this seat lacks
                y += 1
            m = held[y]
            shorts.append((o, (members[y], m) if m is not None and not allies(game, m, o) else None))
    return None, tuple(shorts)


def _kind_rents(squares: tuple[int, ...], owner: list[int | None], table: tuple[int, ...], mult: int,
                mortgaged: list[bool], rent: list[int]) -> None:
    """Write the rents of the dealerships or the utilities into ``rent``: they grow with each one held."""
    held = [owner[j] for j in squares]
    for x in range(len(squares)):
        j, o = squares[x], held[x]
        rent[j] = 0 if o is None or mortgaged[j] else mult * table[held.count(o) - 1]


#: The normal bot's trade targets, (square, owner) in order, per (seat, eliminated seats).
TargetTable = dict[tuple[int, tuple[int, ...]], list[tuple[int, int]]]


class Derived:
    """Everything the bots read off *who owns what, at which level, mortgaged or not* — never cash,
    positions or the turn — computed once per such state instead of once (or twice) per decision.

    Rents, the threat profile and reserve per seat, the groups each seat holds whole or but one street
    of, and lazily the holding value per seat; the memo (:meth:`recall`, :meth:`note`) keeps other results
    (trade deltas, cash for a trade). Ownership changes a few times a round while bots decide a dozen times,
    so nearly every decision reads these tables instead of scanning the board. Every memo key is
    ``(kind, seat, seat, squares, squares, …)`` for a result that follows from the holdings in those
    squares' units alone, so an entry stands until a change touches one of those units (:meth:`keep`).

    Tables after a change are worked out from the tables before it (:meth:`_advance`): a rent depends only
    on its own colour group (or on the dealerships or utilities held), so only the groups a purchase,
    mortgage, build or trade touched are priced again, and only the seats they involve are summed again.
    """

    __slots__ = (
        "_threat",
        "by_owner",
        "clock",
        "complete",
        "game",
        "holding",
        "info",
        "lent",
        "level",
        "logged",
        "memo",
        "mortgaged",
        "mortgaged_by",
        "moved_at",
        "near",
        "owner",
        "rent",
        "reserve",
        "rules",
        "seq",
        "serial",
        "shapes",
        "short_one",
        "stale",
        "teams",
        "terms",
        "top_by",
        "total_by",
        "trusted",
        "unowned",
        "values",
    )
    teams: tuple[int | None, ...] | None
    owner: list[int | None]
    level: list[int]
    mortgaged: list[bool]
    rent: list[int]
    shapes: list[GroupShape]
    top_by: list[int]
    total_by: list[int]
    unowned: int
    mortgaged_by: list[list[int]]
    complete: list[list[tuple[int, ...]]]
    short_one: list[list[tuple[int, ...]]]
    near: list[list[tuple[int, int]]]
    _threat: list[tuple[int, int]] | None
    reserve: list[int]
    trusted: bool

    def __init__(self, game: Game, info: BoardInfo, base: Derived | None = None,
                 changed: list[int] | None = None) -> None:
        #: The game and the step these tables were last found to match (a hit for the same step is free).
        self.game = game
        self.seq = game.seq
        #: How long the game's ``holdings_log`` was when these tables were last found to match it.
        self.logged = len(game.holdings_log)
        #: Whether ``game`` is one whose log tells every change (:func:`trust_log`): asked once per game the
        #: tables are taken to, and kept in step by :func:`trust_log` and :func:`distrust_log`, so that the
        #: quick answers of :func:`derived` read a flag instead of looking the game up.
        self.trusted = game in _LOGGED
        #: Names these tables where a bot remembers what it scanned them for (``SeatMemory.idle_scan``): a
        #: number, not a reference, which would keep the tables (and the game they hold) alive for as long as
        #: the bots remember the game.
        _SERIAL[0] += 1
        self.serial = _SERIAL[0]
        self.info = info
        self.rules = game.rules
        self.holding: list[float | None] = [None] * game.seats
        #: Per seat, lazily, its holding value's share of each unit (:func:`unit_holding`), in unit order, and
        #: the units (one bit each) whose shares a change since has left to work out again.
        self.terms: list[list[float] | None] = [None] * game.seats
        self.stale: list[int] = [0] * game.seats
        #: Results by key, each with the ``clock`` it was noted at; the ``clock`` moves on with every change
        #: of the holdings, and ``moved_at`` says, per unit, at which tick the holdings in it last changed.
        self.memo: dict[tuple[object, ...], tuple[int, object]] = {}
        self.clock = 0
        self.moved_at = [0] * info.unit_count
        #: Trade value (docs/rules.md §8) per company asked about: it follows from the mortgages alone.
        self.values: dict[int, int] = {}
        #: Results that follow from ownership alone (and who is out), kept while only levels or mortgages
        #: change: the normal bot's trade targets per (seat, eliminated seats).
        self.by_owner: TargetTable = {}
        #: Set once another game with the same holdings took these tables over (a look-ahead copy): whoever
        #: asked for them first may still hold them, so they are never moved on in place again.
        self.lent = False
        if base is not None and changed is not None:
            # Another position's tables (same board, rules and teams), copied and then moved on by the change:
            # through the constructor rather than ``object.__new__``, which compiled classes refuse.
            self.teams = base.teams
            self.owner, self.level, self.mortgaged = base.owner, base.level, base.mortgaged
            self.rent, self.shapes = list(base.rent), list(base.shapes)
            self.top_by, self.total_by = list(base.top_by), list(base.total_by)
            self.unowned, self.mortgaged_by = base.unowned, list(base.mortgaged_by)
            self.complete, self.short_one, self.near = list(base.complete), list(base.short_one), list(base.near)
            self._threat, self.reserve = base._threat, base.reserve
            self._advance(game, changed)
            return
        owner = self.owner = game.owner[:]  # a slice: compiled, a direct copy, where ``list()`` iterates
        level = self.level = game.level[:]
        mortgaged = self.mortgaged = game.mortgaged[:]
        self.teams = _teams_key(game)
        seats = game.seats
        rent = self.rent = [0] * info.n
        self.shapes = [_street_rents(game, members, rows, owner, level, mortgaged, rent)
                       for members, _get, rows in info.street_groups]
        _kind_rents(info.dealerships, owner, info.dealership_rents, 1, mortgaged, rent)
        _kind_rents(info.utilities, owner, info.utility_multipliers, 7, mortgaged, rent)
        top_by = self.top_by = [0] * seats
        total_by = self.total_by = [0] * seats
        mortgaged_by: list[list[int]] = [[] for _ in range(seats)]
        held = info.company_get(owner)
        for j, o in zip(info.companies, held, strict=True):
            if o is None:
                continue
            if mortgaged[j]:
                mortgaged_by[o].append(j)  # in board order, as the companies are
                continue
            r = rent[j]
            total_by[o] += r
            if r > top_by[o]:
                top_by[o] = r
        self.unowned = held.count(None)
        self.mortgaged_by = mortgaged_by
        self.complete = [[] for _ in range(seats)]
        self.short_one = [[] for _ in range(seats)]
        self.near = [[] for _ in range(seats)]
        self._shape_lists(range(seats))
        self._forget_reserves(game)

    def _advance(self, game: Game, changed: list[int], levels_only: bool = False) -> None:
        """Move these tables on to ``game``'s holdings, given the companies whose owner, level or mortgage
        differ: the same tables a fresh build makes. Only the colour groups (or kinds) those companies belong
        to are priced again, and only the seats they involve summed again. The lists of holdings are replaced,
        never changed, and every other list is changed in place (the constructor hands this copies).

        Sets of units and seats are bit masks and sums are read, changed and written back as plain ints:
        compiled, both are C integer operations, where sets and ``total[o] -= r`` are generic Python calls."""
        if levels_only:
            self._advance_levels(game, changed)
            return
        info = self.info
        old_owner, old_mortgaged = self.owner, self.mortgaged
        owner = self.owner = game.owner[:]
        level = self.level = game.level[:]
        mortgaged = self.mortgaged = game.mortgaged[:]
        rent, shapes, top_by, total_by = self.rent, self.shapes, self.top_by, self.total_by
        groups = info.street_groups
        streets = len(groups)
        unit_of = info.unit_of
        units = 0
        touched: list[int] = []  # the changed companies' units, each once: a change touches one or two of ten
        for j in changed:
            u = unit_of[j]
            if not units >> u & 1:
                units |= 1 << u
                touched.append(u)
        reshaped = rescan = 0  # seats, one bit each
        sums_moved = False
        for u in touched:
            if u < streets:
                members, _get, rows = groups[u]
                before = _picked(rent, members)
                shape = _street_rents(game, members, rows, owner, level, mortgaged, rent)
                old_shape = shapes[u]
                if shape != old_shape:
                    shapes[u] = shape
                    for whole, shorts in (old_shape, shape):
                        if whole is not None:
                            reshaped |= 1 << whole
                        for short, _near in shorts:
                            reshaped |= 1 << short
                squares = members
            elif u == streets:
                squares = info.dealerships
                before = _picked(rent, squares)
                _kind_rents(squares, owner, info.dealership_rents, 1, mortgaged, rent)
            else:
                squares = info.utilities
                before = _picked(rent, squares)
                _kind_rents(squares, owner, info.utility_multipliers, 7, mortgaged, rent)
            for x in range(len(squares)):  # an index, not ``zip``: compiled, a native loop
                j = squares[x]
                was_rent, r = before[x], rent[j]
                was, o = old_owner[j], owner[j]
                if was is not None and o is not None and was == o and was_rent == r:
                    continue
                if was is not None and was_rent:
                    w: int = was
                    total_by[w] = total_by[w] - was_rent
                    sums_moved = True
                    if was_rent == top_by[w] and (o is None or o != w or r < was_rent):
                        rescan |= 1 << w
                if o is not None and r:
                    s: int = o
                    total_by[s] = total_by[s] + r
                    sums_moved = True
                    if r > top_by[s]:
                        top_by[s] = r
        companies = info.companies
        if rescan:
            self._rescan_tops(rescan)
        unowned = self.unowned
        mortgages = 0  # seats whose mortgaged companies changed, one bit each
        for j in changed:  # each company once (see ``derived``)
            was, o = old_owner[j], owner[j]
            if was is None:
                unowned -= 1
            if o is None:
                unowned += 1
            if old_mortgaged[j] or mortgaged[j]:
                if was is not None:
                    mortgages |= 1 << was
                if o is not None:
                    mortgages |= 1 << o
        self.unowned = unowned
        if mortgages:
            mortgaged_by = self.mortgaged_by
            for seat in range(len(mortgaged_by)):
                if mortgages >> seat & 1:
                    held: list[int] = []
                    for j in companies:
                        if (who := owner[j]) is not None and who == seat and mortgaged[j]:
                            held.append(j)
                    mortgaged_by[seat] = held
        if reshaped:
            seats: list[int] = []
            for seat in range(len(top_by)):
                if reshaped >> seat & 1:
                    seats.append(seat)
            self._shape_lists(seats)
        if sums_moved:
            self._forget_reserves(game)

    def _advance_levels(self, game: Game, changed: list[int]) -> None:
        """:meth:`_advance` for a change of levels alone (a build or a sale: about half of all changes), which
        leaves the owners, the mortgages, the groups' shapes and every other street's rent as they were: only
        the changed streets' rents and their owners' sums move, with no group priced again."""
        level = self.level = game.level[:]
        owner, mortgaged, rent = self.owner, self.mortgaged, self.rent
        top_by, total_by = self.top_by, self.total_by
        info = self.info
        members_of, rows = info.group_members, info.rents
        sums_moved = False
        rescan = 0  # seats, one bit each
        for j in changed:
            o = owner[j]
            if o is None:
                continue  # nobody's: no rent either way (an unowned street has no levels)
            s: int = o
            lvl = level[j]
            if mortgaged[j]:
                r = 0
            elif lvl:
                r = rows[j][lvl]
            else:
                # An unbuilt street's rent doubles while its group is whole (as ``_street_rents`` prices it).
                r = rows[j][0] * 2 if owns_group(owner, members_of[j], s) else rows[j][0]
            was_rent = rent[j]
            if r == was_rent:
                continue
            rent[j] = r
            total_by[s] = total_by[s] - was_rent + r
            sums_moved = True
            if r > top_by[s]:
                top_by[s] = r
            elif was_rent == top_by[s] and r < was_rent:
                rescan |= 1 << s
        if rescan:
            self._rescan_tops(rescan)
        if sums_moved:
            self._forget_reserves(game)

    def _rescan_tops(self, seats: int) -> None:
        """``top_by`` of ``seats`` (one bit each) from every company's rent: after a change lowered a rent that
        was the highest of its owner's."""
        owner, rent, top_by = self.owner, self.rent, self.top_by
        companies = self.info.companies
        for seat in range(len(top_by)):
            if seats >> seat & 1:
                top = 0
                for j in companies:
                    if (who := owner[j]) is not None and who == seat and rent[j] > top:
                        top = rent[j]
                top_by[seat] = top

    def _shape_lists(self, seats: Iterable[int]) -> None:
        """``complete``, ``short_one`` and ``near`` of ``seats`` from the groups' shapes, in board order."""
        lists: dict[int, tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, int]]]] = {
            seat: ([], [], []) for seat in seats
        }
        groups, shapes = self.info.street_groups, self.shapes
        for g in range(len(groups)):
            members = groups[g][0]
            whole, shorts = shapes[g]
            if whole is not None:
                if whole in lists:
                    lists[whole][0].append(members)
                continue
            for o, entry in shorts:
                if o in lists:
                    _complete, short_one, near = lists[o]
                    short_one.append(members)
                    if entry is not None:
                        near.append(entry)
        for seat, (complete, short_one, near) in lists.items():
            self.complete[seat] = complete
            self.short_one[seat] = short_one
            self.near[seat] = near

    def _forget_reserves(self, game: Game) -> None:
        """Forget the reserves and threat profiles, which follow from the rents per owner (``top_by``,
        ``total_by``): each is worked out again when asked for (:func:`reserve`, :attr:`threat`). Rents change
        most turns while a seat asks for its own reserve once or twice in between, so working out every seat's
        at each change would mostly be thrown away."""
        self.reserve = [-1] * game.seats
        self._threat = None

    def reserve_of(self, seat: int) -> int:
        """:func:`reserve` of ``seat``, worked out once per change of the rents."""
        r = self.reserve[seat]
        if r < 0:
            top, total = self._threat_of(seat)
            r = self.reserve[seat] = _reserve_of(top, total)
        return r

    def _threat_of(self, seat: int) -> tuple[int, int]:
        """The highest rent and the sum of rents ``seat`` may be charged: the rivals' ``top_by``, ``total_by``."""
        top_by, total_by = self.top_by, self.total_by
        teams = self.teams is not None
        top = total = 0
        for o in range(len(top_by)):
            if o == seat or (teams and allies(self.game, o, seat)):
                continue
            total += total_by[o]
            if top_by[o] > top:
                top = top_by[o]
        return top, total

    @property
    def threat(self) -> list[tuple[int, int]]:
        """Threat profile per seat (see :func:`threat_profile`)."""
        threat = self._threat
        if threat is None:
            threat = self._threat = [self._threat_of(seat) for seat in range(len(self.top_by))]
        return threat

    def keep(self, base: Derived, old_owner: list[int | None], changed: list[int]) -> None:
        """Take over from ``base``, the tables of the holdings before (``old_owner``: who owned what then;
        ``self`` when moved on in place), what the ``changed`` companies (other owner, level or mortgage) leave
        standing: the holding value of each seat that held none of them before and holds none now, each seat's
        shares of the units they do not belong to, and the memo's entries about squares of other units. A
        purchase or a build then costs the judgements it touches, not every one."""
        owner, unit_of = self.owner, self.info.unit_of
        seats = units = 0  # the seats involved and the changed companies' units, one bit each
        for j in changed:
            units |= 1 << unit_of[j]
            if (was := old_owner[j]) is not None:
                seats |= 1 << was
            if (now := owner[j]) is not None:
                seats |= 1 << now
        holding, stale = base.holding, base.stale
        if base is self:  # moved on in place, where nobody else reads these lists: change them
            moved_at = self.moved_at
        else:
            holding, stale = holding[:], stale[:]
            self.holding, self.stale = holding, stale
            self.terms = base.terms[:]
            self.memo = base.memo.copy()  # ``base`` may still note entries for its own holdings
            moved_at = self.moved_at = base.moved_at[:]
            self.clock = base.clock
        # A seat's shares of the units the change left alone stand: only the changed units are priced again.
        for s in range(len(holding)):
            if seats >> s & 1:
                holding[s] = None
                stale[s] |= units
        # Entries noted before this tick about the changed units are no longer recalled (see ``recall``): no
        # walk over the memo.
        clock = self.clock = self.clock + 1
        for j in changed:  # each changed unit, without a walk over all ten
            moved_at[unit_of[j]] = clock

    def recall(self, key: tuple[object, ...]) -> object:
        """The result noted under ``key`` (``(kind, seat, seat, squares, squares, …)``), or :data:`UNKNOWN` if none
        was, or if the holdings in its squares' units changed since."""
        entry = self.memo.get(key)
        if entry is None:
            return UNKNOWN
        at, value = entry
        unit_of, moved_at = self.info.unit_of, self.moved_at
        for squares in (cast("tuple[int, ...]", key[3]), cast("tuple[int, ...]", key[4])):
            for j in squares:
                if moved_at[unit_of[j]] > at:
                    return UNKNOWN
        return value

    def note(self, key: tuple[object, ...], value: object) -> None:
        """Keep ``value`` under ``key`` (see :meth:`recall`) until the holdings in its squares' units change."""
        self.memo[key] = (self.clock, value)

    def unit_terms(self, game: Game, seat: int) -> list[float]:
        t = self.terms[seat]
        if t is None:
            own, info = game.owner, self.info
            t = []
            for u in range(info.unit_count):
                t.append(unit_holding(game, info, seat, own, u, False))
            self.terms[seat] = t
            self.stale[seat] = 0
        elif stale := self.stale[seat]:
            own, info = game.owner, self.info
            t = t[:]  # the tables before the change may still hold (and read) the list as it was
            for u in range(len(t)):
                if stale >> u & 1:
                    t[u] = unit_holding(game, info, seat, own, u, False)
            self.terms[seat] = t
            self.stale[seat] = 0
        return t

    def holding_value(self, game: Game, seat: int) -> float:
        """:func:`holding_value` of ``seat`` now: its units' shares, summed as :func:`_holdings` sums them."""
        v = self.holding[seat]
        if v is None:
            v = 0.0
            for x in self.unit_terms(game, seat):
                v += x
            self.holding[seat] = v
        return v

    def holding_change(self, game: Game, seat: int, after: list[int | None], units: int) -> float:
        """What :func:`holding_value` of ``seat`` would gain were the companies owned as in ``after``, which
        differs from now only in the ``units`` given (one bit each): the change of each of their shares, summed
        in unit order. A function of those units' holdings alone, so a judgement made on it stands while
        they do (:meth:`keep`)."""
        info = self.info
        terms = self.unit_terms(game, seat)
        v = 0.0
        for u in range(len(terms)):
            if units >> u & 1:
                v += unit_holding(game, info, seat, after, u, False) - terms[u]
        return v

    def trade_value(self, game: Game, square: int) -> int:
        """The trade value (docs/rules.md §8) of one company, asked of the engine once per mortgage state."""
        v = self.values.get(square)
        if v is None:
            v = self.values[square] = game.trade_value(Offer(0, (square,)))
        return v


#: What :meth:`Derived.recall` answers for a result it does not know (``None`` is a result).
UNKNOWN: Final = object()

#: ``Final`` names are C statics in the compiled build, not module dict lookups.
_LAST: Final[list[Derived | None]] = [None]

#: The games whose holdings nothing but the rule modules changes while they are in here, so that a game's
#: ``holdings_log`` tells every change and :func:`derived` may read the companies it names instead of comparing
#: the 40-square lists: the game ``play_game`` plays, while it plays it, and the hard bot's look-ahead copies.
#: Anything else may write ``owner``, ``level`` or ``mortgaged`` directly (a test setting up a position, a tool),
#: so a game is not in here unless entered, and its tables are then compared by content.
_LOGGED: Final[set[Game]] = set()


def trust_log(game: Game) -> None:
    """Let the tables follow ``game``'s changes by its ``holdings_log`` alone until :func:`distrust_log`: for
    a caller that changes the game through ``apply`` only."""
    _LOGGED.add(game)
    d = _LAST[0]
    if d is not None and d.game is game:
        d.trusted = True


def distrust_log(game: Game) -> None:
    """Compare ``game``'s holdings by content again (it is handed back to whoever may change them)."""
    _LOGGED.discard(game)
    d = _LAST[0]
    if d is not None and d.game is game:
        d.trusted = False

#: The last :attr:`Derived.serial` given out.
_SERIAL: Final[list[int]] = [0]

#: Beyond this many changed companies (a bankruptcy, another game's position) the tables are built afresh.
_UPDATE_LIMIT: Final = 8


def _owners_kept(info: BoardInfo, before: list[int | None], by_owner: TargetTable, owner: list[int | None],
                 changed: list[int]) -> TargetTable:
    """``by_owner``'s entries (targets found while ``before`` held) that a change of owners leaves standing: those
    of seats that held nothing, before or after, in the colour groups, dealerships or utilities whose owners
    changed. Such a seat's targets come from the groups and kinds it holds a part of alone, and who holds those
    has not changed. Units and seats are bit masks (compiled, C integer operations)."""
    groups, streets, unit_of = info.street_groups, len(info.street_groups), info.unit_of
    units = 0
    for j in changed:
        if (was := before[j]) is not (now := owner[j]) and was != now:
            units |= 1 << unit_of[j]
    involved = 0
    for unit in range(info.unit_count):
        if units >> unit & 1:
            members = groups[unit][0] if unit < streets else info.dealerships if unit == streets else info.utilities
            for x in members:
                if (was := before[x]) is not None:
                    involved |= 1 << was
                if (now := owner[x]) is not None:
                    involved |= 1 << now
    return {key: targets for key, targets in by_owner.items() if not involved >> key[0] & 1}


def _picked(values: list[T], squares: tuple[int, ...]) -> list[T]:
    """``values[j]`` for each of ``squares``, in a loop: a comprehension in the caller would make Python create a
    cell for ``values`` on each call and read it through the cell everywhere else in the caller."""
    out: list[T] = []
    for j in squares:
        out.append(values[j])
    return out


def _compared(info: BoardInfo, d: Derived, game: Game, same_owners: bool, same_mortgages: bool,
              same_levels: bool) -> list[int]:
    """The companies whose owner, mortgage or level differ between ``d`` and ``game``, each once: the change when
    no log tells it (kept out of :func:`_moved_on`, whose every variable read here would become a cell)."""
    owner, mortgaged, level, companies = game.owner, game.mortgaged, game.level, info.companies
    changed: list[int] = []
    if not same_owners:
        before_owner = d.owner
        # Identity first: compiled, a pointer comparison, and only owners that differ are compared as values.
        changed += [j for j in companies if (now := owner[j]) is not (was := before_owner[j]) and now != was]
    if not same_mortgages:
        before_mortgaged = d.mortgaged
        changed += [j for j in companies if mortgaged[j] != before_mortgaged[j]]
    if not same_levels:
        before_level = d.level
        changed += [j for j in companies if level[j] != before_level[j]]
    if same_owners + same_mortgages + same_levels < 2:
        changed = list(set(changed))  # a company with two of them changed appears once
    return changed


def _values_kept(values: dict[int, int], mortgaged: list[bool], old_mortgaged: list[bool]) -> dict[int, int]:
    """The trade values of the companies whose mortgage has not changed (a trade value follows from it alone)."""
    return {j: v for j, v in values.items() if mortgaged[j] == old_mortgaged[j]}


def derived(game: Game, info: BoardInfo) -> Derived:
    """The :class:`Derived` tables of ``game`` now.

    One entry is kept: a hit needs the same game at the same ``seq``, or — for a game that moved on
    without a purchase, build or mortgage, and for look-ahead copies — equal ownership, levels and
    mortgages (compared by content, so the answer never depends on which game asked before). Otherwise
    the new tables are worked out from the kept ones when they belong to the same board, rules and teams.
    """
    d = _LAST[0]
    if d is not None and d.game is game:
        if d.seq == game.seq:
            return d  # most calls: a decision asks several times, and the game has not moved on
        if d.trusted and d.logged == len(game.holdings_log):
            d.seq = game.seq  # it moved on, but only the rule modules change holdings, and they changed none
            return d
    return _moved_on(game, info, d)


def _moved_on(game: Game, info: BoardInfo, d: Derived | None) -> Derived:
    """:func:`derived` when the kept tables are not those of this game with these holdings. Apart from
    :func:`derived`, and its comprehensions apart again (:func:`_compared`, :func:`_values_kept`): a comprehension
    makes Python create a cell, on every call, for each variable it reads of the function around it, which would
    burden each of :func:`derived`'s quick answers (several per player-turn) with work only this path needs."""
    if d is None:
        new = _LAST[0] = Derived(game, info)
        return new
    same_game = d.game is game  # then the same board, rules, teams and seats too
    hint: list[int] | None = None
    if same_game:
        if d.trusted:
            # Only the rule modules change these holdings, and they log each company they change (when they
            # changed none, ``derived`` has answered).
            hint = game.holdings_log[d.logged:]
            if len(hint) > _UPDATE_LIMIT or ALL_SQUARES in hint:
                hint = None
    elif (d.info is not info or not (d.rules is game.rules or d.rules == game.rules) or d.teams != _teams_key(game)
          or len(d.reserve) != game.seats):
        new = _LAST[0] = Derived(game, info)
        return new
    owner, mortgaged, level = game.owner, game.mortgaged, game.level
    changed: list[int] = []
    if hint is not None:
        # The companies the log names, less those changed back since: no 40-square list is compared.
        same_owners = same_mortgages = same_levels = True
        before_owner, before_mortgaged, before_level = d.owner, d.mortgaged, d.level
        for j in hint:
            other_owner = (now := owner[j]) is not (was := before_owner[j]) and now != was
            other_mortgage = mortgaged[j] != before_mortgaged[j]
            other_level = level[j] != before_level[j]
            if other_owner:
                same_owners = False
            if other_mortgage:
                same_mortgages = False
            if other_level:
                same_levels = False
            if (other_owner or other_mortgage or other_level) and j not in changed:
                changed.append(j)
    else:
        same_owners = d.owner == owner
        same_mortgages = d.mortgaged == mortgaged
        same_levels = d.level == level
    if same_owners and same_mortgages and same_levels:
        if not same_game:
            d.lent = True
        d.game, d.seq, d.logged = game, game.seq, len(game.holdings_log)
        d.trusted = game in _LOGGED
        return d
    if hint is None:
        changed = _compared(info, d, game, same_owners, same_mortgages, same_levels)
    old_owner, old_mortgaged = d.owner, d.mortgaged
    values, by_owner, holding, terms = d.values, d.by_owner, d.holding, d.terms
    if same_game and not d.lent and len(changed) <= _UPDATE_LIMIT:
        # The game moved on and no other game took these tables over: move them on in place (a decision
        # never spans a change of its own game, so nobody holds the tables as they were).
        new = d
        d._advance(game, changed, same_owners and same_mortgages)
        d.seq, d.logged = game.seq, len(game.holdings_log)
        _SERIAL[0] += 1
        d.serial = _SERIAL[0]
    else:
        new = Derived(game, info, d, changed) if len(changed) <= _UPDATE_LIMIT else Derived(game, info)
    # What follows from owners and mortgages alone stays while they do; in place it is already there.
    if same_owners and same_mortgages:
        new.values = values
        new.by_owner = by_owner
    else:
        if same_owners:
            new.by_owner = by_owner  # a mortgage changed, not who owns what
        elif by_owner:
            new.by_owner = _owners_kept(info, old_owner, by_owner, owner, changed)
        if same_game:
            if same_mortgages:
                new.values = values  # a trade value follows from the square's mortgage alone
            else:
                new.values = _values_kept(values, mortgaged, old_mortgaged)
    # Only the game that moved on keeps its judgements; a look-ahead copy starts afresh.
    if same_game and (d.memo or holding.count(None) != len(holding) or terms.count(None) != len(terms)):
        new.keep(d, old_owner, changed)
    _LAST[0] = new
    return new
