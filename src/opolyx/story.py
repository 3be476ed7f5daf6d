"""``opolyx story``: a whole game between bots, told one line per event in any of the six languages.

The lines come from the same message catalogs and the same event table as the browser's game log
(:mod:`opolyx.i18n.narrate`), so ``--lang zh`` tells the story as a Chinese player's log would; every
bot is named with its strength.

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

from opolyx import usage
from opolyx.bots import make_bot
from opolyx.engine import Game, IllegalAction, new_game
from opolyx.engine.vocabulary import MODES
from opolyx.i18n.amounts import format_amount
from opolyx.i18n.catalog import LANGUAGES, translate
from opolyx.i18n.narrate import Narrator

Action = dict[str, Any]
Event = dict[str, Any]

NAMES = ("Ada", "Bo", "Cyd", "Dee", "Eli", "Fay")

class Chooser(Protocol):
    def choose(self, game: Game, seat: int) -> Action | None: ...


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


STRENGTHS = ("easy", "normal", "hard")


def seat_strengths(seats: int, strength: str | Sequence[str]) -> list[str]:
    """Each seat's bot strength: one for all, or a list that repeats over the seats (never a longer one)."""
    given = [strength] if isinstance(strength, str) else list(strength)
    if not given or any(s not in STRENGTHS for s in given):
        raise ValueError(f"bot strengths are {', '.join(STRENGTHS)}")
    if len(given) > seats:
        raise ValueError(f"{len(given)} strengths for {seats} seats")
    return [given[seat % len(given)] for seat in range(seats)]


def make_players(seats: int, seed: int, strength: str | Sequence[str] = "normal") -> list[Chooser]:
    """One bot per seat, each seeded from the story's seed so a seed always tells the same story."""
    return [make_bot(s, seed * 100 + seat) for seat, s in enumerate(seat_strengths(seats, strength))]


def seat_names(seats: int, strength: str | Sequence[str], language: str) -> list[str]:
    """The players as the story names them: a name and the bot's strength, e.g. ``Ada (hard)``."""
    levels = seat_strengths(seats, strength)
    return [f"{NAMES[s]} ({translate(f'strength.{levels[s]}', language)})" for s in range(seats)]


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
    strength: str | Sequence[str] = "normal",
    language: str = "en",
) -> Game:
    """Play one whole game between bots and pass every story line to ``echo``; return the finished game."""
    names = seat_names(seats, strength, language)
    game = new_game(mode, seats, seed, seat_info=[{"name": NAMES[s], "bot": True} for s in range(seats)])
    narrator = Narrator(game.board, game.rules, names, language)
    bots = make_players(seats, seed, strength)
    fallback = [RandomPlayer(seed * 100 + 50 + s) for s in range(seats)]
    for s in range(seats):
        echo(translate("story.seat", language, seat=s + 1, player=names[s]))
    for event in game.start_events:
        echo(narrator.describe(event))
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
        for event in events:
            echo(narrator.describe(event))
    else:
        echo(translate("story.unfinished", language, n=MAX_ACTIONS))
        return game
    result = game.snapshot()["result"]
    for place in result["placements"] if result else []:
        echo(translate("story.result", language, place=place["place"], player=names[place["seat"]],
                       amount=format_amount(int(place["net_worth"]), language)))
    return game


def story(
    mode: str = typer.Option("classic", "--mode", "-m", help=f"Game mode: {', '.join(MODES)}."),
    seats: int = typer.Option(4, "--seats", "-n", help="Number of seats (2–6; team: 4 or 6)."),
    seed: int | None = typer.Option(None, "--seed", "-s", help="Seed for the game and the bots (random if omitted)."),
    lang: str = typer.Option("en", "--lang", "-l", help=f"Language of the story: {', '.join(LANGUAGES)}."),
    strength: str = typer.Option(
        "normal", "--strength", help="Bot strength for every seat (easy, normal, hard), or one per seat: hard,easy."
    ),
) -> None:
    """Play a whole game between bots and print its story, one line per event."""
    usage.table(mode, seats)
    usage.one_of(lang, LANGUAGES, "--lang", "language")
    levels = usage.per_seat(usage.strengths(strength, "--strength"), seats, "--strength", "strength")
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**6)
    mode_name = translate(f"mode.{mode}.name", lang)
    typer.echo(translate("story.header", lang, mode=mode_name, seats=seats, seed=seed))
    play_story(mode, seats, seed, typer.echo, strength=levels, language=lang)
