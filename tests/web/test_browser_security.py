"""The client works under the server's Content-Security-Policy, never sees its session token, and its
finished-game page checks the dice against the revealed seed (the verify button)."""

from __future__ import annotations

from typing import Any

import pytest
from webkit import add_bots, create_room, page_for, sign_in, start_game

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_client_under_csp_and_the_verify_button(browser: Any, server: Any) -> None:
    with page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as page:
        blocked: list[str] = []
        page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
        sign_in(page, "Alice")
        # The session lives in an HttpOnly cookie: page scripts cannot read it.
        assert "opolyx_session" not in page.evaluate("document.cookie")
        create_room(page, "blitz", 2)
        add_bots(page, 1, "easy")
        start_game(page)
        # Resign through the lobby route from the page itself (same origin, no body): the bot wins.
        status = page.evaluate(
            """async () => { const s = (await import('/js/store.js')).state;
                return (await fetch(`/api/rooms/${s.roomId}/leave`, {method: 'POST'})).status; }"""
        )
        assert status == 200
        page.wait_for_selector("[data-testid=placements]")
        page.click("[data-action=verify_dice]")
        result = page.wait_for_selector("[data-testid=fair-result]")
        assert "Fair:" in result.inner_text(), result.inner_text()
        assert page.evaluate(
            "async () => (await import('/js/store.js')).state.log.some((h) => h.ev.type === 'seed_revealed')"
        )
        assert not blocked, blocked
        assert not page.errors, page.errors  # type: ignore[attr-defined]
