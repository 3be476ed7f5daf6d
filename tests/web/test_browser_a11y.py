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
from test_browser_features import deck
from webkit import (
    DESKTOP,
    PHONE,
    add_bots,
    create_room,
    game_state,
    page_for,
    play_step,
    shot,
    shots_at_both_sizes,
    sign_in,
    start_game,
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
      if (region && n.textContent) {
        window.__spoken.push({ live: region.getAttribute('aria-live'), text: n.textContent });
      }
    }
  }).observe(document, { childList: true, subtree: true });
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
        # 320 px wide (a small phone, or 1280 px at 400 % zoom): the header fits without scrolling sideways.
        page.set_viewport_size({"width": 320, "height": 640})
        page.wait_for_timeout(200)
        header = "(() => { const h = document.querySelector('header.top'); return h.scrollWidth <= h.clientWidth; })()"
        assert page.evaluate(header)
        assert page.evaluate("document.documentElement.scrollWidth <= 320")
        shot(page, screenshots, "a11y04-game-320")
        page.set_viewport_size(DESKTOP)
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


# ------------------------------------------------------------------ the keyboard alone


def focused(page: Any) -> dict[str, Any]:
    return dict(page.evaluate(
        """() => { const a = document.activeElement;
            return { body: !a || a === document.body, tag: a ? a.tagName : '',
                     action: a && a.dataset ? a.dataset.action || '' : '',
                     text: a ? (a.getAttribute('aria-label') || a.textContent || '').trim().slice(0, 80) : '',
                     inDialog: !!(a && a.closest('[role=dialog]')) }; }"""
    ))


def focus_kept(page: Any, after: str) -> None:
    """The focus never falls to the page body: checked once the page has settled after an action."""
    page.wait_for_timeout(250)
    assert not focused(page)["body"], f"focus fell to the page body after {after}"


def tab_to(page: Any, selector: str, *, back: bool = False, limit: int = 80) -> None:
    """Press Tab (or Shift+Tab) until the focused element matches `selector`."""
    for _ in range(limit):
        if page.evaluate("(sel) => !!document.activeElement && document.activeElement.matches(sel)", selector):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reached {selector}; focus is on {focused(page)}")


def wait_for(page: Any, selector: str) -> None:
    try:
        page.wait_for_selector(selector, timeout=T)
    except Exception:
        state = game_state(page)
        page.screenshot(path="/tmp/a11y-fail.png")
        raise AssertionError(f"{selector} never came at {page.url}: legal {state['legal']}, log {state['log'][-12:]}, "
                             f"spoken {spoken(page)[-8:]}") from None


def test_a_whole_blitz_game_by_keyboard_alone(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice (seat 0): 0 → 3 Copperpot Diner (buys, 600). The bot: 0 → 4 income tax (pays itself).
    # Alice: offers the Diner for 600, then 3 → 7 event: speeding fine 500, paid in the pay step. She then
    # resigns, which ends a two-seat game.
    server = make_server(
        first_player=0, dice=[(1, 2), (1, 3), (1, 3)] + [(2, 3), (4, 2)] * 40,
        deck=deck("speeding_fine"),
    )
    with page_for(browser, server.base, viewport=DESKTOP) as page:
        page.context.add_init_script(LIVE_SPY)
        page.goto("/")
        wait_for(page, "input[name=nickname]")
        assert focused(page)["tag"] == "INPUT"  # the nickname field has the focus at once
        page.keyboard.type("Alice")
        page.keyboard.press("Enter")
        wait_for(page, ".lobby-screen")
        assert page.title().startswith("Lobby")
        # The mode cards are real radios: Tab reaches the checked one, an arrow key picks Blitz.
        tab_to(page, "input[name=mode]")
        page.keyboard.press("ArrowDown")
        wait_until(lambda: page.evaluate("document.querySelector('input[name=mode]:checked').value") == "blitz")
        tab_to(page, "select[name=seats]")
        for _ in range(6):
            if page.evaluate("document.querySelector('select[name=seats]').value") == "2":
                break
            page.keyboard.press("ArrowUp")
        assert page.evaluate("document.querySelector('select[name=seats]').value") == "2"
        tab_to(page, "[data-action=create]")
        page.keyboard.press("Enter")
        wait_for(page, ".room-screen .seats")
        focus_kept(page, "Create room")
        assert page.title().startswith("Waiting room")
        tab_to(page, "[data-action=add-bot]")
        page.keyboard.press("Enter")
        wait_until(lambda: page.locator(".seat.taken").count() == 2)
        focus_kept(page, "Add bot")
        tab_to(page, "[data-action=start]")
        page.keyboard.press("Enter")
        wait_for(page, "[data-action=roll]")
        focus_kept(page, "Start")
        wait_until(lambda: page.title().startswith("● Your turn") or page.title().startswith("Game"))

        # The board: one tab stop, arrows walk the squares, Enter opens a card, Escape closes it.
        tab_to(page, "svg.board .hit[tabindex='0']", back=True)
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        label = focused(page)["text"]
        assert label.startswith("3 · Copperpot Diner") and "price 600" in label and "For sale" in label
        page.keyboard.press("Enter")
        wait_for(page, ".modal.square-modal")
        # The dialog takes the focus in the effect after it renders: wait for it (two busy cores).
        wait_until(lambda: focused(page)["inDialog"])
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert focused(page)["inDialog"], "Tab left the dialog"
        page.keyboard.press("Escape")
        page.wait_for_selector(".modal.square-modal", state="detached")
        focus_kept(page, "closing the square card")
        assert focused(page)["text"].startswith("3 · Copperpot Diner")

        # Roll, then buy: the focus stays in the action bar.
        tab_to(page, "[data-action=roll]")
        page.keyboard.press("Enter")
        wait_for(page, "[data-panel=offer] [data-action=buy]")
        focus_kept(page, "Roll")
        tab_to(page, "[data-action=buy]")
        page.keyboard.press("Enter")
        wait_until(lambda: game_state(page)["game"]["squares"][3]["owner"] == 0)
        focus_kept(page, "Buy")
        # The bot's turn passes; Alice's second turn.
        wait_for(page, "[data-action=roll]")
        square = page.locator("svg.board .cell[data-square='3'] .hit").get_attribute("aria-label") or ""
        assert "owner Alice" in square and "rent" in square.lower()

        # A trade, built and sent by keyboard.
        tab_to(page, "[data-action=trade]")
        page.keyboard.press("Enter")
        wait_for(page, ".modal.trade-modal")
        wait_until(lambda: focused(page)["inDialog"])
        tab_to(page, "[data-side=give] input[data-square='3']")
        page.keyboard.press("Space")
        tab_to(page, "[data-side=take] input[data-field=cash]")
        page.keyboard.press("Control+A")
        page.keyboard.type("600")
        tab_to(page, "[data-action=send_trade]")
        page.keyboard.press("Enter")
        page.wait_for_selector(".modal.trade-modal", state="detached")
        focus_kept(page, "Send offer")
        wait_until(lambda: any(("Trade done" in x) or ("declines a trade" in x) for x in spoken(page, "polite")))

        # The tabs: a real tablist, arrows move the selection.
        tab_to(page, "[role=tab][aria-selected=true]")
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("[data-tab=trades]", "aria-selected") == "true"
        assert focused(page)["text"].startswith("Trades")
        page.keyboard.press("ArrowLeft")
        assert page.get_attribute("[data-tab=log]", "aria-selected") == "true"

        # The single-key shortcut can be switched off in the settings (Escape closes the menu).
        tab_to(page, "details.settings summary", back=True)
        page.keyboard.press("Enter")
        tab_to(page, "input[name=shortcuts]")
        page.keyboard.press("Space")
        assert page.is_checked("input[name=shortcuts]") is False
        page.keyboard.press("Escape")
        assert page.evaluate("!document.querySelector('details.settings').open")
        assert focused(page)["tag"] == "SUMMARY"

        # Roll onto the event square: the speeding fine opens the pay step, the Pay button has the focus.
        tab_to(page, "[data-action=roll]")
        page.keyboard.press("Enter")
        wait_for(page, "[data-panel=pay] [data-action=pay]")
        wait_until(lambda: focused(page)["action"] == "pay")
        cash = game_state(page)["game"]["players"][0]["cash"]
        page.keyboard.press("p")  # switched off: nothing happens
        page.wait_for_timeout(600)
        assert game_state(page)["game"]["players"][0]["cash"] == cash
        shots_at_both_sizes(page, screenshots, "a11y13-pay-step-keyboard")
        # More time to pay: once per debt, the clock grows by the pay-step time and the button goes.
        before = page.evaluate(
            "(async () => (await import('/js/store.js')).state.deadlines.find((d) => d.kind === 'pay').seconds)()"
        )
        tab_to(page, "[data-action=more_time]")
        page.keyboard.press("Enter")
        wait_until(lambda: page.evaluate(
            "(async () => (await import('/js/store.js')).state.deadlines.find((d) => d.kind === 'pay').seconds)()"
        ) == before * 2)
        assert page.locator("[data-action=more_time]").count() == 0
        assert any("more time to pay" in x for x in spoken(page, "polite"))
        focus_kept(page, "More time")
        tab_to(page, "[data-action=pay]", back=True)
        page.keyboard.press("Enter")  # Enter presses the focused Pay button
        wait_until(lambda: game_state(page)["game"]["players"][0]["cash"] == cash - 500)
        focus_kept(page, "Pay")

        # Resign: the question is announced, focus goes to "No"; Yes ends the game.
        tab_to(page, "[data-action=resign]")
        page.keyboard.press("Enter")
        wait_until(lambda: focused(page)["action"] == "resign-no")
        assert page.get_attribute(".confirm", "role") == "alertdialog"
        page.keyboard.press("Escape")
        wait_until(lambda: focused(page)["action"] == "resign")
        page.keyboard.press("Enter")
        wait_until(lambda: focused(page)["action"] == "resign-no")
        page.keyboard.press("Shift+Tab")
        assert focused(page)["action"] == "resign-yes"
        page.keyboard.press("Enter")
        wait_for(page, ".modal.over-modal")
        wait_until(lambda: focused(page)["inDialog"])
        page.keyboard.press("Escape")
        page.wait_for_selector(".modal.over-modal", state="detached")
        focus_kept(page, "closing the end screen")
        said = " | ".join(spoken(page))
        assert "Alice rolls 1 + 2." in said and "Speeding fine" in said and "wins" in said


# ------------------------------------------------------------------ the game, spoken


def test_the_log_live_region_says_dice_rent_and_game_over(browser: Any, make_server: Any) -> None:
    # Alice buys Copperpot Diner (0 → 3); the bot rolls 1 + 2 onto it and owes her rent; Alice resigns.
    server = make_server(first_player=0, dice=[(1, 2), (1, 2)] + [(2, 3), (4, 2)] * 40)
    with page_for(browser, server.base, viewport=DESKTOP) as page:
        page.context.add_init_script(LIVE_SPY)
        sign_in(page, "Alice")
        create_room(page, "blitz", 2)
        add_bots(page, 1)
        start_game(page)
        region = page.locator("#a11y-polite")
        assert region.get_attribute("aria-live") == "polite"
        assert page.locator("#a11y-assertive").get_attribute("aria-live") == "assertive"
        page.wait_for_selector("[data-action=roll]", timeout=T)
        wait_until(lambda: "Your turn" in spoken(page, "assertive"))
        # The turn clock is said at 30 and 10 seconds left, not every second: wind Alice's clock to 10.6 s.
        page.evaluate(
            """async () => { const m = await import('/js/store.js');
                const d = m.state.deadlines.find((x) => x.seat === 0 && x.kind === 'turn');
                d.endsAt = performance.now() + 10600; m.set({ deadlines: [...m.state.deadlines] }); }"""
        )
        wait_until(lambda: "10 seconds left" in spoken(page, "assertive"), timeout=5)
        assert not any("second" in x and "10 seconds" not in x for x in spoken(page))
        # prefers-reduced-motion: the token jumps to where the move ends, never square by square.
        page.emulate_media(reduced_motion="reduce")
        page.evaluate(
            """async () => { const m = await import('/js/store.js'); window.__steps = [];
                m.subscribe(() => {
                    const v = m.state.tokens[0];
                    if (window.__steps.at(-1) !== v) window.__steps.push(v);
                }); }"""
        )
        page.click("[data-action=roll]")
        page.wait_for_selector("[data-action=buy]", timeout=T)
        wait_until(lambda: page.evaluate("window.__steps.at(-1)") == 3)
        assert page.evaluate("window.__steps") == [3]
        wait_until(lambda: "Buy Copperpot Diner for 600?" in spoken(page, "assertive"))
        page.click("[data-action=buy]")
        wait_until(lambda: any("owes Alice" in x and "rent for Copperpot Diner" in x for x in spoken(page, "polite")))
        page.wait_for_selector("[data-action=resign]", timeout=T)
        page.click("[data-action=resign]")
        page.click("[data-action=resign-yes]")
        wait_until(lambda: any("last one standing and wins" in x for x in spoken(page, "polite")))
        polite = spoken(page, "polite")
        assert "Alice rolls 1 + 2." in polite
        assert any(x.startswith("Alice moves to Copperpot Diner") for x in polite)
        assert any("buys Copperpot Diner" in x for x in polite)
        # Spoken once each, in order, and never the whole history again.
        assert polite.count("Alice rolls 1 + 2.") == 1
        # The region keeps only the latest lines (older ones are not read again).
        assert page.locator("#a11y-polite p").count() <= 12


def test_decline_bid_and_pass_keep_the_focus(browser: Any, make_server: Any) -> None:
    # Alice declines Copperpot Diner (0 → 3): the auction asks her to bid, then to bid again or pass.
    server = make_server(first_player=0, dice=[(1, 2)] + [(2, 3), (4, 2)] * 40)
    with page_for(browser, server.base, viewport=DESKTOP) as page:
        page.context.add_init_script(LIVE_SPY)
        sign_in(page, "Alice")
        create_room(page, "blitz", 2)
        add_bots(page, 1, "hard")
        start_game(page)
        wait_for(page, "[data-action=roll]")
        tab_to(page, "[data-action=roll]")
        page.keyboard.press("Enter")
        wait_for(page, "[data-action=decline]")
        tab_to(page, "[data-action=decline]")
        page.keyboard.press("Enter")
        focus_kept(page, "Decline")
        wait_for(page, "[data-panel=auction] [data-action=bid]")
        wait_until(lambda: any(x.startswith("Your bid for Copperpot Diner") for x in spoken(page, "assertive")))
        tab_to(page, "[data-action=bid]")
        page.keyboard.press("Enter")
        focus_kept(page, "Bid")
        # Whenever the auction comes back to Alice she passes; the auction ends either way.
        deadline = time.monotonic() + 30
        while game_state(page)["game"]["auction"] is not None:
            assert time.monotonic() < deadline, "the auction did not end"
            if page.locator("[data-panel=auction] [data-action=pass]").count():
                tab_to(page, "[data-panel=auction] [data-action=pass]")
                page.keyboard.press("Enter")
                focus_kept(page, "Pass")
            page.wait_for_timeout(100)
        focus_kept(page, "the end of the auction")
        ends = ("wins", "unsold", "buys")
        assert any("Copperpot Diner" in x and any(w in x for w in ends) for x in spoken(page, "polite"))
