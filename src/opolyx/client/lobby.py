"""The HTTP half of the protocol: session, lobby, rooms and personal API keys, as typed calls.

Answers are the server's own wire models (``opolyx.protocol.models``), so a field a client reads here
is one the server promises. Authentication is a bearer token: a session token from :meth:`start_guest`
or a personal API key; no cookie jar and no ``Origin`` header are needed.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import httpx

from opolyx.client.errors import OpolyxError
from opolyx.client.room import RoomSocket
from opolyx.engine.vocabulary import Mode
from opolyx.protocol.models import KeyOut, NewKeyOut, RoomList, RoomOut, SessionOut, UserOut
from opolyx.protocol.ranked import QuickPlayOut, RatingsOut


class Client:
    """One identity on one server. Use as ``async with Client(url, token=key) as c: ...``."""

    def __init__(
        self,
        server: str,
        *,
        token: str | None = None,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """``headers`` go with every request and socket handshake (e.g. a relay's ``X-Forwarded-For``)."""
        self.server = server.rstrip("/")
        self.token = token
        self.extra_headers = dict(headers or {})
        self.http = httpx.AsyncClient(base_url=self.server, timeout=timeout, transport=transport)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self.http.aclose()

    # --- plumbing ------------------------------------------------------------------------------------

    def headers(self) -> dict[str, str]:
        auth = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return self.extra_headers | auth

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """Send one call; the decoded answer, or OpolyxError with the server's code."""
        try:
            r = await self.http.request(method, path, json=body, headers=self.headers())
        except httpx.HTTPError as exc:
            raise OpolyxError("connection_lost", f"{method} {path}: {exc}") from exc
        if r.status_code >= 400:
            try:
                data = r.json()
            except ValueError:
                data = {}
            raise OpolyxError(
                str(data.get("code") or f"http_{r.status_code}"),
                str(data.get("message") or r.reason_phrase),
                status=r.status_code,
                room=data.get("room"),
                retry_after=_retry_after(r, data),
            )
        return r.json() if r.content else None

    # --- session -------------------------------------------------------------------------------------

    async def start_guest(self, nickname: str, language: str = "en") -> UserOut:
        """Start (or, with a session token, update) a guest session; later calls use its token."""
        out = SessionOut.model_validate(
            await self.request("POST", "/api/session", {"nickname": nickname, "language": language, "token": True})
        )
        # Asked for explicitly ("token": true): browsers keep the session in an HttpOnly cookie only.
        self.token = out.token
        return out.user

    async def me(self) -> UserOut:
        return UserOut.model_validate(await self.request("GET", "/api/session"))

    # --- personal API keys ---------------------------------------------------------------------------

    async def create_key(self, label: str) -> NewKeyOut:
        """A key for an agent that plays as you (needs a session, not a key); its value is shown once."""
        return NewKeyOut.model_validate(await self.request("POST", "/api/keys", {"label": label}))

    async def keys(self) -> list[KeyOut]:
        return [KeyOut.model_validate(k) for k in await self.request("GET", "/api/keys")]

    async def revoke_key(self, key_id: str) -> None:
        await self.request("DELETE", f"/api/keys/{key_id}")

    # --- lobby ---------------------------------------------------------------------------------------

    async def rooms(self) -> RoomList:
        return RoomList.model_validate(await self.request("GET", "/api/rooms"))

    async def room(self, room_id: str) -> RoomOut:
        return RoomOut.model_validate(await self.request("GET", f"/api/rooms/{room_id}"))

    async def create_room(
        self,
        mode: Mode = "classic",
        seats: int = 4,
        *,
        public: bool = True,
        bots_replace_leavers: bool = False,
        house_rules: dict[str, Any] | None = None,
    ) -> RoomOut:
        """``house_rules``: changes to the mode (GET /api/house-rules); such a room is unrated, pays no XP."""
        body: dict[str, Any] = {"mode": mode, "seats": seats, "public": public,
                                "bots_replace_leavers": bots_replace_leavers}
        if house_rules:
            body["house_rules"] = house_rules
        return RoomOut.model_validate(await self.request("POST", "/api/rooms", body))

    async def join(self, room_id: str, team: int | None = None) -> RoomOut:
        """``team``: in a Team room, a seat on that side (0 or 1)."""
        body = None if team is None else {"team": team}
        return RoomOut.model_validate(await self.request("POST", f"/api/rooms/{room_id}/join", body))

    async def join_code(self, code: str, team: int | None = None) -> RoomOut:
        body: dict[str, Any] = {"code": code} if team is None else {"code": code, "team": team}
        return RoomOut.model_validate(await self.request("POST", "/api/join", body))

    async def choose_team(self, room_id: str, team: int) -> RoomOut:
        """Team rooms, before the start: move yourself to a free seat on that side."""
        return RoomOut.model_validate(await self.request("POST", f"/api/rooms/{room_id}/team", {"team": team}))

    async def shuffle_teams(self, room_id: str) -> RoomOut:
        """Creator only: deal everyone seated to random sides."""
        return RoomOut.model_validate(await self.request("POST", f"/api/rooms/{room_id}/shuffle"))

    async def set_house_rules(self, room_id: str, house_rules: dict[str, Any] | None) -> RoomOut:
        """Creator only, before the start (None: the standard mode)."""
        return RoomOut.model_validate(
            await self.request("PUT", f"/api/rooms/{room_id}/house-rules", {"house_rules": house_rules})
        )

    async def leave(self, room_id: str) -> RoomOut:
        return RoomOut.model_validate(await self.request("POST", f"/api/rooms/{room_id}/leave"))

    async def add_bot(self, room_id: str, strength: str = "normal") -> RoomOut:
        return RoomOut.model_validate(await self.request("POST", f"/api/rooms/{room_id}/bots", {"strength": strength}))

    async def remove_bot(self, room_id: str, seat: int) -> RoomOut:
        return RoomOut.model_validate(await self.request("DELETE", f"/api/rooms/{room_id}/bots/{seat}"))

    async def start(self, room_id: str) -> RoomOut:
        return RoomOut.model_validate(await self.request("POST", f"/api/rooms/{room_id}/start"))

    # --- quick play and ratings -----------------------------------------------------------------------

    async def play_now(
        self, mode: Mode = "classic", seats: int | None = None, strength: str = "normal"
    ) -> QuickPlayOut:
        """Queue for a table (``seats`` None: any size); poll :meth:`quick_status` until ``seated``."""
        body = {"mode": mode, "seats": seats, "strength": strength}
        return QuickPlayOut.model_validate(await self.request("POST", "/api/quickplay", body))

    async def quick_status(self) -> QuickPlayOut:
        return QuickPlayOut.model_validate(await self.request("GET", "/api/quickplay"))

    async def quick_bots_now(self) -> QuickPlayOut:
        return QuickPlayOut.model_validate(await self.request("POST", "/api/quickplay/bots"))

    async def quick_leave(self) -> QuickPlayOut:
        return QuickPlayOut.model_validate(await self.request("DELETE", "/api/quickplay"))

    async def ratings(self) -> RatingsOut:
        return RatingsOut.model_validate(await self.request("GET", "/api/profile/ratings"))

    # --- the room socket -----------------------------------------------------------------------------

    def socket(self, room_id: str) -> RoomSocket:
        """The room's WebSocket (not yet open: ``async with client.socket(id) as table: ...``)."""
        ws_base = "ws" + self.server[4:] if self.server.startswith("http") else self.server
        # ``game=changes``: events frames carry what changed in the game, not all of it (the socket merges).
        return RoomSocket(f"{ws_base}/ws/rooms/{room_id}?game=changes", self.headers())


def _retry_after(r: httpx.Response, data: dict[str, Any]) -> float | None:
    """Seconds to wait before trying again, when the server says (``Retry-After`` or ``retry_after``)."""
    for raw in (r.headers.get("retry-after"), data.get("retry_after")):
        try:
            if raw is not None:
                return max(0.0, float(raw))
        except (TypeError, ValueError):
            continue
    return None
