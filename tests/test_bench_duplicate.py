from __future__ import annotations

import importlib.util
import math
import sys
from types import ModuleType

import numpy as np
import pytest

from arena.competition.ratings import ELO_PER_NAT

from .conftest import REPO


def bench(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


def test_without_luck_the_pairs_truth_is_the_logit_of_the_expected_score_over_both_seats() -> None:
    duplicate = bench("bench_duplicate")
    theta = np.array([0.5, -0.5])
    seat = 0.3
    got = duplicate.marginal_differences(theta, 0.0, seat * ELO_PER_NAT)

    def sig(x: float) -> float:
        return 1 / (1 + math.exp(-x))

    mean = (sig(1.0 + seat) + sig(1.0 - seat)) / 2
    assert got[0, 1] == pytest.approx(math.log(mean / (1 - mean)), rel=1e-12)
    assert got[1, 0] == pytest.approx(-got[0, 1], rel=1e-12)
    assert abs(duplicate.marginal_differences(theta, 700.0, 0.0)[0, 1]) < 0.6, "luck flattens expected scores"


def test_the_quick_benchmark_prints_every_scheme_at_every_luck_with_plausible_figures() -> None:
    duplicate = bench("bench_duplicate")
    setup = duplicate.Setup(bots=6, matches=400, replications=2, luck=(0.0, 350.0), seat=50.0)
    rows = [line for line in duplicate.precision(setup, 1) if line.startswith("| ") and "scheme" not in line]
    assert [row.split("|")[2].strip() for row in rows] == list(duplicate.SCHEMES) * 2
    for row in rows:
        rmse, relative, _, cover = (float(cell.strip().rstrip("%")) for cell in row.split("|")[3:7])
        assert 0 < rmse < 200 and 0 < relative < 2 and 50 <= cover <= 100
