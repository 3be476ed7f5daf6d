"""How the app is put on the network: one uvicorn configuration for ``opolyx serve`` and the tests.

uvicorn by itself holds a connection open for ever while it waits for a request's head (its keep-alive
timer only runs between requests), so a client that connects and then sends nothing, or a header a
byte at a time, pins a connection slot. :class:`HeadTimeoutProtocol` drops such connections.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from opolyx.server.settings import Settings

log = logging.getLogger("opolyx.server")


class HeadTimeoutProtocol(HttpToolsProtocol):
    """HTTP/1.1 with a deadline for each request's head, from the connection's (or request's) start."""

    head_timeout: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None

    def _arm_head_timer(self) -> None:
        if self._head_timer is None and self.head_timeout > 0:
            self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm_head_timer()

    def on_headers_complete(self) -> None:
        self._cancel_head_timer()
        super().on_headers_complete()


def protocol_for(settings: Settings) -> type[HeadTimeoutProtocol]:
    """The HTTP protocol with the configured head deadline. The default one is the module's own class, so
    spawned workers (``opolyx serve --workers``), which receive it pickled, can import it by name."""
    if settings.http_header_timeout_seconds == HeadTimeoutProtocol.head_timeout:
        return HeadTimeoutProtocol
    return type("OpolyxHttp", (HeadTimeoutProtocol,), {"head_timeout": settings.http_header_timeout_seconds})


class ReadyServer(uvicorn.Server):
    """Says "ready" only once the port is bound (uvicorn's startup also runs the app's lifespan)."""

    def __init__(self, config: uvicorn.Config, ready_line: str) -> None:
        super().__init__(config)
        self.ready_line = ready_line
        # Called once the server has stopped: uvicorn re-raises a caught SIGTERM after that, so code
        # placed after ``run()`` would never see a signalled stop.
        self.on_stopped: Callable[[], None] | None = None

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        if self.on_stopped is not None:
            self.on_stopped()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            log.info("%s", self.ready_line)
