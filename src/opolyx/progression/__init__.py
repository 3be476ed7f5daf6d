"""Progression (docs/rules.md §19): XP per finished game, levels, ranks, card drops and VIP.

Pure functions over plain data, like the engine: no database, no clock, no global random state. Every
progression rule lives here; the server gathers the facts and the store writes what these decide.

- ``table``: the numbers, loaded from rules/data/progression.json.
- ``xp``: XP by seat from a finished game's result and final state.
- ``play``: which turns of each seat its person really played, from the server's measurements.
- ``farming``: who earns nothing from a game, and why.
- ``credits``: a finished game's credits (XP or refusal per person), with the rounds seats went out in.
- ``booking``: what a credit does to an account (daily cap, levels, card drops, wins), and merging a guest.
- ``levels``, ``drops``: levels, ranks and VIP; the card drawn at a drop level, and
  the commitment to the seed of drops not yet made.
"""

from opolyx.progression.booking import Booking, Credit, Standing, Totals, merged
from opolyx.progression.credits import Person, game_credits, out_rounds
from opolyx.progression.drops import (
    CardDrop,
    draw_card,
    drop_levels_between,
    drop_nonce,
    rarity_weights,
    seed_commitment,
)
from opolyx.progression.farming import SeatFacts, refusal
from opolyx.progression.levels import is_vip, level_for, rank_for, xp_for_level
from opolyx.progression.play import Pace, SeatPlay, Step, measure
from opolyx.progression.table import ProgressionRules, load_progression
from opolyx.progression.xp import XpParts, game_xp

__all__ = [
    "Booking",
    "CardDrop",
    "Credit",
    "Pace",
    "Person",
    "ProgressionRules",
    "SeatFacts",
    "SeatPlay",
    "Standing",
    "Step",
    "Totals",
    "XpParts",
    "draw_card",
    "drop_levels_between",
    "drop_nonce",
    "game_credits",
    "game_xp",
    "is_vip",
    "level_for",
    "load_progression",
    "measure",
    "merged",
    "out_rounds",
    "rank_for",
    "rarity_weights",
    "refusal",
    "seed_commitment",
    "xp_for_level",
]
