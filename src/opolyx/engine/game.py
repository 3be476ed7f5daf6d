"""The rules engine: one ``Game`` whose state changes only through ``apply``.

Pure and deterministic: no I/O, no clock, no global random state. All chance (dice, the deck, red
envelopes) comes from the game's own generator, so a game is exactly its seed plus its ordered actions,
timeouts included. Every action is validated completely before anything changes, so a refused action
leaves the game untouched.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from operator import itemgetter
from typing import Any, ClassVar

from opolyx.engine.errors import IllegalAction
from opolyx.engine.rent import rent_due
from opolyx.engine.state import Auction, Creditor, Debt, Murabaha, Offer, Player, Trade
from opolyx.engine.worth import company_value, liquidation_value, net_worth, redemption_cost
from opolyx.rules import CARD_BONUS_PERCENT, Board, Card, Rules, load_cards

Event = dict[str, Any]
Action = dict[str, Any]

#: Faces of Speed's third die (SPEC.md section 17), indexed by the rolled value 1–6.
THIRD_DIE_FACES: tuple[int | str, ...] = (1, 2, 3, "bus", "x", "x")

#: Phases in which the player on turn owes a decision under the turn clock.
TURN_CLOCK_PHASES = frozenset({"turn", "buy", "jackpot", "bus", "teleport"})

JACKPOT_CHOICES: tuple[tuple[int, ...], ...] = tuple(
    c for n in (1, 2, 3) for c in combinations(range(1, 7), n)
)


class Game:
    """A running game. Build one with :func:`opolyx.new_game`, never directly."""

    _HANDLERS: ClassVar[dict[str, Callable[[Game, int | None, Action], None]]] = {}

    def __init__(
        self,
        rules: Rules,
        board: Board,
        seats: int,
        seed: int,
        *,
        dice: Iterable[Sequence[int]] | None = None,
        deck: Sequence[str] | None = None,
        seat_info: Sequence[dict[str, Any]] | None = None,
        first_player: int | None = None,
    ) -> None:
        self.rules = rules
        self.board = board
        self.seats = seats
        self.seed = seed
        self.rng = random.Random(seed)
        self.fixed_dice: deque[tuple[int, ...]] = deque(tuple(d) for d in dice) if dice else deque()
        self.players: list[Player] = []
        infos = list(seat_info) if seat_info else []
        for seat in range(seats):
            info = infos[seat] if seat < len(infos) and infos[seat] else {}
            team = info.get("team")
            if team is None and rules.teams:
                team = seat % 2
            self.players.append(
                Player(
                    seat=seat,
                    name=str(info.get("name", f"Player {seat + 1}")),
                    cash=rules.starting_cash,
                    bot=bool(info.get("bot", False)),
                    team=team,
                    vip=bool(info.get("vip", False)),
                    cards=_best_cards(info.get("cards") or {}),
                )
            )
        first = self.rng.randrange(seats) if first_player is None else first_player
        self.order = [(first + i) % seats for i in range(seats)]
        self.cards: dict[str, Card] = {c.id: c for c in load_cards()}
        if deck is not None:
            self.deck = list(deck)
        else:
            self.deck = [c.id for c in load_cards()]
            self.rng.shuffle(self.deck)
        n = len(board.squares)
        self.owner: list[int | None] = [None] * n
        self.level = [0] * n
        self.mortgaged = [False] * n
        self.mortgage_left: dict[int, int] = {}
        self.murabaha: dict[int, Murabaha] = {}
        self.round = 1
        self.turn = first
        self.phase = "turn"
        self.phase_before_pay = "turn"
        self.turn_no = 0
        self.doubles = 0
        self.roll_again = False
        self.last_dice: tuple[int, ...] = ()
        self.last_total = 0
        self.built: set[int] = set()
        self.offer_square: int | None = None
        self.auction: Auction | None = None
        self.debts: list[Debt] = []
        self.pending_move: int | None = None
        self.bus_dice: tuple[int, int] | None = None
        self.trades: dict[int, Trade] = {}
        self.next_id = 1
        self.autoplay = False
        self.bank_paid = 0
        self.bank_received = 0
        self.rent_tax_total = 0
        self.eliminated: list[int] = []
        self.result: dict[str, Any] | None = None
        self.seq = 0
        self.actions: list[list[Any]] = []
        self.setup: dict[str, Any] = {}
        self._ev: list[Event] = []
        self._emit("game_started", mode=rules.mode, seats=seats, order=list(self.order), first=first)
        self._start_turn(first)
        self._advance()
        self.start_events = self._ev
        self._ev = []

    # ------------------------------------------------------------------ public API

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def apply(self, seat: int | None, action: Action) -> list[Event]:
        """Apply one action for ``seat`` (``None`` for system actions) and return the events it caused."""
        if not isinstance(action, dict):
            raise IllegalAction("bad_action", "an action is a JSON object with a 'type'")
        kind = action.get("type")
        handler = self._HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise IllegalAction("unknown_action", f"unknown action type {kind!r}")
        if self.result is not None:
            raise IllegalAction("game_over", "the game is over")
        if seat is None:
            if kind != "timeout":
                raise IllegalAction("seat_required", f"{kind!r} must be taken by a seat")
        else:
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.seats:
                raise IllegalAction("bad_seat", f"no seat {seat!r}")
            if kind == "timeout":
                raise IllegalAction("system_only", "only the server's clock can time out")
            if self.players[seat].out:
                raise IllegalAction("player_out", f"seat {seat} is out of the game")
        self._ev = []
        handler(self, seat, action)
        if seat is not None:
            self.players[seat].missed_turns = 0
        self._lapse_invalid_trades()
        self.seq += 1
        self.actions.append([seat, dict(action)])
        events, self._ev = self._ev, []
        return events

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now. ``propose_trade`` appears once, as a described template."""
        if self.result is not None or not 0 <= seat < self.seats or self.players[seat].out:
            return []
        acts: list[Action] = []
        p = self.players[seat]
        phase = self.phase
        if seat == self.actor():
            if phase == "turn":
                if p.in_jail:
                    if p.cash >= self.rules.jail_bail:
                        acts.append({"type": "pay_bail"})
                    acts.append({"type": "jail_roll"})
                else:
                    acts.append({"type": "roll"})
                acts.extend(self._management_actions(seat, pay_step=False))
            elif phase == "buy":
                assert self.offer_square is not None
                if p.cash >= self.board.squares[self.offer_square].price:
                    acts.append({"type": "buy"})
                if self._can_murabaha(seat):
                    acts.append({"type": "buy_murabaha"})
                acts.append({"type": "decline"})
            elif phase == "auction":
                assert self.auction is not None
                minimum = self._auction_minimum()
                if p.cash >= minimum:
                    acts.append({"type": "bid", "amount": minimum})
                acts.append({"type": "pass"})
            elif phase == "pay":
                debt = self.debts[0]
                if p.cash >= debt.amount:
                    acts.append({"type": "pay"})
                if liquidation_value(self, seat) < debt.amount:
                    acts.append({"type": "declare_bankruptcy"})
                acts.extend(self._management_actions(seat, pay_step=True))
            elif phase == "jackpot":
                if p.cash >= self.rules.jackpot_stake:
                    acts.extend({"type": "jackpot_bet", "numbers": list(c)} for c in JACKPOT_CHOICES)
                acts.append({"type": "jackpot_decline"})
            elif phase == "bus":
                acts.extend({"type": "choose_bus", "use": u} for u in ("sum", "first", "second"))
            elif phase == "teleport":
                acts.extend({"type": "teleport", "square": i} for i in range(len(self.board.squares)))
        for t in self.trades.values():
            if t.recipient == seat:
                acts.append({"type": "accept_trade", "trade": t.id})
                acts.append({"type": "decline_trade", "trade": t.id})
            elif t.proposer == seat:
                acts.append({"type": "cancel_trade", "trade": t.id})
        acts.append({"type": "resign"})
        return acts

    def actor(self) -> int | None:
        """The seat whose clocked decision the game is waiting for (trade answers aside)."""
        if self.result is not None:
            return None
        if self.phase == "pay":
            return self.debts[0].debtor
        if self.phase == "auction":
            assert self.auction is not None
            return self.auction.current
        return self.turn

    def pending(self) -> list[dict[str, Any]]:
        """Who must act, on what, and under which clock (SPEC.md section 12)."""
        if self.result is not None:
            return []
        out: list[dict[str, Any]] = []
        if self.phase == "pay":
            debt = self.debts[0]
            out.append({
                "seat": debt.debtor,
                "decision": "pay",
                "clock": {"kind": "pay", "id": f"pay:{debt.id}", "seconds": self.rules.pay_step_seconds},
            })
        elif self.phase == "auction":
            a = self.auction
            assert a is not None
            out.append({
                "seat": a.current,
                "decision": "bid",
                "clock": {"kind": "auction", "id": f"auction:{a.id}:{a.turn_id}",
                          "seconds": self.rules.auction_seconds},
            })
        else:
            decision = self.phase
            if decision == "turn":
                decision = "jail" if self.players[self.turn].in_jail else "roll"
            out.append({
                "seat": self.turn,
                "decision": decision,
                "clock": {"kind": "turn", "id": f"turn:{self.turn_no}", "seconds": self.rules.turn_seconds},
            })
        for t in self.trades.values():
            out.append({
                "seat": t.recipient,
                "decision": "trade",
                "trade": t.id,
                "clock": {"kind": "trade", "id": f"trade:{t.id}", "seconds": self.rules.trade_seconds},
            })
        return out

    def snapshot(self) -> dict[str, Any]:
        """The whole public state as JSON-ready data; never the seed, the generator or the deck order."""
        rules = self.rules
        squares = []
        for sq in self.board.squares:
            i = sq.index
            entry: dict[str, Any] = {
                "index": i,
                "id": sq.id,
                "kind": sq.kind,
                "owner": self.owner[i],
                "level": self.level[i],
                "mortgaged": self.mortgaged[i],
            }
            if i in self.mortgage_left:
                entry["mortgage_rounds_left"] = self.mortgage_left[i]
            m = self.murabaha.get(i)
            if m is not None:
                entry["murabaha"] = {"seat": m.seat, "amount": m.amount, "due_round": m.due_round}
            squares.append(entry)
        players = [
            {
                "seat": p.seat,
                "name": p.name,
                "cash": p.cash,
                "position": p.position,
                "in_jail": p.in_jail,
                "jail_tries": p.jail_tries,
                "out": p.out,
                "out_reason": p.out_reason,
                "team": p.team,
                "bot": p.bot,
                "vip": p.vip,
                "god": p.god,
                "god_until_round": p.god_until if p.god else None,
                "missed_turns": p.missed_turns,
                "cards": {str(k): v for k, v in p.cards.items()},
                "net_worth": net_worth(self, p.seat),
            }
            for p in self.players
        ]
        auction = None
        if self.auction is not None:
            a = self.auction
            auction = a.to_public(self.board.squares[a.square].price, rules.auction_step)
        return {
            "mode": rules.mode,
            "board": self.board.name,
            "seats": self.seats,
            "order": list(self.order),
            "round": self.round,
            "turn": self.turn,
            "phase": "over" if self.result is not None else self.phase,
            "pending": self.pending(),
            "players": players,
            "squares": squares,
            "trades": [t.to_public(rules.trade_seconds) for t in self.trades.values()],
            "auction": auction,
            "offer": self.offer_square if self.phase == "buy" else None,
            "debt": self.debts[0].to_public() if self.phase == "pay" and self.debts else None,
            "debts": [d.to_public() for d in self.debts],
            "dice": list(self.last_dice),
            "doubles": self.doubles,
            "roll_again": self.roll_again,
            "built_this_turn": sorted(self.built),
            "bank": {"paid": self.bank_paid, "received": self.bank_received, "rent_tax": self.rent_tax_total},
            "rules": _public_rules(rules),
            "rent_tax_percent": rules.rent_tax_percent_x100(self.round) / 100,
            "seq": self.seq,
            "over": self.result is not None,
            "result": self.result,
        }

    def to_save(self) -> dict[str, Any]:
        """The private save format: setup plus every action. Holds the seed: never send it to clients."""
        return {"format": 1, **self.setup, "actions": [list(a) for a in self.actions]}

    @classmethod
    def from_save(cls, data: dict[str, Any]) -> Game:
        from opolyx.engine.setup import replay

        setup = {k: v for k, v in data.items() if k not in ("format", "actions", "mode", "seats", "seed")}
        return replay(data["seed"], data["mode"], data["seats"], data["actions"], **setup)

    def copy(self, reseed: int | None = None) -> Game:
        """A fast independent copy for look-ahead. With ``reseed`` the future (dice, deck) is re-drawn,
        so a bot searching the copy cannot peek at the real game's coming dice or cards."""
        g = object.__new__(Game)
        d = g.__dict__
        d.update(self.__dict__)
        g.players = [p.copy() for p in self.players]
        g.owner = list(self.owner)
        g.level = list(self.level)
        g.mortgaged = list(self.mortgaged)
        g.mortgage_left = dict(self.mortgage_left)
        g.murabaha = {i: Murabaha(m.square, m.seat, m.amount, m.due_round) for i, m in self.murabaha.items()}
        g.order = list(self.order)
        g.built = set(self.built)
        g.auction = self.auction.copy() if self.auction is not None else None
        g.debts = [Debt(x.debtor, [Creditor(c.seat, c.amount, c.tax) for c in x.creditors], x.reason,
                        x.square, x.id) for x in self.debts]
        g.trades = dict(self.trades)
        g.eliminated = list(self.eliminated)
        g.actions = []
        g._ev = []
        g.rng = random.Random()
        if reseed is None:
            g.rng.setstate(self.rng.getstate())
            g.fixed_dice = deque(self.fixed_dice)
            g.deck = list(self.deck)
        else:
            g.rng.seed(reseed)
            g.fixed_dice = deque()
            g.deck = list(self.deck)
            g.rng.shuffle(g.deck)
        return g

    # ------------------------------------------------------------------ events and money

    def _emit(self, kind: str, **data: Any) -> None:
        data["type"] = kind
        self._ev.append(data)

    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def _bank_pays(self, seat: int, amount: int, reason: str, **extra: Any) -> None:
        if amount <= 0:
            return
        self.players[seat].cash += amount
        self.bank_paid += amount
        self._emit("cash_received", seat=seat, amount=amount, reason=reason, **extra)

    def _pay_bank(self, seat: int, amount: int) -> None:
        self.players[seat].cash -= amount
        self.bank_received += amount

    # ------------------------------------------------------------------ dice

    def _dice(self, count: int) -> tuple[int, ...]:
        if self.fixed_dice:
            fixed = self.fixed_dice.popleft()
            values = list(fixed[:count])
            while len(values) < count:
                values.append(self.rng.randint(1, 6))
            return tuple(values)
        rnd = self.rng.random
        return tuple(int(rnd() * 6) + 1 for _ in range(count))

    # ------------------------------------------------------------------ turn flow

    def _start_turn(self, seat: int) -> None:
        self.turn = seat
        self.turn_no += 1
        self.doubles = 0
        self.roll_again = False
        self.pending_move = None
        self.bus_dice = None
        self.built.clear()
        self.phase = "turn"
        p = self.players[seat]
        self._emit("turn_started", seat=seat, round=self.round)
        if p.god is not None and self.round >= p.god_until:
            self._emit("god_left", seat=seat, god=p.god)
            p.god = None
        if self.mortgage_left:
            for i in sorted(self.mortgage_left):
                if self.owner[i] != seat:
                    continue
                left = self.mortgage_left[i] - 1
                if left > 0:
                    self.mortgage_left[i] = left
                    self._emit("mortgage_ticked", seat=seat, square=i, rounds_left=left)
                else:
                    del self.mortgage_left[i]
                    self.owner[i] = None
                    self.mortgaged[i] = False
                    self._emit("mortgage_expired", seat=seat, square=i)
        for m in sorted(self.murabaha.values(), key=lambda m: m.square):
            if m.seat == seat and self.round >= m.due_round and not any(
                d.reason == "murabaha" and d.square == m.square for d in self.debts
            ):
                self._add_debt(seat, [Creditor(None, m.amount)], "murabaha", m.square)

    def _end_turn(self) -> None:
        self.autoplay = False
        self.built.clear()
        self.roll_again = False
        self.pending_move = None
        order = self.order
        idx = order.index(self.turn)
        for step in range(1, len(order) + 1):
            j = (idx + step) % len(order)
            if not self.players[order[j]].out:
                break
        else:  # pragma: no cover - the game ends before everyone is out
            return
        if j <= idx:
            if self.round >= self.rules.round_limit:
                self._finish("round_limit")
                return
            self.round += 1
            self._emit("round_started", round=self.round)
        self._start_turn(order[j])

    def _advance(self) -> None:
        """Carry the game forward until it waits for someone's decision or ends."""
        while self.result is None:
            if self.debts:
                debt = self.debts[0]
                if self.players[debt.debtor].out:
                    self.debts.pop(0)
                    continue
                if self.phase != "pay":
                    self.phase_before_pay = self.phase
                    self.phase = "pay"
                    self._emit("pay_step_started", **debt.to_public())
                if self.autoplay and debt.debtor == self.turn:
                    self._auto_settle(debt)
                    continue
                return
            if self.phase == "pay":
                self.phase = self.phase_before_pay
            p = self.players[self.turn]
            phase = self.phase
            if phase == "auction":
                return
            if p.out:
                self._end_turn()
                continue
            if phase in TURN_CLOCK_PHASES:
                if self.autoplay:
                    self._auto_decide()
                    continue
                return
            # phase == "resolving": the roll is done, see what is owed next
            if self.pending_move is not None:
                steps, self.pending_move = self.pending_move, None
                self._move_by(self.turn, steps)
                self._resolve(self.turn)
                continue
            if self.roll_again and not p.in_jail:
                self.roll_again = False
                self.phase = "turn"
                self._emit("roll_again", seat=self.turn)
                continue
            self._end_turn()

    def _roll_and_move(self, seat: int) -> None:
        rules = self.rules
        third = rules.third_die_from_round is not None and self.round >= rules.third_die_from_round
        dice = self._dice(3 if third else 2)
        self.last_dice = dice
        d1, d2 = dice[0], dice[1]
        face: int | str | None = THIRD_DIE_FACES[dice[2] - 1] if third else None
        triple = face in (1, 2, 3) and d1 == d2 == face
        doubles = d1 == d2 and not triple
        self._emit("dice_rolled", seat=seat, dice=list(dice), doubles=doubles, triple=triple,
                   third=face if third else None)
        self.phase = "resolving"
        self.roll_again = False
        self._lucky_eight(seat, d1 + d2)
        if triple:
            assert isinstance(face, int)
            self.last_total = d1 + d2 + face
            self.roll_again = True
            self.phase = "teleport"
            self._emit("triples_rolled", seat=seat)
            return
        if doubles:
            self.doubles += 1
            if self.doubles >= rules.max_doubles:
                self._emit("third_doubles", seat=seat)
                self._send_to_jail(seat, "third_doubles")
                return
            self.roll_again = True
        total = d1 + d2 + (face if isinstance(face, int) else 0)
        self.last_total = total
        if face == "bus":
            self.bus_dice = (d1, d2)
            self.phase = "bus"
            return
        self._move_by(seat, total)
        if face == "x" and self._x_jump(seat):
            return
        self._resolve(seat)

    def _lucky_eight(self, seat: int, total: int) -> None:
        if self.rules.lucky_eight_bonus and total == 8:
            self._bank_pays(seat, self.rules.lucky_eight_bonus, "lucky_eight")

    def _x_jump(self, seat: int) -> bool:
        """Speed's X: jump ahead to the nearest unowned company, else the nearest opponent's."""
        p = self.players[seat]
        n = len(self.board.squares)
        companies = set(self.board.companies)
        target = None
        for want_unowned in (True, False):
            for step in range(1, n):
                i = (p.position + step) % n
                if i not in companies:
                    continue
                owner = self.owner[i]
                if want_unowned and owner is None:
                    target = i
                    break
                if not want_unowned and owner is not None and not self._allies(owner, seat):
                    target = i
                    break
            if target is not None:
                break
        if target is None:
            return False
        self._emit("x_jump", seat=seat, square=target)
        self._move_to(seat, target)
        self._resolve(seat)
        return True

    def _move_by(self, seat: int, steps: int) -> None:
        p = self.players[seat]
        n = len(self.board.squares)
        start = p.position
        dest = (start + steps) % n
        p.position = dest
        self._emit("moved", seat=seat, to=dest, steps=steps, **{"from": start})
        if steps > 0 and start + steps >= n:
            self._pay_salary(seat, landed=dest == 0)

    def _move_to(self, seat: int, target: int) -> None:
        n = len(self.board.squares)
        steps = (target - self.players[seat].position) % n
        if steps == 0:
            steps = n
        self._move_by(seat, steps)

    def _pay_salary(self, seat: int, *, landed: bool) -> None:
        amount = self.rules.salary + (self.rules.start_landing_bonus if landed else 0)
        self._bank_pays(seat, amount, "start_landing" if landed else "salary")

    def _send_to_jail(self, seat: int, reason: str) -> None:
        p = self.players[seat]
        p.position = 10
        p.in_jail = True
        p.jail_tries = 0
        self.roll_again = False
        self.pending_move = None
        self._emit("jailed", seat=seat, reason=reason)

    def _allies(self, a: int, b: int) -> bool:
        if not self.rules.teams or a == b:
            return a == b
        return self.players[a].team is not None and self.players[a].team == self.players[b].team

    def _resolve(self, seat: int) -> None:
        """Resolve the square the player stands on (SPEC.md section 4, step 4)."""
        p = self.players[seat]
        sq = self.board.squares[p.position]
        i = sq.index
        self.phase = "resolving"
        kind = sq.kind
        if sq.is_company:
            owner = self.owner[i]
            if owner is None:
                self.offer_square = i
                self.phase = "buy"
                self._emit("purchase_offered", seat=seat, square=i, price=sq.price)
            elif owner == seat:
                return
            elif self._allies(owner, seat):
                self._emit("rent_waived", seat=seat, owner=owner, square=i, reason="ally")
            elif self.mortgaged[i]:
                self._emit("rent_waived", seat=seat, owner=owner, square=i, reason="mortgaged")
            else:
                amount, tax = rent_due(self, i, seat)
                self._emit("rent_due", seat=seat, owner=owner, square=i, amount=amount, tax=tax)
                self._add_debt(seat, [Creditor(owner, amount, tax)], "rent", i)
        elif kind == "tax":
            self._add_debt(seat, [Creditor(None, sq.tax)], "tax", i)
        elif kind == "event":
            self._draw_card(seat)
        elif kind == "go_to_jail":
            self._send_to_jail(seat, "go_to_jail")
        elif kind == "corner_20":
            corner = self.rules.corner_20
            if corner == "jackpot":
                if p.cash >= self.rules.jackpot_stake:
                    self.phase = "jackpot"
                    self._emit("jackpot_offered", seat=seat, stake=self.rules.jackpot_stake)
                else:
                    self._emit("jackpot_unaffordable", seat=seat, stake=self.rules.jackpot_stake)
            elif corner == "temple_of_wealth":
                self._grant_god(seat, "wealth")
            else:
                self._emit("rested", seat=seat)

    def _grant_god(self, seat: int, god: str) -> None:
        p = self.players[seat]
        p.god = god
        p.god_until = self.round + self.rules.god_rounds
        self._emit("god_arrived", seat=seat, god=god, until_round=p.god_until)

    def _add_debt(self, debtor: int, creditors: list[Creditor], reason: str, square: int | None = None) -> None:
        creditors = [c for c in creditors if c.amount > 0]
        if not creditors:
            return
        self.debts.append(Debt(debtor, creditors, reason, square, self._new_id()))

    # ------------------------------------------------------------------ cards

    def _draw_card(self, seat: int) -> None:
        card_id = self.deck.pop(0)
        self.deck.append(card_id)
        card = self.cards[card_id]
        rules = self.rules
        name = rules.card_names.get(card_id, card_id)
        self._emit("card_drawn", seat=seat, card=name, effect=card_id)
        effect = card.effect
        others = [s for s in self._seat_order_from(seat) if s != seat and not self.players[s].out]
        if effect == "move_to":
            assert card.square is not None
            self._move_to(seat, card.square)
            self._resolve(seat)
        elif effect == "move_to_nearest":
            pos = self.players[seat].position
            n = len(self.board.squares)
            kinds = self.board.dealerships if card.kind == "dealership" else self.board.utilities
            target = min(kinds, key=lambda i: (i - pos) % n or n)
            self._move_to(seat, target)
            self._resolve(seat)
        elif effect == "move_by":
            self._move_by(seat, card.steps)
            self._resolve(seat)
        elif effect == "go_to_jail":
            self._send_to_jail(seat, "card")
        elif effect == "collect":
            if rules.gods and card_id == "performance_bonus":
                self._grant_god(seat, "wealth")
            else:
                self._bank_pays(seat, card.amount, "card", card=name)
        elif effect == "collect_from_each":
            for other in others:
                self._add_debt(other, [Creditor(seat, card.amount)], "card", None)
        elif effect == "pay_each":
            if rules.red_envelope and others:
                shares = self._red_envelope(card.amount * len(others), len(others))
                self._emit("red_envelope", seat=seat, shares=dict(zip([str(o) for o in others], shares,
                                                                          strict=True)))
                self._add_debt(seat, [Creditor(o, s) for o, s in zip(others, shares, strict=True)], "card")
            else:
                self._add_debt(seat, [Creditor(o, card.amount) for o in others], "card")
        elif effect == "pay":
            if rules.gods and card_id == "tax_audit":
                self._grant_god(seat, "misfortune")
            else:
                self._add_debt(seat, [Creditor(None, card.amount)], "card")
        elif effect == "pay_per_level":
            levels = sum(self.level[i] for i in self.board.companies if self.owner[i] == seat)
            self._add_debt(seat, [Creditor(None, card.amount * levels)], "card")

    def _red_envelope(self, total: int, parts: int) -> list[int]:
        """Split ``total`` at random into ``parts`` shares in steps of 10 (SPEC.md section 18)."""
        unit = 10
        units = total // unit
        cuts = sorted(self.rng.randint(0, units) for _ in range(parts - 1))
        bounds = [0, *cuts, units]
        shares = [(bounds[k + 1] - bounds[k]) * unit for k in range(parts)]
        shares[-1] += total - units * unit
        return shares

    def _seat_order_from(self, seat: int) -> list[int]:
        order = self.order
        idx = order.index(seat)
        return order[idx:] + order[:idx]

    # ------------------------------------------------------------------ checks shared by apply and legal_actions

    def _expect(self, seat: int | None, *phases: str) -> int:
        if self.phase not in phases:
            raise IllegalAction("wrong_phase", f"not possible in phase {self.phase!r}")
        actor = self.actor()
        if seat != actor:
            raise IllegalAction("not_your_turn", f"seat {actor} must act now, not seat {seat}")
        assert seat is not None
        return seat

    def _can_manage(self, seat: int, *, pay_step: bool) -> bool:
        """Build/redeem only before a roll; sell/mortgage/trade also in one's own pay step."""
        if self.phase == "turn":
            return seat == self.turn
        return pay_step and self.phase == "pay" and self.debts[0].debtor == seat

    def _square_arg(self, action: Action) -> int:
        i = action.get("square")
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self.board.squares):
            raise IllegalAction("bad_square", f"no square {i!r}")
        return i

    def _check_build(self, seat: int, i: int) -> None:
        sq = self.board.squares[i]
        if sq.kind != "street":
            raise IllegalAction("not_a_street", "only streets carry buildings")
        if self.owner[i] != seat:
            raise IllegalAction("not_owner", "you do not own this street")
        assert sq.group is not None
        group = self.board.groups[sq.group]
        if any(self.owner[j] != seat for j in group):
            raise IllegalAction("group_incomplete", "you must own the whole colour group")
        if any(self.mortgaged[j] for j in group):
            raise IllegalAction("group_mortgaged", "a street of this group is mortgaged")
        if self.level[i] >= self.rules.max_level:
            raise IllegalAction("max_level", "this street is fully built")
        if self.rules.even_building and self.level[i] > min(self.level[j] for j in group):
            raise IllegalAction("uneven", "build evenly: another street of the group is lower")
        if i in self.built:
            raise IllegalAction("built_this_turn", "a street rises at most one level per turn")
        if self.players[seat].cash < sq.level_cost:
            raise IllegalAction("insufficient_cash", "not enough cash to build")

    def _check_sell(self, seat: int, i: int) -> None:
        sq = self.board.squares[i]
        if self.owner[i] != seat:
            raise IllegalAction("not_owner", "you do not own this street")
        if sq.kind != "street" or self.level[i] == 0:
            raise IllegalAction("no_buildings", "there is nothing to sell here")
        assert sq.group is not None
        if self.rules.even_building and self.level[i] < max(self.level[j] for j in self.board.groups[sq.group]):
            raise IllegalAction("uneven", "sell evenly: another street of the group is higher")

    def _group_has_buildings(self, i: int) -> bool:
        group = self.board.squares[i].group
        if group is None:
            return False
        return any(self.level[j] for j in self.board.groups[group])

    def _check_mortgage(self, seat: int, i: int) -> None:
        if not self.board.squares[i].is_company:
            raise IllegalAction("not_a_company", "only companies can be mortgaged")
        if self.owner[i] != seat:
            raise IllegalAction("not_owner", "you do not own this company")
        if self.mortgaged[i]:
            raise IllegalAction("already_mortgaged", "this company is already mortgaged")
        if i in self.murabaha:
            raise IllegalAction("murabaha_open", "pay off the Murabaha first")
        if self._group_has_buildings(i):
            raise IllegalAction("has_buildings", "sell every building of the group first")

    def _check_redeem(self, seat: int, i: int) -> None:
        if self.owner[i] != seat:
            raise IllegalAction("not_owner", "you do not own this company")
        if not self.mortgaged[i]:
            raise IllegalAction("not_mortgaged", "this company is not mortgaged")
        if self.players[seat].cash < redemption_cost(self, i):
            raise IllegalAction("insufficient_cash", "not enough cash to redeem")

    def _can_murabaha(self, seat: int) -> bool:
        return self.rules.murabaha and self.players[seat].vip and self.phase == "buy"

    def _management_actions(self, seat: int, *, pay_step: bool) -> list[Action]:
        """Build/sell/mortgage/redeem options, computed in one pass over the board.

        This mirrors the ``_check_*`` validators exactly (the property tests apply every listed action),
        but avoids raising an exception per refused candidate: bots call it for every decision.
        """
        acts: list[Action] = []
        owner, level, mortgaged = self.owner, self.level, self.mortgaged
        rules = self.rules
        even, max_level = rules.even_building, rules.max_level
        cash = self.players[seat].cash
        murabaha = self.murabaha
        built = self.built
        groups: dict[int, tuple[bool, bool, int, int]] = {}
        for i, getter, size, level_cost, redeem in _company_table(self):
            if owner[i] != seat:
                continue
            lvl = level[i]
            if getter is not None:
                state = groups.get(id(getter))
                if state is None:
                    levels = getter(level)
                    state = (
                        getter(owner).count(seat) == size,
                        True in getter(mortgaged),
                        min(levels),
                        max(levels),
                    )
                    groups[id(getter)] = state
                complete, any_mortgaged, low, high = state
                if (
                    not pay_step
                    and complete
                    and not any_mortgaged
                    and lvl < max_level
                    and (not even or lvl <= low)
                    and i not in built
                    and cash >= level_cost
                ):
                    acts.append({"type": "build", "square": i})
                if lvl > 0 and (not even or lvl >= high):
                    acts.append({"type": "sell", "square": i})
                if not mortgaged[i] and high == 0 and i not in murabaha:
                    acts.append({"type": "mortgage", "square": i})
            elif not mortgaged[i] and i not in murabaha:
                acts.append({"type": "mortgage", "square": i})
            if not pay_step:
                if mortgaged[i] and cash >= redeem:
                    acts.append({"type": "redeem", "square": i})
                if murabaha:
                    m = murabaha.get(i)
                    if m is not None and cash >= m.amount:
                        acts.append({"type": "pay_murabaha", "square": i})
        template = self._trade_template(seat)
        if template is not None:
            acts.append(template)
        return acts

    # ------------------------------------------------------------------ trades

    def _tradeable_by_seat(self) -> dict[int, list[int]]:
        """Companies each seat may trade: no buildings in the whole colour group, no open Murabaha."""
        level, owner, murabaha = self.level, self.owner, self.murabaha
        out: dict[int, list[int]] = {p.seat: [] for p in self.players}
        for i, getter, _size, _cost, _redeem in _company_table(self):
            o = owner[i]
            if o is None or (getter is not None and max(getter(level)) > 0) or (murabaha and i in murabaha):
                continue
            out[o].append(i)
        return out

    def _trade_template(self, seat: int) -> Action | None:
        if sum(1 for t in self.trades.values() if t.proposer == seat) >= self.rules.max_open_trades:
            return None
        partners = [p.seat for p in self.players if not p.out and p.seat != seat]
        if not partners:
            return None
        tradeable = self._tradeable_by_seat()
        return {
            "type": "propose_trade",
            "template": True,
            "to": partners,
            "give": {"cash_max": self.players[seat].cash, "squares": tradeable[seat]},
            "take": {
                str(o): {"cash_max": self.players[o].cash, "squares": tradeable[o]} for o in partners
            },
            "fairness_percent": self.rules.trade_fairness_percent,
        }

    def trade_value(self, offer: Offer) -> int:
        """Cash at face value plus each company's value (SPEC.md section 8)."""
        return offer.cash + sum(company_value(self, i) for i in offer.squares)

    def is_fair(self, proposer: int, recipient: int, give: Offer, take: Offer) -> bool:
        if self._allies(proposer, recipient):
            return True
        a, b = self.trade_value(give), self.trade_value(take)
        small, large = min(a, b), max(a, b)
        return small * 100 >= large * self.rules.trade_fairness_percent

    def _parse_offer(self, raw: Any) -> Offer:
        if raw is None:
            return Offer()
        if not isinstance(raw, dict):
            raise IllegalAction("bad_trade", "each side of a trade is an object with cash and squares")
        cash = raw.get("cash", 0)
        squares = raw.get("squares", [])
        if not isinstance(cash, int) or isinstance(cash, bool) or cash < 0:
            raise IllegalAction("bad_trade", "cash must be a whole non-negative amount")
        if not isinstance(squares, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(self.board.squares) for i in squares
        ):
            raise IllegalAction("bad_trade", "squares must be a list of square numbers")
        if len(set(squares)) != len(squares):
            raise IllegalAction("bad_trade", "a square is listed twice")
        return Offer(cash, tuple(sorted(squares)))

    def _check_trade_items(self, proposer: int, recipient: int, give: Offer, take: Offer) -> None:
        for seat, offer in ((proposer, give), (recipient, take)):
            if self.players[seat].out:
                raise IllegalAction("trade_invalid", f"seat {seat} is out of the game")
            # The leading bid of a running auction is committed: trading it away would leave the
            # winner unable to pay (negative cash), so such an offer is short of cash and lapses.
            a = self.auction
            committed = a.bid if a is not None and a.leader == seat and a.bid is not None else 0
            if offer.cash > self.players[seat].cash - committed:
                raise IllegalAction("insufficient_cash", f"seat {seat} does not have that much cash")
            for i in offer.squares:
                if self.owner[i] != seat or not self.board.squares[i].is_company:
                    raise IllegalAction("not_owner", f"seat {seat} does not own square {i}")
                if i in self.murabaha:
                    raise IllegalAction("murabaha_open", "a company under Murabaha cannot be traded")
                if self._group_has_buildings(i):
                    raise IllegalAction("has_buildings", "only companies without buildings can be traded")

    # ------------------------------------------------------------------ paying and bankruptcy

    def _settle(self, debt: Debt, *, auto: bool = False) -> None:
        debtor = self.players[debt.debtor]
        paid = []
        for c in debt.creditors:
            debtor.cash -= c.amount
            if c.seat is None or self.players[c.seat].out:
                self.bank_received += c.amount
                received = 0
            else:
                received = c.amount - c.tax
                self.players[c.seat].cash += received
                self.bank_received += c.tax
                self.rent_tax_total += c.tax
            paid.append({"seat": c.seat, "amount": c.amount, "received": received})
        self.debts.remove(debt)
        self._emit("debt_paid", seat=debt.debtor, amount=debt.amount, reason=debt.reason, square=debt.square,
                   creditors=paid, auto=auto)
        if debt.reason == "bail":
            debtor.in_jail = False
            debtor.jail_tries = 0
            self._emit("released", seat=debt.debtor, reason="bail")
        elif debt.reason == "murabaha" and debt.square is not None:
            self.murabaha.pop(debt.square, None)

    def _raise_cash(self, seat: int, target: int) -> None:
        """The automatic raise at a pay-step timeout: sell buildings, then mortgage, cheapest first."""
        p = self.players[seat]
        squares = self.board.squares
        while p.cash < target:
            sellable = [i for i in self.board.companies if self.owner[i] == seat and self.level[i] > 0]
            options = []
            for i in sellable:
                try:
                    self._check_sell(seat, i)
                except IllegalAction:
                    continue
                options.append(i)
            if options:
                i = min(options, key=lambda j: (squares[j].level_cost, j))
                self._sell(seat, i, auto=True)
                continue
            mortgageable = []
            for i in self.board.companies:
                if self.owner[i] != seat:
                    continue
                try:
                    self._check_mortgage(seat, i)
                except IllegalAction:
                    continue
                mortgageable.append(i)
            if not mortgageable:
                return
            i = min(mortgageable, key=lambda j: (squares[j].mortgage_value, j))
            self._mortgage(seat, i, auto=True)

    def _auto_settle(self, debt: Debt) -> None:
        self._raise_cash(debt.debtor, debt.amount)
        if self.players[debt.debtor].cash >= debt.amount:
            self._settle(debt, auto=True)
        else:
            self._eliminate(debt.debtor, "bankrupt", debt)

    def _eliminate(self, seat: int, reason: str, debt: Debt | None = None) -> None:
        """Bankruptcy, forfeit or resignation (SPEC.md sections 11 and 12)."""
        p = self.players[seat]
        squares = self.board.squares
        owned = [i for i in self.board.companies if self.owner[i] == seat]
        heir = None
        if self.rules.teams:
            for s in self._seat_order_from(seat):
                if s != seat and not self.players[s].out and self._allies(s, seat):
                    heir = s
                    break
        if heir is None:
            proceeds = 0
            for i in owned:
                proceeds += self.level[i] * squares[i].level_cost * self.rules.sell_back_percent // 100
                if not self.mortgaged[i] and i not in self.murabaha:
                    proceeds += squares[i].mortgage_value
            self.bank_paid += proceeds
            p.cash += proceeds
        debts = [debt] if debt is not None else [d for d in self.debts if d.debtor == seat]
        owed: list[Creditor] = [c for d in debts for c in d.creditors]
        total_owed = sum(c.amount for c in owed)
        available = p.cash
        payouts = []
        if total_owed > 0:
            pot = min(available, total_owed)
            for c in owed:
                share = pot * c.amount // total_owed
                p.cash -= share
                if c.seat is None or self.players[c.seat].out:
                    self.bank_received += share
                    payouts.append({"seat": c.seat, "amount": share, "received": 0})
                else:
                    tax = share * c.tax // c.amount if c.amount else 0
                    self.players[c.seat].cash += share - tax
                    self.bank_received += tax
                    self.rent_tax_total += tax
                    payouts.append({"seat": c.seat, "amount": share, "received": share - tax})
        for d in debts:
            if d in self.debts:
                self.debts.remove(d)
        self.debts = [d for d in self.debts if d.debtor != seat]
        if heir is not None:
            for i in owned:
                self.owner[i] = heir
                m = self.murabaha.get(i)
                if m is not None:
                    m.seat = heir
            if owned:
                self._emit("companies_inherited", seat=heir, squares=owned, **{"from": seat})
        else:
            for i in owned:
                self.owner[i] = None
                self.level[i] = 0
                self.mortgaged[i] = False
                self.mortgage_left.pop(i, None)
                self.murabaha.pop(i, None)
        self.bank_received += p.cash
        leftover, p.cash = p.cash, 0
        p.out = True
        p.out_reason = reason
        p.in_jail = False
        self.eliminated.append(seat)
        self._emit("player_out", seat=seat, reason=reason, creditors=payouts, returned=leftover,
                   squares=owned, heir=heir)
        for tid in [t.id for t in self.trades.values() if seat in (t.proposer, t.recipient)]:
            del self.trades[tid]
            self._emit("trade_lapsed", trade=tid, reason="player_out")
        a = self.auction
        was_bidding = a is not None and self.phase == "auction" and a.current == seat
        if a is not None and seat in a.order:
            a.passed.add(seat)
            if a.leader == seat:
                # The leader's bid leaves with them: bidding restarts at the list price.
                a.leader = None
                a.bid = None
        if seat == self.turn:
            self.roll_again = False
            self.pending_move = None
            if self.phase in TURN_CLOCK_PHASES or self.phase == "resolving":
                self.phase = "resolving"
            elif self.phase == "pay":
                self.phase_before_pay = "resolving"
        alive = [q for q in self.players if not q.out]
        teams_alive = {q.team for q in alive}
        if len(alive) <= 1 or (self.rules.teams and len(teams_alive) <= 1):
            self._finish("last_team" if self.rules.teams else "last_player")
        elif a is not None and self.phase == "auction":
            self._auction_continue(advance=was_bidding)

    def _finish(self, reason: str) -> None:
        survivors = [s for s in self.order if not self.players[s].out]
        worth = {s: net_worth(self, s) for s in range(self.seats)}
        rank = {s: k for k, s in enumerate(self.order)}
        placements: list[dict[str, Any]] = []
        winner_team = None
        if self.rules.teams:
            teams: dict[int | None, list[int]] = {}
            for s in self.order:
                teams.setdefault(self.players[s].team, []).append(s)

            def team_key(team: int | None) -> tuple[int, int, int]:
                members = teams[team]
                alive = any(not self.players[m].out for m in members)
                last_out = max((self.eliminated.index(m) for m in members if self.players[m].out), default=-1)
                combined = sum(worth[m] for m in members if not self.players[m].out)
                first_seat = min(rank[m] for m in members)
                if alive:
                    return (0, -combined, first_seat)
                return (1, -last_out, first_seat)

            ordered = sorted(teams, key=team_key)
            winner_team = ordered[0]
            for place, team in enumerate(ordered, start=1):
                for m in teams[team]:
                    placements.append({"seat": m, "place": place, "team": team, "net_worth": worth[m],
                                       "out": self.players[m].out})
            winner = min((m for m in teams[winner_team] if not self.players[m].out),
                         key=lambda m: rank[m], default=teams[winner_team][0])
        else:
            ranked = sorted(survivors, key=lambda s: (-worth[s], rank[s])) + list(reversed(self.eliminated))
            for place, s in enumerate(ranked, start=1):
                placements.append({"seat": s, "place": place, "team": self.players[s].team,
                                   "net_worth": worth[s], "out": self.players[s].out})
            winner = ranked[0]
        self.result = {
            "reason": reason,
            "winner": winner,
            "winning_team": winner_team,
            "round": self.round,
            "placements": placements,
        }
        self.phase = "over"
        self.auction = None
        self.debts = []
        for tid in list(self.trades):
            del self.trades[tid]
        self._emit("game_over", **self.result)

    # ------------------------------------------------------------------ automatic play (missed turns)

    def _auto_decide(self) -> None:
        """The safe default for the on-turn player's pending decision (SPEC.md section 12)."""
        seat = self.turn
        p = self.players[seat]
        phase = self.phase
        if phase == "turn":
            if p.in_jail:
                self._jail_roll(seat)
            else:
                self._roll_and_move(seat)
        elif phase == "buy":
            self._decline(seat, auto=True)
        elif phase == "jackpot":
            self._emit("jackpot_declined", seat=seat, auto=True)
            self.phase = "resolving"
        elif phase == "bus":
            self._choose_bus(seat, "sum")
        elif phase == "teleport":
            # Without a choice the triple moves like an ordinary roll (salary included when passing Start).
            self._emit("teleport_skipped", seat=seat)
            self.phase = "resolving"
            self._move_by(seat, self.last_total)
            self._resolve(seat)

    def _lapse_invalid_trades(self) -> None:
        if not self.trades:
            return
        for t in list(self.trades.values()):
            try:
                self._check_trade_items(t.proposer, t.recipient, t.give, t.take)
            except IllegalAction:
                del self.trades[t.id]
                self._emit("trade_lapsed", trade=t.id, reason="invalid")
                continue
            if not self.is_fair(t.proposer, t.recipient, t.give, t.take):
                # e.g. an offered company was mortgaged since: the fairness rule holds until accepted
                del self.trades[t.id]
                self._emit("trade_lapsed", trade=t.id, reason="unfair")

    # ------------------------------------------------------------------ auctions

    def _auction_minimum(self) -> int:
        a = self.auction
        assert a is not None
        return a.minimum(self.board.squares[a.square].price, self.rules.auction_step)

    def _start_auction(self, decliner: int, square: int) -> None:
        order = [s for s in [*self._seat_order_from(decliner)[1:], decliner] if not self.players[s].out]
        self.auction = Auction(square=square, order=order, passed=set(), id=self._new_id())
        self.phase = "auction"
        self._emit("auction_started", square=square, order=list(order),
                   minimum=self.board.squares[square].price)
        self._auction_continue(advance=False)

    def _auction_continue(self, *, advance: bool = True) -> None:
        """Move the bidding on to the next bidder, auto-passing anyone short of the minimum."""
        a = self.auction
        assert a is not None
        if advance:
            a.index = (a.index + 1) % len(a.order)
        while True:
            active = [s for s in a.order if s not in a.passed]
            if a.leader is not None and active == [a.leader]:
                self._auction_won()
                return
            if not active:
                self._emit("auction_unsold", square=a.square)
                self.auction = None
                self.phase = "resolving"
                self._advance()
                return
            s = a.order[a.index]
            if s in a.passed or s == a.leader:
                a.index = (a.index + 1) % len(a.order)
                continue
            if self.players[s].cash < self._auction_minimum():
                a.passed.add(s)
                self._emit("auction_passed", seat=s, auto=True, reason="cash")
                a.index = (a.index + 1) % len(a.order)
                continue
            a.turn_id = self._new_id()
            return

    def _auction_won(self) -> None:
        a = self.auction
        assert a is not None and a.leader is not None and a.bid is not None
        self._pay_bank(a.leader, a.bid)
        self.owner[a.square] = a.leader
        self._emit("auction_won", seat=a.leader, square=a.square, amount=a.bid)
        self.auction = None
        self.phase = "resolving"
        self._advance()

    # ------------------------------------------------------------------ action handlers

    def _a_roll(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "turn")
        if self.players[seat].in_jail:
            raise IllegalAction("in_jail", "in jail: pay the bail or roll for doubles")
        self._roll_and_move(seat)
        self._advance()

    def _a_buy(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "buy")
        i = self.offer_square
        assert i is not None
        price = self.board.squares[i].price
        if self.players[seat].cash < price:
            raise IllegalAction("insufficient_cash", "not enough cash to buy")
        self._pay_bank(seat, price)
        self.owner[i] = seat
        self.offer_square = None
        self._emit("company_bought", seat=seat, square=i, price=price)
        self.phase = "resolving"
        self._advance()

    def _a_buy_murabaha(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "buy")
        if not self.rules.murabaha:
            raise IllegalAction("not_in_mode", "Murabaha exists only in Halal mode")
        if not self.players[seat].vip:
            raise IllegalAction("not_vip", "Murabaha is for VIP accounts")
        i = self.offer_square
        assert i is not None
        price = self.board.squares[i].price
        amount = price * (100 + self.rules.murabaha_markup_percent) // 100
        due = self.round + self.rules.murabaha_rounds
        self.owner[i] = seat
        self.murabaha[i] = Murabaha(i, seat, amount, due)
        self.offer_square = None
        self._emit("murabaha_bought", seat=seat, square=i, price=price, amount=amount, due_round=due)
        self.phase = "resolving"
        self._advance()

    def _decline(self, seat: int, *, auto: bool = False) -> None:
        i = self.offer_square
        assert i is not None
        self.offer_square = None
        self._emit("purchase_declined", seat=seat, square=i, auto=auto)
        self._start_auction(seat, i)

    def _a_decline(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "buy")
        self._decline(seat)

    def _a_bid(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "auction")
        a = self.auction
        assert a is not None
        minimum = self._auction_minimum()
        amount = action.get("amount", minimum)
        if amount != minimum:
            raise IllegalAction("bad_bid", f"the only bid allowed now is {minimum}")
        if self.players[seat].cash < minimum:
            raise IllegalAction("insufficient_cash", "not enough cash for the minimum bid")
        a.bid = minimum
        a.leader = seat
        self._emit("auction_bid", seat=seat, square=a.square, amount=minimum)
        self._auction_continue()

    def _a_pass(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "auction")
        a = self.auction
        assert a is not None
        a.passed.add(seat)
        self._emit("auction_passed", seat=seat, auto=False, reason="pass")
        self._auction_continue()

    def _a_build(self, seat: int | None, action: Action) -> None:
        assert seat is not None
        i = self._square_arg(action)
        if not self._can_manage(seat, pay_step=False):
            raise IllegalAction("wrong_phase", "build before your roll, on your turn")
        self._check_build(seat, i)
        cost = self.board.squares[i].level_cost
        self._pay_bank(seat, cost)
        self.level[i] += 1
        self.built.add(i)
        self._emit("built", seat=seat, square=i, level=self.level[i], cost=cost)

    def _sell(self, seat: int, i: int, *, auto: bool = False) -> None:
        refund = self.board.squares[i].level_cost * self.rules.sell_back_percent // 100
        self.level[i] -= 1
        self.players[seat].cash += refund
        self.bank_paid += refund
        self._emit("sold", seat=seat, square=i, level=self.level[i], refund=refund, auto=auto)

    def _a_sell(self, seat: int | None, action: Action) -> None:
        assert seat is not None
        i = self._square_arg(action)
        if not self._can_manage(seat, pay_step=True):
            raise IllegalAction("wrong_phase", "sell before your roll or while you owe a payment")
        self._check_sell(seat, i)
        self._sell(seat, i)

    def _mortgage(self, seat: int, i: int, *, auto: bool = False) -> None:
        value = self.board.squares[i].mortgage_value
        self.mortgaged[i] = True
        if self.rules.mortgage_expiry_rounds:
            self.mortgage_left[i] = self.rules.mortgage_expiry_rounds
        self.players[seat].cash += value
        self.bank_paid += value
        self._emit("mortgaged", seat=seat, square=i, value=value, auto=auto,
                   rounds_left=self.mortgage_left.get(i))

    def _a_mortgage(self, seat: int | None, action: Action) -> None:
        assert seat is not None
        i = self._square_arg(action)
        if not self._can_manage(seat, pay_step=True):
            raise IllegalAction("wrong_phase", "mortgage before your roll or while you owe a payment")
        self._check_mortgage(seat, i)
        self._mortgage(seat, i)

    def _a_redeem(self, seat: int | None, action: Action) -> None:
        assert seat is not None
        i = self._square_arg(action)
        if not self._can_manage(seat, pay_step=False):
            raise IllegalAction("wrong_phase", "redeem before your roll, on your turn")
        self._check_redeem(seat, i)
        cost = redemption_cost(self, i)
        self._pay_bank(seat, cost)
        self.mortgaged[i] = False
        self.mortgage_left.pop(i, None)
        self._emit("redeemed", seat=seat, square=i, cost=cost)

    def _a_pay_murabaha(self, seat: int | None, action: Action) -> None:
        assert seat is not None
        i = self._square_arg(action)
        if not self._can_manage(seat, pay_step=False):
            raise IllegalAction("wrong_phase", "pay a Murabaha off before your roll, on your turn")
        m = self.murabaha.get(i)
        if m is None or m.seat != seat:
            raise IllegalAction("no_murabaha", "you owe no Murabaha on this company")
        if self.players[seat].cash < m.amount:
            raise IllegalAction("insufficient_cash", "not enough cash to pay the Murabaha off")
        self._pay_bank(seat, m.amount)
        del self.murabaha[i]
        self._emit("murabaha_paid", seat=seat, square=i, amount=m.amount)

    def _a_propose_trade(self, seat: int | None, action: Action) -> None:
        assert seat is not None
        if not self._can_manage(seat, pay_step=True):
            raise IllegalAction("wrong_phase", "propose trades before your roll or while you owe a payment")
        if sum(1 for t in self.trades.values() if t.proposer == seat) >= self.rules.max_open_trades:
            raise IllegalAction("too_many_trades", "at most 3 open offers at a time")
        to = action.get("to")
        if not isinstance(to, int) or isinstance(to, bool) or not 0 <= to < self.seats or to == seat:
            raise IllegalAction("bad_trade", "'to' must be another seat")
        if self.players[to].out:
            raise IllegalAction("player_out", "that player is out of the game")
        give = self._parse_offer(action.get("give"))
        take = self._parse_offer(action.get("take"))
        if not (give.cash or give.squares or take.cash or take.squares):
            raise IllegalAction("bad_trade", "an empty trade")
        self._check_trade_items(seat, to, give, take)
        if not self.is_fair(seat, to, give, take):
            raise IllegalAction("unfair_trade", "the smaller side must be worth at least half the larger")
        t = Trade(self._new_id(), seat, to, give, take, self.seq)
        self.trades[t.id] = t
        self._emit("trade_proposed", **t.to_public(self.rules.trade_seconds))

    def _trade_arg(self, action: Action) -> Trade:
        tid = action.get("trade")
        t = self.trades.get(tid) if isinstance(tid, int) else None
        if t is None:
            raise IllegalAction("no_such_trade", f"no open trade {tid!r}")
        return t

    def _a_accept_trade(self, seat: int | None, action: Action) -> None:
        t = self._trade_arg(action)
        if seat != t.recipient:
            raise IllegalAction("not_recipient", "only the recipient can accept")
        self._check_trade_items(t.proposer, t.recipient, t.give, t.take)
        a, b = self.players[t.proposer], self.players[t.recipient]
        a.cash += t.take.cash - t.give.cash
        b.cash += t.give.cash - t.take.cash
        for i in t.give.squares:
            self.owner[i] = t.recipient
        for i in t.take.squares:
            self.owner[i] = t.proposer
        del self.trades[t.id]
        self._emit("trade_accepted", **t.to_public(self.rules.trade_seconds))

    def _a_decline_trade(self, seat: int | None, action: Action) -> None:
        t = self._trade_arg(action)
        if seat != t.recipient:
            raise IllegalAction("not_recipient", "only the recipient can decline")
        del self.trades[t.id]
        self._emit("trade_declined", trade=t.id, seat=seat)

    def _a_cancel_trade(self, seat: int | None, action: Action) -> None:
        t = self._trade_arg(action)
        if seat != t.proposer:
            raise IllegalAction("not_proposer", "only the proposer can cancel")
        del self.trades[t.id]
        self._emit("trade_cancelled", trade=t.id, seat=seat)

    def _a_pay(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "pay")
        debt = self.debts[0]
        if self.players[seat].cash < debt.amount:
            raise IllegalAction("insufficient_cash", "raise cash first: sell, mortgage or trade")
        self._settle(debt)
        self._advance()

    def _a_declare_bankruptcy(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "pay")
        debt = self.debts[0]
        if liquidation_value(self, seat) >= debt.amount:
            raise IllegalAction("can_raise_cash", "selling and mortgaging would cover the debt")
        self._eliminate(seat, "bankrupt", debt)
        self._advance()

    def _a_pay_bail(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "turn")
        p = self.players[seat]
        if not p.in_jail:
            raise IllegalAction("not_in_jail", "you are not in jail")
        if p.cash < self.rules.jail_bail:
            raise IllegalAction("insufficient_cash", "not enough cash for the bail")
        self._pay_bank(seat, self.rules.jail_bail)
        p.in_jail = False
        p.jail_tries = 0
        self._emit("bail_paid", seat=seat, amount=self.rules.jail_bail)

    def _jail_roll(self, seat: int) -> None:
        p = self.players[seat]
        dice = self._dice(2)
        self.last_dice = dice
        d1, d2 = dice
        self.last_total = d1 + d2
        self._emit("dice_rolled", seat=seat, dice=list(dice), doubles=d1 == d2, third=None, jail=True)
        self.phase = "resolving"
        self.roll_again = False
        self._lucky_eight(seat, d1 + d2)
        if d1 == d2:
            p.in_jail = False
            p.jail_tries = 0
            self._emit("released", seat=seat, reason="doubles")
            self._move_by(seat, d1 + d2)
            self._resolve(seat)
            return
        p.jail_tries += 1
        self._emit("jail_roll_failed", seat=seat, tries=p.jail_tries)
        if p.jail_tries >= self.rules.jail_tries:
            self._add_debt(seat, [Creditor(None, self.rules.jail_bail)], "bail")
            self.pending_move = d1 + d2

    def _a_jail_roll(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "turn")
        if not self.players[seat].in_jail:
            raise IllegalAction("not_in_jail", "you are not in jail")
        self._jail_roll(seat)
        self._advance()

    def _a_jackpot_bet(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "jackpot")
        numbers = action.get("numbers")
        if (
            not isinstance(numbers, list)
            or not 1 <= len(numbers) <= 3
            or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6 for x in numbers)
            or len(set(numbers)) != len(numbers)
        ):
            raise IllegalAction("bad_numbers", "choose one, two or three different numbers from 1 to 6")
        stake = self.rules.jackpot_stake
        if self.players[seat].cash < stake:
            raise IllegalAction("insufficient_cash", "not enough cash for the stake")
        self._pay_bank(seat, stake)
        die = self._dice(1)[0]
        won = die in numbers
        payout = stake * self.rules.jackpot_multipliers[len(numbers) - 1] if won else 0
        self._emit("jackpot_played", seat=seat, numbers=sorted(numbers), die=die, won=won, stake=stake,
                   payout=payout)
        if won:
            self._bank_pays(seat, payout, "jackpot")
        self.phase = "resolving"
        self._advance()

    def _a_jackpot_decline(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "jackpot")
        self._emit("jackpot_declined", seat=seat, auto=False)
        self.phase = "resolving"
        self._advance()

    def _choose_bus(self, seat: int, use: str) -> None:
        assert self.bus_dice is not None
        d1, d2 = self.bus_dice
        steps = {"sum": d1 + d2, "first": d1, "second": d2}[use]
        self.bus_dice = None
        self._emit("bus_chosen", seat=seat, use=use, steps=steps)
        self.phase = "resolving"
        self._move_by(seat, steps)
        self._resolve(seat)

    def _a_choose_bus(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "bus")
        use = action.get("use")
        if use not in ("sum", "first", "second"):
            raise IllegalAction("bad_choice", "use must be 'sum', 'first' or 'second'")
        self._choose_bus(seat, use)
        self._advance()

    def _teleport(self, seat: int, target: int) -> None:
        p = self.players[seat]
        start = p.position
        p.position = target
        self._emit("teleported", seat=seat, to=target, **{"from": start})
        self.phase = "resolving"
        if target == 0:
            self._pay_salary(seat, landed=True)
        self._resolve(seat)

    def _a_teleport(self, seat: int | None, action: Action) -> None:
        seat = self._expect(seat, "teleport")
        target = self._square_arg(action)
        self._teleport(seat, target)
        self._advance()

    def _a_resign(self, seat: int | None, action: Action) -> None:
        assert seat is not None
        self._eliminate(seat, "resigned")
        self._advance()

    def _a_timeout(self, seat: int | None, action: Action) -> None:
        if "trade" in action:
            t = self._trade_arg(action)
            del self.trades[t.id]
            self._emit("trade_lapsed", trade=t.id, reason="expired")
            return
        expected = action.get("seat")
        actor = self.actor()
        if expected is not None and expected != actor:
            raise IllegalAction("stale_timeout", f"seat {actor} is deciding now, not {expected}")
        clock = action.get("clock")
        if clock is not None and clock != self.pending()[0]["clock"]["id"]:
            raise IllegalAction("stale_timeout", f"clock {clock!r} is no longer running")
        assert actor is not None
        if self.phase == "auction":
            a = self.auction
            assert a is not None
            a.passed.add(actor)
            self._emit("auction_passed", seat=actor, auto=True, reason="timeout")
            self._auction_continue()
            return
        if self.phase == "pay":
            debt = self.debts[0]
            self._emit("pay_step_timed_out", seat=actor)
            self._auto_settle(debt)
            self._advance()
            return
        p = self.players[actor]
        p.missed_turns += 1
        self._emit("turn_timed_out", seat=actor, missed=p.missed_turns)
        if p.missed_turns >= self.rules.missed_turns_forfeit:
            self._eliminate(actor, "forfeit")
        else:
            self.autoplay = True
        self._advance()


Game._HANDLERS = {
    name[3:]: func for name, func in vars(Game).items() if name.startswith("_a_") and callable(func)
}


CompanyRow = tuple[int, Callable[[list[Any]], tuple[Any, ...]] | None, int, int, int]
_COMPANY_TABLES: dict[tuple[str, int], list[CompanyRow]] = {}


def _company_table(game: Game) -> list[CompanyRow]:
    """Per company: index, a getter for its colour group's entries, group size, level cost, redemption cost.

    Static for a board and a redemption rate, so it is built once and shared by every game and copy.
    """
    key = (game.board.name, game.rules.redemption_percent)
    table = _COMPANY_TABLES.get(key)
    if table is None:
        getters: dict[str, Callable[[list[Any]], tuple[Any, ...]]] = {}
        for g, idx in game.board.groups.items():
            assert len(idx) > 1, "itemgetter returns a tuple only for two or more indices"
            getters[g] = itemgetter(*idx)
        table = []
        for i in game.board.companies:
            sq = game.board.squares[i]
            getter = getters[sq.group] if sq.kind == "street" and sq.group else None
            size = len(game.board.groups[sq.group]) if getter is not None and sq.group else 0
            table.append((i, getter, size, sq.level_cost, redemption_cost(game, i)))
        _COMPANY_TABLES[key] = table
    return table


def _best_cards(raw: Any) -> dict[int, str]:
    """Seat cards as square → best rarity; several cards for one square never stack (SPEC.md 19)."""
    order = list(CARD_BONUS_PERCENT)
    best: dict[int, str] = {}
    items = raw.items() if isinstance(raw, dict) else raw
    for square, rarity in items:
        rarities = rarity if isinstance(rarity, list) else [rarity]
        for r in rarities:
            if r not in CARD_BONUS_PERCENT:
                raise IllegalAction("bad_seat_info", f"unknown card rarity {r!r}")
            key = int(square)
            if key not in best or order.index(r) > order.index(best[key]):
                best[key] = r
    return best


def _public_rules(rules: Rules) -> dict[str, Any]:
    return {
        "turn_seconds": rules.turn_seconds,
        "auction_seconds": rules.auction_seconds,
        "pay_step_seconds": rules.pay_step_seconds,
        "trade_seconds": rules.trade_seconds,
        "round_limit": rules.round_limit,
        "rent_tax_start": rules.rent_tax_start,
        "rent_tax_full": rules.rent_tax_full,
        "auction_step": rules.auction_step,
        "jail_bail": rules.jail_bail,
        "jackpot_stake": rules.jackpot_stake,
        "corner_20": rules.corner_20,
        "even_building": rules.even_building,
        "third_die_from_round": rules.third_die_from_round,
        "mortgage_expiry_rounds": rules.mortgage_expiry_rounds,
        "redemption_percent": rules.redemption_percent,
        "max_open_trades": rules.max_open_trades,
        "teams": rules.teams,
        "murabaha": rules.murabaha,
    }
