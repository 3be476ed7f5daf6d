"""House rules: a room's own changes to its mode's table, within bounds kept as data.

A creator starts from a mode and may change the parameters listed in ``data/house_rules.json`` (starting
cash, salary, the round limit, the clocks, the rent-tax schedule, the jackpot, even building, mortgage
expiry, ...). Each parameter's bounds live in that file, so the server, the browser's editor, the
simulator and docs/rules.md read the same numbers; the pydantic model built from it is what refuses a bad
value. A refusal is a :class:`HouseRuleError` with a stable code, and nothing is changed by it.

Overrides are kept in the player's terms (``jackpot: false``); :func:`rule_changes` turns them into the
engine's :class:`~opolyx.rules.model.Rules` fields (``corner_20: "rest_area"``), which the engine records in
its setup, so replays and a restarted server rebuild exactly the same variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from opolyx.rules.model import Rules, _read_json, load_rules, mode_names

#: Stable error codes (docs/protocol.md "House rules").
UNKNOWN: Final = "house_rule_unknown"
OUT_OF_BOUNDS: Final = "house_rule_out_of_bounds"
NOT_IN_MODE: Final = "house_rule_not_in_mode"
INCONSISTENT: Final = "house_rules_inconsistent"
UNKNOWN_MODE: Final = "unknown_mode"


class HouseRuleError(ValueError):
    """A house-rule table refused: ``code`` is stable, ``field`` names the parameter at fault."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


@dataclass(frozen=True, slots=True)
class Bound:
    """One changeable parameter: its kind, its bounds, whether it can be switched off, where it applies."""

    key: str
    kind: str
    min: int | None = None
    max: int | None = None
    step: int = 1
    nullable: bool = False
    modes: tuple[str, ...] | None = None

    def applies_to(self, mode: str) -> bool:
        return self.modes is None or mode in self.modes

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "min": self.min,
            "max": self.max,
            "step": self.step,
            "nullable": self.nullable,
            "modes": list(self.modes) if self.modes is not None else None,
        }


@cache
def bounds() -> dict[str, Bound]:
    """Every changeable parameter, in the order of the data file (the editor's order)."""
    raw = _read_json("house_rules.json")["parameters"]
    return {
        key: Bound(
            key=key,
            kind=spec["kind"],
            min=spec.get("min"),
            max=spec.get("max"),
            step=spec.get("step", 1),
            nullable=bool(spec.get("nullable", False)),
            modes=tuple(spec["modes"]) if spec.get("modes") is not None else None,
        )
        for key, spec in raw.items()
    }


@cache
def house_model() -> type[BaseModel]:
    """The pydantic model of allowed overrides: every field optional, strict, within its bounds; unknown
    keys refused. Built from the data file so the bounds have one home."""
    fields: dict[str, Any] = {}
    for key, b in bounds().items():
        if b.kind == "bool":
            kind: Any = Annotated[bool, Field(strict=True)]
        else:
            kind = Annotated[int, Field(strict=True, ge=b.min, le=b.max)]
        if b.nullable:
            kind = kind | None
        fields[key] = (kind, None)
    model: type[BaseModel] = create_model(
        "HouseRules", __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


def defaults(mode: str) -> dict[str, Any]:
    """Each parameter that applies to ``mode`` at the mode's own value (what an unchanged room plays)."""
    table = _mode_table(mode)
    return {key: _value_of(table, key) for key, b in bounds().items() if b.applies_to(mode)}


def check(mode: str, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """The overrides, checked and reduced to real changes (a value equal to the mode's is dropped), or
    :class:`HouseRuleError`. An empty result means the room plays the standard mode."""
    table = _mode_table(mode)
    if not overrides:
        return {}
    if not isinstance(overrides, Mapping):
        raise HouseRuleError(OUT_OF_BOUNDS, "house rules are an object of parameter: value")
    try:
        parsed = house_model().model_validate(dict(overrides))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first.get("loc") else None
        if first["type"] == "extra_forbidden":
            raise HouseRuleError(UNKNOWN, f"{field} is not a house rule", field) from None
        b = bounds().get(field or "")
        within = _bounds_text(b) if b is not None else ""
        raise HouseRuleError(OUT_OF_BOUNDS, f"{field}: {first['msg']}{within}", field) from None
    given = {k: getattr(parsed, k) for k in parsed.model_fields_set}
    for key in sorted(given):
        if not bounds()[key].applies_to(mode):
            raise HouseRuleError(NOT_IN_MODE, f"{key} cannot be changed in {mode}", key)
    changed = {k: v for k, v in sorted(given.items()) if _value_of(table, k) != v}
    merged = table.with_changes(**rule_changes(changed))
    start, full = merged.rent_tax_start, merged.rent_tax_full
    if (start is None) != (full is None):
        raise HouseRuleError(INCONSISTENT, "rent tax needs both its start and full rounds, or neither",
                             "rent_tax_start")
    if start is not None and full is not None and start >= full:
        raise HouseRuleError(INCONSISTENT, "rent tax must start before the round it is full", "rent_tax_full")
    return changed


def rule_changes(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Checked overrides as :class:`Rules` field changes (the engine's ``rules=`` argument)."""
    out = dict(overrides)
    if "jackpot" in out:
        out["corner_20"] = "jackpot" if out.pop("jackpot") else "rest_area"
    return out


def engine_options(overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """Keyword arguments for the engine's ``new_game``/``replay`` that play a room's house rules: none at
    all for a standard room, so an engine double that knows nothing of house rules still fits."""
    return {"rules": rule_changes(overrides)} if overrides else {}


def house_table(mode: str, overrides: Mapping[str, Any] | None) -> Rules:
    """The rules ``mode`` plays with these house rules (checked)."""
    return _mode_table(mode).with_changes(**rule_changes(check(mode, overrides)))


def changes(mode: str, overrides: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Every change from the mode's defaults, in the editor's order: ``{key, default, value}``."""
    table = _mode_table(mode)
    given = dict(overrides or {})
    return [
        {"key": key, "default": _value_of(table, key), "value": given[key]}
        for key in bounds()
        if key in given and _value_of(table, key) != given[key]
    ]


def catalogue() -> dict[str, Any]:
    """The bounds and every mode's defaults, for a client's editor (GET /api/house-rules)."""
    return {
        "parameters": {k: b.to_json() for k, b in bounds().items()},
        "defaults": {m: defaults(m) for m in mode_names()},
    }


def _mode_table(mode: str) -> Rules:
    if mode not in mode_names():
        raise HouseRuleError(UNKNOWN_MODE, f"unknown mode {mode!r}")
    return load_rules(mode)


def _value_of(table: Rules, key: str) -> Any:
    if key == "jackpot":
        return table.corner_20 == "jackpot"
    return getattr(table, key)


def _bounds_text(b: Bound) -> str:
    if b.kind != "int":
        return ""
    off = " or null (off)" if b.nullable else ""
    return f" (from {b.min} to {b.max}{off})"
