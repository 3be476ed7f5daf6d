"""Moderation from the attacker's side: operator routes answer 404 to everyone but an operator (every
route, found from the app itself, so a new one cannot be missed), reports cannot be flooded, aimed at
oneself or read by others, and a ban ends the person's sessions, keys and sockets at once."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from fastapi.routing import APIRoute
from moderation_kit import appoint, services
from server_kit import Person
from websockets.exceptions import ConnectionClosed

from live_server import ThreadServer
from opolyx.server.moderation.operators import PREFIX, OperatorRoute, is_operator
from opolyx.server.settings import Settings
from opolyx.storage import UserRecord

JUNK_BODIES: list[object] = [None, {}, {"kind": "ban", "user": "x", "minutes": 5, "reason": "r"}, "not json"]


def app_routes(srv: ThreadServer) -> list[tuple[str, set[str], object]]:
    """(path, methods, route object) of every HTTP route the app serves, included routers' too."""
    app = srv.server.config.app  # type: ignore[attr-defined]
    out: list[tuple[str, set[str], object]] = []
    for route in app.routes:
        if isinstance(route, APIRoute):
            out.append((route.path, set(route.methods), route))
        elif hasattr(route, "effective_route_contexts"):  # a router included in the app
            for ctx in route.effective_route_contexts():
                out.append((ctx.path, set(ctx.methods or ()), ctx.original_route))
        elif hasattr(route, "path") and hasattr(route, "methods"):
            out.append((route.path, set(route.methods or ()), route))
    return out


def operator_routes(srv: ThreadServer) -> list[tuple[str, str]]:
    found = []
    for path, methods, route in app_routes(srv):
        if path.startswith(PREFIX):
            assert isinstance(route, OperatorRoute), f"{path} is not guarded"
            for method in sorted(methods):
                path = path.replace("{report_id}", "1").replace("{sanction_id}", "1")
                found.append((method, path.replace("{room_id}", "AAAAAAAAAAAAAAAA")))
    return found


def test_every_operator_route_is_a_404_to_everyone_else(server: ThreadServer, people: Callable[[str], Person]) -> None:
    routes = operator_routes(server)
    assert len(routes) >= 10
    # Every route of the app under the operators' prefix is one of theirs.
    assert all(p.startswith(PREFIX) for _, p in routes)
    eve, op = people("Eve"), people("Op")
    appoint(server, op)
    key = op.post("/api/keys", {"label": "agent"}).json()["key"]
    unknown = httpx.get(server.base + PREFIX + "/no-such-route").json()
    callers = {
        "anonymous": httpx.Client(base_url=server.base),
        "a player": eve.http,
        "the operator's API key": httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {key}"}),
    }
    for who, client in callers.items():
        for method, path in routes:
            for body in JUNK_BODIES:
                kwargs: dict[str, object] = {"content": body} if isinstance(body, str) else {"json": body}
                r = client.request(method, path, **kwargs)  # type: ignore[arg-type]
                if isinstance(body, str):
                    # A body that is not JSON is refused by the transport's guard first, for any path alike.
                    missing = client.request(method, PREFIX + "/no-such-route", content=body)
                    assert r.status_code == missing.status_code, (who, method, path)
                    assert r.status_code in (404, 415), (who, method, path)
                    continue
                # Answered as a path no route serves.
                assert (r.status_code, r.json()) == (404, unknown), (who, method, path, r.text)
    # The operator gets through (the guard is not a wall for everyone).
    assert op.http.get(PREFIX + "/me").status_code == 200
    assert op.http.get(PREFIX + "/reports").status_code == 200


def test_operators_are_appointed_by_account_id_or_address() -> None:
    settings = Settings(operators=" op-id , Boss@Example.org ")
    user = UserRecord("op-id", "Op", "en", None, None)  # type: ignore[arg-type]
    boss = UserRecord("x", "Boss", "en", "boss@example.org", None)  # type: ignore[arg-type]
    other = UserRecord("y", "Eve", "en", "eve@example.org", None)  # type: ignore[arg-type]
    assert is_operator(settings, user) and is_operator(settings, boss) and not is_operator(settings, other)
    # Through an API key, an operator is no operator.
    assert not is_operator(settings, UserRecord("op-id", "Op", "en", None, None, agent=True))  # type: ignore[arg-type]
    assert not is_operator(Settings(), user)


def test_reports_cannot_be_aimed_at_oneself_flooded_or_read_by_others(
    start_server: Callable[..., ThreadServer],
) -> None:
    srv = start_server(rate_report_burst=3, rate_report_per_second=0.0001)
    ann, bob, eve = (Person(srv.base, n) for n in ("Ann", "Bob", "Eve"))
    try:
        room = ann.create()
        bob.post(f"/api/rooms/{room['id']}/join")
        r = ann.post("/api/reports", {"user": ann.id, "reason": "abuse"})
        assert r.status_code == 422 and r.json()["code"] == "cannot_target_self"
        r = ann.post("/api/reports", {"room": room["id"], "seat": 0, "reason": "abuse"})
        assert r.json()["code"] == "cannot_target_self"
        # A private room one never saw is no room at all.
        private = eve.create(public=False)
        r = ann.post("/api/reports", {"room": private["id"], "seat": 0, "reason": "abuse"})
        assert r.status_code == 404 and r.json()["code"] == "room_not_found"
        codes = [ann.post("/api/reports", {"user": bob.id, "reason": "spam"}).status_code for _ in range(6)]
        assert codes.count(201) <= 3 and codes[-1] == 429
        # Bob cannot read Ann's reports: not by any route of his.
        assert bob.http.get("/api/reports/mine").json() == []
        for path in ("/api/reports", "/api/reports/1", PREFIX + "/reports"):
            assert bob.http.get(path).status_code in (404, 405)
    finally:
        for p in (ann, bob, eve):
            p.close()


def test_a_ban_ends_sessions_keys_and_sockets_at_once(server: ThreadServer, people: Callable[[str], Person]) -> None:
    bob, op = people("Bob"), people("Op")
    appoint(server, op)
    key = bob.post("/api/keys", {"label": "agent"}).json()["key"]
    room = bob.create()
    bob.connect(room["id"])
    bob.recv_until("snapshot")
    r = op.post(PREFIX + "/sanctions", {"kind": "ban", "user": bob.id, "minutes": 60, "reason": "cheating"})
    assert r.status_code == 201, r.text
    with pytest.raises((ConnectionClosed, EOFError, TimeoutError)):
        while True:
            bob.recv(timeout=10)
    assert bob.http.get("/api/session").status_code == 401
    assert httpx.get(server.base + "/api/session", headers={"Authorization": f"Bearer {key}"}).status_code == 401
    audit = op.http.get(PREFIX + "/audit").json()[0]
    assert (audit["operator"], audit["action"], audit["target"], audit["reason"]) == (
        op.id,
        "ban",
        f"user:{bob.id}",
        "cheating",
    )
    assert audit["details"]["sessions_revoked"] == 1 and audit["details"]["keys_revoked"] == 1
    # Lifting it is written down too.
    sanction = op.http.get(PREFIX + "/sanctions").json()[0]
    assert op.post(PREFIX + f"/sanctions/{sanction['id']}/lift", {"reason": "appeal"}).status_code == 200
    assert op.http.get(PREFIX + "/audit").json()[0]["action"] == "lift_ban"


def test_a_banned_address_gets_no_new_session_nor_socket(server: ThreadServer, people: Callable[[str], Person]) -> None:
    eve, op = people("Eve"), people("Op")
    appoint(server, op)
    room = eve.create()
    eve.connect(room["id"])
    eve.recv_until("snapshot")
    r = op.post(PREFIX + "/sanctions", {"kind": "ban", "address": "127.0.0.1", "minutes": 5, "reason": "spam bots"})
    assert r.status_code == 201
    with pytest.raises((ConnectionClosed, EOFError, TimeoutError)):
        while True:
            eve.recv(timeout=10)
    r = httpx.post(server.base + "/api/session", json={"nickname": "Eve2", "language": "en"})
    assert r.status_code == 403 and r.json()["code"] == "banned"
    # The operator, sharing the address here, lifts it.
    sanction = op.http.get(PREFIX + "/sanctions").json()[0]
    assert op.post(PREFIX + f"/sanctions/{sanction['id']}/lift", {"reason": "test"}).status_code == 200
    assert httpx.post(server.base + "/api/session", json={"nickname": "Eve2", "language": "en"}).status_code == 200


def test_a_muted_person_cannot_chat(server: ThreadServer, people: Callable[[str], Person]) -> None:
    bob, op = people("Bob"), people("Op")
    appoint(server, op)
    room = bob.create()
    bob.connect(room["id"])
    bob.recv_until("snapshot")
    op.post(PREFIX + "/sanctions", {"kind": "mute", "user": bob.id, "minutes": 5, "reason": "insults"})
    bob.send({"type": "chat", "text": "still here"})
    assert bob.recv_until("error")["code"] == "chat_muted"
    assert services(server).settings.operators == op.id


def test_hostile_text_and_ids_are_refused_before_the_database(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    """NUL and control characters (PostgreSQL refuses NUL with an error) are a coded refusal, never a 500."""
    ann, bob, op = people("Ann"), people("Bob"), people("Op")
    appoint(server, op)
    r = ann.post("/api/reports", {"user": bob.id, "reason": "abuse", "note": "bad\u0000note"})
    assert r.status_code == 422 and r.json()["code"] == "invalid_text"
    assert ann.post("/api/social/friends", {"name": "Bob\u0000"}).json()["code"] == "invalid_text"
    assert ann.post("/api/social/blocks", {"user": "x\u0000y"}).json()["code"] == "invalid_text"
    assert ann.http.delete("/api/social/blocks/a%00b").status_code == 404
    r = op.post(PREFIX + "/sanctions", {"kind": "ban", "address": "1.2.3.4\u0000", "minutes": 5, "reason": "x"})
    assert r.status_code == 422
    assert op.http.get(PREFIX + "/people", params={"name": "A\u0000"}).status_code == 422
