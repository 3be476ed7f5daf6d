"""Progression (SPEC.md section 19): XP per finished game, levels, ranks, card drops and VIP.

Pure functions over plain data, like the engine: no database, no clock, no global random state. The
server feeds them a finished game and the stored facts about its people, and stores what they return.
"""

from opolyx.progression.booking import Booking, Credit, Standing, Totals, merged
from opolyx.progression.drops import CardDrop, draw_card, drop_levels_between, rarity_weights
from opolyx.progression.farming import SeatFacts, refusal
from opolyx.progression.levels import is_vip, level_for, rank_for, xp_for_level
from opolyx.progression.table import ProgressionRules, load_progression
from opolyx.progression.xp import XpParts, game_xp

__all__ = [
    "Booking",
    "CardDrop",
    "Credit",
    "ProgressionRules",
    "SeatFacts",
    "Standing",
    "Totals",
    "XpParts",
    "draw_card",
    "drop_levels_between",
    "game_xp",
    "is_vip",
    "level_for",
    "load_progression",
    "merged",
    "rank_for",
    "rarity_weights",
    "refusal",
    "xp_for_level",
]
