"""The registry of room hubs, the routing of sockets and lobby calls to them, and lobby operations
that are not about one room's seats.

In one process every room's hub lives here. With a cluster (``OPOLYX_REDIS_URL``, see cluster/node.py) a
room's hub lives only in the process holding its lease; here, for rooms owned elsewhere, sockets and
lobby calls are forwarded to the owner, and frames for this process's sockets come back from it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from opolyx.jsontypes import JSON
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError, RoomRefused
from opolyx.server.cluster.node import EVERYONE, Cluster, RemoteConnection
from opolyx.server.moderation.room_calls import OPERATOR_CALLS, operator_call
from opolyx.server.play.context import HubContext
from opolyx.server.play.hub import RoomHub
from opolyx.server.play.peers import Connection, Peer
from opolyx.server.play.seating import already_in_game
from opolyx.storage import (
    RUNNING,
    UNFINISHED,
    WAITING,
    AlreadySeated,
    NewRoom,
    RoomRecord,
    UserRecord,
)

log = logging.getLogger(__name__)

# No 0/O, 1/I/L: codes are read aloud and typed from phones.
_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

# Lobby calls a hub answers (each takes the user, then these arguments); "view" changes nothing;
# "enter" is joining (or, once started, watching) by a private room's code.
CALLS = (
    "view", "enter", "join", "leave", "add_bot", "remove_bot", "start", "reseat",
    "choose_team", "shuffle_teams", "set_house_rules", "choose_colour", *OPERATOR_CALLS,
)
# Entropy (docs/security.md): room ids 12 random bytes = 96 bits; codes 8 symbols of 31 = 39.6 bits.
ROOM_ID_BYTES = 12
CODE_LENGTH = 8
# How long the owner remembers its answer to a lobby call from another process: longer than the sender
# keeps retrying it (four attempts of OPOLYX_CLUSTER_CALL_TIMEOUT, 10 s by default).
ANSWER_SECONDS = 60.0
# Rooms whose clocks one checkpoint transaction writes (about 1 ms on SQLite).
CHECKPOINT_ROOMS = 100

FrameHandler = Callable[[RoomHub, Peer, "str | bytes | None"], Awaitable[None]]


def new_code() -> str:
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_room_id() -> str:
    """A fresh room id that never begins with ``-``: one in 64 of ``token_urlsafe``'s did, and a command line
    reads such an id as an option (``client_bot.py --room -x…`` failed with a usage error). Drawing again keeps
    the other ids' distribution and costs under 0.03 bits of the 96."""
    while True:
        room_id = secrets.token_urlsafe(ROOM_ID_BYTES)
        if not room_id.startswith("-"):
            return room_id


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def sockets_of(
    user_id: str,
    *,
    sessions_only: bool = False,
    only: str | None = None,
    keep: str | None = None,
    key: str | None = None,
) -> Callable[[Peer], bool]:
    """Which sockets ``RoomService.close_user_sockets`` closes (see there)."""

    def which(conn: Peer) -> bool:
        if conn.user.id != user_id:
            return False
        if key is not None:
            return conn.user.api_key == key
        if not sessions_only:
            return True
        sid = getattr(conn, "session_id", None)
        return sid is not None and (only is None or sid == only) and (keep is None or sid != keep)

    return which


class RoomService:
    def __init__(self, ctx: HubContext, cluster: Cluster | None = None, *, on_frame: FrameHandler) -> None:
        self.ctx = ctx
        self.cluster = cluster
        # How a frame from a socket is handled once it reaches the room's hub (the room socket's parser).
        self.on_frame = on_frame
        self.hubs: dict[str, RoomHub] = {}
        self._loading = asyncio.Lock()
        self._checkpointer: asyncio.Task[None] | None = None
        self._maintainer: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # Cluster bookkeeping. Here for rooms owned elsewhere: room → owner node, our sockets there.
        self.routes: dict[str, str] = {}
        self.away: dict[str, dict[str, Connection]] = {}
        self.sockets: dict[str, Connection] = {}
        # On the owner: clients of other processes, by connection id.
        self.peers: dict[str, RemoteConnection] = {}
        self._room_locks: dict[str, asyncio.Lock] = {}
        self._expirer: asyncio.Task[None] | None = None
        # Waiting rooms created from each address (this process), to cap how many one address holds.
        self.created_from: dict[str, set[str]] = {}
        # On the owner: answers to lobby calls from other processes by call id, kept for ANSWER_SECONDS,
        # so a call its sender retried after a timeout is answered, not carried out twice.
        self._answers: dict[str, tuple[float, asyncio.Future[JSON]]] = {}

    # --- hubs in this process ----------------------------------------------------------------------

    def close_sockets(self, which: Callable[[Peer], bool]) -> int:
        """Close the sockets of this process's rooms that ``which`` picks (a revoked key or session must
        not go on playing through a socket opened before); returns how many were closed."""
        closed = 0
        for hub in list(self.hubs.values()):
            for conn in list(hub.conns):
                if which(conn):
                    conn.close()
                    closed += 1
        # With a cluster: this process's sockets in rooms another process owns.
        for sock in list(self.sockets.values()):
            if which(sock) and not sock.closed:
                sock.close()
                closed += 1
        return closed

    def close_user_sockets(
        self,
        user_id: str,
        *,
        sessions_only: bool = False,
        only: str | None = None,
        keep: str | None = None,
        key: str | None = None,
    ) -> None:
        """Close sockets of ``user_id`` in this process and, with a cluster, in every other one (each closes
        those it holds or serves): all of them (a deleted account: sessions' and keys' alike), those of one
        key, or with ``sessions_only`` those of its sessions (``only`` that one, or every one but ``keep``).
        A revoked credential must not go on playing through a socket opened before, wherever it is."""
        self.close_sockets(sockets_of(user_id, sessions_only=sessions_only, only=only, keep=keep, key=key))
        if self.cluster is not None:
            self.cluster.post(
                EVERYONE,
                {
                    "t": "close_user",
                    "user": user_id,
                    "sessions_only": sessions_only,
                    "only": only,
                    "keep": keep,
                    "key": key,
                },
            )

    def close_address_sockets(self, address: str) -> None:
        """Close every socket opened from ``address``, in this process and every other one (a ban)."""
        self.close_sockets(lambda conn: conn.address == address)
        if self.cluster is not None:
            self.cluster.post(EVERYONE, {"t": "close_address", "address": address})

    async def refresh_names(self, room_ids: list[str]) -> None:
        """Rooms of this process whose stored names or chat changed (a deleted account): their in-memory
        room record and recent chat are read again, so a new viewer is not served the old copies."""
        for room_id in room_ids:
            hub = self.hubs.get(room_id)
            if hub is None:
                continue
            fresh = await self.ctx.store.get_room(room_id)
            if fresh is not None:
                hub.room = fresh
            await hub.messages.load()

    async def hub(self, room_id: str) -> RoomHub | None:
        """The room's hub in this process (loading it), or None if there is no such room.

        With a cluster this is only called while holding the room's lease.
        """
        hub = self.hubs.get(room_id)
        if hub is not None:
            return hub
        async with self._loading:
            hub = self.hubs.get(room_id)
            if hub is not None:
                return hub
            room = await self.ctx.store.get_room(room_id)
            if room is None:
                return None
            hub = RoomHub(room, self.ctx)
            await hub.load()
            self.hubs[room_id] = hub
            return hub

    async def route(self, room_id: str) -> RoomHub | str | None:
        """Where the room lives: its hub here, the node id of the process owning it, or None."""
        hub = self.hubs.get(room_id)
        if hub is not None or self.cluster is None:
            return hub or await self.hub(room_id)
        if room_id in self.routes:
            return self.routes[room_id]
        cluster = self.cluster
        for _ in range(5):
            owner = await cluster.owner(room_id)
            if owner is None or owner == cluster.node:
                if await cluster.acquire(room_id):
                    try:
                        hub = await self.hub(room_id)
                    except BaseException:
                        await cluster.release(room_id)
                        raise
                    if hub is None:
                        await cluster.release(room_id)
                    return hub
                continue
            self.routes[room_id] = owner
            return owner
        raise ApiError(503, E.INTERNAL, f"room {room_id} is changing owner; try again")

    async def owner_elsewhere(self, room_id: str) -> str | None:
        """The node id of another process owning the room, as far as this one knows or Redis says; None
        for a room this process runs, nobody owns, or without a cluster. Never takes a lease: it is
        asked before the socket's person is known."""
        if self.cluster is None or room_id in self.hubs:
            return None
        node = self.routes.get(room_id) or await self.cluster.owner(room_id)
        return node if node is not None and node != self.cluster.node else None

    async def _take(self, room_id: str) -> RoomHub | str | None:
        """Take over a room nobody owns, moving our sockets that waited on its old owner here."""
        self.routes.pop(room_id, None)
        target = await self.route(room_id)
        if isinstance(target, RoomHub) and room_id in self.away:
            await self._rehome(room_id)
        return target

    async def restore(self) -> int:
        """Bring every unfinished game back after a start: replay, resume clocks, wake the bots.

        With a cluster, only the games no other process owns (the others stay where they are).
        """
        running = await self.ctx.store.list_rooms([RUNNING], public_only=False, limit=1_000_000)
        here = [room.id for room in running if room.id not in self.hubs]
        # One round trip for every room's owner: asking room by room took seconds with a few hundred
        # rooms on a busy loop, and held up whatever waited behind it.
        owners = await self.cluster.owners(here) if self.cluster is not None else {}
        restored = 0
        for room_id in here:
            if room_id in self.hubs or owners.get(room_id) is not None:
                continue
            try:
                if self.cluster is None:
                    await self.hub(room_id)
                    restored += 1
                elif isinstance(await self._take(room_id), RoomHub):
                    restored += 1
            except Exception:
                log.exception("could not restore room %s", room_id)
        return restored

    def start_checkpoints(self) -> None:
        loop = asyncio.get_running_loop()
        self._checkpointer = loop.create_task(self._checkpoint_loop())
        self._expirer = loop.create_task(self._expire_loop())
        self._tasks.add(loop.create_task(self._metrics_loop()))
        if self.cluster is not None:
            self._maintainer = loop.create_task(self._maintain_loop())
            self._tasks.add(loop.create_task(self._renew_loop()))

    def refresh_metrics(self) -> None:
        self.ctx.metrics.count_rooms(hub.room.status for hub in self.hubs.values())

    async def _metrics_loop(self) -> None:
        """Keep the room gauge current for scrapes answered by another worker process."""
        while True:
            self.refresh_metrics()
            await asyncio.sleep(1.0)

    async def _checkpoint_loop(self) -> None:
        interval = self.ctx.settings.clock_checkpoint_seconds
        while True:
            await asyncio.sleep(interval)
            # One transaction per CHECKPOINT_ROOMS rooms' clocks, instead of one write per room (or per
            # action); between them the loop serves the rooms: at a thousand running games one
            # transaction for all held every room up for about 10 ms every checkpoint.
            due: list[tuple[str, JSON]] = []
            for hub in list(self.hubs.values()):
                clocks = hub.clocks_to_checkpoint()
                if clocks is not None:
                    due.append((hub.room.id, clocks))
            for start in range(0, len(due), CHECKPOINT_ROOMS):
                chunk = dict(due[start : start + CHECKPOINT_ROOMS])
                try:
                    await self.ctx.store.save_clocks_many(chunk)
                except Exception:
                    log.exception("clock checkpoint failed for %d rooms", len(chunk))
                await asyncio.sleep(0)

    async def _expire_loop(self) -> None:
        ttl = self.ctx.settings.waiting_room_ttl_minutes * 60
        while True:
            await asyncio.sleep(max(0.05, min(60.0, ttl / 4)))
            try:
                await self.expire_waiting(ttl)
            except Exception:
                log.exception("expiring idle waiting rooms failed")

    async def expire_waiting(self, ttl: float) -> int:
        """Close waiting rooms nobody joined, left or looked at for ``ttl`` seconds (their seats are
        freed), so abandoned rooms do not pile up in the lobby and hold people's one-room allowance."""
        now_mono, now = time.monotonic(), datetime.now(UTC)
        closed = 0
        for room in await self.ctx.store.list_rooms([WAITING], public_only=False, limit=100_000):
            hub = self.hubs.get(room.id)
            if hub is not None:
                if hub.conns or now_mono - hub.touched < ttl:
                    continue
                async with hub.lock:
                    if hub.room.status != WAITING or hub.conns:
                        continue
                    await self.ctx.store.close_room(room.id)
                    await hub.reload_room()
                    hub.broadcast_room()
                self.forget_if_idle(hub)
                closed += 1
            elif (now - room.created_at).total_seconds() >= ttl:
                if self.cluster is not None and await self.cluster.owner(room.id) is not None:
                    continue  # another process runs it and judges its idleness
                await self.ctx.store.close_room(room.id)
                closed += 1
        for address, rooms in list(self.created_from.items()):
            rooms.difference_update([r for r in rooms if r not in self.hubs or self.hubs[r].room.status != WAITING])
            if not rooms:
                del self.created_from[address]
        if closed:
            log.info("closed %d idle waiting rooms", closed)
        return closed

    async def close(self) -> None:
        for task in (self._checkpointer, self._maintainer, self._expirer, *self._tasks):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        for hub in list(self.hubs.values()):
            with contextlib.suppress(Exception):
                await hub.checkpoint()
            await hub.close()
        self.hubs.clear()

    def forget_if_idle(self, hub: RoomHub) -> None:
        """Finished rooms nobody watches need not stay in memory; they reload on demand."""
        if hub.room.status not in UNFINISHED and not hub.conns and self.hubs.get(hub.room.id) is hub:
            del self.hubs[hub.room.id]
            if self.cluster is not None:
                self._spawn(self.cluster.release(hub.room.id))

    def _spawn(self, coro: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await coro
            except Exception:
                log.exception("background room task failed")

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- sockets -------------------------------------------------------------------------------------

    async def attach(self, room_id: str, conn: Connection) -> bool:
        """Connect a socket to its room, wherever the room lives; False if there is no such room."""
        target = await self.route(room_id)
        if target is None:
            return False
        if isinstance(target, RoomHub):
            return await target.attach(conn)
        assert self.cluster is not None
        self.sockets[conn.id] = conn
        self.away.setdefault(room_id, {})[conn.id] = conn
        user = conn.user
        self.cluster.post(
            target,
            {
                "t": "attach",
                "room": room_id,
                "conn": conn.id,
                "user": [user.id, user.nickname, user.language, user.agent],
                "address": conn.address,
                "changes": conn.wants_changes,
            },
        )
        return True

    async def frame(self, room_id: str, conn: Connection, raw: str | bytes | None) -> None:
        hub = self.hubs.get(room_id)
        if hub is not None and conn in hub.conns:
            await self.on_frame(hub, conn, raw)
            return
        owner = self.routes.get(room_id)
        if owner is None or self.cluster is None:
            return  # between owners: the socket is re-attached (and gets a snapshot) in a moment
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        self.cluster.post(owner, {"t": "frame", "room": room_id, "conn": conn.id, "raw": text})

    async def detach(self, room_id: str, conn: Connection) -> RoomHub | None:
        self.sockets.pop(conn.id, None)
        mine = self.away.get(room_id)
        if mine is not None and mine.pop(conn.id, None) is not None:
            owner = self.routes.get(room_id)
            if owner is not None and self.cluster is not None:
                self.cluster.post(owner, {"t": "detach", "room": room_id, "conn": conn.id})
            if not mine:
                self.away.pop(room_id, None)
                self.routes.pop(room_id, None)
        hub = self.hubs.get(room_id)
        if hub is not None and conn in hub.conns:
            await hub.detach(conn)
            return hub
        return None

    # --- lobby calls about one room ------------------------------------------------------------------

    async def call(self, room_id: str, op: str, user: UserRecord | None, *args: Any) -> JSON:
        """Run a lobby call on the room's hub, wherever it lives; returns the room as ``user`` sees it.

        A call to another process that times out is sent again under the same id: if the first one is
        still running there (a busy owner), the retry waits for its answer instead of running it again,
        so a slow "add a bot" adds one bot and a slow "start" does not come back ``already_started``.
        """
        call_id = secrets.token_hex(8)
        for attempt in range(4):
            target = await self.route(room_id)
            if target is None:
                raise RoomRefused(E.ROOM_NOT_FOUND, f"no room {room_id}")
            if isinstance(target, RoomHub):
                return await _local_call(target, op, user, args)
            assert self.cluster is not None
            try:
                body = await self.cluster.call(
                    target,
                    {
                        "room": room_id,
                        "call": call_id,
                        "op": op,
                        "user": user.id if user else None,
                        "agent": bool(user and user.agent),
                        "args": list(args),
                    },
                    self.ctx.settings.cluster_call_timeout,
                )
            except TimeoutError:
                body = {"moved": True}
            if body.get("moved"):
                self.routes.pop(room_id, None)
                await asyncio.sleep(0.2 * attempt)
                continue
            error = body.get("error")
            if isinstance(error, dict):
                raise ApiError(int(error["status"]), str(error["code"]), str(error["message"]), room=error.get("room"))
            refused = body.get("refused")
            if isinstance(refused, dict):
                raise RoomRefused(str(refused["code"]), str(refused["message"]), room=refused.get("room"))
            view: JSON = body["view"]
            return view
        raise ApiError(503, E.INTERNAL, f"room {room_id} is changing owner; try again")

    # --- the cluster ---------------------------------------------------------------------------------

    async def start_cluster(self) -> None:
        if self.cluster is not None:
            await self.cluster.start(self._on_message)

    def _on_message(self, sender: str, m: JSON) -> None:
        kind = m.get("t")
        if kind == "out":
            conn = self.sockets.get(str(m.get("conn")))
            if conn is not None:
                conn.send_text(str(m["text"]))
        elif kind == "close":
            conn = self.sockets.get(str(m.get("conn")))
            if conn is not None:
                conn.close()
        elif kind == "close_user":
            self.close_sockets(
                sockets_of(
                    str(m.get("user")),
                    sessions_only=bool(m.get("sessions_only")),
                    only=_opt_str(m.get("only")),
                    keep=_opt_str(m.get("keep")),
                    key=_opt_str(m.get("key")),
                )
            )
        elif kind == "room_op":
            # An operator's call from outside the servers (``opolyx admin``): the room's owner runs it.
            hub = self.hubs.get(str(m.get("room")))
            if hub is not None and str(m.get("op")) in OPERATOR_CALLS:
                self._spawn(operator_call(hub, str(m.get("op")), list(m.get("args") or ())))
        elif kind == "close_address":
            self.close_sockets(lambda conn: conn.address == str(m.get("address")))
        elif kind == "moved":
            room_id = str(m.get("room"))
            if self.routes.get(room_id) == sender:
                self._spawn(self._rehome(room_id))
        elif kind == "call":
            self._spawn(self._answer(m))
        elif kind == "attach":
            self._peer_attach(sender, m)
        elif kind in ("frame", "detach"):
            peer = self.peers.get(str(m.get("conn")))
            if peer is None or peer.node != sender:
                if kind == "frame" and self.cluster is not None:
                    self.cluster.post(sender, {"t": "moved", "room": m.get("room")})
                return
            peer.inbox.put_nowait(m)

    def _peer_attach(self, sender: str, m: JSON) -> None:
        assert self.cluster is not None
        room_id = str(m.get("room"))
        hub = self.hubs.get(room_id)
        if hub is None or room_id not in self.cluster.owned:
            self.cluster.post(sender, {"t": "moved", "room": room_id})
            return
        uid, nickname, language, *rest = m["user"]
        user = UserRecord(str(uid), str(nickname), str(language), None, _EPOCH, agent=bool(rest and rest[0]))
        peer = RemoteConnection(self.cluster, sender, str(m["conn"]), room_id, user, str(m.get("address")))
        peer.wants_changes = m.get("changes") is True
        old = self.peers.pop(peer.id, None)
        if old is not None:
            old.inbox.put_nowait({"t": "detach"})
        self.peers[peer.id] = peer
        peer.worker = asyncio.get_running_loop().create_task(self._serve_peer(peer, hub))

    async def _serve_peer(self, peer: RemoteConnection, hub: RoomHub) -> None:
        """The owner's side of a remote socket: the same sequence as a local socket's reader loop."""
        try:
            if not await hub.attach(peer):
                message = f"no room {peer.room_id}"
                peer.send({"type": "error", "code": E.ROOM_NOT_FOUND, "message": message, "ref": None})
                return
            while True:
                m = await peer.inbox.get()
                if m.get("t") == "detach" or self.hubs.get(peer.room_id) is not hub:
                    break
                await self.on_frame(hub, peer, m.get("raw"))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("remote connection %s in room %s failed", peer.id, peer.room_id)
        finally:
            if self.peers.get(peer.id) is peer:
                del self.peers[peer.id]
            peer.closed = True
            if peer in hub.conns:
                await hub.detach(peer)
            self.forget_if_idle(hub)

    async def _answer(self, m: JSON) -> None:
        assert self.cluster is not None
        node, req, room_id = str(m.get("reply_to")), str(m.get("req")), str(m.get("room"))
        hub = self.hubs.get(room_id)
        if hub is None or room_id not in self.cluster.owned:
            self.cluster.reply(node, req, {"moved": True})
            return
        call_id = str(m.get("call") or req)
        known = self._answers.get(call_id)
        if known is not None:
            self.cluster.reply(node, req, await asyncio.shield(known[1]))
            return
        now = time.monotonic()
        for old_id, (at, done) in list(self._answers.items()):
            if now - at < ANSWER_SECONDS:
                break  # in order of arrival: the rest are newer
            if done.done():
                del self._answers[old_id]
        answer: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._answers[call_id] = (now, answer)
        try:
            body = await self._carry_out(m, hub)
        except BaseException:
            # Cancelled (this process is stopping): whoever waits for this answer asks again elsewhere.
            self._answers.pop(call_id, None)
            answer.set_result({"moved": True})
            raise
        answer.set_result(body)
        self.cluster.reply(node, req, body)

    async def _carry_out(self, m: JSON, hub: RoomHub) -> JSON:
        body: JSON
        try:
            op, uid = str(m.get("op")), m.get("user")
            user = await self.ctx.store.get_user(str(uid)) if uid else None
            if user is not None and m.get("agent"):
                # The caller's process checked the API key; the seat it takes is shown as an agent's.
                user = dataclasses.replace(user, agent=True)
            if op not in ("view", "reseat", *OPERATOR_CALLS) and user is None:
                raise RoomRefused(E.NOT_AUTHENTICATED, "start a guest session first: POST /api/session")
            body = {"view": await _local_call(hub, op, user, tuple(m.get("args") or ()))}
        except ApiError as exc:
            body = {"error": {"status": exc.status, "code": exc.code, "message": exc.message, "room": exc.room}}
        except RoomRefused as exc:
            body = {"refused": {"code": exc.code, "message": exc.message, "room": exc.room}}
        except Exception:
            log.exception("lobby call %r in room %s failed", m.get("op"), hub.room.id)
            body = {"error": {"status": 500, "code": E.INTERNAL, "message": "the call failed", "room": None}}
        return body

    async def _rehome(self, room_id: str) -> None:
        """The room's owner changed (or is gone): re-attach our sockets there, taking it over if free."""
        lock = self._room_locks.setdefault(room_id, asyncio.Lock())
        async with lock:
            self.routes.pop(room_id, None)
            conns = list(self.away.pop(room_id, {}).values())
            for conn in conns:
                if conn.closed:
                    self.sockets.pop(conn.id, None)
                    continue
                try:
                    if not await self.attach(room_id, conn):
                        conn.close()
                except Exception:
                    log.exception("could not re-attach connection %s to room %s", conn.id, room_id)
                    conn.close()

    async def _demote(self, room_id: str) -> None:
        """We lost the room's lease (another process took it): stop running it, keep our sockets."""
        hub = self.hubs.pop(room_id, None)
        if hub is None:
            return
        log.warning("lost the lease of room %s; handing it over", room_id)
        conns = list(hub.conns)
        hub.conns.clear()
        await hub.close()
        assert self.cluster is not None
        for conn in conns:
            if isinstance(conn, RemoteConnection):
                self.peers.pop(conn.id, None)
                self.cluster.post(conn.node, {"t": "moved", "room": room_id})
            elif isinstance(conn, Connection):
                self.sockets[conn.id] = conn
                self.away.setdefault(room_id, {})[conn.id] = conn
        if room_id in self.away:
            await self._rehome(room_id)

    async def _renew_loop(self) -> None:
        """Renew our leases, three times per lease, and nothing else: a renewal that waited behind other
        cluster work (adopting hundreds of rooms, re-attaching sockets) let leases expire under load, and
        the other process then took those rooms while this one still ran them."""
        assert self.cluster is not None
        cluster = self.cluster
        interval = max(0.05, cluster.lease_ms / 1000 / 3)
        while True:
            await asyncio.sleep(interval)
            try:
                for room_id in await cluster.renew():
                    self._spawn(self._demote(room_id))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("renewing the cluster's leases failed")

    async def _maintain_loop(self) -> None:
        """Follow rooms whose owner changed, adopt running games nobody owns."""
        assert self.cluster is not None
        cluster = self.cluster
        interval = max(0.05, cluster.lease_ms / 1000 / 3)
        adopt_every = max(interval, self.ctx.settings.cluster_adopt_seconds)
        next_adopt = time.monotonic() + adopt_every
        while True:
            await asyncio.sleep(interval)
            try:
                watched = sorted(set(self.routes) | set(self.away))
                for room_id, owner in (await cluster.owners(watched)).items():
                    if owner != self.routes.get(room_id):
                        await self._rehome(room_id)
                if time.monotonic() >= next_adopt:
                    next_adopt = time.monotonic() + adopt_every
                    await self.restore()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster maintenance failed")

    # --- lobby ---------------------------------------------------------------------------------------

    async def create(
        self,
        user: UserRecord,
        mode: str,
        seats: int,
        public: bool,
        bots_replace_leavers: bool = False,
        *,
        address: str | None = None,
        house_rules: JSON | None = None,
        rated: bool | None = None,
    ) -> RoomHub:
        """A new room with ``user`` in seat 0; ``house_rules`` must be checked already (opolyx.rules.house).
        ``rated`` None: a public room is rated, a private one not; a room with house rules never is."""
        if mode == "team" and seats not in (4, 6):
            raise RoomRefused(E.INVALID_SEATS, "team games have 4 or 6 seats")
        busy = await self.ctx.store.active_room_of(user.id)
        if busy is not None:
            raise already_in_game(busy)
        mine: set[str] = set()
        if address is not None:
            # New guests are free, so the one-room-per-person rule alone does not bound an address.
            mine = self.created_from.setdefault(address, set())
            mine.intersection_update(r for r in mine if r in self.hubs and self.hubs[r].room.status == WAITING)
            cap = self.ctx.settings.max_waiting_rooms_per_address
            if len(mine) >= cap:
                raise RoomRefused(E.TOO_MANY_ROOMS, f"at most {cap} waiting rooms per address; start or leave one")
        for _ in range(5):
            room_id = new_room_id()
            code = None if public else new_code()
            try:
                room = await self.ctx.store.create_room(
                    NewRoom(
                        room_id,
                        code,
                        mode,
                        seats,
                        public,
                        user.id,
                        user.nickname,
                        bots_replace_leavers,
                        user.agent,
                        house_rules=house_rules or None,
                        rated=(public if rated is None else rated) and not house_rules,
                    )
                )
                break
            except AlreadySeated as exc:
                raise already_in_game(exc.room_id) from exc
            except Exception:
                # A colliding id or code (rare): draw again.
                if await self.ctx.store.active_room_of(user.id):
                    raise
                continue
        else:
            raise ApiError(500, E.INTERNAL, "could not allocate a room")
        # A new room has no owner yet: this process takes it (route() acquires the lease).
        target = await self.route(room.id)
        if not isinstance(target, RoomHub):
            raise ApiError(500, E.INTERNAL, "could not open the new room")
        if address is not None:
            mine.add(room.id)
        return target

    async def reseat(self, room_id: str) -> None:
        """The room's seats changed owner in the store (a seated guest merged into an account): its hub,
        wherever it runs, reads them again, so the account plays on, leaves or resigns as the guest could."""
        with contextlib.suppress(ApiError, RoomRefused):
            await self.call(room_id, "reseat", None)

    async def by_code(self, code: str) -> str:
        code = code.strip().upper()
        if not set(code) <= set(_CODE_ALPHABET):
            raise RoomRefused(E.ROOM_NOT_FOUND, "no room with that code")
        room = await self.ctx.store.get_room_by_code(code)
        if room is None:
            raise RoomRefused(E.ROOM_NOT_FOUND, "no room with that code")
        return room.id

    async def listing(self, statuses: Sequence[str]) -> list[RoomRecord]:
        return await self.ctx.store.list_rooms(statuses, public_only=True, limit=200)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


async def _local_call(hub: RoomHub, op: str, user: UserRecord | None, args: Sequence[Any]) -> JSON:
    if op not in CALLS:
        raise RoomRefused(E.INVALID_REQUEST, f"unknown room call {op!r}")
    if op in OPERATOR_CALLS:
        # Only the operator routes make these (moderation/operator_routes.py), never a player's request.
        return await operator_call(hub, op, args)
    if op == "reseat":
        # A guest's seat passed to the account it merged into (accounts.routes): read the seats again.
        async with hub.lock:
            await hub.reload_room()
        hub.broadcast_room()
        return hub.room_view(None)
    if op == "enter":
        if user is None:
            raise RoomRefused(E.NOT_AUTHENTICATED, "start a guest session first: POST /api/session")
        hub.seats.enter(user, str(args[0]))
        if hub.room.status == WAITING:
            await hub.seats.join(user, *args[1:3])
        return hub.room_view(user.id)
    if op in ("view", "join") and not hub.may_watch(user.id if user else None):
        raise RoomRefused(E.ROOM_NOT_FOUND, f"no room {hub.room.id}")
    if op != "view":
        if user is None:
            raise RoomRefused(E.NOT_AUTHENTICATED, "start a guest session first: POST /api/session")
        await getattr(hub.seats, op)(user, *args)
    return hub.room_view(user.id if user else None)
