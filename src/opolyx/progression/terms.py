"""What a table will pay, said before the game (the waiting room shows it): XP from round 10 for the
turns a person plays themselves, at most one paid seat per person, within the daily cap; an AI agent's
seat plays for the agents' board instead. Pure: the server says who is seated and what it can tell."""

from __future__ import annotations

from opolyx.jsontypes import JSON
from opolyx.progression.table import ProgressionRules, load_progression

# Why a seat would not be paid XP at this table, as the notice says it.
AGENT_SEAT = "agent"
HOUSE_RULES = "house_rules"
SHARED_IDENTITY = "same_person"


def table_terms(
    *, agent: bool, shared: bool, house_rules: bool = False, rules: ProgressionRules | None = None
) -> JSON:
    """The notice for one viewer: ``agent`` when their seat is played by an AI agent, ``house_rules`` when
    the table plays house rules (no XP for anyone), ``shared`` when two seats of this table come from one
    address or device (only one of them could earn)."""
    rules = rules or load_progression()
    f = rules.farming
    why = HOUSE_RULES if house_rules else AGENT_SEAT if agent else None
    return {
        "pays": why is None,
        "why": why,
        "board": "agents" if agent else "people",
        "shared": shared,
        "min_round": rules.min_round,
        "min_think_ms": f.min_think_ms,
        "min_turn_seconds": f.min_turn_seconds,
        "daily_cap": f.daily_xp_cap,
    }
