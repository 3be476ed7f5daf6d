"""The client's rarer features, each played through its buttons in Chromium against a real server.

Every game here is scripted: the server runs the real engine wrapped by tests/rigged_engine.py with fixed
dice, a fixed deck, a fixed first player (the person, seat 0) and seat tweaks, so each scene (the jackpot,
jail, Speed's dice, Halal's Murabaha, Fortuna's gods...) comes up at once. Bots play instantly. Screenshots
go to artifacts/screenshots/ (names starting with "f").
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from webkit import add_bots, create_room, game_state, page_for, shot, sign_in, start_game, wait_js, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CARDS = [
    "advance_to_start", "advance_to_red_c", "advance_to_pink_a", "advance_to_dark_blue_b", "nearest_dealership",
    "nearest_utility", "go_back_three", "go_to_jail", "lottery_win", "bank_dividend", "performance_bonus",
    "birthday", "charity_gala", "tax_audit", "building_repairs", "speeding_fine",
]
VIEW = {"viewport": {"width": 1280, "height": 860}}
T = 30_000


def deck(*first: str) -> list[str]:
    """The sixteen cards with `first` on top, in that order."""
    return list(first) + [c for c in CARDS if c not in first]


@contextmanager
def solo_game(
    browser: Any, server: Any, mode: str, seats: int, name: str = "Alice", init_script: str | None = None
) -> Iterator[Any]:
    """A person (seat 0, first on turn with first_player=0) against bots, the game started."""
    with page_for(browser, server.base, **VIEW) as page:
        if init_script is not None:
            page.context.add_init_script(init_script)
        sign_in(page, name)
        create_room(page, mode, seats)
        add_bots(page, seats - 1)
        start_game(page)
        assert game_state(page)["seat"] == 0
        yield page


def log_text(page: Any) -> str:
    if page.locator("[data-tab=log].on").count() == 0:
        page.click("[data-tab=log]")
    return str(page.locator("[data-testid=log]").inner_text())


def wait_log(page: Any, text: str, timeout: float = 30.0) -> None:
    try:
        wait_until(lambda: text in log_text(page), timeout=timeout)
    except AssertionError:
        raise AssertionError(f"{text!r} not in the log:\n{log_text(page)[-1500:]}") from None


def me(page: Any) -> dict[str, Any]:
    return dict(game_state(page)["game"]["players"][0])


def click(page: Any, selector: str) -> None:
    page.wait_for_selector(selector, timeout=T)
    page.click(selector, timeout=T)


def settle(page: Any) -> None:
    """Wait for tokens to finish walking, so a screenshot shows where they really are."""
    wait_js(page,
        """async () => {
            const s = (await import('/js/store.js')).state;
            const anim = await import('/js/animate.js');
            return s.game && !(s.pendingSeq > s.seq) && !anim.walking()
                && s.game.players.every((p) => p.out || s.tokens[p.seat] === p.position); }""",
    )
    time.sleep(0.3)  # the last step's CSS transition


# ------------------------------------------------------------------ the jackpot and jail


def test_jackpot_bet_then_jail_rolls_and_forced_bail(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice: 10 (visiting) → 20 jackpot (bets 2 and 5, the die shows 5: 3 × 1000) → 30 go to jail → three failed
    # jail rolls → the bail through the pay step → she moves by the third roll (2 + 3) to dealership 2.
    # The bot: 4 (income tax) → 7, 10, 17, 22 (harmless cards).
    server = make_server(
        dice=[(4, 6), (1, 3), (4, 6), (5,), (1, 2), (4, 6), (1, 2), (1, 2), (3, 4), (1, 3), (2, 3), (2, 3)],
        deck=deck("bank_dividend", "lottery_win", "performance_bonus"),
        first_player=0,
    )
    with solo_game(browser, server, "classic", 2) as page:
        click(page, "[data-action=roll]")
        click(page, "[data-action=roll]")  # after the bot's turn
        page.wait_for_selector("[data-panel=jackpot]", timeout=T)
        bet = page.locator("[data-action=jackpot_bet]")
        assert bet.is_disabled()  # nothing picked yet
        page.click("[data-panel=jackpot] button.num[data-number='2']")
        assert "6,000" in bet.inner_text()  # one number: 6 × the stake
        page.click("[data-panel=jackpot] button.num[data-number='5']")
        assert "3,000" in bet.inner_text()  # two numbers: 3 ×
        page.click("[data-panel=jackpot] button.num[data-number='1']")
        assert "2,000" in bet.inner_text()  # three numbers: 2 ×
        page.click("[data-panel=jackpot] button.num[data-number='3']")  # a fourth number is refused
        assert page.locator("[data-panel=jackpot] button.num.on").count() == 3
        page.click("[data-panel=jackpot] button.num[data-number='1']")  # unpicking works
        assert page.locator("[data-panel=jackpot] button.num.on").count() == 2
        assert "3,000" in bet.inner_text()
        settle(page)
        shot(page, screenshots, "f01-jackpot-picker")
        cash = me(page)["cash"]
        bet.click()
        wait_log(page, "Alice bets on 2, 5, the die shows 5: a hit!")
        wait_log(page, "Alice wins 3,000 at the jackpot.")
        wait_until(lambda: me(page)["cash"] == cash + 2000)  # the stake back and 2000 more
        assert page.locator("[data-panel=jackpot]").count() == 0

        # Go to jail, then three tries for doubles.
        click(page, "[data-action=roll]")
        wait_log(page, "Alice goes to jail.")
        for tries in (1, 2):
            page.wait_for_selector("[data-panel=jail] [data-action=pay_bail]", timeout=T)
            label = f"failed tries: {tries - 1} of 3"
            wait_until(lambda label=label: label in page.locator("[data-panel=jail]").inner_text())
            if tries == 1:
                assert "Pay bail 500" in page.locator("[data-panel=jail]").inner_text()
                shot(page, screenshots, "f02-jail-choice")
            page.click("[data-panel=jail] [data-action=jail_roll]")
            wait_log(page, f"Alice fails to roll doubles (try {tries}).")
        page.wait_for_selector("[data-panel=jail] [data-action=jail_roll]", timeout=T)
        page.click("[data-panel=jail] [data-action=jail_roll]")
        wait_log(page, "Alice fails to roll doubles (try 3).")
        page.wait_for_selector("[data-panel=pay] [data-action=pay]", timeout=T)
        panel = page.locator("[data-panel=pay]").inner_text()
        assert "Jail bail" in panel and "500" in panel
        shot(page, screenshots, "f03-forced-bail")
        cash = me(page)["cash"]
        page.click("[data-panel=pay] [data-action=pay]")
        wait_log(page, "Alice pays the bail and leaves jail.")
        wait_until(lambda: me(page)["position"] == 15 and not me(page)["in_jail"])
        assert me(page)["cash"] == cash - 500
        page.wait_for_selector("[data-panel=offer] [data-action=buy]", timeout=T)


def test_card_to_jail_pay_bail_then_decline_the_jackpot(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice draws "Go to jail" on square 7, pays the bail on her next turn, rolls 10 to the jackpot, declines.
    server = make_server(dice=[(3, 4), (1, 3), (4, 6)], deck=deck("go_to_jail"), first_player=0)
    with solo_game(browser, server, "classic", 2) as page:
        click(page, "[data-action=roll]")
        wait_log(page, "Alice is sent to jail by a card.")
        page.wait_for_selector("[data-panel=jail] [data-action=pay_bail]", timeout=T)
        assert page.locator("[data-action=roll]").count() == 0  # in jail: bail or a jail roll, no plain roll
        assert "in jail" in page.locator(".player[data-seat='0']").inner_text()
        cash = me(page)["cash"]
        page.click("[data-panel=jail] [data-action=pay_bail]")
        wait_log(page, "Alice pays 500 bail.")
        wait_until(lambda: me(page)["cash"] == cash - 500)
        click(page, "[data-action=roll]")  # bail paid: she rolls normally
        page.wait_for_selector("[data-panel=jackpot] [data-action=jackpot_decline]", timeout=T)
        cash = me(page)["cash"]
        page.click("[data-action=jackpot_decline]")
        wait_log(page, "Alice skips the jackpot.")
        wait_until(lambda: game_state(page)["game"]["phase"] != "jackpot")
        assert me(page)["cash"] == cash
        assert page.locator("[data-panel=jackpot]").count() == 0


# ------------------------------------------------------------------ Speed


def test_speed_third_die_bus_and_teleport(browser: Any, make_server: Any, screenshots: Path) -> None:
    # The third die from round 1. Alice rolls 2, 5 and Bus, takes the first die (2 steps: an event square);
    # the bot rolls 1 + 2 + 1 to the income tax; Alice rolls triples 2-2-2 and teleports to square 17 by
    # tapping it on the board, then rolls again (1 + 3 + 1 → 22).
    server = make_server(
        dice=[(2, 5, 4), (1, 2, 1), (2, 2, 2), (1, 3, 1)],
        deck=deck("bank_dividend", "lottery_win", "performance_bonus"),
        first_player=0,
        rules={"third_die_from_round": 1},
    )
    with solo_game(browser, server, "speed", 2) as page:
        click(page, "[data-action=roll]")
        page.wait_for_selector("[data-panel=bus]", timeout=T)
        dice = page.locator("svg.board .dice")
        assert dice.get_attribute("data-dice") == "2,5,4"
        assert page.locator("svg.board .die.third").text_content().strip() == "BUS"
        bus = page.locator("[data-panel=bus]").inner_text()
        assert "Both dice: 7" in bus and "First die: 2" in bus and "Second die: 5" in bus
        shot(page, screenshots, "f04-speed-bus")
        page.click("[data-action=choose_bus][data-use=first]")
        wait_until(lambda: me(page)["position"] == 2)
        # The bot's roll shows three dice, its third die a number.
        page.wait_for_selector("svg.board .dice[data-dice='1,2,1']", timeout=T)
        assert page.locator("svg.board .die.third").text_content().strip() == "1"
        wait_log(page, "1 + 2 + 1")
        click(page, "[data-action=roll]")
        page.wait_for_selector("[data-panel=teleport]", timeout=T)
        wait_log(page, "Alice rolls triples and may teleport!")
        assert page.locator("svg.board .cell.pickable").count() == 40
        assert page.locator("[data-action=teleport]").is_disabled()
        page.click("svg.board .cell[data-square='17']")
        assert page.locator("[data-panel=teleport] select").input_value() == "17"
        assert page.locator("svg.board .cell.hl[data-square='17']").count() == 1
        assert page.locator(".modal.square-modal").count() == 0  # picking, not the detail card
        settle(page)
        shot(page, screenshots, "f05-speed-teleport")
        page.click("[data-action=teleport]")
        wait_until(lambda: me(page)["position"] == 17)
        assert "Alice teleports to" in log_text(page)
        assert page.locator("svg.board .cell.pickable").count() == 0
        click(page, "[data-action=roll]")  # triples roll again
        wait_until(lambda: me(page)["position"] == 22)


# ------------------------------------------------------------------ Halal


def test_halal_murabaha_paid_off_and_rest_area(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice is VIP: she buys brown B (600) by Murabaha (720, due in round 16), pays it off before her next roll,
    # then walks 3 → 10 → 20, Halal's rest area.
    server = make_server(
        dice=[(1, 2), (1, 3), (3, 4), (1, 2), (4, 6)], deck=deck("bank_dividend"), first_player=0,
        seats={0: {"vip": True}},
    )
    with solo_game(browser, server, "halal", 2) as page:
        board = page.locator("svg.board").text_content()
        assert "Rest area" in board and "Jackpot" not in board
        click(page, "[data-action=roll]")
        page.wait_for_selector("[data-panel=offer] [data-action=buy_murabaha]", timeout=T)
        shot(page, screenshots, "f06-halal-offer")
        cash = me(page)["cash"]
        page.click("[data-action=buy_murabaha]")
        wait_log(page, "by Murabaha: 720 due in round 16.")
        wait_until(lambda: game_state(page)["game"]["squares"][3]["owner"] == 0)
        assert game_state(page)["game"]["squares"][3]["murabaha"]["amount"] == 720
        assert me(page)["cash"] == cash  # nothing paid yet
        page.wait_for_selector("svg.board .murabaha-mark", timeout=T)
        # Her next turn, before the roll: pay it off from the manage list.
        page.wait_for_selector("[data-action=roll]", timeout=T)
        page.click("[data-action=manage]")
        page.wait_for_selector("[data-action=pay_murabaha][data-square='3']", timeout=T)
        shot(page, screenshots, "f07-halal-pay-murabaha")
        page.click("[data-action=pay_murabaha][data-square='3']")
        wait_log(page, "pays off the Murabaha on")
        wait_until(lambda: me(page)["cash"] == cash - 720)
        assert "murabaha" not in game_state(page)["game"]["squares"][3]
        assert page.locator("svg.board .murabaha-mark").count() == 0
        click(page, "[data-action=roll]")
        click(page, "[data-action=roll]")
        wait_log(page, "Alice rests.")
        wait_until(lambda: me(page)["position"] == 20)


# ------------------------------------------------------------------ Fortuna


def test_fortuna_gods_on_panels_and_red_envelope(browser: Any, make_server: Any, screenshots: Path) -> None:
    # Alice draws the God of Misfortune (tax audit); the second bot draws the red envelope (charity gala),
    # shared at random between Alice and the first bot; then Alice draws the God of Wealth, who replaces it.
    server = make_server(
        dice=[(3, 4), (1, 3), (2, 5), (4, 6)],
        deck=deck("tax_audit", "charity_gala", "performance_bonus"),
        first_player=0,
    )
    with solo_game(browser, server, "fortuna", 3) as page:
        click(page, "[data-action=roll]")
        panel = page.locator(".side-players .player[data-seat='0']")
        wait_until(lambda: "God of Misfortune" in panel.inner_text())
        assert "until round 4" in panel.inner_text()
        assert panel.locator(".badge.god-misfortune").count() == 1
        wait_log(page, "hands out red envelopes:")
        line = page.locator("[data-testid=log] li.ev-red_envelope").inner_text()
        assert line.startswith("Bot 2 (normal) hands out red envelopes:"), line
        # 1000 in envelopes went from the second bot to Alice and the first bot (who also paid 2000 tax).
        cash = lambda: [p["cash"] for p in game_state(page)["game"]["players"]]  # noqa: E731
        try:
            wait_until(lambda: cash()[2] == 14000 and cash()[0] + cash()[1] == 29000)
        except AssertionError:
            raise AssertionError((cash(), line)) from None
        settle(page)
        shot(page, screenshots, "f08-fortuna-god-envelope")
        click(page, "[data-action=roll]")
        wait_until(lambda: "God of Wealth" in panel.inner_text())
        assert panel.locator(".badge.god-wealth").count() == 1
        assert panel.locator(".badge.god-misfortune").count() == 0


# ------------------------------------------------------------------ the connection, chat, spectators


WS_TRACKER = """
(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__sockets.push(this); }
  };
})();
"""


def test_reconnects_by_itself_and_plays_on(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(dice=[(3, 4), (1, 3), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    with solo_game(browser, server, "classic", 2, init_script=WS_TRACKER) as page:
        page.wait_for_selector("header .conn.online", timeout=T)
        page.wait_for_selector("[data-action=roll]", timeout=T)
        sockets = page.evaluate("window.__sockets.length")
        assert sockets >= 1
        # The network goes away and the socket drops: the header says so, the client retries with backoff.
        page.context.set_offline(True)
        page.evaluate("window.__sockets.at(-1).close(4000)")
        page.wait_for_selector("header .conn.offline, header .conn.connecting", timeout=T)
        shot(page, screenshots, "f09-reconnecting")
        time.sleep(1.5)
        page.context.set_offline(False)
        page.wait_for_selector("header .conn.online", timeout=20_000)
        assert page.evaluate("window.__sockets.length") > sockets
        # It plays on: roll, and the bot's turn comes back over the new socket.
        click(page, "[data-action=roll]")
        wait_log(page, "Bank dividend")
        wait_until(lambda: me(page)["position"] == 7)
        page.wait_for_selector("[data-action=roll]", timeout=T)  # the bot moved on to Alice again
        wait_until(lambda: game_state(page)["game"]["players"][1]["position"] == 4)
        # A drop that the server does not see coming (the socket dies mid-game) heals the same way.
        page.evaluate("window.__sockets.at(-1).close()")
        page.wait_for_selector("header .conn.online", timeout=20_000)
        click(page, "[data-action=roll]")
        wait_until(lambda: me(page)["position"] == 10)


def test_chat_and_a_spectator_watching_live(browser: Any, make_server: Any, screenshots: Path) -> None:
    server = make_server(dice=[(3, 4), (1, 3), (1, 2)], deck=deck("bank_dividend"), first_player=0)
    with solo_game(browser, server, "classic", 2, name="Hana") as host, \
            page_for(browser, server.base, **VIEW) as watcher:
        sign_in(watcher, "Wen")
        watcher.wait_for_selector("[data-list=running] [data-action=watch]", timeout=T)
        watcher.click("[data-list=running] [data-action=watch]")
        watcher.wait_for_selector("svg.board .cell", timeout=T)
        assert game_state(watcher)["seat"] is None
        # The host plays; the watcher sees the dice, the token and the log move without doing anything.
        host.click("[data-action=roll]")
        wait_log(watcher, "Hana rolls 3 + 4")
        wait_log(watcher, "Hana draws")
        wait_until(lambda: game_state(watcher)["game"]["players"][0]["position"] == 7)
        watcher.wait_for_selector("svg.board .dice[data-dice='1,3']", timeout=T)  # the bot's turn too
        settle(watcher)
        settle(host)
        wait_until(lambda: watcher.locator(".token[data-seat='0']").get_attribute("transform")
                   == host.locator(".token[data-seat='0']").get_attribute("transform"))
        # Chat both ways; the watcher is marked as such.
        host.click("[data-tab=chat]")
        host.fill("[data-testid=chat] input", "Welcome, Wen!")
        host.press("[data-testid=chat] input", "Enter")
        watcher.click("[data-tab=chat]")
        watcher.wait_for_selector("[data-testid=chat] li:has-text('Welcome, Wen!')", timeout=T)
        assert "Hana" in watcher.locator("[data-testid=chat] li").last.inner_text()
        watcher.fill("[data-testid=chat] input", "Good luck!")
        watcher.click("[data-testid=chat] button[type=submit]")
        host.wait_for_selector("[data-testid=chat] li:has-text('Good luck!')", timeout=T)
        last = host.locator("[data-testid=chat] li").last.inner_text()
        assert "Wen" in last and "watching" in last
        assert watcher.locator("[data-testid=chat] input").input_value() == ""
        shot(watcher, screenshots, "f10-spectator-chat")
        # The host rolls again; the watcher follows.
        host.click("[data-action=roll]")
        wait_until(lambda: game_state(watcher)["game"]["players"][0]["position"] == 10)
        assert game_state(watcher)["legal"] == []


# ------------------------------------------------------------------ tokens


def test_tokens_keep_up_with_fast_moves(browser: Any, server: Any) -> None:
    """Moves arriving faster than a token walks: it skips ahead instead of lagging behind."""
    with page_for(browser, server.base, **VIEW) as page:
        page.goto("/")
        page.wait_for_selector("input[name=nickname]", timeout=T)
        took = page.evaluate(
            """async () => {
                const store = await import('/js/store.js');
                const anim = await import('/js/animate.js');
                anim.resetTokens();
                const players = [{seat: 0, position: 0}, {seat: 1, position: 0}];
                const game = {squares: new Array(40).fill({}), players};
                anim.feedAnimation(game, []);
                // Ten moves of 12 squares each in one second: 120 steps.
                let pos = 0;
                const t0 = performance.now();
                for (let k = 0; k < 10; k++) {
                    const from = pos; pos = (pos + 12) % 40;
                    players[0] = {seat: 0, position: pos};
                    const ev = {type: 'moved', seat: 0, from, to: pos, steps: 12};
                    anim.feedAnimation({...game, players: [...players]}, [ev]);
                    await new Promise((r) => setTimeout(r, 100));
                }
                while (store.state.tokens[0] !== pos && performance.now() - t0 < 10000) {
                    await new Promise((r) => setTimeout(r, 20));
                }
                return {ms: performance.now() - t0, at: store.state.tokens[0], want: pos};
            }"""
        )
        assert took["at"] == took["want"], took
        # One move takes at most ~0.7 s however long it is, and a new move cuts the old one short.
        assert took["ms"] < 1000 + 900, took
