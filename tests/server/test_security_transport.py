"""Session transport, Origin/CSRF and headers: what another site's page, a log reader or a page script
could do with a player's session before, and can no longer (docs/security.md)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
from server_kit import Person
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from live_server import ThreadServer


def test_browser_sessions_keep_the_token_out_of_page_scripts(server: ThreadServer) -> None:
    with httpx.Client(base_url=server.base) as c:
        r = c.post("/api/session", json={"nickname": "Ann"})
        assert r.status_code == 200
        assert r.json()["token"] is None  # a page script cannot read it from the body
        cookie = r.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
        assert c.get("/api/session").json()["nickname"] == "Ann"  # the cookie alone is enough
    # Clients without a cookie jar opt in explicitly and get a token that works as a Bearer header.
    r = httpx.post(server.base + "/api/session", json={"nickname": "Script", "token": True})
    token = r.json()["token"]
    assert token and httpx.get(server.base + "/api/session", headers={"Authorization": f"Bearer {token}"}).is_success


def test_cookie_is_secure_behind_https(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(cookie_secure=True)
    r = httpx.post(srv.base + "/api/session", json={"nickname": "Ann"})
    assert "secure" in r.headers["set-cookie"].lower()


def test_socket_ignores_a_token_in_the_url(server: ThreadServer, people: Callable[[str], Person]) -> None:
    """A URL token ends up in access logs and browser history; it no longer authenticates."""
    ann = people("Ann")
    room = ann.create()
    url = server.base.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}?token={ann.token}"
    with connect(url, open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["code"] == "not_authenticated"
    # The Authorization header works for clients that cannot hold cookies.
    bearer = {"Authorization": f"Bearer {ann.token}"}
    with connect(url.split("?")[0], additional_headers=bearer, open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"


def test_socket_from_another_sites_page_is_refused(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    room = ann.create()
    url = server.base.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
    cookie = f"opolyx_session={ann.token}"
    evil = "https://evil.example"
    with pytest.raises(InvalidStatus) as info, connect(url, additional_headers={"Cookie": cookie}, origin=evil):  # type: ignore[arg-type]
        pass
    assert info.value.response.status_code == 403
    # Our own page (same host and port as the server) is fine.
    own = server.base
    with connect(url, additional_headers={"Cookie": cookie}, origin=own, open_timeout=10) as ws:  # type: ignore[arg-type]
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"


def test_configured_origins_are_allowed(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(allowed_origins="https://play.example.org, https://other.example")
    r = httpx.post(srv.base + "/api/session", json={"nickname": "Ann"}, headers={"Origin": "https://play.example.org"})
    assert r.status_code == 200
    r = httpx.post(srv.base + "/api/session", json={"nickname": "Ann"}, headers={"Origin": "https://third.example"})
    assert r.status_code == 403 and r.json()["code"] == "bad_origin"


def test_cross_site_requests_and_html_forms_cannot_act(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    room = ann.create()
    cookies = {"opolyx_session": ann.token}
    leave = f"/api/rooms/{room['id']}/leave"
    with httpx.Client(base_url=server.base, cookies=cookies) as c:
        # Another site's page posting with the player's cookie.
        r = c.post(leave, headers={"Origin": "https://evil.example"})
        assert r.status_code == 403 and r.json()["code"] == "bad_origin"
        r = c.post(leave, headers={"Sec-Fetch-Site": "cross-site"})
        assert r.status_code == 403 and r.json()["code"] == "bad_origin"
        # A plain HTML form (no script needed) sends form-encoded or text bodies: refused.
        for content_type in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"):
            r = c.post(leave, content=b"a=b", headers={"content-type": content_type})
            assert r.status_code == 415 and r.json()["code"] == "unsupported_media_type", content_type
        r = c.post("/api/session", content=b'{"nickname": "Eve"}', headers={"content-type": "text/plain"})
        assert r.status_code == 415
        # Nothing happened: Ann still sits in her room.
        assert c.get("/api/session").json()["room"] == room["id"]
        # Our own page's fetch: same origin, JSON or no body.
        r = c.post(leave, headers={"Origin": server.base})
        assert r.status_code == 200
        assert c.get("/api/session").json()["room"] is None


def test_security_headers_on_every_answer(server: ThreadServer) -> None:
    for path in ("/", "/js/main.js", "/api/rooms", "/healthz", "/nope"):
        r = httpx.get(server.base + path)
        h = r.headers
        csp = h["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
        assert "script-src 'self' 'sha256-" in csp  # the page's import map, by hash
        assert h["x-content-type-options"] == "nosniff"
        assert h["x-frame-options"] == "DENY"
        assert h["referrer-policy"] == "no-referrer"
        assert "server" not in h, path


def test_connections_that_never_send_a_request_are_dropped(start_server: Callable[..., ThreadServer]) -> None:
    import socket
    import time

    srv = start_server(http_header_timeout_seconds=1.0)
    with socket.create_connection(("127.0.0.1", srv.settings.port), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        t0 = time.monotonic()
        assert s.recv(100) == b""  # closed by the server
        assert time.monotonic() - t0 < 8
    with socket.create_connection(("127.0.0.1", srv.settings.port), timeout=10) as s:
        assert s.recv(100) == b""  # silent from the start
