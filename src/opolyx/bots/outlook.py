"""Rent still to come: what a holding will charge over the rest of the game, the yardstick for trades.

List price says nothing about what a street is worth to the seat whose group it completes: a group held
whole doubles its rent, can be built on, and three levels multiply its take again (docs/rules.md §3). A bot
that judged a sale by list price would hand a rival a group for 1.5× list and pay it back many times over in
rent — the first exploit people find. So a trade is valued here by the rent each side's holdings in the
traded units are expected to charge over the rounds still to play:

- **Landings.** A square is landed on about once per 36 player-turns (a turn is one square out of 40 plus
  the doubles' extra moves), a little more on the groups the jail feeds (``BoardInfo.hot``).
- **Building potential.** A seat that holds a whole group is expected to build at once, as far as its cash
  (after the trade) allows, and one level further each time its salary has paid for one — the worst case
  for the seat that sold it the group, and what a trader who asks for a completing street does.
- **Remaining rounds.** Up to the round limit, and at most :data:`HORIZON_ROUNDS` (games with a built group
  rarely last longer). The owner's share shrinks with the rent tax (docs/rules.md §13); a tenant pays in full.

Everything here is read from the board's tables (:class:`~opolyx.bots.heuristics.BoardInfo`) and the game's
public attributes; nothing is kept between calls. A trade answer asks for it once, so it costs microseconds
per answer, never per turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from opolyx.bots.heuristics import BoardInfo, count_held
from opolyx.engine.teams import allies

if TYPE_CHECKING:
    from opolyx.engine.game import Game

#: Chance that one player's turn ends on a given square (1/40 of a turn, plus doubles' extra moves).
LANDING: Final = 1 / 36
#: Rounds a holding is expected to earn for at most: a game with a built group is decided well before.
HORIZON_ROUNDS: Final = 60
#: Salary per round on average (2000 per lap of about six turns): what a seat builds with after a trade.
INCOME_PER_ROUND: Final = 350
#: Cash a seat keeps back when it builds at once.
BUILD_FLOOR: Final = 500


def horizon(game: Game) -> int:
    left = game.rules.round_limit - game.round
    return max(1, min(left, HORIZON_ROUNDS))


def owner_share(game: Game, rounds: int) -> float:
    """Mean share of a rent that reaches the owner over the next ``rounds`` rounds (the rest is rent tax)."""
    rules = game.rules
    if rules.rent_tax_start is None:
        return 1.0
    total = 0
    for r in range(game.round, game.round + rounds):
        total += 10000 - rules.rent_tax_percent_x100(r)
    return total / (10000 * rounds)


def unit_squares(info: BoardInfo, square: int) -> tuple[int, ...]:
    """The squares whose rent moves with ``square``'s owner: its colour group, or all dealerships or utilities."""
    kind = info.kind[square]
    if kind == "street":
        return info.group_members[square]
    return info.dealerships if kind == "dealership" else info.utilities


def unit_rent(game: Game, info: BoardInfo, seat: int, squares: tuple[int, ...], owner: list[int | None],
              cash: int, rounds: int) -> float:
    """Rent one tenant is expected to pay ``seat`` on ``squares`` (one unit) over ``rounds`` rounds, if
    ``owner`` were the ownership and ``cash`` the seat's cash: landings times the rent each round, the levels
    of a group held whole rising as the seat's cash allows."""
    first = squares[0]
    kind = info.kind[first]
    mortgaged = game.mortgaged
    if kind != "street":
        held = count_held(owner, squares, seat)
        if held == 0:
            return 0.0
        if kind == "dealership":
            rent = float(info.dealership_rents[held - 1])
        else:
            rent = 7.0 * info.utility_multipliers[held - 1]
        per_round = 0.0
        for j in squares:
            if owner[j] == seat and not mortgaged[j]:
                per_round += rent * LANDING
        return per_round * rounds
    whole = True
    for j in squares:
        if owner[j] != seat:
            whole = False
            break
    level = game.level
    if not whole:
        per_round = 0.0
        for j in squares:
            if owner[j] == seat and not mortgaged[j]:
                per_round += info.rents[j][level[j]] * LANDING * info.hot[j]
        return per_round * rounds
    # A whole group: the rent at each level the seat can reach, level by level as cash comes in.
    cost = 0
    low = 5
    for j in squares:
        cost += info.level_cost[j]
        if level[j] < low:
            low = level[j]
    by_level = []
    for lvl in range(6):
        r = 0.0
        for j in squares:
            if mortgaged[j]:
                continue
            at = max(lvl, level[j])
            r += (info.rents[j][at] if at else info.rents[j][0] * 2) * LANDING * info.hot[j]
        by_level.append(r)
    total = 0.0
    spare = cash - BUILD_FLOOR
    for t in range(rounds):
        lvl = low + max(0, spare + t * INCOME_PER_ROUND) // cost if cost else low
        total += by_level[lvl if lvl < 5 else 5]
    return total


def trade_outlook(game: Game, info: BoardInfo, proposer: int, recipient: int, give_cash: int, take_cash: int,
                  squares: tuple[int, ...], after: list[int | None]) -> tuple[float, float]:
    """(proposer, recipient): how much the rent each will collect less the rent each will pay changes over
    the rest of the game if the trade moving ``squares`` (``after``: the ownership it leaves) went through.

    Collected rent comes from every rival still in (at the owner's share after rent tax); paid rent only
    what the other side of the trade charges this seat, in full: the rent a seat expects to pay the proposer
    is the least a sale of the proposer's last street must bring in.
    """
    rounds = horizon(game)
    share = owner_share(game, rounds)
    units: list[tuple[int, ...]] = []
    for i in squares:
        u = unit_squares(info, i)
        if u and u not in units:
            units.append(u)
    before = game.owner
    cash_p = game.players[proposer].cash
    cash_r = game.players[recipient].cash
    gain = [0.0, 0.0]
    for k, (seat, cash_before, cash_after) in enumerate(
        ((proposer, cash_p, cash_p - give_cash + take_cash), (recipient, cash_r, cash_r + give_cash - take_cash))
    ):
        for u in units:
            gain[k] += unit_rent(game, info, seat, u, after, cash_after, rounds) - unit_rent(
                game, info, seat, u, before, cash_before, rounds)
    rivals = [0, 0]
    for k, seat in enumerate((proposer, recipient)):
        for q in game.players:
            if not q.out and q.seat != seat and not allies(game, q.seat, seat):
                rivals[k] += 1
    d_prop = gain[0] * rivals[0] * share - gain[1]
    d_rec = gain[1] * rivals[1] * share - gain[0]
    return d_prop, d_rec


def holding_outlook(game: Game, info: BoardInfo, seat: int, square: int) -> float:
    """The rent ``seat`` would collect from its rivals over the rest of the game, beyond what it collects now,
    if it held ``square`` as well (its cash as it stands): what a company is worth above the price it keeps in
    net worth. Used for auction limits: a rival's lone dealership or a second utility earns many times its
    price difference before the rent tax takes the owner's share."""
    rounds = horizon(game)
    u = unit_squares(info, square)
    if not u:
        return 0.0
    after = game.owner[:]
    after[square] = seat
    cash = game.players[seat].cash - info.price[square]
    gain = unit_rent(game, info, seat, u, after, cash, rounds) - unit_rent(game, info, seat, u, game.owner,
                                                                          cash, rounds)
    rivals = 0
    for q in game.players:
        if not q.out and q.seat != seat and not allies(game, q.seat, seat):
            rivals += 1
    return gain * rivals * owner_share(game, rounds)
