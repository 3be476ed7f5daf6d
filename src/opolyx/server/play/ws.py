"""The room WebSocket: parse untrusted frames once, at the edge, into coded errors or hub calls.

No frame, however broken, may take down the room or the server: every failure here becomes an error
frame for the sender alone, and the game is untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError

from opolyx.protocol import errors as E
from opolyx.protocol.errors import ActionRefused, ApiError
from opolyx.protocol.models import ACTION_MODELS, CLIENT_FRAMES, SYSTEM_ACTIONS, ActionFrame, ChatFrame
from opolyx.protocol.text import text_code
from opolyx.server.accounts import sessions
from opolyx.server.accounts.apikeys import is_api_key, user_for_key
from opolyx.server.accounts.identity import request_token
from opolyx.server.http.deps import Services, valid_id
from opolyx.server.http.metrics import ServerMetrics
from opolyx.server.http.ratelimit import RateLimiter
from opolyx.server.http.transport import SOCKET_PROTOCOL, RoomSocketProtocol
from opolyx.server.moderation.enforcement import refuse_banned
from opolyx.server.play.hub import RoomHub
from opolyx.server.play.peers import Connection, Peer
from opolyx.server.settings import Settings
from opolyx.storage import UserRecord

log = logging.getLogger(__name__)

router = APIRouter()

# Closing codes (4000-4999 are the application's own).
CLOSE_NOT_AUTHENTICATED = 4401
CLOSE_ROOM_NOT_FOUND = 4404
CLOSE_TOO_MANY_SOCKETS = 4429
CLOSE_BANNED = 4403
CLOSE_FLOOD = 1008
# After this many refused frames for flooding, the connection is dropped.
FLOOD_STRIKES = 50


def _error(
    code: str, message: str, ref: Any = None, reason: str | None = None, data: dict[str, Any] | None = None
) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message, "ref": ref}
    if reason is not None:
        frame["reason"] = reason
    if data is not None:
        frame["data"] = data
    return frame


def _ref_of(raw: str | bytes | None, limit: int) -> Any:
    """The ``ref`` of a frame refused before it is handled (None when it has none or is not JSON)."""
    if raw is None or len(raw) > limit:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return _clean_ref(data.get("ref") if isinstance(data, dict) else None)


def _clean_ref(ref: Any) -> Any:
    """A ``ref`` that can be echoed: a number, or text that is valid Unicode (JSON may spell a lone
    surrogate, ``"\\ud800"``, which no encoder writes back)."""
    if isinstance(ref, int):
        return ref
    return ref if isinstance(ref, str) and _valid_text(ref) else None


def _valid_text(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


class _LogThrottle:
    """At most one log record per ``interval`` seconds for failures a client could trigger again and
    again; the ones left out are counted in the next record."""

    def __init__(self, interval: float = 60.0) -> None:
        self.interval = interval
        self.last = -interval
        self.skipped = 0

    def allow(self) -> int | None:
        """None to stay silent; else how many were left out since the last record."""
        now = time.monotonic()
        if now - self.last < self.interval:
            self.skipped += 1
            return None
        self.last, skipped, self.skipped = now, self.skipped, 0
        return skipped


_failures = _LogThrottle()


async def _user(ws: WebSocket, svc: Services) -> tuple[UserRecord, str | None] | None:
    """Who opens the socket, and through which session record (None for an API key), so that signing
    that session out can close the socket too (sessions.close_sockets)."""
    token = request_token(ws.cookies, ws.headers, svc.settings.session_cookie)
    if token is not None and is_api_key(token):
        user = await user_for_key(svc.store, token)
        return None if user is None else (user, None)
    found = await sessions.resolve(svc.store, svc.signer, token)
    return None if found is None else (found[0], found[1].id)


async def _handed_to_owner(ws: WebSocket, svc: Services, room_id: str) -> bool:
    """Whether the socket went, unanswered, to the process on this machine that owns its room
    (handoff.py), which then serves it from the handshake on as if it had accepted it."""
    handoff = svc.handoff
    proto = ws.scope.get("extensions", {}).get(SOCKET_PROTOCOL)
    if handoff is None or not isinstance(proto, RoomSocketProtocol):
        return False
    handoff.learn(proto)
    if proto.adopted or not valid_id(room_id):
        return False
    owner = await svc.rooms.owner_elsewhere(room_id)
    return owner is not None and await handoff.offer(owner, proto)


@router.websocket("/ws/rooms/{room_id}")
async def room_socket(ws: WebSocket, room_id: str) -> None:
    svc: Services = ws.app.state.services
    if await _handed_to_owner(ws, svc, room_id):
        return
    await ws.accept()
    who = await _user(ws, svc)
    if who is None:
        await ws.send_text(json.dumps(_error(E.NOT_AUTHENTICATED, "start a guest session first")))
        await ws.close(code=CLOSE_NOT_AUTHENTICATED)
        return
    user, session_id = who
    address = ws.client.host if ws.client else "unknown"
    try:
        await refuse_banned(svc.store, user_id=user.id, address=address)
    except ApiError as exc:
        await ws.send_text(json.dumps(_error(exc.code, exc.message)))
        await ws.close(code=CLOSE_BANNED)
        return
    keys = (f"user:{user.id}", f"addr:{address}")
    # Rate limits are per session and per address too, so opening more sockets buys no allowance;
    # and how many sockets one may hold is capped.
    too_many = svc.sockets.open(keys, (svc.settings.max_sockets_per_user, svc.settings.max_sockets_per_address))
    if too_many:
        svc.sockets.close(keys)
        await ws.send_text(json.dumps(_error(E.TOO_MANY_SOCKETS, too_many)))
        await ws.close(code=CLOSE_TOO_MANY_SOCKETS)
        return
    try:
        await _serve(ws, svc, room_id, user, address, session_id)
    finally:
        svc.sockets.close(keys)


async def _serve(
    ws: WebSocket, svc: Services, room_id: str, user: UserRecord, address: str, session_id: str | None
) -> None:
    conn = Connection(ws, user, address, svc.settings.send_queue_limit)
    conn.session_id = session_id
    conn.device = (ws.cookies.get(sessions.DEVICE_COOKIE) or "")[:64] or None
    conn.wants_changes = ws.query_params.get("game") == "changes"
    if not valid_id(room_id):
        await ws.send_text(json.dumps(_error(E.ROOM_NOT_FOUND, "no such room")))
        await ws.close(code=CLOSE_ROOM_NOT_FOUND)
        return
    # The room may live in this process or (with a cluster) in another one; svc.rooms routes. Private
    # rooms answer like missing ones to those who have neither a seat nor the code.
    if not await svc.rooms.attach(room_id, conn):
        await ws.send_text(json.dumps(_error(E.ROOM_NOT_FOUND, f"no room {room_id}")))
        await ws.close(code=CLOSE_ROOM_NOT_FOUND)
        return
    writer = asyncio.create_task(conn.writer())
    strikes = 0
    limit = svc.settings.max_frame_bytes
    svc.metrics.connections.inc()
    try:
        while not conn.closed:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes")
            if not svc.limiter.allow("ws", f"conn:{conn.id}", f"user:{user.id}"):
                strikes += 1
                # Answered like any refusal, with the request's ref (its sender waits for it), at most
                # FLOOD_STRIKES times before the socket is closed.
                conn.send(_error(E.RATE_LIMITED, "too many frames; slow down", _ref_of(raw, limit)))
                if strikes >= FLOOD_STRIKES:
                    conn.close(CLOSE_FLOOD)
                    break
                continue
            # Checked here, before a frame can travel anywhere (to the room's owner in a cluster).
            if raw is not None and len(raw) > limit:
                conn.send(_error(E.FRAME_TOO_LARGE, f"frames are limited to {limit} bytes"))
                continue
            await svc.rooms.frame(room_id, conn, raw)
    except Exception:
        # A broken socket is the normal end of a connection; anything else is logged, never raised.
        log.debug("websocket of %s in room %s ended", user.id, room_id, exc_info=True)
    finally:
        svc.metrics.connections.dec()
        hub = await svc.rooms.detach(room_id, conn)
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=5)
        if hub is not None:
            svc.rooms.forget_if_idle(hub)


@dataclass(frozen=True)
class FrameHandler:
    """How a frame from a socket is handled once it reaches its room's hub (the room service calls it for
    this process's sockets and for those of other processes): built by the app, handed to the room service."""

    settings: Settings
    limiter: RateLimiter
    metrics: ServerMetrics

    async def __call__(self, hub: RoomHub, conn: Peer, raw: str | bytes | None) -> None:
        await handle_frame(self, hub, conn, raw)


async def handle_frame(svc: FrameHandler, hub: RoomHub, conn: Peer, raw: str | bytes | None) -> None:
    try:
        await _handle_frame(svc, hub, conn, raw)
    except Exception:
        # Last line: whatever slipped through is this frame's problem only; the socket stays open. A
        # client could repeat it at will, so it is logged at most once a minute.
        _log_failure("frame failed in room %s", hub.room.id)
        ref = _ref_of(raw, svc.settings.max_frame_bytes)
        with contextlib.suppress(Exception):
            conn.send(_error(E.INTERNAL, "the server could not handle this frame", ref))


def _log_failure(message: str, *args: object) -> None:
    skipped = _failures.allow()
    if skipped is not None:
        log.error(message + " (%d more not logged)", *args, skipped, exc_info=True)


async def _handle_frame(svc: FrameHandler, hub: RoomHub, conn: Peer, raw: str | bytes | None) -> None:
    received = time.perf_counter()
    size = len(raw) if raw is not None else 0
    if raw is None or size == 0:
        conn.send(_error(E.BAD_MESSAGE, "empty frame"))
        return
    if size > svc.settings.max_frame_bytes:
        conn.send(_error(E.FRAME_TOO_LARGE, f"frames are limited to {svc.settings.max_frame_bytes} bytes"))
        return
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested thousands deep
        conn.send(_error(E.BAD_JSON, "the frame is not valid JSON"))
        return
    if not isinstance(data, dict):
        conn.send(_error(E.BAD_MESSAGE, "a frame is a JSON object with a 'type'"))
        return
    given = data.get("ref")
    if isinstance(given, str) and not _valid_text(given):
        # The ref is echoed as it came, so it must be writable; other text fields are judged by their
        # validators (chat: invalid_text).
        conn.send(_error(E.BAD_MESSAGE, "'ref' is not valid Unicode text (a lone surrogate)"))
        return
    ref = _clean_ref(given)
    kind = data.get("type")
    model = CLIENT_FRAMES.get(kind) if isinstance(kind, str) else None
    if model is None:
        conn.send(_error(E.UNKNOWN_TYPE, f"unknown frame type {kind!r}", ref))
        return
    if kind == "action":
        action = data.get("action")
        if not isinstance(action, dict):
            conn.send(_error(E.BAD_ACTION, "'action' must be an object with a 'type'", ref))
            return
        atype = action.get("type")
        if atype in SYSTEM_ACTIONS:
            conn.send(_error(E.FORBIDDEN_ACTION, f"{atype!r} is sent only by the server's clock", ref))
            return
        if not isinstance(atype, str) or atype not in ACTION_MODELS:
            conn.send(_error(E.UNKNOWN_ACTION, f"unknown action type {atype!r}", ref))
            return
    try:
        frame = model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        code = text_code(first["type"]) or (E.BAD_ACTION if kind == "action" else E.BAD_MESSAGE)
        conn.send(_error(code, f"{where}: {first['msg']}", ref))
        return
    except RecursionError:
        conn.send(_error(E.BAD_MESSAGE, "the frame is nested too deeply", ref))
        return
    try:
        if isinstance(frame, ActionFrame):
            action_dict = frame.action.model_dump(mode="json", exclude_none=True)
            await hub.submit(conn, action_dict, ref=frame.ref, seq=frame.seq, seat=frame.seat)
            svc.metrics.action_latency.observe(time.perf_counter() - received)
        elif isinstance(frame, ChatFrame):
            user_key = f"user:{conn.user.id}"
            if not await svc.limiter.take("chat", user_key, f"addr:{conn.address}"):
                raise ActionRefused(E.RATE_LIMITED, "too many chat messages; slow down")
            await hub.chat(conn, frame.text)
        elif kind == "more_time":
            await hub.more_time(conn, ref)
        elif kind == "sync":
            # A snapshot is thousands of times larger than the request: limited per session too.
            if not await svc.limiter.take("sync", f"user:{conn.user.id}", f"addr:{conn.address}"):
                raise ActionRefused(E.RATE_LIMITED, "too many sync requests; slow down")
            await hub.send_snapshot(conn, ref)
        else:
            conn.send({"type": "pong", "ref": ref})
    except ActionRefused as exc:
        conn.send(_error(exc.code, exc.message, ref, exc.reason, exc.data))
    except ApiError as exc:
        conn.send(_error(exc.code, exc.message, ref))
    except Exception:
        _log_failure("frame %r failed in room %s", kind, hub.room.id)
        conn.send(_error(E.INTERNAL, "the server could not handle this frame", ref))
