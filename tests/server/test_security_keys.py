"""Issue 39, seen from the attacker's side: what a leaked personal API key may not do, which token counts
when a request carries two, secrets in URLs kept out of the access log, deleted accounts leaving no name
behind, and rematch rooms that cannot be farmed."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from accounts_kit import with_store
from server_kit import Person, test_settings
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from live_server import ThreadServer
from opolyx.storage import SqlStore
from opolyx.storage.tables import api_keys, chat_messages, rooms
from opolyx.storage.testing import REDIS_ENV, TestDatabase, fresh_database, pg_url

REDIS_URL = os.environ.get(REDIS_ENV) or None


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# --- a key acts at tables, never on the account ------------------------------------------------------------


ACCOUNT_ROUTES = [
    ("DELETE", "/api/account", None),
    ("DELETE", "/api/sessions/others", None),
    ("GET", "/api/sessions", None),
    ("GET", "/api/profile", None),
    ("PATCH", "/api/profile", {"nickname": "Pwned"}),
    ("POST", "/api/session", {"nickname": "Pwned", "language": "en", "token": True}),
    # Signing in and merging are account management too: a key may not ask for, peek at or open a link.
    ("POST", "/api/auth/link", {"email": "mallory@example.org", "language": "en"}),
    ("POST", "/api/auth/peek", {"token": "x" * 43}),
    ("POST", "/api/auth/verify", {"token": "x" * 43, "merge": True}),
]


def test_a_key_cannot_manage_its_account(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    key = ann.post("/api/keys", {"label": "agent"}).json()["key"]
    for method, path, body in ACCOUNT_ROUTES:
        r = httpx.request(method, server.base + path, json=body, headers=bearer(key))
        assert r.status_code == 403 and r.json()["code"] == "session_required", (method, path, r.text)
    session_id = ann.http.get("/api/sessions").json()[0]["id"]
    r = httpx.delete(server.base + f"/api/sessions/{session_id}", headers=bearer(key))
    assert r.status_code == 403 and r.json()["code"] == "session_required"
    # Nothing happened: Ann is still signed in, still named Ann, and the key still plays.
    assert ann.http.get("/api/session").json()["nickname"] == "Ann"
    assert httpx.get(server.base + "/api/session", headers=bearer(key)).json()["nickname"] == "Ann"
    r = httpx.post(server.base + "/api/rooms", json={"mode": "blitz", "seats": 2}, headers=bearer(key))
    assert r.status_code == 201, r.text
    # With her session, Ann manages the account as before.
    assert ann.http.get("/api/profile").status_code == 200
    assert ann.http.patch("/api/profile", json={"nickname": "Anna"}).json()["user"]["nickname"] == "Anna"


# --- two tokens in one request: the explicit header wins ----------------------------------------------------


def test_a_valid_bearer_beats_a_stale_cookie(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob = people("Ann"), people("Bob")
    stale = ann.token
    assert httpx.delete(server.base + "/api/session", headers=bearer(stale)).status_code == 204
    cookie = {"Cookie": f"opolyx_session={stale}"}
    r = httpx.get(server.base + "/api/session", headers={**cookie, **bearer(bob.token)})
    assert r.status_code == 200 and r.json()["id"] == bob.id
    key = bob.post("/api/keys", {"label": "agent"}).json()["key"]
    r = httpx.get(server.base + "/api/session", headers={**cookie, **bearer(key)})
    assert r.status_code == 200 and r.json()["id"] == bob.id
    # A valid cookie with a revoked bearer: the request is the bearer's, so it is refused, not silently Bob's.
    r = httpx.get(server.base + "/api/session", headers={"Cookie": f"opolyx_session={bob.token}", **bearer(stale)})
    assert r.status_code == 401
    # The cookie alone still works, as browsers send it.
    assert httpx.get(server.base + "/api/session", headers={"Cookie": f"opolyx_session={bob.token}"}).status_code == 200


# --- a token in a URL never reaches the access log -------------------------------------------------------------


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def access_log() -> Iterator[_Capture]:
    logger = logging.getLogger("uvicorn.access")
    level = logger.level
    capture = _Capture()
    logger.setLevel(logging.INFO)
    logger.addHandler(capture)
    try:
        yield capture
    finally:
        logger.removeHandler(capture)
        logger.setLevel(level)


def test_a_token_in_the_url_is_kept_out_of_the_access_log(
    server: ThreadServer, people: Callable[[str], Person], access_log: _Capture
) -> None:
    ann = people("Ann")
    key = ann.post("/api/keys", {"label": "agent"}).json()["key"]
    with httpx.Client(base_url=server.base) as fresh:  # a new connection logs with the new level
        assert fresh.get(f"/api/session?token={ann.token}").status_code == 401
        assert fresh.get(f"/api/rooms?x=1&key={key}").status_code == 200
        assert fresh.get(f"/api/games/{key}/replay").status_code in (404, 422)
    logged = "\n".join(access_log.lines)
    assert "/api/session?token=" in logged and "/api/rooms?x=1&key=" in logged, logged
    assert ann.token not in logged and key not in logged and key[4:] not in logged, logged


# --- deletion leaves no name, no words, no key, no socket --------------------------------------------------


def test_deletion_pseudonymises_every_copy_and_closes_every_socket(
    server: ThreadServer, people: Callable[[str], Person], database: TestDatabase
) -> None:
    ann, bob = people("Annabel"), people("Bob")
    room = ann.create("blitz", 2)
    game_id = room["id"]
    assert ann.post(f"/api/rooms/{game_id}/bots", {"strength": "easy"}).status_code == 200
    ann.connect(game_id)
    ann.recv_until("snapshot")
    ann.send({"type": "chat", "text": "call me on 555-0199"})
    ann.recv_until("chat")
    assert ann.post(f"/api/rooms/{game_id}/start").status_code == 200
    assert ann.post(f"/api/rooms/{game_id}/leave").status_code == 200
    ann.disconnect()
    replay = httpx.get(server.base + f"/api/games/{game_id}/replay").text
    assert "Annabel" in replay  # served (and cached) before the deletion
    key = ann.post("/api/keys", {"label": "Annabel's laptop"}).json()["key"]
    # Her agent watches Bob's table through the key.
    table = bob.create("blitz", 2)
    url = server.base.replace("http", "ws", 1) + f"/ws/rooms/{table['id']}"
    with connect(url, additional_headers=bearer(key), open_timeout=10) as agent:
        assert json.loads(agent.recv(timeout=10))["type"] == "snapshot"
        assert ann.http.delete("/api/account").status_code == 204
        with pytest.raises(ConnectionClosed):
            while True:
                agent.recv(timeout=10)
    assert httpx.get(server.base + "/api/session", headers=bearer(key)).status_code == 401
    # Replays (cached or not), the table's chat and the stored rows carry no name, word or label of hers.
    replay = httpx.get(server.base + f"/api/games/{game_id}/replay").text
    assert "Annabel" not in replay
    bob.connect(game_id)
    snapshot = bob.recv_until("snapshot")
    assert "555-0199" not in json.dumps(snapshot) and "Annabel" not in json.dumps(snapshot["chat"])

    async def stored(store: SqlStore) -> tuple[Any, ...]:
        async with store.engine.connect() as conn:
            info = (await conn.execute(sa.select(rooms.c.seat_info).where(rooms.c.id == game_id))).scalar()
            chat = (await conn.execute(sa.select(chat_messages.c.name, chat_messages.c.text))).all()
            keys = (await conn.execute(sa.select(api_keys.c.label).where(api_keys.c.user_id == ann.id))).all()
        return info, chat, keys

    info, chat, keys = with_store(database, stored)
    assert "Annabel" not in json.dumps(info) and "Bob" not in json.dumps(info)
    assert all("555" not in text and name != "Annabel" for name, text in chat) and chat
    assert keys == []


# --- rematch: one room per game and person, open to every seat ----------------------------------------------


def _resigned_game(ann: Person, bob: Person | None = None, *, public: bool = True) -> str:
    """A finished Blitz game: Ann with Bob (or a bot) at the table, Ann resigning at once."""
    room = ann.create("blitz", 2, public=public)
    if bob is None:
        assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    else:
        by_code = ("/api/join", {"code": room.get("code")})
        path, body = by_code if not public else (f"/api/rooms/{room['id']}/join", None)
        joined = bob.post(path, body)
        assert joined.status_code == 200, joined.text
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    assert ann.post(f"/api/rooms/{room['id']}/leave").status_code == 200
    assert httpx.get(ann.base + f"/api/rooms/{room['id']}", headers=bearer(ann.token)).json()["status"] == "finished"
    return str(room["id"])


def test_rematch_cannot_farm_rooms(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    game_id = _resigned_game(ann)
    made = set()
    for _ in range(4):
        r = ann.post(f"/api/rooms/{game_id}/rematch")
        if r.status_code != 200:
            assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text
            continue
        made.add(r.json()["id"])
        assert ann.post(f"/api/rooms/{r.json()['id']}/leave").status_code == 200
    assert len(made) == 1


def test_every_seat_of_a_private_game_may_rematch(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob = people("Ann"), people("Bob")
    game_id = _resigned_game(ann, bob, public=False)
    first = ann.post(f"/api/rooms/{game_id}/rematch")
    assert first.status_code == 200, first.text
    second = bob.post(f"/api/rooms/{game_id}/rematch")
    assert second.status_code == 200, second.text
    assert second.json()["id"] == first.json()["id"]
    assert sorted(p["name"] for p in second.json()["players"]) == ["Ann", "Bob"]
    # Someone who did not play it still cannot get in through the rematch.
    assert people("Cat").post(f"/api/rooms/{game_id}/rematch").status_code in (403, 404)


@pytest.mark.skipif(pg_url() is None or REDIS_URL is None, reason="needs PostgreSQL and Redis")
def test_deletion_closes_the_accounts_sockets_on_every_process(tmp_path: Path) -> None:
    with fresh_database("postgresql", tmp_path) as db, ExitStack() as stack:
        a, b = (
            stack.enter_context(ThreadServer(test_settings(db, tmp_path / n, redis_url=REDIS_URL)))
            for n in ("a", "b")
        )
        ann = stack.enter_context(closing(Person(a.base, "Ann")))
        bob = stack.enter_context(closing(Person(b.base, "Bob")))
        key = ann.post("/api/keys", {"label": "agent"}).json()["key"]
        table = bob.create("blitz", 2)  # served by process b
        url = b.base.replace("http", "ws", 1) + f"/ws/rooms/{table['id']}"
        with connect(url, additional_headers=bearer(key), open_timeout=10) as agent:
            assert json.loads(agent.recv(timeout=10))["type"] == "snapshot"
            assert ann.http.delete("/api/account").status_code == 204  # answered by process a
            with pytest.raises(ConnectionClosed):
                while True:
                    agent.recv(timeout=10)


@pytest.mark.skipif(pg_url() is None or REDIS_URL is None, reason="needs PostgreSQL and Redis")
def test_signing_out_and_revoking_a_key_close_sockets_on_every_process(tmp_path: Path) -> None:
    """A stolen session or key that is signed out or revoked on one process must not go on playing through a
    socket it holds on another one."""
    with fresh_database("postgresql", tmp_path) as db, ExitStack() as stack:
        a, b = (
            stack.enter_context(ThreadServer(test_settings(db, tmp_path / n, redis_url=REDIS_URL)))
            for n in ("a", "b")
        )
        ann = stack.enter_context(closing(Person(a.base, "Ann")))
        bob = stack.enter_context(closing(Person(b.base, "Bob")))
        key = ann.post("/api/keys", {"label": "agent"}).json()["key"]
        key_id = ann.http.get("/api/keys").json()[0]["id"]
        table = bob.create("blitz", 2)  # served by process b
        url = b.base.replace("http", "ws", 1) + f"/ws/rooms/{table['id']}"
        cookie = {"Cookie": f"opolyx_session={ann.token}"}
        with (
            connect(url, additional_headers=bearer(key), open_timeout=10) as agent,
            connect(url, additional_headers=cookie, open_timeout=10) as browser,
        ):
            for sock in (agent, browser):
                assert json.loads(sock.recv(timeout=10))["type"] == "snapshot"
            assert ann.http.delete(f"/api/keys/{key_id}").status_code == 204  # answered by process a
            with pytest.raises(ConnectionClosed):
                while True:
                    agent.recv(timeout=10)
            assert ann.http.delete("/api/session").status_code == 204  # answered by process a
            with pytest.raises(ConnectionClosed):
                while True:
                    browser.recv(timeout=10)
