"""Helpers that drive the opolyx client the way a person does: through its buttons."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT = 30_000


def sign_in(page: Any, nickname: str, language: str = "en") -> None:
    page.goto("/")
    page.wait_for_selector("input[name=nickname]", timeout=DEFAULT_TIMEOUT)
    page.fill("input[name=nickname]", nickname)
    page.select_option("select[name=language]", language)
    page.click("[data-action=play]")
    page.wait_for_selector(".lobby-screen", timeout=DEFAULT_TIMEOUT)


def create_room(page: Any, mode: str, seats: int, private: bool = False) -> None:
    page.click(f"label.mode-option:has(input[value={mode}])")
    page.select_option("select[name=seats]", str(seats))
    if private:
        page.check("input[name=private]")
    page.click("[data-action=create]")
    page.wait_for_selector(".room-screen .seats", timeout=DEFAULT_TIMEOUT)


def add_bots(page: Any, n: int, strength: str = "normal") -> None:
    for _ in range(n):
        before = page.locator(".seat.taken").count()
        page.select_option("select[name=strength]", strength)
        page.click("[data-action=add-bot]")
        wait_js(page, f"document.querySelectorAll('.seat.taken').length > {before}")


def start_game(page: Any) -> None:
    page.click("[data-action=start]")
    page.wait_for_selector("svg.board .cell", timeout=DEFAULT_TIMEOUT)


def shot(page: Any, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"))


DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}


def shots_at_both_sizes(page: Any, folder: Path, name: str) -> None:
    """The screen as it stands, at desktop and phone size, for a person to look at (CI keeps them as
    artifacts); the page goes back to its own size afterwards."""
    before = page.viewport_size
    for size, suffix in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)  # let the layout settle at the new width
        shot(page, folder, f"{name}-{suffix}")
    if before:
        page.set_viewport_size(before)


def game_state(page: Any) -> dict[str, Any]:
    """What the client shows: read from its store, for assertions only (never to act)."""
    return page.evaluate(
        """async () => {
            const m = await import('/js/store.js');
            const s = m.state;
            return {over: !!(s.game && s.game.over), seat: s.you && s.you.seat, game: s.game,
                    legal: s.legal.map((a) => a.type), log: s.log.map((e) => e.ev.type)};
        }"""
    )


def visible(page: Any, selector: str) -> bool:
    loc = page.locator(selector)
    return loc.count() > 0 and loc.first.is_visible()


def click_if(page: Any, selector: str) -> bool:
    # The table moves on by itself (bots, clocks): a button may vanish between looking and clicking.
    loc = page.locator(selector)
    try:
        if loc.count() and loc.first.is_visible() and loc.first.is_enabled(timeout=500):
            loc.first.click(timeout=2000)
            return True
    except Exception:
        return False
    return False


def play_step(page: Any, *, buy: bool = True) -> bool:
    """Take one sensible decision with the buttons on screen; False when there was nothing to do."""
    if visible(page, ".modal.square-modal"):
        click_if(page, ".modal.square-modal .close")
    if visible(page, "[data-panel=pay]") and not visible(page, "[data-panel=pay] [data-action=pay]"):
        # Short of cash: raise it right there (sell levels first, then mortgage), or give up when offered.
        for sel in ("[data-panel=pay] [data-action=sell]", "[data-panel=pay] [data-action=mortgage]"):
            if click_if(page, sel):
                return True
        if click_if(page, "[data-panel=pay] button.danger"):
            return click_if(page, ".confirm button.danger")
        return False
    order = ["[data-action=pay]", "[data-action=roll]", "[data-action=jail_roll]"]
    order += ["[data-action=buy]"] if buy else []
    order += [
        "[data-action=decline]",
        "[data-action=pass]",
        "[data-action=jackpot_decline]",
        "[data-action=decline_trade]",
        "[data-action=choose_bus][data-use=sum]",
    ]
    for sel in order:
        if click_if(page, sel):
            return True
    if visible(page, "[data-panel=teleport]"):
        try:
            page.select_option("[data-panel=teleport] select", index=1, timeout=1000)
        except Exception:
            return False
        return click_if(page, "[data-action=teleport]")
    return False


def wait_until(predicate: Any, timeout: float = 30.0, step: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("condition not met in time")


def wait_js(page: Any, expression: str, timeout: float = DEFAULT_TIMEOUT / 1000) -> Any:
    """Wait until a page expression (or async function) is truthy. Polled through ``page.evaluate``,
    which runs over DevTools: ``page.wait_for_function`` compiles its predicate with ``eval`` inside the
    page, and the server's Content-Security-Policy (no 'unsafe-eval') rightly refuses that."""
    return wait_until(lambda: page.evaluate(expression), timeout)


@contextmanager
def page_for(browser: Any, base: str, tutorial: bool = False, **context: Any) -> Iterator[Any]:
    ctx = browser.new_context(base_url=base, **context)
    if not tutorial:
        # The first-game guide opens once per browser; tests about something else start as if it was seen.
        ctx.add_init_script("try { localStorage.setItem('opolyx.tutorial', 'seen'); } catch (e) {}")
    # Generous waits: CI runs the browser beside the server tests on two cores. A wait ends as soon as
    # its condition holds, so this only changes how long a real failure takes to report.
    ctx.set_default_timeout(30_000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        ctx.close()
    assert not errors, errors
