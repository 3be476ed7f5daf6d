"""House rules and team choice in Chromium, on a desktop (1440×900) and a phone (390×844).

The creator opens the house-rule editor in the lobby, changes a few numbers and creates the room; the lobby
row and the room list every change and say the game is unrated with no XP; a refused value (made by hand
past the input's bounds) changes nothing. In a Team room people pick their side with the buttons, friends
follow a team's invite link and land on it, and the creator shuffles. Screenshots go to
artifacts/screenshots/ (names starting with "h").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from webkit import page_for, shot, sign_in, wait_js, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

DESKTOP = {"viewport": {"width": 1440, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
SIZES = {"desktop": DESKTOP, "phone": PHONE}


def room_state(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("async () => (await import('/js/store.js')).state.room"))


def set_number(page: Any, key: str, value: int) -> None:
    field = page.locator(f"[data-house-field={key}] input[type=number]")
    field.fill(str(value))
    field.dispatch_event("change")


def no_sideways_scroll(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


@pytest.mark.parametrize("size", SIZES)
def test_house_rules_editor_and_the_changes_shown(browser: Any, server: Any, screenshots: Path, size: str) -> None:
    view = SIZES[size]
    width = view["viewport"]["width"]
    with page_for(browser, server.base, **view) as creator, page_for(browser, server.base, **view) as guest:
        sign_in(creator, "Hana")
        creator.click("label.mode-option:has(input[value=classic])")
        creator.select_option("select[name=seats]", "2")
        creator.click("[data-testid=house-editor] summary")
        creator.wait_for_selector("[data-house-field=starting_cash]")
        # Halal's corner and redemption are not offered in Halal; the jackpot is in Classic.
        assert creator.locator("[data-house-field=jackpot]").count() == 1
        set_number(creator, "starting_cash", 30000)
        set_number(creator, "turn_seconds", 240)
        creator.uncheck("[data-house-field=jackpot] input[type=checkbox]")
        creator.check("[data-house-off=mortgage_expiry_rounds]")  # already off in Classic: no change
        creator.wait_for_selector("[data-testid=house-editor] [data-house-unrated]")
        assert "unrated" in creator.locator("[data-testid=house-editor]").inner_text()
        no_sideways_scroll(creator, width)
        shot(creator, screenshots, f"h1_house_editor_{size}")
        creator.click("[data-action=create]")
        creator.wait_for_selector(".room-screen [data-testid=house-changes]")
        room = room_state(creator)
        assert room["rated"] is False
        assert room["house_rules"] == {"jackpot": False, "starting_cash": 30000, "turn_seconds": 240}
        shown = creator.locator(".room-screen [data-testid=house-changes]").inner_text()
        assert "unrated and pays no XP" in shown
        for text in ("Starting cash: 15,000 → 30,000", "Turn time: 75 s → 240 s", "Jackpot on corner 20: on → off"):
            assert text in shown, shown
        assert "Mortgages expire" not in shown
        no_sideways_scroll(creator, width)
        shot(creator, screenshots, f"h2_house_room_{size}")

        # Another person sees the same list in the lobby, in their language, before joining.
        sign_in(guest, "Gus", "de")
        row = guest.locator(f".room-row[data-room='{room['id']}']")
        row.wait_for(timeout=30_000)
        text = row.inner_text()
        assert "Hausregeln" in text and "Startkapital: 15.000 → 30.000" in text, text
        no_sideways_scroll(guest, width)
        shot(guest, screenshots, f"h3_house_lobby_de_{size}")

        # The creator changes a value in the room; past its bounds it is refused and nothing changes.
        if not creator.locator(".room-house details[open]").count():  # open already when rules are set
            creator.click(".room-house [data-testid=house-editor] summary")
        set_number(creator, "round_limit", 5000)
        creator.click("[data-action=house-save]")
        creator.wait_for_selector(".toast", timeout=30_000)
        assert room_state(creator)["house_rules"] == room["house_rules"], "a refused table changes nothing"
        set_number(creator, "round_limit", 60)
        creator.click("[data-action=house-save]")
        wait_js(creator, "async () => ((await import('/js/store.js')).state.room.house_rules || {}).round_limit === 60")
        creator.wait_for_selector("[data-house-key=round_limit]")
        # At the table too, the changes stay in sight.
        creator.select_option("select[name=strength]", "easy")
        creator.click("[data-action=add-bot]")
        wait_js(creator, "document.querySelectorAll('.seat.taken').length === 2")
        creator.click("[data-action=start]")
        creator.wait_for_selector(".game-screen [data-testid=house-changes] [data-house-key=starting_cash]")
        creator.wait_for_selector("svg.board .cell")
        no_sideways_scroll(creator, width)
        shot(creator, screenshots, f"h6_house_game_{size}")
        assert not creator.errors and not guest.errors  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", SIZES)
def test_team_choice_invite_links_and_shuffle(browser: Any, server: Any, screenshots: Path, size: str) -> None:
    view = SIZES[size]
    width = view["viewport"]["width"]
    with page_for(browser, server.base, **view) as ann, page_for(browser, server.base, **view) as bob, \
            page_for(browser, server.base, **view) as cid:
        sign_in(ann, "Ann")
        ann.click("label.mode-option:has(input[value=team])")
        ann.select_option("select[name=seats]", "4")
        ann.click("[data-action=create]")
        ann.wait_for_selector("[data-testid=team-choice]")
        # Ann moves herself to team 2 with the button.
        ann.click("[data-team='1'] [data-action=team]")
        wait_js(ann, "async () => (await import('/js/store.js')).state.room.players[0].team === 1")
        link = ann.locator("[data-team-link='1']").input_value()
        assert link.endswith("/1") and "#/room/" in link
        # Bob follows the team-2 invite link and sits beside Ann; Cid picks team 1 with its button.
        sign_in(bob, "Bob")
        bob.goto(link)
        bob.wait_for_selector("[data-testid=team-choice]")
        wait_until(lambda: {p["name"]: p["team"] for p in room_state(bob)["players"]} == {"Ann": 1, "Bob": 1})
        sign_in(cid, "Cid")
        cid.goto(link[: -len("/1")])  # the room without a side
        cid.wait_for_selector("[data-team='0'] [data-action=join-team]")
        assert cid.locator("[data-team='1'] [data-action=join-team]").count() == 0, "team 2 is full"
        cid.click("[data-team='0'] [data-action=join-team]")
        wait_until(lambda: any(p["name"] == "Cid" and p["team"] == 0 for p in room_state(cid)["players"]))
        assert bob.locator("[data-action=shuffle]").count() == 0, "only the creator shuffles"
        no_sideways_scroll(bob, width)
        shot(bob, screenshots, f"h4_team_choice_{size}")
        # The creator shuffles: everyone still seated once, on alternating sides.
        ann.click("[data-action=shuffle]")
        wait_js(ann, "async () => (await import('/js/store.js')).state.room.players.length === 3")
        players = room_state(ann)["players"]
        assert sorted(p["name"] for p in players) == ["Ann", "Bob", "Cid"]
        assert all(p["team"] == p["seat"] % 2 for p in players)
        shot(ann, screenshots, f"h5_team_shuffled_{size}")
        assert not ann.errors and not bob.errors and not cid.errors  # type: ignore[attr-defined]


def test_the_rent_tax_rounds_switch_off_together(browser: Any, server: Any) -> None:
    with page_for(browser, server.base, **DESKTOP) as page:
        sign_in(page, "Rita")
        page.click("label.mode-option:has(input[value=blitz])")  # Blitz has no rent tax
        page.click("[data-testid=house-editor] summary")
        page.uncheck("[data-house-off=rent_tax_start]")
        assert not page.locator("[data-house-off=rent_tax_full]").is_checked(), "switched on together"
        page.check("[data-house-off=rent_tax_full]")
        assert page.locator("[data-house-off=rent_tax_start]").is_checked(), "switched off together"
        page.uncheck("[data-house-off=rent_tax_full]")
        page.click("[data-action=create]")
        page.wait_for_selector(".room-screen [data-testid=house-changes]")
        rules = room_state(page)["house_rules"]
        assert rules["rent_tax_start"] < rules["rent_tax_full"]
        assert not page.errors  # type: ignore[attr-defined]
