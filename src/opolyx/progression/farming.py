"""Who may not earn XP from a game, and why: each guard has a stable reason code shown to the player."""

from __future__ import annotations

from dataclasses import dataclass

from opolyx.progression.table import ProgressionRules, load_progression

BOT = "bot"
TOO_FEW_PEOPLE = "too_few_people"
EARLY_EXIT = "early_exit"
PAIR_FARMING = "pair_farming"
SHORT_GAME = "short_game"


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """What the server knows about one seat at the end of a game."""

    is_person: bool
    out_reason: str | None
    out_round: int | None
    people_in_game: int
    game_round: int
    private: bool
    # Earlier private games (within the window) this person shared with each other person at the table.
    pair_meetings: int = 0
    # Somebody at this private table resigned or forfeited before the pair round.
    early_leaver_at_table: bool = False


def refusal(facts: SeatFacts, rules: ProgressionRules | None = None) -> str | None:
    """The reason this seat earns nothing, or None when it earns its XP."""
    rules = rules or load_progression()
    f = rules.farming
    if not facts.is_person:
        return BOT
    if facts.game_round < rules.min_round:
        return SHORT_GAME
    if facts.people_in_game < f.min_people:
        return TOO_FEW_PEOPLE
    if (
        facts.out_reason in ("forfeit", "resigned")
        and facts.out_round is not None
        and facts.out_round < f.early_exit_round
    ):
        return EARLY_EXIT
    if facts.private and facts.early_leaver_at_table and facts.pair_meetings >= f.pair_games:
        return PAIR_FARMING
    return None
