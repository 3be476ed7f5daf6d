"""Table manners in Chromium, on a desktop (1440×900) and a phone (390×844): reporting a chat line (and an
operator reading it with its evidence on the operator page), blocking a person from their seat, and
friends: a request by nickname, accepting it, and a one-click invitation into a room."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from webkit import create_room, page_for, shot, sign_in, wait_js, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

VIEWS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}
T = 30_000


def appoint(server: Any, page: Any) -> None:
    """Make the person signed in on ``page`` an operator (as OPOLYX_OPERATORS would)."""
    uid = wait_js(page, "async () => (await import('/js/store.js')).state.user.id")
    server.server.config.app.state.services.settings.operators = str(uid)


def say(page: Any, text: str) -> None:
    page.fill("[data-testid=chat] input", text)
    page.press("[data-testid=chat] input", "Enter")
    page.wait_for_selector(f"[data-testid=chat] li:has-text('{text}')", timeout=T)


def open_menu(page: Any, scope: str) -> None:
    page.click(f"{scope} [data-testid=person-menu] summary", timeout=T)


def two_at_a_table(browser: Any, server: Any, view: dict[str, int]) -> tuple[Any, Any, Any, Any]:
    ann_ctx = page_for(browser, server.base, viewport=view)
    bob_ctx = page_for(browser, server.base, viewport=view)
    ann, bob = ann_ctx.__enter__(), bob_ctx.__enter__()
    sign_in(ann, "Annika")
    create_room(ann, "classic", 2)
    sign_in(bob, "Bruno")
    bob.click("[data-list=waiting] [data-action=join]", timeout=T)
    bob.wait_for_selector(".room-screen .seat[data-seat='1'].taken", timeout=T)
    ann.wait_for_selector(".room-screen .seat[data-seat='1'].taken", timeout=T)
    return ann, bob, ann_ctx, bob_ctx


@pytest.mark.parametrize("device", list(VIEWS))
def test_report_a_line_then_block_its_author(browser: Any, server: Any, screenshots: Path, device: str) -> None:
    view = VIEWS[device]
    ann, bob, ann_ctx, bob_ctx = two_at_a_table(browser, server, view)
    try:
        say(ann, "you play like a potato")
        line = "[data-testid=chat] li:has-text('you play like a potato')"
        bob.wait_for_selector(line, timeout=T)
        # Bruno reports the line from the chat, with a reason.
        open_menu(bob, line)
        bob.click(f"{line} [data-action=report]")
        bob.select_option(f"{line} select[name=reason]", "abuse")
        bob.fill(f"{line} input[name=note]", "rude")
        shot(bob, screenshots, f"m1-report-{device}")
        bob.click(f"{line} [data-action=send-report]")
        bob.wait_for_selector(".toast:has-text('Thank you')", timeout=T)
        # Links are shown as plain text, never as links.
        say(ann, "see https://example.com/free-money")
        bob.wait_for_selector("[data-testid=chat] li:has-text('https://example.com/free-money')", timeout=T)
        assert bob.locator("[data-testid=chat] li a").count() == 0
        # Then blocks Annika from her seat: her next words never reach him.
        open_menu(bob, ".seat[data-seat='0']")
        bob.click(".seat[data-seat='0'] [data-action=block]")
        bob.wait_for_selector(".toast:has-text('is blocked')", timeout=T)
        say(ann, "are you still there?")
        time.sleep(1.0)
        assert bob.locator("[data-testid=chat] li:has-text('are you still there?')").count() == 0
        # An operator sees the report with the reported line, on the operator page.
        with page_for(browser, server.base, viewport=view) as op:
            sign_in(op, "Opal")
            appoint(server, op)
            op.goto("/#/operator")
            op.wait_for_selector("[data-testid=reported-line]:has-text('you play like a potato')", timeout=T)
            shot(op, screenshots, f"m2-operator-{device}")
        # Someone who is no operator gets nothing from that page.
        bob.goto("/#/operator")
        bob.wait_for_selector("[data-testid=not-found]", timeout=T)
    finally:
        ann_ctx.__exit__(None, None, None)
        bob_ctx.__exit__(None, None, None)


@pytest.mark.parametrize("device", list(VIEWS))
def test_friends_by_nickname_and_a_one_click_invitation(
    browser: Any, server: Any, screenshots: Path, device: str
) -> None:
    view = VIEWS[device]
    with page_for(browser, server.base, viewport=view) as ann, page_for(browser, server.base, viewport=view) as bob:
        sign_in(ann, "Annika")
        sign_in(bob, "Bruno")
        ann.fill("[data-testid=friends] input[name=friend]", "Bruno")
        ann.click("[data-action=add-friend-name]")
        ann.wait_for_selector("[data-list=friends] [data-person=Bruno]", timeout=T)  # waiting for an answer
        bob.reload()
        bob.click("[data-list=requests] [data-person=Annika] [data-action=accept-friend]", timeout=T)
        bob.wait_for_selector("[data-friend=Annika]", timeout=T)
        shot(bob, screenshots, f"m3-friends-{device}")
        create_room(ann, "classic", 2)
        ann.click("[data-testid=invite-friends] [data-friend=Bruno] [data-action=invite]", timeout=T)
        ann.wait_for_selector(".toast:has-text('is invited')", timeout=T)
        bob.reload()
        bob.click("[data-list=invites] [data-action=accept-invite]", timeout=T)
        bob.wait_for_selector(".room-screen .seat[data-seat='1'].taken", timeout=T)
        wait_until(lambda: "Bruno" in ann.locator(".seat[data-seat='1']").inner_text())
        shot(ann, screenshots, f"m4-invited-{device}")
