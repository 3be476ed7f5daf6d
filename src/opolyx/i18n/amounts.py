"""Amounts in each reader's own format; Chinese readers see 万 (units of 10,000), docs/rules.md §18."""

from __future__ import annotations

from babel.numbers import format_decimal

LOCALES = ("en", "de", "pt", "fr", "es", "zh")


def format_amount(amount: int, locale: str = "en") -> str:
    """Format a game amount for ``locale``: ``15000`` → ``"15,000"`` (en), ``"15.000"`` (de), ``"1.5万"`` (zh).

    In Chinese, amounts of 10,000 and more are written in 万 with up to two decimals, trailing zeros
    dropped; smaller amounts keep their digits.
    """
    lang = locale.replace("-", "_").split("_")[0].lower() or "en"
    if lang not in LOCALES:
        lang = "en"
    if lang == "zh":
        sign = "-" if amount < 0 else ""
        a = abs(amount)
        if a >= 10000:
            text = f"{a / 10000:.2f}".rstrip("0").rstrip(".")
            return f"{sign}{text}万"
        return f"{sign}{a}"
    return str(format_decimal(amount, locale=lang))
