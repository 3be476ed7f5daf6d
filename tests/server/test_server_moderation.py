"""Table manners: mutes and blocks hide a person's chat (server-side: their frames never reach me), the
word filter masks listed words for those who keep it on, reports keep their evidence, friends see each
other and invite each other, and each seat shows how often its person left games early."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from moderation_kit import appoint, chats, frames_until_pong
from server_kit import Person

from live_server import ThreadServer
from opolyx.server.moderation import wordfilter


def table(people: Callable[[str], Person]) -> tuple[dict[str, Any], Person, Person, Person]:
    """Ann (seat 0) and Bob (seat 1) in a public room, Cid watching; all three connected."""
    ann, bob, cid = people("Ann"), people("Bob"), people("Cid")
    room = ann.create()
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    for p in (ann, bob, cid):
        p.connect(room["id"])
        p.recv_until("snapshot")
    return room, ann, bob, cid


def test_a_block_keeps_each_side_s_chat_from_the_other(people: Callable[[str], Person]) -> None:
    room, ann, bob, cid = table(people)
    r = bob.post("/api/social/blocks", {"room": room["id"], "seat": 0})
    assert r.status_code == 201 and r.json()["name"] == "Ann"
    ann.send({"type": "chat", "text": "anyone there?"})
    bob.send({"type": "chat", "text": "ready when you are"})
    assert [cid.recv_until("chat")["text"] for _ in range(2)] == ["anyone there?", "ready when you are"]
    # Bob's socket never got Ann's line, nor Ann's Bob's: the frames were not sent, not just not drawn.
    assert chats(frames_until_pong(bob, "b")) == ["ready when you are"]
    assert chats(frames_until_pong(ann, "a")) == ["anyone there?"]
    # A fresh snapshot (a reconnect) leaves Ann's line out for Bob too.
    bob.disconnect()
    bob.connect(room["id"])
    snap = bob.recv_until("snapshot")
    assert [m["text"] for m in snap["chat"]] == ["ready when you are"]
    # Unblocking lets her words through again.
    assert bob.http.delete(f"/api/social/blocks/{ann.id}").status_code == 204
    ann.send({"type": "chat", "text": "hello again"})
    assert bob.recv_until("chat")["text"] == "hello again"


def test_a_mute_hides_only_for_whoever_muted(people: Callable[[str], Person]) -> None:
    room, ann, bob, cid = table(people)
    ann.send({"type": "chat", "text": "first"})
    line = bob.recv_until("chat")
    # Muted from the chat line itself.
    assert bob.post("/api/social/mutes", {"room": room["id"], "at": line["at"]}).status_code == 201
    ann.send({"type": "chat", "text": "second"})
    assert cid.recv_until("chat", text="second")
    bob.send({"type": "chat", "text": "from bob"})
    assert cid.recv_until("chat", text="from bob")
    assert chats(frames_until_pong(bob, "b")) == ["from bob"]
    assert chats(frames_until_pong(ann, "a"))[-2:] == ["second", "from bob"]
    social = bob.http.get("/api/social").json()
    assert [m["name"] for m in social["muted"]] == ["Ann"]


def test_the_word_filter_masks_for_readers_who_keep_it_on(people: Callable[[str], Person]) -> None:
    room, ann, bob, cid = table(people)
    assert cid.http.put("/api/social/filter", json={"on": False}).json() == {"chat_filter": False}
    cid.disconnect()
    cid.connect(room["id"])
    cid.recv_until("snapshot")
    ann.send({"type": "chat", "text": "du Arschloch, see https://example.com"})
    ann.recv_until("chat")
    assert chats(frames_until_pong(bob, "b")) == ["du *********, see https://example.com"]
    assert chats(frames_until_pong(cid, "c")) == ["du Arschloch, see https://example.com"]


def _listed(language: str) -> str:
    """A word of the maintained list of ``language`` (letters only, so it stands as a word of its own)."""
    words = [w for w in wordfilter.words(language) if len(w) > 2 and w.replace(" ", "").isalpha()]
    return sorted(words, key=len)[len(words) // 2]


@pytest.mark.parametrize(
    ("language", "plain"),
    [
        ("en", "Good game, see you in the next class"),
        ("de", "Guten Morgen, wer würfelt?"),
        ("pt", "Bom dia, quem joga agora?"),
        ("fr", "Bonjour, à qui le tour ?"),
        ("es", "Buenos días, ¿quién tira?"),
        ("zh", "早上好，该谁掷骰子了？我喜欢乳酪"),
    ],
)
def test_the_filter_in_each_language(language: str, plain: str) -> None:
    assert wordfilter.words(language), f"no maintained list for {language}"
    word = _listed(language)
    said = f"{plain} {word}!" if language != "zh" else f"{plain}{word}！"
    masked = wordfilter.clean(said)
    assert word not in masked and "*" * len(word) in masked
    # What is not on the list is left alone.
    assert wordfilter.clean(plain) == plain
    assert masked.startswith(plain)


def test_a_report_keeps_its_evidence_after_the_chat_scrolls_on(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(chat_history=5, rate_chat_burst=100)
    made = [Person(srv.base, n) for n in ("Ann", "Bob", "Cid", "Op")]
    ann, bob, _cid, op = made
    try:
        appoint(srv, op)
        room = ann.create()
        bob.post(f"/api/rooms/{room['id']}/join")
        for p in (ann, bob):
            p.connect(room["id"])
            p.recv_until("snapshot")
        ann.send({"type": "chat", "text": "before it"})
        ann.send({"type": "chat", "text": "you play like a potato"})
        rude = bob.recv_until("chat", text="you play like a potato")
        for i in range(12):
            ann.send({"type": "chat", "text": f"later {i}"})
        bob.recv_until("chat", text="later 11")
        # The line has scrolled out of what a snapshot carries...
        bob.disconnect()
        bob.connect(room["id"])
        assert "you play like a potato" not in [m["text"] for m in bob.recv_until("snapshot")["chat"]]
        # ...and is still what the report refers to, with the lines around it and the room.
        r = bob.post("/api/reports", {"room": room["id"], "at": rude["at"], "reason": "abuse", "note": "rude"})
        assert r.status_code == 201, r.text
        # An operator then removes the line: the report still holds what was said.
        assert op.post("/api/operator/chat/remove", {"room": room["id"], "at": rude["at"], "reason": "rude"}).json()
        queue = op.http.get("/api/operator/reports").json()
        report = next(q for q in queue if q["id"] == r.json()["id"])
        assert report["reported"] == {"id": ann.id, "name": "Ann"} and report["reporter"]["id"] == bob.id
        assert report["line"]["text"] == "you play like a potato"
        around = [m["text"] for m in report["evidence"]["chat"]]
        assert around[:3] == ["before it", "you play like a potato", "later 0"]
        assert report["evidence"]["room"]["id"] == room["id"]
        assert [s["name"] for s in report["evidence"]["room"]["seats"]] == ["Ann", "Bob"]
        # A line still on screen is replaced there too; the audit log says who removed lines and why.
        ann.send({"type": "chat", "text": "and a potato again"})
        again = bob.recv_until("chat", text="and a potato again")
        op.post("/api/operator/chat/remove", {"room": room["id"], "at": again["at"], "reason": "again"})
        assert bob.recv_until("snapshot")["chat"][-1]["text"] == "[removed by an operator]"
        audit = op.http.get("/api/operator/audit").json()
        assert [(a["action"], a["reason"], a["operator"]) for a in audit[:2]] == [
            ("remove_line", "again", op.id),
            ("remove_line", "rude", op.id),
        ]
        # The reporter sees their own report, without its evidence.
        mine = bob.http.get("/api/reports/mine").json()
        assert [m["id"] for m in mine] == [r.json()["id"]] and "evidence" not in mine[0]
    finally:
        for p in made:
            p.close()


def test_friends_see_each_other_and_invite_with_one_click(people: Callable[[str], Person]) -> None:
    ann, bob, cid = people("Annika"), people("Bobby"), people("Cidney")
    assert ann.post("/api/social/friends", {"name": "bobby"}).json()["mutual"] is False
    assert bob.http.get("/api/social").json()["requests"] == [{"id": ann.id, "name": "Annika"}]
    assert bob.post("/api/social/friends", {"user": ann.id}).json()["mutual"] is True
    room = bob.create()
    seen = ann.http.get("/api/social").json()["friends"]
    assert seen == [
        {
            "id": bob.id,
            "name": "Bobby",
            "online": True,
            "room": {"id": room["id"], "mode": "classic", "status": "waiting"},
        }
    ]
    # One click: Bob invites Ann into the room he sits in; strangers cannot be invited.
    assert bob.post("/api/social/invites", {"user": ann.id}).status_code == 201
    assert bob.post("/api/social/invites", {"user": cid.id}).json()["code"] == "not_friends"
    invites = ann.http.get("/api/social").json()["invites"]
    assert [(i["from"]["name"], i["room"]) for i in invites] == [("Bobby", room["id"])]
    assert ann.post(f"/api/rooms/{room['id']}/join").status_code == 200
    # Blocking ends the friendship, and the invitation disappears.
    assert ann.post("/api/social/blocks", {"user": bob.id}).status_code == 201
    after = ann.http.get("/api/social").json()
    assert after["friends"] == [] and after["invites"] == [] and after["blocked"] == [{"id": bob.id, "name": "Bobby"}]
    assert bob.post("/api/social/invites", {"user": ann.id}).json()["code"] == "not_friends"


def test_each_seat_shows_how_often_its_person_left_early(people: Callable[[str], Person]) -> None:
    ann, bob = people("Ann"), people("Bob")
    room = ann.create()
    bob.post(f"/api/rooms/{room['id']}/join")
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    # Bob resigns: with one player left the game is over.
    assert bob.post(f"/api/rooms/{room['id']}/leave").status_code == 200
    seats = ann.http.get(f"/api/rooms/{room['id']}/reliability").json()["seats"]
    assert seats == {"0": {"games": 1, "departed": 0, "share": 0.0}, "1": {"games": 1, "departed": 1, "share": 1.0}}
    assert bob.http.get("/api/social").json()["reliability"] == {"games": 1, "departed": 1, "share": 1.0}


def test_an_invitation_into_a_team_room_seats_the_friend_on_the_inviter_s_side(
    people: Callable[[str], Person],
) -> None:
    ann, bob, cid = people("Annika"), people("Bobby"), people("Cidney")
    ann.post("/api/social/friends", {"user": bob.id})
    bob.post("/api/social/friends", {"user": ann.id})
    ann.create(mode="team", seats=4, public=False)  # Annika: seat 0, on the side of seats 0 and 2
    assert ann.post("/api/social/invites", {"user": bob.id}).status_code == 201
    invite = bob.http.get("/api/social").json()["invites"][0]
    # Nobody else can use Bobby's invitation.
    assert cid.post(f"/api/social/invites/{invite['id']}/accept").status_code == 404
    r = bob.post(f"/api/social/invites/{invite['id']}/accept")
    assert r.status_code == 200, r.text
    seats = {p["name"]: p["seat"] for p in r.json()["players"]}
    assert seats == {"Annika": 0, "Bobby": 2}


def test_an_operator_ends_a_running_game_and_lists_live_rooms(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, op = people("Ann"), people("Op")
    appoint(server, op)
    room = ann.create()
    assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    live = op.http.get("/api/operator/rooms").json()
    assert [(r["id"], r["status"], [p["name"] for p in r["players"]]) for r in live] == [
        (room["id"], "running", ["Ann", "Bot 1 (easy)"])
    ]
    assert op.post(f"/api/operator/rooms/{room['id']}/close", {"reason": "stuck game"}).status_code == 200
    assert ann.recv_until("snapshot")["room"]["status"] == "closed"
    assert op.http.get("/api/operator/rooms").json() == []
    # Ann is free to play elsewhere at once; the end is in the audit log.
    assert ann.create()["status"] == "waiting"
    entry = op.http.get("/api/operator/audit").json()[0]
    assert (entry["action"], entry["target"], entry["reason"]) == ("close_room", f"room:{room['id']}", "stuck game")
