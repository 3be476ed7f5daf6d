"""Issue 39, tried as an attacker would: a finished private game's summary is only for those who may see
its replay, computed once and rate-limited; ids in paths that cannot exist (NUL above all, which
PostgreSQL refuses with an error) get a clean 404 with the route's code on every route that takes one."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from server_kit import Person

from live_server import ThreadServer


def finished_private_game(ann: Person) -> dict[str, Any]:
    """Ann against a bot in a private Blitz room; she resigns, so the game is over at once."""
    room = ann.create("blitz", 2, public=False)
    assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    ann.connect(room["id"])
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    assert ann.post(f"/api/rooms/{room['id']}/leave").status_code == 200
    deadline = time.monotonic() + 20
    while ann.http.get(f"/api/rooms/{room['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return room


def test_a_private_games_summary_is_for_those_who_may_replay_it(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(rate_replay_burst=5, rate_replay_per_second=0.001, rate_address_factor=1.0)
    ann, mallory = Person(server.base, "Ann"), Person(server.base, "Mallory")
    try:
        room = finished_private_game(ann)
        path = f"/api/games/{room['id']}/summary"
        for asker in (mallory.http, ann.http.__class__(base_url=server.base)):  # a stranger, and no session
            r = asker.get(path)
            assert r.status_code == 404 and r.json()["code"] == "game_not_found", r.text
            assert "Ann" not in r.text
        services = server.server.config.app.state.services  # type: ignore[attr-defined]
        before = services.replays.computed
        first = ann.http.get(path)
        assert first.status_code == 200 and first.json()["players"][0] == "Ann"
        assert ann.http.get(path).json() == first.json()  # from the cache
        assert services.replays.computed == before + 1
        assert mallory.http.get(path, params={"code": room["code"]}).status_code == 200  # with the code
        # The replay allowance (5) is spent: 2 refused and 3 served above.
        r = ann.http.get(path)
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    finally:
        ann.close()
        mallory.close()


def test_impossible_ids_in_paths_get_a_clean_404(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    cases = [
        ("GET", "/api/games/{}/summary", "game_not_found"),
        ("GET", "/api/games/{}/replay", "game_not_found"),
        ("POST", "/api/rooms/{}/rematch", "room_not_found"),
        ("POST", "/api/rooms/{}/start", "room_not_found"),
        ("DELETE", "/api/keys/{}", "key_not_found"),
        ("DELETE", "/api/sessions/{}", "session_not_found"),
    ]
    for method, template, code in cases:
        for bad in ("%00", "a%00b", "x" * 300, "%C3%A9t%C3%A9"):
            r = ann.http.request(method, template.format(bad), json={} if method == "POST" else None)
            assert r.status_code == 404, (method, template, bad, r.status_code, r.text[:300])
            assert r.json()["code"] == code and "Traceback" not in r.text, (template, bad, r.text[:300])
