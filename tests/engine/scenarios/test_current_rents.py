"""Game.current_rents: what landing on each owned square costs now, as the board shows it to players."""

from __future__ import annotations

from scenario_kit import make, setup

from opolyx.engine.rent import base_rent


def test_current_rents_follow_levels_groups_and_dealerships(mode: str) -> None:
    game = make(mode)
    board = game.board
    assert game.current_rents() == {}
    setup(game, 0, owns=[1])
    assert game.current_rents() == {1: board.squares[1].rents[0]}
    # The whole group doubles the unbuilt rent; a level takes the table's rent for it.
    setup(game, 0, owns=[3])
    assert game.current_rents() == {1: board.squares[1].rents[0] * 2, 3: board.squares[3].rents[0] * 2}
    setup(game, 0, levels={1: 2})
    assert game.current_rents()[1] == board.squares[1].rents[2]
    # Dealerships count the owner's dealerships; a utility (its rent follows the roll) and a mortgaged
    # square show none.
    a, b = board.dealerships[:2]
    setup(game, 1, owns=[a, b])
    rents = game.current_rents()
    assert rents[a] == rents[b] == board.dealership_rents[1]
    setup(game, 1, owns=[board.utilities[0]], mortgaged=[3])
    rents = game.current_rents()
    assert board.utilities[0] not in rents and 3 not in rents
    assert all(rents[i] == base_rent(game, i) for i in rents)
    # It changes nothing: the snapshot stays exactly as saved games and golden replays know it.
    assert "rent" not in str(game.snapshot()["squares"])
