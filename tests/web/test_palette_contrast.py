"""The client's palette meets WCAG 2.2 AA contrast (1.4.3: 4.5:1 for text; 1.4.11: 3:1 for the owner's
stripe and outline against a square), computed from the CSS custom properties in styles.css and the seat
and group colours in names.js, so a colour changed in either place is checked before anyone sees it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "src" / "opolyx" / "web"
INK_DARK = "#1c2430"


def custom_properties() -> dict[str, str]:
    css = (WEB / "styles.css").read_text()
    root = re.search(r":root\s*\{(.*?)\}", css, re.S)
    assert root, "styles.css has no :root block"
    return {name: value.strip() for name, value in re.findall(r"--([a-z0-9-]+)\s*:\s*([^;]+);", root.group(1))}


def js_colours(name: str) -> list[str]:
    source = (WEB / "js" / "names.js").read_text()
    block = re.search(rf"export const {name} = ([\[{{].*?[\]}}]);", source, re.S)
    assert block, f"names.js has no {name}"
    return re.findall(r"'(#[0-9a-fA-F]{6})'", block.group(1))


def rgb(colour: str) -> tuple[float, float, float]:
    h = colour.strip().lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    assert re.fullmatch(r"[0-9a-fA-F]{6}", h), f"not a hex colour: {colour}"
    r, g, b = (int(h[k:k + 2], 16) / 255 for k in (0, 2, 4))
    return r, g, b


def luminance(colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def ink_on(colour: str) -> str:
    """names.js inkOn: white or the dark ink, whichever reads better on `colour`."""
    return "#ffffff" if contrast("#ffffff", colour) >= contrast(INK_DARK, colour) else INK_DARK


def test_the_contrast_formula() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    # The audit's finding, reproduced: white on the old orange was 3.68:1.
    assert contrast("#ffffff", "#e4572e") == pytest.approx(3.68, abs=0.01)


# (text, background) by custom property name (or a literal colour), each at least 4.5:1.
TEXT_PAIRS = [
    ("ink", "bg"), ("ink", "card"), ("ink", "board"),
    ("muted", "bg"), ("muted", "card"),
    ("on-accent", "accent"),        # the main orange buttons, the alert toast, pills
    ("accent", "card"),             # accent-coloured text on cards
    ("#ffffff", "toast"), ("#ffffff", "toast-error"),
    ("#ffffff", "brand"),           # the header
    ("#ffffff", "bad"), ("ok", "card"), ("bad", "card"),
    ("teal", "card"), ("#ffffff", "teal"),   # tabs and XP on the account screens
    ("violet", "card"),
]


def colour(props: dict[str, str], ref: str) -> str:
    return ref if ref.startswith("#") else props[ref]


@pytest.mark.parametrize(("fg", "bg"), TEXT_PAIRS)
def test_text_colours_reach_4_5_to_1(fg: str, bg: str) -> None:
    props = custom_properties()
    ratio = contrast(colour(props, fg), colour(props, bg))
    assert ratio >= 4.5, f"{fg} on {bg}: {ratio:.2f}:1"


def test_token_initials_on_every_seat_colour() -> None:
    props = custom_properties()
    seats = js_colours("SEAT_COLORS")
    assert len(seats) == 6
    # The CSS properties and the JS array are the same colours, in the same order.
    assert [props[f"seat-{k}"].lower() for k in range(6)] == [s.lower() for s in seats]
    for k, seat in enumerate(seats):
        ratio = contrast(props["seat-ink"], seat)
        assert ratio >= 4.5, f"initials on seat {k} ({seat}): {ratio:.2f}:1"


def test_owner_stripe_stands_out_from_the_square() -> None:
    props = custom_properties()
    for k, seat in enumerate(js_colours("SEAT_COLORS")):
        ratio = contrast(seat, props["board"])
        assert ratio >= 3.0, f"seat {k}'s stripe on a square: {ratio:.2f}:1"


def test_group_labels_read_on_their_colour() -> None:
    groups = js_colours("GROUP_COLORS")
    assert len(groups) == 8
    for g in groups:
        ratio = contrast(ink_on(g), g)
        assert ratio >= 4.5, f"group label on {g}: {ratio:.2f}:1"
    # The yellow group's label, 1.42:1 in white before, is dark now.
    yellow = js_colours("GROUP_COLORS")[5]
    assert ink_on(yellow) == INK_DARK
