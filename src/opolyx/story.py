"""``opolyx story``: a whole game between bots, told in English, one line per event.

The game is played through the public engine API only (``legal_actions`` and ``apply``), so the story is
also a quick end-to-end check of the engine. Bots come from :func:`opolyx.bots.make_bot`; whenever a bot
fails, resigns or loops on one decision, a small built-in random player decides instead. It always picks a
legal action, never resigns and never proposes trades.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import typer

from opolyx.bots import make_bot
from opolyx.engine import Game, IllegalAction, new_game
from opolyx.i18n.amounts import format_amount

Action = dict[str, Any]
Event = dict[str, Any]

NAMES = ("Ada", "Bo", "Cyd", "Dee", "Eli", "Fay")

#: English titles of the sixteen cards and of the names Halal and Fortuna give some of them.
CARD_TITLES = {
    "advance_to_start": "Advance to Start",
    "advance_to_red_c": "Advance to red C",
    "advance_to_pink_a": "Advance to pink A",
    "advance_to_dark_blue_b": "Advance to dark-blue B",
    "nearest_dealership": "Nearest dealership",
    "nearest_utility": "Nearest utility",
    "go_back_three": "Go back three squares",
    "go_to_jail": "Go to jail",
    "lottery_win": "Lottery win",
    "bank_dividend": "Bank dividend",
    "performance_bonus": "Performance bonus",
    "birthday": "Birthday",
    "charity_gala": "Charity gala",
    "tax_audit": "Tax audit",
    "building_repairs": "Building repairs",
    "speeding_fine": "Speeding fine",
    "business_profit": "Business profit",
    "wedding_in_the_family": "Wedding in the family",
    "inviting_the_neighbours": "Inviting the neighbours",
    "god_of_wealth": "God of Wealth",
    "god_of_misfortune": "God of Misfortune",
    "red_envelope": "Red envelope",
}

GODS = {"wealth": "the God of Wealth", "misfortune": "the God of Misfortune"}
OUT_REASONS = {"bankrupt": "is bankrupt", "forfeit": "forfeits after missing two turns", "resigned": "resigns"}
END_REASONS = {
    "round_limit": "the round limit is reached",
    "last_player": "only one player is left",
    "last_team": "only one team is left",
}


class Chooser(Protocol):
    def choose(self, game: Game, seat: int) -> Action | None: ...


def amount(value: int) -> str:
    return format_amount(value, "en")


# ---------------------------------------------------------------------- players


class RandomPlayer:
    """A simple legal-move player: buys most things, bids a little, builds when rich, pays its debts.

    It never resigns, never proposes trades and declines every offer it gets.
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> Action | None:
        legal = game.legal_actions(seat)
        by_type: dict[str, list[Action]] = {}
        for action in legal:
            by_type.setdefault(str(action["type"]), []).append(action)
        if game.actor() != seat:
            declines = by_type.get("decline_trade")
            return declines[0] if declines else None
        rng = self.rng
        cash = game.players[seat].cash
        phase = game.phase
        if phase == "pay":
            for kind in ("pay", "declare_bankruptcy"):
                if kind in by_type:
                    return by_type[kind][0]
            raise_cash = by_type.get("sell") or by_type.get("mortgage")
            if raise_cash:
                return rng.choice(raise_cash)
        if phase == "buy":
            if "buy_murabaha" in by_type and rng.random() < 0.5:
                return by_type["buy_murabaha"][0]
            offer = game.offer_square
            price = game.board.squares[offer].price if offer is not None else 0
            if "buy" in by_type and (cash - price >= 1500 or rng.random() < 0.3):
                return by_type["buy"][0]
            return {"type": "decline"}
        if phase == "auction":
            bids = by_type.get("bid")
            if bids and cash - int(bids[0]["amount"]) >= 3000 and rng.random() < 0.4:
                return bids[0]
            return {"type": "pass"}
        if phase == "jackpot":
            bets = by_type.get("jackpot_bet")
            if bets and cash >= 8000 and rng.random() < 0.3:
                return rng.choice(bets)
            return {"type": "jackpot_decline"}
        moves = by_type.get("choose_bus") or by_type.get("teleport")
        if moves:
            return rng.choice(moves)
        if phase == "turn":
            builds = by_type.get("build")
            if builds and cash >= 5000 and rng.random() < 0.7:
                return rng.choice(builds)
            redeems = by_type.get("redeem")
            if redeems and cash >= 9000 and rng.random() < 0.5:
                return rng.choice(redeems)
            murabaha = by_type.get("pay_murabaha")
            if murabaha and cash >= 9000:
                return murabaha[0]
            if "pay_bail" in by_type and rng.random() < 0.5:
                return by_type["pay_bail"][0]
            for kind in ("roll", "jail_roll"):
                if kind in by_type:
                    return by_type[kind][0]
        safe = [a for a in legal if a["type"] not in ("resign", "propose_trade")]
        return rng.choice(safe) if safe else None


def make_players(seats: int, seed: int, strength: str = "normal") -> list[Chooser]:
    """One bot per seat, each seeded from the story's seed so a seed always tells the same story."""
    return [make_bot(strength, seed * 100 + seat) for seat in range(seats)]


# ---------------------------------------------------------------------- narration


class Narrator:
    """Turns engine events into English lines: ``Round 3 — Ada rolls 4+2 and moves to Skyline Books``."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.round = 1
        self.trades: dict[int, tuple[int, int]] = {}  # open offer id → (proposer, recipient)

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "the bank"
        return self.game.players[seat].name

    def place(self, square: int) -> str:
        sq = self.game.board.squares[square]
        if sq.kind == "event":
            return f"an event square ({square})"
        if sq.kind == "jail":
            return "Jail (just visiting)"
        return sq.name

    def god(self, god: Any) -> str:
        text = GODS.get(str(god), str(god))
        return text[:1].upper() + text[1:]

    def card(self, card_id: str) -> str:
        return CARD_TITLES.get(card_id, card_id.replace("_", " ").capitalize())

    def lines(self, events: Sequence[Event]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(events):
            event = events[i]
            nxt = events[i + 1] if i + 1 < len(events) else None
            kind = event["type"]
            if kind in ("round_started", "turn_started"):
                self.round = int(event["round"])
            if (
                kind == "dice_rolled"
                and not event.get("jail")
                and nxt is not None
                and nxt["type"] == "moved"
                and nxt["seat"] == event["seat"]
            ):
                text = f"{self._roll(event)} and moves to {self.place(nxt['to'])}"
                i += 2
            else:
                text = self.describe(event)
                i += 1
            if kind == "game_over":
                out.append(f"Round {self.round} — {text}")
                out.extend(self.placements(event))
            elif text:
                out.append(f"Round {self.round} — {text}")
        return out

    def _roll(self, e: Event) -> str:
        dice = [int(d) for d in e["dice"]]
        third = e.get("third")
        shown = "+".join(str(d) for d in dice[:2])
        if isinstance(third, int):
            shown += f"+{third}"
        elif third == "bus":
            shown += " with the Bus"
        elif third == "x":
            shown += " with an X"
        text = f"{self.name(e['seat'])} rolls {shown}"
        if e.get("doubles"):
            text += " (doubles)"
        return text

    def placements(self, e: Event) -> list[str]:
        lines = ["Final placements:"]
        for entry in e["placements"]:
            seat = int(entry["seat"])
            line = f"{entry['place']}. {self.name(seat)} — net worth {amount(int(entry['net_worth']))}"
            reason = self.game.players[seat].out_reason
            if entry.get("out") and reason:
                line += f" (out: {reason})"
            if entry.get("team") is not None and self.game.rules.teams:
                line += f", team {int(entry['team']) + 1}"
            lines.append(line)
        return lines

    def _offer(self, side: dict[str, Any]) -> str:
        parts = [self.place(int(s)) for s in side.get("squares", [])]
        if side.get("cash"):
            parts.append(amount(int(side["cash"])))
        return " + ".join(parts) if parts else "nothing"

    def _trade(self, trade_id: Any) -> str:
        parties = self.trades.pop(int(trade_id), None)
        if parties is None:
            return f"offer {trade_id}"
        return f"{self.name(parties[0])}'s offer to {self.name(parties[1])}"

    def describe(self, e: Event) -> str:
        kind = e["type"]
        who = self.name(e["seat"]) if "seat" in e else ""
        sq = self.place(int(e["square"])) if e.get("square") is not None else ""
        if kind == "game_started":
            order = ", ".join(self.name(s) for s in e["order"])
            return (f"A game of {str(e['mode']).capitalize()} for {e['seats']} seats begins. "
                    f"{self.name(e['first'])} goes first; seat order: {order}.")
        if kind == "round_started":
            return "A new round begins."
        if kind == "turn_started":
            return f"{who}'s turn (cash {amount(self.game.players[e['seat']].cash)})."
        if kind == "dice_rolled":
            text = self._roll(e)
            return f"{text} in jail" if e.get("jail") else text
        if kind == "moved":
            steps = int(e["steps"])
            if steps < 0:
                return f"{who} goes back {-steps} squares to {self.place(e['to'])}"
            return f"{who} moves to {self.place(e['to'])}"
        if kind == "cash_received":
            reason, value = e["reason"], amount(int(e["amount"]))
            if reason == "salary":
                return f"{who} passes Start and collects {value}"
            if reason == "start_landing":
                return f"{who} lands on Start and collects {value}"
            if reason == "lucky_eight":
                return f"Lucky eight! The bank pays {who} {value}"
            if reason == "jackpot":
                return f"{who} collects {value} from the Jackpot"
            if reason == "card":
                return f"{who} collects {value} ({self.card(str(e.get('card', '')))})"
            return f"{who} receives {value} from the bank ({reason})"
        if kind == "purchase_offered":
            return f"{sq} is for sale at {amount(int(e['price']))}"
        if kind == "company_bought":
            return f"{who} buys {sq} for {amount(int(e['price']))}"
        if kind == "purchase_declined":
            return f"{who} does not buy {sq}" + (" (time ran out)" if e.get("auto") else "")
        if kind == "murabaha_bought":
            return (f"{who} buys {sq} by Murabaha: {amount(int(e['amount']))} owed to the bank by round "
                    f"{e['due_round']}")
        if kind == "murabaha_paid":
            return f"{who} pays off the Murabaha on {sq}: {amount(int(e['amount']))}"
        if kind == "auction_started":
            return f"{sq} goes to auction, opening at {amount(int(e['minimum']))}"
        if kind == "auction_bid":
            return f"{who} bids {amount(int(e['amount']))} for {sq}"
        if kind == "auction_passed":
            reason = e.get("reason")
            if reason == "cash":
                return f"{who} cannot afford the next bid and drops out"
            if reason == "timeout":
                return f"{who}'s bidding time runs out: pass"
            return f"{who} passes"
        if kind == "auction_won":
            return f"{who} wins the auction and buys {sq} for {amount(int(e['amount']))}"
        if kind == "auction_unsold":
            return f"Nobody bids; {sq} stays with the bank"
        if kind == "rent_due":
            text = f"{who} owes {self.name(e['owner'])} {amount(int(e['amount']))} rent for {sq}"
            if e.get("tax"):
                text += f" (rent tax takes {amount(int(e['tax']))} of it)"
            return text
        if kind == "rent_waived":
            why = "it is mortgaged" if e.get("reason") == "mortgaged" else "they are allies"
            return f"{who} pays no rent at {self.name(e['owner'])}'s {sq}: {why}"
        if kind == "pay_step_started":
            debtor = self.name(e["debtor"])
            reason = e["reason"]
            value = amount(int(e["amount"]))
            if reason == "tax":
                return f"{debtor} must pay {value} {self.place(int(e['square'])).lower()}"
            if reason == "bail":
                return f"{debtor} must pay the {value} bail after a third failed try"
            if reason == "murabaha":
                return f"{debtor}'s Murabaha on {self.place(int(e['square']))} is due: {value}"
            if reason == "rent":
                return f"{debtor} has to settle {value} in rent"
            if reason == "card":
                return f"{debtor} owes {value} because of the card"
            return f"{debtor} owes {value} ({reason})"
        if kind == "pay_step_timed_out":
            return f"{who}'s time to pay runs out; the game raises the cash"
        if kind == "debt_paid":
            paid = [c for c in e["creditors"] if c["amount"]]
            to = ", ".join(f"{amount(int(c['amount']))} to {self.name(c['seat'])}" for c in paid)
            return f"{who} pays {to}" + (" (automatically)" if e.get("auto") else "")
        if kind == "card_drawn":
            return f"{who} draws a card: “{self.card(str(e['card']))}”"
        if kind == "red_envelope":
            shares = ", ".join(f"{self.name(int(s))} {amount(int(v))}" for s, v in e["shares"].items())
            return f"{who} hands out red envelopes: {shares}"
        if kind == "jailed":
            how = {"go_to_jail": "lands on Go to Jail", "card": "is sent by a card",
                   "third_doubles": "is caught speeding"}.get(str(e.get("reason")), "is sent")
            return f"{who} {how} and goes to jail"
        if kind == "third_doubles":
            return f"{who} rolls a third doubles in a row"
        if kind == "jail_roll_failed":
            return f"{who} stays in jail (failed try {e['tries']} of {self.game.rules.jail_tries})"
        if kind == "released":
            return f"{who} leaves jail" + (" with doubles" if e.get("reason") == "doubles" else "")
        if kind == "bail_paid":
            return f"{who} pays {amount(int(e['amount']))} bail and leaves jail"
        if kind == "roll_again":
            return f"{who} rolls again"
        if kind == "jackpot_offered":
            return f"{who} may bet {amount(int(e['stake']))} at the Jackpot"
        if kind == "jackpot_played":
            numbers = ", ".join(str(n) for n in e["numbers"])
            result = f"wins {amount(int(e['payout']))}" if e.get("won") else "loses the stake"
            return f"{who} bets {amount(int(e['stake']))} on {numbers}; the die shows {e['die']}: {who} {result}"
        if kind == "jackpot_declined":
            return f"{who} does not play the Jackpot" + (" (time ran out)" if e.get("auto") else "")
        if kind == "rested":
            return f"{who} rests at the rest area"
        if kind == "god_arrived":
            return f"{self.god(e['god'])} joins {who} until round {e['until_round']}"
        if kind == "god_left":
            return f"{self.god(e['god'])} leaves {who}"
        if kind == "triples_rolled":
            return f"Triples! {who} may teleport to any square and roll again"
        if kind == "teleported":
            return f"{who} teleports to {self.place(int(e['to']))}"
        if kind == "bus_chosen":
            use = {"sum": "both dice", "first": "the first die", "second": "the second die"}.get(str(e["use"]))
            return f"{who} takes the Bus with {use}: {e['steps']} squares"
        if kind == "x_jump":
            return f"X! {who} jumps ahead to {sq}"
        if kind == "built":
            return f"{who} builds on {sq} (level {e['level']}) for {amount(int(e['cost']))}"
        if kind == "sold":
            text = f"{who} sells a level on {sq} (now level {e['level']}) for {amount(int(e['refund']))}"
            return text + (" (automatically)" if e.get("auto") else "")
        if kind == "mortgaged":
            text = f"{who} mortgages {sq} for {amount(int(e['value']))}"
            if e.get("rounds_left"):
                text += f" ({e['rounds_left']} rounds to redeem it)"
            return text + (" (automatically)" if e.get("auto") else "")
        if kind == "redeemed":
            return f"{who} redeems {sq} for {amount(int(e['cost']))}"
        if kind == "mortgage_ticked":
            return f"{who}'s mortgage on {sq}: {e['rounds_left']} rounds left"
        if kind == "mortgage_expired":
            return f"{who}'s mortgage on {sq} expires; it returns to the bank"
        if kind == "trade_proposed":
            self.trades[int(e["id"])] = (int(e["from"]), int(e["to"]))
            return (f"{self.name(e['from'])} offers {self.name(e['to'])} a trade: "
                    f"{self._offer(e['give'])} for {self._offer(e['take'])}")
        if kind == "trade_accepted":
            self.trades.pop(int(e["id"]), None)
            return (f"{self.name(e['to'])} accepts {self.name(e['from'])}'s trade: "
                    f"{self._offer(e['give'])} for {self._offer(e['take'])}")
        if kind == "trade_declined":
            parties = self.trades.pop(int(e["trade"]), None)
            return f"{who} declines " + (f"{self.name(parties[0])}'s offer" if parties else "the offer")
        if kind == "trade_cancelled":
            parties = self.trades.pop(int(e["trade"]), None)
            return f"{who} withdraws the offer" + (f" to {self.name(parties[1])}" if parties else "")
        if kind == "trade_lapsed":
            why = {"expired": "time ran out", "invalid": "it can no longer be carried out",
                   "player_out": "a player left the game"}.get(str(e["reason"]), str(e["reason"]))
            text = self._trade(e["trade"])
            return f"{text[:1].upper()}{text[1:]} lapses: {why}"
        if kind == "companies_inherited":
            names = ", ".join(self.place(int(s)) for s in e["squares"])
            return f"{who} inherits {names} from {self.name(e['from'])}"
        if kind == "player_out":
            text = f"{who} {OUT_REASONS.get(str(e['reason']), 'is out')} and leaves the game"
            paid = [c for c in e.get("creditors", []) if c["amount"]]
            if paid:
                text += "; creditors get " + ", ".join(
                    f"{amount(int(c['amount']))} ({self.name(c['seat'])})" for c in paid
                )
            return text
        if kind == "turn_timed_out":
            return f"{who}'s turn clock runs out (missed turn {e['missed']})"
        if kind == "game_over":
            reason = END_REASONS.get(str(e["reason"]), str(e["reason"]))
            return f"Game over: {reason}. {self.name(e['winner'])} wins!"
        fields = ", ".join(f"{k}={v}" for k, v in e.items() if k != "type")
        return f"{kind}: {fields}"


# ---------------------------------------------------------------------- the game loop

#: Decisions one clocked step may take before the built-in player takes over (stops a looping bot).
MAX_ACTIONS_PER_DECISION = 200
MAX_ACTIONS = 200_000


def _try(game: Game, seat: int, chooser: Chooser) -> Action | None:
    try:
        action = chooser.choose(game, seat)
    except Exception:  # a broken bot must not end the story
        return None
    return action if isinstance(action, dict) else None


def play_story(
    mode: str,
    seats: int,
    seed: int,
    echo: Callable[[str], None] = print,
    *,
    strength: str = "normal",
) -> Game:
    """Play one whole game between bots and pass every story line to ``echo``; return the finished game."""
    game = new_game(mode, seats, seed, seat_info=[{"name": NAMES[s], "bot": True} for s in range(seats)])
    narrator = Narrator(game)
    bots = make_players(seats, seed, strength)
    fallback = [RandomPlayer(seed * 100 + 50 + s) for s in range(seats)]
    for line in narrator.lines(game.start_events):
        echo(line)
    clock_id: str | None = None
    same_clock = 0
    for _ in range(MAX_ACTIONS):
        if game.is_over:
            break
        pending = game.pending()
        seat: int | None
        trade = next((p for p in pending if "trade" in p), None)
        if trade is not None:
            seat = int(trade["seat"])
            answer = _try(game, seat, bots[seat])
            if not (answer and answer.get("type") in ("accept_trade", "decline_trade")
                    and answer.get("trade") == trade["trade"]):
                answer = {"type": "decline_trade", "trade": trade["trade"]}
            action: Action | None = answer
        else:
            main = pending[0]
            seat = int(main["seat"])
            cid = str(main["clock"]["id"])
            same_clock = same_clock + 1 if cid == clock_id else 0
            clock_id = cid
            action = None
            if same_clock < MAX_ACTIONS_PER_DECISION:
                action = _try(game, seat, bots[seat])
                if action is not None and action.get("type") == "resign":
                    action = None
            if action is None:
                action = _try(game, seat, fallback[seat])
        try:
            events = game.apply(seat, action) if action is not None else None
        except IllegalAction:
            events = None
        if events is None:
            # Neither player produced a legal move: let the clock decide, as a server would.
            fallback_action = _try(game, seat, fallback[seat])
            try:
                events = game.apply(seat, fallback_action) if fallback_action else None
            except IllegalAction:
                events = None
            if events is None:
                events = game.apply(None, {"type": "timeout"})
        for line in narrator.lines(events):
            echo(line)
    else:
        echo(f"The story stops after {MAX_ACTIONS} actions without an end.")
    return game


def story(
    mode: str = typer.Option("classic", "--mode", "-m", help="Game mode: classic, blitz, speed, team, halal, fortuna."),
    seats: int = typer.Option(4, "--seats", "-n", help="Number of seats (2–6; team: 4 or 6)."),
    seed: int | None = typer.Option(None, "--seed", "-s", help="Seed for the game and the bots (random if omitted)."),
) -> None:
    """Play a whole game between bots and print its story, one line per event."""
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**6)
    try:
        new_game(mode, seats, seed)
    except IllegalAction as exc:
        raise typer.BadParameter(str(exc)) from exc
    typer.echo(f"opolyx story: {mode}, {seats} seats, seed {seed}")
    play_story(mode, seats, seed, typer.echo)
