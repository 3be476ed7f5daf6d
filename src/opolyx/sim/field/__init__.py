"""A field of outside-style opponents: strategies from the Monopoly strategy literature and from other
simulators, written the way an outside bot author would write them — from the legal-action list and the
public state only, with none of our bots' valuations.

They exist to measure our bots in a league, never to play people: no room offers them. They ship with the
simulator so that ``opolyx simulate --league --field opolyx.sim.field`` runs from any directory.

Every strategy is a factory ``seed -> bot``; :data:`STRATEGIES` names them for the league.
"""

from __future__ import annotations

from collections.abc import Callable

from opolyx.sim.field.strategies import (
    AggressiveTrader,
    AuctionShark,
    BuyEverythingBuilder,
    CashHoarder,
    ColourFocused,
    FieldBot,
    JailSitter,
    JailStayer,
    Loner,
    TradeHappy,
)

STRATEGIES: dict[str, Callable[[int], FieldBot]] = {
    "builder": BuyEverythingBuilder,
    "colour": ColourFocused,
    "hoarder": CashHoarder,
    "shark": AuctionShark,
    "trader": TradeHappy,
    "jailer": JailStayer,
    "loner": Loner,
    "sitter": JailSitter,
    "aggressive": AggressiveTrader,
}

__all__ = ["STRATEGIES", "FieldBot"]
