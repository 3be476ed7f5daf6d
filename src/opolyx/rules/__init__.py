"""Rule data: the board and the mode tables of docs/rules.md §§2 and 3, loaded into frozen dataclasses.

Keeping every number in JSON files means a new mode is mostly a new table, and a reader can check a
rule against docs/rules.md without reading code.
"""

from opolyx.rules.model import (
    CARD_BONUS_PERCENT,
    COMPANY_KINDS,
    Board,
    Card,
    Rules,
    Square,
    load_board,
    load_cards,
    load_rules,
    mode_names,
)

__all__ = [
    "CARD_BONUS_PERCENT",
    "COMPANY_KINDS",
    "Board",
    "Card",
    "Rules",
    "Square",
    "load_board",
    "load_cards",
    "load_rules",
    "mode_names",
]
