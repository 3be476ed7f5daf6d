"""XP for each seat of a finished game, exactly by docs/rules.md §19 (before the anti-farming guards)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from opolyx.progression.table import ProgressionRules, load_progression
from opolyx.rules import load_board


@dataclass(frozen=True, slots=True)
class XpParts:
    placement: int
    place: int
    groups: int
    group_count: int
    survival: int

    @property
    def total(self) -> int:
        return self.placement + self.groups + self.survival

    def to_json(self) -> dict[str, int]:
        return {
            "placement": self.placement,
            "place": self.place,
            "groups": self.groups,
            "group_count": self.group_count,
            "survival": self.survival,
            "total": self.total,
        }


def complete_groups(snapshot: dict[str, Any], seat: int) -> int:
    board = load_board(str(snapshot.get("board", "classic")))
    owner = {sq["index"]: sq["owner"] for sq in snapshot["squares"]}
    return sum(1 for members in board.groups.values() if all(owner.get(i) == seat for i in members))


def game_xp(
    result: dict[str, Any], snapshot: dict[str, Any], rules: ProgressionRules | None = None
) -> dict[int, XpParts]:
    """XP by seat from the engine's result and final state. A game ending before ``min_round`` pays
    nothing to anyone; Team placements already give every member the team's place."""
    rules = rules or load_progression()
    if int(result.get("round", 0)) < rules.min_round:
        return {}
    out: dict[int, XpParts] = {}
    for p in result.get("placements", []):
        seat, place = int(p["seat"]), int(p["place"])
        placement = rules.placement_xp[place - 1] if 0 < place <= len(rules.placement_xp) else 0
        groups = complete_groups(snapshot, seat)
        survival = 0 if p.get("out") else rules.survival_xp
        out[seat] = XpParts(placement, place, groups * rules.group_xp, groups, survival)
    return out
