"""Room sockets served by the process that owns their room, when that process runs on this machine.

With ``opolyx serve --workers N`` the kernel gives each new connection to any worker, so about
(N-1)/N of a room's sockets would sit in a process that does not own the room: every frame to and from
them travels through Redis, and both processes (and Redis) work on it. At human pace on two workers that
relay was about a sixth of the workers' busy time (``benchmarks/human.py --profile``).

So, before it answers the WebSocket handshake, a process that does not own the socket's room offers the
connection itself to the owner: a duplicate of its file descriptor (``SCM_RIGHTS`` over a Unix socket)
with the request head uvicorn parsed. The owner serves it as if it had accepted it (the handshake, the
session check, the room) and answers yes; only then does the first process let its descriptor go, without
sending a byte, which leaves the connection open in the owner. Should the owner say no, or nothing reach
it, the first process serves the socket itself and relays as before.

Only processes that share a kernel and network namespace can pass descriptors, and only those can
reach each other's abstract Unix sockets: each process listens on one named after its cluster node id,
so a node whose name nobody answers runs elsewhere, and its rooms' sockets are relayed. A connection
moves at most once, and never a TLS one (its state lives in the process that did the handshake).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import socket
import struct
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from opolyx.server.wire import dumps, loads

if TYPE_CHECKING:
    from opolyx.server.http.metrics import ServerMetrics
    from opolyx.server.http.transport import RoomSocketProtocol

log = logging.getLogger(__name__)

NAME_PREFIX = b"\0opolyx-handoff-"
# How long an offer waits for the owner's answer. Without one the connection is let go all the same:
# the owner may hold it already, and a connection served by two processes would be worse than a
# client that has to reconnect.
ANSWER_SECONDS = 2.0
# Request heads are a few hundred bytes; uvicorn refuses heads above 64 KiB before we see them.
MESSAGE_BYTES = 1 << 17
# Nodes found to run elsewhere, remembered so a socket open costs no failed connect (bounded).
ELSEWHERE_LIMIT = 4096
_CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid


def supported() -> bool:
    """Abstract Unix sockets and descriptor passing over SOCK_SEQPACKET: Linux."""
    return sys.platform.startswith("linux") and hasattr(socket, "send_fds")


def _name(node: str) -> bytes:
    return NAME_PREFIX + node.encode()


class _Link:
    """This process's connection to one other local process, for its offers and their answers."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.waiting: dict[int, asyncio.Future[bool | None]] = {}


class Handoff:
    """Offers room sockets to their room's owner, and takes over those other processes offer."""

    def __init__(self, node: str, *, metrics: ServerMetrics | None = None) -> None:
        self.node = node
        self.metrics = metrics
        self._listener: socket.socket | None = None
        self._incoming: set[socket.socket] = set()
        self._links: dict[str, _Link] = {}
        self._elsewhere: set[str] = set()
        self._next = 0
        self._tasks: set[asyncio.Task[None]] = set()
        # How this process builds a room socket's protocol: learnt from the first socket it serves
        # itself, since uvicorn keeps its server state to itself. Until then it declines offers.
        self._factory: Callable[[], RoomSocketProtocol] | None = None

    # --- life ----------------------------------------------------------------------------------------

    async def start(self) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            listener.bind(_name(self.node))
            listener.listen(128)
            listener.setblocking(False)
        except OSError:
            listener.close()
            raise
        self._listener = listener
        asyncio.get_running_loop().add_reader(listener.fileno(), self._accept)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        if self._listener is not None:
            loop.remove_reader(self._listener.fileno())
            self._listener.close()
            self._listener = None
        for sock in list(self._incoming):
            self._forget(sock)
        for node in list(self._links):
            self._drop(node)
        for task in list(self._tasks):
            task.cancel()

    def learn(self, proto: RoomSocketProtocol) -> None:
        if self._factory is None:
            self._factory = functools.partial(type(proto), proto.config, proto.server_state, proto.app_state)

    def _count(self, result: str) -> None:
        if self.metrics is not None:
            self.metrics.handoff(result)

    # --- offering ------------------------------------------------------------------------------------

    async def offer(self, node: str, proto: RoomSocketProtocol) -> bool:
        """Give ``proto``'s connection to ``node``; True if this process must now forget it."""
        link = self._link(node)
        if link is None:
            return False
        head = proto.head
        fd = proto.handoff_fd()
        if fd is None or head is None:
            return False
        self._next += 1
        ident = self._next
        answer: asyncio.Future[bool | None] = asyncio.get_running_loop().create_future()
        link.waiting[ident] = answer
        try:
            socket.send_fds(link.sock, [dumps({"id": ident, "head": head.decode("latin-1")}).encode()], [fd])
        except OSError as exc:
            # The owner's queue is full or it went away: nothing reached it, serve the socket here.
            link.waiting.pop(ident, None)
            if not isinstance(exc, BlockingIOError):
                self._drop(node)
            proto.kept()
            self._count("kept")
            return False
        finally:
            os.close(fd)
        try:
            taken = await asyncio.wait_for(answer, ANSWER_SECONDS)
        except TimeoutError:
            taken = None
        finally:
            link.waiting.pop(ident, None)
        if taken is False:
            proto.kept()
            self._count("kept")
            return False
        if taken is None:
            log.warning("node %s did not answer for a socket it was offered; letting the socket go", node)
        proto.handed_over()
        self._count("passed")
        return True

    def _link(self, node: str) -> _Link | None:
        link = self._links.get(node)
        if link is not None or node in self._elsewhere or node == self.node:
            return link
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            sock.connect(_name(node))  # a local, immediate connect (or refusal)
        except OSError as exc:
            sock.close()
            if isinstance(exc, ConnectionRefusedError | FileNotFoundError):
                if len(self._elsewhere) >= ELSEWHERE_LIMIT:
                    self._elsewhere.clear()
                self._elsewhere.add(node)
            return None
        sock.setblocking(False)
        link = self._links[node] = _Link(sock)
        asyncio.get_running_loop().add_reader(sock.fileno(), self._answers, node, link)
        return link

    def _answers(self, node: str, link: _Link) -> None:
        while True:
            try:
                data = link.sock.recv(MESSAGE_BYTES)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:  # the other process is gone: whatever it was offered, nobody will answer
                self._drop(node)
                return
            with contextlib.suppress(ValueError, TypeError, KeyError):
                message = loads(data)
                answer = link.waiting.get(int(message["id"]))
                if answer is not None and not answer.done():
                    answer.set_result(bool(message["ok"]))

    def _drop(self, node: str) -> None:
        link = self._links.pop(node, None)
        if link is None:
            return
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(link.sock.fileno())
        link.sock.close()
        for answer in link.waiting.values():
            if not answer.done():
                answer.set_result(None)

    # --- taking over ---------------------------------------------------------------------------------

    def _accept(self) -> None:
        assert self._listener is not None
        while True:
            try:
                sock, _ = self._listener.accept()
            except BlockingIOError:
                return
            except OSError:
                log.exception("handoff listener failed to accept")
                return
            _pid, uid, _gid = _CREDENTIALS.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
            if uid != os.getuid():  # only our own processes may hand us connections
                sock.close()
                continue
            sock.setblocking(False)
            self._incoming.add(sock)
            asyncio.get_running_loop().add_reader(sock.fileno(), self._receive, sock)

    def _receive(self, sock: socket.socket) -> None:
        while True:
            try:
                data, fds, flags, _ = socket.recv_fds(sock, MESSAGE_BYTES, 4)
            except BlockingIOError:
                return
            except OSError:
                data, fds, flags = b"", [], 0
            if not data and not fds:
                self._forget(sock)
                return
            ident, head = _offer(data)
            if ident is None or head is None or len(fds) != 1 or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
                for fd in fds:
                    os.close(fd)
                if ident is not None:
                    self._answer(sock, ident, False)
                continue
            task = asyncio.get_running_loop().create_task(self._adopt(sock, ident, fds[0], head))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _adopt(self, link: socket.socket, ident: int, fd: int, head: bytes) -> None:
        factory = self._factory
        if factory is None:
            os.close(fd)
            self._answer(link, ident, False)
            self._count("declined")
            return
        conn = socket.socket(fileno=fd)
        proto = factory()
        proto.adopted = True
        try:
            await asyncio.get_running_loop().connect_accepted_socket(lambda: proto, conn)
        except Exception:
            conn.close()
            self._answer(link, ident, False)
            self._count("declined")
            return
        self._answer(link, ident, True)
        self._count("adopted")
        proto.data_received(head)  # the handshake, answered from here

    def _answer(self, sock: socket.socket, ident: int, ok: bool) -> None:
        with contextlib.suppress(OSError):
            sock.send(dumps({"id": ident, "ok": ok}).encode())

    def _forget(self, sock: socket.socket) -> None:
        self._incoming.discard(sock)
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(sock.fileno())
        sock.close()


def _offer(data: bytes) -> tuple[int | None, bytes | None]:
    """An offer's id and request head, or Nones for a message that is not one."""
    try:
        message: Any = loads(data)
        ident = int(message["id"])
    except (ValueError, TypeError, KeyError):
        return None, None
    head = message.get("head")
    if not isinstance(head, str):
        return ident, None
    try:
        return ident, head.encode("latin-1")
    except UnicodeEncodeError:
        return ident, None
