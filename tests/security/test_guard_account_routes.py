"""The accounts routes (server/accounts/routes.py) over real HTTP, from the attacker's side (issue 46):
the requests each check refuses, next to the closest one it lets through."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from live_server import ThreadServer, quick_settings
from opolyx.progression import Credit
from opolyx.server.accounts.routes import week_start
from opolyx.server.accounts.sessions import token_hash
from opolyx.storage import NewRoom, SeatRecord, SqlStore
from opolyx.storage.tables import users, xp_awards
from opolyx.storage.testing import TestDatabase


@pytest.fixture
def server(database: TestDatabase, tmp_path: Path) -> Iterator[ThreadServer]:
    settings = quick_settings(tmp_path / "data", database_url=database.url, database_schema=database.schema)
    with ThreadServer(settings) as s:
        yield s


def _store(database: TestDatabase, fn: Callable[[SqlStore], Awaitable[Any]]) -> Any:
    """Run ``fn`` against the server's database from outside it (a second connection)."""

    async def run() -> Any:
        store = await SqlStore.open(database.url, schema=database.schema)
        try:
            return await fn(store)
        finally:
            await store.close()

    return asyncio.run(run())


def _guest(server: ThreadServer, nickname: str) -> tuple[httpx.Client, str]:
    """A browser with a guest session (its cookie), and the guest's id."""
    client = httpx.Client(base_url=server.base, timeout=30)
    r = client.post("/api/session", json={"nickname": nickname, "language": "en"})
    assert r.status_code in (200, 201), r.text
    return client, str(r.json()["user"]["id"])


def test_the_weeks_leaderboard_leaves_out_xp_earned_before_monday(server: ThreadServer, database: TestDatabase) -> None:
    """The week's board is not the all-time board: an old champion does not top it, and this week's
    players are ranked by what they earned this week alone."""

    async def play(store: SqlStore) -> None:
        for u in ("old", "new", "other"):
            await store.create_user(u, u.capitalize(), "en")
        for room_id, winner, xp in (("g-old", "old", 900), ("g-new", "new", 120)):
            await store.create_room(NewRoom(room_id, None, "classic", 2, True, winner, winner))
            await store.take_seat(room_id, 1, user_id="other", bot=None, name="other")
            seats = [SeatRecord(0, winner, None, winner), SeatRecord(1, "other", None, "other")]
            await store.start_game(room_id, seed=1, seats=seats, seat_info=[{}, {}])
            credits = [
                Credit(0, winner, xp, {"total": xp}, True, None),
                Credit(1, "other", 5, {"total": 5}, False, None),
            ]
            await store.finish_game(room_id, None, credits)
        before_monday = week_start(datetime.now(UTC)) - timedelta(seconds=1)
        async with store.engine.begin() as conn:
            await conn.execute(
                xp_awards.update().where(xp_awards.c.game_id == "g-old").values(created_at=before_monday)
            )

    _store(database, play)
    viewer, _ = _guest(server, "Viewer")
    try:
        every = viewer.get("/api/leaderboard", params={"by": "xp", "period": "all"}).json()
        assert [(r["user_id"], r["value"]) for r in every["rows"]] == [("old", 900), ("new", 120), ("other", 10)]
        week = viewer.get("/api/leaderboard", params={"by": "xp", "period": "week"}).json()
        assert week["period"] == "week"
        assert [(r["user_id"], r["value"]) for r in week["rows"]] == [("new", 120), ("other", 5)]
        wins = viewer.get("/api/leaderboard", params={"by": "wins", "period": "week"}).json()
        assert [(r["user_id"], r["value"]) for r in wins["rows"]] == [("new", 1)]
        top = viewer.get("/api/leaderboard", params={"by": "xp", "period": "week", "limit": 1}).json()
        assert [r["user_id"] for r in top["rows"]] == ["new"]
        assert viewer.get("/api/leaderboard", params={"limit": 0}).status_code == 422
        assert viewer.get("/api/leaderboard", params={"limit": 101}).status_code == 422
        assert viewer.get("/api/leaderboard", params={"period": "year"}).status_code == 422
    finally:
        viewer.close()


def test_the_leaderboard_shows_fifty_rows_unless_asked_for_another_number(
    server: ThreadServer, database: TestDatabase
) -> None:
    async def many(store: SqlStore) -> None:
        for n in range(51):
            await store.create_user(f"u{n:02}", f"U{n:02}", "en")
        async with store.engine.begin() as conn:
            for n in range(51):
                await conn.execute(users.update().where(users.c.id == f"u{n:02}").values(xp=1000 - n))

    _store(database, many)
    viewer, me = _guest(server, "Viewer")
    try:
        rows = viewer.get("/api/leaderboard").json()["rows"]
        assert [r["user_id"] for r in rows] == [f"u{n:02}" for n in range(50)]
        assert len(viewer.get("/api/leaderboard", params={"limit": 51}).json()["rows"]) == 51
        assert viewer.get("/api/leaderboard").json()["you"] is None, "no XP: no place"

        async def earn(store: SqlStore) -> None:
            async with store.engine.begin() as conn:
                await conn.execute(users.update().where(users.c.id == me).values(xp=955))

        _store(database, earn)
        you = viewer.get("/api/leaderboard", params={"limit": 3}).json()["you"]
        assert (you["user_id"], you["position"], you["value"]) == (me, 46, 955), "45 accounts have more"
        anonymous = httpx.get(server.base + "/api/leaderboard", params={"limit": 3})
        assert anonymous.status_code == 200 and anonymous.json()["you"] is None
    finally:
        viewer.close()


def test_a_browser_is_remembered_as_the_asker_for_as_long_as_the_link_lives(
    server: ThreadServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The requests cookie (signed, dated) names this browser's links for the link's 15 minutes: a
    minute more and an old cookie would vouch for a stranger's later link, a minute less and the asker
    would be asked to confirm their own sign-in."""
    clock = [time.time()]
    monkeypatch.setattr("itsdangerous.timed.time", SimpleNamespace(time=lambda: clock[0]))
    with httpx.Client(base_url=server.base, timeout=30) as browser:
        with caplog.at_level(logging.WARNING, logger="opolyx.mail"):
            asked = browser.post("/api/auth/link", json={"email": "clock@example.org"})
        assert asked.status_code == 202
        cookie = next(c for c in asked.headers.get_list("set-cookie") if c.startswith("opolyx_signin="))
        assert "max-age=900" in cookie.lower() and "httponly" in cookie.lower(), cookie
        logged = [r.getMessage() for r in caplog.records if r.name == "opolyx.mail"]
        secret = logged[-1].rsplit("#/signin/", 1)[1].split()[0]
        assert len(secret) == 43, "32 random bytes, base64url"
        clock[0] += 15 * 60 - 10
        assert browser.post("/api/auth/peek", json={"token": secret}).json()["requester"] is True
        clock[0] += 11
        assert browser.post("/api/auth/peek", json={"token": secret}).json()["requester"] is False


def test_a_new_accounts_first_name_is_the_addresss_local_part_only(
    server: ThreadServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The domain never shows in a name others see at the table."""
    with httpx.Client(base_url=server.base, timeout=30) as browser:
        with caplog.at_level(logging.WARNING, logger="opolyx.mail"):
            assert browser.post("/api/auth/link", json={"email": "annlee@example.org"}).status_code == 202
        logged = [r.getMessage() for r in caplog.records if r.name == "opolyx.mail"]
        secret = logged[-1].rsplit("#/signin/", 1)[1].split()[0]
        r = browser.post("/api/auth/verify", json={"token": secret})
        assert r.status_code == 200, r.text
        assert (r.json()["user"]["nickname"], r.json()["user"]["guest"]) == ("annlee", False)


def test_no_other_guest_passes_for_the_guest_that_asked_for_a_link(
    server: ThreadServer, database: TestDatabase
) -> None:
    """A program without cookies is known as the asker by its session's guest, that guest exactly: a
    stranger is asked to confirm whatever its id (ids sorting before and after the asker's)."""
    base = server.base

    def guest(name: str) -> tuple[str, str]:
        r = httpx.post(base + "/api/session", json={"nickname": name, "language": "en", "token": True})
        return str(r.json()["user"]["id"]), str(r.json()["token"])

    asker_id, asker_token = guest("Asker")
    before: str | None = None
    after: str | None = None
    while before is None or after is None:
        other_id, other_token = guest("Stranger")
        if other_id < asker_id and before is None:
            before = other_token
        elif other_id > asker_id and after is None:
            after = other_token
    secret = "s" * 43

    async def plant(store: SqlStore) -> None:  # the link as /api/auth/link stores it for this guest
        expires = datetime.now(UTC) + timedelta(minutes=15)
        await store.create_magic_link(token_hash(secret), "asker@example.org", guest_id=asker_id, expires_at=expires)

    _store(database, plant)
    for token in (before, after):
        peek = httpx.post(base + "/api/auth/peek", json={"token": secret}, headers={"Authorization": f"Bearer {token}"})
        assert peek.json()["requester"] is False
        r = httpx.post(base + "/api/auth/verify", json={"token": secret}, headers={"Authorization": f"Bearer {token}"})
        assert (r.status_code, r.json()["code"]) == (409, "confirm_sign_in")
    mine = httpx.post(
        base + "/api/auth/peek", json={"token": secret}, headers={"Authorization": f"Bearer {asker_token}"}
    )
    assert mine.json()["requester"] is True


def test_a_guest_moves_into_an_account_only_when_it_may_whichever_way_their_ids_sort(
    server: ThreadServer, database: TestDatabase, caplog: pytest.LogCaptureFixture
) -> None:
    """The checks that compare the guest with the account (is it another row? both in games?) hold for an
    account whose id sorts before every guest's and for one whose id sorts after."""
    low, high = "0" * 32, "f" * 32

    async def accounts(store: SqlStore) -> None:
        for user_id, name in ((low, "Low"), (high, "High")):
            await store.create_user(user_id, name, "en")
            await store.attach_email(user_id, f"{name.lower()}@example.org")
            await store.create_room(NewRoom(f"room-{name}", None, "classic", 2, True, user_id, name))

    _store(database, accounts)
    for account_id, address in ((low, "low@example.org"), (high, "high@example.org")):
        browser, guest_id = _guest(server, "Guest")
        try:
            room = browser.post("/api/rooms", json={"mode": "classic", "seats": 2, "public": True})
            assert room.status_code == 201, room.text
            with caplog.at_level(logging.WARNING, logger="opolyx.mail"):
                assert browser.post("/api/auth/link", json={"email": address}).status_code == 202
            logged = [r.getMessage() for r in caplog.records if r.name == "opolyx.mail"]
            secret = logged[-1].rsplit("#/signin/", 1)[1].split()[0]
            peek = browser.post("/api/auth/peek", json={"token": secret}).json()
            assert (peek["requester"], peek["guest_moves"]) == (True, True), address
            blocked = browser.post("/api/auth/verify", json={"token": secret})
            assert (blocked.status_code, blocked.json()["code"]) == (409, "merge_blocked"), address
            assert browser.post(f"/api/rooms/{room.json()['id']}/leave").status_code == 200
            signed_in = browser.post("/api/auth/verify", json={"token": secret})
            assert signed_in.status_code == 200 and signed_in.json()["user"]["id"] == account_id, signed_in.text
            gone = _store(database, lambda store, g=guest_id: store.get_user(g))
            assert gone is None, "the guest moved into the account"
        finally:
            browser.close()


def test_a_browser_keeps_one_device_name_across_its_sessions(server: ThreadServer) -> None:
    """The device cookie ties two seats played from one browser to one person (docs/accounts.md): a fresh
    browser is given one for 400 days, and signing in again never hands out a new one (a new name per
    session would let one browser pass for many)."""
    client, _ = _guest(server, "Dev")
    first = client.cookies.get("opolyx_device")
    assert first and len(first) == 24  # 18 random bytes
    fresh = httpx.Client(base_url=server.base, timeout=30)
    r = fresh.post("/api/session", json={"nickname": "Other", "language": "en"})
    device = [h for h in r.headers.get_list("set-cookie") if h.startswith("opolyx_device=")]
    assert len(device) == 1 and "Max-Age=34560000" in device[0] and "HttpOnly" in device[0]
    # The first browser, signing in again, is not given a second name.
    r = client.post("/api/session", json={"nickname": "Dev2", "language": "en"})
    assert not [h for h in r.headers.get_list("set-cookie") if h.startswith("opolyx_device=")]
    assert client.cookies.get("opolyx_device") == first
    # Signing out answers 204 and leaves the device's name where it was.
    assert client.delete("/api/session").status_code == 204
    assert client.cookies.get("opolyx_device") == first
    client.close()
    fresh.close()


def test_the_rating_board_answers_strangers_and_bounds_its_length(server: ThreadServer) -> None:
    """Anyone may read the rating board, signed in or not; it never lists more than 100 rows."""
    with httpx.Client(base_url=server.base, timeout=30) as stranger:
        r = stranger.get("/api/leaderboard/rating", params={"mode": "blitz"})
        assert r.status_code == 200 and r.json()["you"] is None and r.json()["mode"] == "blitz"
        for bad in (0, 101):
            assert stranger.get("/api/leaderboard/rating", params={"limit": bad}).status_code == 422
        assert stranger.get("/api/leaderboard/rating", params={"limit": 100}).status_code == 200
    client, _ = _guest(server, "Rater")
    r = client.get("/api/leaderboard/rating")
    assert r.status_code == 200 and r.json()["you"] is None  # no settled rating yet
    client.close()
