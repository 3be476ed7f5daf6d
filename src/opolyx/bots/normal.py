"""The normal bot: sound, cheap heuristics — value groups, keep a reserve, build evenly, trade fairly.

Every decision reads the game's attributes directly; the reserve (cash held back against the rents the
board can charge) is the one number most choices turn on, so it is computed once per decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast

from opolyx.bots.base import Action, BaseBot, memory
from opolyx.bots.heuristics import (
    UNKNOWN,
    BoardInfo,
    Derived,
    count_held,
    derived,
    expected_step_cost,
    marginal_value,
    owns_group,
    reserve,
    threat_profile,
)
from opolyx.bots.outlook import holding_outlook, trade_outlook
from opolyx.engine.building import may_sell, raisable
from opolyx.engine.mortgages import may_mortgage
from opolyx.engine.state import Offer
from opolyx.engine.teams import allies
from opolyx.engine.trades import may_offer
from opolyx.engine.worth import liquidation_value, net_worth, redemption_cost

if TYPE_CHECKING:
    from opolyx.engine.game import Game
    from opolyx.engine.state import Trade

#: Rounds before the round limit from which the game is a net-worth race (docs/rules.md §16): buying and building
#: keep their full value in net worth, so cash is worth more spent than held, and a fair bet is worth its
#: variance only to a seat that is behind.
ENDGAME_ROUNDS: Final = 30
#: Net gain of a jackpot hit on one, two and three numbers, as multiples of the stake (payout minus stake).
_JACKPOT_NET: Final = {1: 5, 2: 2, 3: 1}

#: A recipient accepts a trade when its own gain is at least this share of the proposer's gain: a
#: trade that helps a rival far more than oneself loses the game even if it "gains value".
ENVY: Final = 0.35

#: The same items are asked of the same partner again only this many rounds on (and, but for a street, for
#: more cash): one ask per window, so a declined offer is not repeated every turn.
ASK_AGAIN_ROUNDS: Final = 10
#: A seat seen trading (with anyone) turns an offer down for its price, not for trading: the street that completes
#: our group is asked of it again this many rounds on, each ask :data:`DEARER_STEP` of the street's trade value above
#: the price it turned down (up to the price the partner's own judgement should take, or past it while the deal
#: still pays us): a face-value trader sells at its first step, a careful one at the last. Groups completed ten
#: rounds late lost games to traders that complete theirs among themselves (issue #41).
ASK_TRADER_ROUNDS: Final = 2
DEARER_STEP: Final = 0.25
#: Percent of face value offered to a third seat that trades for the street that would complete a rival's group
#: (``block_offer``): a seat that trades sells above face value, and a rival's group kept open is worth more.
BLOCK_PERCENT: Final = 125

#: Offers a rival may turn down, having accepted none, before it is offered nothing more: a seat that never
#: trades (many outside bots, many people) was sent some twenty declined offers a game at rising prices.
SILENT_AFTER: Final = 2
#: ... once one of those declines was of at least this percent of face value (a seat that refuses a generous
#: price does not sell at all), or after :data:`SILENT_ANYWAY` declines whatever the prices.
GENEROUS_PERCENT: Final = 130
SILENT_ANYWAY: Final = 5
#: ... but for one more offer this many rounds after the last decline (twice as long after each further
#: one), in case it has changed its mind.
SILENCE_ROUNDS: Final = 100


def note_traders(game: Game, seat: int) -> None:
    """Notice companies that changed hands between seats still in since ``seat`` last looked: both seats
    trade (with someone), whatever they answered this seat."""
    mem = memory(game, seat)
    owner = game.owner
    seen = mem.owners_seen
    if seen == owner:
        return
    if seen:
        players = game.players
        for i in range(len(owner)):
            a, b = seen[i], owner[i]
            if a is not None and b is not None and a != b and not players[a].out:
                mem.traders.add(a)
                mem.traders.add(b)
    mem.owners_seen = owner[:]


def note_answers(game: Game, seat: int) -> None:
    """Fold the answers to ``seat``'s offers that are no longer open into its memory of each partner:
    the squares asked for now ``seat``'s means accepted, anything else declined (or lapsed)."""
    mem = memory(game, seat)
    if not mem.pending:
        return
    still: list[tuple[int, tuple[int, ...], int, int]] = []
    for partner, take, rnd, percent in mem.pending:
        open_now = False
        for t in game.trades.values():
            if t.proposer == seat and t.recipient == partner and t.take.squares == take:
                open_now = True
                break
        if open_now:
            still.append((partner, take, rnd, percent))
            continue
        counts = mem.answers.get(partner)
        if counts is None:
            counts = mem.answers[partner] = [0, 0, -1, 0]
        owner = game.owner
        if take and all(owner[j] == seat for j in take):
            counts[1] += 1
        else:
            counts[0] += 1
            counts[2] = game.round
            if percent > counts[3]:
                counts[3] = percent
    mem.pending[:] = still


def listens(game: Game, seat: int, partner: int) -> bool:
    """Whether ``partner`` is still worth an offer: not after :data:`SILENT_AFTER` declines (one of them of a
    generous price) or :data:`SILENT_ANYWAY` declines, no acceptance and no trade seen with anyone else
    (``note_traders``), but for a rare probe (:data:`SILENCE_ROUNDS`).
    A seat that trades with others turns this seat's offers down for their price: it is asked again, dearer."""
    mem = memory(game, seat)
    counts = mem.answers.get(partner)
    if counts is None or counts[1] or counts[0] < SILENT_AFTER or partner in mem.traders:
        return True
    if counts[3] < GENEROUS_PERCENT and counts[0] < SILENT_ANYWAY:
        return True  # turned down only modest prices so far: a dearer offer may still be taken
    return game.round - counts[2] >= SILENCE_ROUNDS << (counts[0] - SILENT_AFTER)


def note_offer(game: Game, seat: int, action: Action) -> None:
    """Remember an offer ``seat`` is making so that :func:`note_answers` can learn the partner's answer."""
    take = tuple(action["take"]["squares"])
    give = action["give"]
    face = game.trade_value(Offer(0, take))
    offered = game.trade_value(Offer(give["cash"], tuple(give["squares"])))
    percent = offered * 100 // face if face > 0 else 0
    memory(game, seat).pending.append((action["to"], take, game.round, percent))


class NormalBot(BaseBot):
    strength = "normal"
    #: Propose trades at all (rollouts switch this off: they need speed, not deals).
    trades = True
    #: Share of the reserve a purchase may eat into (a bought company can be mortgaged back for half).
    buy_reserve_share = 0.6
    #: Share of the reserve that building must leave untouched. Low, because levels are where rent comes
    #: from (three levels triple a group's take): building deep into the reserve wins more than it loses to
    #: the pay steps it risks (docs/bots.md has the games against the field that show it).
    build_reserve_share = 0.2
    #: Auction limit: this multiple of the company's value to us, keeping this share of the reserve.
    auction_value_factor = 1.0
    auction_reserve_share = 0.5
    #: Mortgage lone companies to bring a whole group to its third level (see :meth:`mortgage_for_build`).
    mortgage_to_build = False
    #: Weigh a trade's rent to come (``outlook``) when answering it, not only the holdings' values.
    rent_outlook = True
    #: Share of a company's rent to come (``outlook.holding_outlook``) an auction bid may pay above its price.
    auction_outlook = 0.0
    #: Ask a seat that trades again soon and a step dearer for the street that completes our group (``ask_window``).
    ladder = True
    #: Buy from a third seat that trades the street that would complete a rival's group (``block_offer``).
    blocking = True

    def rounds_left(self, game: Game) -> int:
        return game.rules.round_limit - game.round

    def endgame(self, game: Game) -> bool:
        """The round limit is near enough that net worth, not bankruptcy, will most likely decide."""
        return game.rules.round_limit - game.round <= ENDGAME_ROUNDS  # rounds_left, without a call

    # ------------------------------------------------------------------ before the roll

    def on_turn(self, game: Game, info: BoardInfo, seat: int) -> Action:
        p = game.players[seat]
        # The tables are asked for once and handed on: every step below reads them, and asking again in each
        # would repeat the lookup on every turn of every seat.
        d = derived(game, info)
        res = d.reserve_of(seat)
        if self.trades:
            proposal = self.propose(game, info, seat, res, d)
            if proposal is not None:
                return proposal
        action = self.manage(game, info, seat, res, d)
        if action is not None:
            return action
        if p.in_jail:
            return self.jail_choice(game, info, seat, res)
        return {"type": "roll"}

    def manage(self, game: Game, info: BoardInfo, seat: int, res: int, d: Derived) -> Action | None:
        """Redeem, build or pay off a Murabaha while cash stays above the reserve (``d``: the game's tables)."""
        p = game.players[seat]
        cash = p.cash
        owner = game.owner
        build_share = self.build_reserve_share * (0.3 if self.endgame(game) else 1.0)
        if cash <= res * build_share:
            return None
        budget = cash - int(res * build_share)
        build = self.best_build(game, info, seat, budget, d)
        wanted = 0
        if self.mortgage_to_build:
            # Levels before redemptions, or the lone companies mortgaged for a level would be redeemed
            # straight back (and mortgaged again) at the redemption fee each time.
            if build is not None:
                return {"type": "build", "square": build}
            wanted = self.level_wanted(game, info, seat)
            square = self.mortgage_for_build(game, info, seat, wanted - budget)
            if square is not None:
                return {"type": "mortgage", "square": square}
        best_redeem = None
        best_key = -1.0
        for i in () if wanted else d.mortgaged_by[seat]:  # cash waits for the level
            members = info.group_members[i]
            key = 2.0 if members and owns_group(owner, members, seat) else 1.0
            key += info.price[i] / 10000
            # The cost only of a company that would be preferred: the engine's price, asked no more than needed.
            if key > best_key and cash - redemption_cost(game, i) >= res + 500:
                best_key, best_redeem = key, i
        if best_redeem is not None:
            return {"type": "redeem", "square": best_redeem}
        if build is not None:
            return {"type": "build", "square": build}
        if game.murabaha:
            for i, m in game.murabaha.items():
                if m.seat == seat and m.due_round - game.round <= 2 and cash - m.amount >= res:
                    return {"type": "pay_murabaha", "square": i}
        return None

    def best_build(self, game: Game, info: BoardInfo, seat: int, budget: int, d: Derived) -> int | None:
        """The street whose next level adds the most rent per unit of cost, within ``budget``.

        Only a whole group can be built on, so the engine is asked once which streets of the groups held whole
        may rise (``building.raisable``) rather than once per street. The budget is never more than the cash,
        so the cash test is the budget's."""
        complete = d.complete[seat]
        if not complete:
            return None
        best = None
        best_gain = 0.0
        level = game.level
        for i in raisable(game, seat, complete):
            cost = info.level_cost[i]
            if cost > budget:
                continue
            lvl = level[i]
            gain = (info.rents[i][lvl + 1] - (info.rents[i][0] * 2 if lvl == 0 else info.rents[i][lvl])) / cost
            gain *= info.hot[i]
            if gain > best_gain:
                best_gain, best = gain, i
        return best

    def level_wanted(self, game: Game, info: BoardInfo, seat: int) -> int:
        """The cost of the cheapest level below the third that the rules let ``seat`` build right now, cash
        apart (0: none). Only such a level is worth mortgaging for, and while one waits, cash goes to it
        rather than to redemptions; a level the rules refuse today (one level per street per turn,
        uneven building, a mortgaged member) must not start a mortgage, or a redemption would undo it and
        the two would alternate for ever."""
        level = game.level
        cheapest = 0
        for j in raisable(game, seat, derived(game, info).complete[seat]):
            if level[j] >= 3:
                continue
            cost = info.level_cost[j]
            if cheapest == 0 or cost < cheapest:
                cheapest = cost
        return cheapest

    def mortgage_for_build(self, game: Game, info: BoardInfo, seat: int, shortfall: int) -> int | None:
        """A lone company to mortgage so that a whole group can reach its third level now, ``shortfall``
        being what the cheapest such level (:meth:`level_wanted`) costs beyond the building budget.

        The third level is where rent jumps (docs/rules.md §3's rent tables roughly triple from one to three
        levels), and a lone street or a single dealership earns little: turning its mortgage value into a
        level on a complete group pays for the redemption fee many times over. Only starts when the lone
        holdings together cover the shortfall, so nothing is mortgaged for a level that cannot be bought.
        """
        if shortfall <= 0:
            return None
        owner = game.owner
        candidates: list[tuple[tuple[int, int], int]] = []
        for i in info.companies:
            if (who := owner[i]) is None or who != seat or not may_mortgage(game, seat, i, info.group_members[i]):
                continue
            members = info.group_members[i]
            if info.kind[i] == "street":
                if owns_group(owner, members, seat):
                    continue
                cls = 1 if count_held(owner, members, seat) > 1 else 0
            elif info.kind[i] == "dealership":
                cls = 2 if count_held(owner, info.dealerships, seat) > 1 else 1
            else:
                cls = 0
            candidates.append(((cls, info.price[i]), i))
        if sum(info.price[i] // 2 for _k, i in candidates) < shortfall:
            return None
        return min(candidates)[1] if candidates else None

    def jail_choice(self, game: Game, info: BoardInfo, seat: int, res: int) -> Action:
        """Bail out early while there is land to buy; sit tight once the board charges big rents."""
        p = game.players[seat]
        bail = game.rules.jail_bail
        if p.cash < bail:
            return {"type": "jail_roll"}
        d = derived(game, info)
        top, _total = d.threat[seat]
        unowned = d.unowned
        dangerous = top >= 1500 or expected_step_cost(game, info, seat, 10) > 250
        if dangerous and unowned < 6:
            return {"type": "jail_roll"}
        if p.cash - bail >= res // 2:
            return {"type": "pay_bail"}
        return {"type": "jail_roll"}

    # ------------------------------------------------------------------ buying and auctions

    def on_buy(self, game: Game, info: BoardInfo, seat: int) -> Action:
        sq = game.offer_square
        assert sq is not None
        p = game.players[seat]
        price = info.price[sq]
        res = reserve(game, info, seat)
        value = marginal_value(game, info, seat, sq)
        if p.cash >= price and self.wants(game, info, seat, sq, price, value, res):
            return {"type": "buy"}
        if game.rules.murabaha and p.vip and value >= price and self.murabaha_ok(game, info, seat, price):
            return {"type": "buy_murabaha"}
        return {"type": "decline"}

    def wants(self, game: Game, info: BoardInfo, seat: int, sq: int, price: int, value: float, res: int) -> bool:
        cash_after = game.players[seat].cash - price
        if cash_after >= res * self.buy_reserve_share:
            return True
        if self.endgame(game) and cash_after >= min(res // 3, 1000):
            return True  # a company keeps its full price in net worth and earns rent until the end
        # A company that completes or blocks a group is worth thinning the reserve for.
        return value >= 1.4 * price and cash_after + info.price[sq] // 2 >= res // 2

    def murabaha_ok(self, game: Game, info: BoardInfo, seat: int, price: int) -> bool:
        """Defer payment only while the total owed stays well inside what liquidation could raise."""
        owed = sum(m.amount for m in game.murabaha.values() if m.seat == seat)
        amount = price * (100 + game.rules.murabaha_markup_percent) // 100
        return owed + amount <= liquidation_value(game, seat) // 2

    def on_auction(self, game: Game, info: BoardInfo, seat: int) -> Action:
        a = game.auction
        assert a is not None
        price = info.price[a.square]
        minimum = price if a.bid is None else a.bid + game.rules.auction_step
        cash = game.players[seat].cash
        if cash < minimum:
            return {"type": "pass"}
        limit = self.auction_limit(game, info, seat, a.square, a.id)
        if minimum <= limit:
            return {"type": "bid", "amount": minimum}
        return {"type": "pass"}

    def auction_limit(self, game: Game, info: BoardInfo, seat: int, sq: int, auction_id: int) -> int:
        res = reserve(game, info, seat)
        value = marginal_value(game, info, seat, sq)
        if self.auction_outlook:
            # Its price stays in net worth; what it earns over the rest of the game comes on top.
            value = max(value, info.price[sq] + self.auction_outlook * holding_outlook(game, info, seat, sq))
        cash = game.players[seat].cash
        return int(min(value * self.auction_value_factor, cash - res * self.auction_reserve_share))

    # ------------------------------------------------------------------ paying

    def on_pay(self, game: Game, info: BoardInfo, seat: int) -> Action:
        debt = game.debts[0]
        amount = debt.amount
        p = game.players[seat]
        if p.cash >= amount:
            return {"type": "pay"}
        if game.rules.teams and self.trades:
            ask = self.ask_ally(game, info, seat, amount - p.cash)
            if ask is not None:
                return ask
        if liquidation_value(game, seat) < amount:
            return {"type": "declare_bankruptcy"}
        action = self.raise_cash(game, info, seat)
        return action if action is not None else self.fallback(game, seat)

    def raise_cash(self, game: Game, info: BoardInfo, seat: int) -> Action | None:
        """Mortgage what earns least first, then unbuilt groups, and sell buildings only as a last resort."""
        owner = game.owner
        best_m = None
        best_cls, best_price = 9, 0  # the least (class, -price), compared as a pair
        for i in info.companies:
            if (who := owner[i]) is None or who != seat or not may_mortgage(game, seat, i, info.group_members[i]):
                continue
            kind = info.kind[i]
            if kind == "street":
                cls = 3 if owns_group(owner, info.group_members[i], seat) else 1
            elif kind == "dealership":
                cls = 2 if count_held(owner, info.dealerships, seat) > 1 else 0
            else:
                cls = 0
            price = -info.price[i]
            if cls < best_cls or (cls == best_cls and price < best_price):
                best_cls, best_price, best_m = cls, price, i
        if best_m is not None and best_cls < 3:
            return {"type": "mortgage", "square": best_m}
        best_s = None
        best_loss = float("inf")
        for i in info.companies:
            if (who := owner[i]) is not None and who == seat and may_sell(game, seat, i, info.group_members[i]):
                lvl = game.level[i]
                loss = (info.rents[i][lvl] - info.rents[i][lvl - 1]) / info.level_cost[i]
                if loss < best_loss:
                    best_loss, best_s = loss, i
        if best_m is not None and (best_s is None or best_cls == 3):
            return {"type": "mortgage", "square": best_m}
        if best_s is not None:
            return {"type": "sell", "square": best_s}
        return None

    # ------------------------------------------------------------------ corner 20, Speed's die

    def on_jackpot(self, game: Game, info: BoardInfo, seat: int) -> Action:
        """A fair bet: worth the variance only with cash to spare, and only when not already ahead.

        Near the round limit it is the cheapest way to close a net-worth gap: behind the leader, bet on
        as many numbers as still close the gap in one hit (the likeliest bet that is enough); ahead,
        never gamble.
        """
        p = game.players[seat]
        res = reserve(game, info, seat)
        if self.endgame(game) and self.rounds_left(game) <= 6:
            if game.rules.teams:
                return {"type": "jackpot_decline"}
            worth = net_worth(game, seat)
            gap = max((net_worth(game, q.seat) for q in game.players if not q.out and q.seat != seat),
                      default=worth) - worth
            stake = game.rules.jackpot_stake
            if gap <= 0 or p.cash < stake:
                return {"type": "jackpot_decline"}
            count = max((k for k, m in _JACKPOT_NET.items() if m * stake > gap), default=1)
            return {"type": "jackpot_bet", "numbers": sorted(self.rng.sample(range(1, 7), count))}
        if p.cash >= res + 4000:
            d = derived(game, info)
            mine = p.cash + d.holding_value(game, seat)
            best_other = max(
                (q.cash + d.holding_value(game, q.seat) for q in game.players if not q.out and q.seat != seat),
                default=0.0,
            )
            if mine < best_other:
                return {"type": "jackpot_bet", "numbers": sorted(self.rng.sample(range(1, 7), 3))}
        return {"type": "jackpot_decline"}

    def square_score(self, game: Game, info: BoardInfo, seat: int, dest: int, salary: int) -> float:
        """How welcome a landing on ``dest`` is: buying chances up, rents and taxes down."""
        score = float(salary)
        kind = info.kind[dest]
        p = game.players[seat]
        if kind in ("street", "dealership", "utility"):
            o = game.owner[dest]
            if o is None:
                price = info.price[dest]
                if p.cash >= price:
                    score += max(0.0, marginal_value(game, info, seat, dest) - price) + 0.2 * price
            elif not allies(game, o, seat):
                score -= derived(game, info).rent[dest]
        elif kind == "tax":
            score -= info.tax[dest]
        elif kind == "event":
            score -= 100
        elif kind == "go_to_jail":
            top, _ = threat_profile(game, info, seat)
            score += 200 if top >= 1500 else -400
        elif kind == "corner_20" and game.rules.corner_20 == "temple_of_wealth":
            score += 500
        return score

    def on_bus(self, game: Game, info: BoardInfo, seat: int) -> Action:
        assert game.bus_dice is not None
        d1, d2 = game.bus_dice
        pos = game.players[seat].position
        best_use, best = "sum", float("-inf")
        for use, steps in (("sum", d1 + d2), ("first", d1), ("second", d2)):
            dest = (pos + steps) % info.n
            salary = 0
            if pos + steps >= info.n:
                salary = game.rules.salary + (game.rules.start_landing_bonus if dest == 0 else 0)
            s = self.square_score(game, info, seat, dest, salary)
            if s > best:
                best, best_use = s, use
        return {"type": "choose_bus", "use": best_use}

    def on_teleport(self, game: Game, info: BoardInfo, seat: int) -> Action:
        """Teleport where a group completes, else to the best safe square (Start pays salary and bonus)."""
        best_sq, best = game.players[seat].position, float("-inf")
        start_pay = game.rules.salary + game.rules.start_landing_bonus
        for dest in range(info.n):
            s = self.square_score(game, info, seat, dest, start_pay if dest == 0 else 0)
            if s > best:
                best, best_sq = s, dest
        return {"type": "teleport", "square": best_sq}

    # ------------------------------------------------------------------ trades

    def trade_deltas(self, game: Game, info: BoardInfo, proposer: int, recipient: int, give: Offer,
                     take: Offer) -> tuple[float, float]:
        """Each side's gain in (holding value + cash) if the trade went through.

        The holding-value part is the change of the two seats' shares of the traded squares' units alone
        (``Derived.holding_change``), so it is kept in the tables' memo while nothing in those units changes:
        a standing offer is re-judged every turn, and after purchases elsewhere, without pricing it again.
        """
        d = derived(game, info)
        key = ("deltas", proposer, recipient, give.squares, take.squares)
        known = d.recall(key)
        if known is UNKNOWN:
            after = game.owner[:]
            unit_of = info.unit_of
            units = 0  # the units whose shares the trade changes, one bit each
            for i in give.squares:
                after[i] = recipient
                units |= 1 << unit_of[i]
            for i in take.squares:
                after[i] = proposer
                units |= 1 << unit_of[i]
            hit = (d.holding_change(game, proposer, after, units), d.holding_change(game, recipient, after, units))
            d.note(key, hit)
        else:
            hit = cast("tuple[float, float]", known)
        h_prop, h_rec = hit
        return h_prop + take.cash - give.cash, h_rec + give.cash - take.cash

    def answer_trade(self, game: Game, info: BoardInfo, seat: int, trade: Trade) -> Action:
        if self.accepts(game, info, seat, trade):
            return {"type": "accept_trade", "trade": trade.id}
        return {"type": "decline_trade", "trade": trade.id}

    def accepts(self, game: Game, info: BoardInfo, seat: int, trade: Trade) -> bool:
        cash_after = game.players[seat].cash + trade.give.cash - trade.take.cash
        if allies(game, seat, trade.proposer):
            # Teammates win together: help unless it leaves this seat unable to pay its way.
            return cash_after >= min(1000, reserve(game, info, seat) // 2) or trade.take.cash == 0
        if cash_after < 0:
            return False
        d_prop, d_rec = self.trade_deltas(game, info, trade.proposer, seat, trade.give, trade.take)
        if self.rent_outlook and (trade.give.squares or trade.take.squares):
            # List price is not what a street is worth to the seat it completes a group for: both sides'
            # rent to come over the remaining rounds (``outlook``) is added, so a sale must at least cover
            # the rent this seat expects to pay the proposer for it, and help the proposer no more than ENVY
            # allows. 1.5× list for the street that completes a rival's group is then refused (issue #41).
            after = game.owner[:]
            for i in trade.give.squares:
                after[i] = seat
            for i in trade.take.squares:
                after[i] = trade.proposer
            o_prop, o_rec = trade_outlook(game, info, trade.proposer, seat, trade.give.cash, trade.take.cash,
                                          trade.give.squares + trade.take.squares, after)
            d_prop += o_prop
            d_rec += o_rec
        return d_rec >= 0 and d_rec >= ENVY * d_prop

    def propose(self, game: Game, info: BoardInfo, seat: int, res: int, d: Derived) -> Action | None:
        """At most one proposal per turn, never one already made: complete a group, help an ally, or buy
        up the dealerships and utilities whose rent grows with every one held (``d``: the game's tables)."""
        mem = memory(game, seat)
        if mem.last_proposal_turn == game.turn_no:
            return None
        note_traders(game, seat)
        if mem.pending:
            note_answers(game, seat)
        rounds, band = game.round // ASK_TRADER_ROUNDS, game.players[seat].cash // 2000
        idle = mem.idle_scan
        if idle is not None and idle[0] == d.serial and idle[1] == rounds and idle[2] == band and not game.rules.teams:
            return None
        scan = (d.serial, rounds, band)
        open_trades = 0
        for t in game.trades.values():  # not ``sum`` over a generator, which costs every call a cell for ``seat``
            if t.proposer == seat:
                open_trades += 1
        if open_trades >= game.rules.max_open_trades:
            return None
        # The targets follow from ownership and who is still in alone: kept with the tables they derive from.
        eliminated = game.eliminated
        key = (seat, tuple(eliminated) if eliminated else ())  # nobody out for most of a game: no call
        collect = d.by_owner.get(key)
        if collect is None:
            collect = d.by_owner[key] = self.assembly_targets(game, info, seat) + self.collect_targets(game, info, seat)
        blocks = self.block_targets(game, seat, d) if self.blocking else []
        if not game.rules.teams and not d.near[seat] and not collect and not blocks:
            mem.idle_scan = scan
            return None  # nothing to complete, to block or to collect
        action = None
        if game.rules.teams:
            action = self.team_gift(game, info, seat, res)
        if action is None and d.near[seat]:
            action = self.completion_offer(game, info, seat, res, d)
        if action is None and blocks:
            action = self.block_offer(game, info, seat, res, blocks, d)
        if action is None and collect:
            action = self.collection_offer(game, info, seat, res, collect, d)
        if action is not None:
            mem.last_proposal_turn = game.turn_no
            mem.idle_scan = None
            if not allies(game, seat, action["to"]):
                note_offer(game, seat, action)
        else:
            mem.idle_scan = scan
        return action

    def _remember(self, game: Game, seat: int, to: int, give: tuple[int, ...], take: tuple[int, ...],
                  cash_to_partner: int, window: int = ASK_AGAIN_ROUNDS) -> bool:
        """True (and recorded) if this proposal is new: same items again only ``window`` rounds later and for more
        cash."""
        mem = memory(game, seat)
        key = (to, give, take)
        before = mem.proposals.get(key)
        if before is not None:
            rnd, cash = before
            if game.round - rnd < window or cash_to_partner <= cash:
                return False
        mem.proposals[key] = (game.round, cash_to_partner)
        return True

    def completion_offer(self, game: Game, info: BoardInfo, seat: int, res: int, d: Derived) -> Action | None:
        cash = game.players[seat].cash
        if cash < res // 2:
            return None  # no ask costs less than nothing, and every one must leave half the reserve
        for missing, o in d.near[seat]:  # groups one street short, held by a rival
            if game.players[o].out or not listens(game, seat, o):
                continue
            if not may_offer(game, o, missing, info.group_members[missing]):
                continue
            value = d.trade_value(game, missing)
            take = Offer(0, (missing,))
            first = self._face_value_offer(game, info, seat, o, take, value, cash, res)
            if first is not None:
                return first
            # Swap when the partner is one street short of a group too and we hold it.
            swap = self._swap_square(game, info, seat, o, d)
            options: list[tuple[int, ...]] = [(swap,)] if swap is not None else []
            options.append(())
            window = self.ask_window(game, seat, o)
            proposals = memory(game, seat).proposals
            for give_squares in options:
                before = proposals.get((o, give_squares, take.squares))
                if before is not None and game.round - before[0] < window:
                    continue
                offer = self._cash_for(game, info, seat, o, give_squares, take, value, cash, res)
                if offer is None:
                    continue
                if before is not None and window < ASK_AGAIN_ROUNDS:
                    # A trading seat's price is found by steps from the one it turned down, up to what the
                    # partner's judgement would take (or past it, while the deal still pays us).
                    step = self._dearer(game, info, seat, o, give_squares, take, value, before[1], cash, res)
                    if step is not None and (offer.cash <= before[1] or step.cash < offer.cash):
                        offer = step
                    elif offer.cash <= before[1]:
                        continue
                if not self._remember(game, seat, o, offer.squares, take.squares, offer.cash, window):
                    continue
                return {"type": "propose_trade", "to": o, "give": offer.to_public(), "take": take.to_public()}
        return None

    def ask_window(self, game: Game, seat: int, partner: int) -> int:
        """Rounds before the street that completes our group is asked of ``partner`` again: soon, and dearer
        (:data:`ASK_TRADER_ROUNDS`), of a seat that trades (it accepted one of our offers or was seen trading)
        and has not turned down a generous price (:data:`GENEROUS_PERCENT` of face value or more): one that
        has, sells some things but not this kind, and steps up to it would only be turned down again."""
        mem = memory(game, seat)
        counts = mem.answers.get(partner)
        if not self.ladder or (counts is not None and counts[3] >= GENEROUS_PERCENT):
            return ASK_AGAIN_ROUNDS
        if partner in mem.traders or (counts is not None and counts[1] > 0):
            return ASK_TRADER_ROUNDS
        return ASK_AGAIN_ROUNDS

    def _dearer(self, game: Game, info: BoardInfo, seat: int, partner: int, give_squares: tuple[int, ...],
                take: Offer, value: int, last: int, cash: int, res: int) -> Offer | None:
        """The cash one step (:data:`DEARER_STEP` of ``value``) above ``last``, the price a trading seat turned
        down, while the deal still pays us more than ENVY of what it pays the partner and stays fair."""
        c = last + max(100, int(value * DEARER_STEP) // 100 * 100)
        give_value = game.trade_value(Offer(0, give_squares))
        if give_value + c > 2 * value or c > cash - res // 2:
            return None
        if min(give_value + c, value) * 100 < max(give_value + c, value) * game.rules.trade_fairness_percent:
            return None
        d_prop, d_rec = self.trade_deltas(game, info, seat, partner, Offer(0, give_squares), take)
        if d_prop - c <= 0 or d_prop - c < ENVY * (d_rec + c):
            return None
        return Offer(c, give_squares)

    def _face_value_offer(self, game: Game, info: BoardInfo, seat: int, partner: int, take: Offer, value: int,
                          cash: int, res: int) -> Action | None:
        """The first ask for a missing street is plain cash at its trade value (docs/rules.md §8): many players judge
        a deal by face value alone, and a group completed at list price is the best deal on the board. Once
        declined, the next ask (ten rounds on) is priced by :meth:`_cash_for`, which pays for the partner's
        own gain."""
        key = (partner, (), take.squares)
        if key in memory(game, seat).proposals:
            return None
        price = -(-value // 100) * 100
        if cash - price < res // 2:
            return None
        d_prop, _d_rec = self.trade_deltas(game, info, seat, partner, Offer(0, ()), take)
        if d_prop - price <= 0 or not self._remember(game, seat, partner, (), take.squares, price):
            return None
        return {"type": "propose_trade", "to": partner, "give": {"cash": price, "squares": []},
                "take": take.to_public()}

    def assembly_targets(self, game: Game, info: BoardInfo, seat: int) -> list[tuple[int, int]]:
        """(square, owner) of rivals' streets in groups this seat has begun and nobody else could finish.

        Asked for once each at face value: a face-value trader sells, and each one bought brings a group
        closer while keeping it from anyone else. The hottest groups come first.
        """
        owner = game.owner
        players = game.players
        targets: list[tuple[float, int, int]] = []
        for members, _get, _rows in info.street_groups:
            n = len(members)
            if n < 3:
                continue  # of two streets, one held is one short, the completion offer's case
            mine = count_held(owner, members, seat)
            if mine == 0 or mine >= n - 1:
                continue  # none held, done, or one short (the completion offer's case)
            for j in members:
                o = owner[j]
                if o is None or o == seat or allies(game, o, seat) or players[o].out:
                    continue
                if count_held(owner, members, o) > 1:
                    continue  # a rival building the same group will not sell
                targets.append((-info.hot[j] - mine, j, o))
        targets.sort()
        return [(j, o) for _k, j, o in targets]

    def block_targets(self, game: Game, seat: int, d: Derived) -> list[tuple[int, int]]:
        """(street, holder) of the streets that would complete a rival's group, held by a third seat seen trading
        with others or that has not turned down an offer of ours yet.

        A holder that trades sells at a price, and the rival one street short will soon offer it one: a group completed
        by trade decides games against seats that trade among themselves (issue #41). Bought first, the street
        keeps its price in net worth and the group stays open, as this seat does not sell a street that completes a
        rival's group (``outlook``)."""
        mem = memory(game, seat)
        answers, traders = mem.answers, mem.traders
        players = game.players
        targets: list[tuple[int, int]] = []
        for r in range(len(players)):
            if r == seat or players[r].out or allies(game, r, seat):
                continue
            for missing, holder in d.near[r]:
                if holder == seat or players[holder].out or allies(game, holder, seat):
                    continue
                counts = answers.get(holder)
                # Not a seat that has turned us down and was seen trading with nobody: it would only refuse again.
                if holder in traders or counts is None or counts[0] == 0:
                    targets.append((missing, holder))
        return targets

    def block_offer(self, game: Game, info: BoardInfo, seat: int, res: int, targets: list[tuple[int, int]],
                    d: Derived) -> Action | None:
        """Cash above face value (:data:`BLOCK_PERCENT`) for a street that would complete a rival's group, once
        per street and holder while it stays so, within the cash above the reserve."""
        cash = game.players[seat].cash
        for j, o in targets:
            if (o, (), (j,)) in memory(game, seat).proposals or not listens(game, seat, o):
                continue
            price = -(-d.trade_value(game, j) * BLOCK_PERCENT // 10000) * 100
            if cash - price < res + 1000 or not may_offer(game, o, j, info.group_members[j]):
                continue
            if not self._remember(game, seat, o, (), (j,), price):
                continue
            return {"type": "propose_trade", "to": o, "give": {"cash": price, "squares": []},
                    "take": {"cash": 0, "squares": [j]}}
        return None

    def collect_targets(self, game: Game, info: BoardInfo, seat: int) -> list[tuple[int, int]]:
        """(square, owner) of the rivals' dealerships and utilities while this seat holds one of the kind.

        Their rent multiplies with each one held (docs/rules.md §3: 250 → 2000, ×40 → ×100) and no building is
        needed, so on a board where no colour group completes — the common case when nobody gives up a
        street — they are the rent that decides the game. A rival's lone one is worth more to us than to
        them, so buying it at its trade value is a deal a face-value trader takes.
        """
        owner = game.owner
        targets: list[tuple[int, int]] = []
        for squares in (info.dealerships, info.utilities):
            if not count_held(owner, squares, seat):
                continue
            for j in squares:
                o = owner[j]
                if o is None or o == seat or allies(game, o, seat) or game.players[o].out:
                    continue
                if count_held(owner, squares, o) > 1:
                    continue  # a rival collecting too will not sell; offering would only be noise
                targets.append((j, o))
        return targets

    def collection_offer(self, game: Game, info: BoardInfo, seat: int, res: int,
                         targets: list[tuple[int, int]], d: Derived) -> Action | None:
        """Cash at the trade value (a little more on each retry, ten rounds apart) for a rival's lone one."""
        cash = game.players[seat].cash
        if cash - 100 < res + 1000:
            return None  # every ask is at least 100 (trade values are positive): none would leave the reserve
        proposals = memory(game, seat).proposals
        for j, o in targets:
            # The cheap tests first (all but the last are free of side effects, so their order is free).
            before = proposals.get((o, (), (j,)))
            if before is not None and (info.kind[j] == "street" or game.round - before[0] < ASK_AGAIN_ROUNDS):
                continue
            if not listens(game, seat, o):
                continue  # a street is asked for once, at face value; the rest again ten rounds on (``_remember``)
            value = d.trade_value(game, j)
            price = -(-value // 100) * 100 if before is None else before[1] + max(100, value // 10 // 100 * 100)
            if price > 2 * value or cash - price < res + 1000:
                continue
            if not may_offer(game, o, j, info.group_members[j]):
                continue
            if not self._remember(game, seat, o, (), (j,), price):
                continue
            return {"type": "propose_trade", "to": o, "give": {"cash": price, "squares": []},
                    "take": {"cash": 0, "squares": [j]}}
        return None

    def _swap_square(self, game: Game, info: BoardInfo, seat: int, partner: int, d: Derived) -> int | None:
        owner = game.owner
        for members in d.short_one[partner]:
            for j in members:
                if (who := owner[j]) is not None and who == seat and may_offer(game, seat, j, info.group_members[j]):
                    return j
        return None

    def _cash_for(self, game: Game, info: BoardInfo, seat: int, partner: int, give_squares: tuple[int, ...],
                  take: Offer, value: int, cash: int, res: int) -> Offer | None:
        """The least cash (in steps of 100) the partner's judgement should accept, within fairness.

        Cash moves both gains linearly (the proposer's down, the partner's up), so the answer is solved
        for rather than searched.
        """
        # Everything but the cash check depends on the ownership state alone: kept in its memo.
        d = derived(game, info)
        key = ("cash_for", seat, partner, give_squares, take.squares, value)
        known = d.recall(key)
        if known is not UNKNOWN:
            c = cast("int | None", known)
        else:
            # The cash asked is never below half the value still owed in squares: when even that much
            # is more than this seat can spare, the trade judgement (the dear part) need not be made.
            give_value = game.trade_value(Offer(0, give_squares))
            if int(-(-(value / 2 - give_value) // 100) * 100) > cash - res // 2:
                return None
            c = self._cash_needed(game, info, seat, partner, give_squares, give_value, take, value)
            d.note(key, c)
        if c is None or c > cash - res // 2:
            return None
        return Offer(c, give_squares)

    def _cash_needed(self, game: Game, info: BoardInfo, seat: int, partner: int, give_squares: tuple[int, ...],
                     give_value: int, take: Offer, value: int) -> int | None:
        """:meth:`_cash_for`'s cash before the proposer's own cash is checked, or None if no cash works
        (``give_value``: the trade value of ``give_squares``, already worked out by the caller)."""
        d_prop, d_rec = self.trade_deltas(game, info, seat, partner, Offer(0, give_squares), take)
        need = max(-d_rec, (ENVY * d_prop - d_rec) / (1 + ENVY), value / 2 - give_value, 0.0)
        c = int(-(-need // 100) * 100)
        if c == 0 and not give_squares:
            c = 100
        if give_value + c > 2 * value:
            return None
        if min(give_value + c, value) * 100 < max(give_value + c, value) * game.rules.trade_fairness_percent:
            return None
        if d_prop - c <= 0 or d_prop - c < ENVY * (d_rec + c):
            return None
        return c

    def team_gift(self, game: Game, info: BoardInfo, seat: int, res: int) -> Action | None:
        """Allies share: hand over a street that completes their group, or cash when they run short."""
        owner = game.owner
        me = game.players[seat]
        short_one = derived(game, info).short_one
        for q in game.players:
            if q.out or q.seat == seat or not allies(game, q.seat, seat):
                continue
            for members in short_one[q.seat]:
                for j in members:
                    if owner[j] == seat and may_offer(game, seat, j, info.group_members[j]) and self._remember(
                        game, seat, q.seat, (j,), (), 0
                    ):
                        return {"type": "propose_trade", "to": q.seat, "give": {"cash": 0, "squares": [j]},
                                "take": {"cash": 0, "squares": []}}
            need = reserve(game, info, q.seat) - q.cash
            spare = me.cash - 2 * res
            if need > 0 and spare > 500:
                gift = min(need, spare) // 100 * 100
                if gift > 0:
                    return {"type": "propose_trade", "to": q.seat, "give": {"cash": gift, "squares": []},
                            "take": {"cash": 0, "squares": []}}
        return None

    def ask_ally(self, game: Game, info: BoardInfo, seat: int, short: int) -> Action | None:
        """In a pay step, ask a teammate with spare cash before mortgaging or going bankrupt."""
        mem = memory(game, seat)
        if mem.last_proposal_turn == game.turn_no:
            return None
        if sum(1 for t in game.trades.values() if t.proposer == seat) >= game.rules.max_open_trades:
            return None
        for q in game.players:
            if q.out or q.seat == seat or not allies(game, q.seat, seat):
                continue
            ask = (short + 99) // 100 * 100
            if q.cash - ask >= min(1000, reserve(game, info, q.seat) // 2):
                mem.last_proposal_turn = game.turn_no
                return {"type": "propose_trade", "to": q.seat, "give": {"cash": 0, "squares": []},
                        "take": {"cash": ask, "squares": []}}
        return None
