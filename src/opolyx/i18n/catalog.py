"""Message catalogs shared by the browser client and Python (bots' story, e-mails): one JSON per language."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

LANGUAGES = ("en", "de", "pt", "fr", "es", "zh")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def load_catalog(language: str) -> dict[str, str]:
    """The catalog of ``language`` (``en`` for unknown languages)."""
    if language not in LANGUAGES:
        language = "en"
    text = resources.files("opolyx.i18n").joinpath("catalogs", f"{language}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"catalog {language} is not an object")
    return {str(k): str(v) for k, v in data.items()}


def placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def translate(key: str, language: str = "en", **params: object) -> str:
    """The message ``key`` in ``language`` with ``{name}`` placeholders filled; falls back to English, then the key."""
    text = load_catalog(language).get(key) or load_catalog("en").get(key)
    if text is None:
        return key
    return _PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), text)
