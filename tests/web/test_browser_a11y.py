"""Playable without a mouse and without sight of the board (issue #45, docs/accessibility.md), in Chromium
against a real server:

- axe-core (vendored and pinned, tests/web/a11y_audit.py) finds no serious or critical violation on any
  main screen, at desktop 1440×900 and phone 390×844;
- a keyboard-only player creates a Blitz room, adds bots, starts, plays a turn with a trade and the pay
  step, resigns and sees the game over, never touching the mouse and never losing the focus to the body;
- the log's polite live region says the dice, the rent and the game over.

Games are scripted with the rigged engine (fixed dice, Alice first). Screenshots go to
artifacts/screenshots/ (names starting with "a11y"), desktop and phone.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from a11y_audit import assert_accessible
from webkit import (
    DESKTOP,
    PHONE,
    add_bots,
    create_room,
    game_state,
    page_for,
    play_step,
    shots_at_both_sizes,
    sign_in,
    start_game,
    wait_js,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

T = 30_000

# Every line any live region receives, in order (a screen reader hears each once).
LIVE_SPY = """
(() => {
  window.__spoken = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      const region = n.parentElement && n.parentElement.closest('[aria-live]');
      if (region && n.textContent) window.__spoken.push({ live: region.getAttribute('aria-live'), text: n.textContent });
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
"""


def audit_both_sizes(page: Any, screenshots: Path, name: str) -> None:
    """axe at desktop and phone size (the page returns to its size), and screenshots of both."""
    before = page.viewport_size
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.wait_for_timeout(200)
        assert_accessible(page, f"{name} at {size['width']}x{size['height']}")
    if before:
        page.set_viewport_size(before)
    shots_at_both_sizes(page, screenshots, name)


def spoken(page: Any, live: str | None = None) -> list[str]:
    lines = page.evaluate("() => window.__spoken || []")
    return [x["text"] for x in lines if live is None or x["live"] == live]


def test_axe_finds_nothing_serious_on_the_main_screens(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice (seat 0) rolls 1+2 → 3 (brown B, for sale): the offer; the rest of the game plays by the buttons.
    server = make_server(rules={"round_limit": 2}, first_player=0, dice=[(1, 2), (3, 4), (2, 2), (3, 1)] * 30)
    with page_for(browser, server.base, viewport=DESKTOP) as page:
        page.goto("/")
        page.wait_for_selector("input[name=nickname]")
        audit_both_sizes(page, screenshots, "a11y01-start")
        sign_in(page, "Alice")
        audit_both_sizes(page, screenshots, "a11y02-lobby")
        create_room(page, "blitz", 3)
        add_bots(page, 2)
        audit_both_sizes(page, screenshots, "a11y03-waiting-room")
        start_game(page)
        page.wait_for_selector("[data-action=roll]", timeout=T)
        audit_both_sizes(page, screenshots, "a11y04-game")
        page.click("[data-action=roll]")
        page.wait_for_selector("[data-panel=offer] [data-action=buy]", timeout=T)
        audit_both_sizes(page, screenshots, "a11y05-offer")
        page.click("svg.board .cell[data-square='3']")
        page.wait_for_selector(".modal.square-modal")
        audit_both_sizes(page, screenshots, "a11y06-square-card")
        page.keyboard.press("Escape")
        page.click("[data-action=buy]")
        page.wait_for_selector("[data-action=trade]", timeout=T)
        page.click("[data-tab=trades]")
        page.click("[data-action=trade]")
        page.wait_for_selector(".modal.trade-modal")
        audit_both_sizes(page, screenshots, "a11y07-trade")
        page.keyboard.press("Escape")
        page.click("#app details.settings summary")
        audit_both_sizes(page, screenshots, "a11y08-settings-menu")
        page.keyboard.press("Escape")
        deadline = time.monotonic() + 150
        while not game_state(page)["over"]:
            assert time.monotonic() < deadline, "the game did not end"
            if not play_step(page, buy=True):
                time.sleep(0.1)
        page.wait_for_selector("[data-testid=winner]", timeout=T)
        page.wait_for_selector("[data-testid=chart]", timeout=T)
        time.sleep(0.5)
        audit_both_sizes(page, screenshots, "a11y09-end-screen")
        page.goto(server.base + "/#/profile")
        page.wait_for_selector("[data-testid=profile]", timeout=T)
        audit_both_sizes(page, screenshots, "a11y10-profile")
        page.goto(server.base + "/#/leaderboard")
        page.wait_for_selector("main", timeout=T)
        time.sleep(0.5)
        audit_both_sizes(page, screenshots, "a11y11-leaderboard")
        page.goto(server.base + "/#/progression")
        page.wait_for_selector("[data-testid=level-table]", timeout=T)
        audit_both_sizes(page, screenshots, "a11y12-progression")
