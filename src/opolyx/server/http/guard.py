"""The server's outer wall, as one ASGI middleware: who may talk to us from a browser, and what every
answer tells the browser about itself.

A browser attaches the session cookie to requests that other sites' pages make, so every request that
changes something (and every socket, which hands out a seat's view) must come from one of our own
pages: the ``Origin`` it carries is checked against the server's own origin and the configured list.
Non-browser clients send no ``Origin`` and authenticate with ``Authorization: Bearer``, which no other
site's page can attach. HTML forms can post across sites without any script, so state-changing
requests must carry JSON (or nothing): a form cannot send ``application/json``.

Every HTTP answer carries a Content-Security-Policy under which the client works (its only inline
script, the import map, is allowed by hash), and headers that forbid framing, sniffing and referrers.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from opolyx.protocol import errors as E

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# No request of the protocol comes near this; a larger body is refused before it is read.
MAX_BODY_BYTES = 1024 * 1024
_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)
# FastAPI's /docs and /redoc pages load Swagger UI / ReDoc from a CDN with an inline bootstrap script.
_DOC_PATHS = ("/docs", "/redoc")
_DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
)


def inline_script_hashes(index_html: Path) -> list[str]:
    """CSP source expressions for the inline scripts of the client's page (today: its import map)."""
    try:
        page = index_html.read_bytes()
    except OSError:
        return []
    return [
        "'sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode() + "'"
        for body in _INLINE_SCRIPT.findall(page)
    ]


def content_security_policy(script_hashes: Iterable[str]) -> str:
    scripts = " ".join(["'self'", *script_hashes])
    return (
        "default-src 'self'; "
        f"script-src {scripts}; "
        "style-src 'self'; "
        "img-src 'self' data:; "
        "connect-src 'self'; "
        "font-src 'self'; "
        "object-src 'none'; "
        "base-uri 'none'; "
        "form-action 'self'; "
        "frame-ancestors 'none'"
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def origin_allowed(scope: Scope, extra: frozenset[str]) -> bool:
    """Whether a request may act on the session it carries: same origin, a configured one, or no
    browser involved at all (no Origin and no cross-site fetch metadata)."""
    if "*" in extra:
        return True
    origin = _header(scope, b"origin")
    if origin is None:
        # Browsers send Origin on every socket and state-changing fetch; fetch metadata catches the rest.
        return _header(scope, b"sec-fetch-site") not in ("cross-site", "same-site")
    origin = origin.strip().rstrip("/").lower()
    if origin in extra:
        return True
    host = (_header(scope, b"host") or "").strip().lower()
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc or not host:
        return False
    default_port = {"http": "80", "ws": "80", "https": "443", "wss": "443"}[parts.scheme]
    return _strip_port(parts.netloc, default_port) == _strip_port(host, default_port)


def _strip_port(netloc: str, default_port: str) -> str:
    return netloc[: -len(default_port) - 1] if netloc.endswith(":" + default_port) else netloc


def _json_media(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def body_refusal(scope: Scope) -> tuple[int, str, str] | None:
    """Non-JSON bodies on state-changing requests are refused (HTML forms can only send those)."""
    content_type = _header(scope, b"content-type")
    if content_type is not None:
        if _json_media(content_type):
            return None
        return 415, E.UNSUPPORTED_MEDIA_TYPE, "send JSON (content-type: application/json) or no body"
    length = _header(scope, b"content-length")
    chunked = "chunked" in (_header(scope, b"transfer-encoding") or "").lower()
    if chunked or (length is not None and length.strip() not in ("", "0")):
        return 415, E.UNSUPPORTED_MEDIA_TYPE, "a body needs content-type: application/json"
    return None


def size_refusal(scope: Scope) -> tuple[int, str, str] | None:
    length = _header(scope, b"content-length")
    chunked = "chunked" in (_header(scope, b"transfer-encoding") or "").lower()
    too_long = length is not None and (not length.strip().isdigit() or int(length) > MAX_BODY_BYTES)
    if chunked or too_long:
        return 413, E.PAYLOAD_TOO_LARGE, f"request bodies are limited to {MAX_BODY_BYTES} bytes, with a Content-Length"
    return None


class GuardMiddleware:
    def __init__(self, app: ASGIApp, *, extra_origins: frozenset[str], index_html: Path) -> None:
        self.app = app
        self.extra_origins = extra_origins
        self.csp = content_security_policy(inline_script_hashes(index_html))

    def security_headers(self, path: str) -> list[tuple[bytes, bytes]]:
        csp = _DOCS_CSP if path.startswith(_DOC_PATHS) else self.csp
        return [
            (b"content-security-policy", csp.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
            (b"cross-origin-opener-policy", b"same-origin"),
            (b"cross-origin-resource-policy", b"same-origin"),
            (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if not origin_allowed(scope, self.extra_origins):
                # Refused before the handshake completes: the page gets no socket, no snapshot.
                await send({"type": "websocket.close", "code": 4403, "reason": E.BAD_ORIGIN})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.security_headers(scope.get("path", ""))
        if scope.get("method", "GET").upper() in UNSAFE_METHODS:
            refusal: tuple[int, str, str] | None = None
            if not origin_allowed(scope, self.extra_origins):
                refusal = (403, E.BAD_ORIGIN, "requests from other sites' pages are refused")
            else:
                refusal = body_refusal(scope) or size_refusal(scope)
            if refusal is not None:
                await _send_error(send, *refusal, extra)
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                message = dict(message, headers=headers + extra)
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _send_error(send: Send, status: int, code: str, message: str, extra: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps({"code": code, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
