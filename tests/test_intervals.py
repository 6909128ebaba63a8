"""The 95% Wilson score intervals of win rates (simulation/intervals.py), against published
values and the closed formula worked by hand."""

from __future__ import annotations

import math

import pytest

from ecs_combat.simulation.intervals import percent_with_interval, rate_and_interval, wilson


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # Brown, Cai and DasGupta (2001) / Newcombe (1998), Wilson interval, 95%:
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_matches_published_intervals(
    successes: int, trials: int, low: float, high: float
) -> None:
    interval = wilson(successes, trials)
    assert interval is not None
    assert interval[0] == pytest.approx(low, abs=5e-5)
    assert interval[1] == pytest.approx(high, abs=5e-5)


def test_wilson_by_hand_for_one_in_four() -> None:
    """p = 1/4, n = 4, z = 1.96: centre = 0.25 + 3.8416/8 = 0.7302, spread = 1.96 *
    sqrt(0.1875/4 + 3.8416/64) = 1.96 * sqrt(0.106900) = 1.96 * 0.32696 = 0.64083, scale =
    1 + 3.8416/4 = 1.9604: ((0.7302 - 0.6408) / 1.9604, (0.7302 + 0.6408) / 1.9604) =
    (0.0456, 0.6994)."""
    interval = wilson(1, 4, z=1.96)
    assert interval is not None
    assert interval[0] == pytest.approx(0.0456, abs=1e-4)
    assert interval[1] == pytest.approx(0.6994, abs=1e-4)
    centre = (0.25 + 1.96**2 / 8) / (1 + 1.96**2 / 4)
    assert sum(interval) / 2 == pytest.approx(centre)
    assert not math.isclose(centre, 0.25)  # the Wilson interval is not centred on the rate


def test_no_battles_no_rate() -> None:
    assert wilson(0, 0) is None
    assert rate_and_interval(0, 0) == (None, None)
    assert percent_with_interval(None, None) == "-"
    assert percent_with_interval(0.5, [0.2366, 0.7634]) == "50.0% (23.7-76.3)"
