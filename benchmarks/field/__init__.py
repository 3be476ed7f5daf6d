"""A field of outside-style opponents: strategies from the Monopoly strategy literature and from other
simulators, written the way an outside bot author would write them — from the legal-action list and the
public state only, with none of our bots' valuations.

They live here, beside the benchmarks and outside the product package, because they exist to measure our
bots, never to play people. Tests import them as ``benchmarks.field`` (the repository root is on pytest's
path); ``opolyx simulate --league --field benchmarks.field`` loads them by that module path.

Every strategy is a factory ``seed -> bot``; :data:`STRATEGIES` names them for the league.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.field.strategies import (
    AuctionShark,
    BuyEverythingBuilder,
    CashHoarder,
    ColourFocused,
    FieldBot,
    JailStayer,
    TradeHappy,
)

STRATEGIES: dict[str, Callable[[int], FieldBot]] = {
    "builder": BuyEverythingBuilder,
    "colour": ColourFocused,
    "hoarder": CashHoarder,
    "shark": AuctionShark,
    "trader": TradeHappy,
    "jailer": JailStayer,
}

__all__ = ["STRATEGIES", "FieldBot"]
