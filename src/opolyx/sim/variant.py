"""``opolyx simulate --rules FILE``: how a house-rule variant plays, beside its standard mode.

The file is the same table a room's creator makes (docs/rules.md "House rules"): JSON or TOML, the house
rules as top-level fields, with an optional ``mode`` (else ``--mode``). It is checked by
:mod:`opolyx.rules.house` exactly as the server checks a room's, so a table that simulates is a table that
can be played. Both runs use the same seeds and line-ups, so the difference is the rules'.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from opolyx.rules import house


class RulesFileError(ValueError):
    """The file cannot be read, is not JSON or TOML of a table, or the table is refused (``code``)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def read_rules_file(path: Path, default_mode: str) -> tuple[str, dict[str, Any]]:
    """The file's mode (or ``default_mode``) and its checked house rules (only real changes)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        raw: Any = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        raise RulesFileError(f"{path} is not valid {kind}: {exc}") from exc
    if not isinstance(raw, dict):
        raise RulesFileError(f"{path} must hold a table of house rules")
    table = dict(raw)
    mode = table.pop("mode", default_mode)
    if isinstance(table.get("house_rules"), dict) and len(table) == 1:
        table = dict(table["house_rules"])  # the shape POST /api/rooms takes
    if not isinstance(mode, str):
        raise RulesFileError("mode must be a mode's name")
    try:
        return mode, house.check(mode, table)
    except house.HouseRuleError as exc:
        raise RulesFileError(f"{exc.code}: {exc.message}", exc.code) from exc


def comparison(variant: dict[str, Any], standard: dict[str, Any]) -> dict[str, Any]:
    """The figures a table asks of a variant, for both runs: game length, first-player advantage and how
    often the round limit decides."""

    def pick(data: dict[str, Any]) -> dict[str, Any]:
        limit = data["end_reasons"].get("round_limit", {"games": 0, "share": 0.0})
        return {
            "rounds_mean": data["rounds"]["mean"],
            "rounds_median": data["rounds"]["median"],
            "rounds_p90": data["rounds"]["p90"],
            "player_turns_per_game": data["player_turns_per_game"],
            "first_player_win_rate": data["first_player"]["rate"],
            "first_player_fair_rate": data["first_player"]["fair"],
            "limit_decides_share": limit["share"],
        }

    return {"variant": pick(variant), "standard": pick(standard)}


def format_comparison(data: dict[str, Any]) -> str:
    """The variant's report, then the two runs side by side."""
    from opolyx.sim.runner import format_report

    mode = data["mode"]
    cmp = data["comparison"]
    v, s = cmp["variant"], cmp["standard"]
    changes = ", ".join(f"{c['key']} {_shown(c['default'])} -> {_shown(c['value'])}" for c in data["changes"]) or "none"
    rows = [
        ("rounds, mean", f"{v['rounds_mean']:.1f}", f"{s['rounds_mean']:.1f}"),
        ("rounds, median", f"{v['rounds_median']:.0f}", f"{s['rounds_median']:.0f}"),
        ("rounds, p90", f"{v['rounds_p90']:.0f}", f"{s['rounds_p90']:.0f}"),
        ("player-turns per game", f"{v['player_turns_per_game']:.1f}", f"{s['player_turns_per_game']:.1f}"),
        ("first player wins", f"{v['first_player_win_rate']:.1%}", f"{s['first_player_win_rate']:.1%}"),
        ("  (no advantage would be)", f"{v['first_player_fair_rate']:.1%}", f"{s['first_player_fair_rate']:.1%}"),
        ("round limit decides", f"{v['limit_decides_share']:.1%}", f"{s['limit_decides_share']:.1%}"),
    ]
    width = max(len(r[0]) for r in rows)
    lines = [
        format_report(data["variant"]),
        "",
        f"house rules on {mode}: {changes}",
        f"{'':<{width}}  {'variant':>10}  {'standard':>10}",
        *(f"{name:<{width}}  {a:>10}  {b:>10}" for name, a, b in rows),
    ]
    return "\n".join(lines)


def _shown(value: Any) -> str:
    """A rule's value as a player reads it: switches on/off, a rule switched off (null) as off."""
    if value is True:
        return "on"
    if value is False or value is None:
        return "off"
    return str(value)
