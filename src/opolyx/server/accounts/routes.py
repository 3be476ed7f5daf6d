"""HTTP routes of accounts: e-mailed sign-in links, session records, profile, leaderboard.

See docs/accounts.md for what is stored and why, and docs/protocol.md for the error codes.
"""

from __future__ import annotations

import logging
import secrets
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response

from opolyx.progression import is_vip, load_progression, merged, rank_for, xp_for_level
from opolyx.server import errors as E
from opolyx.server.accounts import sessions
from opolyx.server.accounts.identity import new_user_id
from opolyx.server.accounts.mailer import Mailer
from opolyx.server.accounts.models import (
    LeaderboardOut,
    LeaderRowOut,
    LinkIn,
    LinkOut,
    LinkVerifyIn,
    ProfileIn,
    ProfileOut,
    RecentGameOut,
    RevokedOut,
    SessionInfoOut,
)
from opolyx.server.accounts.session_routes import SIGNED_IN_HINT, session_answer, user_out
from opolyx.server.errors import ApiError
from opolyx.server.http.deps import ERRORS, MaybeUser, SessionUser, Svc, rate_limit
from opolyx.server.protocol import CardDropOut, SessionOut
from opolyx.server.text import clean_nickname
from opolyx.storage import LeaderRow, SessionRecord, UserRecord
from opolyx.storage.accounts import LINK_EXPIRED, LINK_USED

log = logging.getLogger("opolyx.accounts")

router = APIRouter(responses=ERRORS)


def _nickname_from(email: str) -> str:
    """A first nickname for an account made by its link: the address's local part, when it is a valid name."""
    try:
        return clean_nickname(email.split("@", 1)[0][:24])
    except ValueError:
        return "player"


def _now() -> datetime:
    return datetime.now(UTC)


def _session(request: Request) -> SessionRecord | None:
    session: SessionRecord | None = getattr(request.state, "session", None)
    return session


# --- sign-in links -----------------------------------------------------------------------------------------


@router.post("/api/auth/link", tags=["accounts"], status_code=202)
async def request_link(body: LinkIn, request: Request, svc: Svc, user: MaybeUser) -> LinkOut:
    """Mail a single-use sign-in link (valid for 15 minutes). The answer is the same whether or not
    the address has an account; requests are limited per address and per e-mail."""
    await rate_limit(svc, "magic", request)
    if not await svc.limiter.take("magic", f"email:{body.email}"):
        raise ApiError(429, E.RATE_LIMITED, "too many sign-in links asked for this address; wait a little")
    secret = secrets.token_urlsafe(32)
    await svc.store.create_magic_link(
        sessions.token_hash(secret),
        body.email,
        guest_id=user.id if user is not None and user.email is None else None,
        expires_at=_now() + timedelta(minutes=svc.settings.magic_link_minutes),
    )
    link = f"{svc.settings.site()}#/signin/{secret}"
    try:
        await Mailer(svc.settings).send_sign_in_link(body.email, link, body.language)
    except Exception as exc:
        log.exception("could not send the sign-in link")
        raise ApiError(503, E.MAIL_UNAVAILABLE, "the sign-in mail could not be sent; try again later") from exc
    return LinkOut()


@router.post("/api/auth/verify", tags=["accounts"])
async def verify_link(
    body: LinkVerifyIn, request: Request, response: Response, svc: Svc, user: MaybeUser
) -> SessionOut:
    """Open a mailed link: signs this browser in. A guest's games, XP and cards move to the account."""
    store = svc.store
    digest = sessions.token_hash(body.token)
    link = await store.peek_magic_link(digest, _now())
    account_id = await store.user_by_email(link.email) if link is not None else None
    guest = user if user is not None and user.email is None else None
    if guest is None and link is not None and link.guest_id is not None:
        asked_by = await store.get_user(link.guest_id)
        guest = asked_by if asked_by is not None and asked_by.email is None else None
    # Both sitting in an unfinished game: one person may hold only one seat (SPEC.md 1).
    if (
        guest is not None
        and account_id is not None
        and guest.id != account_id
        and await store.active_room_of(guest.id)
        and await store.active_room_of(account_id)
    ):
        raise ApiError(409, E.MERGE_BLOCKED, "finish or leave the game you play as a guest, then open the link again")
    used = await store.consume_magic_link(digest, _now())
    if isinstance(used, str):
        code, text = {
            LINK_USED: (E.LINK_USED, "this sign-in link was already used; ask for a new one"),
            LINK_EXPIRED: (E.LINK_EXPIRED, "this sign-in link has expired; ask for a new one"),
        }.get(used, (E.LINK_INVALID, "this sign-in link is not valid"))
        raise ApiError(400, code, text)
    account_id = await store.user_by_email(used.email)
    if account_id is None:
        if guest is not None:
            await store.attach_email(guest.id, used.email)
            account_id = guest.id
        else:
            nickname = _nickname_from(used.email)
            created = await store.create_user(new_user_id(), nickname, user.language if user else "en")
            await store.attach_email(created.id, used.email)
            account_id = created.id
    elif guest is not None and guest.id != account_id:
        await store.merge_user(guest.id, account_id, merged)
    account = await store.get_user(account_id)
    assert account is not None
    token, _ = await sessions.open_session(store, svc.signer, account.id, user_agent=request.headers.get("user-agent"))
    replaced = _session(request)
    if user is not None and replaced is not None:
        # This browser's guest session gives way to the new one (it is not "another device").
        await store.revoke_sessions(replaced.user_id, only=replaced.id)
    out = await user_out(svc, account)
    return session_answer(svc, request, response, token, out, include_token=body.session_token)


# --- sessions ----------------------------------------------------------------------------------------------


@router.get("/api/sessions", tags=["accounts"])
async def list_sessions(request: Request, svc: Svc, user: SessionUser) -> list[SessionInfoOut]:
    """Where you are signed in."""
    current = _session(request)
    return [
        SessionInfoOut(
            id=s.id,
            user_agent=s.user_agent,
            created_at=s.created_at,
            last_seen_at=s.last_seen_at,
            current=current is not None and s.id == current.id,
        )
        for s in await svc.store.list_sessions(user.id, _now())
    ]


@router.delete("/api/sessions/others", tags=["accounts"])
async def sign_out_others(request: Request, svc: Svc, user: SessionUser) -> RevokedOut:
    """Sign out every other browser and device; this one stays signed in."""
    current = _session(request)
    keep = current.id if current else None
    revoked = await svc.store.revoke_sessions(user.id, keep=keep)
    sessions.close_sockets(svc.rooms, user.id, keep=keep)
    return RevokedOut(revoked=revoked)


@router.delete("/api/sessions/{session_id}", tags=["accounts"], status_code=204)
async def sign_out_one(session_id: str, svc: Svc, user: SessionUser) -> Response:
    if await svc.store.revoke_sessions(user.id, only=session_id) != 1:
        raise ApiError(404, E.SESSION_NOT_FOUND, f"no live session {session_id}")
    sessions.close_sockets(svc.rooms, user.id, only=session_id)
    return Response(status_code=204)


# --- profile -----------------------------------------------------------------------------------------------


async def _profile(svc: Svc, user: UserRecord) -> ProfileOut:
    rules = load_progression()
    level = user.level
    return ProfileOut(
        user=await user_out(svc, user),
        email=user.email,
        rank=rank_for(level, rules),
        vip=is_vip(level, rules),
        level_xp=xp_for_level(level, rules),
        next_level_xp=xp_for_level(level + 1, rules) if level < rules.level_cap else None,
        wins=user.wins,
        cards=[CardDropOut.model_validate(c.to_json()) for c in await svc.store.cards_of(user.id)],
        recent_games=[
            RecentGameOut(
                id=g.game_id,
                mode=g.mode,
                finished_at=g.finished_at,
                seat=g.seat,
                place=g.place,
                xp=g.xp,
                players=list(g.players),
                replay=f"/api/games/{g.game_id}/replay?snapshots=true",
            )
            for g in await svc.store.recent_games(user.id)
        ],
    )


@router.get("/api/profile", tags=["accounts"])
async def get_profile(svc: Svc, user: SessionUser) -> ProfileOut:
    """Your level, rank, XP to the next level, cards and recent games."""
    return await _profile(svc, user)


@router.patch("/api/profile", tags=["accounts"])
async def update_profile(body: ProfileIn, svc: Svc, user: SessionUser) -> ProfileOut:
    """Change nickname, avatar (one of the built-in set) or language; omitted fields stay."""
    await svc.store.update_profile(user.id, nickname=body.nickname, avatar=body.avatar, language=body.language)
    fresh = await svc.store.get_user(user.id)
    assert fresh is not None
    return await _profile(svc, fresh)


@router.delete("/api/account", tags=["accounts"], status_code=204)
async def delete_account(svc: Svc, user: SessionUser) -> Response:
    """Delete your account and its personal data (docs/accounts.md lists what goes and what stays)."""
    if await svc.store.active_room_of(user.id):
        raise ApiError(409, E.ALREADY_IN_GAME, "leave or finish your game before deleting the account")
    touched = await svc.store.delete_account(user.id)
    # Every socket of the account closes: those of its sessions, and those of its (now deleted) keys,
    # which also carry the /mcp tables of its agents; the next /mcp call with a key is refused (401).
    svc.rooms.close_user_sockets(user.id)
    await svc.rooms.refresh_names(touched)
    response = Response(status_code=204)
    response.delete_cookie(svc.settings.session_cookie)
    response.delete_cookie(SIGNED_IN_HINT)
    return response


# --- leaderboard -------------------------------------------------------------------------------------------


def week_start(now: datetime) -> datetime:
    """Monday 00:00 UTC of this week."""
    monday = now - timedelta(days=now.weekday())
    return monday.replace(hour=0, minute=0, second=0, microsecond=0)


def _row(r: LeaderRow) -> LeaderRowOut:
    return LeaderRowOut(
        position=r.position, user_id=r.user_id, nickname=r.nickname, avatar=r.avatar, level=r.level, value=r.value
    )


@router.get("/api/leaderboard", tags=["accounts"])
async def leaderboard(
    svc: Svc,
    viewer: MaybeUser,
    by: Literal["xp", "wins"] = "xp",
    period: Literal["all", "week"] = "all",
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> LeaderboardOut:
    """Top players by XP or wins, all time or this week (from Monday 00:00 UTC), with your own place.
    Read from indexed columns, never by scanning games."""
    since = week_start(_now()) if period == "week" else None
    rows, own = await svc.store.leaderboard(by, since=since, limit=limit, viewer=viewer.id if viewer else None)
    return LeaderboardOut(by=by, period=period, rows=[_row(r) for r in rows], you=_row(own) if own else None)
