"""``opolyx simulate --league``: round-robin tables of our bots and outside strategies, rated with OpenSkill.

A *pairing* seats one challenger against ``seats - 1`` copies of one opponent, with the challenger's seat
rotating game by game (game ``k`` puts it in seat ``k % seats``) so no seat advantage leaks into the figures.
Every challenger meets every other entrant. That is the table a bot's strength is judged by: beating three
copies of a strategy is what a player filling seats with bots, or facing one, actually meets.

Entrants are our strengths (``easy``, ``normal``, ``hard``, and ``hard-nosearch``: the hard bot with its
look-ahead switched off, the control for measuring the search) plus any strategies a *field module* names in
its ``STRATEGIES`` mapping (name → factory taking a seed). The field of outside-style strategies ships as
:mod:`opolyx.sim.field` (``--field opolyx.sim.field``), so a league runs from any directory; it exists only
to measure our bots and no room offers it.

Ratings: OpenSkill's Plackett–Luce model over every game's placements, in game order (so a league is a
function of its seed). An entrant seated several times in one game (the copies) is rated once per seat from
the same prior and moves by the mean of those updates. Win rates carry 95 % Wilson intervals; in Team
mode a challenger "wins" when its team does (it then shares that team with copies of the opponent).
"""

from __future__ import annotations

import importlib
import multiprocessing
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from opolyx.bots import STRENGTHS, Bot, derive_seed, make_bot, play_game
from opolyx.sim.shares import play_shared
from opolyx.sim.stats import wilson

#: Our entrants beyond the plain strengths.
SEARCH_OFF = "hard-nosearch"
OURS: tuple[str, ...] = (*STRENGTHS, SEARCH_OFF)

BotFactory = Callable[[int], Bot]


@dataclass(frozen=True, slots=True)
class LeagueConfig:
    mode: str
    seats: int
    entrants: tuple[str, ...]
    challengers: tuple[str, ...]
    games: int  # per pairing
    seed: int
    field: str | None = None  # module path of a field module (``STRATEGIES``)
    vip: bool = False
    hard_ms: float | None = None

    def pairings(self) -> list[tuple[str, str]]:
        return [(c, o) for c in self.challengers for o in self.entrants if o != c]


class UnknownEntrant(ValueError):
    """An entrant name that is neither one of our bots nor in the field module."""


#: The field of outside strategies that ships with the simulator.
PACKAGED_FIELD = "opolyx.sim.field"
#: Where the field lived before it shipped in the package; a league command naming it still finds it.
FIELD_ALIASES = {"benchmarks.field": PACKAGED_FIELD}


def load_field(module: str | None) -> Mapping[str, BotFactory]:
    """The field module's ``STRATEGIES``; the working directory is searched too, for a field of your own."""
    if module is None:
        return {}
    module = FIELD_ALIASES.get(module, module)
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    mod = importlib.import_module(module)
    strategies = getattr(mod, "STRATEGIES", None)
    if not isinstance(strategies, Mapping):
        raise UnknownEntrant(f"field module {module!r} has no STRATEGIES mapping")
    clash = sorted(set(strategies) & set(OURS))
    if clash:
        raise UnknownEntrant(f"field strategies may not reuse our bots' names: {', '.join(clash)}")
    return strategies


def check_entrants(config: LeagueConfig) -> None:
    field = load_field(config.field)
    for name in (*config.entrants, *config.challengers):
        if name not in OURS and name not in field:
            known = ", ".join((*OURS, *sorted(field)))
            raise UnknownEntrant(f"unknown entrant {name!r}; known: {known}")
    if not config.pairings():
        raise UnknownEntrant("a league needs at least two entrants")


def make_entrant(name: str, seed: int, field: Mapping[str, BotFactory], hard_ms: float | None) -> Bot:
    if name == SEARCH_OFF:
        from opolyx.bots.hard import HardBot

        bot = HardBot(seed, deterministic=True, budget_ms=hard_ms, lookahead=False)
        bot.strength = SEARCH_OFF
        return bot
    if name in STRENGTHS:
        return make_bot(name, seed, deterministic=True, budget_ms=hard_ms)
    return field[name](seed)


def line_up(challenger: str, opponent: str, seats: int, index: int) -> list[str]:
    """Game ``index`` of a pairing: the challenger in seat ``index % seats``, the opponent everywhere else."""
    names = [opponent] * seats
    names[index % seats] = challenger
    return names


def play_one(config: LeagueConfig, pairing: int, index: int) -> dict[str, Any]:
    """One game of one pairing: who sat where, the placements and whether the challenger's side won."""
    challenger, opponent = config.pairings()[pairing]
    field = load_field(config.field)
    names = line_up(challenger, opponent, config.seats, index)
    seed = derive_seed(config.seed, "league", challenger, opponent, index)
    bots = [make_entrant(n, derive_seed(seed, "bot", k), field, config.hard_ms) for k, n in enumerate(names)]
    info = [{"name": f"{n} {k + 1}", "bot": True, "vip": config.vip} for k, n in enumerate(names)]
    game = play_game(config.mode, config.seats, seed, names, bots=bots, seat_info=info)
    result = game.result
    assert result is not None
    places = {pl["seat"]: pl["place"] for pl in result["placements"]}
    seat = index % config.seats
    return {
        "pairing": pairing,
        "index": index,
        "names": names,
        "places": [places[k] for k in range(config.seats)],
        "won": places[seat] == 1,
        "rounds": result["round"],
        "reason": result["reason"],
    }


def _play_numbered(config: LeagueConfig, number: int) -> dict[str, Any]:
    """Game ``number`` of the league, counting every pairing's games in turn."""
    return play_one(config, number // config.games, number % config.games)


def iter_games(config: LeagueConfig, workers: int = 1) -> Iterator[dict[str, Any]]:
    """Every game of every pairing, in (pairing, index) order whatever the number of workers."""
    count = len(config.pairings()) * config.games
    if workers <= 1:
        for number in range(count):
            yield _play_numbered(config, number)
        return
    yield from play_shared(multiprocessing.get_context("spawn"), workers, partial(_play_numbered, config), count, 8)


class Ratings:
    """OpenSkill Plackett–Luce ratings per entrant, updated one game at a time."""

    def __init__(self, names: Sequence[str]) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.mu: dict[str, float] = {}
        self.sigma: dict[str, float] = {}
        for n in names:
            r = self.model.rating()
            self.mu[n], self.sigma[n] = r.mu, r.sigma

    def update(self, names: Sequence[str], places: Sequence[int]) -> None:
        teams = [[self.model.rating(mu=self.mu[n], sigma=self.sigma[n])] for n in names]
        new = self.model.rate(teams, ranks=list(places))
        moves: dict[str, list[tuple[float, float]]] = {}
        for n, team in zip(names, new, strict=True):
            moves.setdefault(n, []).append((team[0].mu, team[0].sigma))
        for n, got in moves.items():
            self.mu[n] += sum(mu - self.mu[n] for mu, _ in got) / len(got)
            self.sigma[n] = sum(s for _, s in got) / len(got)

    def table(self) -> list[dict[str, Any]]:
        rows = [{"entrant": n, "mu": self.mu[n], "sigma": self.sigma[n], "ordinal": self.mu[n] - 3 * self.sigma[n]}
                for n in self.mu]
        return sorted(rows, key=lambda r: -r["ordinal"])


def run_league(
    config: LeagueConfig,
    workers: int = 1,
    progress: Callable[[Iterator[dict[str, Any]], int], Iterator[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """Play the whole league and return ratings and per-pairing win rates (JSON-ready)."""
    check_entrants(config)
    pairings = config.pairings()
    names = list(dict.fromkeys((*config.challengers, *config.entrants)))
    ratings = Ratings(names)
    wins = [0] * len(pairings)
    played = [0] * len(pairings)
    rounds = [0] * len(pairings)
    games: Iterator[dict[str, Any]] = iter_games(config, workers)
    if progress is not None:
        games = progress(games, len(pairings) * config.games)
    for g in games:
        ratings.update(g["names"], g["places"])
        p = g["pairing"]
        played[p] += 1
        wins[p] += g["won"]
        rounds[p] += g["rounds"]
    table = []
    for p, (c, o) in enumerate(pairings):
        lo, hi = wilson(wins[p], played[p])
        table.append({
            "challenger": c,
            "opponent": o,
            "games": played[p],
            "wins": wins[p],
            "rate": wins[p] / played[p] if played[p] else 0.0,
            "ci95": [lo, hi],
            "mean_rounds": rounds[p] / played[p] if played[p] else 0.0,
        })
    return {
        "config": {
            "mode": config.mode,
            "seats": config.seats,
            "entrants": list(config.entrants),
            "challengers": list(config.challengers),
            "games_per_pairing": config.games,
            "seed": config.seed,
            "field": config.field,
            "vip": config.vip,
            "hard_ms": config.hard_ms,
        },
        "chance": 1 / config.seats if config.mode != "team" else 0.5,
        "ratings": ratings.table(),
        "pairings": table,
    }


def format_league(data: dict[str, Any]) -> str:
    cfg = data["config"]
    lines = [
        f"opolyx league: {cfg['mode']}, {cfg['seats']} seats, {cfg['games_per_pairing']} games per pairing, "
        f"seed {cfg['seed']} (chance: {data['chance']:.1%})",
        "ratings (OpenSkill Plackett-Luce; ordinal = mu - 3 sigma):",
    ]
    for r in data["ratings"]:
        lines.append(f"  {r['entrant']:<14} mu {r['mu']:6.2f}  sigma {r['sigma']:5.2f}  ordinal {r['ordinal']:6.2f}")
    lines.append(f"win rate of the challenger against {cfg['seats'] - 1} copies of the opponent (95 % Wilson CI):")
    for t in data["pairings"]:
        lines.append(
            f"  {t['challenger']:<14} vs {t['opponent']:<14} {t['rate']:6.1%}  [{t['ci95'][0]:.1%}, "
            f"{t['ci95'][1]:.1%}]  ({t['wins']}/{t['games']}, {t['mean_rounds']:.0f} rounds on average)"
        )
    return "\n".join(lines)


def write_league_plot(data: dict[str, Any], path: str | Path) -> None:
    """Ratings with ±3σ and every pairing's win rate with its interval, beside the line of pure chance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = data["ratings"]
    pairs = data["pairings"]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, max(4.0, 0.35 * len(pairs) + 1.5)),
                                 gridspec_kw={"width_ratios": [1, 2]})
    ys = range(len(ratings))
    ax.errorbar([r["mu"] for r in ratings], list(ys), xerr=[3 * r["sigma"] for r in ratings], fmt="o",
                color="#2b6cb0", capsize=3)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([r["entrant"] for r in ratings])
    ax.invert_yaxis()
    ax.set_xlabel("OpenSkill mu (±3 sigma)")
    ax.set_title("Ratings")
    labels = [f"{t['challenger']} vs {t['opponent']}" for t in pairs]
    rates = [t["rate"] for t in pairs]
    low = [t["rate"] - t["ci95"][0] for t in pairs]
    high = [t["ci95"][1] - t["rate"] for t in pairs]
    yp = range(len(pairs))
    bx.barh(list(yp), rates, xerr=[low, high], capsize=3, color="#d9822b")
    bx.axvline(data["chance"], color="black", ls="--", lw=1, label="chance")
    bx.set_yticks(list(yp))
    bx.set_yticklabels(labels, fontsize=8)
    bx.invert_yaxis()
    bx.set_xlim(0, 1)
    bx.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    bx.set_title(f"Challenger win rate, 95 % Wilson CI — {data['config']['mode']}")
    bx.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(str(path), dpi=110)
    plt.close(fig)
