"""Golden replays (ARCHITECTURE.md, habit 10): seed + actions → a known final state, byte for byte.

Each file of ``data/`` holds one game per mode, recorded by random legal play with trades, timeouts and
resignations: its save (setup and every action), the final snapshot, and SHA-256 digests of every event
and of every seat's ``legal_actions`` before each action. A refactoring or a speed-up must replay all of
them exactly; a deliberate rule change re-records them:

    .venv/bin/python tests/engine/golden/test_golden_replays.py --record
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import opolyx
from opolyx import Game
from opolyx.rules import mode_names

DATA = Path(__file__).parent / "data"
CASES = sorted(DATA.glob("*.json"))
#: Recording settings: one seed per mode, long enough to reach buildings, trades and pay steps.
SEED = 11
MAX_ACTIONS = 700


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _setup_options(save: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in save.items() if k not in ("format", "actions", "mode", "seats", "seed") and v is not None}


def _digests(save: dict[str, Any]) -> tuple[Game, str, str]:
    """Replay ``save`` step by step, hashing every event and every seat's legal actions before each action."""
    game = opolyx.new_game(save["mode"], save["seats"], save["seed"], **_setup_options(save))
    events, legal = hashlib.sha256(), hashlib.sha256()
    events.update(_canonical(game.start_events).encode())
    for seat, action in save["actions"]:
        for s in range(game.seats):
            legal.update(_canonical(game.legal_actions(s)).encode())
        events.update(_canonical(game.apply(seat, action)).encode())
    return game, events.hexdigest(), legal.hexdigest()


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_replay_gives_the_recorded_game(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    save = case["save"]
    game, events, legal = _digests(save)
    assert _canonical(game.snapshot()) == _canonical(case["snapshot"]), "final snapshot differs"
    assert events == case["events_sha256"], "events differ"
    assert legal == case["legal_sha256"], "legal actions differ"
    assert _canonical(Game.from_save(save).snapshot()) == _canonical(case["snapshot"])
    assert _canonical(game.copy(reseed=7).snapshot()) == _canonical(case["copy_snapshot"]), "copy differs"


def test_every_mode_has_a_golden_game() -> None:
    assert {p.stem for p in CASES} == set(mode_names())


# ---------------------------------------------------------------------------------------------- recording


def _record(mode: str) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).parents[1] / "property"))
    import randplay

    rng = random.Random(SEED)
    seats = 4
    info = [{"name": f"P{s}", "vip": s % 2 == 0, "cards": {"6": "rare", "39": "legendary"} if s == 1 else {}}
            for s in range(seats)]
    game = opolyx.new_game(mode, seats, SEED, seat_info=info)
    while not game.is_over and len(game.actions) < MAX_ACTIONS:
        if rng.random() < 0.97:  # mostly the deciding seat's own choice, so games get far enough
            seat = game.actor()
            assert seat is not None
            act = rng.choice([a for a in game.legal_actions(seat) if a["type"] != "resign"])
            move = (seat, randplay.concrete_trade(rng, act) if act.get("template") else act)
        else:
            move = randplay.next_move(rng, game)
        try:
            game.apply(*move)
        except opolyx.IllegalAction:
            continue
    save = game.to_save()
    replayed, events, legal = _digests(save)
    return {"save": save, "snapshot": replayed.snapshot(), "events_sha256": events, "legal_sha256": legal,
            "copy_snapshot": replayed.copy(reseed=7).snapshot()}


if __name__ == "__main__":
    if "--record" not in sys.argv:
        sys.exit(__doc__)
    DATA.mkdir(exist_ok=True)
    for mode in mode_names():
        case = _record(mode)
        (DATA / f"{mode}.json").write_text(_canonical(case) + "\n", encoding="utf-8")
        print(mode, len(case["save"]["actions"]), "actions, round", case["snapshot"]["round"])
