"""Personal API keys: how an outside program (an AI agent) plays as the person who made the key.

A key is shown once, when it is made; the server keeps only its SHA-256 digest (keys are long random
strings, so a plain digest cannot be reversed by guessing). A request or socket that presents a key as
``Authorization: Bearer <key>`` is its owner, marked as an agent: seats it takes are shown as an
agent's to the table and the lobby. Keys are managed with a session, never with a key, so a leaked key
cannot mint more keys or hide itself.
"""

from __future__ import annotations

import hashlib

from opolyx.server.accounts import sessions
from opolyx.server.accounts.identity import SessionSigner
from opolyx.storage import Store, UserRecord

# Every key starts with this, so a server (and a person reading a config file) can tell it from a
# session token at a glance.
KEY_PREFIX = "opx_"
# More live keys than this per person is a mistake or abuse; revoke some first.
MAX_KEYS_PER_USER = 20




def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def is_api_key(token: str | None) -> bool:
    return bool(token) and str(token).startswith(KEY_PREFIX)


async def user_for_key(store: Store, key: str) -> UserRecord | None:
    """The owner of a live key (marked as an agent), or None for an unknown or revoked key."""
    return await store.user_by_api_key(key_digest(key))


async def authenticate(store: Store, signer: SessionSigner, token: str | None) -> UserRecord | None:
    """Who a bearer token names: a personal API key (an agent), else a signed session."""
    if not token:
        return None
    if is_api_key(token):
        return await user_for_key(store, token)
    found = await sessions.resolve(store, signer, token)
    return found[0] if found else None
