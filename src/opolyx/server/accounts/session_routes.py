"""HTTP routes of guest sessions: start one (a nickname and a language), ask who is signed in, sign out.

The token is handed over here (``session_answer``): as an HttpOnly cookie to browsers, in the body to
clients that ask for it. Signing in by e-mail link answers the same way (:mod:`.routes`).
"""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request, Response

from opolyx.protocol.models import SessionIn, SessionOut, UserOut
from opolyx.server.accounts import sessions
from opolyx.server.accounts.identity import new_user_id, request_token
from opolyx.server.http.deps import (
    ERRORS,
    MaybeSessionUser,
    MaybeUser,
    Services,
    Svc,
    User,
    client_address,
    rate_limit,
)
from opolyx.server.moderation.enforcement import refuse_banned
from opolyx.storage import SessionRecord, UserRecord

router = APIRouter(responses=ERRORS)

# Name of the readable cookie that says "this browser has (had) a session"; see session_answer.
SIGNED_IN_HINT = "opolyx_signed_in"


async def user_out(svc: Services, user: UserRecord) -> UserOut:
    room = await svc.store.active_room_of(user.id)
    return UserOut(
        id=user.id,
        nickname=user.nickname,
        language=user.language,  # type: ignore[arg-type]
        guest=user.email is None,
        room=room,
        avatar=user.avatar,
        level=user.level,
        xp=user.xp,
    )




@router.post("/api/session", tags=["session"])
async def start_session(
    body: SessionIn, request: Request, response: Response, svc: Svc, user: MaybeSessionUser
) -> SessionOut:
    """Play as a guest: a nickname and a language give a signed, HttpOnly session cookie. Clients
    without a cookie jar add ``"token": true`` to get the same value back for ``Authorization: Bearer``."""
    await rate_limit(svc, "session", request)
    if user is None:
        await refuse_banned(svc.store, address=client_address(request))
        user = await svc.store.create_user(new_user_id(), body.nickname, body.language)
        token, _ = await sessions.open_session(
            svc.store, svc.signer, user.id, user_agent=request.headers.get("user-agent")
        )
    else:
        user = await svc.store.update_user(user.id, nickname=body.nickname, language=body.language)
        token = str(request_token(request.cookies, request.headers, svc.settings.session_cookie))
    return session_answer(svc, request, response, token, await user_out(svc, user), include_token=body.token)


def session_answer(
    svc: Services, request: Request, response: Response, token: str, out: UserOut, *, include_token: bool
) -> SessionOut:
    """Hand the session token to the browser (HttpOnly cookie) and, when asked, to other clients (body)."""
    response.set_cookie(
        svc.settings.session_cookie,
        token,
        max_age=svc.settings.session_max_age_days * 86400,
        httponly=True,
        samesite=svc.settings.cookie_samesite,
        secure=cookie_secure(svc, request),
    )
    # A hint the page may read (it holds no secret): a session cookie may exist, so asking who is signed in
    # is worth a request. Without it a first visit asks nothing, and logs no 401.
    response.set_cookie(
        SIGNED_IN_HINT,
        "1",
        max_age=svc.settings.session_max_age_days * 86400,
        samesite=svc.settings.cookie_samesite,
        secure=cookie_secure(svc, request),
    )
    if not request.cookies.get(sessions.DEVICE_COOKIE):
        # A random name for this browser that outlives its sessions: two seats played from one device
        # are one person (docs/accounts.md, "Against farming"). It says nothing else about anyone.
        response.set_cookie(
            sessions.DEVICE_COOKIE,
            secrets.token_urlsafe(18),
            max_age=400 * 86400,
            httponly=True,
            samesite=svc.settings.cookie_samesite,
            secure=cookie_secure(svc, request),
        )
    return SessionOut(user=out, token=token if include_token else None)


@router.get("/api/session", tags=["session"])
async def who_am_i(user: User, svc: Svc) -> UserOut:
    return await user_out(svc, user)


@router.delete("/api/session", tags=["session"], status_code=204)
async def end_session(svc: Svc, request: Request, user: MaybeUser) -> Response:
    """Sign out: the session record is revoked, so the token stops working everywhere at once."""
    session: SessionRecord | None = getattr(request.state, "session", None)
    if user is not None and session is not None:
        await svc.store.revoke_sessions(user.id, only=session.id)
        sessions.close_sockets(svc.rooms, user.id, only=session.id)
    response = Response(status_code=204)
    response.delete_cookie(SIGNED_IN_HINT, samesite=svc.settings.cookie_samesite, secure=cookie_secure(svc, request))
    response.delete_cookie(
        svc.settings.session_cookie,
        httponly=True,
        samesite=svc.settings.cookie_samesite,
        secure=cookie_secure(svc, request),
    )
    return response


def cookie_secure(svc: Services, request: Request) -> bool:
    """Secure when configured so, else when this request came over https (as uvicorn's proxy headers
    tell it behind a TLS-terminating proxy)."""
    configured = svc.settings.cookie_secure
    return configured if configured is not None else request.url.scheme == "https"


