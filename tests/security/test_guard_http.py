"""The HTTP wall (server/http/guard.py) and the rate limiter (server/http/ratelimit.py), from the
attacker's side and without a server (issue 46): each request a check refuses, next to the closest one
it lets through, so that moving a boundary or dropping a condition fails a test."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest

from opolyx.server.http.guard import (
    MAX_BODY_BYTES,
    GuardMiddleware,
    body_refusal,
    content_security_policy,
    inline_script_hashes,
    origin_allowed,
    size_refusal,
)
from opolyx.server.http.ratelimit import RateLimiter, Rule, SharedRateLimiter, SocketCounter


def scope(method: str = "POST", path: str = "/api/rooms", kind: str = "http", **headers: str) -> dict[str, Any]:
    raw = [(k.replace("_", "-").encode(), v.encode("latin-1")) for k, v in headers.items()]
    return {"type": kind, "method": method, "path": path, "headers": raw}


NONE: frozenset[str] = frozenset()


# --- origins --------------------------------------------------------------------------------------------


def test_another_sites_page_is_refused_and_our_own_allowed() -> None:
    assert origin_allowed(scope(host="play.example.org", origin="https://play.example.org"), NONE)
    assert origin_allowed(scope(host="play.example.org", origin="https://play.example.org/"), NONE)
    assert origin_allowed(scope(host="play.example.org", origin="HTTPS://Play.Example.org"), NONE)
    assert not origin_allowed(scope(host="play.example.org", origin="https://evil.example"), NONE)
    assert not origin_allowed(scope(host="play.example.org", origin="https://play.example.org.evil.example"), NONE)
    assert not origin_allowed(scope(host="play.example.org", origin="null"), NONE)
    assert not origin_allowed(scope(host="play.example.org", origin="file://play.example.org"), NONE)
    assert not origin_allowed(scope(host="play.example.org", origin="https://"), NONE)
    assert not origin_allowed(scope(origin="https://play.example.org"), NONE), "no Host: nothing to compare"
    assert not origin_allowed(scope(origin="https://"), NONE), "an empty origin never matches an empty host"


def test_default_ports_match_and_other_ports_do_not() -> None:
    assert origin_allowed(scope(host="example.org:443", origin="https://example.org"), NONE)
    assert origin_allowed(scope(host="example.org", origin="https://example.org:443"), NONE)
    assert origin_allowed(scope(host="example.org:80", origin="http://example.org"), NONE)
    assert origin_allowed(scope(host="example.org", origin="wss://example.org:443"), NONE)
    assert origin_allowed(scope(host="example.org:8000", origin="http://example.org:8000"), NONE)
    assert not origin_allowed(scope(host="example.org:8000", origin="http://example.org"), NONE)
    assert not origin_allowed(scope(host="example.org", origin="http://example.org:8080"), NONE)
    assert not origin_allowed(scope(host="example.org:443", origin="http://example.org"), NONE), "80 is not 443"


def test_configured_origins_and_the_wildcard() -> None:
    extra = frozenset({"https://app.example.net"})
    assert origin_allowed(scope(host="api.example.org", origin="https://app.example.net/"), extra)
    assert not origin_allowed(scope(host="api.example.org", origin="https://other.example.net"), extra)
    assert origin_allowed(scope(host="api.example.org", origin="https://anyone.example"), frozenset({"*"}))


def test_no_origin_is_a_program_unless_fetch_metadata_says_cross_site() -> None:
    assert origin_allowed(scope(host="example.org"), NONE)
    assert origin_allowed(scope(host="example.org", sec_fetch_site="same-origin"), NONE)
    assert origin_allowed(scope(host="example.org", sec_fetch_site="none"), NONE)
    assert not origin_allowed(scope(host="example.org", sec_fetch_site="cross-site"), NONE)
    assert not origin_allowed(scope(host="example.org", sec_fetch_site="same-site"), NONE)


# --- bodies ---------------------------------------------------------------------------------------------


def test_only_json_bodies_change_state() -> None:
    assert body_refusal(scope(content_type="application/json")) is None
    assert body_refusal(scope(content_type="Application/JSON; charset=utf-8")) is None
    assert body_refusal(scope(content_type="application/problem+json")) is None
    assert body_refusal(scope()) is None
    assert body_refusal(scope(content_length="0")) is None
    assert body_refusal(scope(content_length="")) is None
    for form in ("application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"):
        assert body_refusal(scope(content_type=form)) == (
            415,
            "unsupported_media_type",
            "send JSON (content-type: application/json) or no body",
        ), form
    assert body_refusal(scope(content_type="text/json")) is not None
    assert body_refusal(scope(content_type="application/jsonx")) is not None
    for headers in ({"content_length": "12"}, {"transfer_encoding": "Chunked"}):
        assert body_refusal(scope(**headers)) == (
            415,
            "unsupported_media_type",
            "a body needs content-type: application/json",
        ), headers


def test_bodies_are_limited_to_one_mebibyte_with_a_length() -> None:
    assert MAX_BODY_BYTES == 1024 * 1024
    assert size_refusal(scope(content_length=str(MAX_BODY_BYTES))) is None
    assert size_refusal(scope()) is None
    refused = size_refusal(scope(content_length=str(MAX_BODY_BYTES + 1)))
    assert refused is not None and refused[:2] == (413, "payload_too_large") and str(MAX_BODY_BYTES) in refused[2]
    assert size_refusal(scope(content_length="12abc")) is not None
    assert size_refusal(scope(content_length="-1")) is not None
    assert size_refusal(scope(transfer_encoding="chunked")) is not None


# --- headers ----------------------------------------------------------------------------------------------


def _csp_hash(body: bytes) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode() + "'"


def test_the_csp_allows_our_scripts_only(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_bytes(b'<script type="importmap">{\n"a": 1\n}</script><script src="/x.js"></script><SCRIPT>b()</SCRIPT>')
    hashes = inline_script_hashes(page)
    assert hashes == [_csp_hash(b'{\n"a": 1\n}'), _csp_hash(b"b()")]  # across lines, any case
    assert inline_script_hashes(tmp_path / "missing.html") == []
    csp = content_security_policy(hashes)
    assert f"script-src 'self' {hashes[0]} {hashes[1]};" in csp
    for part in ("default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"):
        assert part in csp
    assert "unsafe-inline" not in csp


class _App:
    def __init__(self) -> None:
        self.called = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.called += 1
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"server", b"uvicorn")]})
            await send({"type": "http.response.body", "body": b"ok"})


def _call(app: GuardMiddleware, s: dict[str, Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    asyncio.run(app(s, receive, send))
    return sent


@pytest.fixture
def guarded(tmp_path: Path) -> tuple[GuardMiddleware, _App]:
    inner = _App()
    return GuardMiddleware(inner, extra_origins=NONE, index_html=tmp_path / "none.html"), inner


def test_a_cross_site_socket_is_closed_before_the_handshake(guarded: tuple[GuardMiddleware, _App]) -> None:
    app, inner = guarded
    sent = _call(app, scope("GET", "/ws/rooms/x", "websocket", host="a.example", origin="https://evil.example"))
    assert sent == [{"type": "websocket.close", "code": 4403, "reason": "bad_origin"}] and inner.called == 0
    _call(app, scope("GET", "/ws/rooms/x", "websocket", host="a.example", origin="https://a.example"))
    assert inner.called == 1


def test_a_cross_site_post_is_refused_with_headers_and_a_get_is_not(guarded: tuple[GuardMiddleware, _App]) -> None:
    app, inner = guarded
    for method in ("POST", "PUT", "PATCH", "DELETE", "delete"):
        sent = _call(app, scope(method, host="a.example", origin="https://evil.example"))
        assert sent[0]["status"] == 403 and b'"bad_origin"' in sent[1]["body"], method
        assert (b"x-frame-options", b"DENY") in sent[0]["headers"]
    assert inner.called == 0
    sent = _call(app, scope("GET", host="a.example", origin="https://evil.example"))
    assert inner.called == 1 and sent[0]["status"] == 200
    headers = dict(sent[0]["headers"])
    assert b"server" not in headers, "the server's name is not told"
    assert headers[b"x-content-type-options"] == b"nosniff" and headers[b"referrer-policy"] == b"no-referrer"
    assert b"unsafe-inline" not in headers[b"content-security-policy"]


def test_a_form_post_and_an_oversized_body_are_refused(guarded: tuple[GuardMiddleware, _App]) -> None:
    app, inner = guarded
    form = _call(app, scope(host="a.example", origin="https://a.example", content_type="text/plain"))
    assert form[0]["status"] == 415
    big = _call(app, scope(host="a.example", content_type="application/json", content_length=str(MAX_BODY_BYTES + 1)))
    assert big[0]["status"] == 413 and inner.called == 0
    ok = _call(app, scope(host="a.example", content_type="application/json", content_length="2"))
    assert ok[0]["status"] == 200 and inner.called == 1


def test_the_api_docs_get_their_own_policy(guarded: tuple[GuardMiddleware, _App]) -> None:
    app, _ = guarded
    docs = dict(_call(app, scope("GET", "/docs"))[0]["headers"])[b"content-security-policy"]
    page = dict(_call(app, scope("GET", "/"))[0]["headers"])[b"content-security-policy"]
    assert b"cdn.jsdelivr.net" in docs and b"cdn.jsdelivr.net" not in page


def test_lifespan_passes_through(guarded: tuple[GuardMiddleware, _App]) -> None:
    app, inner = guarded
    assert _call(app, {"type": "lifespan"}) == [] and inner.called == 1


# --- rate limits ------------------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 1.0  # small, as after a boot: (now - at) and (now % at) differ

    def __call__(self) -> float:
        return self.t


def test_a_burst_then_refusal_then_refill_at_the_rate() -> None:
    clock = Clock()
    lim = RateLimiter({"x": Rule(3, 0.5)}, now=clock)
    assert [lim.allow("x", "user:a") for _ in range(4)] == [True, True, True, False]
    clock.t += 1.9  # 0.95 of a token
    assert not lim.allow("x", "user:a")
    clock.t += 0.1
    assert lim.allow("x", "user:a") and not lim.allow("x", "user:a")
    clock.t += 3600  # refilled, but never past the burst
    assert [lim.allow("x", "user:a") for _ in range(4)] == [True, True, True, False]
    assert lim.allow("x", "user:b"), "each key its own bucket"


def test_an_address_gets_the_factor_in_burst_and_rate() -> None:
    clock = Clock()
    lim = RateLimiter({"x": Rule(2, 0.5)}, address_factor=3.0, now=clock)
    assert sum(lim.allow("x", "addr:1.2.3.4") for _ in range(10)) == 6
    clock.t += 1.0  # 1.5 tokens at three times the rate
    assert lim.allow("x", "addr:1.2.3.4") and not lim.allow("x", "addr:1.2.3.4")
    assert sum(lim.allow("x", "user:addr") for _ in range(10)) == 2, "a person's bucket has no factor"


def test_a_token_is_taken_from_every_bucket_or_from_none() -> None:
    clock = Clock()
    lim = RateLimiter({"x": Rule(2, 0.001)}, now=clock)
    assert lim.allow("x", "user:a")
    assert lim.allow("x", "user:a", "addr:1")
    assert not lim.allow("x", "user:a", "addr:1")  # the person is out
    assert [lim.allow("x", "addr:1") for _ in range(2)] == [True, False], "the refusal took nothing from addr:1"
    assert asyncio.run(lim.take("x", "user:b"))


def test_idle_buckets_are_pruned_past_fifty_thousand_and_ten_idle_minutes() -> None:
    clock = Clock()
    lim = RateLimiter({"x": Rule(1, 1.0)}, now=clock)
    for i in range(49_999):
        lim.allow("x", f"user:old{i}")
    clock.t += 1
    lim.allow("x", "user:mid")
    clock.t += 600  # the old ones idle 601 s, mid exactly 600 s
    lim.allow("x", "user:old0")  # 50_000 buckets: not more than the limit, nothing pruned
    assert len(lim._buckets) == 50_000
    lim.allow("x", "user:new")  # 50_001: buckets idle for more than 600 s go
    assert set(lim._buckets) == {("x", "user:old0"), ("x", "user:mid"), ("x", "user:new")}


class _FakeRedis:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls: list[tuple[list[str], list[float]]] = []

    def register_script(self, text: str) -> Any:
        async def run(*, keys: list[str], args: list[float]) -> Any:
            self.calls.append((keys, args))
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer

        return run


def test_the_shared_limiter_sends_each_buckets_size_and_rate() -> None:
    redis = _FakeRedis(1)
    lim = SharedRateLimiter({"x": Rule(2, 0.5)}, redis, address_factor=4.0)  # type: ignore[arg-type]
    assert asyncio.run(lim.take("x", "addr:1", "user:a"))
    [(keys, args)] = redis.calls
    assert keys == ["opolyx:rate:x:addr:1", "opolyx:rate:x:user:a"]
    assert args[1:] == [8.0, 2.0, 2.0, 0.5] and args[0] > 1e9
    redis.answer = 0
    assert asyncio.run(lim.take("x", "user:a")) is False


def test_without_redis_the_shared_limiter_falls_back_to_its_own_buckets() -> None:
    lim = SharedRateLimiter({"x": Rule(1, 0.001)}, _FakeRedis(ConnectionError("down")))  # type: ignore[arg-type]
    assert asyncio.run(lim.take("x", "user:a")) is True
    assert asyncio.run(lim.take("x", "user:a")) is False, "still limited, by this process"


def test_open_sockets_are_capped_per_key() -> None:
    c = SocketCounter()
    keys = ("user:a", "addr:1")
    assert c.open(keys, (2, 3)) is None and c.open(keys, (2, 3)) is None
    assert c.open(keys, (2, 3)) == "at most 2 open sockets per session; close some first"
    c.close(keys)
    assert c.open(("user:b", "addr:1"), (5, 2)) == "at most 2 open sockets per address; close some first"
    c.close(("user:b", "addr:1"))
    c.close(keys)
    assert c.open(keys, (2, 3)) is None, "closing gives the place back"
    c.close(keys)
    c.close(keys)
    c.close(keys)  # more closes than opens never goes negative
    assert c._open == {}


def test_closing_one_socket_keeps_counting_the_others() -> None:
    c = SocketCounter()
    key = ("user:a",)
    assert c.open(key, (2,)) is None and c.open(key, (2,)) is None
    c.close(key)  # one of two closed: one is still open
    assert c.open(key, (2,)) is None
    assert c.open(key, (2,)) == "at most 2 open sockets per session; close some first"


def test_keys_and_caps_must_pair_up() -> None:
    with pytest.raises(ValueError):
        SocketCounter().open(("user:a", "addr:1"), (2,))


def test_a_rule_cannot_be_changed_once_made() -> None:
    """Rules are shared by every request: a handler changing one would change everyone's limit."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rule(1, 1.0).burst = 1000  # type: ignore[misc]


def test_the_shared_limiter_gives_addresses_no_factor_unless_told(caplog: pytest.LogCaptureFixture) -> None:
    redis = _FakeRedis(1)
    assert asyncio.run(SharedRateLimiter({"x": Rule(2, 0.5)}, redis).take("x", "addr:1"))  # type: ignore[arg-type]
    assert redis.calls[0][1][1:] == [2.0, 0.5]
    # Redis trouble is logged with its traceback, for the operator to see why limits went local.
    down = SharedRateLimiter({"x": Rule(1, 1.0)}, _FakeRedis(ConnectionError("down")))  # type: ignore[arg-type]
    with caplog.at_level("WARNING"):
        asyncio.run(down.take("x", "user:a"))
    [record] = [r for r in caplog.records if "shared rate limit" in r.getMessage()]
    assert record.exc_info is not None and isinstance(record.exc_info[1], ConnectionError)
