"""Collectible card drops, drawn from a seed the server stores so any drop can be re-drawn and checked.

The draw for a level depends only on (seed, level): replaying it later gives the same company and
rarity, whatever else happened in between.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from opolyx.progression.table import ProgressionRules, load_progression
from opolyx.rules import load_board


@dataclass(frozen=True, slots=True)
class CardDrop:
    level: int
    square: int
    rarity: str


def is_drop_level(level: int, rules: ProgressionRules | None = None) -> bool:
    rules = rules or load_progression()
    if level in rules.drop_levels:
        return True
    return level > rules.drop_every_from and (level - rules.drop_every_from) % rules.drop_every == 0


def drop_levels_between(before: int, after: int, rules: ProgressionRules | None = None) -> list[int]:
    """Drop levels reached when going from level ``before`` to ``after`` (exclusive, inclusive)."""
    rules = rules or load_progression()
    return [lv for lv in range(before + 1, after + 1) if is_drop_level(lv, rules)]


def rarity_weights(level: int, rules: ProgressionRules | None = None) -> tuple[tuple[str, int], ...]:
    """The weights of the band ``level`` falls in: higher bands lean towards rarer cards."""
    rules = rules or load_progression()
    chosen = rules.rarity_weights[0][1]
    for first, weights in rules.rarity_weights:
        if level >= first:
            chosen = weights
    return chosen


def draw_card(seed: int, level: int, rules: ProgressionRules | None = None) -> CardDrop:
    rules = rules or load_progression()
    rng = random.Random(f"opolyx-card:{seed}:{level}")
    companies = load_board("classic").companies
    square = companies[rng.randrange(len(companies))]
    weights = rarity_weights(level, rules)
    rarity = rng.choices([name for name, _ in weights], weights=[w for _, w in weights])[0]
    return CardDrop(level, square, rarity)
