"""The one place where the server asks a bot for a move.

``opolyx.bots.make_bot`` decides; whenever a bot fails (or the engine refuses its move) a plain fallback
picks a safe legal action, so rooms with bots always make progress.
"""

from __future__ import annotations

import logging
import random
from typing import TYPE_CHECKING, cast

from opolyx.bots import make_bot
from opolyx.jsontypes import JSON
from opolyx.server.engine_api import GameLike

if TYPE_CHECKING:
    from opolyx.engine import Game

log = logging.getLogger(__name__)

# Actions a fallback bot takes, best first: the cheapest way to move the game on. Trading and resigning
# (``_NEVER``) would only lengthen or end games for no reason, so it resigns only when nothing else is legal.
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
_NEVER = {"propose_trade", "resign", "accept_trade"}


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
    try:
        # The hub's games come from the real engine, whose ``Game`` the bots read directly.
        return make_bot(strength, rng.randrange(2**31)).choose(cast("Game", game), seat)
    except Exception:  # a broken bot must not stall the table
        log.exception("bot %s failed for seat %s; using the fallback", strength, seat)
    return fallback_action(game.legal_actions(seat), rng)
