"""The one place where the server asks a bot for a move.

When ``opolyx.bots.make_bot`` exists it decides; until then (and whenever a bot fails) a plain
fallback picks a safe legal action, so rooms with bots always make progress.
"""

from __future__ import annotations

import importlib
import logging
import random
from typing import Any

from opolyx.server.engine_api import JSON, GameLike

log = logging.getLogger(__name__)

# Actions a fallback bot takes, best first; the rest of the vocabulary is never chosen by it
# (propose_trade, resign, bid: they would only lengthen or end games for no reason).
_PREFERENCE = (
    "decline_trade",
    "roll",
    "pay",
    "buy",
    "pass",
    "decline",
    "jackpot_decline",
    "choose_bus",
    "teleport",
    "jail_roll",
    "pay_bail",
    "sell",
    "mortgage",
    "declare_bankruptcy",
)
_NEVER = {"propose_trade", "resign", "timeout", "accept_trade"}


def _make_bot() -> Any | None:
    try:
        module = importlib.import_module("opolyx.bots")
    except ImportError:
        return None
    return getattr(module, "make_bot", None)


def fallback_action(legal: list[JSON], rng: random.Random) -> JSON | None:
    if not legal:
        return None
    by_type: dict[str, list[JSON]] = {}
    for action in legal:
        by_type.setdefault(str(action.get("type")), []).append(action)
    for kind in _PREFERENCE:
        if kind in by_type:
            return rng.choice(by_type[kind])
    rest = [a for a in legal if a.get("type") not in _NEVER]
    if rest:
        return rng.choice(rest)
    resign = by_type.get("resign")
    return resign[0] if resign else None


def choose_bot_action(game: GameLike, seat: int, strength: str, rng: random.Random) -> JSON | None:
    """Return the bot's action for ``seat`` (None when it has nothing to do)."""
    make_bot = _make_bot()
    if make_bot is not None:
        try:
            action = make_bot(strength, rng.randrange(2**31)).choose(game, seat)
            if isinstance(action, dict):
                return action
        except Exception:  # a broken bot must not stall the table
            log.exception("bot %s failed for seat %s; using the fallback", strength, seat)
    return fallback_action(game.legal_actions(seat), rng)
