"""Random legal play for the property tests: a policy that picks among ``legal_actions`` and the checks
that must hold after every action. Kept free of hypothesis so a failing seed can be replayed by hand."""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import opolyx
from opolyx import Game, IllegalAction
from opolyx.rules import CARD_BONUS_PERCENT, load_board, load_cards, load_rules, mode_names

MODES: tuple[str, ...] = tuple(mode_names())
CARD_IDS = tuple(c.id for c in load_cards())
#: Card ids that also name something public (square 30 is the ``go_to_jail`` kind).
_CARD_IDS_ALSO_PUBLIC = {"go_to_jail"}

PROGRESS = {"roll", "jail_roll", "pay", "buy", "decline", "bid", "pass", "choose_bus", "teleport",
            "jackpot_bet", "jackpot_decline", "buy_murabaha", "pay_bail", "declare_bankruptcy"}


def seat_choices(mode: str) -> list[int]:
    rules = load_rules(mode)
    if rules.allowed_seats:
        return list(rules.allowed_seats)
    return list(range(rules.min_seats, rules.max_seats + 1))


def dump(game: Game) -> str:
    return json.dumps(game.snapshot(), sort_keys=True)


# ---------------------------------------------------------------------------------------------- trades


def concrete_trade(rng: random.Random, template: dict[str, Any]) -> dict[str, Any]:
    """Turn the ``propose_trade`` template into one concrete random offer (possibly unfair)."""
    to = rng.choice(template["to"])
    give_t = template["give"]
    take_t = template["take"][str(to)]

    def side(t: dict[str, Any]) -> dict[str, Any]:
        squares = [i for i in t["squares"] if rng.random() < 0.4]
        cash = 0
        if t["cash_max"] > 0 and rng.random() < 0.5:
            cash = rng.choice([rng.randint(0, t["cash_max"]), t["cash_max"], min(100, t["cash_max"])])
        return {"cash": cash, "squares": squares}

    give, take = side(give_t), side(take_t)
    if not (give["cash"] or give["squares"] or take["cash"] or take["squares"]):
        if take_t["squares"]:
            take["squares"] = [rng.choice(take_t["squares"])]
        elif give_t["cash_max"]:
            give["cash"] = 1
        else:
            take["cash"] = 1
    return {"type": "propose_trade", "to": to, "give": give, "take": take}


def expected_fair(game: Game, proposer: int, action: dict[str, Any]) -> bool:
    """docs/rules.md §8, computed from the public snapshot, independently of the engine."""
    snap = game.snapshot()
    to = action["to"]
    players = snap["players"]
    if snap["rules"]["teams"] and players[proposer]["team"] == players[to]["team"]:
        return True
    board = load_board(snap["board"])
    pct = snap["rules"]["redemption_percent"]

    def value(side: dict[str, Any]) -> int:
        total = side["cash"]
        for i in side["squares"]:
            price = board.squares[i].price
            if snap["squares"][i]["mortgaged"]:
                total += price - (price // 2) * pct // 100
            else:
                total += price
        return total

    a, b = value(action["give"]), value(action["take"])
    return min(a, b) * 2 >= max(a, b)


# ---------------------------------------------------------------------------------------------- policy


def pick(rng: random.Random, game: Game, seat: int) -> dict[str, Any] | None:
    acts = game.legal_actions(seat)
    if not acts:
        return None
    progress = [a for a in acts if a["type"] in PROGRESS]
    other = [a for a in acts if a["type"] not in PROGRESS and a["type"] != "resign"]
    if progress and (not other or rng.random() < 0.75):
        # prefer buying and bidding a little so that companies change hands
        weights = [3 if a["type"] in ("buy", "bid", "buy_murabaha", "pay") else 1 for a in progress]
        act = rng.choices(progress, weights)[0]
    elif other:
        act = rng.choice(other)
    else:
        act = rng.choice(acts)
    if act.get("template"):
        return concrete_trade(rng, act)
    return dict(act)


def next_move(rng: random.Random, game: Game) -> tuple[int | None, dict[str, Any]] | None:
    """One random step: usually the actor's own choice; sometimes a timeout, a trade answer or a resign."""
    snap = game.snapshot()
    pending = snap["pending"]
    if not pending:
        return None
    r = rng.random()
    trades = snap["trades"]
    if r < 0.04:
        return None, {"type": "timeout"}
    if r < 0.05:
        return None, {"type": "timeout", "seat": pending[0]["seat"], "clock": pending[0]["clock"]["id"]}
    if trades and r < 0.12:
        t = rng.choice(trades)
        return None, {"type": "timeout", "trade": t["id"]}
    if trades and r < 0.35:
        t = rng.choice(trades)
        kind = rng.choice(["accept_trade", "accept_trade", "decline_trade", "cancel_trade"])
        seat = t["from"] if kind == "cancel_trade" else t["to"]
        return seat, {"type": kind, "trade": t["id"]}
    if 0.35 <= r < 0.353:
        alive = [p["seat"] for p in snap["players"] if not p["out"]]
        return rng.choice(alive), {"type": "resign"}
    seat = pending[0]["seat"]
    act = pick(rng, game, seat)
    assert act is not None, f"seat {seat} is pending but has no legal action"
    return seat, act


# ---------------------------------------------------------------------------------------------- invariants


def check_invariants(game: Game) -> None:
    snap = game.snapshot()
    rules = game.rules  # the table this game plays (a house-rule variant included)
    board = load_board(snap["board"])
    players = snap["players"]
    bank = snap["bank"]
    # money is conserved: only the bank creates or destroys it
    total = sum(p["cash"] for p in players)
    assert total == snap["seats"] * rules.starting_cash + bank["paid"] - bank["received"], "money leaked"
    assert game.bank_paid == bank["paid"] and game.bank_received == bank["received"]
    debtors = {d["debtor"] for d in snap["debts"]}
    for p in players:
        if p["cash"] < 0:
            assert snap["phase"] == "pay" and p["seat"] in debtors, f"seat {p['seat']} cash {p['cash']} < 0"
        if p["out"]:
            assert p["cash"] == 0
    owners: dict[int, list[int]] = {}
    for sq, entry in zip(board.squares, snap["squares"], strict=True):
        owner = entry["owner"]
        assert 0 <= entry["level"] <= rules.max_level
        if not sq.is_company:
            assert owner is None and entry["level"] == 0 and not entry["mortgaged"]
            continue
        if owner is None:
            assert entry["level"] == 0 and not entry["mortgaged"] and "murabaha" not in entry
            assert "mortgage_rounds_left" not in entry
            continue
        assert not players[owner]["out"], f"square {sq.index} owned by seat {owner}, who is out"
        owners.setdefault(owner, []).append(sq.index)
        if entry["level"]:
            assert sq.kind == "street" and sq.group is not None
            group = board.groups[sq.group]
            assert all(snap["squares"][j]["owner"] == owner for j in group), "building on an incomplete group"
            assert not any(snap["squares"][j]["mortgaged"] for j in group), "building in a mortgaged group"
        if "mortgage_rounds_left" in entry:
            assert entry["mortgaged"] and rules.mortgage_expiry_rounds
            assert 1 <= entry["mortgage_rounds_left"] <= rules.mortgage_expiry_rounds
        elif entry["mortgaged"]:
            assert not rules.mortgage_expiry_rounds
        if "murabaha" in entry:
            assert rules.murabaha and entry["murabaha"]["seat"] == owner and not entry["mortgaged"]
    if rules.even_building:
        for group in board.groups.values():
            levels = [snap["squares"][j]["level"] for j in group]
            assert max(levels) - min(levels) <= 1, f"uneven group {group}: {levels}"
    # a player's net worth in the snapshot follows docs/rules.md §16
    for p in players:
        worth = p["cash"]
        for i in owners.get(p["seat"], []):
            sq, entry = board.squares[i], snap["squares"][i]
            worth += sq.price + entry["level"] * sq.level_cost
            if entry["mortgaged"]:
                worth -= sq.mortgage_value * rules.redemption_percent // 100
            if "murabaha" in entry:
                worth -= entry["murabaha"]["amount"]
        assert p["net_worth"] == worth
    if snap["over"]:
        assert snap["pending"] == [] and snap["result"] is not None
        assert all(game.legal_actions(s) == [] for s in range(snap["seats"]))
    else:
        pending = snap["pending"]
        assert pending and not players[pending[0]["seat"]]["out"]
        assert snap["round"] <= rules.round_limit
        check_liveness(game, snap)
    open_by: dict[int, int] = {}
    for t in snap["trades"]:
        assert not players[t["from"]]["out"] and not players[t["to"]]["out"]
        open_by[t["from"]] = open_by.get(t["from"], 0) + 1
        # an offer that became invalid lapses at once (docs/rules.md §8)
        for seat, side in ((t["from"], t["give"]), (t["to"], t["take"])):
            assert players[seat]["cash"] >= side["cash"], f"trade {t['id']}: cash short"
            for i in side["squares"]:
                entry = snap["squares"][i]
                assert entry["owner"] == seat and "murabaha" not in entry, f"trade {t['id']}: square {i}"
                group = board.squares[i].group
                if group:
                    assert not any(snap["squares"][j]["level"] for j in board.groups[group])
    assert all(n <= rules.max_open_trades for n in open_by.values())
    assert_no_secrets(game, snap)


def liquidation(snap: dict[str, Any], seat: int) -> int:
    board = load_board(snap["board"])
    total = int(snap["players"][seat]["cash"])
    for sq, entry in zip(board.squares, snap["squares"], strict=True):
        if entry["owner"] != seat:
            continue
        total += entry["level"] * sq.level_cost // 2
        if not entry["mortgaged"] and "murabaha" not in entry:
            total += sq.mortgage_value
    return total


def dice_total(dice: list[int]) -> int:
    """The move total of a roll: two dice, plus Speed's third die when it shows 1, 2 or 3."""
    if len(dice) < 2:
        return 0
    return dice[0] + dice[1] + (dice[2] if len(dice) > 2 and dice[2] <= 3 else 0)


def check_events(before: dict[str, Any], events: list[dict[str, Any]], game: Game) -> None:
    """Rents and auctions in the events follow docs/rules.md §§5, 6, 13 and 18 (an independent oracle).

    One action can run on (an auction ends, then an automatic roll lands on rent), so the state the
    oracle prices against is the snapshot before the action, brought forward event by event."""
    rules = game.rules
    board = load_board(before["board"])
    squares = [dict(sq) for sq in before["squares"]]
    players = [dict(p) for p in before["players"]]
    total = dice_total(before["dice"])  # a Bus choice or a teleport resolves the previous action's roll
    for e in events:
        kind = e["type"]
        if kind == "dice_rolled":
            total = dice_total(e["dice"])
        elif kind in ("company_bought", "murabaha_bought", "auction_won"):
            squares[e["square"]]["owner"] = e["seat"]
            if kind == "auction_won":
                price = board.squares[e["square"]].price
                assert e["amount"] >= price and (e["amount"] - price) % rules.auction_step == 0
        elif kind == "trade_accepted":
            for i in e["give"]["squares"]:
                squares[i]["owner"] = e["to"]
            for i in e["take"]["squares"]:
                squares[i]["owner"] = e["from"]
        elif kind in ("built", "sold"):
            squares[e["square"]]["level"] = e["level"]
        elif kind in ("mortgaged", "redeemed"):
            squares[e["square"]]["mortgaged"] = kind == "mortgaged"
        elif kind == "mortgage_expired":
            squares[e["square"]].update(owner=None, mortgaged=False)
        elif kind == "player_out":
            players[e["seat"]]["out"] = True
            for i in e["squares"]:
                if e.get("heir") is None:
                    squares[i].update(owner=None, mortgaged=False, level=0)
                else:
                    squares[i]["owner"] = e["heir"]
        elif kind == "god_arrived":
            players[e["seat"]]["god"] = e["god"]
        elif kind == "god_left":
            players[e["seat"]]["god"] = None
        elif kind == "rent_waived":
            owner, tenant = e["owner"], e["seat"]
            ally = rules.teams and players[owner]["team"] == players[tenant]["team"]
            assert ally or squares[e["square"]]["mortgaged"], e
        elif kind == "rent_due":
            assert e["amount"] == expected_rent(board, rules, squares, players, e, total), e
            assert e["tax"] == e["amount"] * rules.rent_tax_percent_x100(before["round"]) // 10000


def expected_rent(board: Any, rules: Any, squares: list[dict[str, Any]], players: list[dict[str, Any]],
                  e: dict[str, Any], total: int) -> int:
    i, owner, tenant = e["square"], e["owner"], e["seat"]
    sq, entry = board.squares[i], squares[i]
    assert entry["owner"] == owner != tenant and not entry["mortgaged"]
    assert not (rules.teams and players[owner]["team"] == players[tenant]["team"])
    if sq.kind == "street":
        if entry["level"]:
            rent = sq.rents[entry["level"]]
        else:
            assert sq.group is not None
            whole = all(squares[j]["owner"] == owner for j in board.groups[sq.group])
            rent = sq.rents[0] * (2 if whole else 1)
    elif sq.kind == "dealership":
        held = sum(1 for j in board.dealerships if squares[j]["owner"] == owner)
        rent = board.dealership_rents[held - 1]
    else:
        held = sum(1 for j in board.utilities if squares[j]["owner"] == owner)
        rent = total * board.utility_multipliers[held - 1]
    rarity = players[owner]["cards"].get(str(i))
    if rarity:
        rent += rent * min(33, CARD_BONUS_PERCENT[rarity]) // 100
    amount = rent
    if rules.gods:
        if players[owner]["god"] == "wealth":
            amount += rent * rules.god_surcharge_percent // 100
        if players[tenant]["god"] == "misfortune":
            amount += rent * rules.god_surcharge_percent // 100
    return int(amount)


#: Per pending decision, the actions of which at least one must be on offer so the game can go on.
_WAYS_ON = {
    "roll": {"roll"},
    "jail": {"jail_roll"},
    "buy": {"decline"},
    "bid": {"pass"},
    "pay": {"pay", "declare_bankruptcy", "sell", "mortgage"},
    "jackpot": {"jackpot_decline"},
    "bus": {"choose_bus"},
    "teleport": {"teleport"},
}


def check_liveness(game: Game, snap: dict[str, Any]) -> None:
    """The seat the game waits for always has a way to move it on, and only it has turn decisions."""
    first = snap["pending"][0]
    seat, decision = first["seat"], first["decision"]
    kinds = {a["type"] for a in game.legal_actions(seat)}
    assert kinds & _WAYS_ON[decision], f"seat {seat} is stuck in {decision!r}: {sorted(kinds)}"
    if snap["phase"] not in ("auction", "pay"):
        assert seat == snap["turn"]
    if decision == "pay":
        # bankruptcy is offered exactly when selling and mortgaging everything cannot cover the debt
        assert ("declare_bankruptcy" in kinds) == (liquidation(snap, seat) < snap["debt"]["amount"])
        assert ("pay" in kinds) == (snap["players"][seat]["cash"] >= snap["debt"]["amount"])
    turn_only = set().union(*_WAYS_ON.values()) | {"build", "redeem", "pay_bail", "buy", "bid", "pay_murabaha"}
    for other in range(snap["seats"]):
        if other != seat:
            extra = {a["type"] for a in game.legal_actions(other)} & turn_only
            assert not extra, f"seat {other} is offered {extra} while seat {seat} decides"


def assert_no_secrets(game: Game, snap: dict[str, Any]) -> None:
    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                assert k not in ("seed", "deck", "rng", "dice_queue"), f"snapshot leaks {k!r}"
                walk(v)
        elif isinstance(x, list):
            assert x != game.deck, "snapshot leaks the deck order"
            for v in x:
                walk(v)

    walk(snap)
    text = json.dumps(snap)
    for card in CARD_IDS:
        if card not in _CARD_IDS_ALSO_PUBLIC:
            assert f'"{card}"' not in text, f"snapshot names card {card!r}"


def check_legal_actions_apply(rng: random.Random, game: Game, seats: list[int]) -> None:
    """Every listed (non-template) action applies on a copy; concrete trades from the template apply
    exactly when they are fair. Trying them on copies never touches the game itself."""
    before = dump(game)
    for seat in seats:
        for act in game.legal_actions(seat):
            if act.get("template"):
                for _ in range(2):
                    trade = concrete_trade(rng, act)
                    g = game.copy()
                    fair = expected_fair(game, seat, trade)
                    try:
                        g.apply(seat, trade)
                    except IllegalAction as exc:
                        assert not fair and exc.code == "unfair_trade", (trade, exc.code)
                    else:
                        assert fair, f"unfair trade accepted: {trade}"
                continue
            g = game.copy()
            try:
                g.apply(seat, dict(act))
            except IllegalAction as exc:  # pragma: no cover - a failure report
                raise AssertionError(f"listed action {act} for seat {seat} refused: {exc.code}") from exc
    assert dump(game) == before, "applying actions to a copy changed the game"


# ---------------------------------------------------------------------------------------------- illegal probes

ACTION_TYPES = ["roll", "jail_roll", "pay_bail", "buy", "buy_murabaha", "decline", "bid", "pass", "pay",
          "declare_bankruptcy", "build", "sell", "mortgage", "redeem", "pay_murabaha", "jackpot_bet",
          "jackpot_decline", "choose_bus", "teleport", "accept_trade", "decline_trade", "cancel_trade",
          "propose_trade", "timeout", "end_turn", "cheat", "", None, 7]

_JUNK: list[Any] = [None, -1, 0, 1, 39, 40, 999, 3.5, "3", True, [], {}, [1, 2], "sum", -100, 10**9]


def random_probe(rng: random.Random, game: Game) -> tuple[Any, Any]:
    seats: list[Any] = list(range(game.seats))
    seat = rng.choice([*seats, *seats, None, -1, game.seats, "0", True])
    kind = rng.choice(ACTION_TYPES)
    if rng.random() < 0.05:
        return seat, rng.choice([None, [], "roll", 3])
    action: dict[str, Any] = {"type": kind}
    for key in ("square", "amount", "use", "numbers", "trade", "to", "give", "take", "seat", "clock"):
        if rng.random() < 0.3:
            action[key] = rng.choice(_JUNK)
    if kind == "timeout" and rng.random() < 0.5:
        action["clock"] = rng.choice(["turn:0", "pay:1", "auction:1:2", "trade:3", "turn:99999"])
    if kind == "propose_trade" and rng.random() < 0.5:
        action["to"] = rng.choice(seats)
        action["give"] = {"cash": rng.choice([0, 1, 10**7, -5]), "squares": rng.sample(range(40), 2)}
        action["take"] = {"cash": rng.choice([0, 10**7]), "squares": []}
    return seat, action


def _normalise(action: dict[str, Any]) -> dict[str, Any]:
    a = dict(action)
    if a.get("type") == "jackpot_bet" and isinstance(a.get("numbers"), list):
        with contextlib.suppress(TypeError):
            a["numbers"] = sorted(a["numbers"])
    return a


def might_be_legal(game: Game, seat: Any, action: Any) -> bool:
    """True when ``action`` could legitimately be accepted (so the probe proves nothing)."""
    if not isinstance(action, dict):
        return False
    kind = action.get("type")
    if kind == "timeout":
        if seat is not None:
            return False
        pending = game.snapshot()["pending"]
        if "trade" in action:
            return any(t["trade"] == action["trade"] for t in pending[1:] if "trade" in t)
        first = pending[0] if pending else None
        if first is None:
            return False
        if action.get("seat") is not None and action["seat"] != first["seat"]:
            return False
        return action.get("clock") is None or action["clock"] == first["clock"]["id"]
    if kind == "propose_trade":
        return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < game.seats
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game.seats:
        return False
    listed = [_normalise(a) for a in game.legal_actions(seat)]
    probe = _normalise(action)
    core = {k: v for k, v in probe.items() if k in ("type", "square", "numbers", "use", "trade", "amount")}
    for a in listed:
        if a["type"] != kind:
            continue
        if kind == "bid" and "amount" not in probe:
            return True
        # extra fields are ignored by the engine; the listed fields must match
        if all(k in core and core[k] == a[k] and type(core[k]) is type(a[k]) for k in a if k != "type"):
            return True
    return False


def probe_illegal(rng: random.Random, game: Game, count: int) -> None:
    before = dump(game)
    n_actions = len(game.actions)
    for _ in range(count):
        seat, action = random_probe(rng, game)
        if might_be_legal(game, seat, action):
            continue
        try:
            game.apply(seat, action)
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"unlisted action accepted: seat {seat!r} {action!r}")
        assert dump(game) == before, f"refused action changed the game: {seat!r} {action!r}"
        assert len(game.actions) == n_actions


# ---------------------------------------------------------------------------------------------- a whole game


def new(mode: str, seats: int, seed: int, **setup: Any) -> Game:
    return opolyx.new_game(mode, seats, seed, **setup)


def play(game: Game, rng: random.Random, steps: int, *, heavy: bool = True) -> int:
    """Play up to ``steps`` random actions; returns how many were applied."""
    done = 0
    check_invariants(game)
    for _ in range(steps):
        move = next_move(rng, game)
        if move is None:
            break
        seat, action = move
        if heavy:
            probe_illegal(rng, game, 3)
            actor = game.snapshot()["pending"][0]["seat"]
            others = [s for s in range(game.seats) if s != actor]
            check_legal_actions_apply(rng, game, [actor, rng.choice(others)])
        before = game.snapshot()
        try:
            events = game.apply(seat, action)
        except IllegalAction as exc:
            # only a few of the random choices may be refused: unfair trades, stale answers to trades
            if action["type"] == "propose_trade":
                assert exc.code == "unfair_trade" and not expected_fair(game, seat, action), exc.code
            elif action["type"] in ("accept_trade", "decline_trade", "cancel_trade", "timeout", "resign"):
                raise
            else:
                raise
            continue
        done += 1
        check_events(before, events, game)
        check_invariants(game)
    return done
