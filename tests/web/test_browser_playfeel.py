"""How the game feels to play, in Chromium against a real server: the log that keeps following, the alerts
that say it is your turn, paying with one key or at once, the phone's board and money strip, acting paused
while the socket is down, and the end screen with its rematch.

Games are scripted with the rigged engine (fixed dice and deck, Alice at seat 0). Screenshots go to
artifacts/screenshots/ (names starting with "p"), desktop and phone.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from test_browser_features import WS_TRACKER, click, deck, log_text, me, settle, solo_game, wait_log
from webkit import (
    add_bots,
    create_room,
    game_state,
    page_for,
    play_step,
    shot,
    sign_in,
    start_game,
    wait_js,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

T = 30_000
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}

# Records browser notifications and lets the test say whether the tab is hidden.
NOTIFY_SPY = """
(() => {
  window.__notes = [];
  window.__hidden = false;
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => window.__hidden });
  class Spy { constructor(title, opts) { window.__notes.push({ title, body: opts && opts.body }); } close() {} }
  Spy.permission = 'granted';
  Spy.requestPermission = async () => 'granted';
  window.Notification = Spy;
})();
"""


def inject(page: Any, frames: list[dict[str, Any]]) -> None:
    """Deliver frames to the client as if its room socket had received them."""
    page.evaluate(
        """(frames) => { const ws = window.__sockets.at(-1);
            for (const f of frames) ws.dispatchEvent(new MessageEvent('message', { data: JSON.stringify(f) })); }""",
        frames,
    )


def log_scroll(page: Any) -> dict[str, float]:
    return dict(page.evaluate(
        """() => { const el = document.querySelector('[data-testid=log]');
            return { top: el.scrollTop, max: el.scrollHeight - el.clientHeight }; }"""
    ))


def test_the_log_still_follows_after_500_events(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(dice=[(3, 4)], deck=deck("bank_dividend"), first_player=0)
    with solo_game(browser, server, "classic", 2, init_script=WS_TRACKER) as page:
        page.wait_for_selector("[data-action=roll]", timeout=T)
        seq = game_state(page)["game"]["seq"]
        notices = [
            {"type": "notice", "seq": seq, "event": {"type": "round_started", "round": k}} for k in range(2, 522)
        ]
        for start in range(0, len(notices), 100):
            inject(page, notices[start:start + 100])
        wait_js(page, "document.querySelector('[data-testid=log]').innerText.includes('Round 521 begins.')")
        last = page.locator("[data-testid=log] li").last
        assert last.inner_text().strip() == "Round 521 begins."
        wait_until(lambda: log_scroll(page)["max"] - log_scroll(page)["top"] < 2)
        # The real game goes on past the cap: its events still arrive at the bottom, in view.
        click(page, "[data-action=roll]")
        wait_log(page, "Bank dividend")
        assert page.locator("[data-testid=log] li").count() == 400  # the cap holds
        assert "Round 521 begins." not in page.locator("[data-testid=log] li").last.inner_text()
        wait_until(lambda: log_scroll(page)["max"] - log_scroll(page)["top"] < 2)
        newest = page.locator("[data-testid=log] li").last
        log_box = page.locator("[data-testid=log]").bounding_box()
        entry = newest.bounding_box()
        assert log_box is not None and entry is not None
        assert log_box["y"] <= entry["y"] and entry["y"] + entry["height"] <= log_box["y"] + log_box["height"] + 1
        # Scrolled up to read back, the log stays put; back at the bottom, it follows again.
        page.evaluate("document.querySelector('[data-testid=log]').scrollTop = 0")
        page.dispatch_event("[data-testid=log]", "scroll")
        inject(page, [{"type": "notice", "seq": seq, "event": {"type": "round_started", "round": 900}}])
        wait_js(page, "document.querySelector('[data-testid=log]').innerText.includes('Round 900 begins.')")
        assert log_scroll(page)["top"] < 5
        page.evaluate("const el = document.querySelector('[data-testid=log]'); el.scrollTop = el.scrollHeight")
        page.dispatch_event("[data-testid=log]", "scroll")
        inject(page, [{"type": "notice", "seq": seq, "event": {"type": "round_started", "round": 901}}])
        wait_js(page, "document.querySelector('[data-testid=log]').innerText.includes('Round 901 begins.')")
        wait_until(lambda: log_scroll(page)["max"] - log_scroll(page)["top"] < 2)
        shot(page, screenshots, "p01-log-after-500")


def test_turn_alert_toast_title_and_notification(browser: Any, make_server: Any, screenshots: Path) -> None:
    # The bot begins; when its turn ends, Alice is told: a toast, the tab title, and (tab hidden, allowed)
    # a browser notification.
    server = make_server(dice=[(1, 2), (1, 5), (1, 2)], deck=deck("bank_dividend"), first_player=1)
    with page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as page:
        page.context.add_init_script(NOTIFY_SPY)
        sign_in(page, "Alice")
        create_room(page, "classic", 2)
        add_bots(page, 1)
        page.click("#app details.settings summary")
        page.check("input[name=notify]")
        page.click("#app details.settings summary")
        page.evaluate("window.__hidden = true")
        start_game(page)
        page.wait_for_selector("[data-testid=alert]", timeout=T)
        assert page.locator("[data-testid=alert]").inner_text() == "Your turn"
        wait_until(lambda: page.title().startswith("● Your turn"))
        wait_until(lambda: page.evaluate("window.__notes.length") >= 1)
        assert page.evaluate("window.__notes[0].body") == "Your turn"
        shot(page, screenshots, "p02-turn-alert")
        # Acting clears the title; the next turn alerts again (once per turn, not per frame).
        page.evaluate("window.__hidden = false")
        click(page, "[data-action=roll]")
        wait_until(lambda: page.title() == "opolyx" or page.title().startswith("● Your turn"))
        page.wait_for_selector("[data-panel=offer] [data-action=decline]", timeout=T)
        assert page.title().startswith("● Your turn")
        notes = page.evaluate("window.__notes.length")
        page.click("[data-panel=offer] [data-action=decline]")
        wait_until(lambda: page.evaluate("window.__notes.length") == notes)  # not hidden: no notification


def test_trade_offer_alerts_the_other_person(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    with page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as host, \
            page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as guest:
        sign_in(host, "Hana")
        create_room(host, "classic", 2)
        sign_in(guest, "Gus")
        guest.goto(host.url)
        guest.wait_for_selector("[data-action=join]", timeout=T)
        guest.click("[data-action=join]")
        host.wait_for_selector(".seat.taken >> nth=1", timeout=T)
        start_game(host)
        guest.wait_for_selector("svg.board .cell", timeout=T)
        host.wait_for_selector("[data-action=trade]", timeout=T)
        host.click("[data-action=trade]")
        host.fill("[data-side=give] input[data-field=cash]", "500")
        host.fill("[data-side=take] input[data-field=cash]", "500")
        host.click("[data-action=send_trade]")
        guest.wait_for_selector("[data-testid=alert]", timeout=T)
        assert guest.locator("[data-testid=alert]").inner_text() == "Hana offers you a trade"
        wait_until(lambda: "Hana offers you a trade" in guest.title())
        shot(guest, screenshots, "p03-trade-alert")


def test_pay_with_one_key_and_the_autopay_setting(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice: 0 → 4 (income tax 2,000); the bot: 0 → 3; Alice: 4 → 7 (event: speeding fine 500).
    server = make_server(dice=[(1, 3), (1, 2), (1, 2)], deck=deck("speeding_fine"), first_player=0)
    with solo_game(browser, server, "classic", 2) as page:
        click(page, "[data-action=roll]")
        page.wait_for_selector("[data-panel=pay] [data-action=pay]", timeout=T)
        button = page.locator("[data-panel=pay] [data-action=pay]")
        assert "Pay 2,000 to the bank" in button.inner_text()
        settle(page)
        shot(page, screenshots, "p04-pay-default")
        # Off (the default): nothing is paid until Alice says so...
        assert page.locator("input[name=autopay]").first.is_checked() is False
        time.sleep(1.0)
        assert me(page)["cash"] == 15000
        # ...and one key does it.
        page.keyboard.press("Enter")
        wait_until(lambda: me(page)["cash"] == 13000)
        assert page.locator("[data-panel=pay]").count() == 0
        # On, and remembered across a reload: the next debt is paid the moment it appears.
        page.locator("[data-panel=pay] input[name=autopay], #app details.settings summary").first.click()
        page.check("input[name=autopay]")
        page.reload()
        page.wait_for_selector("svg.board .cell", timeout=T)
        page.click("#app details.settings summary")
        assert page.locator("input[name=autopay]").is_checked()
        page.click("#app details.settings summary")
        page.wait_for_selector("[data-action=roll]", timeout=T)
        page.click("[data-action=roll]")
        wait_log(page, "Speeding fine")
        wait_until(lambda: me(page)["cash"] == 12500)
        assert "Alice pays" in log_text(page)
        # And off again: the next pay step waits for Alice.
        page.click("#app details.settings summary")
        page.uncheck("input[name=autopay]")
        assert json.loads(page.evaluate("localStorage.getItem('opolyx.prefs')"))["autopay"] is False


def test_phone_reads_a_square_card_and_everyones_cash(browser: Any, server: Any, screenshots: Path) -> None:
    with page_for(browser, server.base, **PHONE) as page:
        sign_in(page, "Pia")
        create_room(page, "blitz", 4)
        add_bots(page, 3, "hard")
        start_game(page)
        page.wait_for_selector("[data-testid=money-strip]", timeout=T)
        # Every seat's cash is on screen at once, and matches the game.
        strip = page.locator("[data-testid=money-strip]")
        assert strip.is_visible()
        box = strip.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844
        game = game_state(page)["game"]
        chips = page.locator("[data-testid=money-strip] .money-chip")
        assert chips.count() == 4
        for k in range(4):
            seat = int(chips.nth(k).get_attribute("data-seat") or -1)
            assert chips.nth(k).locator("[data-cash]").inner_text() == f"{game['players'][seat]['cash']:,}"
            assert chips.nth(k).is_visible()
        # Bots are told apart on the board: no two tokens carry the same label.
        labels = [x.strip() for x in page.locator("svg.board .token text").all_text_contents()]
        assert len(labels) == 4 and len(set(labels)) == 4, labels
        shot(page, screenshots, "p05-phone-game")
        # The zoomed strip shows square names at a readable size; a tap on a square opens its card.
        page.click("[data-action=zoom]")
        page.wait_for_selector(".game-board.zoomed", timeout=T)
        time.sleep(0.4)
        size = page.evaluate(
            "(() => { const el = document.querySelector('svg.board .cell[data-square=\"39\"] .sq-name');"
            " return el.getBoundingClientRect().height / el.querySelectorAll('tspan').length; })()"
        )
        assert size >= 10, size
        shot(page, screenshots, "p06-phone-zoomed")
        page.locator("svg.board .cell[data-square='1']").tap()
        modal = page.locator(".modal.square-modal")
        modal.wait_for(timeout=T)
        assert "Pebble Lane Bakery" in modal.inner_text()
        assert "600" in modal.inner_text()
        mbox = modal.bounding_box()
        assert mbox is not None and mbox["width"] <= 390
        font = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.modal .kv')).fontSize)")
        assert font >= 12
        shot(page, screenshots, "p07-phone-square-card")
        page.click(".modal.square-modal .close")
        page.click("[data-action=zoom]")
        page.wait_for_selector(".game-board:not(.zoomed)", timeout=T)


def test_actions_are_disabled_while_disconnected(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(dice=[(3, 4), (1, 3), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    with solo_game(browser, server, "classic", 2, init_script=WS_TRACKER) as page:
        page.wait_for_selector("header .conn.online", timeout=T)
        page.wait_for_selector("[data-action=roll]:enabled", timeout=T)
        page.context.set_offline(True)
        page.evaluate("window.__sockets.at(-1).close(4000)")
        page.wait_for_selector("[data-testid=paused]", timeout=T)
        roll = page.locator("[data-action=roll]")
        assert roll.is_disabled()
        assert "reconnecting" in page.locator("[data-testid=paused]").inner_text()
        roll.click(force=True)  # a click on a disabled button does nothing
        shot(page, screenshots, "p08-paused-while-reconnecting")
        time.sleep(1.0)
        assert me(page)["position"] == 0
        page.context.set_offline(False)
        page.wait_for_selector("header .conn.online", timeout=20_000)
        page.wait_for_selector("[data-testid=paused]", state="detached", timeout=T)
        page.wait_for_selector("[data-action=roll]:enabled", timeout=T)
        page.click("[data-action=roll]")
        wait_until(lambda: me(page)["position"] == 7)


def finish_quick_game(page: Any) -> None:
    """Play the one-round game to its end with the buttons on screen."""
    deadline = time.monotonic() + 120
    while not game_state(page)["over"]:
        assert time.monotonic() < deadline, "the game did not end"
        if not play_step(page):
            time.sleep(0.1)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_end_screen_winner_chart_numbers_and_rematch(
    browser: Any, make_server: Any, screenshots: Path, viewport: str
) -> None:
    server = make_server(rules={"round_limit": 2}, first_player=0)
    context = PHONE if viewport == "phone" else {"viewport": {"width": 1280, "height": 860}}
    with page_for(browser, server.base, **context) as page:
        sign_in(page, "Alice")
        create_room(page, "blitz", 3)
        add_bots(page, 1, "hard")
        add_bots(page, 1, "easy")
        start_game(page)
        old_room = page.evaluate("(async () => (await import('/js/store.js')).state.roomId)()")
        finish_quick_game(page)
        page.wait_for_selector("[data-testid=winner]", timeout=T)
        game = game_state(page)["game"]
        result = game["result"]
        # Owned squares carry their current rent on the board (streets and dealerships, not mortgaged).
        renting = [sq for sq in game["squares"] if sq["owner"] is not None and not sq["mortgaged"]
                   and sq["kind"] in ("street", "dealership")]
        assert all(sq["rent"] > 0 for sq in renting)
        assert page.locator("svg.board .rent-tag").count() == len(renting)
        winner = result["placements"][0]["seat"]
        text = page.locator("[data-testid=winner]").inner_text()
        assert ("You win!" in text) == (winner == 0)
        # The chart draws one line per seat; the key numbers list every seat.
        page.wait_for_selector("[data-testid=chart] polyline.series", state="attached", timeout=T)
        assert page.locator("[data-testid=chart] polyline.series").count() == 3
        assert page.locator("[data-testid=key-numbers] tbody tr").count() == 3
        time.sleep(0.6)
        shot(page, screenshots, f"p09-end-screen-{viewport}")
        # Closed and opened again from the action bar.
        page.click(".over-modal .close")
        page.click("[data-action=results]")
        page.wait_for_selector("[data-testid=winner]", timeout=T)
        # Rematch: a new room, the same mode and seats, the same bots at the same strengths.
        page.click("[data-action=rematch]")
        page.wait_for_selector(".room-screen .seats", timeout=T)
        wait_until(lambda: page.locator(".seat.taken").count() == 3)
        state = page.evaluate("(async () => (await import('/js/store.js')).state.room)()")
        assert state["id"] != old_room and state["mode"] == "blitz" and state["seats"] == 3
        bots = sorted(p["bot"]["strength"] for p in state["players"] if p["kind"] == "bot")
        assert bots == ["easy", "hard"]
        assert [p["name"] for p in state["players"] if p["kind"] == "human"] == ["Alice"]
        shot(page, screenshots, f"p10-rematch-room-{viewport}")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_main_screens_first_visit_invite_link_and_trade_builder(
    browser: Any, server: Any, screenshots: Path, viewport: str
) -> None:
    context = PHONE if viewport == "phone" else {"viewport": {"width": 1280, "height": 860}}
    with page_for(browser, server.base, **context) as page:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        console: list[str] = []
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type == "error" else None)
        page.goto("/")
        page.wait_for_selector("input[name=nickname]", timeout=T)
        shot(page, screenshots, f"p11-start-{viewport}")
        # A first visit asks the server nothing it would refuse: no 401 in the console.
        assert not console, console
        # Sound is off until the player switches it on.
        prefs = page.evaluate("(async () => (await import('/js/store.js')).state.prefs)()")
        assert prefs == {"sound": False, "notify": False, "autopay": False, "shortcuts": True}
        assert page.locator("[data-action=sound]").get_attribute("aria-pressed") == "false"
        sign_in(page, "Lena")
        shot(page, screenshots, f"p12-lobby-{viewport}")
        create_room(page, "classic", 3, private=True)
        # The invite link: copied with one click, and it opens the room.
        page.click("[data-action=copy-link]")
        page.wait_for_selector(".toast", timeout=T)
        assert "Link copied" in page.locator(".toast").inner_text()
        link = page.evaluate("navigator.clipboard.readText()")
        assert link == page.locator("input.link").input_value() and "/#/join/" in link
        # The copied link brings a second person into the room.
        with page_for(browser, server.base, **context) as friend:
            sign_in(friend, "Mo")
            friend.goto(link)
            friend.wait_for_selector(".room-screen .seat.taken >> nth=1", timeout=T)
            wait_until(lambda: page.locator(".seat.taken").count() == 2)
            # Mo leaves again, so the game below never waits on an absent player's clock.
            friend.click("button:has-text('Leave room')")
            friend.click(".confirm button.danger")
            friend.wait_for_selector(".lobby-screen", timeout=T)
        wait_until(lambda: page.locator(".seat.taken").count() == 1)
        add_bots(page, 2, "easy")
        shot(page, screenshots, f"p13-room-{viewport}")
        start_game(page)
        page.wait_for_selector("[data-action=roll]", timeout=T)
        shot(page, screenshots, f"p14-game-{viewport}")
        # The trade builder: an empty offer says what to add, not that it is fair; boxes sit beside names.
        page.click("[data-action=trade]")
        page.wait_for_selector(".trade-modal", timeout=T)
        fairness = page.locator(".fairness")
        assert "Add cash or a company" in fairness.inner_text() and "Fair" not in fairness.inner_text()
        assert page.locator("[data-action=send_trade]").is_disabled()
        shot(page, screenshots, f"p15-trade-empty-{viewport}")
        page.click(".trade-modal .close")
        assert not console, console


def test_bus_on_a_double_offers_each_distance_once(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Speed's third die shows Bus on 1 + 1: both dice go 2, either die alone goes 1, offered once.
    server = make_server(dice=[(1, 1, 4), (1, 2, 1)], deck=deck("bank_dividend"), first_player=0,
                         rules={"third_die_from_round": 1})
    with solo_game(browser, server, "speed", 2) as page:
        click(page, "[data-action=roll]")
        page.wait_for_selector("[data-panel=bus]", timeout=T)
        buttons = page.locator("[data-panel=bus] [data-action=choose_bus]")
        assert buttons.all_inner_texts() == ["Both dice: 2 → Event", "First die: 1 → Pebble Lane Bakery"]
        page.click("[data-action=choose_bus][data-use=first]")
        wait_until(lambda: me(page)["position"] == 1)


def test_build_buttons_show_cost_and_new_rent(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice: 3 (buys Copperpot Diner), 14, 25, 36 (an event), 1 (buys Pebble Lane Bakery): the brown group.
    # The bot: 5, 10, 13, 18, 23. Everything else Alice is offered she declines, and she passes at auctions.
    alice = [(1, 2), (6, 5), (6, 5), (6, 5), (2, 3)]
    bot = [(2, 3), (2, 3), (1, 2), (2, 3), (2, 3)]
    dice = [roll for pair in zip(alice, bot, strict=True) for roll in pair] + [(1, 2), (1, 2)]
    server = make_server(dice=dice, deck=deck("bank_dividend"), first_player=0)
    with solo_game(browser, server, "classic", 2) as page:
        deadline = time.monotonic() + 120
        rolls = 0

        def owns_brown() -> bool:
            return {1, 3} <= {sq["index"] for sq in game_state(page)["game"]["squares"] if sq["owner"] == 0}

        while not (rolls == len(alice) and owns_brown() and page.locator("[data-action=roll]").count()):
            assert time.monotonic() < deadline, game_state(page)["legal"]
            offer = game_state(page)["game"]["offer"]
            if page.locator("[data-panel=offer] [data-action=buy]").count():
                page.click(f"[data-panel=offer] [data-action={'buy' if offer in (1, 3) else 'decline'}]")
            elif page.locator("[data-panel=auction] [data-action=pass]").count():
                page.click("[data-panel=auction] [data-action=pass]")
            elif rolls < len(alice) and page.locator("[data-action=roll]").count():
                before = game_state(page)["game"]["seq"]
                page.click("[data-action=roll]")
                rolls += 1
                wait_until(lambda before=before: game_state(page)["game"]["seq"] > before)
            else:
                time.sleep(0.1)
        # The whole group doubles the unbuilt rent, and the board says so in the owner's stripe.
        tags = {page.locator(f"svg.board .cell[data-square='{i}'] .rent-tag").text_content() for i in (1, 3)}
        assert tags == {"40", "80"}
        # Opening the list does not move the Roll button; each build button says what it costs and brings.
        roll = page.locator("[data-action=roll]").bounding_box()
        page.click("[data-action=manage]")
        assert page.locator("[data-action=roll]").bounding_box() == roll
        labels = {page.locator(f".manage-list [data-action=build][data-square='{i}']").inner_text() for i in (1, 3)}
        assert labels == {"Build 500 → rent 100", "Build 500 → rent 200"}
        settle(page)
        shot(page, screenshots, "p16-build-buttons")
        page.click(".manage-list [data-action=build][data-square='1']")
        wait_js(page,
            "document.querySelector(\"svg.board .cell[data-square='1'] .rent-tag\").textContent === '100'"
        )
