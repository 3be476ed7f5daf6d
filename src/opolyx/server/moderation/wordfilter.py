"""The chat's word filter: words from maintained per-language lists (the ``glin-profanity`` package's
dictionaries, not a list typed in here) are masked in what a player reads, unless they switched it off.

Every list of the six languages the game speaks is applied to every line (a table mixes languages, and a
word is rude whichever language the reader set). Latin-script words match whole words only, case-folded,
so "Class" or "assistant" stay readable; Chinese has no spaces, so its entries match anywhere, except the
single characters of its list (乳 would hide 乳酪, cheese). A one-character entry that is no letter (🖕 in the
English list) is a gesture on its own and is masked wherever it stands, even stuck to a word; a single
letter never is.
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


_WORD = re.compile(r"\w+")


@functools.cache
def _lists(languages: tuple[str, ...]) -> tuple[frozenset[str], re.Pattern[str] | None, re.Pattern[str] | None]:
    """The lists of ``languages`` as a set of single words (looked up word by word: most of every list,
    at the cost of a set lookup per word said), a pattern for entries of several words or with signs
    ("a$$"), matched as whole words, and one for unspaced scripts and one-character gestures, matched anywhere."""
    single: set[str] = set()
    phrases: set[str] = set()
    unspaced: set[str] = set()
    for language in languages:
        for word in words(language):
            if language in UNSPACED:
                if len(word) > 1 and not word.isascii():
                    unspaced.add(word)
            elif len(word) == 1 and not word.isalnum() and not word.isascii():
                unspaced.add(word)
            elif len(word) > 1:
                folded = word.casefold()
                (single if _WORD.fullmatch(folded) else phrases).add(folded)
    phrase = None
    if phrases:
        alternatives = "|".join(re.escape(w) for w in sorted(phrases, key=len, reverse=True))
        phrase = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
    cjk = None
    if unspaced:
        cjk = re.compile("|".join(re.escape(w) for w in sorted(unspaced, key=len, reverse=True)))
    return frozenset(single), phrase, cjk


def _mask(m: re.Match[str]) -> str:
    return MASK * len(m.group(0))


def clean(text: str, languages: tuple[str, ...] = tuple(LISTS)) -> str:
    """``text`` with every listed word of ``languages`` masked (each character becomes ``*``)."""
    single, phrase, cjk = _lists(tuple(sorted(languages)))
    if single:
        text = _WORD.sub(lambda m: _mask(m) if m.group(0).casefold() in single else m.group(0), text)
    if phrase is not None:
        text = phrase.sub(_mask, text)
    if cjk is not None and not text.isascii():
        text = cjk.sub(_mask, text)
    return text


def languages_setting(value: str) -> tuple[str, ...]:
    """The lists an operator chose (OPOLYX_CHAT_FILTER_LANGUAGES, comma-separated; empty: none)."""
    return tuple(sorted({v.strip().lower() for v in value.split(",") if v.strip().lower() in LISTS}))
