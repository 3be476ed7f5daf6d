"""How uvicorn serves opolyx: the options ``opolyx serve``, its workers and the test servers share.

Compression of room WebSockets dominates the server's CPU at human pace: every socket compresses every
frame (a Classic ``events`` frame is about 5 KB) in its own deflate context. uvicorn compresses at zlib's
default level 6; level 1 takes about half the time for frames about 15 % larger (measured on ``events``
frames of a Classic game: 19 % → 22 % of their size), so that is what opolyx negotiates.
"""

from __future__ import annotations

import logging
from typing import Any

import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

from opolyx.server.serving import protocol_for
from opolyx.server.settings import Settings

DEFLATE_LEVEL = 1


class RoomSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, with permessage-deflate at :data:`DEFLATE_LEVEL`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            # Same window and memory as uvicorn's own offer; only the effort per byte differs.
            self.conn = ServerProtocol(
                extensions=[
                    ServerPerMessageDeflateFactory(
                        server_max_window_bits=12,
                        client_max_window_bits=12,
                        compress_settings={"memLevel": 5, "level": DEFLATE_LEVEL},
                    )
                ],
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.Config`` / ``uvicorn.run`` (picklable, for spawned workers)."""
    return {
        "host": settings.host,
        "port": settings.port,
        "http": protocol_for(settings),
        "ws": RoomSocketProtocol,
        "ws_max_size": settings.ws_hard_max_bytes,
        "ws_per_message_deflate": settings.ws_deflate,
        "lifespan": "on",
        # Connection hygiene (docs/security.md): no server banner, a cap on open connections, idle
        # keep-alive connections dropped, and request heads that never finish dropped (HeadTimeoutProtocol).
        "server_header": False,
        "limit_concurrency": settings.http_limit_concurrency or None,
        "timeout_keep_alive": max(1, round(settings.http_keep_alive_seconds)),
    }


def uvicorn_config(app: Any, settings: Settings, *, log_level: str = "info") -> uvicorn.Config:
    """One process's server configuration (``opolyx serve`` and the test servers)."""
    return uvicorn.Config(app, log_level=log_level, **uvicorn_options(settings))
