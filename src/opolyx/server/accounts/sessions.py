"""Server-side session records behind the signed cookie.

The cookie (or bearer token) carries a signed random secret; the sessions table keeps only its SHA-256,
so signing out, "sign out other sessions" and deleting an account take effect on the next request.
How the token travels (cookie flags, Origin checks) is the transport's business, not this module's.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from opolyx.server.accounts.identity import SessionSigner
from opolyx.server.moderation.enforcement import refuse_banned
from opolyx.storage import SessionRecord, Store, UserRecord

if TYPE_CHECKING:
    from opolyx.server.play.rooms import RoomService

# A long-lived random cookie naming the browser (not the person): seats played from one device are one
# person for XP (opolyx.server.play.measuring).
DEVICE_COOKIE = "opolyx_device"


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


async def open_session(
    store: Store, signer: SessionSigner, user_id: str, *, user_agent: str | None
) -> tuple[str, SessionRecord]:
    """Create a session for ``user_id``; returns the token to hand to the client and the record. A person
    an operator banned gets none (403 ``banned``) until the ban ends."""
    await refuse_banned(store, user_id=user_id)
    secret = secrets.token_urlsafe(32)
    expires = datetime.now(UTC) + timedelta(seconds=signer.max_age)
    record = await store.create_session(
        secrets.token_hex(8), user_id, token_hash(secret), user_agent=user_agent, expires_at=expires
    )
    return signer.sign(secret), record


async def resolve(store: Store, signer: SessionSigner, token: str | None) -> tuple[UserRecord, SessionRecord] | None:
    """The signed-in person and their live session, or None (bad signature, revoked, expired, deleted)."""
    secret = signer.verify(token)
    if secret is None:
        return None
    session = await store.session_by_token(token_hash(secret), datetime.now(UTC))
    if session is None:
        return None
    user = await store.get_user(session.user_id)
    return None if user is None else (user, session)



def close_sockets(rooms: RoomService, user_id: str, *, only: str | None = None, keep: str | None = None) -> None:
    """Close the room sockets of ``user_id``'s revoked sessions, on every process of a cluster: ``only``
    that one, or every one but ``keep`` (both None: all of them). Reconnecting with them is refused (4401)."""
    rooms.close_user_sockets(user_id, sessions_only=True, only=only, keep=keep)
