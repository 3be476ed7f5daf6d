"""Accounts over real HTTP with a real SMTP server: sign-in links, merge, sessions, profile, leaderboard."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from accounts_kit import MailSink, smtp_sink, with_store
from server_kit import Person
from websockets.exceptions import ConnectionClosed

from live_server import ThreadServer
from opolyx.storage import SqlStore
from opolyx.storage.tables import magic_links
from opolyx.storage.testing import TestDatabase


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


def _sign_in(person: Person, sink: MailSink, address: str, count: int = 1) -> httpx.Response:
    assert person.post("/api/auth/link", {"email": address}).status_code == 202
    _, secret = sink.link(address, count)
    r = person.post("/api/auth/verify", {"token": secret, "session_token": True})
    if r.status_code == 200:
        person.token = r.json()["token"]
        person.http.cookies.set("opolyx_session", person.token)
    return r


def _finished_game(person: Person) -> str:
    """A game against a bot that the person resigns at once (finished, in their history, no XP)."""
    room = person.create("blitz", 2)
    assert person.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    assert person.post(f"/api/rooms/{room['id']}/start").status_code == 200
    assert person.post(f"/api/rooms/{room['id']}/leave").status_code == 200
    return str(room["id"])


def test_a_mailed_link_signs_in_once_and_merges_the_guest(guests: Callable[[str], Person], sink: MailSink) -> None:
    phone, laptop = guests("Phone"), guests("Laptop")
    # The first link for an address makes the guest who asked for it the account.
    r = _sign_in(phone, sink, "ann@example.org")
    assert r.status_code == 200, r.text
    account = r.json()["user"]
    assert account["id"] == phone.id and account["guest"] is False
    link, _ = sink.link("ann@example.org")
    assert link.startswith(phone.base + "/#/signin/")
    # On another device, a guest with a game of its own opens a link for the same address.
    game = _finished_game(laptop)
    r = _sign_in(laptop, sink, "ann@example.org", count=2)
    assert r.status_code == 200, r.text
    assert r.json()["user"]["id"] == phone.id, "same address, same account"
    profile = laptop.http.get("/api/profile").json()
    assert profile["email"] == "ann@example.org"
    assert game in [g["id"] for g in profile["recent_games"]], "the guest's history came along"
    # The link is single use; forged and expired ones are refused.
    _, used = sink.link("ann@example.org", 2)
    again = laptop.post("/api/auth/verify", {"token": used})
    assert (again.status_code, again.json()["code"]) == (400, "link_used")
    forged = laptop.post("/api/auth/verify", {"token": used[:-4] + "AAAA"})
    assert (forged.status_code, forged.json()["code"]) == (400, "link_invalid")


def test_an_expired_link_is_refused(guests: Callable[[str], Person], sink: MailSink, database: TestDatabase) -> None:
    bob = guests("Bob")
    assert bob.post("/api/auth/link", {"email": "bob@example.org"}).status_code == 202
    _, secret = sink.link("bob@example.org")

    async def age(store: SqlStore) -> None:
        async with store.engine.begin() as conn:
            past = datetime.now(UTC) - timedelta(minutes=1)
            await conn.execute(sa.update(magic_links).values(expires_at=past))

    with_store(database, age)
    r = bob.post("/api/auth/verify", {"token": secret})
    assert (r.status_code, r.json()["code"]) == (400, "link_expired")
    assert bob.http.get("/api/session").json()["guest"] is True


def test_asking_answers_the_same_for_known_and_unknown_addresses(
    guests: Callable[[str], Person], sink: MailSink
) -> None:
    ann = guests("Ann")
    assert _sign_in(ann, sink, "known@example.org").status_code == 200
    other = guests("Other")
    known = other.post("/api/auth/link", {"email": "known@example.org"})
    unknown = other.post("/api/auth/link", {"email": "nobody@example.org"})
    assert (known.status_code, known.json()) == (unknown.status_code, unknown.json()) == (202, {"status": "sent"})
    for address in ("not an address", "a\x00b@example.org", "ann@exa\x07mple.org"):
        bad = other.post("/api/auth/link", {"email": address})
        assert (bad.status_code, bad.json()["code"]) == (422, "invalid_request")


def test_link_requests_are_limited_per_address(start_server: Callable[..., ThreadServer], sink: MailSink) -> None:
    server = start_server(smtp_host="127.0.0.1", smtp_port=sink.port, smtp_security="none", rate_magic_burst=2)
    p = Person(server.base, "Eve")
    try:
        codes = [p.post("/api/auth/link", {"email": "eve@example.org"}).status_code for _ in range(3)]
        assert codes == [202, 202, 429]
        # Another address still gets its link.
        assert p.post("/api/auth/link", {"email": "fred@example.org"}).status_code == 202
    finally:
        p.close()


def test_without_smtp_the_link_goes_to_the_log(
    start_server: Callable[..., ThreadServer], caplog: pytest.LogCaptureFixture
) -> None:
    server = start_server()
    p = Person(server.base, "Solo")
    try:
        with caplog.at_level(logging.WARNING, logger="opolyx.mail"):
            assert p.post("/api/auth/link", {"email": "solo@example.org"}).status_code == 202
        logged = [r.getMessage() for r in caplog.records if r.name == "opolyx.mail"]
        assert logged and "#/signin/" in logged[0] and "solo@example.org" in logged[0]
        secret = logged[0].rsplit("#/signin/", 1)[1]
        assert p.post("/api/auth/verify", {"token": secret, "session_token": True}).status_code == 200
    finally:
        p.close()


def test_signing_out_revokes_the_token_for_real(people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    token = ann.token
    assert ann.http.delete("/api/session").status_code == 204
    stale = httpx.get(ann.base + "/api/session", headers={"Authorization": f"Bearer {token}"})
    assert (stale.status_code, stale.json()["code"]) == (401, "not_authenticated")


def test_signing_out_closes_the_sockets_that_session_opened(people: Callable[[str], Person]) -> None:
    """A revoked session cannot go on playing through a socket it opened before signing out."""
    ann = people("Ann")
    room = ann.create("blitz", 2)
    with ann.connect(room["id"]) as ws:
        assert '"snapshot"' in str(ws.recv(timeout=20))
        assert ann.http.delete("/api/session").status_code == 204
        closed = False
        try:
            for _ in range(50):  # frames already queued may still arrive before the close
                ws.recv(timeout=10)
        except ConnectionClosed:
            closed = True
        except TimeoutError:
            pass
        assert closed, "the socket of a signed-out session stayed open"


def test_sign_out_other_sessions(guests: Callable[[str], Person], sink: MailSink) -> None:
    first, second = guests("One"), guests("Two")
    assert _sign_in(first, sink, "multi@example.org").status_code == 200
    assert _sign_in(second, sink, "multi@example.org", count=2).status_code == 200
    listed = first.http.get("/api/sessions").json()
    assert len(listed) == 2 and [s["current"] for s in listed].count(True) == 1
    assert first.http.delete("/api/sessions/others").json() == {"revoked": 1}
    assert second.http.get("/api/session").status_code == 401
    assert first.http.get("/api/session").status_code == 200
    assert [s["current"] for s in first.http.get("/api/sessions").json()] == [True]
    assert first.http.delete("/api/sessions/nope").json()["code"] == "session_not_found"


def test_profile_changes_and_account_deletion(guests: Callable[[str], Person], sink: MailSink) -> None:
    ann = guests("Ann")
    assert _sign_in(ann, sink, "del@example.org").status_code == 200
    r = ann.http.patch("/api/profile", json={"nickname": "Annie", "avatar": "dragon", "language": "de"})
    assert r.status_code == 200, r.text
    profile = r.json()
    assert (profile["user"]["nickname"], profile["user"]["avatar"], profile["user"]["language"]) == (
        "Annie",
        "dragon",
        "de",
    )
    assert (profile["rank"], profile["vip"], profile["level_xp"], profile["next_level_xp"]) == ("novice", False, 0, 100)
    bad = ann.http.patch("/api/profile", json={"avatar": "unicorn-with-laser"})
    assert (bad.status_code, bad.json()["code"]) == (422, "invalid_request")
    # Nicknames go through the same checks as everywhere else.
    botlike = ann.http.patch("/api/profile", json={"nickname": "Bot 7 (hard)"})
    assert (botlike.status_code, botlike.json()["code"]) == (422, "reserved_nickname")
    hidden = ann.http.patch("/api/profile", json={"nickname": "An\u202en"})
    assert (hidden.status_code, hidden.json()["code"]) == (422, "invalid_nickname")
    assert ann.http.delete("/api/account").status_code == 204
    assert httpx.get(ann.base + "/api/session", headers={"Authorization": f"Bearer {ann.token}"}).status_code == 401
    # The address is free again: a new link makes a new, empty account.
    fresh = guests("New")
    r = _sign_in(fresh, sink, "del@example.org", count=2)
    assert r.status_code == 200 and r.json()["user"]["id"] == fresh.id


def test_leaderboard_answers_with_your_own_place(people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    for by in ("xp", "wins"):
        for period in ("all", "week"):
            r = ann.http.get("/api/leaderboard", params={"by": by, "period": period})
            assert r.status_code == 200, r.text
            body: dict[str, Any] = r.json()
            assert (body["by"], body["period"], body["rows"], body["you"]) == (by, period, [], None)
    assert ann.http.get("/api/leaderboard", params={"by": "luck"}).status_code == 422
