"""Every catalog has exactly the keys of en.json, nothing is left untranslated, and every event the engine
can emit has a log template."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from opolyx.i18n.amounts import format_amount
from opolyx.i18n.catalog import LANGUAGES, load_catalog, placeholders, plural_categories, texts, translate

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "src" / "opolyx" / "engine"
WEB = ROOT / "src" / "opolyx" / "web"

# Keys whose text is legitimately the same in every language (names of languages, symbols, the brand).
SAME_EVERYWHERE = re.compile(
    r"^(language\.|app\.name$|dice\.|game\.seconds$|trade\.other$|mode\.(blitz|speed|halal|fortuna)\.name$"
    r"|house\.change$)"  # "{name}: {from} → {to}": placeholders and an arrow only
)


def engine_event_types() -> set[str]:
    types: set[str] = set()
    for path in ENGINE.glob("*.py"):
        types.update(re.findall(r'\.emit(?:_data)?\(\s*"([a-z_]+)"', path.read_text()))
    return types


def test_engine_emits_events() -> None:
    assert {"dice_rolled", "rent_due", "game_over", "trade_proposed"} <= engine_event_types()


@pytest.mark.parametrize("language", LANGUAGES)
def test_same_keys_as_english(language: str) -> None:
    en = load_catalog("en")
    catalog = load_catalog(language)
    assert set(catalog) == set(en), {
        "missing": sorted(set(en) - set(catalog)),
        "extra": sorted(set(catalog) - set(en)),
    }
    empty = [k for k, v in catalog.items() if not all(text.strip() for text in texts(v))]
    assert not empty


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_translated(language: str) -> None:
    en = load_catalog("en")
    catalog = load_catalog(language)
    same = [k for k in en if catalog[k] == en[k] and not SAME_EVERYWHERE.match(k)]
    # A few words are the same in several languages (Chat, Jackpot, Murabaha, online, Team…); keep it small.
    assert len(same) <= 16, same


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_match_english(language: str) -> None:
    en = load_catalog("en")
    catalog = load_catalog(language)
    wrong = {
        k: (placeholders(en[k]), placeholders(v)) for k, v in catalog.items() if placeholders(v) != placeholders(en[k])
    }
    assert not wrong


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_plural_message_has_every_form_its_language_needs(language: str) -> None:
    """CLDR says which forms a language tells apart (German: one/other; French, Portuguese, Spanish add
    many; Chinese: other only): each counted message has exactly those, chosen by its {n}."""
    en = load_catalog("en")
    catalog = load_catalog(language)
    counted = [k for k, v in en.items() if isinstance(v, dict)]
    assert counted, "no plural messages at all"
    wrong = {
        k: sorted(catalog[k]) if isinstance(catalog[k], dict) else "plain text"
        for k in counted
        if not isinstance(catalog[k], dict) or set(catalog[k]) != plural_categories(language)
    }
    assert not wrong, (sorted(plural_categories(language)), wrong)
    assert all("n" in placeholders(catalog[k]) for k in counted)
    # Only counted messages are plural objects, in every language alike.
    assert {k for k, v in catalog.items() if isinstance(v, dict)} == set(counted)


@pytest.mark.parametrize(
    ("language", "n", "text"),
    [
        ("en", 1, "with 1 level"),
        ("en", 2, "with 2 levels"),
        ("de", 1, "mit 1 Stufe"),
        ("fr", 0, "avec 0 niveau"),
        ("fr", 1_000_000, "avec 1000000 de niveaux"),
        ("pt", 3, "com 3 níveis"),
        ("zh", 1, "1 级"),
    ],
)
def test_plural_forms_follow_cldr(language: str, n: int, text: str) -> None:
    assert translate("square.rent_level", language, n=n) == text


def test_every_engine_event_has_a_log_template() -> None:
    en = load_catalog("en")
    missing = sorted(t for t in engine_event_types() if f"log.{t}" not in en)
    assert not missing


def test_the_client_renders_every_engine_event() -> None:
    source = (WEB / "js" / "log.js").read_text()
    rendered = set(re.findall(r"^\s+([a-z_]+): \(e\) =>", source, re.M))
    missing = sorted(engine_event_types() - rendered)
    assert not missing


def test_the_story_and_the_browser_log_know_the_same_events() -> None:
    """opolyx story renders events with opolyx.i18n.narrate, the browser with log.js: one table each, the
    same events (engine events and server notices alike)."""
    from opolyx.i18n.narrate import RENDER as PYTHON

    source = (WEB / "js" / "log.js").read_text()
    browser = set(re.findall(r"^\s+([a-z_]+): \(e\) =>", source, re.M))
    python = set(PYTHON)
    assert python == browser, {"only in log.js": browser - python, "only in narrate.py": python - browser}


def test_every_literal_key_in_the_client_exists() -> None:
    en = load_catalog("en")
    keys: set[str] = set()
    for path in (WEB / "js").rglob("*.js"):
        text = path.read_text()
        keys.update(re.findall(r"\bt\('([a-z0-9_.]+)'", text))
        keys.update(re.findall(r"'((?:log|error|pay|trade|action|over)\.[a-z0-9_.]+)'", text))
    missing = sorted(k for k in keys if k not in en)
    assert not missing


def test_templated_keys_exist() -> None:
    """Keys the client builds from data: modes, decisions, reasons, cards, squares, groups."""
    en = load_catalog("en")
    import json

    data = ROOT / "src" / "opolyx" / "rules" / "data"
    modes = json.loads((data / "modes.json").read_text())["modes"]
    cards = json.loads((data / "cards.json").read_text())["cards"]
    board = json.loads((data / "board_classic.json").read_text())["squares"]
    wanted = {f"mode.{m}.{x}" for m in modes for x in ("name", "desc")}
    wanted |= {f"card.{c['id']}" for c in cards}
    for m in modes.values():
        wanted |= {f"card.{v}" for v in m.get("card_names", {}).values()}
        if "corner_20" in m:
            wanted.add(f"square.{m['corner_20']}")
    wanted |= {f"group.{s['group']}" for s in board if s.get("group")}
    wanted |= {f"square.{s['id']}" for s in board if s["kind"] in ("start", "tax", "jail", "go_to_jail")}
    wanted |= {f"decision.{d}" for d in ("roll", "jail", "buy", "bid", "pay", "jackpot", "bus", "teleport", "trade")}
    wanted |= {f"you.{d}" for d in ("roll", "jail", "buy", "bid", "pay", "jackpot", "bus", "teleport", "trade")}
    wanted |= {f"pay.reason.{r}" for r in ("rent", "tax", "card", "bail", "murabaha")}
    wanted |= {f"over.reason.{r}" for r in ("round_limit", "last_player", "last_team")}
    wanted |= {f"player.out.{r}" for r in ("bankrupt", "forfeit", "resigned")}
    wanted |= {f"log.player_out.{r}" for r in ("bankrupt", "forfeit", "resigned")}
    wanted |= {f"log.cash_received.{r}" for r in ("salary", "start_landing", "lucky_eight", "card", "jackpot")}
    wanted |= {f"log.jailed.{r}" for r in ("go_to_jail", "card", "third_doubles")}
    wanted |= {f"log.auction_passed.{r}" for r in ("pass", "timeout", "cash")}
    wanted |= {f"log.trade_lapsed.{r}" for r in ("expired", "invalid", "player_out")}
    wanted |= {f"lobby.status.{s}" for s in ("waiting", "running", "finished", "closed")}
    wanted |= {f"strength.{s}" for s in ("easy", "normal", "hard")}
    wanted |= {f"language.{lang}" for lang in LANGUAGES}
    missing = sorted(wanted - set(en))
    assert not missing


def test_translate_fills_placeholders() -> None:
    assert translate("log.auction_bid", "en", player="Ana", amount="1,200") == "Ana bids 1,200."
    assert translate("no.such.key", "de") == "no.such.key"


def test_js_amounts_mirror_python() -> None:
    """The client's formatAmount mirrors format_amount; pin the zh cases the JS special-cases."""
    js = (WEB / "js" / "i18n.js").read_text()
    assert "万" in js and "1250" in js and "6250" in js
    assert format_amount(15000, "zh") == "1.5万"
    assert format_amount(11250, "zh") == "1.12万"  # an exact binary tie: rounded to even
    assert format_amount(13750, "zh") == "1.38万"
    assert format_amount(9999, "zh") == "9999"


STATIC_IMPORT = re.compile(r"""^import[^'"]*from\s+['"](\.[^'"]+)['"]|^import\s+['"](\.[^'"]+)['"]""", re.M)


def _static_imports(module: Path) -> list[Path]:
    found = STATIC_IMPORT.findall(module.read_text())
    return [(module.parent / (a or b)).resolve() for a, b in found]


def test_the_page_preloads_every_client_module() -> None:
    """index.html lists for modulepreload exactly the modules the page's entry reaches by static import:
    without a build step that is what keeps the first load from walking the import graph one round trip at
    a time, and what is left out (the table, the account screens, the replay viewer: imported when first
    needed, lazy_screen.js) keeps the first load small (benchmarks/page_weight.py, under 150 KiB)."""
    page = (WEB / "index.html").read_text()
    listed = set(re.findall(r'<link rel="modulepreload" href="/(js/[^"]+)">', page))
    eager: set[Path] = set()
    todo = [(WEB / "js" / "main.js").resolve()]
    while todo:
        module = todo.pop()
        if module not in eager:
            eager.add(module)
            todo.extend(_static_imports(module))
    reached = {str(p.relative_to(WEB.resolve())) for p in eager}
    assert listed == reached, {"not preloaded": sorted(reached - listed), "needless": sorted(listed - reached)}
    shipped = {str(p.relative_to(WEB)) for p in (WEB / "js").rglob("*.js")}
    assert "js/screens/game.js" in shipped - reached, "the table's code loads after the lobby"
