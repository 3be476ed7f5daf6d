"""A game's state, beneath the rules: plain slotted records so copies for bots stay cheap, and
``GameState``, everything a game holds, which the rule modules read and change.

The layers only import downwards: the turn flow (``turns.py``) and the ``Game`` facade (``game.py``) on top,
the rule modules (named after docs/rules.md's sections) below them, and the kernel beneath them all: this module,
``kernel.py`` (money, debts, dice, seat order), ``actions.py``, ``vocabulary.py``, ``kinds.py`` and
``errors.py``. The rule modules annotate their argument as ``GameState``, so none of them needs the facade;
they report what they change through ``emit``/``emit_data`` and take clock ids from ``new_id``.

The records are dataclasses (equality, repr, ``fields``) with a written-out ``__init__``: compiled, the one a
dataclass generates stays interpreted Python, several times slower than a native one, and debts, offers and player
copies are made on every turn and in every bot look-ahead.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from opolyx.engine.vocabulary import EventType, Phase
from opolyx.rules import Board, Card, Rules

Event: TypeAlias = dict[str, Any]

#: A ``GameState.holdings_log`` entry for a change of many companies at once (a bankruptcy).
ALL_SQUARES: Final = -1

#: (owner, level, open Murabaha squares, tradeable squares by seat): see ``trades.tradeable_by_seat``.
TradeableCache = tuple[list[int | None], list[int], tuple[int, ...], dict[int, tuple[int, ...]]]


@dataclass(init=False, slots=True)
class Player:
    seat: int
    name: str
    cash: int
    bot: bool
    team: int | None
    vip: bool
    cards: dict[int, str]
    position: int
    in_jail: bool
    jail_tries: int
    out: bool
    out_reason: str | None
    missed_turns: int
    god: str | None
    god_until: int

    def __init__(
        self, seat: int, name: str, cash: int, bot: bool = False, team: int | None = None, vip: bool = False,
        cards: dict[int, str] | None = None, position: int = 0, in_jail: bool = False, jail_tries: int = 0,
        out: bool = False, out_reason: str | None = None, missed_turns: int = 0, god: str | None = None,
        god_until: int = 0,
    ) -> None:
        self.seat = seat
        self.name = name
        self.cash = cash
        self.bot = bot
        self.team = team
        self.vip = vip
        self.cards = {} if cards is None else cards
        self.position = position
        self.in_jail = in_jail
        self.jail_tries = jail_tries
        self.out = out
        self.out_reason = out_reason
        self.missed_turns = missed_turns
        self.god = god
        self.god_until = god_until

    def copy(self) -> Player:
        p = Player(
            self.seat, self.name, self.cash, self.bot, self.team, self.vip, self.cards, self.position,
            self.in_jail, self.jail_tries, self.out, self.out_reason, self.missed_turns, self.god,
            self.god_until,
        )
        return p


@dataclass(init=False, slots=True)
class Creditor:
    seat: int | None  # None is the bank
    amount: int
    tax: int  # rent tax: the part of ``amount`` that leaves the game instead of reaching the owner

    def __init__(self, seat: int | None, amount: int, tax: int = 0) -> None:
        self.seat = seat
        self.amount = amount
        self.tax = tax


@dataclass(init=False, slots=True)
class Debt:
    """One open pay step (docs/rules.md §11)."""

    debtor: int
    creditors: list[Creditor]
    reason: str
    square: int | None
    id: int

    def __init__(self, debtor: int, creditors: list[Creditor], reason: str, square: int | None = None,
                 id: int = 0) -> None:
        self.debtor = debtor
        self.creditors = creditors
        self.reason = reason
        self.square = square
        self.id = id

    @property
    def amount(self) -> int:
        creditors = self.creditors
        if len(creditors) == 1:  # rent and tax: read on every pay step, so without a generator
            return creditors[0].amount
        return sum(c.amount for c in creditors)

    def to_public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "debtor": self.debtor,
            "amount": self.amount,
            "reason": self.reason,
            "square": self.square,
            "creditors": [{"seat": c.seat, "amount": c.amount} for c in self.creditors],
        }


@dataclass(init=False, slots=True)
class Auction:
    """A round-robin auction (docs/rules.md §5): ``order`` ends with the decliner."""

    square: int
    order: list[int]
    passed: set[int]
    bid: int | None
    leader: int | None
    index: int
    id: int
    turn_id: int

    def __init__(self, square: int, order: list[int], passed: set[int], bid: int | None = None,
                 leader: int | None = None, index: int = 0, id: int = 0, turn_id: int = 0) -> None:
        self.square = square
        self.order = order
        self.passed = passed
        self.bid = bid
        self.leader = leader
        self.index = index
        self.id = id
        self.turn_id = turn_id

    @property
    def current(self) -> int:
        return self.order[self.index]

    def minimum(self, price: int, step: int) -> int:
        return price if self.bid is None else self.bid + step

    def copy(self) -> Auction:
        return Auction(self.square, list(self.order), set(self.passed), self.bid, self.leader, self.index,
                       self.id, self.turn_id)

    def to_public(self, price: int, step: int) -> dict[str, Any]:
        return {
            "id": self.id,
            "square": self.square,
            "order": list(self.order),
            "passed": sorted(self.passed),
            "bid": self.bid,
            "leader": self.leader,
            "bidder": self.current,
            "minimum": self.minimum(price, step),
        }


@dataclass(init=False, slots=True)
class Offer:
    """One side of a trade: cash and companies."""

    cash: int
    squares: tuple[int, ...]

    def __init__(self, cash: int = 0, squares: tuple[int, ...] = ()) -> None:
        self.cash = cash
        self.squares = squares

    def to_public(self) -> dict[str, Any]:
        return {"cash": self.cash, "squares": list(self.squares)}


@dataclass(init=False, slots=True)
class Trade:
    id: int
    proposer: int
    recipient: int
    give: Offer
    take: Offer

    def __init__(self, id: int, proposer: int, recipient: int, give: Offer, take: Offer) -> None:
        self.id = id
        self.proposer = proposer
        self.recipient = recipient
        self.give = give
        self.take = take

    def to_public(self, seconds: int) -> dict[str, Any]:
        return {
            "id": self.id,
            "from": self.proposer,
            "to": self.recipient,
            "give": self.give.to_public(),
            "take": self.take.to_public(),
            "seconds": seconds,
        }


@dataclass(init=False, slots=True)
class Murabaha:
    """A Halal deferred purchase (docs/rules.md §19a): owed to the bank, due at ``due_round``."""

    square: int
    seat: int
    amount: int
    due_round: int

    def __init__(self, square: int, seat: int, amount: int, due_round: int) -> None:
        self.square = square
        self.seat = seat
        self.amount = amount
        self.due_round = due_round


class GameState:
    """Everything a running game holds. ``Game`` builds it and adds the public API; the rule modules change
    it and report each change with ``emit``."""

    rules: Rules
    board: Board
    seats: int
    seed: int
    rng: random.Random
    #: ``rng.random`` and the generator it was taken from: the dice read it from here, since compiled,
    #: ``rng.random`` is a generic attribute lookup that makes a new bound method on every roll. Taken again
    #: whenever ``rng`` is another generator (a copy's, or one set by hand). Not part of the state.
    draw: Callable[[], float] | None
    draw_of: random.Random | None
    #: Dice fixed by tests and tutorials, consumed one roll per tuple before the generator takes over.
    fixed_dice: deque[tuple[int, ...]]
    players: list[Player]
    order: list[int]
    cards: dict[str, Card]
    deck: list[str]
    owner: list[int | None]
    level: list[int]
    mortgaged: list[bool]
    mortgage_left: dict[int, int]
    murabaha: dict[int, Murabaha]
    round: int
    turn: int
    phase: Phase
    phase_before_pay: Phase
    turn_no: int
    doubles: int
    roll_again: bool
    last_dice: tuple[int, ...]
    last_total: int
    built: set[int]
    offer_square: int | None
    auction: Auction | None
    debts: list[Debt]
    pending_move: int | None
    bus_dice: tuple[int, int] | None
    trades: dict[int, Trade]
    #: ``trades.tradeable_by_seat``'s last answer with the owner/level/Murabaha state it was computed from.
    _tradeable: TradeableCache | None
    next_id: int
    autoplay: bool
    bank_paid: int
    bank_received: int
    rent_tax_total: int
    eliminated: list[int]
    result: dict[str, Any] | None
    seq: int
    actions: list[list[Any]]
    setup: dict[str, Any]
    start_events: list[Event]
    _ev: list[Event]
    #: The event types ``apply`` reports, or None for all of them (the default). A caller that reads only a
    #: few types (the simulator's counters) or none (a bot's look-ahead copy) sets it: the others are then
    #: never built, kept or freed (a large share of a compiled bot game's work, see docs/engine.md). The game
    #: itself never reads its events. The rule modules test it before building the events they report most
    #: often, written out (``(reported := game.reported) is None or kind in reported``): in pure Python a
    #: method call would cost more than the dict it saves; ``emit`` drops the others.
    reported: frozenset[str] | None
    #: The companies whose owner, level or mortgage the rule modules changed, in order, one entry per change
    #: (``ALL_SQUARES`` for a bankruptcy, which changes many at once). A cache of what follows from those three
    #: lists (the bots' tables, docs/bots.md) may read the entries added since it last matched instead of
    #: comparing the lists' contents, for a game it knows to be changed through ``apply`` alone. Not part of
    #: the state: never in ``snapshot``, saves or replays; a copy starts with an empty one.
    holdings_log: list[int]
    #: Whether ``apply`` appends each action to ``actions``: True by default. A caller that will never
    #: save or replay the game (the simulator's counters) turns it off, and each action is then freed as soon
    #: as it is applied instead of with the whole game. Not part of the state, and a ``copy`` keeps it.
    keeps_actions: bool

    @property
    def is_over(self) -> bool:
        return self.result is not None

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
        """Who must act, on what, and under which clock (docs/rules.md §12)."""
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
            decision: str = self.phase
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

    def _share_immutable(self, other: GameState) -> None:
        """Take over ``other``'s values that are immutable or replaced rather than changed in place; a copy
        then replaces every mutable container with its own (see ``Game.copy``)."""
        self.rules = other.rules
        self.board = other.board
        self.seats = other.seats
        self.seed = other.seed
        self.draw = self.draw_of = None  # the copy draws from a generator of its own
        self.cards = other.cards
        self.round = other.round
        self.turn = other.turn
        self.phase = other.phase
        self.phase_before_pay = other.phase_before_pay
        self.turn_no = other.turn_no
        self.doubles = other.doubles
        self.roll_again = other.roll_again
        self.last_dice = other.last_dice
        self.last_total = other.last_total
        self.offer_square = other.offer_square
        self.pending_move = other.pending_move
        self.bus_dice = other.bus_dice
        self._tradeable = other._tradeable
        self.next_id = other.next_id
        self.autoplay = other.autoplay
        self.bank_paid = other.bank_paid
        self.bank_received = other.bank_received
        self.rent_tax_total = other.rent_tax_total
        self.result = other.result
        self.seq = other.seq
        self.setup = other.setup
        self.start_events = other.start_events
        self.reported = other.reported
        self.holdings_log = []
        self.keeps_actions = other.keeps_actions

    def emit(self, kind: EventType, **data: Any) -> None:
        """Record an event of this action (the rule modules report everything they do through here)."""
        self.emit_data(kind, data)

    def emit_data(self, kind: EventType, data: Event) -> None:
        """``emit`` for an event whose fields are already in a dict of its own (taken over, not copied).
        Compiled, a call that spreads a dict into ``emit``'s keywords (``**extra``, a key like ``from``) is
        a generic Python call that builds the fields three times; this is a direct one."""
        reported = self.reported
        if reported is None or kind in reported:
            data["type"] = kind
            self._ev.append(data)

    def new_id(self) -> int:
        """Ids for debts, trades, auctions and bidding turns: one counter, so clock ids never repeat."""
        self.next_id += 1
        return self.next_id
