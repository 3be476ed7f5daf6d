"""The web client in Chromium against a real server: whole games, trades, auctions, pay steps, languages,
phones. Screenshots of each main screen go to artifacts/screenshots/."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from webkit import (
    add_bots,
    click_if,
    create_room,
    game_state,
    page_for,
    play_step,
    shot,
    sign_in,
    start_game,
    visible,
    wait_js,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

CATALOGS = Path(__file__).resolve().parents[2] / "src" / "opolyx" / "i18n" / "catalogs"
DECK = [
    "speeding_fine", "advance_to_start", "advance_to_red_c", "advance_to_pink_a", "advance_to_dark_blue_b",
    "nearest_dealership", "nearest_utility", "go_back_three", "go_to_jail", "lottery_win", "bank_dividend",
    "performance_bonus", "birthday", "charity_gala", "tax_audit", "building_repairs",
]


def test_blitz_game_with_three_bots_to_the_end(browser: Any, server: Any, screenshots: Path) -> None:
    with page_for(browser, server.base, viewport={"width": 1366, "height": 900}) as page:
        page.goto("/")
        page.wait_for_selector("input[name=nickname]")
        page.fill("input[name=nickname]", "Alice")
        shot(page, screenshots, "01-start")
        page.click("[data-action=play]")
        page.wait_for_selector(".lobby-screen")
        page.click("label.mode-option:has(input[value=blitz])")
        shot(page, screenshots, "02-lobby")
        create_room(page, "blitz", 4)
        add_bots(page, 3)
        assert page.locator(".seat.taken").count() == 4
        shot(page, screenshots, "03-room")
        start_game(page)
        shots = {"04-game-desktop": 6, "05-game-later": 60}
        steps = 0
        deadline = time.monotonic() + 800
        while time.monotonic() < deadline:
            if visible(page, "[data-testid=placements]"):
                break
            if play_step(page):
                steps += 1
                for name, at in list(shots.items()):
                    if steps >= at:
                        time.sleep(0.4)
                        shot(page, screenshots, name)
                        del shots[name]
            else:
                time.sleep(0.05)
        page.wait_for_selector("[data-testid=placements]", timeout=30_000)
        state = game_state(page)
        assert state["over"]
        places = page.locator("[data-testid=placements] li")
        assert places.count() == 4
        assert "game_over" in state["log"]
        # Placements show a net worth each, formatted.
        assert re.search(r"\d", places.first.inner_text())
        shot(page, screenshots, "06-game-over")


def _two_players(browser: Any, base: str) -> tuple[Any, Any, Any, Any]:
    ca = browser.new_context(base_url=base, viewport={"width": 1280, "height": 860})
    cb = browser.new_context(base_url=base, viewport={"width": 1280, "height": 860})
    for c in (ca, cb):  # the first-game guide (webkit.page_for says why)
        c.add_init_script("try { localStorage.setItem('opolyx.tutorial', 'seen'); } catch (e) {}")
    a, b = ca.new_page(), cb.new_page()
    sign_in(a, "Alice")
    sign_in(b, "Bruno")
    create_room(a, "blitz", 2, private=True)
    code = a.locator("[data-testid=room-code]").inner_text().strip()
    b.fill("input[name=code]", code)
    b.click("[data-action=join-code]")
    b.wait_for_selector(".room-screen .seats")
    wait_js(a, "document.querySelectorAll('.seat.taken').length === 2")
    start_game(a)
    b.wait_for_selector("svg.board .cell")
    return ca, cb, a, b


def test_two_people_auction_and_trade(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice (seat 0) begins and lands on the brown B street (square 3).
    server = make_server(dice=[[1, 2]], first_player=0)
    ca, cb, a, b = _two_players(browser, server.base)
    try:
        a.click("[data-action=roll]")
        a.wait_for_selector("[data-panel=offer] [data-action=decline]")
        a.click("[data-action=decline]")
        # The auction: Bruno bids first (the decliner bids last), each with a 10 s clock.
        b.wait_for_selector("[data-panel=auction] [data-action=bid]")
        assert "600" in b.locator("[data-panel=auction]").inner_text()
        shot(b, screenshots, "07-auction")
        b.click("[data-panel=auction] [data-action=bid]")
        a.wait_for_selector("[data-panel=auction] [data-action=pass]")
        a.click("[data-panel=auction] [data-action=pass]")
        wait_until(lambda: game_state(a)["game"]["squares"][3]["owner"] == 1)
        # Bruno's turn, before his roll: offer brown B for 500 of Alice's cash.
        b.wait_for_selector("[data-action=roll]")
        b.click("[data-action=trade]")
        b.wait_for_selector(".trade-modal")
        b.check("[data-side=give] input[data-square='3']")
        b.fill("[data-side=take] input[data-field=cash]", "200")
        assert b.locator(".fairness").get_attribute("data-fair") == "false"
        b.fill("[data-side=take] input[data-field=cash]", "500")
        assert b.locator(".fairness").get_attribute("data-fair") == "true"
        shot(b, screenshots, "08-trade-builder")
        b.click("[data-action=send_trade]")
        # Alice sees the offer and accepts it.
        a.click("[data-tab=trades]")
        a.wait_for_selector("li.trade.incoming [data-action=accept_trade]")
        shot(a, screenshots, "09-trade-incoming")
        cash_before = game_state(a)["game"]["players"][0]["cash"]
        a.click("li.trade.incoming [data-action=accept_trade]")
        wait_until(lambda: game_state(a)["game"]["squares"][3]["owner"] == 0)
        assert game_state(a)["game"]["players"][0]["cash"] == cash_before - 500
        b.click("[data-tab=log]")
        wait_until(lambda: "Trade done" in b.locator("[data-testid=log]").inner_text())
        # An open offer can be seen and cancelled by its proposer.
        b.click("[data-action=trade]")
        b.fill("[data-side=give] input[data-field=cash]", "300")
        b.fill("[data-side=take] input[data-field=cash]", "300")
        b.click("[data-action=send_trade]")
        b.click("[data-tab=trades]")
        b.wait_for_selector("li.trade.outgoing [data-action=cancel_trade]")
        b.click("li.trade.outgoing [data-action=cancel_trade]")
        wait_until(lambda: not game_state(b)["game"]["trades"])
    finally:
        ca.close()
        cb.close()


def test_pay_step_raised_by_mortgaging(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice buys brown B (600 of her 1000), the bot pays her 40 rent, then Alice draws "Speeding fine" (500)
    # with 440 in cash: she mortgages brown B (+300) in the pay step and pays.
    server = make_server(
        dice=[[1, 2], [1, 2], [1, 3]], deck=DECK, first_player=0, rules={"starting_cash": 1000},
    )
    with page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as page:
        sign_in(page, "Alice")
        create_room(page, "classic", 2)
        add_bots(page, 1)
        start_game(page)
        page.click("[data-action=roll]")
        page.click("[data-panel=offer] [data-action=buy]")
        page.wait_for_selector("[data-action=roll]", timeout=30_000)
        page.click("[data-action=roll]")
        page.wait_for_selector("[data-panel=pay]")
        panel = page.locator("[data-panel=pay]")
        assert page.locator("[data-panel=pay] [data-action=pay]").count() == 0  # 440 < 500: no Pay yet
        assert page.locator("[data-action=declare_bankruptcy]").count() == 0  # raising cash can cover it
        assert "500" in panel.inner_text()
        shot(page, screenshots, "10-pay-step")
        page.click("[data-panel=pay] [data-action=mortgage][data-square='3']")
        page.wait_for_selector("[data-panel=pay] [data-action=pay]")
        page.click("[data-panel=pay] [data-action=pay]")
        wait_until(lambda: game_state(page)["game"]["players"][0]["cash"] == 240)
        state = game_state(page)
        assert state["game"]["squares"][3]["mortgaged"]
        page.wait_for_selector("svg.board .mortgaged")


def test_switching_language_changes_every_visible_string(browser: Any, server: Any, screenshots: Path) -> None:
    en = json.loads((CATALOGS / "en.json").read_text())
    with page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as page:
        sign_in(page, "Alice")
        create_room(page, "fortuna", 3)
        add_bots(page, 2)
        start_game(page)
        for _ in range(4):
            play_step(page)
            time.sleep(0.3)
        roll_or_wait = page.locator(".action-bar").inner_text()
        assert roll_or_wait
        for language in ("de", "zh", "fr", "pt", "es"):
            other = json.loads((CATALOGS / f"{language}.json").read_text())
            page.select_option("[data-testid=language]", language)
            wait_js(page, f"document.documentElement.lang.startsWith('{language}')")
            time.sleep(0.3)
            text = page.locator("body").inner_text()
            leftovers = []
            for key, value in en.items():
                if "{" in value or other[key] == value or len(value) < 4:
                    continue
                if re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", text):
                    leftovers.append((key, value))
            assert not leftovers, (language, leftovers)
            assert other["tab.log"] in text and other["tab.chat"] in text
            if language == "zh":
                # Fortuna: Chinese brand names, the disclaimer, amounts in 万.
                board = page.locator("svg.board").text_content()
                assert "腾讯" in board and "蜜雪冰城" in board
                assert other["board.disclaimer"] in board
                assert "万" in page.locator("[data-testid=players]").inner_text()
                shot(page, screenshots, "11-fortuna-zh")
        page.select_option("[data-testid=language]", "en")
        wait_js(page, "document.documentElement.lang === 'en'")
        assert en["board.disclaimer"] in page.locator("svg.board").text_content()


def test_phone_shows_whole_board_and_action_bar(browser: Any, server: Any, screenshots: Path) -> None:
    with page_for(browser, server.base, viewport={"width": 390, "height": 844}, is_mobile=True,
                  has_touch=True, device_scale_factor=2) as page:
        sign_in(page, "Pia")
        shot(page, screenshots, "12-phone-lobby")
        create_room(page, "speed", 3)
        add_bots(page, 2)
        start_game(page)
        page.wait_for_selector(".action-bar")
        wait_until(lambda: visible(page, "[data-action=roll]") or play_step(page), timeout=30)
        time.sleep(0.5)
        for selector in ("svg.board", "[data-testid=action-bar]"):
            box = page.locator(selector).bounding_box()
            assert box is not None
            assert box["x"] >= -1 and box["y"] >= -1, (selector, box)
            assert box["x"] + box["width"] <= 391, (selector, box)
            assert box["y"] + box["height"] <= 845, (selector, box)
        board = page.locator("svg.board").bounding_box()
        assert board["width"] >= 370
        # No horizontal scrolling on a phone.
        assert page.evaluate("document.documentElement.scrollWidth") <= 391
        assert click_if(page, "[data-action=roll]") or True
        time.sleep(0.5)
        shot(page, screenshots, "13-phone-game")


def test_spectator_sees_all_and_acts_on_nothing(browser: Any, server: Any, screenshots: Path) -> None:
    with page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as host, \
            page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as watcher:
        sign_in(host, "Hana")
        create_room(host, "classic", 3)
        add_bots(host, 2)
        start_game(host)
        sign_in(watcher, "Wen")
        watcher.wait_for_selector("[data-list=running] [data-action=watch]", timeout=30_000)
        watcher.click("[data-list=running] [data-action=watch]")
        watcher.wait_for_selector("svg.board .cell")
        assert "Spectating" in watcher.locator(".action-bar").inner_text()
        assert watcher.locator(".action-bar button").count() == 0
        assert game_state(watcher)["legal"] == []
        shot(watcher, screenshots, "14-spectator")
