"""HTTP routes of accounts: e-mailed sign-in links, session records, profile, leaderboard.

See docs/accounts.md for what is stored and why, and docs/protocol.md for the error codes.
"""

from __future__ import annotations

import logging
import secrets
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response

from opolyx.progression import (
    drop_nonce,
    is_vip,
    load_progression,
    merged,
    rank_for,
    seed_commitment,
    xp_for_level,
)
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.protocol.models import CardDropOut, DropSeedCommitment, SessionOut
from opolyx.protocol.text import clean_nickname
from opolyx.server.accounts import sessions
from opolyx.server.accounts.identity import new_user_id
from opolyx.server.accounts.mailer import Mailer
from opolyx.server.accounts.models import (
    LeaderboardOut,
    LeaderRowOut,
    LinkIn,
    LinkOut,
    LinkPeekIn,
    LinkPeekOut,
    LinkVerifyIn,
    ProfileIn,
    ProfileOut,
    RecentGameOut,
    RevokedOut,
    SessionInfoOut,
)
from opolyx.server.accounts.session_routes import SIGNED_IN_HINT, cookie_secure, session_answer, user_out
from opolyx.server.http.deps import (
    ERRORS,
    MaybeSessionUser,
    MaybeUser,
    SessionId,
    SessionUser,
    Svc,
    client_address,
    rate_limit,
)
from opolyx.storage import CardRecord, LeaderRow, SessionRecord, UserRecord
from opolyx.storage.accounts import LINK_EXPIRED, LINK_USED, MagicLinkRecord

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
# A link signs in the browser that asked for it. Asking sets an HttpOnly cookie naming the links this
# browser asked for (signed, so it cannot be made up); a client without cookies is known by its session.
# Anyone else who opens the link (a victim of login CSRF, the owner of an address a stranger typed in)
# is never merged with the asker, and is asked first (409 confirm_sign_in, with POST /api/auth/peek
# telling whose account it is); its own guest moves only when it says so.

REQUESTS_COOKIE = "opolyx_signin"
REQUESTS_KEPT = 5


def _requested_here(svc: Svc, request: Request) -> list[str]:
    max_age = svc.settings.magic_link_minutes * 60
    return svc.signer.signed_links(request.cookies.get(REQUESTS_COOKIE), max_age)


def _requester(svc: Svc, request: Request, user: UserRecord | None, digest: str, link: MagicLinkRecord) -> bool:
    """Whether this browser (its cookie) or this session (its guest) asked for the link."""
    if digest in _requested_here(svc, request):
        return True
    return user is not None and link.guest_id is not None and link.guest_id == user.id


def mask_email(email: str) -> str:
    """a***@example.org: enough to recognise one's own address, not to learn someone else's."""
    local, _, domain = email.partition("@")
    return f"{local[:1]}***@{domain}"


@router.post("/api/auth/link", tags=["accounts"], status_code=202)
async def request_link(
    body: LinkIn, request: Request, response: Response, svc: Svc, user: MaybeSessionUser
) -> LinkOut:
    """Mail a single-use sign-in link (valid for 15 minutes) that signs in this browser. The answer is the
    same whether or not the address has an account; requests are limited per network address and, per
    e-mail address, per asker, so strangers asking for links cannot lock the owner out."""
    await rate_limit(svc, "magic", request)
    asker = f"user:{user.id}" if user is not None else f"addr:{client_address(request)}"
    if not await svc.limiter.take("magic", f"email:{body.email}|{asker}"):
        raise ApiError(429, E.RATE_LIMITED, "too many sign-in links asked for this address; wait a little")
    secret = secrets.token_urlsafe(32)
    digest = sessions.token_hash(secret)
    await svc.store.create_magic_link(
        digest,
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
    kept = [*_requested_here(svc, request), digest][-REQUESTS_KEPT:]
    response.set_cookie(
        REQUESTS_COOKIE,
        svc.signer.sign_links(kept),
        max_age=svc.settings.magic_link_minutes * 60,
        path="/api/auth",
        httponly=True,
        samesite=svc.settings.cookie_samesite,
        secure=cookie_secure(svc, request),
    )
    return LinkOut()


@router.post("/api/auth/peek", tags=["accounts"])
async def peek_link(body: LinkPeekIn, request: Request, svc: Svc, user: MaybeSessionUser) -> LinkPeekOut:
    """Whose account a link opens (masked address, nickname), without using it: what the page shows
    before asking a browser that did not ask for the link whether to sign in."""
    await rate_limit(svc, "session", request)
    digest = sessions.token_hash(body.token)
    link = await svc.store.peek_magic_link(digest, _now())
    if link is None:
        raise ApiError(400, E.LINK_INVALID, "this sign-in link is not valid, used or expired; ask for a new one")
    account_id = await svc.store.user_by_email(link.email)
    account = await svc.store.get_user(account_id) if account_id is not None else None
    guest = user if user is not None and user.email is None else None
    return LinkPeekOut(
        email=mask_email(link.email),
        nickname=account.nickname if account is not None else None,
        requester=_requester(svc, request, user, digest, link),
        guest_moves=guest is not None and guest.id != account_id,
    )


@router.post("/api/auth/verify", tags=["accounts"])
async def verify_link(
    body: LinkVerifyIn, request: Request, response: Response, svc: Svc, user: MaybeSessionUser
) -> SessionOut:
    """Open a mailed link: signs this browser in. This browser's guest (its games, XP, cards, chat and
    seat) moves to the account when this browser asked for the link, or when it confirms (``merge``)."""
    store = svc.store
    digest = sessions.token_hash(body.token)
    link = await store.peek_magic_link(digest, _now())
    account_id = await store.user_by_email(link.email) if link is not None else None
    # Only the opener's own guest can ever move: never the row of whoever asked for the link.
    guest = user if user is not None and user.email is None else None
    if link is not None and (user is None or account_id != user.id):
        if not _requester(svc, request, user, digest, link) and body.merge is None:
            raise ApiError(
                409, E.CONFIRM_SIGN_IN, "this browser did not ask for this link: see whose account it is, then confirm"
            )
        if body.merge is False:
            guest = None
    # Both sitting in an unfinished game: one person may hold only one seat (docs/rules.md §1).
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
    moved_room: str | None = None
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
        moved_room = await store.active_room_of(guest.id)
        await store.merge_user(guest.id, account_id, merged)
        # The guest's sockets belong to a session that just ended; its seat is the account's now.
        sessions.close_sockets(svc.rooms, guest.id)
    account = await store.get_user(account_id)
    assert account is not None
    if moved_room is not None:
        await svc.rooms.reseat(moved_room)
    token, _ = await sessions.open_session(store, svc.signer, account.id, user_agent=request.headers.get("user-agent"))
    replaced = _session(request)
    if user is not None and replaced is not None:
        # This browser's earlier session gives way to the new one (it is not "another device").
        await store.revoke_sessions(replaced.user_id, only=replaced.id)
    out = await user_out(svc, account)
    response.delete_cookie(REQUESTS_COOKIE, path="/api/auth")
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
async def sign_out_one(session_id: SessionId, svc: Svc, user: SessionUser) -> Response:
    if await svc.store.revoke_sessions(user.id, only=session_id) != 1:
        raise ApiError(404, E.SESSION_NOT_FOUND, f"no live session {session_id}")
    sessions.close_sockets(svc.rooms, user.id, only=session_id)
    return Response(status_code=204)


# --- profile -----------------------------------------------------------------------------------------------


def _card_out(card: CardRecord, secret: str) -> CardDropOut:
    """A made drop with its seed revealed and the commitment shown for that seed before the drop."""
    nonce = drop_nonce(secret, card.seed)
    return CardDropOut.model_validate(dict(card.to_json(), nonce=nonce, commitment=seed_commitment(card.seed, nonce)))


async def _profile(svc: Svc, user: UserRecord) -> ProfileOut:
    rules = load_progression()
    level = user.level
    secret = svc.rooms.ctx.secret
    # Commit now, reveal at the drop: only the commitment of the next drops' seed leaves the server.
    seed = await svc.store.next_drop_seed(user.id)
    next_drops = None
    if seed is not None:
        next_drops = DropSeedCommitment(commitment=seed_commitment(seed, drop_nonce(secret, seed)))
    return ProfileOut(
        user=await user_out(svc, user),
        email=user.email,
        rank=rank_for(level, rules),
        vip=is_vip(level, rules, account=user.email is not None),
        level_xp=xp_for_level(level, rules),
        next_level_xp=xp_for_level(level + 1, rules) if level < rules.level_cap else None,
        wins=user.wins,
        cards=[_card_out(c, secret) for c in await svc.store.cards_of(user.id)],
        next_drops=next_drops,
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
    board: Literal["people", "agents"] = "people",
) -> LeaderboardOut:
    """Top players by XP or wins, all time or this week (from Monday 00:00 UTC), with your own place.
    Read from indexed columns, never by scanning games. ``board=agents`` ranks AI agents (seats played
    through API keys) apart from people."""
    since = week_start(_now()) if period == "week" else None
    rows, own = await svc.store.leaderboard(
        by, since=since, limit=limit, viewer=viewer.id if viewer else None, board=board
    )
    return LeaderboardOut(
        by=by, period=period, board=board, rows=[_row(r) for r in rows], you=_row(own) if own else None
    )
