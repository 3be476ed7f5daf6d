"""What the bots remember about a game (``bots.base.memory``) is theirs, not the game's: kept in a side table
keyed by the game object, shared by every bot instance asked about that game (the server builds a fresh bot
for every decision), never in the game's state, and dropped once the game is given back or over."""

from __future__ import annotations

import pytest

from opolyx import new_game
from opolyx.bots import base, make_bot, play_game
from opolyx.bots.base import SeatMemory, forget, memory


def test_memory_is_kept_beside_the_game_not_in_it() -> None:
    game = new_game("classic", 4, 3)
    before = game.snapshot()
    memory(game, 0).last_proposal_turn = 7
    assert not hasattr(game, "bot_memory")
    assert game.snapshot() == before
    assert memory(game, 0).last_proposal_turn == 7
    forget(game)


def test_fresh_bots_share_what_was_remembered_and_copies_start_with_none() -> None:
    game = new_game("classic", 4, 5)
    mem = memory(game, 1)
    mem.proposals[(2, (), (19,))] = (1, 2000)
    actor = game.actor()
    assert actor is not None
    make_bot("normal", 1).choose(game, actor)  # a fresh bot for the decision, as the server plays
    other = new_game("classic", 4, 6)
    assert memory(other, 1) is not mem  # another game, another memory
    assert memory(game, 1) is mem  # and back
    assert memory(game.copy(), 1) == SeatMemory()
    forget(game)
    forget(other)
    assert memory(game, 1) == SeatMemory()
    forget(game)


def test_play_game_forgets_the_game_it_gives_back() -> None:
    game = play_game("blitz", 4, 12, ["normal", "hard", "normal", "easy"], rules={"round_limit": 20})
    assert game not in base._GAMES


def test_games_over_and_the_longest_unasked_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "SWEEP_FROM", 4)
    monkeypatch.setattr(base, "MAX_GAMES", 6)
    base._GAMES.clear()
    base._LAST.clear()
    games = [new_game("classic", 2, k) for k in range(4)]
    for g in games:
        memory(g, 0)
    games[1].result = {"reason": "test"}  # test only: a game that ended without its bots being told
    memory(new_game("classic", 2, 10), 0)
    assert games[1] not in base._GAMES and all(g in base._GAMES for g in games if g is not games[1])
    more = [new_game("classic", 2, 20 + k) for k in range(4)]
    for g in more:
        memory(g, 0)
    assert len(base._GAMES) <= 6
    assert games[0] not in base._GAMES  # the longest unasked went first
    assert all(g in base._GAMES for g in more)
    base._GAMES.clear()
    base._LAST.clear()
