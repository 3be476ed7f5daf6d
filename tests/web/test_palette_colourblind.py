"""The seat colours stay apart for colour-blind players (issue #43 item 9): each pair is compared in CIELAB
after simulating deuteranopia, protanopia and tritanopia (Machado, Oliveira and Fernandes 2009, severity
1.0), and in normal vision. The old palette (red-orange beside orange, both "salmon") is the counter-example
the measure must reject."""

from __future__ import annotations

import itertools
import math

import pytest
from test_palette_contrast import js_colours, rgb

# Machado et al. (2009), severity 1.0, applied to linear RGB.
MACHADO = {
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
OLD = ["#c2410c", "#0f766e", "#3a5ad9", "#b45309", "#7c3aed", "#be185d"]
# ΔE*ab of about 2.3 is "just noticeable"; seat colours are told apart at a glance on a small stripe.
APART = {"normal": 25.0, "deuteranopia": 20.0, "protanopia": 20.0, "tritanopia": 8.0}


def linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def seen_as(colour: str, vision: str) -> tuple[float, float, float]:
    """Linear RGB of `colour` as a person with `vision` sees it."""
    lin = tuple(linear(c) for c in rgb(colour))
    if vision == "normal":
        return lin  # type: ignore[return-value]
    m = MACHADO[vision]
    r, g, b = (min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3))
    return r, g, b


def lab(lin: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = lin
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def closest_pair(colours: list[str], vision: str) -> tuple[float, str, str]:
    return min(
        (math.dist(lab(seen_as(a, vision)), lab(seen_as(b, vision))), a, b)
        for a, b in itertools.combinations(colours, 2)
    )


def test_the_simulation_keeps_grey_and_merges_red_with_green() -> None:
    # Greys look the same to everyone; pure red and green come close for a deuteranope.
    assert math.dist(lab(seen_as("#777777", "deuteranopia")), lab(seen_as("#777777", "normal"))) < 1.5
    normal = math.dist(lab(seen_as("#cc3333", "normal")), lab(seen_as("#558800", "normal")))
    deutan = math.dist(lab(seen_as("#cc3333", "deuteranopia")), lab(seen_as("#558800", "deuteranopia")))
    assert deutan < normal / 3


def test_the_old_palette_fails_the_measure() -> None:
    distance, a, b = closest_pair(OLD, "deuteranopia")
    assert distance < APART["deuteranopia"], (distance, a, b)


@pytest.mark.parametrize("vision", list(APART))
def test_every_two_seat_colours_stay_apart(vision: str) -> None:
    seats = js_colours("SEAT_COLORS")
    assert len(set(seats)) == 6
    distance, a, b = closest_pair(seats, vision)
    assert distance >= APART[vision], f"{a} and {b} are {distance:.1f} apart for {vision}"
