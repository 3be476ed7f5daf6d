"""The one place people's text (nicknames, chat) is normalised and judged before anything stores it.

What is refused and why: NUL and other control characters break databases (PostgreSQL refuses NUL)
and terminals; lone surrogates cannot be encoded at all; bidi overrides and invisible characters let a
name or message pretend to be something else ("Ann" vs "An\u200bn", text that reads backwards); and
names shaped like the server's bots ("Bot 1 (hard)") would let a person pass as one. Text is NFC
normalised so the same name typed on two keyboards is the same name.
"""

from __future__ import annotations

import re
import unicodedata

from pydantic_core import PydanticCustomError

from opolyx.protocol import errors as E

# Bidi embeddings/overrides/isolates and marks, zero-width and other invisible format characters.
_INVISIBLE = frozenset(
    "\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\u00ad\u034f\u115f\u1160\u3164\uffa0"
)
# Any name that starts like a bot's: "Bot", "bot 3", "BOT(hard)", "Bot_1"...
_BOTLIKE = re.compile(r"^bot(?:$|[\s\d_()\-.:#])", re.I)


def _problem(text: str, *, newlines: bool) -> str | None:
    for ch in text:
        cat = unicodedata.category(ch)
        if ch == "\n" and newlines:
            continue
        if cat == "Cc":
            return f"control character U+{ord(ch):04X} is not allowed"
        if cat == "Cs":
            return "the text contains an unpaired surrogate (not valid Unicode)"
        if ch in _INVISIBLE or cat == "Cf":
            return f"invisible or direction-changing character U+{ord(ch):04X} is not allowed"
        if cat in ("Co", "Cn"):
            return f"unassigned or private-use character U+{ord(ch):04X} is not allowed"
    return None


def clean_nickname(value: str) -> str:
    """A nickname as shown to everybody, or a ``PydanticCustomError`` whose type is the error code."""
    text = unicodedata.normalize("NFC", value).strip()
    problem = _problem(text, newlines=False)
    if problem is not None:
        raise PydanticCustomError(E.INVALID_NICKNAME, problem)
    text = " ".join(text.split())
    if not text:
        raise PydanticCustomError(E.INVALID_NICKNAME, "the nickname is empty")
    folded = unicodedata.normalize("NFKC", text).casefold()
    if _BOTLIKE.match(folded):
        raise PydanticCustomError(E.RESERVED_NICKNAME, "names starting with 'Bot' are kept for the server's bots")
    return text


def clean_chat(value: str) -> str:
    """A chat message as stored and shown, or a ``PydanticCustomError`` typed ``invalid_text``."""
    text = unicodedata.normalize("NFC", value).strip()
    problem = _problem(text, newlines=True)
    if problem is not None:
        raise PydanticCustomError(E.INVALID_TEXT, problem)
    return text


# Error types of these validators that become the error's code on the wire.
TEXT_CODES = frozenset({E.INVALID_NICKNAME, E.RESERVED_NICKNAME, E.INVALID_TEXT})


def text_code(error_type: str) -> str | None:
    """The wire code for a validation error about text, or None for other validation errors."""
    if error_type in TEXT_CODES:
        return error_type
    if error_type == "string_unicode":  # a lone surrogate, rejected before our validators run
        return E.INVALID_TEXT
    return None
