"""Frozen dataclasses for rule data and the loaders that fill them from the JSON tables."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from functools import cache
from importlib import resources
from typing import Any, Final

#: Collectible card rarities and their rent bonus in percent (docs/rules.md §19).
CARD_BONUS_PERCENT: Final[dict[str, int]] = {
    "common": 3,
    "uncommon": 6,
    "rare": 10,
    "epic": 20,
    "legendary": 33,
}

COMPANY_KINDS: Final = frozenset({"street", "dealership", "utility"})


@dataclass(frozen=True, slots=True)
class Square:
    index: int
    id: str
    kind: str
    name: str
    name_zh: str | None = None
    group: str | None = None
    price: int = 0
    rents: tuple[int, ...] = ()
    level_cost: int = 0
    tax: int = 0

    @property
    def is_company(self) -> bool:
        return self.kind in COMPANY_KINDS

    @property
    def mortgage_value(self) -> int:
        return self.price // 2


@dataclass(frozen=True, slots=True)
class Board:
    name: str
    squares: tuple[Square, ...]
    dealership_rents: tuple[int, ...]
    utility_multipliers: tuple[int, ...]
    disclaimer: str | None = None
    groups: dict[str, tuple[int, ...]] = field(default_factory=dict)
    companies: tuple[int, ...] = ()
    dealerships: tuple[int, ...] = ()
    utilities: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.squares)


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    effect: str
    square: int | None = None
    kind: str | None = None
    steps: int = 0
    amount: int = 0


@dataclass(frozen=True, slots=True)
class Rules:
    """One mode's table of parameters and switches (docs/rules.md §2, plus each mode's section)."""

    mode: str
    starting_cash: int
    salary: int
    start_landing_bonus: int
    round_limit: int
    rent_tax_start: int | None
    rent_tax_full: int | None
    rent_tax_max_percent: int
    turn_seconds: int
    third_die_from_round: int | None
    even_building: bool
    mortgage_expiry_rounds: int | None
    redemption_percent: int
    corner_20: str
    murabaha: bool
    murabaha_markup_percent: int
    murabaha_rounds: int
    board: str
    teams: bool
    gods: bool
    god_rounds: int
    god_surcharge_percent: int
    red_envelope: bool
    lucky_eight_bonus: int
    card_names: dict[str, str]
    auction_step: int
    auction_seconds: int
    pay_step_min_seconds: int
    jail_bail: int
    jail_tries: int
    jackpot_stake: int
    jackpot_multipliers: tuple[int, ...]
    max_open_trades: int
    trade_seconds: int
    missed_turns_forfeit: int
    max_level: int
    trade_fairness_percent: int
    sell_back_percent: int
    max_doubles: int
    min_seats: int
    max_seats: int
    allowed_seats: tuple[int, ...] | None = None

    @property
    def pay_step_seconds(self) -> int:
        """docs/rules.md §2: at least 75 s, or the turn time if that is longer."""
        return max(self.pay_step_min_seconds, self.turn_seconds)

    def seats_allowed(self, seats: int) -> bool:
        if self.allowed_seats is not None:
            return seats in self.allowed_seats
        return self.min_seats <= seats <= self.max_seats

    def rent_tax_percent_x100(self, round_no: int) -> int:
        """The rent-tax share in hundredths of a percent (docs/rules.md §13), linear from start to full."""
        start, full = self.rent_tax_start, self.rent_tax_full
        if start is None or full is None or round_no <= start:
            return 0
        if round_no >= full:
            return self.rent_tax_max_percent * 100
        return self.rent_tax_max_percent * 100 * (round_no - start) // (full - start)

    def with_changes(self, **changes: Any) -> Rules:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(changes)
        return Rules(**data)


def _read_json(name: str) -> Any:
    return json.loads(resources.files("opolyx.rules").joinpath("data", name).read_text(encoding="utf-8"))


@cache
def load_board(name: str) -> Board:
    raw = _read_json(f"board_{name}.json")
    squares = tuple(
        Square(
            index=s["index"],
            id=s["id"],
            kind=s["kind"],
            name=s["name"],
            name_zh=s.get("name_zh"),
            group=s.get("group"),
            price=s.get("price", 0),
            rents=tuple(s.get("rents", ())),
            level_cost=s.get("level_cost", 0),
            tax=s.get("tax", 0),
        )
        for s in raw["squares"]
    )
    groups: dict[str, list[int]] = {}
    for sq in squares:
        if sq.group:
            groups.setdefault(sq.group, []).append(sq.index)
    return Board(
        name=raw["name"],
        squares=squares,
        dealership_rents=tuple(raw["dealership_rents"]),
        utility_multipliers=tuple(raw["utility_multipliers"]),
        disclaimer=raw.get("disclaimer"),
        groups={g: tuple(v) for g, v in groups.items()},
        companies=tuple(sq.index for sq in squares if sq.is_company),
        dealerships=tuple(sq.index for sq in squares if sq.kind == "dealership"),
        utilities=tuple(sq.index for sq in squares if sq.kind == "utility"),
    )


@cache
def load_cards() -> tuple[Card, ...]:
    raw = _read_json("cards.json")
    return tuple(
        Card(
            id=c["id"],
            effect=c["effect"],
            square=c.get("square"),
            kind=c.get("kind"),
            steps=c.get("steps", 0),
            amount=c.get("amount", 0),
        )
        for c in raw["cards"]
    )


@cache
def _modes() -> dict[str, Any]:
    data: dict[str, Any] = _read_json("modes.json")
    return data


def mode_names() -> tuple[str, ...]:
    return tuple(_modes()["modes"])


@cache
def load_rules(mode: str) -> Rules:
    tables = _modes()
    if mode not in tables["modes"]:
        raise KeyError(mode)
    data = dict(tables["common"])
    data.update(tables["modes"][mode])
    data["mode"] = mode
    for key in ("jackpot_multipliers", "allowed_seats"):
        if data.get(key) is not None:
            data[key] = tuple(data[key])
    return Rules(**data)
