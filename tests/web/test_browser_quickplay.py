"""Browser tests of quick play and skill ratings, on a desktop (1440x900) and a phone (390x844): Play now
shows the countdown and seats the person (with bots when nobody comes, or at once on request), leaving the
queue is instant, and the profile shows the rating with its chart after a rated game."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webkit import page_for, shot, sign_in, wait_until

from live_server import ThreadServer, quick_settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import Person

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1440, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
SCREENS = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]


@pytest.fixture
def quick_server(tmp_path: Path) -> Iterator[ThreadServer]:
    settings = quick_settings(
        tmp_path / "data", secret_key="browser-quick-secret", quickplay_wait_seconds=4.0, quickplay_tick_seconds=0.1
    )
    with ThreadServer(settings, None) as server:
        yield server


def _seconds(page: Any) -> int:
    return int(page.get_attribute("[data-testid=quick-countdown]", "data-seconds"))


@pytest.mark.parametrize("screen", SCREENS)
def test_play_now_counts_down_then_seats_with_bots(
    browser: Any, quick_server: ThreadServer, screen: dict[str, Any], screenshots: Path
) -> None:
    with page_for(browser, quick_server.base, **screen) as page:
        sign_in(page, "Ann")
        page.wait_for_selector("[data-testid=quick-play] [data-action=play-now][data-mode=blitz]")
        # The wait is said before the click (the server's setting).
        wait_until(lambda: "within 4 s" in page.inner_text("[data-testid=quick-play]"))
        page.select_option("select[name=quick-seats]", "3")
        page.select_option("select[name=quick-strength]", "easy")
        page.click("[data-action=play-now][data-mode=blitz]")
        page.wait_for_selector("[data-testid=quick-wait]")
        first = _seconds(page)
        assert 1 <= first <= 4
        assert page.locator("[data-testid=quick-play]").first.is_visible()
        shot(page, screenshots, f"quickplay-countdown-{screen['viewport']['width']}")
        # Leaving is instant: the mode buttons are back, and the server says so.
        page.click("[data-action=quick-leave]")
        page.wait_for_selector("[data-action=play-now]")
        status = page.evaluate("async () => (await (await fetch('/api/quickplay')).json()).status")
        assert status == "idle"
        # Again, and this time let the countdown run out: the table fills with bots and the game opens.
        page.click("[data-action=play-now][data-mode=blitz]")
        page.wait_for_selector("[data-testid=quick-wait]")
        wait_until(lambda: page.locator("[data-testid=quick-wait]").count() == 0 or _seconds(page) < first)
        page.wait_for_selector("svg.board .cell")
        room = page.evaluate("async () => (await import('/js/store.js')).state.room")
        assert room["seats"] == 3 and room["rated"]
        assert sorted(p["kind"] for p in room["players"]) == ["bot", "bot", "human"]
        assert {p["strength"] for p in room["players"] if p["kind"] == "bot"} == {"easy"}


@pytest.mark.parametrize("screen", SCREENS)
def test_start_with_bots_opens_the_game_at_once(
    browser: Any, quick_server: ThreadServer, screen: dict[str, Any]
) -> None:
    with page_for(browser, quick_server.base, **screen) as page:
        sign_in(page, "Bea")
        page.click("[data-action=play-now][data-mode=team]")
        page.wait_for_selector("[data-action=quick-bots]")
        started = time.monotonic()
        page.click("[data-action=quick-bots]")
        page.wait_for_selector("svg.board .cell")
        assert time.monotonic() - started < 4.0  # did not wait for the countdown
        room = page.evaluate("async () => (await import('/js/store.js')).state.room")
        assert room["mode"] == "team" and len(room["players"]) == 4


def _lose_a_rated_game(base: str, p: Person) -> None:
    p.post("/api/quickplay", {"mode": "speed", "seats": 2})
    p.post("/api/quickplay/bots")
    deadline = time.monotonic() + 20
    while (body := p.http.get("/api/quickplay").json())["status"] != "seated":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    room = body["room"]
    p.post(f"/api/rooms/{room}/leave")
    while not p.http.get("/api/profile/ratings").json()["history"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.mark.parametrize("screen", SCREENS)
def test_the_profile_shows_the_rating_and_its_chart(
    browser: Any, quick_server: ThreadServer, screen: dict[str, Any], screenshots: Path
) -> None:
    ann = Person(quick_server.base, "Ann")
    try:
        _lose_a_rated_game(quick_server.base, ann)
        _lose_a_rated_game(quick_server.base, ann)
        expected = ann.http.get("/api/profile/ratings").json()["ratings"][0]["rating"]
        with page_for(browser, quick_server.base, **screen) as page:
            page.context.add_cookies([
                {"name": "opolyx_session", "value": ann.token, "url": quick_server.base},
                {"name": "opolyx_signed_in", "value": "1", "url": quick_server.base},
            ])
            page.goto(f"{quick_server.base}/#/profile")
            page.wait_for_selector("[data-testid=rating-chart]")
            assert page.get_attribute("[data-testid=rating-chart]", "data-points") == "3"
            assert page.inner_text("[data-mode=speed] [data-testid=rating-value]") == str(expected)
            assert "provisional" in page.inner_text("[data-testid=ratings]")
            box = page.locator("[data-testid=rating-chart]").bounding_box()
            assert box is not None and 0 < box["width"] <= screen["viewport"]["width"]
            shot(page, screenshots, f"rating-chart-{screen['viewport']['width']}")
            # The rating leaderboard beside the XP one: provisional ratings are not listed yet.
            page.goto(f"{quick_server.base}/#/leaderboard")
            page.click("[data-tab=rating]")
            page.wait_for_selector("[data-testid=rating-board]")
            page.select_option("select[name=rating-mode]", "speed")
            wait_until(lambda: "5 rated games" in page.inner_text("[data-testid=rating-board]"))
            page.click("[data-tab=agents]")
            wait_until(lambda: page.get_attribute("[data-tab=agents]", "aria-pressed") == "true")
    finally:
        ann.close()
