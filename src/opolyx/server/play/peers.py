"""The socket side of a room: whoever the hub sends frames to.

A :class:`Peer` is a WebSocket in this process (:class:`Connection`) or, with a cluster, a client whose
socket lives in another process (:class:`opolyx.server.cluster.node.RemoteConnection`). A connection
writes through a queue of its own, so a slow client never blocks the room's lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable

from starlette.websockets import WebSocket

from opolyx.jsontypes import JSON
from opolyx.server.http.transport import DIRECT_SEND
from opolyx.server.wire import dumps
from opolyx.storage import UserRecord

log = logging.getLogger(__name__)


class Peer:
    """Whoever the hub sends frames to: a WebSocket here, or (cluster/node.py) a client of another process."""

    id: str
    user: UserRecord
    address: str
    closed: bool
    #: The client asked for ``game_changes`` in its ``events`` frames instead of the whole ``game``
    #: (``/ws/rooms/{id}?game=changes``, docs/protocol.md).
    wants_changes: bool = False
    #: The public game this client was last sent (the base of its next ``game_changes``); None: none yet.
    seen_view: JSON | None = None
    #: The browser's device cookie, when it sent one (measuring.py tells two seats of one device apart).
    device: str | None = None

    def send(self, payload: JSON) -> None:
        if not self.closed:
            self.send_text(dumps(payload))

    def send_text(self, text: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class Connection(Peer):
    """One WebSocket; writes go through a queue so a slow client never blocks the room's lock."""

    def __init__(self, ws: WebSocket, user: UserRecord, address: str, queue_limit: int) -> None:
        self.ws = ws
        self.user = user
        self.address = address
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.queue_limit = queue_limit
        # uvicorn's synchronous send for this socket (transport.RoomSocketProtocol), used while nothing
        # waits in the queue, so frames stay in order; None under another server (tests' clients).
        self.direct: Callable[[str], bool] | None = ws.scope.get("extensions", {}).get(DIRECT_SEND)
        self.writing = False
        self.closed = False
        self.close_code = 1000
        self.id = secrets.token_hex(6)
        # The session record the socket was opened with (None: an API key); signing it out closes it.
        self.session_id: str | None = None

    def send_text(self, text: str) -> None:
        """Send an already serialised frame (a broadcast serialises once per seat, not per socket): at once
        while nothing waits in the queue, else behind what does."""
        if self.closed:
            return
        if self.direct is not None and not self.writing and self.queue.empty() and self.direct(text):
            return
        if self.queue.qsize() >= self.queue_limit:
            # Too far behind: drop it; the client reconnects and gets a fresh snapshot.
            log.warning("connection %s lags behind, closing it", self.id)
            self.close()
            return
        self.queue.put_nowait(text)

    def close(self, code: int = 1000) -> None:
        """Close once everything queued is sent; ``code`` is the close code the client sees."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.queue.put_nowait(None)

    async def writer(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                self.writing = True
                await self.ws.send_text(text)
                self.writing = False
        except Exception:  # the socket went away; the reader side notices and cleans up
            pass
        finally:
            self.closed = True
            with contextlib.suppress(Exception):
                await self.ws.close(code=self.close_code)

