"""Skill ratings (OpenSkill's Plackett–Luce model, as the bot league uses): pure maths, no storage.

A rating is a belief about how strong someone plays in one mode: ``mu`` (the estimate) and ``sigma``
(how unsure it still is). The number shown is conservative, from ``mu - 3 sigma`` (the *ordinal*), so a
newcomer starts low and climbs as the games make the estimate sure, instead of jumping on one lucky win.

- Every finished rated game updates the rating of each person at the table from the final placements
  (the engine's result): ties share a place, a Team game is rated as teams (members share the team's
  place and their ratings move together, each by their own uncertainty).
- Bots are anchors: each strength has a fixed rating that games never change, so a game against bots
  counts (beating hard bots lifts a rating more than beating easy ones) without bots drifting.
- A rating is *provisional* until PROVISIONAL_GAMES rated games: shown with a mark, and kept off the
  rating leaderboard.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

# A rating counts as settled after this many rated games in its mode (docs/accounts.md).
PROVISIONAL_GAMES = 5
# OpenSkill's defaults: everyone starts at mu 25, sigma 25/3 (ordinal 0).
START_MU = 25.0
START_SIGMA = 25.0 / 3.0
# Bots' fixed ratings (mu, sigma) by strength; a small sigma makes them firm reference points.
BOT_ANCHORS: Mapping[str, tuple[float, float]] = {
    "easy": (18.0, 1.0),
    "normal": (25.0, 1.0),
    "hard": (30.0, 1.0),
}
# The shown rating: DISPLAY_BASE at ordinal 0 (a newcomer), DISPLAY_SCALE points per ordinal point.
DISPLAY_BASE = 1000
DISPLAY_SCALE = 40


@dataclass(frozen=True)
class Skill:
    mu: float = START_MU
    sigma: float = START_SIGMA

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3.0 * sigma


def display(mu: float, sigma: float) -> int:
    """The rating people see: a whole number, never below zero."""
    return max(0, round(DISPLAY_BASE + DISPLAY_SCALE * ordinal(mu, sigma)))


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def bot_skill(strength: str) -> Skill:
    mu, sigma = BOT_ANCHORS.get(strength, BOT_ANCHORS["normal"])
    return Skill(mu, sigma)


@dataclass(frozen=True)
class Entrant:
    """One seat of a finished game: whose rating it moves (None: a bot, fixed), its current skill, its side
    (its own seat number outside Team games) and its place (1 = won)."""

    key: Hashable | None
    skill: Skill
    side: int
    place: int


def rate(entrants: Sequence[Entrant]) -> dict[Hashable, Skill]:
    """The new skill of every rated entrant after a game (bots are left out: they never change)."""
    from openskill.models import PlackettLuce

    sides: dict[int, list[Entrant]] = {}
    for e in entrants:
        sides.setdefault(e.side, []).append(e)
    if len(sides) < 2 or not any(e.key is not None for e in entrants):
        return {}
    model = PlackettLuce()
    order = sorted(sides)
    teams = [[model.rating(mu=e.skill.mu, sigma=e.skill.sigma) for e in sides[s]] for s in order]
    ranks = [float(min(e.place for e in sides[s])) for s in order]
    rated = model.rate(teams, ranks=ranks)
    out: dict[Hashable, Skill] = {}
    for s, team in zip(order, rated, strict=True):
        for e, r in zip(sides[s], team, strict=True):
            if e.key is not None:
                out[e.key] = Skill(float(r.mu), float(r.sigma))
    return out
