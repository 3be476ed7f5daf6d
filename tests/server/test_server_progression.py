"""Progression at real tables: cards and VIP reach the engine, XP arrives with the end of the game."""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from accounts_kit import with_store
from server_kit import Person, Table, test_settings

import opolyx.engine
from live_server import ThreadServer
from opolyx.progression import Credit, draw_card, game_xp
from opolyx.storage import NewRoom, SeatRecord, SqlStore
from opolyx.storage.tables import cards, users
from opolyx.storage.testing import TestDatabase


class FixedDice:
    """The real engine, with the first dice fixed and seat 0 beginning (the server's engine seam)."""

    IllegalAction = opolyx.engine.IllegalAction

    def __init__(self, dice: list[tuple[int, int]]) -> None:
        self.dice = dice

    def new_game(self, mode: str, seats: int, seed: int, *, seat_info: Any = None, rules: Any = None) -> Any:
        return opolyx.engine.new_game(mode, seats, seed, seat_info=seat_info, dice=self.dice, first_player=0,
                                      rules=rules)

    def replay(
        self, seed: int, mode: str, seats: int, actions: Any, *, seat_info: Any = None, rules: Any = None
    ) -> Any:
        return opolyx.engine.replay(seed, mode, seats, actions, seat_info=seat_info, dice=self.dice, first_player=0,
                                    rules=rules)


@pytest.fixture
def table(database: TestDatabase, tmp_path: Path) -> Iterator[Callable[..., ThreadServer]]:
    servers: list[ThreadServer] = []

    def start(dice: list[tuple[int, int]]) -> ThreadServer:
        s = ThreadServer(test_settings(database, tmp_path / "data"), engine=lambda: FixedDice(dice))
        servers.append(s.__enter__())
        return s

    yield start
    for s in servers:
        s.__exit__(None, None, None)


def _grant(
    database: TestDatabase,
    user_id: str,
    *,
    level: int | None = None,
    card: tuple[int, str] | None = None,
    email: str | None = None,
) -> None:
    async def edit(store: SqlStore) -> None:
        async with store.engine.begin() as conn:
            if level is not None:
                await conn.execute(sa.update(users).where(users.c.id == user_id).values(level=level))
            if email is not None:  # as if the guest had signed in with this address: an account
                await conn.execute(sa.update(users).where(users.c.id == user_id).values(email=email))
            if card is not None:
                await conn.execute(
                    sa.insert(cards).values(
                        user_id=user_id, square=card[0], rarity=card[1], level=3, seed=1, created_at=datetime.now(UTC)
                    )
                )

    with_store(database, edit)


def _two_at_a_table(server: ThreadServer, mode: str) -> tuple[Person, Person, str]:
    ann, bob = Person(server.base, "Ann"), Person(server.base, "Bob")
    room = ann.create(mode, 2)
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    return ann, bob, str(room["id"])


def _start(ann: Person, bob: Person, room: str) -> dict[str, Any]:
    ann.connect(room)
    bob.connect(room)
    assert ann.post(f"/api/rooms/{room}/start").status_code == 200
    while True:
        snap = ann.recv_until("snapshot", timeout=30)
        if snap["game"] is not None:
            return snap


def _act(p: Person, action: dict[str, Any], ref: int) -> dict[str, Any]:
    p.send({"type": "action", "action": action, "ref": ref})
    return p.recv_until("events", ref=ref)


def test_a_held_card_raises_the_rent_a_tenant_pays(table: Callable[..., ThreadServer], database: TestDatabase) -> None:
    server = table([(1, 2), (1, 2)])
    ann, bob, room = _two_at_a_table(server, "classic")
    try:
        _grant(database, ann.id, card=(3, "legendary"))
        _grant(database, ann.id, card=(3, "common"))
        snap = _start(ann, bob, room)
        assert snap["game"]["players"][0]["cards"] == {"3": "legendary"}, "the best card per square counts"
        assert snap["game"]["players"][1]["cards"] == {}
        _act(ann, {"type": "roll"}, 1)
        _act(ann, {"type": "buy"}, 2)
        events = _act(bob, {"type": "roll"}, 3)["events"]
        due = next(e for e in events if e["type"] == "rent_due")
        # Brown B's bare rent is 40; a legendary card adds 33 %.
        assert (due["square"], due["amount"], due["card_bonus"]) == (3, 40 + 40 * 33 // 100, 33)
    finally:
        ann.close()
        bob.close()


def test_a_vip_account_is_offered_murabaha_in_halal(table: Callable[..., ThreadServer], database: TestDatabase) -> None:
    server = table([(1, 2), (2, 3)])
    ann, bob, room = _two_at_a_table(server, "halal")
    try:
        _grant(database, ann.id, level=10, email="ann@example.org")
        snap = _start(ann, bob, room)
        assert [p["vip"] for p in snap["game"]["players"]] == [True, False]
        landed = _act(ann, {"type": "roll"}, 1)
        assert {"type": "buy_murabaha"} in landed["legal"]
        _act(ann, {"type": "buy"}, 2)
        bob_landed = _act(bob, {"type": "roll"}, 3)
        assert {"type": "buy"} in bob_landed["legal"]
        assert {"type": "buy_murabaha"} not in bob_landed["legal"], "below level 10: no Murabaha"
    finally:
        ann.close()
        bob.close()


def test_a_guest_at_level_ten_is_not_vip(table: Callable[..., ThreadServer], database: TestDatabase) -> None:
    """docs/rules.md §19: VIP is for accounts. A farmer who levels a guest to 10 gets no Murabaha and no badge."""
    server = table([(1, 2), (2, 3)])
    ann, bob, room = _two_at_a_table(server, "halal")
    try:
        _grant(database, ann.id, level=10)
        profile = ann.http.get("/api/profile").json()
        assert profile["user"]["level"] == 10 and profile["vip"] is False
        snap = _start(ann, bob, room)
        assert [p["vip"] for p in snap["game"]["players"]] == [False, False]
        landed = _act(ann, {"type": "roll"}, 1)
        assert {"type": "buy"} in landed["legal"]
        assert {"type": "buy_murabaha"} not in landed["legal"], "a guest never gets Murabaha"
    finally:
        ann.close()
        bob.close()


def _last_over_frame(p: Person) -> dict[str, Any]:
    return next(f for f in reversed(p.frames) if f["type"] == "events" and f["over"])


def test_two_people_finish_a_game_and_the_end_carries_their_xp(start_server: Callable[..., ThreadServer]) -> None:
    # Pace floors off (xp_time_scale 0): these scripted people answer at once, and every turn counts.
    server = start_server(xp_time_scale=0.0)
    ann, bob = Person(server.base, "Ann"), Person(server.base, "Bob")
    room = ann.create("blitz", 2)
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    ann.connect(room["id"])
    bob.connect(room["id"], source="127.0.0.2")  # two people: two addresses
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    tables = [Table(ann, random.Random(3)), Table(bob, random.Random(4))]
    failures: list[BaseException] = []

    def run(t: Table) -> None:
        try:
            t.play(max_seconds=400)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in tables]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=450)
    assert not failures, failures
    over = _last_over_frame(ann)
    assert over["progression"] == _last_over_frame(bob)["progression"], "both see the same XP"
    result, game = over["result"], over["game"]
    progression = {p["seat"]: p for p in over["progression"]}
    assert set(progression) == {0, 1}
    expected = game_xp(result, game)
    for seat, got in progression.items():
        if result["round"] < 10:
            assert (got["xp"], got["refused"]) == (0, "short_game")
            continue
        assert got["refused"] is None or got["refused"] == "early_exit"
        if got["refused"] is None:
            assert got["xp"] == expected[seat].total
            assert got["parts"]["placement"] == (100 if got["parts"]["place"] == 1 else 60)
            assert got["parts"]["played"] == got["parts"]["turns"] > 0
    # Credited in the store: the profile shows the XP and the game; a reconnect sees the same XP.
    for person, seat in ((ann, tables[0].seat), (bob, tables[1].seat)):
        assert seat is not None
        profile = person.http.get("/api/profile").json()
        assert profile["user"]["xp"] == progression[seat]["xp"]
        assert room["id"] in [g["id"] for g in profile["recent_games"]]
    ann.disconnect()
    ann.connect(room["id"])
    snap = ann.recv_until("snapshot")
    assert snap["progression"] == over["progression"]
    ann.close()
    bob.close()


def _solo_against_bots(server: ThreadServer, think: float) -> tuple[Person, Table, dict[str, Any]]:
    """A person plays a whole Blitz game against three bots, thinking ``think`` seconds per decision."""
    ann = Person(server.base, "Ann")
    room = ann.create("blitz", 4)
    for _ in range(3):
        assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    ann.connect(room["id"])
    waiting = ann.recv_until("snapshot")
    assert waiting["room"]["xp"]["pays"] is True and waiting["room"]["xp"]["min_round"] == 10, "said before the game"
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    t = Table(ann, random.Random(5), think=think)
    t.play(max_seconds=500)
    return ann, t, _last_over_frame(ann)


def test_a_person_against_three_bots_earns_the_rules_amounts(start_server: Callable[..., ThreadServer]) -> None:
    """docs/rules.md §19: every seat of a finished game earns, games against bots included; bots earn
    nothing. The person thinks at a (scaled) human pace, so every turn is theirs and the amounts are exact."""
    server = start_server(xp_time_scale=0.005)  # ≥ 5 ms a decision, 50 ms a turn, 125 ms a round
    ann, t, over = _solo_against_bots(server, think=0.1)
    try:
        result, game = over["result"], over["game"]
        assert result["round"] >= 10, "a Blitz game against easy bots lasts its rounds"
        assert [p["seat"] for p in over["progression"]] == [t.seat], "no entry for the bot seats"
        (mine,) = over["progression"]
        expected = game_xp(result, game)[t.seat]
        assert mine["refused"] is None
        assert mine["xp"] == expected.total == expected.placement + expected.groups + expected.survival
        assert mine["parts"]["played"] == mine["parts"]["turns"]
        profile = ann.http.get("/api/profile").json()
        assert profile["user"]["xp"] == mine["xp"]
        assert profile["wins"] == (1 if expected.place == 1 else 0), "a win against bots counts"
    finally:
        ann.close()


def test_a_script_answering_instantly_against_bots_earns_nothing(start_server: Callable[..., ThreadServer]) -> None:
    """The same game played by a script that answers the moment it is asked: no turn is a person's."""
    server = start_server(xp_time_scale=0.05)  # think ≥ 50 ms per decision
    ann, _table, over = _solo_against_bots(server, think=0.0)
    try:
        (mine,) = over["progression"]
        assert (mine["xp"], mine["refused"]) == (0, "not_played") or mine["refused"] == "short_game"
        assert ann.http.get("/api/profile").json()["user"]["xp"] == 0
    finally:
        ann.close()


# --- drop seeds: commit now, reveal at the drop ----------------------------------------------------------


def _finish_with_xp(database: TestDatabase, user_id: str, game_id: str, xp: int) -> None:
    """A finished game that credits ``xp`` to the person (booked as the server books any game)."""

    async def run(store: SqlStore) -> None:
        await store.create_room(NewRoom(game_id, None, "classic", 2, True, user_id, "x"))
        await store.take_seat(game_id, 1, user_id=None, bot="easy", name="Bot")
        seats = [SeatRecord(0, user_id, None, "Ann"), SeatRecord(1, None, "easy", "Bot")]
        await store.start_game(game_id, seed=1, seats=seats, seat_info=[{}, {}])
        await store.finish_game(game_id, None, [Credit(0, user_id, xp, {"total": xp}, False)])

    with_store(database, run)


def _secret_seed(database: TestDatabase, user_id: str) -> int:
    async def read(store: SqlStore) -> int:
        async with store.engine.connect() as conn:
            return int((await conn.execute(sa.select(users.c.drop_seed).where(users.c.id == user_id))).scalar_one())

    return int(with_store(database, read))


def _outsider_commitment(seed: int, nonce: str) -> str:
    """What anyone can compute from a revealed drop, without the server's code (docs/accounts.md)."""
    return hashlib.sha256(f"opolyx-drop-seed-v1:{seed}:{nonce}".encode()).hexdigest()


def test_the_profile_cannot_foretell_the_next_drop_and_each_drop_verifies(
    server: ThreadServer, database: TestDatabase, people: Callable[[str], Person]
) -> None:
    """A farmer read a card's seed on /api/profile and re-drew the coming drops with it. Now the profile
    shows only a commitment to the seed of drops not yet made, and a drop reveals the seed it came from,
    hashing to the commitment shown before it; the drops after it come from a fresh secret seed."""
    ann = people("Ann")

    def responses() -> str:
        return " ".join(
            ann.http.get(path).text for path in ("/api/profile", "/api/session", "/api/leaderboard", "/api/rooms")
        )

    before = ann.http.get("/api/profile").json()
    promised = before["next_drops"]["commitment"]
    secret = _secret_seed(database, ann.id)
    assert str(secret) not in responses(), "the seed of future drops never leaves the server"

    _finish_with_xp(database, ann.id, "g-drop-3", 325)  # level 3: a drop
    after = ann.http.get("/api/profile").json()
    (card,) = after["cards"]
    assert card["level"] == 3 and card["seed"] == secret, "the drop reveals the seed it was drawn from"
    assert card["commitment"] == promised == _outsider_commitment(card["seed"], card["nonce"])
    redrawn = draw_card(card["seed"], 3)
    assert (redrawn.square, redrawn.rarity) == (card["square"], card["rarity"])
    # The revealed seed tells nothing of the next drop: that one comes from a fresh, secret seed.
    fresh = _secret_seed(database, ann.id)
    assert fresh != secret and str(fresh) not in responses()
    assert after["next_drops"]["commitment"] not in (promised, None)

    _finish_with_xp(database, ann.id, "g-drop-5", 1000 - 325)  # level 5: the next drop
    cards = {c["level"]: c for c in ann.http.get("/api/profile").json()["cards"]}
    assert cards[5]["seed"] == fresh and cards[5]["seed"] != card["seed"]
    assert cards[5]["commitment"] == after["next_drops"]["commitment"]
    assert cards[5]["commitment"] == _outsider_commitment(cards[5]["seed"], cards[5]["nonce"])
