"""HTTP routes of personal API keys: make one (shown once), list them, revoke one.

Keys are managed with a session, never with a key, so a leaked key cannot mint more keys or hide itself
(what a key is and how it is checked: :mod:`opolyx.server.accounts.apikeys`).
"""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request, Response

from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.protocol.models import KeyIn, KeyOut, NewKeyOut
from opolyx.server.accounts.apikeys import KEY_PREFIX, MAX_KEYS_PER_USER, key_digest
from opolyx.server.http.deps import ERRORS, KeyId, Svc, User, rate_limit
from opolyx.storage import ApiKeyRecord, UserRecord

router = APIRouter(responses=ERRORS)


def _key_out(record: ApiKeyRecord) -> KeyOut:
    return KeyOut(id=record.id, label=record.label, created_at=record.created_at, last_used_at=record.last_used_at)


def _session_only(user: UserRecord) -> None:
    if user.agent:
        raise ApiError(403, E.KEYS_NEED_SESSION, "API keys are managed with a session, not with a key")


@router.post("/api/keys", tags=["keys"], status_code=201)
async def create_key(body: KeyIn, request: Request, svc: Svc, user: User) -> NewKeyOut:
    """Make a personal API key for an agent that plays as you. The key is in this answer only."""
    _session_only(user)
    await rate_limit(svc, "session", request, user)
    if len(await svc.store.list_api_keys(user.id)) >= MAX_KEYS_PER_USER:
        raise ApiError(409, E.TOO_MANY_KEYS, f"at most {MAX_KEYS_PER_USER} keys; revoke one first")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    record = await svc.store.create_api_key(secrets.token_hex(8), user.id, body.label, key_digest(key))
    return NewKeyOut(id=record.id, label=record.label, key=key, created_at=record.created_at)


@router.get("/api/keys", tags=["keys"])
async def list_keys(svc: Svc, user: User) -> list[KeyOut]:
    """Your keys that still work (never the keys themselves)."""
    _session_only(user)
    return [_key_out(k) for k in await svc.store.list_api_keys(user.id)]


@router.delete("/api/keys/{key_id}", tags=["keys"], status_code=204)
async def revoke_key(key_id: KeyId, svc: Svc, user: User) -> Response:
    """Revoke a key: from now on it is refused, on HTTP and on new sockets."""
    _session_only(user)
    if not await svc.store.revoke_api_key(user.id, key_id):
        raise ApiError(404, E.KEY_NOT_FOUND, f"you have no key {key_id}")
    # Sockets of the key close now, on every process; reconnecting with it is refused (4401).
    svc.rooms.close_user_sockets(user.id, key=key_id)
    return Response(status_code=204)
