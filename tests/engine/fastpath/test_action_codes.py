"""The fast path (docs/engine.md, "Fast path"): actions as integer codes play exactly the game that action
dicts play, refuse what ``apply`` refuses, and a copy is independent of the game it came from."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opolyx
from opolyx import Game, IllegalAction
from opolyx.engine import codes
from opolyx.rules import mode_names

SEATS = {"team": 4}


def _play(mode: str, seed: int, by_code: bool, limit: int = 400) -> tuple[Game, list[str]]:
    """Random legal play (trades and resigning left out); the same choices whichever way they are sent."""
    rng = random.Random(seed)
    game = opolyx.new_game(mode, SEATS.get(mode, 3), seed, seat_info=[{"vip": True}] * SEATS.get(mode, 3))
    log = []
    for _ in range(limit):
        if game.is_over:
            break
        seat = game.actor()
        assert seat is not None
        legal = [a for a in game.legal_actions(seat) if a["type"] not in ("propose_trade", "resign")]
        choice = rng.randrange(len(legal))
        if by_code:
            legal_codes = [c for c in game.legal_codes(seat) if codes.KINDS[c & 31] != "resign"]
            events = game.apply_code(seat, legal_codes[choice])
        else:
            events = game.apply(seat, legal[choice])
        log.append(json.dumps(events, sort_keys=True))
    return game, log


@pytest.mark.parametrize("mode", mode_names())
def test_codes_play_the_same_game_as_action_dicts(mode: str) -> None:
    by_dict, dict_log = _play(mode, 5, by_code=False)
    by_code, code_log = _play(mode, 5, by_code=True)
    assert code_log == dict_log
    assert json.dumps(by_code.snapshot(), sort_keys=True) == json.dumps(by_dict.snapshot(), sort_keys=True)
    # The save of a game played by codes replays like any other.
    assert by_code.to_save() == by_dict.to_save()
    replayed = Game.from_save(json.loads(json.dumps(by_code.to_save())))
    assert replayed.snapshot() == by_code.snapshot()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 150), mode=st.sampled_from(mode_names()))
def test_every_listed_action_has_a_code_that_decodes_to_it(seed: int, steps: int, mode: str) -> None:
    game, _ = _play(mode, seed, by_code=True, limit=steps)
    for seat in range(game.seats):
        listed = [a for a in game.legal_actions(seat) if a["type"] != "propose_trade"]
        assert [codes.decode(c) for c in game.legal_codes(seat)] == listed


@pytest.mark.parametrize("code", [-1, 23, 31, 1 << 40])
def test_a_code_that_names_no_action_is_refused_and_changes_nothing(code: int) -> None:
    game = opolyx.new_game("classic", 2, 3)
    before = game.snapshot()
    with pytest.raises(IllegalAction) as err:
        game.apply_code(game.turn, code)
    assert err.value.code == "bad_code"
    assert game.snapshot() == before and game.to_save()["actions"] == []


def test_an_illegal_code_is_refused_like_the_action_dict() -> None:
    game = opolyx.new_game("classic", 2, 3)
    other = 1 - game.turn
    with pytest.raises(IllegalAction) as by_dict:
        game.apply(other, {"type": "roll"})
    with pytest.raises(IllegalAction) as by_code:
        game.apply_code(other, codes.encode({"type": "roll"}))
    assert by_code.value.code == by_dict.value.code == "not_your_turn"
    with pytest.raises(IllegalAction) as err:
        game.apply_code(game.turn, codes.encode({"type": "build", "square": 1}))
    assert err.value.code == "not_owner"


def test_a_copy_played_on_leaves_the_game_untouched() -> None:
    game, _ = _play("classic", 9, by_code=True, limit=120)
    before = json.dumps(game.snapshot(), sort_keys=True)
    saved = game.to_save()
    look = game.copy(reseed=1)
    rng = random.Random(2)
    for _ in range(200):
        if look.is_over:
            break
        seat = look.actor()
        assert seat is not None
        look.apply_code(seat, rng.choice([c for c in look.legal_codes(seat) if codes.KINDS[c & 31] != "resign"]))
    assert json.dumps(game.snapshot(), sort_keys=True) == before
    assert game.to_save() == saved


def test_an_action_handed_over_is_recorded_itself_and_checked_like_apply() -> None:
    """``apply_owned`` (the bot loop's built-in bots) keeps the caller's dict as the record where ``apply`` keeps
    a copy, and refuses what ``apply`` refuses, changing nothing."""
    game = opolyx.new_game("classic", 3, 7)
    seat = game.actor()
    assert seat is not None
    before = json.dumps(game.snapshot())
    for bad_seat, bad_action, code in ((seat, ["roll"], "bad_action"), (seat, {"type": "fly"}, "unknown_action"),
                                       (9, {"type": "roll"}, "bad_seat"), (seat, {"type": "buy"}, None)):
        with pytest.raises(IllegalAction) as refused:
            game.apply_owned(bad_seat, bad_action)
        assert code is None or refused.value.code == code
    assert json.dumps(game.snapshot()) == before and game.actions == []
    handed, copied = {"type": "roll"}, {"type": "roll"}
    game.apply_owned(seat, handed)
    assert game.actions[-1][1] is handed
    other = opolyx.new_game("classic", 3, 7)
    other.apply(seat, copied)
    assert other.actions[-1][1] is not copied and other.actions[-1][1] == copied
    assert json.dumps(other.snapshot()) == json.dumps(game.snapshot())
