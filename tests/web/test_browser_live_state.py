"""The client lives on the state in each events frame (no sync polling), rebuilds its log from the
snapshot's history after a reload, offers "bots replace leavers" when creating a room and logs a takeover."""

from __future__ import annotations

from typing import Any

import pytest
from webkit import add_bots, game_state, page_for, play_step, sign_in, start_game, wait_until

SEND_TRACKER = """
(() => {
  window.__sent = [];
  window.__urls = [];
  const Plain = window.WebSocket;
  window.WebSocket = class extends Plain {
    constructor(url, ...rest) { super(url, ...rest); window.__urls.push(String(url)); }
  };
  const send = Plain.prototype.send;
  Plain.prototype.send = function (data) {
    try { window.__sent.push(JSON.parse(data).type); } catch (e) { window.__sent.push('?'); }
    return send.call(this, data);
  };
})();
"""


# The page's game (merged from the game_changes of its events frames) against the snapshot a plain socket
# opened now gets whole: "same", "different", or "moved" when the game moved on in between.
COMPARE_WITH_A_PLAIN_SOCKET = """
async () => {
  const { state } = await import('/js/store.js');
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${proto}//${location.host}/ws/rooms/${state.roomId}`);
  const snap = await new Promise((resolve) => {
    ws.onmessage = (e) => { const f = JSON.parse(e.data); if (f.type === 'snapshot') resolve(f); };
  });
  ws.close();
  if (snap.seq !== state.seq) return 'moved';
  return JSON.stringify(snap.game) === JSON.stringify(state.game) ? 'same' : 'different';
}
"""


def syncs(page: Any) -> int:
    return int(page.evaluate("window.__sent.filter((t) => t === 'sync').length"))


pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_no_polling_history_after_reload_and_a_bot_takes_over(browser: Any, server: Any) -> None:
    with page_for(browser, server.base) as page:
        page.context.add_init_script(SEND_TRACKER)
        sign_in(page, "Alice")
        page.click("label.mode-option:has(input[value=blitz])")
        page.select_option("select[name=seats]", "2")
        page.check("input[name=bots_replace_leavers]")
        page.click("[data-action=create]")
        page.wait_for_selector(".room-screen .seats", timeout=30_000)
        room_id = page.evaluate("async () => (await import('/js/store.js')).state.roomId")
        view = page.evaluate(f"fetch('/api/rooms/{room_id}').then((r) => r.json())")
        assert view["bots_replace_leavers"] is True
        add_bots(page, 1)
        start_game(page)
        before = syncs(page)
        seq0 = game_state(page)["game"]["seq"]
        for _ in range(200):
            if game_state(page)["game"]["seq"] >= seq0 + 15 or game_state(page)["over"]:
                break
            if not play_step(page):
                page.wait_for_timeout(50)
        state = game_state(page)
        assert state["game"]["seq"] > seq0
        assert syncs(page) == before, "the client asked for snapshots although events frames carry the state"
        # The state shown is the one the last events frame carried.
        seq = page.evaluate("async () => (await import('/js/store.js')).state.seq")
        assert seq == state["game"]["seq"]
        # The page's socket asks for changes only; what it merged is the game as the server holds it.
        assert any("?game=changes" in url for url in page.evaluate("window.__urls"))
        outcome = "moved"
        for _ in range(50):  # a bot may act in between: look again until both show the same seq
            outcome = page.evaluate(COMPARE_WITH_A_PLAIN_SOCKET)
            if outcome != "moved":
                break
        assert outcome == "same"
        log_before = state["log"]
        assert log_before
        # Reload: the log comes back from the snapshot's history, not empty.
        # Leave the page and come back (a reload, with the old socket fully closed before the new page opens).
        url = page.url
        page.goto("about:blank")
        page.goto(url)
        page.wait_for_selector("svg.board .cell", timeout=30_000)
        wait_until(lambda: len(game_state(page)["log"]) >= len(log_before))
        # The history starts at the beginning: the sealed seed (fair dice), then the game's start.
        assert game_state(page)["log"][:2] == ["seed_committed", "game_started"]
        # Leaving hands the seat to a bot; the log says so and the seat plays on.
        page.evaluate(f"fetch('/api/rooms/{room_id}/leave', {{method: 'POST'}})")
        wait_until(lambda: "bot_took_over" in game_state(page)["log"])
        if page.locator("[data-tab=log].on").count() == 0:
            page.click("[data-tab=log]")
        wait_until(lambda: "plays on for them" in page.locator("[data-testid=log]").inner_text())
        assert game_state(page)["seat"] is None
