"""Play feel, second pass (issue 43, items 1-7), in Chromium against a real server: the phone's way to the
profile, the incoming-offer panel and the proposer's answer, toasts that keep off the game, the desktop log
that shows its newest line with four players, the one-time auto-pay prompt, a reload that returns to the
table, and the replay viewer's captions, cash panel, log and autoplay.

Each new screen is audited with axe-core at desktop and phone size; screenshots go to artifacts/screenshots/
(names starting with "f2-").
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from test_browser_a11y import audit_both_sizes
from test_browser_features import click, deck, me, solo_game
from test_browser_playfeel import PHONE, finish_quick_game
from webkit import (
    add_bots,
    create_room,
    game_state,
    page_for,
    sign_in,
    start_game,
    wait_js,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

T = 30_000
DESKTOP = {"viewport": {"width": 1440, "height": 900}}
RAW = re.compile(r"\{\w+\}")


def rect(page: Any, selector: str) -> dict[str, float]:
    return dict(page.evaluate(
        "(sel) => { const r = document.querySelector(sel).getBoundingClientRect();"
        " return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; }", selector))


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def show_toast(page: Any, text: str = "A toast that must keep off the game") -> None:
    page.evaluate("async (text) => (await import('/js/controller.js')).toast(text)", text)
    page.wait_for_selector(".toast")


def test_phone_reaches_the_profile_from_lobby_and_table(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(first_player=0)
    with page_for(browser, server.base, **PHONE) as page:
        sign_in(page, "Pia")
        assert not page.locator("header.top a.me").is_visible()  # the name is hidden on a phone...
        account = page.locator("header.top a.me-icon")
        assert account.is_visible()                              # ...the account button is not
        assert "Pia" in (account.get_attribute("aria-label") or "")
        account.click()
        page.wait_for_selector("[data-testid=profile]", timeout=T)
        audit_both_sizes(page, screenshots, "f2-01-profile")
        page.goto(f"{server.base}/#/lobby")
        create_room(page, "blitz", 2)
        add_bots(page, 1)
        start_game(page)
        # At the table too: one tap leads to the profile.
        page.locator("header.top a.me-icon").click()
        page.wait_for_selector("[data-testid=profile]", timeout=T)


def test_offer_panel_with_values_and_the_proposer_learns_the_answer(
    browser: Any, make_server: Any, screenshots: Path
) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    with page_for(browser, server.base, **DESKTOP) as host, page_for(browser, server.base, **PHONE) as guest:
        sign_in(host, "Hana")
        create_room(host, "classic", 2)
        sign_in(guest, "Gus")
        guest.goto(host.url)
        guest.wait_for_selector("[data-action=join]", timeout=T)
        guest.click("[data-action=join]")
        host.wait_for_selector(".seat.taken >> nth=1", timeout=T)
        start_game(host)
        guest.wait_for_selector("svg.board .cell", timeout=T)

        def propose(give: str, take: str) -> None:
            click(host, "[data-action=trade]")
            host.fill("[data-side=give] input[data-field=cash]", give)
            host.fill("[data-side=take] input[data-field=cash]", take)
            host.click("[data-action=send_trade]")

        propose("1000", "600")
        panel = guest.locator("[data-testid=offer-panel]")
        panel.wait_for(timeout=T)
        assert panel.is_visible()
        assert "Hana offers you a trade" in panel.inner_text()
        assert guest.inner_text("[data-testid=offer-get]").startswith("You get (worth 1,000)")
        assert guest.inner_text("[data-testid=offer-give]").startswith("You give (worth 600)")
        assert "60 %" in guest.inner_text("[data-testid=offer-fair]")
        assert "at least 50 %" in guest.inner_text("[data-testid=offer-fair]")
        assert re.search(r"\d+ s", panel.locator(".countdown").inner_text())
        # The panel is on screen without scrolling on the phone, above the action bar.
        box = panel.bounding_box()
        assert box is not None and box["y"] + 40 < 844
        audit_both_sizes(guest, screenshots, "f2-02-offer-panel")
        guest.set_viewport_size({"width": 390, "height": 844})
        panel.locator("[data-action=decline_trade]").click()
        answer = host.locator("[data-testid=trade-answer]")
        answer.wait_for(timeout=T)
        assert answer.get_attribute("data-kind") == "declined"
        assert "Gus declined your offer." in answer.inner_text()
        audit_both_sizes(host, screenshots, "f2-02-offer-declined")
        host.click("[data-action=dismiss-answer]")
        assert host.locator("[data-testid=trade-answer]").count() == 0
        assert guest.locator("[data-testid=offer-panel]").count() == 0
        # A second offer, accepted: the proposer hears that too.
        propose("500", "500")
        guest.locator("[data-testid=offer-panel] [data-action=accept_trade]").click(timeout=T)
        host.wait_for_selector("[data-testid=trade-answer][data-kind=accepted]", timeout=T)
        assert "Gus accepted your offer." in host.inner_text("[data-testid=trade-answer]")


def test_toasts_keep_off_the_top_row_the_zoom_centre_and_the_phone_trade_dialog(
    browser: Any, make_server: Any, screenshots: Path
) -> None:
    server = make_server(first_player=0)
    with solo_game(browser, server, "classic", 2) as page:
        page.set_viewport_size({"width": 1440, "height": 900})
        board = rect(page, "svg.board")
        show_toast(page)
        toast = rect(page, ".toast")
        top_row = {**board, "bottom": board["top"] + (board["bottom"] - board["top"]) * 2 / 13}
        assert not overlaps(toast, top_row), (toast, board)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(200)
        board = rect(page, "svg.board")
        show_toast(page, "Another toast")
        toast = rect(page, ".toast")
        top_row = {**board, "bottom": board["top"] + (board["bottom"] - board["top"]) * 2 / 13}
        assert not overlaps(toast, top_row)
        # The phone zoom centres a square in the zoomed strip: the toast stays clear of that middle.
        page.click("[data-action=zoom]")
        page.wait_for_timeout(300)
        strip = rect(page, ".game-board")
        cx, cy = (strip["left"] + strip["right"]) / 2, (strip["top"] + strip["bottom"]) / 2
        middle = {"left": cx - 40, "right": cx + 40, "top": cy - 40, "bottom": cy + 40}
        show_toast(page, "A third toast")
        assert not overlaps(rect(page, ".toast"), middle)
        page.click("[data-action=zoom]")
        # The phone's trade dialog.
        click(page, "[data-action=trade]")
        page.wait_for_selector(".trade-modal")
        show_toast(page, "A toast beside the trade dialog")
        assert not overlaps(rect(page, ".toast"), rect(page, ".trade-modal"))
        audit_both_sizes(page, screenshots, "f2-03-toast-trade-dialog")


def test_desktop_log_shows_its_newest_line_with_four_players(
    browser: Any, make_server: Any, screenshots: Path
) -> None:
    server = make_server(first_player=0)
    with solo_game(browser, server, "classic", 4) as page:
        page.set_viewport_size({"width": 1440, "height": 900})
        # Many lines, as late in a game: the newest is the round marker at the end.
        page.evaluate(
            """async () => { const s = await import('/js/store.js');
                const log = [];
                for (let i = 0; i < 120; i++)
                  log.push({ id: 100000 + i, seq: i, ev: { type: 'turn_started', seat: i % 4 } });
                log.push({ id: 200000, seq: 999, ev: { type: 'round_started', round: 77 } });
                s.set({ log }); }"""
        )
        page.wait_for_selector("[data-testid=log] li:has-text('77')")
        page.wait_for_timeout(300)
        last = page.locator("[data-testid=log] li").last
        assert "77" in last.inner_text()
        # The newest line is really on screen: the element at its middle is that line.
        seen = page.evaluate(
            """() => { const li = [...document.querySelectorAll('[data-testid=log] li')].at(-1);
                const r = li.getBoundingClientRect();
                if (r.bottom > innerHeight || r.top < 0) return false;
                const at = document.elementFromPoint(r.left + 20, (r.top + r.bottom) / 2);
                return !!at && li.contains(at); }"""
        )
        assert seen, "the newest log line is hidden"
        # One scroll container: the side column itself does not scroll.
        side = page.evaluate(
            "() => { const s = document.querySelector('.game-side'); return s.scrollHeight - s.clientHeight; }")
        assert side <= 1
        audit_both_sizes(page, screenshots, "f2-04-log-four-players")


def test_first_pay_offers_the_autopay_setting_once(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice: 0 → 4 (income tax 2,000); the bot: 0 → 3; Alice: 4 → 7 (event: speeding fine 500).
    server = make_server(dice=[(1, 3), (1, 2), (1, 2)], deck=deck("speeding_fine"), first_player=0)
    with solo_game(browser, server, "classic", 2) as page:
        click(page, "[data-action=roll]")
        page.wait_for_selector("[data-panel=pay] [data-action=pay]", timeout=T)
        assert page.locator("[data-testid=autopay-prompt]").count() == 0
        page.click("[data-panel=pay] [data-action=pay]")
        prompt = page.locator("[data-testid=autopay-prompt]")
        prompt.wait_for(timeout=T)
        audit_both_sizes(page, screenshots, "f2-05-autopay-prompt")
        prompt.locator("[data-action=autopay-yes]").click()
        assert page.locator("[data-testid=autopay-prompt]").count() == 0
        assert page.evaluate("async () => (await import('/js/store.js')).state.prefs.autopay") is True
        # The next debt is paid at once, and the prompt never comes back.
        click(page, "[data-action=roll]")
        wait_until(lambda: me(page)["cash"] == 12500)
        time.sleep(0.5)
        assert page.locator("[data-testid=autopay-prompt]").count() == 0
        assert page.evaluate("localStorage.getItem('opolyx.autopayAsked')") == "1"


def test_reload_while_seated_returns_to_the_table(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(first_player=0)
    with solo_game(browser, server, "blitz", 2) as page:
        room = page.evaluate("async () => (await import('/js/store.js')).state.roomId")
        for where in ("/", "/#/lobby"):
            page.goto(f"{server.base}{where}")
            page.reload()  # a hash-only change is no reload: load the page afresh at that address
            page.wait_for_selector("svg.board .cell", timeout=T)
            assert page.evaluate("async () => (await import('/js/store.js')).state.roomId") == room
            assert page.locator(".lobby-screen").count() == 0
        # Going to the lobby on purpose still works.
        page.click("header.top .brand-small")
        page.wait_for_selector(".lobby-screen", timeout=T)


@pytest.mark.parametrize("language", ["en", "de", "zh"])
def test_replay_viewer_captions_cash_log_and_autoplay(
    browser: Any, make_server: Any, screenshots: Path, language: str
) -> None:
    server = make_server(rules={"round_limit": 2}, first_player=0)
    with page_for(browser, server.base, **DESKTOP) as page:
        sign_in(page, "Rita", language)
        create_room(page, "blitz", 2)
        add_bots(page, 1)
        start_game(page)
        room = page.evaluate("async () => (await import('/js/store.js')).state.roomId")
        finish_quick_game(page)
        page.goto(f"{server.base}/#/replay/{room}")
        page.wait_for_selector("[data-testid=replay] svg.board .cell", timeout=T)
        assert page.locator("[data-testid=replay-cash] li").count() == 2
        total = game_state(page)["game"]
        assert total is not None
        captions = []
        for _ in range(12):
            if page.locator("[data-action=replay-forward]").is_disabled():
                break
            page.click("[data-action=replay-forward]")
            page.wait_for_timeout(120)
            captions.append(page.inner_text("[data-testid=replay-action]"))
        assert len(captions) >= 3 and all(c.strip() and not RAW.search(c) for c in captions), captions
        log = page.inner_text("[data-testid=replay-log]")
        assert log.strip() and not RAW.search(log)
        cash = page.inner_text("[data-testid=replay-cash]")
        assert not RAW.search(cash)
        # Autoplay moves on by itself and pauses.
        step = page.inner_text("[data-testid=replay-step]")
        page.click("[data-action=replay-first]")
        wait_js(page, "async () => (await import('/js/store.js')).state.game.round === 1")
        time.sleep(0.3)
        step = page.inner_text("[data-testid=replay-step]")
        page.click("[data-action=replay-play]")
        wait_until(lambda: page.inner_text("[data-testid=replay-step]") != step, timeout=10)
        page.click("[data-action=replay-play]")
        paused = page.inner_text("[data-testid=replay-step]")
        time.sleep(1.5)
        assert page.inner_text("[data-testid=replay-step]") == paused
        page.click("[data-action=replay-last]")
        wait_js(page, "async () => (await import('/js/store.js')).state.game.phase === 'over'")
        assert not RAW.search(page.inner_text("[data-testid=replay]"))
        audit_both_sizes(page, screenshots, f"f2-07-replay-{language}")


def test_the_proposer_learns_that_an_offer_expired(browser: Any, make_server: Any) -> None:
    server = make_server(rules={"trade_seconds": 4}, first_player=0)
    with page_for(browser, server.base, **DESKTOP) as host, page_for(browser, server.base, **DESKTOP) as guest:
        sign_in(host, "Hana")
        create_room(host, "classic", 2)
        sign_in(guest, "Gus")
        guest.goto(host.url)
        guest.wait_for_selector("[data-action=join]", timeout=T)
        guest.click("[data-action=join]")
        host.wait_for_selector(".seat.taken >> nth=1", timeout=T)
        start_game(host)
        click(host, "[data-action=trade]")
        host.fill("[data-side=give] input[data-field=cash]", "300")
        host.fill("[data-side=take] input[data-field=cash]", "300")
        host.click("[data-action=send_trade]")
        guest.wait_for_selector("[data-testid=offer-panel]", timeout=T)
        # Gus does not answer: the offer's clock runs out and Hana is told.
        host.wait_for_selector("[data-testid=trade-answer][data-kind=expired]", timeout=T)
        assert "Your offer to Gus expired unanswered." in host.inner_text("[data-testid=trade-answer]")
        guest.wait_for_selector("[data-testid=offer-panel]", state="detached", timeout=T)
