"""Browser tests of accounts and progression, on SQLite and PostgreSQL: e-mail sign-in with the link from
a real SMTP server, the game-over XP, the profile with its replay viewer, the leaderboard, progression."""

from __future__ import annotations

import json
import random
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from webkit import create_room, page_for, sign_in, wait_until

from live_server import ThreadServer, quick_settings
from opolyx.storage.testing import BACKENDS, PG_SKIP_MESSAGE, TestDatabase, fresh_database, pg_url
from rigged_engine import RiggedEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from accounts_kit import MailSink, smtp_sink
from server_kit import Person, Table

pytestmark = pytest.mark.browser


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestDatabase]:
    """As tests/conftest.py's, but made in a worker thread: Playwright's sync API already runs an event
    loop in this one, and making a PostgreSQL schema needs one of its own."""
    if request.param == "postgresql" and pg_url() is None:
        pytest.skip(PG_SKIP_MESSAGE)
    made = fresh_database(request.param, tmp_path)
    with ThreadPoolExecutor(1) as worker:
        db = worker.submit(made.__enter__).result()
        try:
            yield db
        finally:
            worker.submit(made.__exit__, None, None, None).result()


@pytest.fixture
def sink() -> Iterator[MailSink]:
    with smtp_sink() as s:
        yield s


@pytest.fixture
def account_server(database: TestDatabase, tmp_path: Path, sink: MailSink) -> Iterator[Callable[..., ThreadServer]]:
    servers: list[ThreadServer] = []

    def start(**engine_options: Any) -> ThreadServer:
        settings = quick_settings(
            tmp_path / f"data{len(servers)}",
            database_url=database.url,
            database_schema=database.schema,
            secret_key="browser-accounts-secret",
            smtp_host="127.0.0.1",
            smtp_port=sink.port,
            smtp_security="none",
            rate_magic_burst=100,
            # The scripted players answer at once: no pace floor, so their turns count (docs/accounts.md).
            xp_time_scale=0.0,
        )
        engine = (lambda: RiggedEngine(**engine_options)) if engine_options else None
        server = ThreadServer(settings, engine).__enter__()
        servers.append(server)
        return server

    yield start
    for s in reversed(servers):
        s.__exit__(None, None, None)


def test_sign_in_with_the_mailed_link(
    browser: Any, account_server: Callable[..., ThreadServer], sink: MailSink
) -> None:
    server = account_server()
    with page_for(browser, server.base) as page:
        sign_in(page, "Ann")
        page.click("[data-nav=profile]")
        page.wait_for_selector("[data-testid=profile]")
        page.fill("[data-testid=signin] input[name=email]", "ann@example.org")
        page.click("[data-action=send-link]")
        page.wait_for_selector("[data-testid=link-sent]")
        link, _ = sink.link("ann@example.org")
        page.goto(link)
        page.wait_for_selector("[data-testid=profile]")
        page.wait_for_selector("text=ann@example.org")
        assert "#/signin/" not in page.url, "the secret leaves the address bar"
        assert page.locator("[data-testid=signin]").count() == 0, "no sign-in card once signed in"
        # The same link a second time is refused with a message in the page's language.
        page.goto(link)
        page.wait_for_selector(".toast.error")
        assert "already used" in page.inner_text(".toast.error")
        # Avatar and sessions on the profile.
        page.goto(server.base + "/#/profile")
        page.click("[data-avatar=dragon]")
        page.wait_for_selector("[data-avatar=dragon].on")
        assert page.locator("[data-testid=sessions] li").count() == 1


def _finish_two_person_game(server: ThreadServer) -> tuple[Person, Person, str]:
    """Ann and Bob (over HTTP and the socket) play a Blitz game cut to ten rounds to its end."""
    ann, bob = Person(server.base, "Ann"), Person(server.base, "Bob")
    room = ann.create("blitz", 2)
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    ann.connect(room["id"])
    bob.connect(room["id"], source="127.0.0.2")  # two people: two addresses (one machine earns once)
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    failures: list[BaseException] = []

    def run(t: Table) -> None:
        try:
            t.play(max_seconds=300)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(Table(p, random.Random(i)),)) for i, p in enumerate((ann, bob))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=330)
    assert not failures, failures
    return ann, bob, str(room["id"])


def test_game_over_xp_profile_replay_leaderboard(browser: Any, account_server: Callable[..., ThreadServer]) -> None:
    server = account_server(rules={"round_limit": 10})
    ann, bob, room = _finish_two_person_game(server)
    try:
        with page_for(browser, server.base) as page:
            page.context.add_cookies([
                {"name": "opolyx_session", "value": ann.token, "url": server.base},
                {"name": "opolyx_signed_in", "value": "1", "url": server.base},
            ])
            page.goto(f"{server.base}/#/room/{room}")
            page.wait_for_selector("[data-testid=xp-over]")
            mine = page.inner_text("[data-testid=my-xp]")
            xp = int(mine.strip("+ XP"))
            assert xp > 0
            assert "place" in page.inner_text("[data-testid=xp-over]")
            # Whoever went up a level sees the moment (Ann: 85 XP stays level 1, 125 reaches level 2).
            levelled = page.evaluate(
                "async () => (await import('/js/store.js')).state.progression"
                ".filter((p) => p.level_after > p.level_before).length"
            )
            assert page.locator("[data-testid=level-up]").count() == levelled
            assert levelled >= 1, "the winner's 125 XP reach level 2"
            # Profile: the XP, level and the game with its replay.
            page.goto(f"{server.base}/#/profile")
            page.wait_for_selector("[data-testid=profile]")
            assert page.inner_text("[data-testid=xp]") == f"{xp} XP"
            page.click(f"[data-game='{room}'] [data-action=replay]")
            page.wait_for_selector("[data-testid=replay] svg.board .cell")
            assert "0" in page.inner_text("[data-testid=replay-step]")
            page.click("[data-action=replay-forward]")
            wait_until(lambda: "1 " in page.inner_text("[data-testid=replay-step]"))
            caption = page.inner_text("[data-testid=replay-action]")
            assert caption.strip() and "{" not in caption  # told from the step's events, every figure filled
            page.fill("[data-testid=replay] input[name=round]", "5")
            page.dispatch_event("[data-testid=replay] input[name=round]", "change")
            wait_until(lambda: page.evaluate("async () => (await import('/js/store.js')).state.game.round") >= 5)
            page.click("[data-action=replay-back]")
            page.click("[data-action=replay-last]")
            wait_until(lambda: page.evaluate("async () => (await import('/js/store.js')).state.game.phase") == "over")
            # Leaderboard: both players, and Ann's own place.
            page.goto(f"{server.base}/#/leaderboard")
            page.wait_for_selector("table.leaders")
            assert page.locator("table.leaders tbody tr").count() == 2
            assert page.locator(f"tr[data-user='{ann.id}'].me").count() == 1
            assert page.inner_text("[data-testid=own-place]").startswith("Your place:")
            page.click("[data-tab=wins]")
            page.wait_for_selector("table.leaders tbody tr")
            # People and agents are ranked apart: nobody here played through an API key.
            page.click("[data-tab=agents]")
            page.wait_for_selector("[data-tab=agents][aria-pressed=true]")
            wait_until(lambda: page.locator("table.leaders").count() == 0)
            # Progression page: the whole level table with ranks in the viewer's language, and what pays.
            page.goto(f"{server.base}/#/progression")
            page.wait_for_selector("[data-testid=level-table]")
            assert "1 s or more" in page.inner_text("[data-testid=own-turns]")
            assert page.locator("[data-testid=level-table] tbody tr").count() == 50
            page.wait_for_selector("[data-testid=your-cards]")
            assert "Legend" in page.inner_text("[data-level='50']")
            page.select_option("select[data-testid=language]", "de")
            wait_until(lambda: "Legende" in page.inner_text("[data-level='50']"))
            assert "selbst" in page.inner_text("[data-testid=own-turns]")
    finally:
        ann.close()
        bob.close()


def test_the_waiting_room_says_what_the_table_pays(browser: Any, account_server: Callable[..., ThreadServer]) -> None:
    """Before the game: a line says the table pays XP from round 10 for turns played oneself (bots
    included), in the viewer's language; a second seat from the same machine adds the warning."""
    server = account_server()
    with page_for(browser, server.base) as page:
        sign_in(page, "Ann", "fr")
        create_room(page, "blitz", 2)
        room = page.evaluate("async () => (await import('/js/store.js')).state.room.id")
        notice = page.wait_for_selector("[data-testid=xp-notice]")
        assert notice.get_attribute("data-pays") == "true"
        assert "tour 10" in notice.inner_text() and "bots" in notice.inner_text()
        assert page.locator("[data-testid=xp-shared]").count() == 0
        alt = Person(server.base, "Alt")
        try:
            assert alt.post(f"/api/rooms/{room}/join").status_code == 200
            alt.connect(room)  # the same machine as Ann's browser
            page.reload(wait_until="networkidle")
            page.wait_for_selector("[data-testid=xp-shared]")
            assert "même machine" in page.inner_text("[data-testid=xp-shared]")
        finally:
            alt.close()


def test_profile_lists_creates_and_revokes_agent_keys(
    browser: Any, account_server: Callable[..., ThreadServer]
) -> None:
    """The profile's API-key section speaks the agents' routes exactly (POST/GET/DELETE /api/keys);
    here a fake in the page's network layer stands in for that backend."""
    server = account_server()
    keys: list[dict[str, Any]] = []
    seen: list[tuple[str, str]] = []

    def fake(route: Any) -> None:
        request = route.request
        seen.append((request.method, request.url.split(server.base, 1)[1]))
        if request.method == "GET":
            route.fulfill(status=200, json=keys)
        elif request.method == "POST":
            label = json.loads(request.post_data or "{}")["label"]
            key = {"id": f"k{len(keys) + 1}", "label": label, "created_at": "2026-11-30T22:00:00Z"}
            keys.append({**key, "last_used_at": None})
            route.fulfill(status=201, json={**key, "key": "opk_secret_shown_once"})
        else:
            keys[:] = [k for k in keys if not request.url.endswith("/" + k["id"])]
            route.fulfill(status=204, body="")

    with page_for(browser, server.base) as page:
        page.route("**/api/keys**", fake)
        sign_in(page, "Ann")
        page.goto(server.base + "/#/profile")
        page.wait_for_selector("[data-testid=api-keys]")
        page.fill("[data-testid=api-keys] input[name=label]", "my bot")
        page.click("[data-action=create-key]")
        page.wait_for_selector("[data-testid=new-key]")
        assert "opk_secret_shown_once" in page.inner_text("[data-testid=new-key]")
        page.wait_for_selector("[data-key=k1]")
        assert "my bot" in page.inner_text("[data-key=k1]")
        page.click("[data-key=k1] [data-action=revoke-key]")
        wait_until(lambda: page.locator("[data-key=k1]").count() == 0)
    assert ("POST", "/api/keys") in seen and ("DELETE", "/api/keys/k1") in seen
