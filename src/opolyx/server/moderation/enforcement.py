"""What a sanction does, at once and on every process of a cluster.

A ban of a person revokes their sessions and personal API keys and closes their sockets everywhere
(``RoomService.close_user_sockets``, which posts to every process); new sessions for them are refused
until it ends. A ban of an address closes every socket opened from it, everywhere, and refuses new guest
sessions and sockets from it. A mute (of a person or an address) only keeps them out of the chat.
"""

from __future__ import annotations

from datetime import datetime

from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.storage import Store
from opolyx.storage.moderation import BAN


async def refuse_banned(store: Store, *, user_id: str | None = None, address: str | None = None) -> None:
    """Raise 403 ``banned`` when the person or the address is banned now."""
    found = await store.active_sanction(BAN, user_id=user_id, address=address)
    if found is not None:
        raise ApiError(403, E.BANNED, f"banned until {until_text(found.expires_at)}")


def until_text(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC")
