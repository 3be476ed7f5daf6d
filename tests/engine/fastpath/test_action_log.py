"""Games that keep no log of their actions (``Game.keeps_actions``, docs/engine.md "Fast path"): the simulator
plays that way, since it reads only events and results. Such a game must play exactly as one that keeps its log,
and every other game — the server's, a replay's — must keep it."""

from __future__ import annotations

import pytest

import opolyx
from opolyx.bots import play_game
from opolyx.engine.errors import IllegalAction
from opolyx.rules import mode_names


@pytest.mark.parametrize("mode", mode_names())
def test_a_bot_game_without_its_log_is_the_same_game(mode: str) -> None:
    strengths = ["normal", "easy", "normal", "hard"]
    kept = play_game(mode, 4, 23, strengths)
    unkept = play_game(mode, 4, 23, strengths, keep_actions=False)
    assert unkept.actions == []
    assert len(kept.actions) == kept.seq == unkept.seq
    assert unkept.result == kept.result
    assert unkept.snapshot() == kept.snapshot()
    # The log kept is the whole game: replayed, it gives the same position.
    assert opolyx.Game.from_save(kept.to_save()).snapshot() == kept.snapshot()
    # Without it, a save would replay to another position: refused.
    with pytest.raises(ValueError, match="cannot be saved"):
        unkept.to_save()


def test_every_game_keeps_its_log_unless_told_otherwise() -> None:
    game = opolyx.new_game("classic", 2, 5)
    assert game.keeps_actions
    game.apply(game.actor(), {"type": "roll"})
    assert len(game.actions) == 1
    assert game.copy().keeps_actions
    # A bot game handed back keeps its log too (the server saves its tables' games).
    assert len(play_game("classic", 2, 5, ["easy", "easy"], rules={"round_limit": 3}).actions) > 0


def test_a_game_without_its_log_still_refuses_what_is_illegal() -> None:
    game = opolyx.new_game("classic", 2, 5)
    game.keeps_actions = False
    before = game.snapshot()
    with pytest.raises(IllegalAction) as refused:
        game.apply(game.actor(), {"type": "build", "square": 1})
    assert refused.value.code
    assert game.snapshot() == before and game.seq == 0
    game.apply(game.actor(), {"type": "roll"})
    assert game.seq == 1 and game.actions == []
    copy = game.copy()
    assert not copy.keeps_actions

