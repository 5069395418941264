from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena.competition.ratings import (
    ELO_PER_NAT,
    Z95,
    Fitter,
    Outcome,
    TableDeal,
    _derivatives,
    _sigmoid,
    _Tables,
    fit,
)

NAMES = ["a", "b", "c", "d"]


def _sig(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def test_three_orthogonal_team_splits_of_four_bots_give_the_closed_form_fit_and_errors() -> None:
    # Each quad sets one of the three ways of splitting a, b, c, d into two teams, and those contrasts are
    # orthogonal: the fit separates into three one-quad fits. Totals 2 and 0 compare the teams at P = sigmoid(gap),
    # totals 1.5 and 0.5 at H = sigmoid(gap / 2); totals of 1 say nothing.
    quads = {
        ("a", "b", "c", "d"): ((1, 0, 3, 0, 4), (1, -1, -1, 1)),  # team ONE {a, d}: P = 4/5
        ("a", "c", "d", "b"): ((0, 1, 5, 1, 0), (1, 1, -1, -1)),  # team ONE {a, b}: H = 1/2
        ("a", "b", "d", "c"): ((0, 1, 0, 3, 0), (1, -1, 1, -1)),  # team ONE {a, c}: H = 3/4
    }
    fitter = Fitter(NAMES)
    for quad, (counts, _) in quads.items():
        fitter.add_tables(*quad, counts)
    ratings = fitter.ratings(0)
    gaps = [math.log(4), 0.0, 2 * math.log(3)]
    # Var = meat / information^2, of the gap where P, of half the gap where H (P = 4/5, n0 = 1, n4 = 4:
    # meat 1 P^2 + 4 (1-P)^2 = 0.8, information 5 P (1-P) = 0.8; H = 1/2: 0.5 and 0.5; H = 3/4: 0.75, 0.75), by hand:
    variances = [0.8 / 0.8**2, 4 * 0.5 / 0.5**2, 4 * 0.75 / 0.75**2]
    assert variances == pytest.approx([1.25, 8.0, 16 / 3])
    for k, name in enumerate(NAMES):
        theta = sum(gap * signs[k] for gap, (_, signs) in zip(gaps, quads.values(), strict=True)) / 4
        assert ratings[name].elo == pytest.approx(theta * ELO_PER_NAT, abs=1e-9)
        # theta = sum of gap_k u_k / 4 with |u_k[i]| = 1: each rating's variance is sum Var(gap_k) / 16.
        assert ratings[name].error95 == pytest.approx(Z95 * math.sqrt(sum(variances) / 16) * ELO_PER_NAT)
    # a - d differs only along the splits that part them ({a, b} and {a, c}): 2 (u2 + u3) / 4 = 1 each.
    assert ratings.difference("a", "d").error95 == pytest.approx(
        Z95 * math.sqrt((variances[1] + variances[2]) / 4) * ELO_PER_NAT
    )


def _random_history(seed: int) -> tuple[list[str], list[Outcome], list[TableDeal]]:
    rng = random.Random(seed)
    names = ["a", "b", "c", "d", "e", "f"]
    outcomes = []
    for deal in range(40):
        x, y = rng.sample(names, 2)
        for first, second in ((x, y), (y, x)):
            outcomes.append(Outcome(first, second, rng.choice([0.0, 0.5, 1.0]), f"p{deal}"))
    tables = []
    for _ in range(120):
        quad = rng.sample(names, 4) if rng.random() < 0.8 else [rng.choice(names) for _ in range(4)]  # seats shared
        tables.append(TableDeal(*quad, rng.choice([0.0, 0.5, 1.0]), rng.choice([0.0, 0.5, 1.0])))
    return names, outcomes, tables


def _log_likelihood(
    theta: np.typing.NDArray[np.float64],
    names: list[str],
    outcomes: list[Outcome],
    tables: list[TableDeal],
    prior: float,
) -> float:
    """The penalised log-likelihood straight from its definition, match by match and deal by deal."""
    at = {name: i for i, name in enumerate(names)}
    total = 0.0
    for o in outcomes:
        d = theta[at[o.first]] - theta[at[o.second]]
        total += o.score * math.log(_sig(d)) + (1 - o.score) * math.log(_sig(-d))
    for t in tables:
        contrast = theta[at[t.a1]] + theta[at[t.b2]] - theta[at[t.a2]] - theta[at[t.b1]]
        if t.total != 1:  # 2 or 0: a game of the teams at the contrast; 1.5 or 0.5: at half of it
            total += math.log(_sig(math.copysign(1, t.total - 1) * contrast * (1 if t.total in (0, 2) else 0.5)))
    for x in theta:
        total += prior * (0.5 * math.log(_sig(x)) + 0.5 * math.log(_sig(-x)))
    return total


def test_the_gradient_and_information_are_the_derivatives_of_the_log_likelihood() -> None:
    names, outcomes, tables = _random_history(1)
    fitter = Fitter(names)
    for o in outcomes:
        fitter.add(o)
    for t in tables:
        fitter.add_tables(t.a1, t.b1, t.a2, t.b2, [int(k == t.pentanomial) for k in range(5)])
    totals = fitter._table_totals()
    assert totals is not None
    theta = np.array([0.3, -0.2, 0.9, -1.1, 0.05, 0.4])
    wins = np.array(fitter.wins)

    def derivatives(at: np.typing.NDArray[np.float64]) -> tuple[np.typing.NDArray[np.float64], ...]:
        gradient, info = _derivatives(at, wins, 2.0)
        table_gradient, table_info, _ = totals.terms(at)
        return gradient + table_gradient, info + table_info

    gradient, info = derivatives(theta)
    h = 1e-5
    for i in range(len(names)):
        step = np.zeros(len(names))
        step[i] = h
        up = _log_likelihood(theta + step, names, outcomes, tables, 2.0)
        down = _log_likelihood(theta - step, names, outcomes, tables, 2.0)
        assert gradient[i] == pytest.approx((up - down) / (2 * h), rel=1e-6, abs=1e-6)
        # The information is minus the Hessian: minus the derivative of the gradient.
        column = -(derivatives(theta + step)[0] - derivatives(theta - step)[0]) / (2 * h)
        assert info[:, i] == pytest.approx(column, rel=1e-6, abs=1e-6)


def test_the_sandwich_sums_each_table_deal_as_its_definition_does() -> None:
    names, _, tables = _random_history(2)
    fitter = Fitter(names)
    for t in tables:
        fitter.add_tables(t.a1, t.b1, t.a2, t.b2, [int(k == t.pentanomial) for k in range(5)])
    totals = fitter._table_totals()
    assert totals is not None
    theta = np.linspace(-1, 1, len(names))
    _, _, meat = totals.terms(theta, meat=True)
    at = {name: i for i, name in enumerate(names)}
    expected = np.zeros((len(names), len(names)))
    for t in tables:  # each deal's score: (won - P) v for totals 2 and 0, (won - H) v / 2 for 1.5 and 0.5
        v = np.zeros(len(names))
        for name, sign in ((t.a1, 1), (t.b1, -1), (t.a2, -1), (t.b2, 1)):
            v[at[name]] += sign
        if t.total in (0.5, 1.5):
            v = v / 2
        score = (float(t.total > 1) - float(_sigmoid(np.array(v @ theta)))) * v * (t.total != 1)
        expected += np.outer(score, score)
    assert meat == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _table(theta: dict[str, float], a: str, b: str, luck: float, draw: float) -> tuple[float, float, float]:
    """Seat A's chances to lose, draw, win, in Davidson's model."""
    weights = (math.exp(theta[b]), draw * math.exp((theta[a] + luck + theta[b]) / 2), math.exp(theta[a] + luck))
    return (weights[0] / sum(weights), weights[1] / sum(weights), weights[2] / sum(weights))


def _expected_counts(
    theta: dict[str, float], quad: tuple[str, str, str, str], luck: float, draw: float = 0.0
) -> list[int]:
    """A quad's pentanomial counts, as frequencies in 10^14 deals, seat A favoured by ``luck``.

    Davidson's draws: a table's win, draw and loss weigh ``e^(A + luck)``, ``draw e^((A + luck + B) / 2)``, ``e^B``.
    """
    a1, b1, a2, b2 = quad
    one, two = _table(theta, a1, b1, luck, draw), _table(theta, a2, b2, luck, draw)
    classes = [0.0] * 5
    for s1, p1 in zip((0, 1, 2), one, strict=True):  # in halves: 0 loss, 1 draw, 2 win
        for s2, p2 in zip((0, 1, 2), two, strict=True):
            classes[s1 + 2 - s2] += p1 * p2  # team ONE's total, in halves
    return [round(1e14 * x) for x in classes]


QUADS = [("a", "b", "c", "d"), ("a", "c", "d", "b"), ("b", "d", "a", "c"), ("c", "a", "b", "d"), ("a", "b", "d", "c")]


@pytest.mark.parametrize(("luck", "draw"), [(-3.0, 0.0), (0.0, 0.0), (1.0, 0.0), (4.0, 0.0), (0.0, 1.5), (2.5, 0.7)])
def test_a_luck_the_same_at_both_tables_leaves_the_fit_as_it_was(luck: float, draw: float) -> None:
    theta = {"a": 0.8, "b": 0.1, "c": -0.3, "d": -0.6}
    fitter = Fitter(NAMES)
    for k, quad in enumerate(QUADS):
        fitter.add_tables(*quad, _expected_counts(theta, quad, luck + 0.7 * k, draw))  # each quad a luck of its own
    ratings = fitter.ratings(0)
    for name in NAMES:
        assert ratings[name].elo == pytest.approx(theta[name] * ELO_PER_NAT, abs=1e-5)
    # The same games fitted as independent matches are moved by the luck (the check above can fail):
    naive = Fitter(NAMES)
    for k, quad in enumerate(QUADS):
        a1, b1, a2, b2 = quad
        for seat_a, seat_b in ((a1, b1), (a2, b2)):
            _, drawn, won = _table(theta, seat_a, seat_b, luck + 0.7 * k, draw)
            p = won + drawn / 2
            naive.wins[naive.index[seat_a]][naive.index[seat_b]] += p
            naive.wins[naive.index[seat_b]][naive.index[seat_a]] += 1 - p
    off = max(abs(naive.ratings(0)[name].elo - theta[name] * ELO_PER_NAT) for name in NAMES)
    assert off > 5.0


def test_without_luck_a_swapped_pair_as_a_table_deal_has_the_pair_fits_scale() -> None:
    theta = {"a": 0.4, "b": -0.4}
    p = _sig(0.8)
    pairs = Fitter(["a", "b"])
    pairs.wins = [[0.0, p], [1 - p, 0.0]]  # a's expected score a game
    tables = Fitter(["a", "b"])
    tables.add_tables("a", "b", "b", "a", _expected_counts(theta, ("a", "b", "b", "a"), 0.0))
    assert tables.ratings(0)["a"].elo == pytest.approx(pairs.ratings(0)["a"].elo, abs=1e-5)
    assert tables.ratings(0)["a"].elo == pytest.approx(0.4 * ELO_PER_NAT, abs=1e-5)


def test_known_strengths_are_recovered_from_simulated_deals_with_luck_and_a_seat_advantage() -> None:
    rng = np.random.default_rng(7)
    names = [f"bot{i}" for i in range(8)]
    theta = np.linspace(-1.2, 1.2, len(names))
    fitter = Fitter(names)
    for _ in range(20_000):
        a1, b1, a2, b2 = rng.choice(len(names), 4, replace=False)
        luck = rng.normal(0.0, 2.0) + 0.3  # the deal's cards, and seat A's advantage
        won1 = rng.random() < _sig(theta[a1] - theta[b1] + luck)
        won2 = rng.random() < _sig(theta[a2] - theta[b2] + luck)
        counts = [0] * 5
        counts[2 * int(won1) + 2 * int(not won2)] += 1
        fitter.add_tables(names[a1], names[b1], names[a2], names[b2], counts)
    ratings = fitter.ratings()
    centred = (theta - theta.mean()) * ELO_PER_NAT
    errors = [ratings[name].elo - centred[i] for i, name in enumerate(names)]
    assert max(abs(e) for e in errors) < 30  # Elo
    for error, name in zip(errors, names, strict=True):
        assert abs(error) < 1.5 * ratings[name].error95  # (a chance of 0.3% each to pass 1.5 x the 95% half-width)
        assert 8 < ratings[name].error95 < 40


def test_removing_what_was_added_gives_the_same_floats_and_a_pairs_only_fitter_is_untouched() -> None:
    names, outcomes, tables = _random_history(3)
    pairs_only = Fitter(names)
    for o in outcomes:
        pairs_only.add(o)
    before = pairs_only.ratings()
    fitter = pairs_only.copy()
    fitter.add_tables("a", "b", "c", "d", [1, 2, 3, 4, 5])
    middle = fitter.ratings()
    extra = fitter.copy()
    for t in tables:
        extra.add_tables(t.a1, t.b1, t.a2, t.b2, [int(k == t.pentanomial) for k in range(5)])
    assert extra.ratings() != middle
    for t in reversed(tables):
        extra.add_tables(t.a1, t.b1, t.a2, t.b2, [int(k == t.pentanomial) for k in range(5)], sign=-1)
    assert extra.ratings() == middle
    fitter.add_tables("a", "b", "c", "d", [1, 2, 3, 4, 5], sign=-1)
    assert fitter.ratings() == before
    assert pairs_only.ratings() == before, "the copies took nothing back to the original"
    with pytest.raises(ValueError, match="only"):
        fitter.add_tables("a", "b", "c", "d", [0, 0, 1, 0, 0], sign=-1)
    with pytest.raises(ValueError, match="5 counts"):
        fitter.add_tables("a", "b", "c", "d", [1, 2, 3])
    with pytest.raises(ValueError, match="sign"):
        fitter.add_tables("a", "b", "c", "d", [1, 0, 0, 0, 0], sign=2)


def test_table_deals_fit_the_same_in_any_order_by_any_door() -> None:
    names, outcomes, tables = _random_history(4)
    one = fit(names, [*outcomes, *tables])
    shuffled: list[Outcome | TableDeal] = [*outcomes, *tables]
    random.Random(5).shuffle(shuffled)
    assert fit(names, shuffled) == one
    bulk = Fitter(names)
    for o in outcomes:
        bulk.add(o)
    at = {name: i for i, name in enumerate(names)}
    quads = np.array([[at[t.a1], at[t.b1], at[t.a2], at[t.b2]] for t in tables])
    counts = np.array([[int(k == t.pentanomial) for k in range(5)] for t in tables])
    bulk.add_table_arrays(quads[::-1], counts[::-1])
    assert bulk.ratings() == one, "each quad summed once, in order: the same floats"
    # A server's deals, kept in the fit's order between drawings: taken as they are, the same floats; out of order
    # (a quad twice, or two swapped), refused rather than fitted in another order.
    key = ((quads[:, 0] * len(names) + quads[:, 1]) * len(names) + quads[:, 2]) * len(names) + quads[:, 3]
    _, first = np.unique(key, return_index=True)
    summed = np.zeros((len(first), 5), dtype=np.int64)
    np.add.at(summed, np.searchsorted(np.unique(key), key), counts)
    ordered = Fitter(names)
    for o in outcomes:
        ordered.add(o)
    ordered.add_table_arrays(quads[first], summed, in_order=True)
    assert ordered.ratings() == one
    for wrong in (quads[first][::-1], np.concatenate([quads[first][:1], quads[first]])):
        with pytest.raises(ValueError, match="not: each once, ascending"):
            Fitter(names).add_table_arrays(wrong, np.ones((len(wrong), 5), dtype=np.int64), in_order=True)


def test_a_warm_start_gives_the_fit_from_scratch() -> None:
    names, outcomes, tables = _random_history(6)
    cold = fit(names, [*outcomes, *tables])
    fitter = Fitter(names)
    for o in outcomes:
        fitter.add(o)
    for t in tables[:-10]:
        fitter.add_tables(t.a1, t.b1, t.a2, t.b2, [int(k == t.pentanomial) for k in range(5)])
    start = dict(zip(names, fitter.ratings().strengths, strict=True))
    for t in tables[-10:]:
        fitter.add_tables(t.a1, t.b1, t.a2, t.b2, [int(k == t.pentanomial) for k in range(5)])
    warm = fitter.ratings(start=start)
    for name in names:
        assert warm[name].elo == pytest.approx(cold[name].elo, abs=1e-9)
        assert warm[name].error95 == pytest.approx(cold[name].error95, abs=1e-9)


def test_a_table_deals_class_is_twice_team_ones_total() -> None:
    assert TableDeal("a", "b", "c", "d", 1.0, 0.0).pentanomial == 4  # a1 won, and b2 beat a2
    assert TableDeal("a", "b", "c", "d", 1.0, 1.0).pentanomial == 2  # seat A won at both: the deal's cards
    assert TableDeal("a", "b", "c", "d", 0.5, 1.0).pentanomial == 1
    with pytest.raises(ValueError, match=r"1, 0\.5 or 0"):
        _ = TableDeal("a", "b", "c", "d", 0.7, 1.0).pentanomial


def test_a_fitter_of_stored_pair_totals_takes_table_deals_too() -> None:
    names, outcomes, tables = _random_history(8)
    one = fit(names, [*outcomes, *tables])
    running = Fitter(names)
    for o in outcomes:
        running.add(o)
    stored = Fitter.of_pairs(names, np.array(running.wins), {pair: tuple(s) for pair, s in running._sums.items()})
    assert not running._mixed, "(every unit here is one pair's: the stored sums hold them all)"
    for t in tables:
        stored.add_tables(t.a1, t.b1, t.a2, t.b2, [int(k == t.pentanomial) for k in range(5)])
    got = stored.ratings()
    for name in names:
        assert got[name].elo == pytest.approx(one[name].elo, abs=1e-9)
        assert got[name].error95 == pytest.approx(one[name].error95, abs=1e-9)


def test_a_fit_holds_its_deals_at_two_tables_in_few_bytes() -> None:
    """A drawing of a server's standings holds the field's deals at two tables while it fits (250,000 at a million
    matches): their four seats and their counts, whole numbers kept as such, no array of each two seats' cells
    (made at each use). It held 72 bytes a deal; now 32."""
    deals = 10_000
    rng = np.random.default_rng(5)
    places = np.array([rng.permutation(40)[:4] for _ in range(deals)], dtype=np.intp)
    counts = rng.integers(0, 4, size=(deals, 5))
    tables = _Tables(40, places, counts)
    held = 0
    for value in vars(tables).values():
        for array in value if isinstance(value, list) else [value]:
            held += getattr(array, "nbytes", 0)
    assert held <= 32 * deals, held / deals
