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
