"""Play feel, second pass (issue #43, items 8–14), in Chromium against a real server: the bus that says
where it goes, the phone's zoom that can always go back, language fixes, the chat's unread marker, the
colour a player picks, the marks for cards and financing, and the first-game tutorial.

Screenshots go to artifacts/screenshots/ (names starting with "fb"), desktop and phone; look at them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_browser_features import VIEW, click, deck, solo_game
from webkit import (
    add_bots,
    create_room,
    page_for,
    shots_at_both_sizes,
    sign_in,
    start_game,
    wait_js,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

T = 30_000
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def square_name(page: Any, i: int) -> str:
    return str(page.evaluate("async (i) => (await import('/js/names.js')).squareName(i)", i))


def test_the_bus_buttons_say_where_each_choice_lands(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice rolls 2, 5 and Bus from Start: the first die lands on 2, the second on 5, both on 7.
    server = make_server(
        dice=[(2, 5, 4), (1, 2, 1)],
        deck=deck("bank_dividend", "lottery_win", "performance_bonus"),
        first_player=0,
        rules={"third_die_from_round": 1},
    )
    with solo_game(browser, server, "speed", 2) as page:
        click(page, "[data-action=roll]")
        page.wait_for_selector("[data-panel=bus]", timeout=T)
        for use, square in (("first", 2), ("second", 5), ("sum", 7)):
            button = page.locator(f"[data-action=choose_bus][data-use={use}]")
            assert button.get_attribute("data-lands") == str(square)
            assert f"→ {square_name(page, square)}" in button.inner_text()
        # Hovering a choice marks its square on the board; leaving it clears the mark.
        page.hover("[data-action=choose_bus][data-use=second]")
        wait_js(page, "document.querySelector('.cell[data-square=\"5\"]').classList.contains('hl')")
        shots_at_both_sizes(page, screenshots, "fb10-bus-preview")
        page.mouse.move(5, 5)
        wait_js(page, "!document.querySelector('.cell[data-square=\"5\"]').classList.contains('hl')")


def two_people(browser: Any, server: Any, host_view: dict[str, Any] | None = None) -> Any:
    """Hana hosts a two-seat Classic room, Gus joins it from its address; the game is started."""
    from contextlib import ExitStack

    stack = ExitStack()
    host = stack.enter_context(page_for(browser, server.base, **(host_view or VIEW)))
    guest = stack.enter_context(page_for(browser, server.base, **VIEW))
    sign_in(host, "Hana")
    create_room(host, "classic", 2)
    sign_in(guest, "Gus")
    guest.goto(host.url)
    guest.wait_for_selector("[data-action=join]", timeout=T)
    guest.click("[data-action=join]")
    host.wait_for_selector(".seat.taken >> nth=1", timeout=T)
    return stack, host, guest


def test_the_chat_tab_marks_unread_messages_until_opened(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    stack, host, guest = two_people(browser, server)
    with stack:
        start_game(host)
        guest.wait_for_selector("svg.board .cell", timeout=T)
        assert host.locator("[data-testid=chat-unread]").count() == 0
        for text in ("hello", "good luck"):
            guest.click("[data-tab=chat]")
            guest.fill("[data-testid=chat] input", text)
            guest.click("[data-testid=chat] button[type=submit]")
        host.wait_for_selector("[data-tab=chat] [data-testid=chat-unread]", timeout=T)
        wait_js(host, "document.querySelector('[data-testid=chat-unread]').textContent.trim() === '2'")
        assert host.get_attribute("[data-testid=chat-unread]", "aria-label") == "2 unread messages"
        # The sender's own lines are never unread for the sender.
        assert guest.locator("[data-testid=chat-unread]").count() == 0
        shots_at_both_sizes(host, screenshots, "fb13-chat-unread")
        host.click("[data-tab=chat]")
        host.wait_for_selector("[data-testid=chat] li:has-text('good luck')")
        assert host.locator("[data-testid=chat-unread]").count() == 0
        # Back on the log, a read chat stays unmarked; a new line marks it again.
        host.click("[data-tab=log]")
        assert host.locator("[data-testid=chat-unread]").count() == 0
        guest.fill("[data-testid=chat] input", "your turn")
        guest.click("[data-testid=chat] button[type=submit]")
        wait_js(host, "(document.querySelector('[data-testid=chat-unread]') || {}).textContent === '1'")


def test_deleting_the_account_is_confirmed(browser: Any, server: Any, screenshots: Path) -> None:
    with page_for(browser, server.base, **VIEW) as page:
        sign_in(page, "Dora")
        page.goto(server.base + "/#/profile")
        page.click("[data-action=delete-account]")
        page.click("[data-action=confirm-delete]")
        page.wait_for_selector("[data-testid=account-deleted]", timeout=T)
        assert "has been deleted" in page.inner_text("[data-testid=account-deleted]")
        page.wait_for_selector("input[name=nickname]")
        shots_at_both_sizes(page, screenshots, "fb13-account-deleted")


def test_one_other_session_is_said_in_the_singular(browser: Any, server: Any) -> None:
    with page_for(browser, server.base, **VIEW) as page:
        page.route("**/api/sessions/others", lambda route: route.fulfill(status=200, json={"revoked": 1}))
        sign_in(page, "Olga")
        page.goto(server.base + "/#/profile")
        page.click("[data-action=sign-out-others]")
        page.wait_for_selector(".toast")
        assert page.inner_text(".toast").strip() == "1 other session signed out."


def phone_game(browser: Any, server: Any, language: str, name: str = "Alice") -> Any:
    from contextlib import ExitStack

    stack = ExitStack()
    page = stack.enter_context(page_for(browser, server.base, **PHONE))
    sign_in(page, name, language)
    create_room(page, "classic", 2)
    add_bots(page, 1)
    start_game(page)
    return stack, page


NOT_CUT = """() => {
    const sel = document.querySelector('[data-testid=language]');
    const header = document.querySelector('header.top');
    const shown = sel.getBoundingClientRect().width;
    const was = sel.style.cssText;
    sel.style.maxWidth = 'none'; sel.style.width = 'max-content'; sel.style.flex = 'none';
    const natural = sel.getBoundingClientRect().width;
    sel.style.cssText = was;
    return { shown, natural, overflow: header.scrollWidth - header.clientWidth };
}"""


@pytest.mark.parametrize("width", [390, 360])
def test_german_on_a_phone_nothing_is_cut(browser: Any, make_server: Any, screenshots: Path, width: int) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    stack, page = phone_game(browser, server, "de")
    with stack:
        page.set_viewport_size({"width": width, "height": 844})
        page.wait_for_timeout(150)
        # The language picker shows "Deutsch" whole and the header does not spill over.
        sizes = page.evaluate(NOT_CUT)
        assert sizes["shown"] >= sizes["natural"] - 0.5, sizes
        assert sizes["overflow"] <= 0, sizes
        assert page.locator("[data-testid=language] option:checked").inner_text() == "Deutsch"
        # No square's name on the board ends in "…" (Einkommensteuer breaks at its soft hyphen).
        cut = page.evaluate("""() => [...document.querySelectorAll('svg.board .sq-name')]
            .map((e) => e.textContent.replace(/\\s+/g, ' ').trim()).filter((s) => s.includes('…'))""")
        assert cut == []
        tax = page.locator(".cell[data-square='4'] .sq-name tspan").all_text_contents()
        assert [x.strip() for x in tax] == ["Einkommen-", "steuer"], tax
        # "Vergrößern" stays clear of the logo in the middle of the board.
        overlap = page.evaluate("""() => {
            const a = document.querySelector('[data-action=zoom]').getBoundingClientRect();
            const b = document.querySelector('svg.board .logo').getBoundingClientRect();
            return !(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top); }""")
        assert page.inner_text("[data-action=zoom]").strip() == "Vergrößern"
        assert not overlap
        if width == 390:
            shots_at_both_sizes(page, screenshots, "fb12-german-board")


def test_the_phone_zoom_can_always_go_back_to_the_whole_board(
    browser: Any, make_server: Any, screenshots: Path
) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    stack, page = phone_game(browser, server, "en")
    with stack:
        page.click("[data-action=zoom]")
        page.wait_for_selector(".game-board.zoomed")
        # Wherever the zoomed board is scrolled, "Whole board" is on screen, on top, without scrolling the page.
        for left, top in ((0, 0), (10_000, 0), (10_000, 10_000), (0, 10_000), (400, 300)):
            page.evaluate("([l, t]) => document.querySelector('.board-scroll').scrollTo(l, t)", [left, top])
            page.wait_for_timeout(50)
            seen = page.evaluate("""() => {
                const b = document.querySelector('[data-action=zoom]');
                const r = b.getBoundingClientRect();
                const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                return { inView: r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth,
                         onTop: b === hit || b.contains(hit), scrollY: scrollY }; }""")
            assert seen["inView"] and seen["onTop"], (left, top, seen)
        assert page.inner_text("[data-action=zoom]").strip() == "Whole board"
        shots_at_both_sizes(page, screenshots, "fb11-zoom-scrolled")
        page.click("[data-action=zoom]")
        page.wait_for_selector(".game-board:not(.zoomed)")


def test_chinese_names_the_classic_companies_in_chinese(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    stack, page = phone_game(browser, server, "zh", name="Li")
    with stack:
        names = page.evaluate("""() => Object.fromEntries([1, 5, 39].map((i) => [i,
            document.querySelector(`.cell[data-square="${i}"] .sq-name`).textContent.replace(/\\s+/g, '')]))""")
        assert names == {"1": "卵石面包房", "5": "北门汽车", "39": "午夜大厦"}
        # Translations, not a second brand name: no Latin line under them as on Fortuna's board.
        assert page.locator("svg.board .sq-sub").count() == 0
        shots_at_both_sizes(page, screenshots, "fb12-chinese-board")


def rect(page: Any, selector: str) -> dict[str, float]:
    return dict(page.evaluate(
        """(s) => { const r = document.querySelector(s).getBoundingClientRect();
            return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height }; }""",
        selector,
    ))


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    apart_x = a["right"] <= b["left"] or b["right"] <= a["left"]
    return not (apart_x or a["bottom"] <= b["top"] or b["bottom"] <= a["top"])


def test_cards_vip_and_murabaha_are_plain_to_see(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice (VIP) holds a rare card for Peony Perfumery (13, magenta band), the bot an epic one for Velvet
    # Cinema (14). Alice rolls 1 + 2 to Copperpot Diner (3) and buys it by Murabaha.
    server = make_server(
        dice=[(1, 2), (1, 3), (3, 4)], deck=deck("bank_dividend"), first_player=0,
        seats={0: {"vip": True, "cards": {"13": "rare"}}, 1: {"cards": {"14": "epic"}}},
    )
    with solo_game(browser, server, "halal", 2) as page:
        # The card marks: a disc twice the old star's 8 px on a 1280 px wide page, inside the magenta band.
        for square, seat in ((13, 0), (14, 1)):
            mark = rect(page, f".cell[data-square='{square}'] .card-mark[data-card-seat='{seat}'] circle")
            band = rect(page, f".cell[data-square='{square}'] .band")
            assert mark["w"] >= 16, mark
            assert band["left"] - 1 <= mark["left"] and mark["right"] <= band["right"] + 1, (mark, band)
        # The VIP badge beside Alice's name.
        assert page.locator(".player-panel [data-testid=vip], [data-testid=vip]").count() >= 1
        # The square's card says who holds the card and what it does.
        page.click("svg.board .cell[data-square='13']")
        page.wait_for_selector(".square-modal [data-testid=square-marks]")
        text = page.inner_text(".square-modal [data-testid=square-marks]")
        assert "Alice holds a Rare card here" in text and "rent +10 %" in text
        assert "Murabaha" in text  # unowned, Halal: what VIP allows here
        shots_at_both_sizes(page, screenshots, "fb08-card-on-square")
        page.click(".square-modal .close")
        click(page, "[data-action=roll]")
        click(page, "[data-action=buy_murabaha]")
        page.wait_for_selector("svg.board .cell[data-square='3'] .murabaha-mark", timeout=T)
        wait_js(page, """async () => { const s = (await import('/js/store.js')).state;
            return s.tokens[0] === 3 && s.game.players[0].position === 3; }""")
        page.wait_for_timeout(400)
        mark = rect(page, ".cell[data-square='3'] .murabaha-mark circle")
        token = rect(page, ".token[data-seat='0'] circle")
        assert mark["w"] >= 16 and not overlaps(mark, token), (mark, token)
        shots_at_both_sizes(page, screenshots, "fb08-murabaha-mark")


@pytest.mark.parametrize("language", ["en", "de", "zh"])
def test_a_first_game_opens_the_guide_once(browser: Any, make_server: Any, screenshots: Path, language: str) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    with page_for(browser, server.base, tutorial=True, **VIEW) as page:
        sign_in(page, "Nia", language)
        create_room(page, "classic", 2)
        assert page.locator("[data-testid=tutorial]").count() == 0  # not in the room before the start
        add_bots(page, 1)
        start_game(page)
        page.wait_for_selector("[data-testid=tutorial][data-step=turn]", timeout=T)
        texts = []
        for step in ("turn", "pay", "trade", "auction"):
            page.wait_for_selector(f"[data-testid=tutorial][data-step={step}]")
            texts.append(page.inner_text(".modal.tutorial"))
            if step == "turn":
                shots_at_both_sizes(page, screenshots, f"fb14-tutorial-{language}")
            if step != "auction":
                page.click("[data-action=tutorial-next]")
        assert all("feel." not in x for x in texts), texts
        if language == "en":
            assert "at least half" in texts[2]
        page.click("[data-action=tutorial-done]")
        page.wait_for_selector("[data-testid=tutorial]", state="detached")
        # Once seen, a reload does not bring it back; the settings menu does.
        page.reload()
        page.wait_for_selector("svg.board .cell", timeout=T)
        page.wait_for_timeout(300)
        assert page.locator("[data-testid=tutorial]").count() == 0
        page.click("details.settings summary")
        page.click("[data-action=tutorial]")
        page.wait_for_selector("[data-testid=tutorial][data-step=turn]")
        page.click("[data-action=tutorial-skip]")
        page.wait_for_selector("[data-testid=tutorial]", state="detached")
        page.click("[data-action=roll]")


def test_the_guide_can_be_skipped_at_once(browser: Any, make_server: Any) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    with page_for(browser, server.base, tutorial=True, **VIEW) as page:
        sign_in(page, "Sam")
        create_room(page, "classic", 2)
        add_bots(page, 1)
        start_game(page)
        page.click("[data-action=tutorial-skip]")
        page.wait_for_selector("[data-testid=tutorial]", state="detached")
        assert page.evaluate("localStorage.getItem('opolyx.tutorial')") == "seen"
        page.click("[data-action=roll]")


def test_a_picked_colour_is_what_the_other_player_sees(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(dice=[(1, 2), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    stack, host, guest = two_people(browser, server)
    with stack:
        maroon = "#661b00"  # SEAT_COLORS[4]
        guest.wait_for_selector("[data-testid=colour-choice]", timeout=T)
        guest.click("[data-action=colour][data-colour='4']")
        guest.wait_for_selector("[data-action=colour][data-colour='4'][aria-pressed=true]", timeout=T)
        # Hana sees Gus's seat in maroon; picking it herself is refused by the server, with a message.
        wait_js(host, """async () => { const s = (await import('/js/store.js')).state;
            const gus = s.room && s.room.players.find((p) => p.name === 'Gus');
            return gus && gus.colour === 4; }""")
        host.click("[data-action=colour][data-colour='4']")
        host.wait_for_selector(".toast.error", timeout=T)
        assert "Another player has picked that colour" in host.inner_text(".toast.error")
        shots_at_both_sizes(host, screenshots, "fb09-colour-choice")
        start_game(host)
        guest.wait_for_selector("svg.board .cell", timeout=T)
        fill = host.get_attribute(".token[data-seat='1'] circle", "fill")
        assert fill == maroon
        assert guest.get_attribute(".token[data-seat='1'] circle", "fill") == maroon
        assert host.get_attribute(".token[data-seat='0'] circle", "fill") != maroon
