"""Fair dice from the cheater's side (issue 46): each check of the commitment and of ``verify`` has a test
that a forged replay or a weakened commitment would pass if the check were gone.

The known answers pin formats that replays already handed around depend on: a change to the commitment's
text, its nonce or its hash would make every published game fail its own verification."""

from __future__ import annotations

import hashlib
from typing import Any

import opolyx.engine
from opolyx import fairness
from opolyx.rules import house

SEED = 4242424242
NONCE = "0123456789abcdef0123456789abcdef"


# --- known answers ----------------------------------------------------------------------------------------


def test_the_commitment_is_a_fixed_sha256_of_seed_and_nonce() -> None:
    c = fairness.commitment(SEED, NONCE)
    assert c == "b04771bd71f1b08e48bbb837781165e0c04e571094fac72663cbf6f11749ca0c"
    assert c == hashlib.sha256(f"opolyx-seed-v1:{SEED}:{NONCE}".encode()).hexdigest()
    assert len(c) == 64 and fairness.ALGORITHM == "sha256"


def test_the_nonce_is_in_the_commitment() -> None:
    """Without the nonce the 62-bit seed could be brute-forced from the commitment mid-game."""
    assert fairness.commitment(SEED, NONCE) != fairness.commitment(SEED, "f" * 32)
    assert fairness.commitment(SEED, NONCE) != fairness.commitment(SEED + 1, NONCE)


def test_the_nonce_is_128_bits_derived_from_the_secret_and_the_game() -> None:
    nonce = fairness.derive_nonce("test-secret", "room-1")
    assert nonce == "b9c72363c84dd181febe33cbac7cb25a"
    assert len(nonce) == 32 and int(nonce, 16) >= 0  # 32 hex digits: 128 bits
    assert fairness.derive_nonce("test-secret", "room-2") != nonce  # each game its own
    assert fairness.derive_nonce("other-secret", "room-1") != nonce  # unknowable without the secret


def test_the_start_event_publishes_the_commitment_and_never_the_seed() -> None:
    committed = fairness.committed_event(SEED, NONCE)
    assert committed == {
        "type": "seed_committed",
        "algorithm": "sha256",
        "commitment": fairness.commitment(SEED, NONCE),
    }
    revealed = fairness.revealed_event(SEED, NONCE)
    assert revealed == dict(committed, type="seed_revealed", seed=SEED, nonce=NONCE)


# --- verify: a forged replay is caught ----------------------------------------------------------------------


def honest_replay(seed: int = 11, steps: int = 40, house_rules: dict[str, Any] | None = None) -> dict[str, Any]:
    options = house.engine_options(house.check("classic", house_rules)) if house_rules else {}
    game = opolyx.engine.new_game("classic", 2, seed, **options)
    start = list(game.start_events)
    actions: list[dict[str, Any]] = []
    for seq in range(1, steps + 1):
        seat = game.actor()
        legal = [a for a in game.legal_actions(seat) if a["type"] not in ("resign", "propose_trade")]
        if game.result is not None or not legal:
            break
        actions.append({"seq": seq, "seat": seat, "action": legal[0], "events": game.apply(seat, legal[0])})
    return {
        "mode": "classic",
        "players": [{"name": "a"}, {"name": "b"}],
        "seat_info": None,
        "fairness": fairness.revealed_event(seed, NONCE),
        "start_events": start,
        "actions": actions,
        "result": game.snapshot().get("result"),
        "house_rules": house_rules,
    }


def test_an_honest_replay_verifies_and_counts_its_dice() -> None:
    replay = honest_replay()
    report = fairness.verify(replay, opolyx.engine)
    assert report.ok and report.commitment_ok and not report.mismatches
    assert report.steps == len(replay["actions"])
    dice = sum(e["type"] == "dice_rolled" for s in replay["actions"] for e in s["events"])
    cards = sum(e["type"] == "card_drawn" for s in replay["actions"] for e in [*s["events"]])
    assert report.dice == dice >= 1 and report.cards == cards
    assert report.as_json() == {
        "ok": True,
        "commitment_ok": True,
        "steps": report.steps,
        "dice": dice,
        "cards": cards,
        "mismatches": [],
    }


def test_a_house_rule_game_is_verified_on_its_own_table_and_a_forged_table_is_refused() -> None:
    """A game played with 3000 starting cash verifies only when recomputed with its house rules; a file whose
    house rules no room could have had is reported, not replayed."""
    replay = honest_replay(house_rules={"starting_cash": 3000})
    assert fairness.verify(replay, opolyx.engine).ok
    assert not fairness.verify(dict(replay, house_rules=None), opolyx.engine).ok
    forged = fairness.verify(dict(replay, house_rules={"starting_cash": -5}), opolyx.engine)
    assert not forged.ok and "house rules" in forged.mismatches[0]


def test_a_revealed_seed_that_does_not_match_the_commitment_fails() -> None:
    replay = honest_replay()
    replay["fairness"] = dict(replay["fairness"], commitment="0" * 64)
    report = fairness.verify(replay, opolyx.engine)
    assert not report.commitment_ok and not report.ok
    assert "commitment" in report.mismatches[0]


def test_a_replay_without_a_revealed_seed_fails() -> None:
    for fair in (
        None,
        {},
        {"seed": "11", "nonce": NONCE, "commitment": "x"},
        {"seed": 11, "nonce": 5, "commitment": "x"},
        {"seed": 11, "nonce": NONCE, "commitment": None},
    ):
        replay = dict(honest_replay(steps=2), fairness=fair)
        report = fairness.verify(replay, opolyx.engine)
        assert not report.ok and report.steps == 0 and "no seed" in report.mismatches[0], fair


def test_forged_start_events_are_caught() -> None:
    """The start (who goes first) is compared too, not only the actions' events."""
    replay = honest_replay()
    first = replay["start_events"][0]
    replay["start_events"] = [dict(first, first=1 - first["first"]), *replay["start_events"][1:]]
    report = fairness.verify(replay, opolyx.engine)
    assert not report.ok and report.mismatches == ["seq 0: the events the table saw differ from the seed's"]


def test_a_forged_die_is_caught_and_named_as_dice() -> None:
    replay = honest_replay()
    step = next(s for s in replay["actions"] if any(e["type"] == "dice_rolled" for e in s["events"]))
    step["events"] = [dict(e, dice=[6, 6]) if e["type"] == "dice_rolled" else e for e in step["events"]]
    report = fairness.verify(replay, opolyx.engine)
    assert report.mismatches == [f"seq {step['seq']}: the dice or cards the table saw differ from the seed's"]


def test_a_changed_non_random_event_is_caught_as_events() -> None:
    replay = honest_replay()
    step = replay["actions"][0]
    step["events"] = [*step["events"], {"type": "cash_changed", "seat": 0, "delta": 1}]
    report = fairness.verify(replay, opolyx.engine)
    assert report.mismatches == [f"seq {step['seq']}: the events the table saw differ from the seed's"]


def test_a_forged_result_is_caught() -> None:
    replay = honest_replay()
    replay["result"] = {"winner": 1, "reason": "forged"}
    report = fairness.verify(replay, opolyx.engine)
    assert not report.ok and report.mismatches == ["the recomputed result differs from the recorded one"]


def test_an_action_log_that_does_not_replay_fails_and_stops() -> None:
    replay = honest_replay()
    replay["actions"][2] = dict(replay["actions"][2], action={"type": "no_such_action"})
    report = fairness.verify(replay, opolyx.engine)
    assert not report.ok and report.steps == 2
    assert len(report.mismatches) == 1 and report.mismatches[0].startswith("seq 3: the action log does not replay")


def test_what_the_client_saw_is_checked_instead_of_the_replays_own_events() -> None:
    """``seen`` (a browser's own record) wins over the events the replay carries: a server that rewrote
    both its replay and its story cannot pass against what a player kept."""
    replay = honest_replay()
    seen = {0: replay["start_events"], **{s["seq"]: s["events"] for s in replay["actions"]}}
    forged_seen = dict(seen)
    forged_seen[1] = [*seen[1], {"type": "cash_changed", "seat": 0, "delta": 1}]
    assert fairness.verify(replay, opolyx.engine, seen=seen).ok
    report = fairness.verify(replay, opolyx.engine, seen=forged_seen)
    assert report.mismatches == ["seq 1: the events the table saw differ from the seed's"]


def test_server_notices_are_not_recomputed_but_everything_else_is() -> None:
    replay = honest_replay()
    notices = [{"type": t} for t in ("bot_took_over", "seed_committed", "seed_revealed")]
    replay["start_events"] = [*notices, *replay["start_events"]]
    replay["actions"][0]["events"] = [*replay["actions"][0]["events"], *notices]
    assert fairness.verify(replay, opolyx.engine).ok
    replay["actions"][1]["events"] = [*replay["actions"][1]["events"], {"type": "chat"}]
    assert not fairness.verify(replay, opolyx.engine).ok


def test_steps_without_recorded_events_are_still_replayed() -> None:
    replay = honest_replay()
    for s in replay["actions"]:
        s["events"] = None
    replay["start_events"] = None
    report = fairness.verify(replay, opolyx.engine)
    assert report.ok and report.steps == len(replay["actions"]) and report.dice >= 1


def test_the_report_keeps_at_most_twenty_mismatches() -> None:
    report = fairness.Report(commitment_ok=True, mismatches=[str(i) for i in range(25)])
    assert not report.ok and report.as_json()["mismatches"] == [str(i) for i in range(20)]
    assert fairness.Report(commitment_ok=True).ok and not fairness.Report().ok


def test_a_forged_card_is_caught_and_named_as_dice_or_cards() -> None:
    replay = honest_replay(seed=1, steps=60)
    step = next(s for s in replay["actions"] if any(e["type"] == "card_drawn" for e in s["events"]))
    step["events"] = [dict(e, card="forged") if e["type"] == "card_drawn" else e for e in step["events"]]
    report = fairness.verify(replay, opolyx.engine)
    assert report.mismatches == [f"seq {step['seq']}: the dice or cards the table saw differ from the seed's"]
    assert report.cards >= 1
