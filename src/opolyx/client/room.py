"""The room WebSocket as a live object: the latest state of the table, actions as awaitable calls.

A background task reads every frame and keeps ``game``, ``seq``, ``legal`` and the rest current. When
the connection drops it reconnects on its own (with growing pauses) and the server's fresh snapshot
puts everything back in step; a gap in ``seq`` (a frame missed) asks for a snapshot too. Whoever waits
on the socket (:meth:`RoomSocket.wait_until`) is woken by every change.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from opolyx.client.errors import CONNECTION_LOST, TIMED_OUT, OpolyxError
from opolyx.engine.vocabulary import ClientAction
from opolyx.jsontypes import JSON

log = logging.getLogger(__name__)

# Close codes after which reconnecting cannot help (docs/protocol.md, section 3).
# 4429: too many sockets for this session or address; hammering the server would not help.
FINAL_CLOSE_CODES = {4401: "not_authenticated", 4404: "room_not_found", 4429: "too_many_sockets"}
# Pauses between reconnection attempts, in seconds; the last one repeats.
BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0)
# The server's answer to a request sent too fast, and the pauses before sending it again, in seconds.
RATE_LIMITED = "rate_limited"
RATE_BACKOFF = (0.25, 0.5, 1.0, 2.0, 4.0)


class RoomSocket:
    """One seat's (or one watcher's) view of a room, kept current from the server's frames."""

    def __init__(self, url: str, headers: dict[str, str], *, keep: int = 200) -> None:
        self.url = url
        self._headers = headers
        self.room: JSON | None = None
        self.you: JSON | None = None
        self.game: JSON | None = None
        self.seq = 0
        # The seq that ``game`` shows: an events frame's ``game_changes`` apply only on top of the frame just
        # before it (after a gap ``game`` waits for the snapshot the gap asked for).
        self._game_seq = -1
        self.legal: list[JSON] = []
        self.deadlines: list[JSON] = []
        self.chat: deque[JSON] = deque(maxlen=keep)
        # Every chat message ever seen here gets the next number, so a reader can ask "what is new".
        self.chat_count = 0
        self.log: deque[JSON] = deque(maxlen=keep)
        self.reconnects = 0
        self.error: OpolyxError | None = None
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Condition()
        self._futures: dict[int, asyncio.Future[JSON]] = {}
        self._ref = 0
        # Snapshots received: one per (re)connection, plus one per sync.
        self.snapshots = 0
        self._closing = False

    # --- state ---------------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._ws is not None

    @property
    def seat(self) -> int | None:
        return None if self.you is None else self.you.get("seat")

    @property
    def pending(self) -> list[JSON]:
        return list(self.game["pending"]) if self.game else []

    @property
    def over(self) -> bool:
        return bool(self.game and self.game.get("over"))

    @property
    def result(self) -> JSON | None:
        return self.game.get("result") if self.game else None

    @property
    def started(self) -> bool:
        return self.game is not None

    def my_turn(self) -> bool:
        """True while the game waits for this seat (its turn, a bid, a payment or a trade answer)."""
        seat = self.seat
        return seat is not None and not self.over and any(p.get("seat") == seat for p in self.pending)

    # --- life cycle ----------------------------------------------------------------------------------

    async def __aenter__(self) -> RoomSocket:
        await self.open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def open(self, timeout: float = 20.0) -> None:
        """Connect and wait for the first snapshot; OpolyxError when the server refuses."""
        self._closing = False
        self._task = asyncio.get_running_loop().create_task(self._run())
        if not await self.wait_until(lambda: self.snapshots > 0 or self.error is not None, timeout):
            await self.close()
            raise OpolyxError(TIMED_OUT, f"no snapshot from {self.url} within {timeout} s")
        if self.error is not None:
            await self.close()
            raise self.error

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
            self._task = None
        self._fail_waiting(OpolyxError(CONNECTION_LOST, "the socket was closed"))

    async def drop(self) -> None:
        """Close the connection as a network failure would (the socket reconnects by itself)."""
        if self._ws is not None:
            await self._ws.close()

    async def _run(self) -> None:
        attempt = 0
        while not self._closing:
            try:
                async with connect(self.url, additional_headers=self._headers, open_timeout=20) as ws:
                    self._ws = ws
                    attempt = 0
                    async for raw in ws:
                        await self._absorb(json.loads(raw))
                    close = ws.close_code
            except InvalidStatus as exc:
                close = None
                status = exc.response.status_code
                log.debug("socket %s refused: %s", self.url, exc)
                if 400 <= status < 500 and status != 429:
                    # Refused at the handshake (e.g. 403 bad_origin): trying again cannot help.
                    self.error = OpolyxError(f"http_{status}", f"the server refused the socket ({status})")
                    await self._notify()
                    break
            except (ConnectionClosed, WebSocketException, OSError) as exc:
                close = getattr(getattr(exc, "rcvd", None), "code", None)
                log.debug("socket %s dropped: %s", self.url, exc)
            finally:
                self._ws = None
            self._fail_waiting(OpolyxError(CONNECTION_LOST, "the connection dropped; the socket reconnects"))
            if self._closing:
                break
            if close in FINAL_CLOSE_CODES:
                if self.error is None:
                    self.error = OpolyxError(FINAL_CLOSE_CODES[close], f"the server closed the socket ({close})")
                await self._notify()
                break
            await asyncio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
            attempt += 1
            self.reconnects += 1

    def _fail_waiting(self, error: OpolyxError) -> None:
        for future in self._futures.values():
            if not future.done():
                future.set_exception(error)
        self._futures.clear()

    # --- frames --------------------------------------------------------------------------------------

    async def _absorb(self, frame: JSON) -> None:
        kind = frame.get("type")
        if kind == "snapshot":
            self.room, self.you, self.game = frame["room"], frame["you"], frame["game"]
            self.seq, self.legal, self.deadlines = frame["seq"], frame["legal"], frame["deadlines"]
            self._game_seq = self.seq
            self.log.clear()
            self.log.extend(frame.get("history") or [])
            # After a reconnect the snapshot repeats recent chat: keep only what is new.
            known = {_chat_key(m) for m in self.chat}
            for message in frame.get("chat") or []:
                if _chat_key(message) not in known:
                    self._add_chat(message)
            self.snapshots += 1
        elif kind == "events":
            if frame["seq"] != self.seq + 1 and frame["seq"] > self.seq:
                # A frame went missing (or we reconnected mid-stream): ask for the whole state.
                await self.send({"type": "sync"})
            if frame["seq"] > self.seq:
                self.seq = frame["seq"]
                changes = frame.get("game_changes")
                if frame.get("game") is not None:
                    self.game, self._game_seq = frame["game"], self.seq
                elif changes is not None and self.game is not None and self._game_seq == self.seq - 1:
                    self.game, self._game_seq = {**self.game, **changes}, self.seq
                self.legal, self.deadlines = frame["legal"], frame["deadlines"]
                for event in frame["events"]:
                    self.log.append({"seq": frame["seq"], "event": event})
        elif kind == "notice":
            self.log.append({"seq": frame["seq"], "event": frame["event"]})
        elif kind == "room":
            self.room = frame["room"]
        elif kind == "chat":
            self._add_chat(frame)
        elif kind == "error":
            ref = frame.get("ref")
            future = self._futures.pop(ref, None) if isinstance(ref, int) else None
            if future is not None and not future.done():
                future.set_exception(OpolyxError.from_frame(frame))
            elif frame.get("code") in FINAL_CLOSE_CODES.values():
                self.error = OpolyxError.from_frame(frame)
            await self._notify()
            return
        ref = frame.get("ref")
        if isinstance(ref, int) and ref in self._futures:
            future = self._futures.pop(ref)
            if not future.done():
                future.set_result(frame)
        await self._notify()

    def _add_chat(self, message: JSON) -> None:
        self.chat_count += 1
        self.chat.append(dict(message, number=self.chat_count))

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wake(self) -> None:
        """Wake every waiter to test its predicate again (after something besides a frame changed)."""
        await self._notify()

    async def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` holds (checked after every frame); False when the time ran out."""
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(predicate), timeout)
            except TimeoutError:
                return predicate()
        return True

    # --- sending -------------------------------------------------------------------------------------

    async def send(self, frame: JSON) -> None:
        if self._ws is None:
            raise OpolyxError(CONNECTION_LOST, "not connected right now; the socket is reconnecting")
        try:
            await self._ws.send(json.dumps(frame))
        except ConnectionClosed as exc:
            raise OpolyxError(CONNECTION_LOST, "the connection dropped; the socket reconnects") from exc

    async def request(self, frame: JSON, timeout: float = 20.0) -> JSON:
        """Send a frame with a fresh ``ref`` and wait for the answer carrying it (an error raises).

        A request the server refused as too fast (``rate_limited``) is sent again after a growing pause
        (:data:`RATE_BACKOFF`) while ``timeout`` allows; then the refusal raises."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for pause in RATE_BACKOFF:
            try:
                return await self._request_once(frame, deadline - loop.time(), timeout)
            except OpolyxError as exc:
                if exc.code != RATE_LIMITED or loop.time() + pause >= deadline:
                    raise
            await asyncio.sleep(pause)
        return await self._request_once(frame, deadline - loop.time(), timeout)

    async def _request_once(self, frame: JSON, wait: float, timeout: float) -> JSON:
        self._ref += 1
        ref = self._ref
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._futures[ref] = future
        try:
            await self.send(dict(frame, ref=ref))
            return await asyncio.wait_for(future, max(wait, 0.0))
        except TimeoutError as exc:
            raise OpolyxError(TIMED_OUT, f"no answer to {frame.get('type')} within {timeout} s") from exc
        finally:
            self._futures.pop(ref, None)

    async def act(self, action: ClientAction | JSON, timeout: float = 20.0) -> JSON:
        """Play ``action`` for this seat on the state last seen (``seq``); the ``events`` frame it caused.

        Refusals raise OpolyxError with the server's code (``illegal_action`` carries the engine's in
        ``reason``; ``stale_state`` means the game moved on first: look again and choose anew)."""
        return await self.request({"type": "action", "action": action, "seq": self.seq}, timeout)

    async def say(self, text: str, timeout: float = 20.0) -> None:
        """Send a chat message; raises if the server refused it (too long, empty, too many)."""
        self._ref += 1
        ref = self._ref
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._futures[ref] = future
        try:
            await self.send({"type": "chat", "text": text, "ref": ref})
            # Frames are answered in order: once the ping's pong is back, a refusal would have come.
            await self.request({"type": "ping"}, timeout)
            if future.done():
                future.result()
        finally:
            self._futures.pop(ref, None)

    async def sync(self, timeout: float = 20.0) -> JSON:
        """Ask for a fresh snapshot (the state is replaced by it)."""
        return await self.request({"type": "sync"}, timeout)


def _chat_key(message: JSON) -> tuple[Any, ...]:
    return (message.get("at"), message.get("name"), message.get("seat"), message.get("text"))
