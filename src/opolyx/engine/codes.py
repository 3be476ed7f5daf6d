"""Actions as compact integer codes: the fast path for simulations and bot look-ahead.

A code is ``argument * 32 + kind``: ``kind`` indexes ``KINDS`` and ``argument`` is the action's one
field — a square, a bid amount, a trade id, or the index of a jackpot choice or a bus use (``0`` for
actions without a field). Codes are plain ints, so a search can keep them in sets, compare and hash them
for free, and ``Game.apply_code`` carries one out with the same rule checks as ``Game.apply`` without the
caller building an action dict. ``propose_trade`` has no code (its offer does not fit in one number) and
``timeout`` is the server's alone.
"""

from __future__ import annotations

from typing import Final

from opolyx.engine.actions import Action
from opolyx.engine.errors import IllegalAction
from opolyx.engine.jackpot import JACKPOT_CHOICES
from opolyx.engine.kinds import KIND_BITS, KIND_MASK, KINDS
from opolyx.engine.speed import BUS_USES

__all__ = ["KINDS", "KIND_BITS", "KIND_MASK", "decode", "encode"]

_KIND_INDEX: Final[dict[str, int]] = {k: i for i, k in enumerate(KINDS)}
#: The field each kind carries, if any.
_FIELD: Final[dict[str, str]] = {
    "teleport": "square", "build": "square", "sell": "square", "mortgage": "square", "redeem": "square",
    "pay_murabaha": "square", "bid": "amount", "accept_trade": "trade", "decline_trade": "trade",
    "cancel_trade": "trade", "jackpot_bet": "numbers", "choose_bus": "use",
}
_JACKPOT_INDEX: Final[dict[tuple[int, ...], int]] = {c: i for i, c in enumerate(JACKPOT_CHOICES)}
_BUS_INDEX: Final[dict[str, int]] = {u: i for i, u in enumerate(BUS_USES)}
#: One shared action per field-less kind, so decoding those builds nothing. Never change them.
_PLAIN: Final[dict[int, Action]] = {i: {"type": k} for i, k in enumerate(KINDS) if k not in _FIELD}


def encode(action: Action) -> int:
    """The code of a (well-formed) action dict, as ``legal_actions`` lists it."""
    kind = action.get("type")
    index = _KIND_INDEX.get(kind) if isinstance(kind, str) else None
    if index is None:
        raise IllegalAction("unknown_action", f"no code for action type {kind!r}")
    field = _FIELD.get(kind) if isinstance(kind, str) else None
    if field is None:
        return index
    value = action.get(field)
    if field == "numbers":
        arg = _JACKPOT_INDEX.get(tuple(sorted(value)) if isinstance(value, list) else ())
    elif field == "use":
        arg = _BUS_INDEX.get(value) if isinstance(value, str) else None
    else:
        arg = value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
    if arg is None:
        raise IllegalAction("bad_code", f"{kind!r} with {field} {value!r} has no code")
    return (arg << KIND_BITS) | index


def decode(code: int) -> Action:
    """The action dict of a code (shared and read-only for field-less kinds)."""
    if not isinstance(code, int) or isinstance(code, bool) or code < 0:
        raise IllegalAction("bad_code", f"no action has code {code!r}")
    index = code & KIND_MASK
    arg = code >> KIND_BITS
    if index >= len(KINDS):
        raise IllegalAction("bad_code", f"no action has code {code!r}")
    plain = _PLAIN.get(index)
    if plain is not None:
        if arg:
            raise IllegalAction("bad_code", f"no action has code {code!r}")
        return plain
    kind = KINDS[index]
    field = _FIELD[kind]
    if field == "numbers":
        if arg >= len(JACKPOT_CHOICES):
            raise IllegalAction("bad_code", f"no action has code {code!r}")
        return {"type": kind, "numbers": list(JACKPOT_CHOICES[arg])}
    if field == "use":
        if arg >= len(BUS_USES):
            raise IllegalAction("bad_code", f"no action has code {code!r}")
        return {"type": kind, "use": BUS_USES[arg]}
    return {"type": kind, field: arg}
