"""Levels (50·n·(n−1), cap 50), the nine ranks, VIP, and card drops from a stored seed."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from opolyx.progression import (
    draw_card,
    drop_levels_between,
    is_vip,
    level_for,
    rank_for,
    rarity_weights,
    xp_for_level,
)
from opolyx.rules import CARD_BONUS_PERCENT, load_board


@pytest.mark.parametrize(
    ("xp", "level"), [(0, 1), (99, 1), (100, 2), (299, 2), (300, 3), (600, 4), (4500, 10), (4499, 9)]
)
def test_level_thresholds(xp: int, level: int) -> None:
    assert level_for(xp) == level


def test_level_is_capped_at_fifty() -> None:
    assert xp_for_level(50) == 50 * 50 * 49
    assert level_for(xp_for_level(50) - 1) == 49
    assert level_for(xp_for_level(50)) == 50
    assert level_for(10**9) == 50


@given(st.integers(min_value=0, max_value=200_000))
def test_level_is_the_highest_reached(xp: int) -> None:
    level = level_for(xp)
    assert xp_for_level(level) <= xp
    assert level == 50 or xp < xp_for_level(level + 1)


@pytest.mark.parametrize(
    ("level", "rank"),
    [
        (1, "novice"),
        (4, "novice"),
        (5, "apprentice"),
        (9, "apprentice"),
        (10, "trader"),
        (14, "trader"),
        (15, "broker"),
        (19, "broker"),
        (20, "investor"),
        (24, "investor"),
        (25, "tycoon"),
        (29, "tycoon"),
        (30, "magnate"),
        (39, "magnate"),
        (40, "mogul"),
        (49, "mogul"),
        (50, "legend"),
    ],
)
def test_rank_boundaries(level: int, rank: str) -> None:
    assert rank_for(level) == rank


def test_vip_from_level_ten() -> None:
    assert not is_vip(9, account=True) and is_vip(10, account=True) and is_vip(50, account=True)
    assert not is_vip(10, account=False) and not is_vip(50, account=False), "guests are never VIP"


def test_drop_levels_are_3_5_7_10_and_every_fifth_after() -> None:
    assert drop_levels_between(1, 50) == [3, 5, 7, 10, 15, 20, 25, 30, 35, 40, 45, 50]
    assert drop_levels_between(3, 4) == []
    assert drop_levels_between(2, 7) == [3, 5, 7]


@given(st.integers(min_value=0, max_value=2**62), st.integers(min_value=1, max_value=50))
def test_a_drop_is_reproducible_from_its_seed(seed: int, level: int) -> None:
    first = draw_card(seed, level)
    assert draw_card(seed, level) == first
    assert first.square in load_board("classic").companies
    assert first.rarity in CARD_BONUS_PERCENT


def test_higher_levels_draw_rarer_cards() -> None:
    order = list(CARD_BONUS_PERCENT)

    def mean_tier(level: int) -> float:
        counts = Counter(draw_card(seed, level).rarity for seed in range(3000))
        return sum(order.index(r) * n for r, n in counts.items()) / 3000

    assert mean_tier(3) < mean_tier(20) < mean_tier(45)
    low, high = dict(rarity_weights(3)), dict(rarity_weights(45))
    assert high["legendary"] > low["legendary"] and high["common"] < low["common"]
