"""The hard bot: the normal heuristics (tuned), checked by Monte Carlo look-ahead on the decisions that matter.

For buying, auctions, trade answers, bail-or-roll in jail and re-priced trade offers it plays each option
forward on copies of the game (``game.copy(reseed=...)``, so it never sees the real dice) with the normal
policy in every seat but those of rivals seen playing otherwise, which play as they were seen to
(:class:`_ObservedPolicy`), and scores where it stands a couple of rounds later
(:func:`~opolyx.bots.heuristics.standing` of every seat: cash, holdings with group completion, every
building level). Every option is played with the same re-seeded dice (common random numbers), so the
rollouts give *paired* differences, and the heuristic's own choice is overturned only when another option
beats it by :data:`PRIOR` plus ``confidence`` standard errors of those differences: noise alone rarely
overturns a sound heuristic.

Buying, auctions, trade answers and the jail rarely swing a game between sound players, so searching them
buys little. The decision that does swing games is a trade: once a rival turns down the face-value ask for
the street that completes a group, the heuristic waits ten rounds before paying the partner's price, while
the search weighs that price on the very next turn. Building is not searched: a look-ahead veto on building
loses more games than it saves. ``benchmarks/search_gain.py`` measures each choice on paired games, and
docs/bots.md has the figures.

The budget is a time budget (default 30 ms, never over 50 ms) when playing people; in deterministic
mode (simulations, tests) it is the same amount of work counted in engine steps, so results depend
only on seeds and not on machine load.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Final

from opolyx.bots.base import Action, memory, next_seat
from opolyx.bots.heuristics import (
    BoardInfo,
    board_info,
    derived,
    distrust_log,
    holding_value,
    marginal_value,
    reserve,
    standing,
    trust_log,
)
from opolyx.bots.normal import SILENT_AFTER, NormalBot, listens, note_answers, note_offer
from opolyx.engine.state import Offer
from opolyx.engine.teams import allies
from opolyx.engine.trades import may_offer

if TYPE_CHECKING:
    from opolyx.engine.game import Game
    from opolyx.engine.state import Trade

#: Engine steps (action + policy decision) per millisecond on a typical core; calibrates the
#: deterministic budget so it costs about what the time budget does (benchmarks/simulate.py measures it).
STEPS_PER_MS = 70.0
DEFAULT_BUDGET_MS = 30.0
HARD_LIMIT_MS: Final = 50.0
#: Money head start for the normal heuristic's own choice.
PRIOR = 300.0
#: Rounds before the look-ahead weighs a priced offer for the same street again.
REPRICE_ROUNDS: Final = 3
#: A rollout stops after this many engine steps even short of its horizon (long auctions, pay steps).
MAX_ROLLOUT_STEPS: Final = 300
#: What a rollout's copy reports (``Game.reported``): no event, so the engine builds none.
_NO_EVENTS: Final[frozenset[str]] = frozenset()


class _RolloutPolicy(NormalBot):
    """The normal bot without trade proposals: rollouts need speed, and deals would only add noise.

    It answers an offer as most players do, by the holdings' values alone (no rent outlook): the partner of
    a priced offer in a rollout is a rival, not another copy of our own judgement. Seats that have turned
    down every offer are not offered anything to roll out (``normal.listens``)."""

    trades = False
    rent_outlook = False


class _ObservedPolicy(_RolloutPolicy):
    """A rival as the rollouts play it once it has been seen playing otherwise than the normal bot.

    ``eager``: seen buying every company it came by and turning none down with the price in hand — it buys
    whatever it can pay for, bids up to list price and builds at once, with no reserve (the buy-everything
    bots many simulators ship). ``refuses``: it turned down our offers, accepted none and was seen trading
    with nobody — it turns every offer down. ``stays``: seen rolling for doubles in jail with the bail in
    hand — it stays in jail. Played as the normal bot, such a seat would leave companies to auction that it
    really buys, keep cash back that it really spends on levels, and sell what it never sells."""

    def __init__(self, seed: int, *, eager: bool, refuses: bool, stays: bool) -> None:
        super().__init__(seed)
        self.eager = eager
        self.refuses = refuses
        self.stays = stays
        if eager:
            self.build_reserve_share = 0.0  # builds with every coin it has

    def jail_choice(self, game: Game, info: BoardInfo, seat: int, res: int) -> Action:
        if self.stays:
            return {"type": "jail_roll"}
        return super().jail_choice(game, info, seat, res)

    def on_buy(self, game: Game, info: BoardInfo, seat: int) -> Action:
        sq = game.offer_square
        if self.eager and sq is not None and game.players[seat].cash >= info.price[sq]:
            return {"type": "buy"}
        return super().on_buy(game, info, seat)

    def auction_limit(self, game: Game, info: BoardInfo, seat: int, sq: int, auction_id: int) -> int:
        if self.eager:
            return min(info.price[sq], game.players[seat].cash)
        return super().auction_limit(game, info, seat, sq, auction_id)

    def answer_trade(self, game: Game, info: BoardInfo, seat: int, trade: Trade) -> Action:
        if self.refuses:
            return {"type": "decline_trade", "trade": trade.id}
        return super().answer_trade(game, info, seat, trade)


#: Companies a rival must be seen acquiring, none turned down with the price in hand, before the rollouts
#: play it as buying everything: early on every sound player buys nearly everything too.
EAGER_AFTER: Final = 3


def note_rivals(game: Game, seat: int) -> None:
    """Notice, for the rollouts (:class:`_ObservedPolicy`), what the rivals do with companies and in jail.

    Looked at whenever ``seat`` decides, from the public position only: a company that went from the bank to
    a rival was acquired by it; an auction shows whose turn down started it (the last bidder, docs/rules.md
    §5), which counts when that seat had the price in hand; a seat in jail after a failed roll with the bail
    in hand stays."""
    mem = memory(game, seat)
    players = game.players
    bail = game.rules.jail_bail
    for q in players:
        if q.in_jail and q.jail_tries and q.cash >= bail and q.seat != seat and not q.out:
            mem.stayers.add(q.seat)
    a = game.auction
    if a is not None and a.id != mem.auction_noted:
        mem.auction_noted = a.id
        decliner = a.order[-1]
        if decliner != seat and players[decliner].cash >= game.board.squares[a.square].price:
            mem.passed_up[decliner] = mem.passed_up.get(decliner, 0) + 1
    owner = game.owner
    seen = mem.owners_bought
    if seen == owner:
        return
    if seen:
        acquired = mem.acquired
        for i in range(len(owner)):
            b = owner[i]
            if seen[i] is None and b is not None and b != seat:
                acquired[b] = acquired.get(b, 0) + 1
    mem.owners_bought = owner[:]


class HardBot(NormalBot):
    strength = "hard"
    #: Tuned by simulation against the field of outside strategies (docs/bots.md): building deep into the
    #: reserve and bidding a little over value beat caution; the look-ahead vetoes the cases where that
    #: overreaches.
    build_reserve_share = 0.1
    auction_value_factor = 1.2
    #: A lone company earns little, while a third level on a whole group multiplies its rent: worth the
    #: mortgage (docs/bots.md has the games against the field that show it).
    mortgage_to_build = True
    #: Rollouts play this many rounds ahead.
    horizon_rounds = 2
    #: Scoring a rollout: each rent the player's companies can charge (a stream of income still to
    #: come) counts this many times on top of cash and holdings.
    rent_weight = 0.0
    #: Money head start for the normal heuristic's own choice.
    prior = PRIOR
    #: Standard errors of the paired rollout difference needed to overturn the heuristic (0: plain means).
    confidence = 1.5
    #: Engine steps the last search spent (for calibrating :data:`STEPS_PER_MS`).
    last_spent = 0
    #: Score rollouts by :func:`standing` (every level and mortgage counted) rather than holding value.
    full_standing = True
    #: The decisions searched by rollouts (the others follow the heuristics).
    search: frozenset[str] = frozenset({"buy", "auction", "trade", "jail", "propose"})
    #: Scoring against the rivals: this share of the richest rival, the rest of their mean.
    leader_weight = 0.5

    def __init__(self, seed: int, *, deterministic: bool = False, budget_ms: float | None = None,
                 lookahead: bool = True) -> None:
        super().__init__(seed)
        #: False plays the same parameters without rollouts (the control in strength measurements).
        self.lookahead = lookahead
        self.deterministic = deterministic
        self.budget_ms = min(DEFAULT_BUDGET_MS if budget_ms is None else budget_ms, HARD_LIMIT_MS - 5)
        self.step_budget = int(self.budget_ms * STEPS_PER_MS)
        self.policy = _RolloutPolicy(self.rng.randrange(2**31))
        self.seed = seed
        #: The rivals' observed policies by (eager, refuses, stays), made when first needed.
        self.observed: dict[tuple[bool, bool, bool], _ObservedPolicy] = {}

    def choose(self, game: Game, seat: int) -> Action:
        """Notice what the rivals do that the rollouts should copy (:func:`note_rivals`), then decide."""
        if game.result is None:
            note_rivals(game, seat)
        return super().choose(game, seat)

    # ------------------------------------------------------------------ the search

    def evaluate(self, game: Game, info: BoardInfo, seat: int) -> float:
        """Own standing minus the rivals': cash plus holdings valued with group completion."""
        mine = 0.0
        rivals: list[float] = []
        team_mode = game.rules.teams
        rent_weight = self.rent_weight
        total_by = derived(game, info).total_by if rent_weight else None
        for p in game.players:
            if p.out:
                v = 0.0
            elif self.full_standing:
                v = standing(game, info, p.seat)
            else:
                v = p.cash + holding_value(game, info, p.seat)
            if total_by is not None and not p.out:
                v += rent_weight * total_by[p.seat]
            if p.seat == seat or (team_mode and allies(game, p.seat, seat)):
                mine += v
            else:
                rivals.append(v)
        if not rivals:
            return mine
        lw = self.leader_weight
        return mine - lw * max(rivals) - (1 - lw) * sum(rivals) / len(rivals)

    def compare(self, game: Game, seat: int, options: list[Action], preferred: int, kind: str) -> int:
        """Index of the option with the best mean rollout score (``preferred`` gets :data:`PRIOR`)."""
        if not self.lookahead or kind not in self.search:
            return preferred
        info = board_info(game.board)
        horizon = game.turn_no + self.horizon_rounds * sum(1 for p in game.players if not p.out)
        totals = [0.0] * len(options)
        samples: list[list[float]] = []
        start = time.perf_counter()
        spent = 0
        rounds = 0
        policies = self.rollout_policies(game, seat)
        timed = not self.deterministic
        deadline = start + (HARD_LIMIT_MS - 5) / 1000
        while True:
            rseed = self.rng.randrange(2**62)
            scores = []
            for action in options:
                g = game.copy(reseed=rseed)
                g.reported = _NO_EVENTS  # a rollout reads the position, never the events
                g.keeps_actions = False  # nor its log: a copy is never saved
                trust_log(g)  # only ``apply`` changes a rollout's holdings: the tables may follow its log
                try:
                    steps = self._play_out(g, seat, action, horizon, policies, timed, deadline)
                    late = timed and time.perf_counter() > deadline
                    score = 0.0 if late else self.evaluate(g, info, seat)
                finally:
                    distrust_log(g)
                spent += steps + 5
                if late:
                    break
                scores.append(score)
            if len(scores) < len(options):
                break  # an unfinished round of options would bias the comparison: drop it
            for k, v in enumerate(scores):
                totals[k] += v
            samples.append(scores)
            rounds += 1
            if self.deterministic:
                if spent >= self.step_budget:
                    break
            elif (time.perf_counter() - start) * 1000 * (rounds + 1) / rounds > self.budget_ms:
                break
        self.last_spent = spent
        if rounds == 0:
            return preferred
        if self.confidence:
            return self._confident_pick(samples, preferred)
        means = [t / rounds for t in totals]
        means[preferred] += self.prior
        return max(range(len(options)), key=lambda k: means[k])

    def rollout_policies(self, game: Game, seat: int) -> list[NormalBot]:
        """Who plays each seat in the rollouts: the normal policy, but for a rival seen playing otherwise
        (:func:`note_rivals`), which is played as it was seen to play (:class:`_ObservedPolicy`)."""
        policies: list[NormalBot] = []
        for s in range(len(game.players)):
            kind = (False, False, False) if s == seat else self.observed_kind(game, seat, s)
            if kind == (False, False, False):
                policies.append(self.policy)
                continue
            policy = self.observed.get(kind)
            if policy is None:
                # Seeded apart from ``self.rng`` (the policies draw only jackpot numbers): the look-ahead's own
                # dice stay those of a bot that has observed nothing.
                eager, refuses, stays = kind
                policy = self.observed[kind] = _ObservedPolicy(
                    self.seed ^ (0x5EA7 + 4 * eager + 2 * refuses + stays), eager=eager, refuses=refuses, stays=stays)
            policies.append(policy)
        return policies

    @staticmethod
    def observed_kind(game: Game, seat: int, rival: int) -> tuple[bool, bool, bool]:
        """(eager, refuses, stays) for ``rival`` from what ``seat`` has seen of it (:class:`_ObservedPolicy`)."""
        mem = memory(game, seat)
        eager = mem.acquired.get(rival, 0) >= EAGER_AFTER and not mem.passed_up.get(rival)
        counts = mem.answers.get(rival)
        refuses = (counts is not None and counts[1] == 0 and counts[0] >= SILENT_AFTER
                   and rival not in mem.traders)
        return eager, refuses, rival in mem.stayers

    @staticmethod
    def _play_out(g: Game, seat: int, action: Action, horizon: int, policies: list[NormalBot], timed: bool,
                  deadline: float) -> int:
        """Apply ``action`` to the rollout copy ``g`` and play on with ``policies`` (one per seat) until the
        ``horizon`` turn (or the step limit, or, ``timed``, the ``deadline``): the steps played after it."""
        g.apply(seat, action)
        steps = 0
        while g.result is None and g.turn_no < horizon and steps < MAX_ROLLOUT_STEPS:
            s = next_seat(g)
            g.apply(s, policies[s].choose(g, s))
            steps += 1
            if timed and steps & 15 == 0 and time.perf_counter() > deadline:
                break
        return steps

    def _confident_pick(self, samples: list[list[float]], preferred: int) -> int:
        """Overturn the heuristic only when an option beats it by ``prior`` plus ``confidence`` standard
        errors of the paired (same dice) differences: noise alone then rarely changes a sound choice."""
        n = len(samples)
        if n < 2:
            return preferred
        best, best_margin = preferred, 0.0
        for k in range(len(samples[0])):
            if k == preferred:
                continue
            diffs = [s[k] - s[preferred] for s in samples]
            mean = sum(diffs) / n
            var = sum((x - mean) ** 2 for x in diffs) / (n - 1)
            margin = mean - self.prior - self.confidence * (var / n) ** 0.5
            if margin > best_margin:
                best, best_margin = k, margin
        return best

    # ------------------------------------------------------------------ key decisions

    def on_turn(self, game: Game, info: BoardInfo, seat: int) -> Action:
        """The heuristic's move, or, once a rival has turned down the face-value ask for the street that
        completes one of our groups, the priced offer at once when the rollouts say it pays.

        The heuristic waits ten rounds before asking again; a group completed ten rounds earlier is
        worth a lot of rent, but paying the partner's price is not always worth it: the look-ahead
        decides, the recipient in each rollout answering with the normal judgement.
        """
        normal = super().on_turn(game, info, seat)
        if not self.lookahead or "propose" not in self.search or game.rules.teams:
            return normal
        if game.players[seat].in_jail:
            return normal  # the jail choice has just spent this decision's budget on its own search
        res = reserve(game, info, seat)
        offers = self._repriced_offers(game, info, seat, res)
        if not offers:
            return normal
        options: list[Action] = [normal, *offers]
        if normal["type"] == "propose_trade":
            options.append(self._without_proposal(game, info, seat, res))
        pick = self.compare(game, seat, options, 0, "propose")
        if pick != 0 and options[pick]["type"] == "propose_trade":
            chosen = options[pick]
            mem = memory(game, seat)
            mem.proposals[(chosen["to"], tuple(chosen["give"]["squares"]), tuple(chosen["take"]["squares"]))] = (
                game.round, chosen["give"]["cash"])
            mem.last_proposal_turn = game.turn_no
            note_offer(game, seat, chosen)
        return options[pick]

    def _repriced_offers(self, game: Game, info: BoardInfo, seat: int, res: int) -> list[Action]:
        """Priced offers (the least cash the partner's judgement should take) for streets whose
        face-value ask was turned down, each at most once per price."""
        if game.trades and any(t.proposer == seat for t in game.trades.values()):
            return []
        mem = memory(game, seat)
        if mem.last_proposal_turn == game.turn_no or not mem.proposals:
            return []
        note_answers(game, seat)
        d = derived(game, info)
        cash = game.players[seat].cash
        offers: list[Action] = []
        for missing, o in d.near[seat]:
            take = (missing,)
            before = mem.proposals.get((o, (), take))
            if before is None or game.players[o].out or game.round - mem.repriced.get(missing, -99) < REPRICE_ROUNDS:
                continue
            if not listens(game, seat, o):
                continue  # a seat that turns every offer down would turn this one down too
            if not may_offer(game, o, missing, info.group_members[missing]):
                continue
            offer = self._cash_for(game, info, seat, o, (), Offer(0, take), d.trade_value(game, missing), cash, res)
            if offer is None or offer.cash <= before[1]:
                continue
            mem.repriced[missing] = game.round
            offers.append({"type": "propose_trade", "to": o, "give": offer.to_public(),
                           "take": {"cash": 0, "squares": [missing]}})
        return offers

    def _without_proposal(self, game: Game, info: BoardInfo, seat: int, res: int) -> Action:
        """What the turn does when it proposes nothing (never in jail: see :meth:`on_turn`)."""
        action = self.manage(game, info, seat, res, derived(game, info))
        return {"type": "roll"} if action is None else action

    def jail_choice(self, game: Game, info: BoardInfo, seat: int, res: int) -> Action:
        normal = super().jail_choice(game, info, seat, res)
        if game.players[seat].cash < game.rules.jail_bail:
            return normal
        options: list[Action] = [{"type": "pay_bail"}, {"type": "jail_roll"}]
        return options[self.compare(game, seat, options, 0 if normal["type"] == "pay_bail" else 1, "jail")]

    def on_buy(self, game: Game, info: BoardInfo, seat: int) -> Action:
        normal = super().on_buy(game, info, seat)
        sq = game.offer_square
        assert sq is not None
        p = game.players[seat]
        price = info.price[sq]
        res = reserve(game, info, seat)
        if normal["type"] == "buy" and p.cash - price >= 2 * res:
            return normal  # plenty of cash: buying is clearly right, spend the budget elsewhere
        options: list[Action] = []
        if p.cash >= price:
            options.append({"type": "buy"})
        if game.rules.murabaha and p.vip:
            options.append({"type": "buy_murabaha"})
        options.append({"type": "decline"})
        if len(options) == 1:
            return options[0]
        return options[self.compare(game, seat, options, options.index(normal), "buy")]

    def auction_limit(self, game: Game, info: BoardInfo, seat: int, sq: int, auction_id: int) -> int:
        """Look ahead once per auction: bidding at all must beat letting it go, then bid up to value."""
        mem = memory(game, seat)
        limit = mem.auction_limit.get(auction_id)
        if limit is not None:
            return limit
        limit = super().auction_limit(game, info, seat, sq, auction_id)
        a = game.auction
        assert a is not None
        minimum = info.price[sq] if a.bid is None else a.bid + game.rules.auction_step
        if game.players[seat].cash >= minimum:
            options: list[Action] = [{"type": "bid", "amount": minimum}, {"type": "pass"}]
            pick = self.compare(game, seat, options, 0 if minimum <= limit else 1, "auction")
            if pick == 1:
                limit = minimum - 1
            else:
                value = marginal_value(game, info, seat, sq)
                limit = max(limit, min(int(value * 1.1), game.players[seat].cash - reserve(game, info, seat) // 3))
        mem.auction_limit[auction_id] = limit
        return limit

    def answer_trade(self, game: Game, info: BoardInfo, seat: int, trade: Trade) -> Action:
        """The heuristic's answer, which the look-ahead may only turn from yes to no.

        A rollout of a few rounds sees the cash a sale brings in at once and little of the rent the buyer
        collects afterwards, so a search free to say yes sold monopolies for 1.5× list (issue #41). The
        heuristic already weighs the rent to come (``outlook``); the search only catches the sales whose
        short-term cost it underrates."""
        normal = super().answer_trade(game, info, seat, trade)
        if allies(game, seat, trade.proposer) or normal["type"] != "accept_trade":
            return normal
        options: list[Action] = [{"type": "accept_trade", "trade": trade.id},
                                 {"type": "decline_trade", "trade": trade.id}]
        return options[self.compare(game, seat, options, 0 if normal["type"] == "accept_trade" else 1, "trade")]
