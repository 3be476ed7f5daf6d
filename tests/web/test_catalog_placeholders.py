"""Every catalog string's placeholders are filled by the code that shows it, in all six languages (issue 43:
the replay viewer once showed "Buy for {price}").

The client's calls ``t('key', { name: ..., other })`` are read from its source: for each call with a literal
key (or a template-literal key, which stands for every catalog key it can produce) the placeholders of that
key's text in every catalog, plural forms too, must be among the names the call passes. The log's renderers
(``RENDER`` in log.js: the words of the game log, the replay's captions and its event log) are checked the
same way, each event's key against the object its renderer returns.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "src" / "opolyx" / "web" / "js"
CATALOGS = ROOT / "src" / "opolyx" / "i18n" / "catalogs"
LANGUAGES = ["en", "de", "pt", "fr", "es", "zh"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# t('key' or t(`key${x}` followed by ")" or ", {" — the start of a call we can read.
# Reached only through a family lookup that never picks it: actionLabel (actions.js) labels the management
# buttons (build, sell, mortgage, redeem); the Pay button uses action.pay_to with its figures.
FAMILY_NEVER_PICKS = {("actions.js", "action.${a.type}", "action.pay")}
# Calls whose code shows the text only when no placeholder is left in it (the replay's fallback caption).
GUARDED = {("replay.js", "action.${type}")}
# describe() in log.js falls back to log.<event> with the renderer's own params: the RENDER test checks those.
BY_RENDER = {("log.js", "log.${ev.type}")}
CALL = re.compile(r"\bt\(\s*(['`])([\w.${}()\[\]'?: ]+?)\1\s*([,)])")


def catalog(lang: str) -> dict[str, Any]:
    return dict(json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8")))


def placeholders(text: Any) -> set[str]:
    texts = text.values() if isinstance(text, dict) else [text]
    return {m for s in texts for m in PLACEHOLDER.findall(str(s))}


def object_at(source: str, start: int) -> str | None:
    """The balanced ``{...}`` starting at ``start`` (after spaces), or None when the argument is no literal."""
    i = start
    while i < len(source) and source[i].isspace():
        i += 1
    if i >= len(source) or source[i] != "{":
        return None
    depth = 0
    for j in range(i, len(source)):
        c = source[j]
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
            if depth == 0:
                return source[i + 1:j]
    return None


def top_level_names(body: str) -> set[str]:
    """The property names of an object literal's body (``a: x, b, 'c': y``), nested values skipped."""
    names: set[str] = set()
    depth = 0
    part = ""
    parts: list[str] = []
    in_str: str | None = None
    for c in body:
        if in_str:
            part += c
            if c == in_str:
                in_str = None
            continue
        if c in "'\"`":
            in_str = c
        elif c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += c
    parts.append(part)
    for p in parts:
        p = p.strip()
        if not p:
            continue
        if p.startswith("..."):
            names.add("*")  # a spread: anything may come in
            continue
        m = re.match(r"""['"]?(\w+)['"]?\s*(:|$)""", p)
        if m:
            names.add(m.group(1))
    return names


def keys_for(pattern: str, keys: set[str]) -> list[str]:
    if "${" not in pattern:
        return [pattern] if pattern in keys else []
    rx = re.compile("^" + re.sub(r"\\\$\\\{.*?\\\}", r"[\\w.]+", re.escape(pattern)) + "$")
    return [k for k in keys if rx.match(k)]


def literal_keys(found: list[tuple[str, str, set[str] | None]]) -> set[str]:
    """Keys some call names literally. A template-literal key (``square.${sq.id}``) reads a family of keys
    whose members the code picks by value; a member that is also called by name is shown by that call,
    with its figures, so the family's call is not what shows it."""
    return {k for _, k, _ in found if "${" not in k}


def calls() -> list[tuple[str, str, set[str] | None]]:
    """(file, key pattern, names passed or None when the params are no literal object) for each t() call."""
    found: list[tuple[str, str, set[str] | None]] = []
    for path in sorted(WEB.rglob("*.js")):
        source = path.read_text(encoding="utf-8")
        for m in CALL.finditer(source):
            key = m.group(2)
            if m.group(3) == ")":
                found.append((path.name, key, set()))
                continue
            body = object_at(source, m.end())
            found.append((path.name, key, None if body is None else top_level_names(body)))
    return found


def render_entries() -> list[tuple[str, set[str]]]:
    """log.js's RENDER: for each event, the key pattern(s) and the names of the object it fills them with."""
    source = (WEB / "log.js").read_text(encoding="utf-8")
    block = source[source.index("const RENDER = {"):source.index("export function describe")]
    out: list[tuple[str, set[str]]] = []
    for m in re.finditer(r"^\s+(\w+): \(e\) => \[", block, re.M):
        start = m.end()
        # The entry's keys are the quoted strings before its params object (the first ", {").
        brace = block.index(", {", start) + 2
        head = block[start:brace]
        body = object_at(block, brace) or ""
        names = top_level_names(body)
        for _q, key in re.findall(r"(['`])(log\.[\w.${}]+)\1", head):
            out.append((key, names))
        out.append((f"log.{m.group(1)}?", names))  # describe()'s fallback, when the catalog has that key
    return out


def test_the_scanner_reads_calls_and_renderers() -> None:
    found = calls()
    assert len(found) > 200
    assert any(k == "action.buy" and names == {"price"} for _, k, names in found)
    renders = dict(render_entries())
    assert renders["log.company_bought"] == {"player", "square", "price"}
    assert "log.pay_step_started.${e.reason}" in renders


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_placeholder_is_filled_where_the_client_shows_it(language: str) -> None:
    texts = catalog(language)
    keys = set(texts)
    unfilled: list[str] = []
    found = calls()
    named = literal_keys(found)
    for file, pattern, names in found:
        guarded = (file, pattern) in GUARDED and names == set()
        if guarded or (file, pattern) in BY_RENDER or (names is not None and "*" in names):
            continue
        if names is None:
            # Params that are no object literal (say, the action itself) cannot be checked: that is how
            # "Buy for {price}" reached the replay. Every call names what it fills.
            unfilled.append(f"{file}: t('{pattern}', <not an object literal>)")
            continue
        for key in keys_for(pattern, keys):
            if "${" in pattern and (key in named or (file, pattern, key) in FAMILY_NEVER_PICKS):
                continue
            missing = placeholders(texts[key]) - names
            if missing:
                unfilled.append(f"{file}: t('{key}') leaves {sorted(missing)}")
    assert not unfilled, "\n".join(sorted(set(unfilled)))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_log_and_replay_caption_template_gets_all_its_placeholders(language: str) -> None:
    texts = catalog(language)
    keys = set(texts)
    unfilled: list[str] = []
    checked = 0
    for pattern, names in render_entries():
        if pattern.endswith("?"):
            matched = keys_for(pattern[:-1], keys)
            if not matched:
                continue
        else:
            matched = keys_for(pattern, keys)
        assert matched, f"{pattern} names no catalog key"
        for key in matched:
            checked += 1
            missing = placeholders(texts[key]) - names
            if missing:
                unfilled.append(f"{key} leaves {sorted(missing)}")
    assert checked > 60
    assert not unfilled, "\n".join(unfilled)
