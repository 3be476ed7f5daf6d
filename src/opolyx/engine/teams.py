"""Team mode (SPEC.md section 19b): who counts as an ally. Allies pay no rent, trade without the fairness
rule and inherit each other's companies."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opolyx.engine.game import Game


def allies(game: Game, a: int, b: int) -> bool:
    """Outside Team mode a seat is allied only with itself."""
    if not game.rules.teams or a == b:
        return a == b
    return game.players[a].team is not None and game.players[a].team == game.players[b].team
