"""The MCP connector as a streamable-HTTP endpoint on the game server (``/mcp``).

Each request must carry a personal API key (``Authorization: Bearer opx_...``); requests without a
live key are refused with 401 before the MCP layer sees them. The agents behind one key share one
:class:`AgentPlayer`, which plays through the server's public protocol (HTTP and the room socket on
this server's own address), so an agent connected here is served exactly like one running
``opolyx mcp`` on its own machine: the same door, clocks, rate limits and visibility as a person.
The endpoint is stateless on the MCP side (no MCP session to keep): who the caller is comes from the
key, and the table it sits at lives in the pool until the key stays unused for a while.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from mcp.server.mcpserver import Context
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Message, Receive, Scope, Send

from opolyx.client import Client, OpolyxError
from opolyx.mcp.agent import AgentPlayer
from opolyx.mcp.tools import build_server
from opolyx.server.accounts.apikeys import is_api_key, key_digest, user_for_key
from opolyx.server.agents.waits import SCOPE_KEY, McpCall, WaitGate

log = logging.getLogger(__name__)

PATH = "/mcp"
REVOKED = (
    "the server no longer accepts this API key (revoked, or its account deleted); make a new key on "
    "your profile page; retrying will not help"
)
# An agent's table is closed after this long without a tool call (its seat plays on under the clocks).
IDLE_SECONDS = 30 * 60.0
# A refused request's body is read at most this far to see whether it is a tool call.
MAX_PEEK = 64 * 1024


def bearer(headers: Any) -> str | None:
    auth = str(headers.get("authorization", "")) if headers is not None else ""
    return auth[7:].strip() if auth.lower().startswith("bearer ") else None


class AgentPool:
    """The live agents of this process, one per API key."""

    def __init__(self, server_url: str, idle_seconds: float = IDLE_SECONDS) -> None:
        self.server_url = server_url
        self.idle_seconds = idle_seconds
        self.agents: dict[str, tuple[AgentPlayer, float]] = {}
        self._lock = asyncio.Lock()

    async def get(self, key: str, app: Any, address: str) -> AgentPlayer:
        """The key's agent, made on first use. Its lobby calls go straight into ``app`` in this
        process, as from ``address`` (the agent's own), so per-address limits count each agent apart
        instead of all of them as this server's loopback address."""
        digest = key_digest(key)
        async with self._lock:
            await self._sweep()
            entry = self.agents.get(digest)
            if entry is None:
                transport = httpx.ASGITransport(app=app, client=(address, 0)) if app is not None else None
                # The room socket goes over this server's own address; uvicorn trusts X-Forwarded-For
                # from loopback (its default), so socket limits and chat buckets see the agent's address.
                relay = {"X-Forwarded-For": address}
                agent = AgentPlayer(Client(self.server_url, token=key, transport=transport, headers=relay))
            else:
                agent = entry[0]
            self.agents[digest] = (agent, time.monotonic())
            return agent

    async def forget(self, key: str) -> None:
        """Close the table of a key that no longer works (revoked): its socket must not play on."""
        async with self._lock:
            entry = self.agents.pop(key_digest(key), None)
        if entry is not None:
            await entry[0].close()

    async def _sweep(self) -> None:
        now = time.monotonic()
        for digest, (agent, used) in list(self.agents.items()):
            if now - used > self.idle_seconds and not agent.lock.locked():
                del self.agents[digest]
                await agent.close()

    async def close(self) -> None:
        async with self._lock:
            for agent, _ in self.agents.values():
                with contextlib.suppress(Exception):
                    await agent.close()
            self.agents.clear()


class McpEndpoint:
    """The ASGI app at ``/mcp``: checks the key, then hands the request to the SDK's transport."""

    def __init__(self, server_url: str) -> None:
        self.pool = AgentPool(server_url)
        self.waits = WaitGate()

        async def resolve(ctx: Context) -> AgentPlayer:
            key = bearer(ctx.headers)
            if key is None:
                raise OpolyxError("not_authenticated", "send your API key as Authorization: Bearer <key>")
            request = ctx.request_context.request
            scope = getattr(request, "scope", {})
            client = scope.get("client")
            return await self.pool.get(key, scope.get("app"), client[0] if client else "unknown")

        self.mcp = build_server(resolve, self.waits)
        # Building the SDK's app creates its session manager; only the manager is used (mounted below).
        self.mcp.streamable_http_app(
            stateless_http=True,
            json_response=True,
            # Agents send no Origin and the key is the guard; the server may sit behind any host
            # name, so the Host check is left to the proxy in front of it.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.manager: StreamableHTTPSessionManager = self.mcp.session_manager

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run():
            try:
                yield
            finally:
                await self.pool.close()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        key = bearer(headers)
        user = None
        services = scope["app"].state.services
        if key is not None and is_api_key(key):
            user = await user_for_key(services.store, key)
        if user is not None and not await services.limiter.take("ws", f"mcp:{user.id}"):
            # Tool calls draw on the same allowance as a person's socket frames.
            wait = retry_after(services.limiter, "ws")
            message = "too many tool calls; slow down"
            if await _tool_error(receive, send, f"rate_limited: {message} (retry_after={wait} s)", wait):
                return
            body = {"code": "rate_limited", "message": message, "retry_after": wait}
            await _json(send, 429, body, [(b"retry-after", str(wait).encode())])
            return
        if user is None:
            if key is not None:
                await self.pool.forget(key)
                if is_api_key(key) and await _tool_error(receive, send, f"not_authenticated: {REVOKED}"):
                    # A model mid-game reads why its calls fail instead of a transport error.
                    return
            message = "the MCP endpoint needs a live personal API key (Bearer)"
            challenge = [(b"www-authenticate", b"Bearer")]
            await _json(send, 401, {"code": "not_authenticated", "message": message}, challenge)
            return
        assert key is not None
        client = scope.get("client")
        call = McpCall(key_digest(key), user.id, client[0] if client else "unknown")
        scope[SCOPE_KEY] = call
        await self._handle(scope, receive, send, call)

    async def _handle(self, scope: Scope, receive: Receive, send: Send, call: McpCall) -> None:
        """Hand the request to the SDK, and set ``call.gone`` when its client disconnects: the SDK reads
        nothing after the body, so a dropped client would otherwise go unnoticed until a wait ends."""
        body_read = asyncio.Event()

        async def relay() -> Message:
            if body_read.is_set():
                await call.gone.wait()
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.disconnect":
                call.gone.set()
            elif not message.get("more_body", False):
                body_read.set()
            return message

        async def watch() -> None:
            await body_read.wait()
            # The server answers this once the client has gone (or the response is complete).
            with contextlib.suppress(Exception):
                while (await receive())["type"] != "http.disconnect":
                    pass
            call.gone.set()

        watcher = asyncio.create_task(watch())
        try:
            await self.manager.handle_request(scope, relay, send)
        finally:
            watcher.cancel()


def retry_after(limiter: Any, kind: str) -> int:
    """Whole seconds until the limiter gives one more token of ``kind`` (its refill rate)."""
    rule = getattr(limiter, "rules", {}).get(kind)
    rate = float(getattr(rule, "per_second", 1.0) or 0.0)
    return max(1, math.ceil(1.0 / rate)) if rate > 0 else 60


async def _tool_error(receive: Receive, send: Send, text: str, wait: int | None = None) -> bool:
    """Answer a ``tools/call`` refused before the MCP layer as that tool's error (``isError``), which the
    SDK hands to the model with its code; False (nothing sent) for any other request, which keeps its
    HTTP status. The request's body is read here; nothing else reads it after a refusal."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return False
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False) or sum(map(len, chunks)) > MAX_PEEK:
            break
    try:
        request = json.loads(b"".join(chunks))
    except ValueError:
        return False
    if not isinstance(request, dict) or request.get("method") != "tools/call" or "id" not in request:
        return False
    result = {"content": [{"type": "text", "text": text}], "isError": True, "resultType": "complete"}
    headers = [(b"retry-after", str(wait).encode())] if wait is not None else []
    await _json(send, 200, {"jsonrpc": "2.0", "id": request["id"], "result": result}, headers)
    return True


async def _json(
    send: Send, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *(headers or [])],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})
