"""Fair dice: a game's seed is committed to before the first roll and revealed after the last, so
anyone can recompute every die and card from the seed and the action log and compare.

The server draws the seed, publishes ``sha256("opolyx-seed-v1:<seed>:<nonce>")`` in the game's first
event (``seed_committed``) and reveals seed and nonce when the game is over (``seed_revealed``, and in
the replay). The nonce (128 bits) keeps the commitment from being brute-forced: the seed alone has 62
bits. The engine is deterministic (a game is its seed plus its ordered actions), so a replay of the
revealed seed must produce exactly the events the table saw; if the server had changed a die or the
deck order, the recomputed events would differ. This module is pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opolyx.jsontypes import JSON
from opolyx.rules import house

ALGORITHM = "sha256"
# Events whose content comes from the game's random generator; counted separately in reports.
DICE_EVENTS = frozenset({"dice_rolled"})
CARD_EVENTS = frozenset({"card_drawn"})


def commitment(seed: int, nonce: str) -> str:
    return hashlib.sha256(f"opolyx-seed-v1:{seed}:{nonce}".encode()).hexdigest()


def derive_nonce(secret: str, game_id: str) -> str:
    """The nonce of a game, derived from the server's secret so it needs no storage of its own."""
    return hmac.new(secret.encode(), f"opolyx-fair-dice:{game_id}".encode(), hashlib.sha256).hexdigest()[:32]


def committed_event(seed: int, nonce: str) -> JSON:
    return {"type": "seed_committed", "algorithm": ALGORITHM, "commitment": commitment(seed, nonce)}


def revealed_event(seed: int, nonce: str) -> JSON:
    return {
        "type": "seed_revealed",
        "algorithm": ALGORITHM,
        "commitment": commitment(seed, nonce),
        "seed": seed,
        "nonce": nonce,
    }


@dataclass
class Report:
    commitment_ok: bool = False
    steps: int = 0
    dice: int = 0
    cards: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.commitment_ok and not self.mismatches

    def as_json(self) -> JSON:
        return {
            "ok": self.ok,
            "commitment_ok": self.commitment_ok,
            "steps": self.steps,
            "dice": self.dice,
            "cards": self.cards,
            "mismatches": self.mismatches[:20],
        }


def verify(replay: Mapping[str, Any], engine: Any, *, seen: Mapping[int, Sequence[JSON]] | None = None) -> Report:
    """Recompute a finished game from its revealed seed and action log.

    ``engine`` is anything with the engine's ``new_game`` (``opolyx.engine``). Compared with what the
    table saw: ``seen`` (events by seq, e.g. what a browser kept), else the ``events`` the replay
    carries. Dice and cards are counted; any difference in any event is a mismatch.
    """
    report = Report()
    fair = replay.get("fairness") or {}
    seed, nonce, promised = fair.get("seed"), fair.get("nonce"), fair.get("commitment")
    if not isinstance(seed, int) or not isinstance(nonce, str) or not isinstance(promised, str):
        report.mismatches.append("the replay reveals no seed (unfinished game, or an old server)")
        return report
    report.commitment_ok = hmac.compare_digest(commitment(seed, nonce), promised)
    if not report.commitment_ok:
        report.mismatches.append("the revealed seed does not match the commitment published at the start")
    seat_info = replay.get("seat_info")
    house_rules = replay.get("house_rules")
    # A house-rule game is recomputed on its own table (checked again: the file may come from anywhere).
    try:
        options = house.engine_options(house.check(replay["mode"], house_rules)) if house_rules else {}
    except house.HouseRuleError as exc:
        report.mismatches.append(f"the replay's house rules are not a valid table ({exc.code}: {exc.message})")
        return report
    game = engine.new_game(replay["mode"], len(replay["players"]), seed, seat_info=seat_info, **options)
    recorded: dict[int, Sequence[JSON]] = dict(seen or {})
    if not recorded:
        for step in replay.get("actions", []):
            if isinstance(step.get("events"), list):
                recorded[int(step["seq"])] = step["events"]
        if isinstance(replay.get("start_events"), list):
            recorded[0] = replay["start_events"]
    _compare(report, 0, list(game.start_events), recorded.get(0))
    for step in replay.get("actions", []):
        seq = int(step["seq"])
        try:
            events = game.apply(step.get("seat"), step["action"])
        except Exception as exc:  # the log itself does not replay: as bad as a wrong die
            report.mismatches.append(f"seq {seq}: the action log does not replay ({exc})")
            return report
        report.steps += 1
        _compare(report, seq, events, recorded.get(seq))
    snap = game.snapshot()
    if replay.get("result") is not None and snap.get("result") != replay["result"]:
        report.mismatches.append("the recomputed result differs from the recorded one")
    return report


def _random_only(events: Sequence[JSON]) -> list[JSON]:
    return [e for e in events if e.get("type") in DICE_EVENTS | CARD_EVENTS]


def _compare(report: Report, seq: int, computed: Sequence[JSON], recorded: Sequence[JSON] | None) -> None:
    report.dice += sum(1 for e in computed if e.get("type") in DICE_EVENTS)
    report.cards += sum(1 for e in computed if e.get("type") in CARD_EVENTS)
    if recorded is None:
        return
    # Only engine events are compared: server notices (takeovers, seed events) are not recomputable.
    mine = [e for e in recorded if e.get("type") not in ("bot_took_over", "seed_committed", "seed_revealed")]
    if list(computed) != mine:
        want, got = _random_only(computed), _random_only(mine)
        what = "dice or cards" if want != got else "events"
        report.mismatches.append(f"seq {seq}: the {what} the table saw differ from the seed's")
