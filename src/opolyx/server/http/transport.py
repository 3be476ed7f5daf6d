"""How uvicorn serves opolyx: the options ``opolyx serve``, its workers and the test servers share.

Compression of room WebSockets dominates the server's CPU at human pace: every socket compresses every
frame in its own deflate context. uvicorn compresses at zlib's default level 6; level 1 takes about half
the time for frames only slightly larger, so that is what opolyx negotiates.

uvicorn's window is 4 KiB (``server_max_window_bits=12``): smaller than one ``events`` frame, so each frame
is compressed as if it were the first. Consecutive frames of a room differ in a few hundred bytes; with an
8 KiB window (13 bits) the compressor finds the previous frame and emits mostly back-references, which
saves both CPU and bytes for 16 KiB more memory per socket. A 16 KiB window saves a little more CPU at
twice that memory; at thousands of sockets the memory is worth more (figures: ``benchmarks/README.md``,
``benchmarks/deflate.py``).
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

import uvicorn
from uvicorn.config import Config
from uvicorn.protocols.utils import is_ssl
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.exceptions import InvalidState
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.http11 import Request
from websockets.server import ServerProtocol

from opolyx.server.http.serving import protocol_for
from opolyx.server.settings import Settings

DEFLATE_LEVEL = 1
DEFLATE_WINDOW_BITS = 13
# The ASGI scope extension under which a room socket finds RoomSocketProtocol.write_text.
DIRECT_SEND = "opolyx.direct_send"
# The scope extension under which a room socket finds its RoomSocketProtocol, to hand the connection to
# the process that owns its room (handoff.py).
SOCKET_PROTOCOL = "opolyx.socket_protocol"


class RoomSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with three changes for thousands of mostly idle sockets:
    permessage-deflate at :data:`DEFLATE_LEVEL` over a window of :data:`DEFLATE_WINDOW_BITS`, a direct
    send for the room's frames, keepalive pings only for sockets that have gone quiet, and a way to
    give the connection, before its handshake is answered, to another process on this machine."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: Any = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.server_state = server_state
        self.heard_at = self.loop.time()
        # The request head as uvicorn's HTTP protocol handed it over: what another process replays to
        # take the connection over. None once the handshake has begun to be answered.
        self.head: bytes | None = None
        self.adopted = False  # taken over from another process: never handed on again
        self.handed_off = False
        if self.config.ws_per_message_deflate:
            # What clients send (actions, chat, pings) is small: their window stays uvicorn's 4 KiB.
            self.conn = ServerProtocol(
                extensions=[
                    ServerPerMessageDeflateFactory(
                        server_max_window_bits=DEFLATE_WINDOW_BITS,
                        client_max_window_bits=12,
                        compress_settings={"memLevel": 5, "level": DEFLATE_LEVEL},
                    )
                ],
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )

    def data_received(self, data: bytes) -> None:
        self.heard_at = self.loop.time()
        if not self.handshake_initiated and self.head is None:
            self.head = data
        super().data_received(data)

    def send_keepalive_ping(self) -> None:
        """Ping only a socket that has been quiet for a whole interval.

        uvicorn pings every socket every interval, whatever it hears: one more frame out and one in per
        socket and interval (about a tenth of the writes and a quarter of the reads at human pace), where
        the browser already sends its own ping every 20 s. Anything received proves the peer alive just
        as well as a pong.
        """
        quiet = self.loop.time() - self.heard_at
        interval = self.ping_interval or 0.0
        if quiet < interval and not self.close_sent:
            self.ping_timer = self.loop.call_later(interval - quiet, self.send_keepalive_ping)
            return
        super().send_keepalive_ping()

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the handshake was accepted; the app's task has not started yet
            scope["extensions"][DIRECT_SEND] = self.write_text
            scope["extensions"][SOCKET_PROTOCOL] = self

    # --- handing the connection to another process (handoff.py) --------------------------------------

    def handoff_fd(self) -> int | None:
        """A duplicate of the connection's file descriptor for another process, with reading paused; None
        if this connection cannot move: already moved once, TLS (its state lives in this process), the
        handshake answered, or bytes beyond the request head already received."""
        if (
            self.adopted
            or self.head is None
            or self.handshake_complete
            or self.close_sent
            or self.transport.is_closing()
            or is_ssl(self.transport)
            or self.conn.reader.buffer
        ):
            return None
        sock = self.transport.get_extra_info("socket")
        if sock is None:
            return None
        self.transport.pause_reading()
        return os.dup(sock.fileno())

    def handed_over(self) -> None:
        """The other process holds the connection now: let go of it here without a byte or a close
        frame (closing this process's descriptor leaves the connection open in the other's)."""
        self.handed_off = True
        self.handshake_complete = True  # uvicorn answers nothing for an app that never accepted
        self.close_sent = True
        self.stop_keepalive()
        # The negotiated compressor (about 50 KiB) is dropped now rather than when the garbage collector
        # next reaches this protocol's reference cycles (minutes, see OPOLYX_GC_FULL_SECONDS).
        self.conn.extensions = []
        self.transport.abort()

    def kept(self) -> None:
        """The other process did not take the connection: serve it here after all."""
        if not self.transport.is_closing():
            self.transport.resume_reading()

    def send_500_response(self) -> None:
        if not self.handed_off:
            super().send_500_response()

    def write_text(self, text: str) -> bool:
        """Frame, compress and hand ``text`` to the transport now, from the caller's stack.

        The ASGI way to send is a queue and a writer task per socket, then Starlette's and uvicorn's
        ``send`` coroutines: at a few thousand players that plumbing, paid on every socket for every
        frame, cost more than the game. A room socket whose queue is empty sends through here instead;
        False means "use the ASGI send" (the transport is full, closing, or the handshake not done), which
        waits or raises as it should.
        """
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        try:
            self.conn.send_text(text.encode())
        except InvalidState:
            return False
        except Exception:
            # Never let one socket's failure break a broadcast to the others: the ASGI send, in the
            # socket's writer task, meets the same failure and closes the socket.
            logging.getLogger("opolyx.server").debug("direct send failed", exc_info=True)
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


# How long a stopping server lets requests in flight finish.
SHUTDOWN_GRACE_SECONDS = 3

# A secret in a query string (``?token=…``, a personal key ``opx_…`` anywhere in the path): refused by the
# server (tokens are read from the cookie or the Authorization header only), and kept out of the access log.
_QUERY_SECRET = re.compile(r"(?i)([?&;](?:token|access_token|key|api_key|apikey|secret|session)=)[^&;#\s]*")
_KEY_IN_PATH = re.compile(r"opx_[A-Za-z0-9_\-]+")
REDACTED = "[redacted]"


def redact_secrets(path: str) -> str:
    """``path`` (with its query string) as the access log may show it."""
    return _KEY_IN_PATH.sub(REDACTED, _QUERY_SECRET.sub(r"\1" + REDACTED, path))


class RedactSecrets(logging.Filter):
    """Rewrites uvicorn's access-log records (arguments: client, method, path with query, version, status)
    so that a token sent in a URL by mistake never reaches the log, its files or their readers."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact_secrets(a) if isinstance(a, str) else a for a in record.args)
        return True


def redact_access_log() -> None:
    """Install :class:`RedactSecrets` on uvicorn's access logger, once per process."""
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactSecrets) for f in logger.filters):
        logger.addFilter(RedactSecrets())


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.Config`` / ``uvicorn.run`` (picklable, for spawned workers)."""
    return {
        "host": settings.host,
        "port": settings.port,
        "http": protocol_for(settings),
        "ws": RoomSocketProtocol,
        "ws_max_size": settings.ws_hard_max_bytes,
        "ws_per_message_deflate": settings.ws_deflate,
        "ws_ping_interval": settings.ws_ping_seconds,
        "ws_ping_timeout": settings.ws_ping_seconds,
        "lifespan": "on",
        # Connection hygiene (docs/security.md): no server banner, a cap on open connections, idle
        # keep-alive connections dropped, and request heads that never finish dropped (HeadTimeoutProtocol).
        "server_header": False,
        "limit_concurrency": settings.http_limit_concurrency or None,
        "timeout_keep_alive": max(1, round(settings.http_keep_alive_seconds)),
        # A stop (SIGTERM) waits this long for requests in flight, then cancels them: a parked /mcp wait
        # (up to a minute each, docs/security.md) must not hold the server up.
        "timeout_graceful_shutdown": SHUTDOWN_GRACE_SECONDS,
    }


def uvicorn_config(app: Any, settings: Settings, *, log_level: str = "info") -> uvicorn.Config:
    """One process's server configuration (``opolyx serve`` and the test servers)."""
    return uvicorn.Config(app, log_level=log_level, **uvicorn_options(settings))
