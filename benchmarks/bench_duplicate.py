"""Duplicate deals at two tables, against swapped seats and single deals: how precise the ratings are, simulated.

A field of bots with known strengths plays the same number of matches in each
of four schemes, and the rating fit of :mod:`arena.competition.ratings` is
scored against the truth:

* **swapped seats**: each deal played twice by two bots, seats swapped (local
  tournaments, ``arena compare``);
* **two tables**: each deal played at two tables by four bots, seats kept
  (the server's scheme), fitted as table deals (the conditional likelihood);
* **two tables, naive**: the same games fitted as independent matches, each
  its own unit: what the comparison of the tables adds;
* **single deals**: each deal played once.

The game: at a table seat A wins with probability
``sigmoid(theta_A - theta_B + seat + luck)`` (no draws by default;
``--draw NU`` adds Davidson's draws, a draw weighing ``NU`` times the
geometric mean of a win's and a loss's weights), where ``seat`` is seat
A's advantage (``--seat``, in Elo) and ``luck`` the deal's, drawn for each
deal from a normal distribution of the standard deviation in the table's
first column (the same at both tables of a deal, and at both legs of a
swapped pair: it is the cards). Luck pulls every expected score towards a
half, so the fits of swapped seats and of single deals (which see expected
scores) estimate flatter strengths than the table fit (which conditions the
luck away): each is scored against what it estimates, the differences of
``logit E[score]`` over deals and seats, or of the strengths themselves.
Hence the columns:

* **RMSE**: of every pair's fitted rating difference against that truth, Elo;
* **rel. error**: the RMSE over the spread (standard deviation) of those true
  differences: how well the field is told apart, comparable across schemes;
* **matches x**: the matches a scheme needs for the relative error of swapped
  seats (its rel. error over theirs, squared);
* **cover**: how often the fit's 95% interval of a difference holds the truth.

Then a fit at a server's scale (``--versions``, ``--quads``), timed beside a
pairs-only fit of the same field in the same run, with the load average.

Usage: ``python benchmarks/bench_duplicate.py [--quick] [--seed N] [--replications N] [--matches N]``
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.competition.ratings import ELO_PER_NAT, Fitter, Outcome, Ratings

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
SCHEMES = ("swapped seats", "two tables", "two tables, naive", "single deals")


@dataclass(frozen=True)
class Setup:
    bots: int
    matches: int
    """Per replication and scheme: games played (a deal at two tables or a swapped pair is two)."""
    replications: int
    luck: tuple[float, ...]
    """Standard deviations of a deal's luck, Elo."""
    seat: float
    """Seat A's advantage, Elo."""
    draw: float = 0.0
    """Davidson's draw weight ``nu``: a table's win, draw and loss weigh ``e^x``, ``nu e^(x/2)``, 1."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a small field, two luck sizes, a few replications")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--bots", type=int, default=None, help="the field (16; quick: 10)")
    parser.add_argument(
        "--matches", type=int, default=None, help="games per scheme and replication (3200; quick: 1000)"
    )
    parser.add_argument("--replications", type=int, default=None, help="(100; quick: 10)")
    parser.add_argument("--seat", type=float, default=50.0, help="seat A's advantage, Elo (50)")
    parser.add_argument("--draw", type=float, default=0.0, help="Davidson's draw weight nu (0: no draws)")
    parser.add_argument("--versions", type=int, default=None, help="the scale test's field (300; quick: 100)")
    parser.add_argument("--quads", type=int, default=None, help="the scale test's quads (100000; quick: 10000)")
    return parser.parse_args(argv)


def _sigmoid(x: Floats) -> Floats:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)), dtype=np.float64)


def chances(x: Floats, draw: float) -> tuple[Floats, Floats]:
    """Seat A's chances to win and to draw at log-odds ``x``, in Davidson's model (no draws when ``draw`` is 0)."""
    half = np.exp(-0.5 * np.abs(x))  # (e^(x/2) over the larger of e^x and 1: no overflow)
    big, small = np.where(x >= 0, 1.0, half * half), np.where(x >= 0, half * half, 1.0)
    total = big + draw * half + small
    return np.asarray(big / total, dtype=np.float64), np.asarray(draw * half / total, dtype=np.float64)


def marginal_differences(theta: Floats, luck: float, seat: float, draw: float = 0.0) -> Floats:
    """``logit`` of each pair's expected score over deals and both seats: what pair and single fits estimate."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(96)
    weights = weights / weights.sum()
    d = theta[:, None] - theta[None, :]
    spread = luck / ELO_PER_NAT * nodes
    edge = seat / ELO_PER_NAT

    def expected(x: Floats) -> Floats:
        won, drawn = chances(x[..., None] + spread, draw)
        return np.asarray((won + 0.5 * drawn) @ weights, dtype=np.float64)

    mean = 0.5 * (expected(d + edge) + expected(d - edge))
    return np.asarray(np.log(mean) - np.log1p(-mean), dtype=np.float64)


@dataclass
class Score:
    """Summed over replications: squared errors, pairs counted, pairs covered, and the truth's spread."""

    squares: float = 0.0
    pairs: int = 0
    covered: int = 0
    spread: float = 0.0

    def add(self, ratings: Ratings, names: list[str], truth: Floats) -> None:
        upper = np.triu_indices(len(names), 1)
        elo = np.array(ratings.elo)
        fitted = (elo[:, None] - elo[None, :])[upper]
        true = truth[upper] * ELO_PER_NAT
        cov = np.array(ratings.covariance)
        var = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov
        half = 1.959963984540054 * np.sqrt(np.maximum(var[upper], 0.0))
        self.squares += float(np.sum((fitted - true) ** 2))
        self.pairs += len(true)
        self.covered += int(np.sum(np.abs(fitted - true) <= half))
        self.spread += float(np.std(true)) * len(true)

    @property
    def rmse(self) -> float:
        return math.sqrt(self.squares / self.pairs)

    @property
    def relative(self) -> float:
        return self.rmse / (self.spread / self.pairs)

    @property
    def coverage(self) -> float:
        return self.covered / self.pairs


def play(x: Floats, rng: np.random.Generator, draw: float = 0.0) -> Floats:
    """Seat A's scores (1, 0.5 or 0) at log-odds ``x``."""
    won, drawn = chances(x, draw)
    u = rng.random(x.shape)
    return np.asarray(np.where(u < won, 1.0, np.where(u < won + drawn, 0.5, 0.0)), dtype=np.float64)


def replication(
    setup: Setup,
    theta: Floats,
    luck: float,
    rng: np.random.Generator,
    scores: dict[str, Score],
    truth: dict[str, Floats],
) -> None:
    """One field's matches in every scheme, fitted and scored."""
    n, names = setup.bots, [f"bot{i:02d}" for i in range(setup.bots)]
    seat, spread = setup.seat / ELO_PER_NAT, luck / ELO_PER_NAT
    deals = setup.matches // 2

    # Swapped seats: a deal, two legs, seats swapped.
    first, second = _distinct(rng, n, deals, 2).T
    cards = rng.normal(0.0, spread, deals) + seat
    leg1 = play(theta[first] - theta[second] + cards, rng, setup.draw)
    leg2 = play(theta[second] - theta[first] + cards, rng, setup.draw)
    fitter = Fitter(names)
    for k in range(deals):
        a, b = names[first[k]], names[second[k]]
        fitter.add(Outcome(a, b, float(leg1[k]), f"d{k}"))
        fitter.add(Outcome(b, a, float(leg2[k]), f"d{k}"))
    scores["swapped seats"].add(fitter.ratings(), names, truth["marginal"])

    # Two tables: four bots, seats kept, the same cards.
    quads = _distinct(rng, n, deals, 4)
    cards = rng.normal(0.0, spread, deals) + seat
    table1 = play(theta[quads[:, 0]] - theta[quads[:, 1]] + cards, rng, setup.draw)
    table2 = play(theta[quads[:, 2]] - theta[quads[:, 3]] + cards, rng, setup.draw)
    counts = np.zeros((deals, 5), dtype=np.int64)
    counts[np.arange(deals), np.rint(2 * (table1 + 1 - table2)).astype(np.int64)] = 1
    fitter = Fitter(names)
    fitter.add_table_arrays(quads.astype(np.intp), counts)
    scores["two tables"].add(fitter.ratings(), names, truth["latent"])
    fitter = Fitter(names)
    for k in range(deals):
        a1, b1, a2, b2 = (names[i] for i in quads[k])
        fitter.add(Outcome(a1, b1, float(table1[k])))
        fitter.add(Outcome(a2, b2, float(table2[k])))
    scores["two tables, naive"].add(fitter.ratings(), names, truth["marginal"])

    # Single deals: a deal, one match (a random pair in random seats).
    first, second = _distinct(rng, n, setup.matches, 2).T
    cards = rng.normal(0.0, spread, setup.matches) + seat
    result = play(theta[first] - theta[second] + cards, rng, setup.draw)
    fitter = Fitter(names)
    for k in range(setup.matches):
        fitter.add(Outcome(names[first[k]], names[second[k]], float(result[k])))
    scores["single deals"].add(fitter.ratings(), names, truth["marginal"])


def _distinct(rng: np.random.Generator, n: int, rows: int, k: int) -> Ints:
    """``rows`` draws of ``k`` different bots of ``n``, in random order."""
    return np.asarray(np.argsort(rng.random((rows, n)), axis=1)[:, :k], dtype=np.int64)


def _draws(draw: float) -> str:
    if not draw:
        return "no draws"
    return f"Davidson's draws, nu = {draw:g}: {100 * draw / (2 + draw):.0f}% of matches between equal bots without luck"


def precision(setup: Setup, seed: int) -> list[str]:
    """The markdown table of the four schemes at each luck size."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(-1.0, 1.0, setup.bots)  # +-174 Elo: a field of bots of one game, weakest to strongest
    lines = [
        f"{setup.bots} bots, strengths evenly from -174 to +174 Elo; {setup.matches} matches per scheme, "
        f"{setup.replications} replications; seat A's advantage {setup.seat:g} Elo; {_draws(setup.draw)}; "
        + f"seed {seed}",
        "",
        "| luck (SD, Elo) | scheme | RMSE (Elo) | rel. error | matches x | cover |",
        "|---:|:---|---:|---:|---:|---:|",
    ]
    for luck in setup.luck:
        marginal = marginal_differences(theta, luck, setup.seat, setup.draw)
        truth = {"marginal": marginal, "latent": theta[:, None] - theta[None, :]}
        scores = {scheme: Score() for scheme in SCHEMES}
        for _ in range(setup.replications):
            replication(setup, theta, luck, rng, scores, truth)
        base = scores["swapped seats"].relative
        for scheme in SCHEMES:
            s = scores[scheme]
            lines.append(
                f"| {luck:g} | {scheme} | {s.rmse:.1f} | {s.relative:.3f} | {(s.relative / base) ** 2:.2f} | "
                f"{100 * s.coverage:.0f}% |"
            )
    return lines


def timed(action: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def scale(versions: int, quads: int, seed: int) -> list[str]:
    """A whole fit of ``versions`` bots and ``quads`` quads, against a pairs-only fit of the same field."""
    rng = np.random.default_rng(seed)
    names = [f"v{i:03d}" for i in range(versions)]
    theta = rng.normal(0.0, 1.0, versions)
    places = _distinct(rng, versions, quads, 4).astype(np.intp)
    deals = rng.integers(1, 6, quads)  # each quad 1 to 5 deals, each deal its own luck
    quad_of = np.repeat(np.arange(quads), deals)
    cards = rng.normal(0.0, 1.0, len(quad_of))
    won1 = play(theta[places[quad_of, 0]] - theta[places[quad_of, 1]] + cards, rng)
    won2 = play(theta[places[quad_of, 2]] - theta[places[quad_of, 3]] + cards, rng)
    counts = np.zeros((quads, 5), dtype=np.int64)
    np.add.at(counts, (quad_of, np.rint(2 * (won1 + 1 - won2)).astype(np.int64)), 1)
    pairs = Fitter(names)  # every pair of the field, the totals of a server's 100 matches each
    expected = _sigmoid(theta[:, None] - theta[None, :])
    pairs.wins = (100 * expected * (1 - np.eye(versions))).tolist()

    def bulk() -> Fitter:
        fitter = Fitter(names)
        fitter.add_table_arrays(places, counts)
        return fitter

    def one_by_one() -> Fitter:
        fitter = Fitter(names)
        for quad, row in zip(places.tolist(), counts.tolist(), strict=True):
            a1, b1, a2, b2 = quad
            fitter.add_tables(names[a1], names[b1], names[a2], names[b2], row)
        return fitter

    rows: dict[str, list[float]] = {}
    for _ in range(5):  # interleaved, the best of five
        for label, action in (
            ("pairs only: ratings()", pairs.ratings),
            ("tables: add_table_arrays", bulk),
            ("tables: add_tables, one call a quad", one_by_one),
        ):
            rows.setdefault(label, []).append(timed(action)[0])
        fitter = bulk()
        seconds, cold = timed(fitter.ratings)
        rows.setdefault("tables: ratings() from 0", []).append(seconds)
        assert isinstance(cold, Ratings)
        grown = bulk()
        grown.add_tables(names[0], names[1], names[2], names[3], [0, 0, 0, 0, 1])
        start = dict(zip(names, cold.strengths, strict=True))
        seconds, _ = timed(partial(grown.ratings, start=start))
        rows.setdefault("tables: ratings(start=last fit), one deal more", []).append(seconds)
    base = min(rows["pairs only: ratings()"])
    lines = [
        f"{versions} versions, {quads} quads ({int(deals.sum())} deals); load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs",
        "",
        "| step | seconds (best of 5) | x pairs-only fit |",
        "|:---|---:|---:|",
    ]
    lines += [f"| {label} | {min(times):.3f} | {min(times) / base:.2f} |" for label, times in rows.items()]
    return lines


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    quick = args.quick
    setup = Setup(
        bots=args.bots or (10 if quick else 16),
        matches=args.matches or (1000 if quick else 3200),
        replications=args.replications or (10 if quick else 100),
        luck=(0.0, 350.0) if quick else (0.0, 100.0, 200.0, 350.0, 700.0),
        seat=args.seat,
        draw=args.draw,
    )
    started = time.perf_counter()
    print("\n".join(precision(setup, args.seed)))
    print(f"\n({time.perf_counter() - started:.1f} s)\n")
    versions = args.versions or (100 if quick else 300)
    quads = args.quads or (10_000 if quick else 100_000)
    print("\n".join(scale(versions, quads, args.seed)))


if __name__ == "__main__":
    main()
