"""Moderation from the attacker's side (issue 46): who may sanction, report, mute, block, befriend and invite
whom. Each case is a request the guard refuses (a sanction naming both a person and an address, or the
operator themselves; a report aimed at a seat nobody sits in or a room one never saw; an invitation from a
stranger or a blocked person; someone else's invitation), next to the allowed request it must not refuse.

The operator's actions and the ban check run against a SQLite store; the routes against one live server
for the whole file (each test makes its own people, so they do not see each other's)."""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from live_server import ThreadServer, quick_settings
from opolyx.protocol.errors import ApiError
from opolyx.server.moderation import actions, enforcement, wordfilter
from opolyx.server.moderation.operators import PREFIX, is_operator, not_found, operator_name
from opolyx.server.settings import Settings
from opolyx.storage import SqlStore, Store, UserRecord
from opolyx.storage.testing import TestDatabase

# --- the operator's actions and the ban check, against a store --------------------------------------------------


class Rooms:
    """The room service's socket closing, recorded."""

    def __init__(self) -> None:
        self.users: list[str] = []
        self.addresses: list[str] = []

    def close_user_sockets(self, user_id: str) -> None:
        self.users.append(user_id)

    def close_address_sockets(self, address: str) -> None:
        self.addresses.append(address)


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[Store]:
    s = await SqlStore.open(database.url, schema=database.schema)
    try:
        for uid in ("bob", "eve"):
            await s.create_user(uid, uid.title(), "en")
            await s.create_session(f"s-{uid}", uid, f"h-{uid}", user_agent=None, expires_at=_in(60))
        yield s
    finally:
        await s.close()


# The longest sanction set in one go: a year (of 366 days), in minutes.
YEAR = 527_040


def _in(minutes: float) -> datetime:
    return datetime.now(UTC) + timedelta(minutes=minutes)


async def _sanction(store: Store, rooms: Rooms | None = None, **kw: Any) -> int:
    args: dict[str, Any] = {"kind": "ban", "user_id": None, "address": None, "minutes": 60, "reason": "r"} | kw
    return await actions.sanction(store, rooms, "op@example.org", **args)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_a_sanction_names_exactly_one_person_or_address_of_a_known_kind(store: Store) -> None:
    with pytest.raises(ValueError, match="names a person or an address"):
        await _sanction(store, user_id="bob", address="10.0.0.1")
    with pytest.raises(ValueError, match="names a person or an address"):
        await _sanction(store)
    with pytest.raises(ValueError, match="unknown sanction"):
        await _sanction(store, kind="exile", user_id="bob")
    # Nothing was stored by the refusals.
    assert await store.sanctions(active_only=False, limit=10) == []
    assert await store.audit_log(10) == []


@pytest.mark.anyio
async def test_a_ban_of_a_person_ends_their_sessions_keys_and_sockets_and_nobody_else_s(store: Store) -> None:
    rooms = Rooms()
    await _sanction(store, rooms, user_id="bob")
    assert rooms.users == ["bob"] and rooms.addresses == []
    assert await store.list_sessions("bob", datetime.now(UTC)) == []
    assert len(await store.list_sessions("eve", datetime.now(UTC))) == 1
    [entry] = await store.audit_log(10)
    assert (entry.operator, entry.action, entry.target, entry.reason) == ("op@example.org", "ban", "user:bob", "r")
    assert entry.details is not None and entry.details["sessions_revoked"] == 1
    # Refused from now on, with the end of the ban in the message; Eve is not.
    with pytest.raises(ApiError) as refused:
        await enforcement.refuse_banned(store, user_id="bob")
    assert refused.value.status == 403 and refused.value.code == "banned"
    await enforcement.refuse_banned(store, user_id="eve")
    # Without a room service (opolyx admin on a single process) the sessions still end.
    await _sanction(store, None, user_id="eve")
    assert await store.list_sessions("eve", datetime.now(UTC)) == []


@pytest.mark.anyio
async def test_a_mute_keeps_sessions_and_sockets(store: Store) -> None:
    rooms = Rooms()
    await _sanction(store, rooms, kind="mute", user_id="bob")
    await _sanction(store, rooms, kind="mute", address="10.0.0.9")
    assert rooms.users == [] and rooms.addresses == []
    assert len(await store.list_sessions("bob", datetime.now(UTC))) == 1
    [second, first] = await store.audit_log(10)
    assert first.details is not None and "sessions_revoked" not in first.details
    assert (first.target, second.target) == ("user:bob", "address:10.0.0.9")
    # A mute is no ban.
    await enforcement.refuse_banned(store, user_id="bob", address="10.0.0.9")


@pytest.mark.anyio
async def test_a_ban_of_an_address_closes_its_sockets_and_refuses_it(store: Store) -> None:
    rooms = Rooms()
    await _sanction(store, rooms, address="10.0.0.7")
    assert rooms.addresses == ["10.0.0.7"] and rooms.users == []
    assert len(await store.list_sessions("bob", datetime.now(UTC))) == 1
    with pytest.raises(ApiError):
        await enforcement.refuse_banned(store, address="10.0.0.7")
    await enforcement.refuse_banned(store, address="10.0.0.8")
    assert (await store.audit_log(1))[0].target == "address:10.0.0.7"
    await _sanction(store, None, address="10.0.0.8")  # no room service: nothing to close, no error


@pytest.mark.anyio
async def test_a_sanction_lasts_between_a_minute_and_a_year(store: Store) -> None:
    before = datetime.now(UTC)
    await _sanction(store, kind="mute", user_id="bob", minutes=0)
    await _sanction(store, kind="mute", user_id="eve", minutes=10**9)
    short, long_ = sorted(await store.sanctions(active_only=False, limit=10), key=lambda s: s.expires_at)
    assert timedelta(seconds=59) < short.expires_at - before < timedelta(minutes=1, seconds=30)
    assert timedelta(minutes=YEAR - 1) < long_.expires_at - before < timedelta(minutes=YEAR + 1)
    minutes = sorted(int((e.details or {})["minutes"]) for e in await store.audit_log(10))  # type: ignore[call-overload]
    assert minutes == [1, YEAR]


@pytest.mark.anyio
async def test_lifting_or_closing_what_does_not_exist_changes_nothing(store: Store) -> None:
    assert await actions.lift(store, "op", 999, "appeal") is False
    assert await actions.close_report(store, "op", 999, "done") is False
    assert await store.audit_log(10) == []
    sid = await _sanction(store, kind="mute", address="10.0.0.3")
    assert await actions.lift(store, "op", sid, "appeal") is True
    [lifted, _] = await store.audit_log(10)
    assert (lifted.action, lifted.target, lifted.reason) == ("lift_mute", "address:10.0.0.3", "appeal")
    assert lifted.details == {"sanction": sid}
    rid = await store.add_report("bob", "eve", room_id=None, reason="spam", note=None, line=None, evidence={})
    assert await actions.close_report(store, "op", rid, "warned") is True
    assert await actions.close_report(store, "op", rid, "again") is False  # closed once, audited once
    closes = [a for a in await store.audit_log(10) if a.action == "close_report"]
    assert [(a.target, a.reason) for a in closes] == [(f"report:{rid}", "warned")]


def test_until_text_is_utc_to_the_minute() -> None:
    assert enforcement.until_text(datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)) == "2026-03-04 05:06 UTC"


def test_who_is_an_operator() -> None:
    settings = Settings(operators="op-id,boss@example.org")
    boss = UserRecord("x", "Boss", "en", "Boss@Example.org", None)  # type: ignore[arg-type]
    assert is_operator(settings, boss) and operator_name(boss) == "Boss@Example.org"
    nobody = UserRecord("y", "Eve", "en", None, None)  # type: ignore[arg-type]
    assert not is_operator(settings, nobody) and operator_name(nobody) == "y"
    assert not is_operator(settings, None)
    # An appointed address in another case is the same address; another address is nobody's appointment.
    assert not is_operator(settings, UserRecord("w", "W", "en", "boss@example.org.evil", None))  # type: ignore[arg-type]
    assert not_found().status_code == 404


def test_the_word_filter_languages_an_operator_may_choose() -> None:
    assert wordfilter.languages_setting(" EN, zh ,xx,,de ") == ("de", "en", "zh")
    assert wordfilter.languages_setting("") == ()
    assert wordfilter.words("xx") == []
    # Only the chosen lists mask; a single listed Chinese character does not hide the longer word.
    word = next(w for w in wordfilter.words("de") if w.isalpha() and w.isascii() and len(w) > 4)
    assert wordfilter.clean(f"so {word}!", ("en",)) == f"so {word}!"
    assert wordfilter.clean(f"so {word}!", ("de",)) == f"so {'*' * len(word)}!"
    assert wordfilter.clean("我喜欢乳酪", ("zh",)) == "我喜欢乳酪"
    assert wordfilter.clean(f"so {word}!", ()) == f"so {word}!"


def test_the_word_filter_cannot_be_dodged_by_case_signs_or_a_longer_entry() -> None:
    """A listed word in capitals, a listed entry with signs, the longer of two entries that share a start:
    each is masked whole. What merely contains a listed word is left alone."""
    assert wordfilter.clean("du ARSCHLOCH", ("de",)) == "du *********"
    assert wordfilter.clean("what an A$$ move", ("en",)) == "what an *** move"
    assert wordfilter.clean("xa$$ and a$$y", ("en",)) == "xa$$ and a$$y"  # not a whole word
    assert wordfilter.clean("the girl on top wins", ("en",)) == "the *********** wins"
    assert wordfilter.clean("你好干你娘啊", ("zh",)) == "你好***啊"
    # Two-character entries count, in either script; one not on the chosen lists is left alone.
    assert wordfilter.clean("好妈的好", ("zh",)) == "好**好"
    assert wordfilter.clean("that is BS", ("en",)) == "that is **"
    # A listed one-character gesture is masked, alone, repeated or beside a word; a lone letter is not.
    assert "🖕" in wordfilter.words("en")
    assert wordfilter.clean("gg 🖕", ("en",)) == "gg *"
    assert wordfilter.clean("🖕🖕 loser🖕", ("en",)) == "** loser*"
    assert wordfilter.clean("a b c", ("en", "de", "fr", "es", "pt")) == "a b c"
    # Accented entries of the spaced languages stay whole-word entries: inside a longer word they are left
    # alone, as a word or a phrase they are masked; a list with nothing to match anywhere reads any text.
    assert wordfilter.clean("dödelei und dödel", ("de",)) == "dödelei und *****"
    assert wordfilter.clean("anique ta mèred, nique ta mère", ("fr",)) == "anique ta mèred, *************"
    assert wordfilter.clean("schöne Grüße", ("de",)) == "schöne Grüße"
    assert wordfilter.clean("日本語 is fine", ("en",)) == "日本語 is fine"
    # Ascii entries of the Chinese list are not matched inside words ("13." in a price).
    assert wordfilter.clean("pay 13.5 now", ("zh",)) == "pay 13.5 now"
    assert wordfilter.clean("pay 13.5 now 你好", ("zh",)) == "pay 13.5 now 你好"


_SERIAL = itertools.count()


# --- the routes, at a live server -------------------------------------------------------------------------------


class Guest:
    """A signed-in guest with its own cookie jar."""

    def __init__(self, base: str, name: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=30)
        r = self.http.post("/api/session", json={"nickname": name, "language": "en"})
        r.raise_for_status()
        self.id: str = r.json()["user"]["id"]
        self.name = name

    def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return self.http.post(path, json=body or {})

    def get(self, path: str, **params: Any) -> httpx.Response:
        return self.http.get(path, params=params)

    def room(self, public: bool = True, mode: str = "classic") -> str:
        r = self.post("/api/rooms", {"mode": mode, "seats": 4, "public": public})
        assert r.status_code == 201, r.text
        return str(r.json()["id"])


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    data: Path = tmp_path_factory.mktemp("moderation")
    url = f"sqlite+aiosqlite:///{data / 'db.sqlite3'}"
    with ThreadServer(
        quick_settings(data / "data", database_url=url, rate_social_burst=1000, rate_report_burst=1000)
    ) as server:
        yield server


@pytest.fixture
def guests(srv: ThreadServer) -> Iterator[Any]:
    made: list[Guest] = []

    def make(*names: str) -> list[Guest]:
        # One server for the file: each test's people get names of their own (nicknames are searched).
        out = [Guest(srv.base, f"{n}{next(_SERIAL)}") for n in names]
        made.extend(out)
        return out

    yield make
    for g in made:
        g.http.close()


def appoint(srv: ThreadServer, *who: Guest) -> None:
    srv.server.config.app.state.services.settings.operators = ",".join(g.id for g in who)  # type: ignore[attr-defined]


def code(r: httpx.Response) -> tuple[int, str | None]:
    return r.status_code, (r.json() or {}).get("code") if r.content else None


def test_an_operator_cannot_sanction_both_neither_nobody_or_themselves(srv: ThreadServer, guests: Any) -> None:
    op, bob = guests("Op", "Bob")
    appoint(srv, op)
    sanctions = PREFIX + "/sanctions"
    base = {"kind": "mute", "minutes": 5, "reason": "insults"}
    assert code(op.post(sanctions, base | {"user": bob.id, "address": "10.1.1.1"})) == (422, "invalid_request")
    assert code(op.post(sanctions, base)) == (422, "invalid_request")
    assert code(op.post(sanctions, base | {"user": "no-such-person"})) == (404, "user_not_found")
    assert code(op.post(sanctions, base | {"user": op.id})) == (422, "cannot_target_self")
    assert op.post(sanctions, base | {"user": bob.id, "minutes": 0}).status_code == 422
    assert op.post(sanctions, base | {"user": bob.id, "minutes": YEAR + 1}).status_code == 422
    # None of those was stored; the sanction an operator may set is.
    assert [s for s in op.get(sanctions, state="all").json() if s["user"] in (bob.id, op.id)] == []
    r = op.post(sanctions, base | {"user": bob.id, "minutes": YEAR})
    assert r.status_code == 201
    mine = [s for s in op.get(sanctions).json() if s["id"] == r.json()["id"]]
    assert [(s["kind"], s["user"], s["by"], s["lifted_at"]) for s in mine] == [("mute", bob.id, op.id, None)]
    # Lifted: gone from the active list, still in the full one.
    assert op.post(f"{sanctions}/{r.json()['id']}/lift", {"reason": "ok"}).status_code == 200
    assert all(s["id"] != r.json()["id"] for s in op.get(sanctions).json())
    assert any(s["id"] == r.json()["id"] and s["lifted_at"] for s in op.get(sanctions, state="all").json())
    assert code(op.post(f"{sanctions}/999999/lift", {"reason": "x"})) == (404, "sanction_not_found")


def test_every_operator_action_needs_a_reason_of_bounded_length(srv: ThreadServer, guests: Any) -> None:
    """The audit log says why: an empty reason is refused, and so is one past 500 characters (or an id
    past its length), so nothing unbounded reaches the log."""
    op, bob = guests("Op", "Bob")
    appoint(srv, op)
    sanctions = PREFIX + "/sanctions"
    base = {"kind": "mute", "user": bob.id, "minutes": 5}
    assert op.post(sanctions, base | {"reason": ""}).status_code == 422
    assert op.post(sanctions, base | {"reason": "x" * 501}).status_code == 422
    assert op.post(sanctions, {"kind": "mute", "address": "1" * 65, "minutes": 5, "reason": "r"}).status_code == 422
    assert op.post(sanctions, base | {"user": "u" * 65, "reason": "r"}).status_code == 422
    assert code(op.post(sanctions, base | {"user": "u" * 64, "reason": "r"})) == (404, "user_not_found")
    assert op.post(sanctions, base | {"minutes": 1, "reason": "a minute"}).status_code == 201
    line = {"at": 1.0, "reason": "r"}
    assert op.post(PREFIX + "/chat/remove", line | {"room": ""}).status_code == 422
    assert op.post(PREFIX + "/chat/remove", line | {"room": "A" * 33}).status_code == 422
    assert code(op.post(PREFIX + "/chat/remove", line | {"room": "A" * 32})) == (404, "line_not_found")
    assert code(op.post(PREFIX + "/chat/remove", line | {"room": "A"})) == (404, "line_not_found")
    assert op.get(PREFIX + "/people", name="").status_code == 422
    assert op.get(PREFIX + "/people", name="n" * 41).status_code == 422
    assert op.get(PREFIX + "/people", name="n" * 40).json() == []
    assert op.post(sanctions, base | {"reason": "x" * 500}).status_code == 201
    assert op.post(sanctions, {"kind": "mute", "address": "1" * 64, "minutes": 5, "reason": "r"}).status_code == 201
    assert [a["reason"] for a in op.get(PREFIX + "/audit", limit=3).json()] == ["r", "x" * 500, "a minute"]


def test_the_report_queue_answers_at_most_two_hundred(srv: ThreadServer, guests: Any) -> None:
    """A flood of reports (from many accounts, past any one's rate) cannot make the queue's answer unbounded."""
    op, ann, bob = guests("Op", "Ann", "Bob")
    appoint(srv, op)
    for _ in range(max(51, 201 - len(op.get(PREFIX + "/reports").json()))):
        assert ann.post("/api/reports", {"user": bob.id, "reason": "spam"}).status_code == 201
    # The reporter's own list: 50 unless more are asked for.
    assert len(ann.get("/api/reports/mine").json()) == 50
    assert len(ann.get("/api/reports/mine", limit=51).json()) == 51
    assert len(op.get(PREFIX + "/reports").json()) == 200
    assert len(op.get(PREFIX + "/reports", state="all").json()) == 200


def test_the_operator_s_reports_rooms_lines_and_people(srv: ThreadServer, guests: Any) -> None:
    op, ann, bob = guests("Op", "Ann", "Bob")
    appoint(srv, op)
    assert op.get(PREFIX + "/me").json() == {"id": op.id, "name": op.name, "operator": op.id}
    rid = ann.post("/api/reports", {"user": bob.id, "reason": "spam", "note": "adverts"}).json()["id"]
    [found] = [r for r in op.get(PREFIX + "/reports").json() if r["id"] == rid]
    assert found["reporter"] == {"id": ann.id, "name": ann.name} and found["reported"]["name"] == bob.name
    assert (found["reason"], found["note"], found["handled_at"], found["outcome"]) == ("spam", "adverts", None, None)
    close = f"{PREFIX}/reports/{rid}/close"
    assert op.post(close, {"outcome": "warned"}).json() == {"closed": rid}
    # Closed: off the open queue, in the full one with who handled it; closing again finds nothing.
    assert all(r["id"] != rid for r in op.get(PREFIX + "/reports").json())
    [done] = [r for r in op.get(PREFIX + "/reports", state="all").json() if r["id"] == rid]
    assert (done["handled_by"], done["outcome"]) == (op.id, "warned") and done["handled_at"]
    assert code(op.post(close, {"outcome": "again"})) == (404, "report_not_found")
    # Rooms: a private one is listed too; a room that does not exist cannot be closed.
    private = bob.room(public=False)
    assert bob.post(f"/api/rooms/{private}/bots", {"strength": "easy"}).status_code == 200
    [listed] = [r for r in op.get(PREFIX + "/rooms").json() if r["id"] == private]
    assert listed["public"] is False and listed["players"][0]["name"] == bob.name
    # A person not connected is shown so; a bot is nobody who could be connected.
    assert [(p["bot"], p["connected"]) for p in listed["players"]] == [(None, False), ("easy", None)]
    assert code(op.post(f"{PREFIX}/rooms/AAAAAAAAAAAAAAAA/close", {"reason": "x"})) == (404, "room_not_found")
    assert op.post(f"{PREFIX}/rooms/{private}/close", {"reason": "spam room"}).json() == {"closed": private}
    assert all(r["id"] != private for r in op.get(PREFIX + "/rooms").json())
    # A chat line nobody said cannot be removed.
    line = {"room": private, "at": 12.5, "reason": "x"}
    assert code(op.post(PREFIX + "/chat/remove", line)) == (404, "line_not_found")
    # People by name, and the audit log's length.
    [person] = op.get(PREFIX + "/people", name=bob.name).json()
    assert person["id"] == bob.id and person["reliability"]["games"] == 0
    assert len(op.get(PREFIX + "/audit", limit=1).json()) == 1
    assert op.get(PREFIX + "/audit", limit=0).status_code == 422


def test_reports_are_about_someone_real_in_a_room_one_saw(srv: ThreadServer, guests: Any) -> None:
    ann, bob, cid = guests("Ann", "Bob", "Cid")
    room = ann.room()
    assert bob.post(f"/api/rooms/{room}/join").status_code == 200
    assert ann.post(f"/api/rooms/{room}/bots", {"strength": "easy"}).status_code == 200
    report = "/api/reports"
    # A seat nobody sits in, a bot's seat, a chat line never said: nobody to report.
    assert code(cid.post(report, {"room": room, "seat": 3, "reason": "abuse"})) == (404, "user_not_found")
    assert code(cid.post(report, {"room": room, "seat": 2, "reason": "abuse"})) == (404, "user_not_found")
    assert code(cid.post(report, {"room": room, "at": 1.0, "reason": "abuse"})) == (404, "line_not_found")
    # An id that is no id, an unknown id, an unknown name: nobody either.
    for target in ({"user": "../x"}, {"user": "nobody-here"}, {"name": "Nobody At All"}, {}):
        assert code(cid.post(report, target | {"reason": "abuse"})) == (404, "user_not_found"), target
    # A room that does not exist or that one never saw: no room.
    assert code(cid.post(report, {"room": "AAAAAAAAAAAAAAAA", "seat": 0, "reason": "abuse"})) == (404, "room_not_found")
    assert code(cid.post(report, {"room": "not an id!", "seat": 0, "reason": "abuse"})) == (404, "room_not_found")
    # A seat of a public room: reported, with the room as evidence.
    r = cid.post(report, {"room": room, "seat": 1, "reason": "quitting"})
    assert r.status_code == 201, r.text
    # Both sitting in a room they made: the creator's seat too.
    assert cid.post(report, {"room": room, "seat": 0, "reason": "name"}).status_code == 201
    assert [m["reason"] for m in cid.get("/api/reports/mine").json()] == ["name", "quitting"]
    assert cid.get("/api/reports/mine", limit=1).json()[0]["handled"] is False
    assert ann.get("/api/reports/mine").json() == []


def test_what_a_report_or_a_link_may_say_is_bounded(srv: ThreadServer, guests: Any) -> None:
    ann, bob = guests("Ann", "Bob")
    room = ann.room()
    report = "/api/reports"
    for bad in (
        {"room": room, "seat": -1},
        {"room": room, "seat": 6},
        {"room": "A" * 33, "seat": 0},
        {"name": ""},
        {"name": "n" * 41},
        {"user": "u" * 65},
        {"user": ann.id, "note": "n" * 501},
        {"user": ann.id, "reason": "boring"},
    ):
        assert bob.post(report, {"reason": "spam"} | bad).status_code == 422, bad
    assert code(bob.post(report, {"room": room, "seat": 5, "reason": "spam"})) == (404, "user_not_found")
    # A seat or a moment without a room names nobody by it (the id, if given, is whom it is about).
    assert code(bob.post(report, {"seat": 0, "reason": "spam"})) == (404, "user_not_found")
    assert code(bob.post(report, {"at": 1.0, "reason": "spam"})) == (404, "user_not_found")
    assert code(bob.post(report, {"name": "n" * 40, "reason": "spam"})) == (404, "user_not_found")
    assert code(bob.post(report, {"user": "u" * 64, "reason": "spam"})) == (404, "user_not_found")
    assert code(bob.post(report, {"room": "A" * 32, "seat": 0, "reason": "spam"})) == (404, "room_not_found")
    assert code(bob.post(report, {"room": room, "seat": 0, "reason": "spam", "at": None})) == (201, None)
    assert bob.post(report, {"user": ann.id, "reason": "spam", "note": "n" * 500}).status_code == 201
    assert bob.get("/api/reports/mine", limit=0).status_code == 422
    assert bob.get("/api/reports/mine", limit=101).status_code == 422
    assert len(bob.get("/api/reports/mine", limit=100).json()) == 2
    assert bob.http.delete("/api/social/mutes/" + "u" * 65).status_code == 422
    assert bob.http.delete("/api/social/mutes/" + "u" * 64).status_code == 204
    assert bob.http.delete("/api/social/mutes/u").status_code == 204
    assert code(bob.post(report, {"name": "n", "reason": "spam"})) == (404, "user_not_found")


def test_a_private_room_s_seats_and_reliability_stay_private(srv: ThreadServer, guests: Any) -> None:
    ann, bob, eve = guests("Ann", "Bob", "Eve")
    room = ann.room(public=False)
    assert code(eve.get(f"/api/rooms/{room}/reliability")) == (404, "room_not_found")
    assert code(eve.post("/api/reports", {"room": room, "seat": 0, "reason": "abuse"})) == (404, "room_not_found")
    assert code(eve.post("/api/social/blocks", {"room": room, "seat": 0})) == (404, "room_not_found")
    # The creator sees it; a public room is anyone's to see.
    assert set(ann.get(f"/api/rooms/{room}/reliability").json()["seats"]) == {"0"}
    public = bob.room()
    assert set(eve.get(f"/api/rooms/{public}/reliability").json()["seats"]) == {"0"}


def test_friends_are_mutual_and_a_block_ends_them_both_ways(srv: ThreadServer, guests: Any) -> None:
    ann, bob = guests("Ann", "Bob")
    asked = ann.post("/api/social/friends", {"user": bob.id})
    assert (asked.status_code, asked.json()["mutual"]) == (201, False)
    assert code(ann.post("/api/social/friends", {"user": ann.id})) == (422, "cannot_target_self")
    social = ann.get("/api/social").json()
    assert social["asked"] == [{"id": bob.id, "name": bob.name}] and social["friends"] == []
    assert bob.get("/api/social").json()["requests"] == [{"id": ann.id, "name": ann.name}]
    assert bob.post("/api/social/friends", {"user": ann.id}).json()["mutual"] is True
    assert [f["id"] for f in ann.get("/api/social").json()["friends"]] == [bob.id]
    assert ann.get("/api/social").json()["asked"] == [] and bob.get("/api/social").json()["requests"] == []
    # Bob blocks Ann: neither lists the other as a friend any more, whoever asked first.
    assert bob.post("/api/social/blocks", {"user": ann.id}).status_code == 201
    assert ann.get("/api/social").json()["friends"] == [] and bob.get("/api/social").json()["friends"] == []
    assert ann.get("/api/social").json()["requests"] == [] and ann.get("/api/social").json()["asked"] == []
    assert bob.get("/api/social").json()["requests"] == [] and bob.get("/api/social").json()["asked"] == []
    assert bob.get("/api/social").json()["blocked"] == [{"id": ann.id, "name": ann.name}]
    # Unfriending removes both sides' rows; an id with foreign characters is nobody.
    assert ann.http.delete(f"/api/social/blocks/{bob.id}").status_code == 204
    assert bob.get("/api/social").json()["blocked"] == [{"id": ann.id, "name": ann.name}]  # only Bob lifts his
    assert bob.http.delete(f"/api/social/blocks/{ann.id}").status_code == 204
    assert bob.get("/api/social").json()["blocked"] == []
    ann.post("/api/social/friends", {"user": bob.id})
    bob.post("/api/social/friends", {"user": ann.id})
    assert bob.http.delete(f"/api/social/friends/{ann.id}").status_code == 204
    assert ann.get("/api/social").json()["asked"] == [] and ann.get("/api/social").json()["friends"] == []
    assert code(bob.http.delete("/api/social/friends/a.b")) == (404, "user_not_found")
    # A mute lists the person under muted, and only there.
    assert ann.post("/api/social/mutes", {"user": bob.id}).json() == {"id": bob.id, "name": bob.name}
    social = ann.get("/api/social").json()
    assert social["muted"] == [{"id": bob.id, "name": bob.name}] and social["blocked"] == []
    # The filter switch reads back.
    assert social["chat_filter"] is True
    assert ann.http.put("/api/social/filter", json={"on": False}).json() == {"chat_filter": False}
    assert ann.get("/api/social").json()["chat_filter"] is False


def test_invitations_go_between_friends_only_and_only_to_whom_they_name(srv: ThreadServer, guests: Any) -> None:
    ann, bob, cid = guests("Ann", "Bob", "Cid")
    invites = "/api/social/invites"
    # Not friends at all, or only asked one way: refused.
    assert code(ann.post(invites, {"user": bob.id})) == (403, "not_friends")
    ann.post("/api/social/friends", {"user": bob.id})
    assert code(ann.post(invites, {"user": bob.id})) == (403, "not_friends")
    bob.post("/api/social/friends", {"user": ann.id})
    # Friends, but Ann sits in no room.
    assert code(ann.post(invites, {"user": bob.id})) == (409, "no_room_to_invite")
    room = ann.room(public=False)
    r = ann.post(invites, {"user": bob.id})
    assert r.json() == {"invited": bob.id, "room": room}
    [inv] = bob.get("/api/social").json()["invites"]
    assert (inv["from"]["id"], inv["room"], inv["status"]) == (ann.id, room, "waiting")
    # Cid cannot use Bob's invitation, nor can a made-up id be used.
    accept = f"{invites}/{inv['id']}/accept"
    assert code(cid.post(accept)) == (404, "room_not_found")
    assert code(bob.post(f"{invites}/2147483647/accept")) == (404, "room_not_found")
    assert bob.post(f"{invites}/0/accept").status_code == 422
    # A block by Bob hides Ann's invitation and stops its use.
    bob.post("/api/social/blocks", {"user": ann.id})
    assert bob.get("/api/social").json()["invites"] == []
    assert code(bob.post(accept)) == (404, "room_not_found")
    bob.http.delete(f"/api/social/blocks/{ann.id}")
    assert bob.get("/api/social").json()["invites"] == []  # the friendship ended with the block
    assert code(ann.post(invites, {"user": bob.id})) == (403, "not_friends")
    # Friends again: the old invitation works (a private room, joined through it).
    ann.post("/api/social/friends", {"user": bob.id})
    bob.post("/api/social/friends", {"user": ann.id})
    r = bob.post(accept)
    assert r.status_code == 200, r.text
    assert {p["name"] for p in r.json()["players"]} == {ann.name, bob.name}


def test_an_invitation_into_a_closed_room_is_gone(srv: ThreadServer, guests: Any) -> None:
    ann, bob, op = guests("Ann", "Bob", "Op")
    appoint(srv, op)
    ann.post("/api/social/friends", {"user": bob.id})
    bob.post("/api/social/friends", {"user": ann.id})
    room = ann.room()
    ann.post("/api/social/invites", {"user": bob.id})
    [inv] = bob.get("/api/social").json()["invites"]
    assert [f["room"] for f in bob.get("/api/social").json()["friends"]] == [
        {"id": room, "mode": "classic", "status": "waiting"}
    ]
    op.post(f"{PREFIX}/rooms/{room}/close", {"reason": "test"})
    assert bob.get("/api/social").json()["invites"] == []
    assert code(bob.post(f"/api/social/invites/{inv['id']}/accept")) == (404, "room_not_found")
    assert bob.get("/api/social").json()["friends"][0]["room"] is None


def test_a_public_room_invitation_joins_and_a_running_one_shows_the_game(srv: ThreadServer, guests: Any) -> None:
    ann, bob, cid = guests("Ann", "Bob", "Cid")
    for friend in (bob, cid):
        ann.post("/api/social/friends", {"user": friend.id})
        friend.post("/api/social/friends", {"user": ann.id})
    room = ann.room()
    ann.post("/api/social/invites", {"user": bob.id})
    ann.post("/api/social/invites", {"user": cid.id})
    [inv] = bob.get("/api/social").json()["invites"]
    r = bob.post(f"/api/social/invites/{inv['id']}/accept")
    assert r.status_code == 200 and {p["name"] for p in r.json()["players"]} == {ann.name, bob.name}
    assert ann.post(f"/api/rooms/{room}/start").status_code == 200
    [late] = cid.get("/api/social").json()["invites"]
    r = cid.post(f"/api/social/invites/{late['id']}/accept")
    assert r.status_code == 200 and r.json()["status"] == "running"
    assert cid.name not in {p["name"] for p in r.json()["players"]}


def test_two_people_of_one_name_are_told_apart_by_game_not_guessed(srv: ThreadServer, guests: Any) -> None:
    ann, one = guests("Ann", "Twin")
    two = Guest(srv.base, one.name)
    try:
        assert code(ann.post("/api/social/friends", {"name": one.name})) == (409, "ambiguous_name")
        assert ann.get("/api/social").json()["asked"] == []
        assert code(ann.post("/api/social/friends", {"name": "nobody by this name"})) == (404, "user_not_found")
    finally:
        two.http.close()


def services(srv: ThreadServer) -> Any:
    return srv.server.config.app.state.services  # type: ignore[attr-defined]


def test_a_block_outlasts_a_friendship_made_again_for_invitations(srv: ThreadServer, guests: Any) -> None:
    """Ann blocked Bob, then both asked each other again: friends on paper, but no invitation either way."""
    ann, bob = guests("Ann", "Bob")
    ann.post("/api/social/blocks", {"user": bob.id})
    bob.post("/api/social/friends", {"user": ann.id})
    ann.post("/api/social/friends", {"user": bob.id})
    bob.room()
    assert code(bob.post("/api/social/invites", {"user": ann.id})) == (403, "not_friends")
    ann.room()
    assert code(ann.post("/api/social/invites", {"user": bob.id})) == (403, "not_friends")


def test_an_old_invitation_can_no_longer_be_used(srv: ThreadServer, guests: Any) -> None:
    ann, bob = guests("Ann", "Bob")
    ann.post("/api/social/friends", {"user": bob.id})
    bob.post("/api/social/friends", {"user": ann.id})
    ann.room()
    ann.post("/api/social/invites", {"user": bob.id})
    [inv] = bob.get("/api/social").json()["invites"]
    settings = services(srv).settings
    kept = settings.invite_minutes
    settings.invite_minutes = 0.0
    try:
        assert bob.get("/api/social").json()["invites"] == []
        assert code(bob.post(f"/api/social/invites/{inv['id']}/accept")) == (404, "room_not_found")
    finally:
        settings.invite_minutes = kept


def test_a_friend_in_a_private_room_is_shown_online_but_not_where(srv: ThreadServer, guests: Any) -> None:
    ann, bob = guests("Ann", "Bob")
    ann.post("/api/social/friends", {"user": bob.id})
    bob.post("/api/social/friends", {"user": ann.id})
    settings = services(srv).settings
    kept = settings.online_minutes
    try:
        [friend] = ann.get("/api/social").json()["friends"]
        assert (friend["online"], friend["room"]) == (True, None)
        settings.online_minutes = -1.0  # nobody counts as seen lately
        [friend] = ann.get("/api/social").json()["friends"]
        assert (friend["online"], friend["room"]) == (False, None)
        bob.room(public=False)
        [friend] = ann.get("/api/social").json()["friends"]
        assert (friend["online"], friend["room"]) == (False, None)
    finally:
        settings.online_minutes = kept


def test_a_player_seated_in_a_private_room_sees_it_and_a_stranger_does_not(srv: ThreadServer, guests: Any) -> None:
    ann, bob, cid = guests("Ann", "Bob", "Cid")
    ann.post("/api/social/friends", {"user": bob.id})
    bob.post("/api/social/friends", {"user": ann.id})
    room = ann.room(public=False)
    ann.post("/api/social/invites", {"user": bob.id})
    [inv] = bob.get("/api/social").json()["invites"]
    assert bob.post(f"/api/social/invites/{inv['id']}/accept").status_code == 200
    assert set(bob.get(f"/api/rooms/{room}/reliability").json()["seats"]) == {"0", "1"}
    assert bob.post("/api/reports", {"room": room, "seat": 0, "reason": "name"}).status_code == 201
    assert code(cid.get(f"/api/rooms/{room}/reliability")) == (404, "room_not_found")


def test_a_report_keeps_the_chat_before_it_and_the_room_as_it_was(srv: ThreadServer, guests: Any) -> None:
    op, ann, bob = guests("Op", "Ann", "Bob")
    appoint(srv, op)
    room = ann.room()
    assert bob.post(f"/api/rooms/{room}/join").status_code == 200
    cookie = "; ".join(f"{k}={v}" for k, v in ann.http.cookies.items())
    url = srv.base.replace("http", "ws", 1) + f"/ws/rooms/{room}"
    with connect(url, additional_headers={"Cookie": cookie}, open_timeout=10) as ws:
        for text in ("first words", "rude words"):
            ws.send(json.dumps({"type": "chat", "text": text}))
        said: list[dict[str, Any]] = []
        while len(said) < 2:
            frame = json.loads(ws.recv(timeout=20))
            if frame["type"] == "chat":
                said.append(frame)
    # By seat: the last lines of the room's chat are kept with it, and no line of its own.
    rid = bob.post("/api/reports", {"room": room, "seat": 0, "reason": "abuse"}).json()["id"]
    # By line: that line, and the line before it.
    lid = bob.post("/api/reports", {"room": room, "at": said[1]["at"], "reason": "abuse"}).json()["id"]
    queue = {r["id"]: r for r in op.get(PREFIX + "/reports").json()}
    by_seat, by_line = queue[rid], queue[lid]
    assert by_seat["line"] is None and by_seat["room"] == room
    assert [m["text"] for m in by_seat["evidence"]["chat"]] == ["first words", "rude words"]
    ev = by_seat["evidence"]["room"]
    assert (ev["id"], ev["status"], ev["seq"]) == (room, "waiting", 0) and by_seat["evidence"]["actions"] == []
    assert [(s["seat"], s["name"], s["user"], s["bot"]) for s in ev["seats"]] == [
        (0, ann.name, ann.id, None),
        (1, bob.name, bob.id, None),
    ]
    assert by_line["line"]["text"] == "rude words" and by_line["reported"]["id"] == ann.id
    assert [m["text"] for m in by_line["evidence"]["chat"]] == ["first words", "rude words"]
    # The reporter's own list says it is not handled yet, and never shows the evidence.
    mine = bob.get("/api/reports/mine").json()
    assert [m["id"] for m in mine] == [lid, rid] and all(
        set(m) == {"id", "reason", "created_at", "handled"} for m in mine
    )


def test_the_published_api_description_does_not_reveal_the_operator_routes(srv: ThreadServer) -> None:
    """The routes answer 404 like paths that do not exist; /openapi.json must not list them either."""
    paths = httpx.get(srv.base + "/openapi.json").json()["paths"]
    assert paths and "/api/social" in paths
    assert [p for p in paths if p.startswith(PREFIX)] == []
    # Undoing a link answers 204, as described.
    assert "204" in paths["/api/social/{kind}/{user_id}"]["delete"]["responses"]


def test_the_sanction_list_audit_log_and_people_search_answer_bounded_pages(srv: ThreadServer, guests: Any) -> None:
    """However many sanctions, audit entries or namesakes there are, each answer has a fixed most."""
    (op,) = guests("Op")
    appoint(srv, op)
    for n in range(501 - len(op.get(PREFIX + "/sanctions").json())):
        r = op.post(
            PREFIX + "/sanctions",
            {"kind": "mute", "address": f"10.9.{n // 250}.{n % 250}", "minutes": 5, "reason": "r"},
        )
        assert r.status_code == 201
    assert len(op.get(PREFIX + "/sanctions").json()) == 500
    assert len(op.get(PREFIX + "/audit").json()) == 200
    assert len(op.get(PREFIX + "/audit", limit=1000).json()) > 200
    name = f"Namesake{next(_SERIAL)}"
    namesakes = [Guest(srv.base, name) for _ in range(21)]
    try:
        assert len(op.get(PREFIX + "/people", name=name).json()) == 20
    finally:
        for g in namesakes:
            g.http.close()


def test_a_report_keeps_the_game_s_last_twenty_moves(srv: ThreadServer, guests: Any) -> None:
    """However long the game, the report keeps its last 20 actions (the moment reported), and how many
    there were."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
    from server_kit import Person, Table

    op, bob = guests("Op", "Bob")
    appoint(srv, op)
    ann = Person(srv.base, f"Ann{next(_SERIAL)}")
    try:
        room = ann.create()["id"]
        assert ann.post(f"/api/rooms/{room}/bots", {"strength": "easy"}).status_code == 200
        assert ann.post(f"/api/rooms/{room}/start").status_code == 200
        ann.connect(room)
        table = Table(ann)
        ann.send({"type": "sync"})
        while table.seq < 25 and not table.over:
            table.step()
        ann.disconnect()
        rid = bob.post("/api/reports", {"user": ann.id, "room": room, "seat": 0, "reason": "cheating"}).json()["id"]
    finally:
        ann.close()
    [found] = [r for r in op.get(PREFIX + "/reports").json() if r["id"] == rid]
    seq = found["evidence"]["room"]["seq"]
    moves = [a["seq"] for a in found["evidence"]["actions"]]
    assert seq >= 25 and found["evidence"]["room"]["status"] == "running"
    assert moves == list(range(seq - 19, seq + 1))


def test_a_watcher_let_in_by_the_code_sees_a_private_game_and_others_do_not(srv: ThreadServer, guests: Any) -> None:
    ann, cid, eve = guests("Ann", "Cid", "Eve")
    made = ann.post("/api/rooms", {"mode": "classic", "seats": 2, "public": False}).json()
    room = made["id"]
    assert ann.post(f"/api/rooms/{room}/bots", {"strength": "easy"}).status_code == 200
    assert ann.post(f"/api/rooms/{room}/start").status_code == 200
    assert code(eve.get(f"/api/rooms/{room}/reliability")) == (404, "room_not_found")
    # Started: the code lets Cid watch (no seat), and so see who plays there.
    assert cid.post("/api/join", {"code": made["code"]}).status_code == 200
    assert set(cid.get(f"/api/rooms/{room}/reliability").json()["seats"]) == {"0"}
    assert cid.post("/api/reports", {"room": room, "seat": 0, "reason": "name"}).status_code == 201
    assert code(eve.post("/api/reports", {"room": room, "seat": 0, "reason": "name"})) == (404, "room_not_found")


def test_hidden_invitations_never_hide_the_others(srv: ThreadServer, guests: Any) -> None:
    """Invitations from a blocked friend or into a closed room are left out, wherever they come in the list;
    the good one among them still shows."""
    op, bob, cid, dan, ann, eve, fay = guests("Op", "Bob", "Cid", "Dan", "Ann", "Eve", "Fay")
    appoint(srv, op)
    rooms: dict[str, str] = {}
    for friend in (cid, dan, ann, eve, fay):  # in this order: the good invitation is in the middle
        friend.post("/api/social/friends", {"user": bob.id})
        bob.post("/api/social/friends", {"user": friend.id})
        rooms[friend.name] = friend.room()
        assert friend.post("/api/social/invites", {"user": bob.id}).status_code == 201
    for closed in (cid, fay):
        op.post(f"{PREFIX}/rooms/{rooms[closed.name]}/close", {"reason": "test"})
    for blocked in (dan, eve):
        bob.post("/api/social/blocks", {"user": blocked.id})
    assert [i["from"]["id"] for i in bob.get("/api/social").json()["invites"]] == [ann.id]
