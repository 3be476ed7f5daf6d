"""Team mode (docs/rules.md §19b): who counts as an ally, and which seatings are allowed. Allies pay no
rent, trade without the fairness rule and inherit each other's companies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from opolyx.engine.errors import IllegalAction

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def allies(game: GameState, a: int, b: int) -> bool:
    """Outside Team mode a seat is allied only with itself."""
    if not game.rules.teams or a == b:
        return a == b
    return game.players[a].team is not None and game.players[a].team == game.players[b].team


def side_of_seat(seat: int) -> int:
    """The side a seat plays for when the table does not say: seats alternate between the two teams
    (docs/rules.md §19b), so choosing a side in a waiting room is choosing a seat of that parity."""
    return seat % 2


def check_team(team: object) -> int | None:
    """A seat's team as given: an integer, or None for none. Checked before the player record is built,
    whose typed field the compiled build would otherwise refuse with a ``TypeError``."""
    if team is not None and (not isinstance(team, int) or isinstance(team, bool)):
        raise IllegalAction("bad_teams", "a seat's team is an integer")
    return team


def check_layout(teams: Sequence[int | None]) -> None:
    """Refuse any seating but two equal sides with seats alternating (docs/rules.md §19b).

    Anything else breaks the mode: one team everywhere means nobody ever pays rent, and neighbours on the
    same side would play two turns in a row for their team.
    """
    sides = set(teams)
    alternating = all(teams[s] != teams[(s + 1) % len(teams)] for s in range(len(teams)))
    if len(sides) != 2 or not alternating:
        raise IllegalAction(
            "bad_teams", f"Team mode needs two sides with seats alternating (e.g. 0, 1, 0, 1), not {list(teams)}"
        )
