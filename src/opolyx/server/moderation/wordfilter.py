"""The chat's word filter: words from maintained per-language lists (the ``glin-profanity`` package's
dictionaries, not a list typed in here) are masked in what a player reads, unless they switched it off.

Every list of the six languages the game speaks is applied to every line (a table mixes languages, and a
word is rude whichever language the reader set). Latin-script words match whole words only, case-folded,
so "Class" or "assistant" stay readable; Chinese has no spaces, so its entries match anywhere, except the
single characters of its list (乳 would hide 乳酪, cheese).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources

# The game's languages and the package's name for each list.
LISTS = {"en": "english", "de": "german", "pt": "portuguese", "fr": "french", "es": "spanish", "zh": "chinese"}
# Scripts without spaces between words: entries match inside longer text.
UNSPACED = frozenset({"zh"})
MASK = "*"


def words(language: str) -> list[str]:
    """The maintained list of one of the game's languages (empty for any other)."""
    name = LISTS.get(language)
    if name is None:
        return []
    data = json.loads(
        resources.files("glin_profanity.data").joinpath("dictionaries", f"{name}.json").read_text(encoding="utf-8")
    )
    raw = data.get("words", []) if isinstance(data, dict) else data
    return [w.strip() for w in raw if isinstance(w, str) and w.strip()]


@functools.cache
def _pattern(languages: tuple[str, ...]) -> re.Pattern[str] | None:
    spaced: set[str] = set()
    unspaced: set[str] = set()
    for language in languages:
        for word in words(language):
            if language in UNSPACED:
                if len(word) > 1 and not word.isascii():
                    unspaced.add(word)
            elif len(word) > 1:
                spaced.add(word.casefold())
    parts: list[str] = []
    if spaced:
        alternatives = "|".join(re.escape(w) for w in sorted(spaced, key=len, reverse=True))
        parts.append(rf"(?<!\w)(?:{alternatives})(?!\w)")
    if unspaced:
        parts.append("|".join(re.escape(w) for w in sorted(unspaced, key=len, reverse=True)))
    if not parts:
        return None
    return re.compile("|".join(parts), re.IGNORECASE)


def clean(text: str, languages: tuple[str, ...] = tuple(LISTS)) -> str:
    """``text`` with every listed word of ``languages`` masked (each character becomes ``*``)."""
    pattern = _pattern(tuple(sorted(languages)))
    if pattern is None:
        return text
    return pattern.sub(lambda m: MASK * len(m.group(0)), text)


def languages_setting(value: str) -> tuple[str, ...]:
    """The lists an operator chose (OPOLYX_CHAT_FILTER_LANGUAGES, comma-separated; empty: none)."""
    return tuple(sorted({v.strip().lower() for v in value.split(",") if v.strip().lower() in LISTS}))
