"""Who may not earn XP from a game, and why: each guard has a stable reason code shown to the player.

The guards measure play, not head counts (docs/accounts.md, "Against farming"): a person alone with bots
earns like anyone else, but only for turns they played themselves (opolyx.progression.play), and one
person holding two seats of a table (the same account, session, address or device) is paid once at most.
"""

from __future__ import annotations

from dataclasses import dataclass

from opolyx.progression.table import ProgressionRules, load_progression

BOT = "bot"
EARLY_EXIT = "early_exit"
PAIR_FARMING = "pair_farming"
SHORT_GAME = "short_game"
# The seat's person played none of its turns (the clock or a bot did, or answers came faster than a person can).
NOT_PLAYED = "not_played"
# Another seat at the table is the same person (account, session, address or device).
SAME_PERSON = "same_person"
REASONS = (BOT, SHORT_GAME, EARLY_EXIT, SAME_PERSON, NOT_PLAYED, PAIR_FARMING)


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """What the server knows about one seat at the end of a game."""

    is_person: bool
    out_reason: str | None
    out_round: int | None
    game_round: int
    # Turns the seat's person (or, for an agent's seat, the agent) played themselves.
    played_turns: int = 0
    # Another seat of the same person sits at this table and takes this one's place (see credits.py).
    same_person: bool = False
    # Earlier games (within the window) this person shared with each other person at the table.
    pair_meetings: int = 0
    # Somebody at this table resigned or forfeited before the pair round.
    early_leaver_at_table: bool = False


def refusal(facts: SeatFacts, rules: ProgressionRules | None = None) -> str | None:
    """The reason this seat earns nothing, or None when it earns (its XP in proportion to the turns played)."""
    rules = rules or load_progression()
    f = rules.farming
    if not facts.is_person:
        return BOT
    if facts.game_round < rules.min_round:
        return SHORT_GAME
    if (
        facts.out_reason in ("forfeit", "resigned")
        and facts.out_round is not None
        and facts.out_round < f.early_exit_round
    ):
        return EARLY_EXIT
    if facts.same_person:
        return SAME_PERSON
    if facts.played_turns <= 0:
        return NOT_PLAYED
    if facts.early_leaver_at_table and facts.pair_meetings >= f.pair_games:
        return PAIR_FARMING
    return None
