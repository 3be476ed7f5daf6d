"""Levels from total XP (50·n·(n−1) to reach level n, capped), the nine ranks, and VIP (accounts only)."""

from __future__ import annotations

from opolyx.progression.table import ProgressionRules, load_progression


def xp_for_level(level: int, rules: ProgressionRules | None = None) -> int:
    """Total XP needed to reach ``level`` (level 1 needs none)."""
    rules = rules or load_progression()
    return rules.level_step_xp * level * (level - 1)


def level_for(xp: int, rules: ProgressionRules | None = None) -> int:
    rules = rules or load_progression()
    level = 1
    while level < rules.level_cap and xp >= xp_for_level(level + 1, rules):
        level += 1
    return level


def rank_for(level: int, rules: ProgressionRules | None = None) -> str:
    rules = rules or load_progression()
    rank = rules.ranks[0][0]
    for name, first in rules.ranks:
        if level >= first:
            rank = name
    return rank


def is_vip(level: int, rules: ProgressionRules | None = None, *, account: bool) -> bool:
    """VIP (docs/rules.md §19): an account (signed in with an address) at the VIP level or above. A guest is
    never VIP, whatever its level: guest XP is easy to farm, and the perk belongs to accounts."""
    rules = rules or load_progression()
    return account and level >= rules.vip_level
