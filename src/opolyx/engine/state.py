"""The mutable pieces of a game's state; plain slotted records so copies for bots stay cheap."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Player:
    seat: int
    name: str
    cash: int
    bot: bool = False
    team: int | None = None
    vip: bool = False
    cards: dict[int, str] = field(default_factory=dict)
    position: int = 0
    in_jail: bool = False
    jail_tries: int = 0
    out: bool = False
    out_reason: str | None = None
    missed_turns: int = 0
    god: str | None = None
    god_until: int = 0

    def copy(self) -> Player:
        p = Player(
            self.seat, self.name, self.cash, self.bot, self.team, self.vip, self.cards, self.position,
            self.in_jail, self.jail_tries, self.out, self.out_reason, self.missed_turns, self.god,
            self.god_until,
        )
        return p


@dataclass(slots=True)
class Creditor:
    seat: int | None  # None is the bank
    amount: int
    tax: int = 0  # rent tax: the part of ``amount`` that leaves the game instead of reaching the owner


@dataclass(slots=True)
class Debt:
    """One open pay step (SPEC.md section 11)."""

    debtor: int
    creditors: list[Creditor]
    reason: str
    square: int | None = None
    id: int = 0

    @property
    def amount(self) -> int:
        return sum(c.amount for c in self.creditors)

    def to_public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "debtor": self.debtor,
            "amount": self.amount,
            "reason": self.reason,
            "square": self.square,
            "creditors": [{"seat": c.seat, "amount": c.amount} for c in self.creditors],
        }


@dataclass(slots=True)
class Auction:
    """A round-robin auction (SPEC.md section 5): ``order`` ends with the decliner."""

    square: int
    order: list[int]
    passed: set[int]
    bid: int | None = None
    leader: int | None = None
    index: int = 0
    id: int = 0
    turn_id: int = 0

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


@dataclass(slots=True)
class Offer:
    """One side of a trade: cash and companies."""

    cash: int = 0
    squares: tuple[int, ...] = ()

    def to_public(self) -> dict[str, Any]:
        return {"cash": self.cash, "squares": list(self.squares)}


@dataclass(slots=True)
class Trade:
    id: int
    proposer: int
    recipient: int
    give: Offer
    take: Offer

    def to_public(self, seconds: int) -> dict[str, Any]:
        return {
            "id": self.id,
            "from": self.proposer,
            "to": self.recipient,
            "give": self.give.to_public(),
            "take": self.take.to_public(),
            "seconds": seconds,
        }


@dataclass(slots=True)
class Murabaha:
    """A Halal deferred purchase (SPEC.md section 19a): owed to the bank, due at ``due_round``."""

    square: int
    seat: int
    amount: int
    due_round: int
