"""Issue 46: a test from the attacker's side for each guard of the accounts code that a one-line change
could remove unnoticed (benchmarks/mutation.py finds them). Each test makes the request the guard
refuses, and checks that nothing changed."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from accounts_kit import MailSink, smtp_sink, with_store
from server_kit import Person
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from live_server import ThreadServer
from opolyx.server.accounts import sessions
from opolyx.server.accounts.identity import SessionSigner
from opolyx.storage import SqlStore
from opolyx.storage.tables import sessions as sessions_table
from opolyx.storage.testing import TestDatabase

SECRET = "test-secret"  # live_server.quick_settings


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def sink() -> Iterator[MailSink]:
    with smtp_sink() as s:
        yield s


@pytest.fixture
def mail_server(start_server: Callable[..., ThreadServer], sink: MailSink) -> ThreadServer:
    return start_server(smtp_host="127.0.0.1", smtp_port=sink.port, smtp_security="none", rate_magic_burst=100)


@pytest.fixture
def guests(mail_server: ThreadServer) -> Iterator[Callable[[str], Person]]:
    made: list[Person] = []

    def make(name: str) -> Person:
        p = Person(mail_server.base, name)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


def sign_in(person: Person, sink: MailSink, address: str, count: int = 1, **extra: Any) -> httpx.Response:
    assert person.post("/api/auth/link", {"email": address}).status_code == 202
    _, secret = sink.link(address, count)
    r = person.post("/api/auth/verify", {"token": secret, "session_token": True, **extra})
    if r.status_code == 200:
        person.token = r.json()["token"]
        person.http.cookies.set("opolyx_session", person.token)
    return r


@contextmanager
def socket(base: str, room_id: str, token: str) -> Iterator[ClientConnection]:
    url = base.replace("http", "ws", 1) + f"/ws/rooms/{room_id}"
    with connect(url, additional_headers=bearer(token), open_timeout=10) as ws:
        assert '"snapshot"' in str(ws.recv(timeout=20))
        yield ws


def is_open(ws: ClientConnection) -> bool:
    """Whether the socket still answers a ping (frames queued before may come first)."""
    try:
        ws.send(json.dumps({"type": "ping", "ref": 7}))
        for _ in range(50):
            frame = json.loads(ws.recv(timeout=10))
            if frame.get("type") == "pong":
                return True
    except (ConnectionClosed, TimeoutError):
        return False
    return False


# --- API keys: a leaked key cannot manage keys ------------------------------------------------------------


def test_a_leaked_key_cannot_revoke_its_owners_keys(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    leaked = ann.post("/api/keys", {"label": "leaked"}).json()
    other = ann.post("/api/keys", {"label": "other"}).json()
    for victim in (other, leaked):  # neither another key nor itself (hiding the leak)
        r = httpx.delete(server.base + f"/api/keys/{victim['id']}", headers=bearer(leaked["key"]))
        assert (r.status_code, r.json()["code"]) == (403, "keys_need_session"), r.text
    assert sorted(k["id"] for k in ann.http.get("/api/keys").json()) == sorted([leaked["id"], other["id"]])
    assert httpx.get(server.base + "/api/session", headers=bearer(other["key"])).status_code == 200


def test_nobody_revokes_a_key_that_is_not_theirs(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, eve = people("Ann"), people("Eve")
    key = ann.post("/api/keys", {"label": "mine"}).json()
    assert key["key"].startswith("opx_") and len(key["key"]) == 4 + 43, "the prefix and 32 random bytes"
    assert len(key["id"]) == 16 and int(key["id"], 16) >= 0, "8 random bytes, hex"
    r = eve.http.delete(f"/api/keys/{key['id']}")
    assert (r.status_code, r.json()["code"]) == (404, "key_not_found")
    assert httpx.get(server.base + "/api/session", headers=bearer(key["key"])).json()["id"] == ann.id
    assert ann.http.delete(f"/api/keys/{key['id']}").status_code == 204
    assert ann.http.delete(f"/api/keys/{key['id']}").json()["code"] == "key_not_found"  # once only


def test_key_creation_is_rate_limited_per_person(start_server: Callable[..., ThreadServer]) -> None:
    # The person's own bucket (3) runs out long before the address's (3 x rate_address_factor).
    srv = start_server(rate_session_burst=3, rate_session_per_second=0.001)
    ann = Person(srv.base, "Ann")  # one "session" request by address
    try:
        codes = [ann.post("/api/keys", {"label": f"k{i}"}).status_code for i in range(5)]
        assert codes == [201, 201, 201, 429, 429]
        assert len(ann.http.get("/api/keys").json()) == 3
    finally:
        ann.close()


def test_at_most_twenty_keys(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server()
    ann = Person(srv.base, "Ann")
    try:
        for i in range(20):
            assert ann.post("/api/keys", {"label": f"k{i}"}).status_code == 201
        r = ann.post("/api/keys", {"label": "one too many"})
        assert (r.status_code, r.json()["code"]) == (409, "too_many_keys")
        assert len(ann.http.get("/api/keys").json()) == 20
    finally:
        ann.close()


def test_revoking_a_key_closes_that_keys_sockets_only(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    room = ann.create("blitz", 2)
    one = ann.post("/api/keys", {"label": "one"}).json()
    two = ann.post("/api/keys", {"label": "two"}).json()
    with (
        socket(server.base, room["id"], one["key"]) as by_one,
        socket(server.base, room["id"], two["key"]) as by_two,
        socket(server.base, room["id"], ann.token) as by_session,
    ):
        assert ann.http.delete(f"/api/keys/{one['id']}").status_code == 204
        assert not is_open(by_one)
        assert is_open(by_two) and is_open(by_session)


# --- sessions: revocation reaches the sockets, exactly -----------------------------------------------------


def test_signing_out_others_closes_exactly_the_others_sockets(guests: Callable[[str], Person], sink: MailSink) -> None:
    laptop, phone, tablet = guests("Laptop"), guests("Phone"), guests("Tablet")
    for n, device in enumerate((laptop, phone, tablet), 1):
        assert sign_in(device, sink, "sam@example.org", count=n).status_code == 200
    room = laptop.create("blitz", 2)
    with (
        socket(laptop.base, room["id"], laptop.token) as here,
        socket(laptop.base, room["id"], phone.token) as there,
        socket(laptop.base, room["id"], tablet.token) as elsewhere,
    ):
        assert laptop.http.delete("/api/sessions/others").json() == {"revoked": 2}
        assert not is_open(there) and not is_open(elsewhere)
        assert is_open(here)
        assert laptop.http.get("/api/session").status_code == 200


def test_signing_out_one_session_closes_only_its_sockets(guests: Callable[[str], Person], sink: MailSink) -> None:
    laptop, phone = guests("Laptop"), guests("Phone")
    assert sign_in(laptop, sink, "kim@example.org").status_code == 200
    assert sign_in(phone, sink, "kim@example.org", count=2).status_code == 200
    room = laptop.create("blitz", 2)
    phone_id = next(s["id"] for s in phone.http.get("/api/sessions").json() if s["current"])
    with (
        socket(laptop.base, room["id"], laptop.token) as here,
        socket(laptop.base, room["id"], phone.token) as there,
    ):
        assert laptop.http.delete(f"/api/sessions/{phone_id}").status_code == 204
        assert not is_open(there) and is_open(here)
        assert phone.http.get("/api/session").status_code == 401
        assert laptop.http.delete(f"/api/sessions/{phone_id}").json()["code"] == "session_not_found"
    with socket(laptop.base, room["id"], laptop.token) as again:
        # Signing out this browser closes its own socket, and the phone was already gone.
        assert laptop.http.delete("/api/session").status_code == 204
        assert not is_open(again)


def test_someone_elses_session_cannot_be_signed_out(guests: Callable[[str], Person], sink: MailSink) -> None:
    ann, eve = guests("Ann"), guests("Eve")
    ann_session = ann.http.get("/api/sessions")
    assert ann_session.status_code == 200
    victim = ann_session.json()[0]["id"]
    r = eve.http.delete(f"/api/sessions/{victim}")
    assert (r.status_code, r.json()["code"]) == (404, "session_not_found")
    assert ann.http.get("/api/session").status_code == 200


# --- sessions: what is stored, and for how long ------------------------------------------------------------


def test_the_session_hash_is_the_full_sha256_of_the_tokens_secret(
    server: ThreadServer, people: Callable[[str], Person], database: TestDatabase
) -> None:
    assert sessions.token_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    ann = people("Ann")
    secret = SessionSigner(SECRET, 3600).verify(ann.token)
    assert secret is not None and len(secret) >= 43  # 32 random bytes
    rows = with_store(database, lambda store: _session_rows(store, ann.id))
    assert [r["token_hash"] for r in rows] == [hashlib.sha256(secret.encode()).hexdigest()]
    assert ann.token not in json.dumps(rows, default=str) and secret not in json.dumps(rows, default=str)


def test_a_session_lives_for_the_configured_days(
    start_server: Callable[..., ThreadServer], database: TestDatabase
) -> None:
    srv = start_server(session_max_age_days=3)
    before = datetime.now(UTC)
    r = httpx.post(srv.base + "/api/session", json={"nickname": "Ann", "language": "en", "token": True})
    after = datetime.now(UTC)
    user_id = r.json()["user"]["id"]
    [row] = with_store(database, lambda store: _session_rows(store, user_id))
    expires = row["expires_at"] if row["expires_at"].tzinfo else row["expires_at"].replace(tzinfo=UTC)
    assert before + timedelta(days=3) - timedelta(seconds=2) <= expires <= after + timedelta(days=3, seconds=2)
    cookie = r.headers.get_list("set-cookie")
    assert any(c.startswith("opolyx_session=") and "Max-Age=259200" in c for c in cookie), cookie
    session = next(c for c in cookie if c.startswith("opolyx_session="))
    hint = next(c for c in cookie if c.startswith("opolyx_signed_in="))
    assert "Max-Age=259200" in session and "Max-Age=259200" in hint, cookie
    assert "httponly" in session.lower(), "page scripts never see the session token"
    assert "httponly" not in hint.lower(), "the hint (no secret) is for the page to read"
    assert "secure" not in session.lower(), "plain http, nothing configured: no Secure flag"
    out = httpx.delete(srv.base + "/api/session", headers=bearer(r.json()["token"]))
    gone = next(c for c in out.headers.get_list("set-cookie") if c.startswith("opolyx_session="))
    assert "max-age=0" in gone.lower() and "httponly" in gone.lower(), gone


def test_cookies_are_secure_when_configured_so(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(cookie_secure=True)
    r = httpx.post(srv.base + "/api/session", json={"nickname": "Ann", "language": "en"})
    for c in r.headers.get_list("set-cookie"):
        assert "secure" in c.lower(), c


def test_an_expired_session_is_refused_although_its_signature_is_valid(
    server: ThreadServer, people: Callable[[str], Person], database: TestDatabase
) -> None:
    """The cookie's signature lasts a year; the server-side record's expiry is what counts."""
    ann = people("Ann")
    assert ann.http.get("/api/session").status_code == 200
    past = datetime.now(UTC) - timedelta(minutes=1)
    with_store(database, lambda store: _set_expiry(store, ann.id, past))
    r = httpx.get(server.base + "/api/session", headers=bearer(ann.token))
    assert (r.status_code, r.json()["code"]) == (401, "not_authenticated")
    room = people("Bob").create("blitz", 2)
    url = server.base.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
    with connect(url, additional_headers=bearer(ann.token), open_timeout=10) as ws:
        assert '"not_authenticated"' in str(ws.recv(timeout=10))


async def _session_rows(store: SqlStore, user_id: str) -> list[dict[str, Any]]:
    async with store.engine.connect() as conn:
        found = await conn.execute(sa.select(sessions_table).where(sessions_table.c.user_id == user_id))
        return [dict(r._mapping) for r in found]


async def _set_expiry(store: SqlStore, user_id: str, when: datetime) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(sa.update(sessions_table).where(sessions_table.c.user_id == user_id).values(expires_at=when))


# --- merge and deletion: one person, one seat ----------------------------------------------------------------


def _in_game(person: Person) -> str:
    room = person.create("blitz", 2)
    assert person.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    assert person.post(f"/api/rooms/{room['id']}/start").status_code == 200
    return str(room["id"])


def test_a_guest_in_a_game_cannot_merge_into_an_account_in_another_game(
    guests: Callable[[str], Person], sink: MailSink
) -> None:
    laptop, phone = guests("Laptop"), guests("Phone")
    assert sign_in(laptop, sink, "lee@example.org").status_code == 200
    account_room, guest_room = _in_game(laptop), _in_game(phone)
    r = sign_in(phone, sink, "lee@example.org", count=2)
    assert (r.status_code, r.json()["code"]) == (409, "merge_blocked"), r.text
    # Nothing moved: the guest is still a guest in its own game, the account still in its own.
    me = phone.http.get("/api/session").json()
    assert (me["id"], me["guest"], me["room"]) == (phone.id, True, guest_room)
    assert laptop.http.get("/api/session").json()["room"] == account_room
    # Once the guest has left its game, the same link (not used up by the refusal) merges.
    assert phone.post(f"/api/rooms/{guest_room}/leave").status_code == 200
    _, secret = sink.link("lee@example.org", 2)
    r = phone.post("/api/auth/verify", {"token": secret, "session_token": True})
    assert r.status_code == 200 and r.json()["user"]["id"] == laptop.id


def test_deleting_an_account_that_sits_in_a_game_is_refused(guests: Callable[[str], Person], sink: MailSink) -> None:
    ann = guests("Ann")
    assert sign_in(ann, sink, "dee@example.org").status_code == 200
    room = _in_game(ann)
    r = ann.http.delete("/api/account")
    assert (r.status_code, r.json()["code"]) == (409, "already_in_game")
    me = ann.http.get("/api/session").json()
    assert (me["id"], me["room"]) == (ann.id, room)
    assert ann.post(f"/api/rooms/{room}/leave").status_code == 200
    assert ann.http.delete("/api/account").status_code == 204
    assert httpx.get(ann.base + "/api/session", headers=bearer(ann.token)).status_code == 401


# --- sign-in links ---------------------------------------------------------------------------------------------


def test_only_the_last_five_links_a_browser_asked_for_count_as_asked_here(
    mail_server: ThreadServer, sink: MailSink
) -> None:
    """A browser without a session is known by the signed cookie naming the links it asked for, which keeps
    five: an older link opened there is treated like a stranger's (asked to confirm)."""
    with httpx.Client(base_url=mail_server.base, timeout=30) as browser:
        for _ in range(6):
            asked = browser.post("/api/auth/link", json={"email": "five@example.org"})
            assert asked.status_code == 202
        cookie = next(c for c in asked.headers.get_list("set-cookie") if c.startswith("opolyx_signin="))
        assert "httponly" in cookie.lower() and "path=/api/auth" in cookie.lower(), cookie
        _, oldest = sink.link("five@example.org", 1)
        _, second = sink.link("five@example.org", 2)
        peek = browser.post("/api/auth/peek", json={"token": second}).json()
        assert peek == {"email": "f***@example.org", "nickname": None, "requester": True, "guest_moves": False}
        r = browser.post("/api/auth/verify", json={"token": oldest})
        assert (r.status_code, r.json()["code"]) == (409, "confirm_sign_in")
        time.sleep(1.2)  # the cookie lasts as long as a link (15 minutes), not a second
        r = browser.post("/api/auth/verify", json={"token": second})
        assert r.status_code == 200, r.text
    with httpx.Client(base_url=mail_server.base, timeout=30) as stranger:
        _, third = sink.link("five@example.org", 3)
        r = stranger.post("/api/auth/verify", json={"token": third})
        assert (r.status_code, r.json()["code"]) == (409, "confirm_sign_in"), "another browser did not ask"


def test_peeking_at_an_unknown_link_tells_nothing(guests: Callable[[str], Person]) -> None:
    r = guests("Eve").post("/api/auth/peek", {"token": "x" * 43})
    assert (r.status_code, r.json()["code"]) == (400, "link_invalid")


def test_a_link_that_cannot_be_mailed_is_an_error_not_a_silent_success(
    start_server: Callable[..., ThreadServer],
) -> None:
    from live_server import free_port

    srv = start_server(smtp_host="127.0.0.1", smtp_port=free_port(), smtp_security="none")
    ann = Person(srv.base, "Ann")
    try:
        r = ann.post("/api/auth/link", {"email": "ann@example.org"})
        assert (r.status_code, r.json()["code"]) == (503, "mail_unavailable")
    finally:
        ann.close()


def test_the_leaderboard_limit_is_bounded(people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    for limit in (0, 101, -1):
        assert ann.http.get("/api/leaderboard", params={"limit": limit}).status_code == 422, limit
    for limit in (1, 100):
        assert ann.http.get("/api/leaderboard", params={"limit": limit}).status_code == 200, limit


def test_the_week_starts_on_monday_at_midnight_utc() -> None:
    from opolyx.server.accounts.routes import week_start

    wednesday = datetime(2026, 12, 2, 15, 30, 12, 5, tzinfo=UTC)
    assert week_start(wednesday) == datetime(2026, 11, 30, tzinfo=UTC)
    monday = datetime(2026, 11, 30, tzinfo=UTC)
    assert week_start(monday) == monday
    assert week_start(datetime(2026, 12, 6, 23, 59, tzinfo=UTC)) == monday


def test_the_documented_success_codes_are_the_ones_answered(server: ThreadServer) -> None:
    """Clients generated from /openapi.json check these codes: a route documented as 205 but answering 204
    breaks them."""
    paths = httpx.get(server.base + "/openapi.json").json()["paths"]
    expected = {
        ("post", "/api/keys"): "201",
        ("delete", "/api/keys/{key_id}"): "204",
        ("delete", "/api/session"): "204",
        ("delete", "/api/sessions/{session_id}"): "204",
        ("delete", "/api/account"): "204",
        ("post", "/api/auth/link"): "202",
    }
    for (method, path), code in expected.items():
        documented = [c for c in paths[path][method]["responses"] if c.startswith("2")]
        assert documented == [code], (method, path, documented)


def test_a_new_accounts_first_name_never_takes_a_bots_name(mail_server: ThreadServer, sink: MailSink) -> None:
    """An account made by its link is named after its address, unless that would pass for a bot (or is no
    valid name): then it is 'player'. Long names are cut to 24 characters."""
    for address, name in (
        ("bot7@example.org", "player"),
        ("abcdefghijklmnopqrstuvwxyz0123@example.org", "abcdefghijklmnopqrstuvwx"),
    ):
        with httpx.Client(base_url=mail_server.base, timeout=30) as browser:
            assert browser.post("/api/auth/link", json={"email": address}).status_code == 202
            _, secret = sink.link(address)
            r = browser.post("/api/auth/verify", json={"token": secret})
            assert r.status_code == 200, r.text
            assert (r.json()["user"]["nickname"], r.json()["user"]["guest"]) == (name, False)


def test_signing_out_with_a_key_signs_nobody_out(server: ThreadServer, people: Callable[[str], Person]) -> None:
    """DELETE /api/session with a key has no session to end: it answers like a signed-out browser, and
    neither the owner's session nor the key stops working."""
    ann = people("Ann")
    key = ann.post("/api/keys", {"label": "bot"}).json()["key"]
    assert httpx.delete(server.base + "/api/session", headers=bearer(key)).status_code == 204
    assert httpx.get(server.base + "/api/session", headers=bearer(key)).status_code == 200
    assert ann.http.get("/api/session").status_code == 200
    assert httpx.delete(server.base + "/api/session").status_code == 204, "nobody at all: nothing to do"


def test_a_client_without_cookies_is_known_by_its_session_when_it_opens_its_link(
    mail_server: ThreadServer, sink: MailSink
) -> None:
    """A program holding its guest's token (no cookie jar) asks for a link and opens it: it asked, so it
    is signed in; another guest opening the same kind of link is asked to confirm."""
    base = mail_server.base
    me = httpx.post(base + "/api/session", json={"nickname": "Prog", "language": "en", "token": True}).json()
    other = httpx.post(base + "/api/session", json={"nickname": "Else", "language": "en", "token": True}).json()
    assert (
        httpx.post(base + "/api/auth/link", json={"email": "prog@example.org"}, headers=bearer(me["token"])).status_code
        == 202
    )
    _, secret = sink.link("prog@example.org")
    r = httpx.post(base + "/api/auth/verify", json={"token": secret}, headers=bearer(other["token"]))
    assert (r.status_code, r.json()["code"]) == (409, "confirm_sign_in")
    r = httpx.post(base + "/api/auth/verify", json={"token": secret}, headers=bearer(me["token"]))
    assert r.status_code == 200 and r.json()["user"]["id"] == me["user"]["id"], r.text


def test_the_profile_names_no_next_level_at_the_cap(
    server: ThreadServer, people: Callable[[str], Person], database: TestDatabase
) -> None:
    from opolyx.progression import xp_for_level
    from opolyx.storage.tables import users

    ann = people("Ann")

    async def set_level(store: SqlStore, level: int) -> None:
        async with store.engine.begin() as conn:
            await conn.execute(users.update().where(users.c.id == ann.id).values(level=level))

    with_store(database, lambda store: set_level(store, 49))
    assert ann.http.get("/api/profile").json()["next_level_xp"] == xp_for_level(50)
    with_store(database, lambda store: set_level(store, 50))
    assert ann.http.get("/api/profile").json()["next_level_xp"] is None
