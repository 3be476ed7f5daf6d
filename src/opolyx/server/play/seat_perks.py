"""The ``seat_info`` a game starts with: each seat's name, bot and team, and what a person's account
brings to it, VIP status and collectible cards.

The engine reads them at the table (Murabaha for VIPs, the cards' rent bonus); the level that makes a VIP
is a progression rule (opolyx.progression.is_vip).
"""

from __future__ import annotations

from collections.abc import Sequence

from opolyx.jsontypes import JSON
from opolyx.progression import is_vip
from opolyx.storage import SeatRecord, Store


async def seat_info(store: Store, mode: str, seats: Sequence[SeatRecord]) -> list[JSON]:
    """What the engine learns about each seat: name, bot, team, and for people their VIP status
    (accounts at level 10+, never guests) and collectible cards (every card; the engine keeps the best per square)."""
    out: list[JSON] = []
    for i, s in enumerate(seats):
        vip, held = False, {}
        if s.user_id is not None and not s.is_bot:
            user = await store.get_user(s.user_id)
            if user is not None:
                vip = is_vip(user.level, account=user.email is not None)
                by_square: dict[str, list[str]] = {}
                for card in await store.cards_of(user.id):
                    by_square.setdefault(str(card.square), []).append(card.rarity)
                held = by_square
        out.append(
            {
                "name": s.name,
                "bot": s.is_bot,
                "team": (i % 2) if mode == "team" else None,
                "vip": vip,
                "cards": held,
            }
        )
    return out
