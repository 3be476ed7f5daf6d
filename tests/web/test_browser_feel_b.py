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
