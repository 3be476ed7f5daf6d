"""What every router takes: the app's services, who is asking, the rate limits, the documented error answers.

Routers import this module and nothing of each other, so the routes of the lobby, the accounts, the
API keys, the end screen and the room socket can be read (and changed) one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, Path, Request

from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.protocol.models import ErrorOut, RoomOut
from opolyx.server.accounts import apikeys, sessions
from opolyx.server.accounts.identity import SessionSigner, request_token
from opolyx.server.cluster.handoff import Handoff
from opolyx.server.http.metrics import ServerMetrics
from opolyx.server.http.ratelimit import RateLimiter, SocketCounter
from opolyx.server.play.hub import RoomHub
from opolyx.server.play.quickplay import QuickPlay
from opolyx.server.play.replays import ReplayCache
from opolyx.server.play.rooms import RoomService
from opolyx.server.settings import Settings
from opolyx.storage import SessionRecord, Store, UserRecord


@dataclass
class Services:
    """What the app holds while it runs (``app.state.services``); built by the app's lifespan."""

    settings: Settings
    store: Store
    signer: SessionSigner
    limiter: RateLimiter
    rooms: RoomService
    replays: ReplayCache
    metrics: ServerMetrics
    sockets: SocketCounter = field(default_factory=SocketCounter)
    # Cluster mode with other processes on this machine: room sockets go to their room's owner.
    handoff: Handoff | None = None
    # Quick play's queue and table-former ("Play now").
    quickplay: QuickPlay | None = None


# The error answers every router documents (their body is always ErrorOut).
ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut},
    403: {"model": ErrorOut},
    404: {"model": ErrorOut},
    409: {"model": ErrorOut},
    422: {"model": ErrorOut},
    429: {"model": ErrorOut},
}


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


Svc = Annotated[Services, Depends(get_services)]


async def optional_auth(request: Request, svc: Svc) -> tuple[UserRecord, SessionRecord] | None:
    """The session record behind the request's token (server-side, so a revoked one is refused)."""
    token = request_token(request.cookies, request.headers, svc.settings.session_cookie)
    if apikeys.is_api_key(token):
        return None
    found = await sessions.resolve(svc.store, svc.signer, token)
    if found is not None:
        request.state.session = found[1]
    return found


async def optional_user(
    request: Request,
    svc: Svc,
    auth: Annotated[tuple[UserRecord, SessionRecord] | None, Depends(optional_auth)],
) -> UserRecord | None:
    """The person behind a session, or behind a personal API key (then marked as an agent)."""
    if auth is not None:
        return auth[0]
    token = request_token(request.cookies, request.headers, svc.settings.session_cookie)
    return await apikeys.authenticate(svc.store, svc.signer, token)


async def current_user(user: Annotated[UserRecord | None, Depends(optional_user)]) -> UserRecord:
    if user is None:
        raise ApiError(401, E.NOT_AUTHENTICATED, "start a guest session first: POST /api/session")
    return user


User = Annotated[UserRecord, Depends(current_user)]


async def session_user(user: User) -> UserRecord:
    """The person behind a *session*: account management (profile, e-mail, sessions, deletion, sign-in
    as a guest) is theirs alone. A personal API key acts at tables only, so a leaked key cannot rename,
    sign out, read the e-mail of, or delete the person who made it (docs/security.md)."""
    if user.agent:
        raise ApiError(403, E.SESSION_REQUIRED, "this needs a session; an API key only plays at tables")
    return user


async def maybe_session_user(user: Annotated[UserRecord | None, Depends(optional_user)]) -> UserRecord | None:
    """``session_user`` for routes that also serve nobody (starting a guest session)."""
    return None if user is None else await session_user(user)


# Account management: a session, never a personal API key.
SessionUser = Annotated[UserRecord, Depends(session_user)]
MaybeUser = Annotated[UserRecord | None, Depends(optional_user)]
MaybeSessionUser = Annotated[UserRecord | None, Depends(maybe_session_user)]


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def rate_limit(svc: Services, kind: str, request: Request, user: UserRecord | None = None) -> None:
    keys = [f"addr:{client_address(request)}"]
    if user is not None:
        keys.append(f"user:{user.id}")
    if not await svc.limiter.take(kind, *keys):
        raise ApiError(429, E.RATE_LIMITED, f"too many {kind} requests; slow down")


def valid_id(value: str) -> bool:
    """Room and game ids are base64url; anything else (NUL, 10 kB of text) is no room, and never reaches
    the database (PostgreSQL refuses NUL with an error, not an empty answer)."""
    return 0 < len(value) <= 32 and ID_CHARS.issuperset(value)


ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


# --- ids in paths ------------------------------------------------------------------------------------------
# Every id a route reads from its path goes through one of these: an id that cannot exist (NUL, 10 kB,
# anything outside base64url) is answered 404 with the route's own "not found" code before any lookup.


def _checked(value: str, code: str, what: str) -> str:
    if not valid_id(value):
        raise ApiError(404, code, f"no such {what}")
    return value


def _room_id(room_id: Annotated[str, Path(description="A room's id (base64url).")]) -> str:
    return _checked(room_id, E.ROOM_NOT_FOUND, "room")


def _game_id(game_id: Annotated[str, Path(description="A game's id (its room's id).")]) -> str:
    return _checked(game_id, E.GAME_NOT_FOUND, "game")


def _key_id(key_id: Annotated[str, Path(description="An API key's id (from GET /api/keys).")]) -> str:
    return _checked(key_id, E.KEY_NOT_FOUND, "key")


def _session_id(session_id: Annotated[str, Path(description="A session's id (from GET /api/sessions).")]) -> str:
    return _checked(session_id, E.SESSION_NOT_FOUND, "session")


RoomId = Annotated[str, Depends(_room_id)]
GameId = Annotated[str, Depends(_game_id)]
KeyId = Annotated[str, Depends(_key_id)]
SessionId = Annotated[str, Depends(_session_id)]


def room_out(hub: RoomHub, viewer: UserRecord | None) -> RoomOut:
    """The room as ``viewer`` sees it, as the lobby routes answer it."""
    return RoomOut.model_validate(hub.room_view(viewer.id if viewer else None))
