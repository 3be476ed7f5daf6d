"""The client works under the server's Content-Security-Policy, never sees its session token, and its
finished-game page checks the dice against the revealed seed (the verify button)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from webkit import add_bots, create_room, page_for, shots_at_both_sizes, sign_in, start_game

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


def test_the_verify_button_checks_against_the_commitment_kept_from_the_start(
    browser: Any, server: Any, screenshots: Path
) -> None:
    """A page whose log lost the first event used to send no commitment, and the server said "fair" for
    anything. The browser now keeps the commitment it saw at the start and the button checks against it:
    had the server promised another one, the check fails; a page that never saw the start says so."""
    with page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as page:
        sign_in(page, "Alice")
        create_room(page, "blitz", 2)
        add_bots(page, 1, "easy")
        start_game(page)
        kept = page.evaluate(
            """async () => { const s = (await import('/js/store.js')).state;
                return JSON.parse(localStorage.getItem('opolyx.commitments'))[s.roomId]; }"""
        )
        first = page.evaluate(
            """async () => (await import('/js/store.js')).state.log
                .find((h) => h.ev.type === 'seed_committed').ev.commitment"""
        )
        assert kept["commitment"] == first and kept["atStart"] is True
        page.evaluate(
            """async () => { const s = (await import('/js/store.js')).state;
                await fetch(`/api/rooms/${s.roomId}/leave`, {method: 'POST'}); }"""
        )
        page.wait_for_selector("[data-testid=placements]")
        # The log no longer holds the first event, and this browser was promised another seed.
        page.evaluate(
            """async () => { const m = await import('/js/store.js'); const s = m.state;
                s.log = s.log.filter((h) => h.ev.type !== 'seed_committed');
                const all = JSON.parse(localStorage.getItem('opolyx.commitments'));
                all[s.roomId].commitment = 'ab'.repeat(32);
                localStorage.setItem('opolyx.commitments', JSON.stringify(all)); }"""
        )
        page.click("[data-action=verify_dice]")
        result = page.wait_for_selector("[data-testid=fair-result]")
        assert "Not verified" in result.inner_text(), result.inner_text()
        # A page that never saw the start checks against the snapshot's commitment, and says so.
        page.evaluate(
            """async () => { const m = await import('/js/store.js');
                localStorage.removeItem('opolyx.commitments'); m.setUi({ fair: null }); }"""
        )
        page.click("[data-action=verify_dice]")
        page.wait_for_selector("[data-testid=fair-late]")
        assert "Fair:" in page.inner_text("[data-testid=fair-result]")
        shots_at_both_sizes(page, screenshots, "39-dice-check-late")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
