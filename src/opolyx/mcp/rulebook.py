"""The board and each mode's rules as an agent reads them: MCP resources, and the ``get_rules`` tool for
clients that cannot read resources.

Everything comes from the rule tables (``opolyx.rules``), the data the engine itself plays by, so what an
agent reads is what the game does: prices, rents by level, build and mortgage costs, colour groups, the
round limit, the clocks and the trade fairness rule with the value of a company, which an agent needs
to build an offer the engine accepts.
"""

from __future__ import annotations

from functools import cache

from opolyx.i18n.catalog import translate
from opolyx.jsontypes import JSON
from opolyx.rules import load_board, load_rules, mode_names

MODES: tuple[str, ...] = mode_names()


def mode_line(mode: str) -> str:
    """One line explaining a mode (the lobby's own text)."""
    return f"{mode}: {translate(f'mode.{mode}.desc', 'en')}"


@cache
def board_data(name: str) -> JSON:
    """A board: every square with its kind, group, price, rents by level, build cost and mortgage value."""
    board = load_board(name)
    squares: list[JSON] = []
    for sq in board.squares:
        entry: JSON = {"index": sq.index, "name": sq.name, "kind": sq.kind}
        if sq.group:
            entry["group"] = sq.group
        if sq.price:
            entry["price"] = sq.price
            entry["mortgage"] = sq.price // 2
        if sq.rents:
            entry["rents"] = list(sq.rents)
        if sq.level_cost:
            entry["build"] = sq.level_cost
        if sq.tax:
            entry["tax"] = sq.tax
        squares.append(entry)
    groups = {g: list(ix) for g, ix in board.groups.items()}
    return {
        "board": board.name,
        "squares": squares,
        "groups": groups,
        "dealership_rents": list(board.dealership_rents),
        "utility_multipliers": list(board.utility_multipliers),
        "notes": [
            "rents[k] is the street's rent at building level k; owning the whole colour group (none "
            "mortgaged) doubles the level-0 rent",
            "dealership rent by how many dealerships the owner holds; utility rent = the tenant's dice "
            "total times the multiplier for how many utilities the owner holds",
            "mortgage: the bank pays half the price; a mortgaged company collects no rent",
        ],
        **({"disclaimer": board.disclaimer} if board.disclaimer else {}),
    }


@cache
def mode_data(mode: str) -> JSON:
    """A mode's rule parameters, explained where a number alone would not do."""
    r = load_rules(mode)
    return {
        "mode": mode,
        "about": translate(f"mode.{mode}.desc", "en"),
        "board": r.board,
        "seats": list(r.allowed_seats) if r.allowed_seats else [r.min_seats, r.max_seats],
        "starting_cash": r.starting_cash,
        "salary": r.salary,
        "start_landing_bonus": r.start_landing_bonus,
        "round_limit": r.round_limit,
        "rent_tax": (
            f"from round {r.rent_tax_start} rising to {r.rent_tax_max_percent} % at round {r.rent_tax_full}"
            if r.rent_tax_start
            else "none"
        ),
        "clocks_seconds": {
            "turn": r.turn_seconds,
            "auction_bid": r.auction_seconds,
            "pay_step_at_least": r.pay_step_min_seconds,
            "trade_offer": r.trade_seconds,
        },
        "missed_turns_forfeit": r.missed_turns_forfeit,
        "auction": (
            f"round robin; the opening bid is the price, each raise exactly {r.auction_step} above the "
            "current bid (no other amount); a pass is final"
        ),
        "building": {
            "max_level": r.max_level,
            "even_building": r.even_building,
            "sell_back_percent": r.sell_back_percent,
            "one_level_per_street_per_turn": True,
        },
        "mortgage": {"redemption_percent": r.redemption_percent, "expires_after_rounds": r.mortgage_expiry_rounds},
        "jail_bail": r.jail_bail,
        "corner_20": r.corner_20,
        "jackpot": (
            {
                "stake": r.jackpot_stake,
                "payout_multiplier_by_numbers_chosen": list(r.jackpot_multipliers),
                "bet": 'choose 1-3 different numbers from 1-6: {"type": "jackpot_bet", "numbers": [2, 5]}',
            }
            if r.corner_20 == "jackpot"
            else None
        ),
        "trades": {
            "max_open_offers": r.max_open_trades,
            "fairness": (
                f"the smaller side must be worth at least {r.trade_fairness_percent} % of the larger "
                "(both underpaying and overpaying can fail)"
                + ("; teammates are exempt" if r.teams else "")
            ),
            "value": "cash at face value; a company at its price, mortgaged: price minus its redemption cost "
            f"(redemption = {r.redemption_percent} % of the mortgage value)",
            "only": "companies without buildings in their colour group",
        },
        "third_die_from_round": r.third_die_from_round,
        "teams": r.teams,
        "murabaha": r.murabaha,
        "gods": r.gods,
    }


def rules_for(mode: str | None) -> JSON:
    """What ``get_rules`` answers: the mode's rules and its board (every mode's line without a mode)."""
    if mode is None:
        return {"modes": [mode_line(m) for m in MODES], "boards": sorted({load_rules(m).board for m in MODES})}
    rules = mode_data(mode)
    return {"rules": rules, "board": board_data(str(rules["board"]))}
