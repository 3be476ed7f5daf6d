"""The progression numbers as a frozen record, loaded from rules/data/progression.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class Farming:
    """Guards against earning XP without playing (docs/accounts.md explains each)."""

    daily_xp_cap: int
    # At least one of a person's decisions within a turn takes this long, or the turn is not theirs.
    min_think_ms: int
    # A played turn lasts at least this long (wall time); faster play is paid in proportion.
    min_turn_seconds: int
    # A game lasts at least this long per round a seat played in it (wall time); faster pays in proportion.
    min_round_seconds: int
    # A game the last opponents ended by leaving (resign, forfeit) before this round pays in proportion.
    full_game_rounds: int
    early_exit_round: int
    pair_early_round: int
    pair_games: int
    pair_days: int


@dataclass(frozen=True, slots=True)
class ProgressionRules:
    placement_xp: tuple[int, ...]
    group_xp: int
    survival_xp: int
    min_round: int
    level_step_xp: int
    level_cap: int
    ranks: tuple[tuple[str, int], ...]
    drop_levels: tuple[int, ...]
    drop_every_from: int
    drop_every: int
    rarity_weights: tuple[tuple[int, tuple[tuple[str, int], ...]], ...]
    vip_level: int
    farming: Farming


@cache
def load_progression() -> ProgressionRules:
    raw = json.loads(resources.files("opolyx.rules").joinpath("data", "progression.json").read_text(encoding="utf-8"))
    return ProgressionRules(
        placement_xp=tuple(raw["placement_xp"]),
        group_xp=raw["group_xp"],
        survival_xp=raw["survival_xp"],
        min_round=raw["min_round"],
        level_step_xp=raw["level_step_xp"],
        level_cap=raw["level_cap"],
        ranks=tuple((r["id"], r["from"]) for r in raw["ranks"]),
        drop_levels=tuple(raw["drop_levels"]),
        drop_every_from=raw["drop_every_from"],
        drop_every=raw["drop_every"],
        rarity_weights=tuple((band["from"], tuple(band["weights"].items())) for band in raw["rarity_weights"]),
        vip_level=raw["vip_level"],
        farming=Farming(**raw["farming"]),
    )
