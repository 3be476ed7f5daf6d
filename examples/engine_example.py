"""A short scripted game against the public engine API (see docs/engine.md).

Fixed dice, a fixed deck and a fixed first player make every line of the output the same on every run:

    .venv/bin/python examples/engine_example.py
"""

from __future__ import annotations

from typing import Any

from opolyx import Game, IllegalAction, new_game

DECK = [
    "bank_dividend", "birthday", "advance_to_start", "advance_to_red_c", "advance_to_pink_a",
    "advance_to_dark_blue_b", "nearest_dealership", "nearest_utility", "go_back_three", "go_to_jail",
    "lottery_win", "performance_bonus", "charity_gala", "tax_audit", "building_repairs", "speeding_fine",
]

DICE = [
    (3, 3),  # Ada: doubles, 0 → 6 Skyline Books (buys it), rolls again
    (1, 2),  # Ada: 6 → 9 Harbor Optics (declines; auction)
    (4, 2),  # Bo: 0 → 6 Skyline Books, Ada's: rent
    (5, 3),  # Ada: 9 → 17 event: Bank dividend
    (6, 5),  # Bo: 6 → 17 event: Birthday, Ada pays Bo 200
    (2, 1),  # Ada: 17 → 20 the Jackpot corner
    (4,),    # the jackpot die: one value, taken from the next fixed roll
    (6, 6),  # Bo (played by the clock after a timeout): 17 → 29, doubles
    (1, 3),  # Bo again: 29 → 33 event: Advance to Start
]


def show(events: list[dict[str, Any]]) -> None:
    for event in events:
        fields = ", ".join(f"{k}={v!r}" for k, v in event.items() if k != "type")
        print(f"  {event['type']:<18} {fields}")


def act(game: Game, seat: int | None, action: dict[str, Any]) -> None:
    who = "clock" if seat is None else game.players[seat].name
    print(f"{who}: {action}")
    show(game.apply(seat, action))


def main() -> None:
    game = new_game(
        "classic",
        2,
        seed=2024,
        dice=DICE,
        deck=DECK,
        first_player=0,
        seat_info=[{"name": "Ada"}, {"name": "Bo", "bot": True}],
    )
    print("start:")
    show(game.start_events)
    print("pending:", game.pending())

    act(game, 0, {"type": "roll"})
    act(game, 0, {"type": "buy"})
    act(game, 0, {"type": "roll"})
    act(game, 0, {"type": "decline"})
    act(game, 1, {"type": "bid", "amount": 1200})
    act(game, 0, {"type": "pass"})

    act(game, 1, {"type": "roll"})
    print("pending:", game.pending())
    act(game, 1, {"type": "pay"})

    act(game, 0, {"type": "roll"})
    act(game, 1, {"type": "roll"})
    act(game, 0, {"type": "pay"})

    act(game, 0, {"type": "roll"})
    try:
        game.apply(1, {"type": "roll"})
    except IllegalAction as exc:
        print(f"Bo tries to roll out of turn: IllegalAction code={exc.code!r} ({exc})")
    act(game, 0, {"type": "jackpot_bet", "numbers": [1, 2]})

    # Bo lets the turn clock run out: the server sends the timeout, the engine plays the turn.
    print("pending:", game.pending())
    act(game, None, {"type": "timeout", "seat": 1})
    act(game, 0, {"type": "pass"})
    # Bo's auction clock runs out too; the rest of his turn (a second roll) is played automatically.
    print("pending:", game.pending())
    act(game, None, {"type": "timeout", "seat": 1})

    snap = game.snapshot()
    print(f"round {snap['round']}, phase {snap['phase']!r}, turn seat {snap['turn']}")
    for p in snap["players"]:
        print(f"  {p['name']}: cash {p['cash']}, square {p['position']}, net worth {p['net_worth']}, "
              f"missed turns {p['missed_turns']}")
    owners = {sq["index"]: sq["owner"] for sq in snap["squares"] if sq["owner"] is not None}
    print("  owners:", owners)

    saved = game.to_save()  # private: it holds the seed
    again = Game.from_save(saved)
    print("save/replay identical:", again.snapshot() == snap, f"({len(saved['actions'])} actions)")

    look = game.copy(reseed=7)  # what a bot searches: same position, different future dice and cards
    look.apply(look.turn, {"type": "roll"})
    print("the copy moved on, the game did not:", game.snapshot() == snap)


if __name__ == "__main__":
    main()
