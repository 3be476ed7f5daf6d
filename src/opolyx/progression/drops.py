"""Collectible card drops, drawn from a seed the server stores so any drop can be re-drawn and checked.

The draw for a level depends only on (seed, level): replaying it later gives the same company and
rarity, whatever else happened in between.

Commit now, reveal at the drop: an account's seed for the drops still to come is secret (knowing it
tells every future card, so a farmer could pick which guests to merge by their coming rare cards); the
profile shows only its commitment, ``sha256("opolyx-drop-seed-v1:<seed>:<nonce>")``. A drop reveals the
seed and nonce it was drawn from, so anyone can re-draw the card and check it against the commitment
published before; the account then draws a fresh seed for the drops after it (``Totals.seed_spent``).
The nonce is derived from the server's secret and the seed (HMAC), so a 62-bit seed cannot be found by
hashing every candidate, and it needs no storage.
"""

from __future__ import annotations

import hashlib
import hmac
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


SEED_ALGORITHM = "sha256"


def drop_nonce(secret: str, seed: int) -> str:
    """The nonce a drop seed is committed with: derived from the server's secret, so nobody without it
    can test candidate seeds against a commitment."""
    return hmac.new(secret.encode(), f"opolyx-drop-seed:{seed}".encode(), hashlib.sha256).hexdigest()[:32]


def seed_commitment(seed: int, nonce: str) -> str:
    """What the profile publishes before the drops drawn from ``seed``; revealed seed and nonce hash to it."""
    return hashlib.sha256(f"opolyx-drop-seed-v1:{seed}:{nonce}".encode()).hexdigest()
