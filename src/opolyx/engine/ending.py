"""The end of the game (docs/rules.md §16): the result, the winner and the placements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opolyx.engine.worth import net_worth

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def finish(game: GameState, reason: str) -> None:
    """End the game: survivors by net worth (ties to the earlier seat in seat order), then the eliminated,
    later eliminations first; Team mode ranks whole teams by combined net worth."""
    survivors = [s for s in game.order if not game.players[s].out]
    worth = {s: net_worth(game, s) for s in range(game.seats)}
    rank = {s: k for k, s in enumerate(game.order)}
    placements: list[dict[str, Any]] = []
    winner_team = None
    if game.rules.teams:
        teams: dict[int | None, list[int]] = {}
        for s in game.order:
            teams.setdefault(game.players[s].team, []).append(s)

        def team_key(team: int | None) -> tuple[int, int, int]:
            members = teams[team]
            alive = any(not game.players[m].out for m in members)
            last_out = max((game.eliminated.index(m) for m in members if game.players[m].out), default=-1)
            combined = sum(worth[m] for m in members if not game.players[m].out)
            first_seat = min(rank[m] for m in members)
            if alive:
                return (0, -combined, first_seat)
            return (1, -last_out, first_seat)

        ordered = sorted(teams, key=team_key)
        winner_team = ordered[0]
        for place, team in enumerate(ordered, start=1):
            for m in teams[team]:
                placements.append({"seat": m, "place": place, "team": team, "net_worth": worth[m],
                                   "out": game.players[m].out})
        winner = min((m for m in teams[winner_team] if not game.players[m].out),
                     key=lambda m: rank[m], default=teams[winner_team][0])
    else:
        ranked = sorted(survivors, key=lambda s: (-worth[s], rank[s])) + list(reversed(game.eliminated))
        for place, s in enumerate(ranked, start=1):
            placements.append({"seat": s, "place": place, "team": game.players[s].team,
                               "net_worth": worth[s], "out": game.players[s].out})
        winner = ranked[0]
    game.result = {
        "reason": reason,
        "winner": winner,
        "winning_team": winner_team,
        "round": game.round,
        "placements": placements,
    }
    game.phase = "over"
    game.auction = None
    game.debts = []
    for tid in list(game.trades):
        del game.trades[tid]
    game.emit_data("game_over", dict(game.result))
