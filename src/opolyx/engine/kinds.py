"""The numbering of action kinds behind action codes (see ``codes``). Kept apart from ``codes`` so the rule
modules can list codes without importing the modules whose choices ``codes`` decodes."""

from __future__ import annotations

from typing import Final

#: Every action type with a code, in code order: never reorder (codes may be stored by a search).
KINDS: Final[tuple[str, ...]] = (
    "roll", "pay_bail", "jail_roll", "buy", "buy_murabaha", "decline", "jackpot_bet", "jackpot_decline",
    "choose_bus", "teleport", "bid", "pass", "build", "sell", "mortgage", "redeem", "pay_murabaha", "pay",
    "declare_bankruptcy", "accept_trade", "decline_trade", "cancel_trade", "resign",
)
#: A code is ``argument << KIND_BITS | kind``.
KIND_BITS: Final = 5
KIND_MASK: Final = (1 << KIND_BITS) - 1
assert len(KINDS) <= 1 << KIND_BITS

ROLL: Final = KINDS.index("roll")
BUILD: Final = KINDS.index("build")
SELL: Final = KINDS.index("sell")
MORTGAGE: Final = KINDS.index("mortgage")
REDEEM: Final = KINDS.index("redeem")
PAY_MURABAHA: Final = KINDS.index("pay_murabaha")
RESIGN: Final = KINDS.index("resign")
