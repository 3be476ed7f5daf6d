"""Engine events told in words from the message catalogs, in any of the six languages.

This is the browser's game log (``web/js/log.js``) for Python: the same event → message key table, the
same catalog entries and plural rules, so ``opolyx story --lang de`` reads like the German log in the
browser. ``tests/web/test_catalogs.py`` checks that both tables know the same events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from opolyx.i18n.amounts import format_amount
from opolyx.i18n.catalog import translate
from opolyx.rules import Board, Rules, load_cards

Event = Mapping[str, Any]
Rendered = tuple[str, dict[str, object]]

_COMPANIES = ("street", "dealership", "utility")


class Narrator:
    """Renders events of one game in ``language``; ``names`` are the seats' display names."""

    def __init__(self, board: Board, rules: Rules, names: list[str], language: str = "en") -> None:
        self.board = board
        self.rules = rules
        self.names = names
        self.language = language
        self.cards = {c.id: c for c in load_cards()}

    # --- the pieces of a message, as log.js builds them -------------------------------------------

    def t(self, key: str, **params: object) -> str:
        return translate(key, self.language, **params)

    def player(self, seat: int | None) -> str:
        if seat is None:
            return self.t("game.bank")
        return self.names[seat] if 0 <= seat < len(self.names) else self.t("game.seat", seat=seat + 1)

    def square(self, index: int) -> str:
        sq = self.board.squares[index]
        if sq.kind in _COMPANIES:
            return sq.name_zh if self.language == "zh" and sq.name_zh else sq.name
        if sq.kind == "corner_20":
            return self.t(f"square.{self.rules.corner_20 or 'jackpot'}")
        if sq.kind == "event":
            return self.t("square.event")
        return self.t(f"square.{sq.id}")

    def money(self, value: int) -> str:
        return format_amount(int(value), self.language)

    def card(self, card_id: str) -> str:
        card = self.cards.get(card_id)
        square = self.square(card.square) if card is not None and card.square is not None else ""
        return self.t(f"card.{card_id}", square=square)

    def side(self, side: Mapping[str, Any]) -> str:
        parts = [self.money(side["cash"])] if side.get("cash") else []
        parts += [self.square(int(i)) for i in side.get("squares", [])]
        return ", ".join(parts) if parts else self.t("trade.nothing")

    def creditors(self, creditors: list[Mapping[str, Any]] | None) -> str:
        items = list(creditors or [])
        if len(items) == 1:
            return self.player(items[0]["seat"])
        return ", ".join(f"{self.player(c['seat'])} {self.money(c['amount'])}" for c in items)

    def dice(self, e: Event) -> str:
        text = " + ".join(str(d) for d in list(e["dice"])[:2])
        third = e.get("third")
        if third is not None:
            text += f" + {third if isinstance(third, int) else self.t(f'dice.{third}')}"
        return text

    # --- the table ---------------------------------------------------------------------------------

    def render(self, e: Event) -> Rendered:
        rule = RENDER.get(str(e["type"]))
        if rule is None:
            return "log.unknown", {"type": e["type"]}
        return rule(self, e)

    def describe(self, e: Event) -> str:
        """One event in words; an event this narrator does not know is named, never dumped."""
        key, params = self.render(e)
        text = self.t(key, **params)
        return self.t(f"log.{e['type']}", **params) if text == key else text


def _p(n: Narrator, e: Event, field: str = "seat") -> str:
    return n.player(e.get(field))


def _s(n: Narrator, e: Event, field: str = "square") -> str:
    value = e.get(field)
    return n.square(int(value)) if value is not None else ""


Rule = Callable[[Narrator, Event], Rendered]

# Event type → (catalog key, parameters): the same table as RENDER in web/js/log.js.
RENDER: dict[str, Rule] = {
    "game_started": lambda n, e: ("log.game_started", {
        "mode": n.t(f"mode.{e['mode']}.name"), "player": _p(n, e, "first"),
    }),
    "turn_started": lambda n, e: ("log.turn_started", {"player": _p(n, e)}),
    "round_started": lambda n, e: ("log.round_started", {"round": e["round"]}),
    "dice_rolled": lambda n, e: (
        "log.dice_rolled.jail" if e.get("jail")
        else "log.dice_rolled.doubles" if e.get("doubles") else "log.dice_rolled",
        {"player": _p(n, e), "dice": n.dice(e)},
    ),
    "moved": lambda n, e: ("log.moved", {"player": _p(n, e), "square": _s(n, e, "to")}),
    "roll_again": lambda n, e: ("log.roll_again", {"player": _p(n, e)}),
    "triples_rolled": lambda n, e: ("log.triples_rolled", {"player": _p(n, e)}),
    "third_doubles": lambda n, e: ("log.third_doubles", {"player": _p(n, e)}),
    "x_jump": lambda n, e: ("log.x_jump", {"player": _p(n, e), "square": _s(n, e)}),
    "bus_chosen": lambda n, e: ("log.bus_chosen", {"player": _p(n, e), "n": e["steps"]}),
    "teleported": lambda n, e: ("log.teleported", {"player": _p(n, e), "square": _s(n, e, "to")}),
    "cash_received": lambda n, e: (f"log.cash_received.{e['reason']}", {
        "player": _p(n, e), "amount": n.money(e["amount"]), "card": n.card(str(e["card"])) if e.get("card") else "",
    }),
    "jailed": lambda n, e: (f"log.jailed.{e['reason']}", {"player": _p(n, e)}),
    "released": lambda n, e: (f"log.released.{e['reason']}", {"player": _p(n, e)}),
    "bail_paid": lambda n, e: ("log.bail_paid", {"player": _p(n, e), "amount": n.money(e["amount"])}),
    "jail_roll_failed": lambda n, e: ("log.jail_roll_failed", {"player": _p(n, e), "tries": e["tries"]}),
    "purchase_offered": lambda n, e: ("log.purchase_offered", {
        "player": _p(n, e), "square": _s(n, e), "price": n.money(e["price"]),
    }),
    "purchase_declined": lambda n, e: (
        "log.purchase_declined.auto" if e.get("auto") else "log.purchase_declined",
        {"player": _p(n, e), "square": _s(n, e)},
    ),
    "company_bought": lambda n, e: ("log.company_bought", {
        "player": _p(n, e), "square": _s(n, e), "price": n.money(e["price"]),
    }),
    "murabaha_bought": lambda n, e: ("log.murabaha_bought", {
        "player": _p(n, e), "square": _s(n, e), "amount": n.money(e["amount"]), "round": e["due_round"],
    }),
    "murabaha_paid": lambda n, e: ("log.murabaha_paid", {
        "player": _p(n, e), "square": _s(n, e), "amount": n.money(e["amount"]),
    }),
    "auction_started": lambda n, e: ("log.auction_started", {"square": _s(n, e), "amount": n.money(e["minimum"])}),
    "auction_bid": lambda n, e: ("log.auction_bid", {"player": _p(n, e), "amount": n.money(e["amount"])}),
    "auction_passed": lambda n, e: (f"log.auction_passed.{e['reason']}", {"player": _p(n, e)}),
    "auction_won": lambda n, e: ("log.auction_won", {
        "player": _p(n, e), "square": _s(n, e), "amount": n.money(e["amount"]),
    }),
    "auction_unsold": lambda n, e: ("log.auction_unsold", {"square": _s(n, e)}),
    "rent_due": lambda n, e: ("log.rent_due", {
        "player": _p(n, e), "owner": _p(n, e, "owner"), "square": _s(n, e), "amount": n.money(e["amount"]),
    }),
    "rent_waived": lambda n, e: (f"log.rent_waived.{e['reason']}", {
        "player": _p(n, e), "owner": _p(n, e, "owner"), "square": _s(n, e),
    }),
    "pay_step_started": lambda n, e: (f"log.pay_step_started.{e['reason']}", {
        "player": _p(n, e, "debtor"), "amount": n.money(e["amount"]), "to": n.creditors(e.get("creditors")),
        "square": _s(n, e),
    }),
    "pay_step_timed_out": lambda n, e: ("log.pay_step_timed_out", {"player": _p(n, e)}),
    "debt_paid": lambda n, e: ("log.debt_paid.auto" if e.get("auto") else "log.debt_paid", {
        "player": _p(n, e), "amount": n.money(e["amount"]), "to": n.creditors(e.get("creditors")),
    }),
    "card_drawn": lambda n, e: ("log.card_drawn", {"player": _p(n, e), "card": n.card(str(e["card"]))}),
    "red_envelope": lambda n, e: ("log.red_envelope", {
        "player": _p(n, e),
        "shares": ", ".join(f"{n.player(int(s))} {n.money(a)}" for s, a in dict(e.get("shares") or {}).items()),
    }),
    "god_arrived": lambda n, e: (f"log.god_arrived.{e['god']}", {"player": _p(n, e), "round": e["until_round"]}),
    "god_left": lambda n, e: (f"log.god_left.{e['god']}", {"player": _p(n, e)}),
    "jackpot_offered": lambda n, e: ("log.jackpot_offered", {"player": _p(n, e), "amount": n.money(e["stake"])}),
    "jackpot_played": lambda n, e: ("log.jackpot_played.won" if e.get("won") else "log.jackpot_played", {
        "player": _p(n, e), "numbers": ", ".join(str(x) for x in e["numbers"]), "die": e["die"],
        "amount": n.money(e["payout"] if e.get("won") else e["stake"]),
    }),
    "jackpot_unaffordable": lambda n, e: ("log.jackpot_unaffordable", {
        "player": _p(n, e), "amount": n.money(e["stake"]),
    }),
    "teleport_skipped": lambda n, e: ("log.teleport_skipped", {"player": _p(n, e)}),
    "jackpot_declined": lambda n, e: ("log.jackpot_declined", {"player": _p(n, e)}),
    "rested": lambda n, e: ("log.rested", {"player": _p(n, e)}),
    "built": lambda n, e: ("log.built", {
        "player": _p(n, e), "square": _s(n, e), "level": e["level"], "amount": n.money(e["cost"]),
    }),
    "sold": lambda n, e: ("log.sold.auto" if e.get("auto") else "log.sold", {
        "player": _p(n, e), "square": _s(n, e), "level": e["level"], "amount": n.money(e["refund"]),
    }),
    "mortgaged": lambda n, e: ("log.mortgaged.auto" if e.get("auto") else "log.mortgaged", {
        "player": _p(n, e), "square": _s(n, e), "amount": n.money(e["value"]),
    }),
    "redeemed": lambda n, e: ("log.redeemed", {"player": _p(n, e), "square": _s(n, e), "amount": n.money(e["cost"])}),
    "mortgage_ticked": lambda n, e: ("log.mortgage_ticked", {
        "player": _p(n, e), "square": _s(n, e), "n": e["rounds_left"],
    }),
    "mortgage_expired": lambda n, e: ("log.mortgage_expired", {"player": _p(n, e), "square": _s(n, e)}),
    "trade_proposed": lambda n, e: ("log.trade_proposed", {
        "from": _p(n, e, "from"), "to": _p(n, e, "to"), "give": n.side(e["give"]), "take": n.side(e["take"]),
    }),
    "trade_accepted": lambda n, e: ("log.trade_accepted", {
        "from": _p(n, e, "from"), "to": _p(n, e, "to"), "give": n.side(e["give"]), "take": n.side(e["take"]),
    }),
    "trade_declined": lambda n, e: ("log.trade_declined", {"player": _p(n, e)}),
    "trade_cancelled": lambda n, e: ("log.trade_cancelled", {"player": _p(n, e)}),
    "trade_lapsed": lambda n, e: (f"log.trade_lapsed.{e['reason']}", {}),
    "companies_inherited": lambda n, e: ("log.companies_inherited", {
        "player": _p(n, e), "from": _p(n, e, "from"), "squares": ", ".join(n.square(int(i)) for i in e["squares"]),
    }),
    "player_out": lambda n, e: (f"log.player_out.{e['reason']}", {"player": _p(n, e)}),
    "bot_took_over": lambda n, e: ("log.bot_took_over", {
        "player": e.get("name") or _p(n, e),
        "bot": n.t("player.bot_name", n=e["bot"]["number"], strength=n.t(f"strength.{e['bot']['strength']}")),
    }),
    "rematch": lambda n, e: ("log.rematch", {"player": _p(n, e)}),
    # Fair dice (docs/security.md): the seed's commitment first, the seed itself at the end.
    "seed_committed": lambda n, e: ("log.seed_committed", {"short": str(e["commitment"])[:12]}),
    "seed_revealed": lambda n, e: ("log.seed_revealed", {"seed": e["seed"]}),
    "turn_timed_out": lambda n, e: ("log.turn_timed_out", {"player": _p(n, e), "missed": e["missed"]}),
    "game_over": lambda n, e: (f"log.game_over.{e['reason']}", {"player": _p(n, e, "winner"), "round": e["round"]}),
}
