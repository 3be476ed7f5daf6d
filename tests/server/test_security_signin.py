"""Issue 39, tried as an attacker would: the e-mailed sign-in link and the guest merge behind it.

Each test plays the attacker (or the stranger) against a victim over real HTTP with a real SMTP server.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from accounts_kit import MailSink, smtp_sink
from server_kit import Person

from live_server import ThreadServer


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


def _ask(person: Person, address: str) -> None:
    assert person.post("/api/auth/link", {"email": address}).status_code == 202


def _open(person: Person, secret: str, **extra: object) -> httpx.Response:
    r = person.post("/api/auth/verify", {"token": secret, "session_token": True, **extra})
    if r.status_code == 200:
        person.token = r.json()["token"]
        person.http.cookies.set("opolyx_session", person.token)
    return r


def _finished_game(person: Person) -> str:
    room = person.create("blitz", 2)
    assert person.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    assert person.post(f"/api/rooms/{room['id']}/start").status_code == 200
    assert person.post(f"/api/rooms/{room['id']}/leave").status_code == 200
    return str(room["id"])


def _games(person: Person) -> list[str]:
    return [g["id"] for g in person.http.get("/api/profile").json()["recent_games"]]


def test_login_csrf_cannot_merge_the_victims_guest_into_the_attackers_account(
    guests: Callable[[str], Person], sink: MailSink
) -> None:
    mallory, victim = guests("Mallory"), guests("Victim")
    assert _open_own(mallory, sink, "mallory@evil.example.org").status_code == 200
    game = _finished_game(victim)
    # Mallory asks a link for her own address and gets the victim's page to open it.
    _ask(mallory, "mallory@evil.example.org")
    _, secret = sink.link("mallory@evil.example.org", 2)
    r = _open(victim, secret)
    assert (r.status_code, r.json()["code"]) == (409, "confirm_sign_in"), r.text
    # Nothing happened: the victim is still the same guest, the link still unused.
    me = victim.http.get("/api/session").json()
    assert (me["id"], me["guest"]) == (victim.id, True)
    assert game not in _games(mallory)
    # The page can say whose account it is before asking.
    peek = victim.post("/api/auth/peek", {"token": secret}).json()
    assert peek == {"email": "m***@evil.example.org", "nickname": "Mallory", "requester": False, "guest_moves": True}
    # Declining the merge signs in without moving anything; the victim's game stays out of Mallory's reach.
    assert _open(victim, secret, merge=False).status_code == 200
    assert game not in _games(mallory)
    assert victim.http.get(f"/api/games/{game}/replay").status_code in (200, 404)


def _open_own(person: Person, sink: MailSink, address: str) -> httpx.Response:
    """The person asks for a link and opens it in the same browser (the ordinary sign-in)."""
    before = len([m for m in sink.messages if m["To"] == address])
    _ask(person, address)
    _, secret = sink.link(address, before + 1)
    return _open(person, secret)


def test_a_guest_cannot_pre_claim_someone_elses_new_account(
    guests: Callable[[str], Person], sink: MailSink, mail_server: ThreadServer
) -> None:
    squatter = guests("Squatter")
    key = squatter.post("/api/keys", {"label": "mine"})
    assert key.status_code == 201, key.text
    # The squatter asks a link for Olga's new address; Olga opens it in a browser with no session.
    _ask(squatter, "olga@example.org")
    _, secret = sink.link("olga@example.org")
    with httpx.Client(base_url=mail_server.base, timeout=30) as olga:
        asked = olga.post("/api/auth/verify", json={"token": secret})
        assert (asked.status_code, asked.json()["code"]) == (409, "confirm_sign_in"), "asked before signing in"
        # Even told to merge, only the opener's own guest could move, and Olga's browser has none.
        r = olga.post("/api/auth/verify", json={"token": secret, "merge": True})
        assert r.status_code == 200, r.text
        account = r.json()["user"]
        assert account["id"] != squatter.id and account["guest"] is False
        assert olga.get("/api/profile").json()["email"] == "olga@example.org"
    # The squatter's session and key still name a guest with no address.
    me = squatter.http.get("/api/profile").json()
    assert (me["user"]["id"], me["email"]) == (squatter.id, None)
    with_key = httpx.get(
        mail_server.base + "/api/profile", headers={"Authorization": f"Bearer {key.json()['key']}"}, timeout=30
    )
    # A key may not read the profile at all (account management needs a session), so never the owner's address.
    assert (with_key.status_code, with_key.json()["code"]) == (403, "session_required")
    assert "olga@example.org" not in with_key.text


def test_a_guest_cannot_push_itself_into_a_signed_in_account(guests: Callable[[str], Person], sink: MailSink) -> None:
    olga, pusher = guests("Olga"), guests("Pusher")
    assert _open_own(olga, sink, "olga@example.org").status_code == 200
    game = _finished_game(pusher)
    # The pusher asks a link for Olga's address; she opens it while signed in.
    _ask(pusher, "olga@example.org")
    _, secret = sink.link("olga@example.org", 2)
    r = _open(olga, secret)
    assert r.status_code == 200 and r.json()["user"]["id"] != pusher.id
    assert game not in _games(olga), "the pusher's games must not become Olga's"
    me = pusher.http.get("/api/session")
    assert me.status_code == 200 and me.json()["id"] == pusher.id and me.json()["guest"] is True


def test_strangers_asking_links_cannot_lock_the_owner_out(
    start_server: Callable[..., ThreadServer], sink: MailSink
) -> None:
    server = start_server(smtp_host="127.0.0.1", smtp_port=sink.port, smtp_security="none", rate_magic_burst=3)
    stranger, owner = Person(server.base, "Stranger"), Person(server.base, "Owner")
    try:
        codes = [stranger.post("/api/auth/link", {"email": "owner@example.org"}).status_code for _ in range(4)]
        assert codes == [202, 202, 202, 429], "each asker is limited per address"
        assert owner.post("/api/auth/link", {"email": "owner@example.org"}).status_code == 202
    finally:
        stranger.close()
        owner.close()


@pytest.mark.parametrize(
    "address",
    [
        "x<evil@example.org>",
        "a,b@example.org",
        "ann@exa\u200bmple.org",
        "ann\u202e@example.org",
        '"a b"@example.org',
        "ann@[127.0.0.1]",
    ],
)
def test_sign_in_refuses_addresses_that_are_not_one_plain_mailbox(
    guests: Callable[[str], Person], address: str
) -> None:
    r = guests("Ann").post("/api/auth/link", {"email": address})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request"), r.text


def test_a_seated_guest_keeps_its_seat_when_it_merges(guests: Callable[[str], Person], sink: MailSink) -> None:
    laptop, phone = guests("Laptop"), guests("Phone")
    assert _open_own(laptop, sink, "sam@example.org").status_code == 200
    room = phone.create("blitz", 2)
    assert phone.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    assert phone.post(f"/api/rooms/{room['id']}/start").status_code == 200
    # The seated guest signs in (in its own browser) and its seat follows it to the account.
    r = _open_own(phone, sink, "sam@example.org")
    assert r.status_code == 200, r.text
    assert r.json()["user"]["id"] == laptop.id and r.json()["user"]["room"] == room["id"]
    view = phone.http.get(f"/api/rooms/{room['id']}").json()
    assert [s["seat"] for s in view["players"] if s["you"]] == [0], "the account holds the guest's seat"
    assert view["creator"] == laptop.id
    assert phone.post(f"/api/rooms/{room['id']}/leave").status_code == 200, "the account resigns the seat"
