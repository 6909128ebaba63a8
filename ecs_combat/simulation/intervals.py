"""95% confidence intervals of rates (Wilson score intervals), for every win rate a summary
shows: ``p = k / n`` has the interval

    (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n),  z = 1.959964 (the 97.5% normal quantile)

which stays inside [0, 1] and is sensible for rates near 0 or 1 and for small n (Wilson, 1927;
Brown, Cai and DasGupta, 2001)."""

from __future__ import annotations

import math

#: The 97.5% quantile of the standard normal distribution: two-sided 95%.
Z95 = 1.959963984540054
#: Digits the summaries round rates and interval ends to.
DIGITS = 6


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``successes / trials`` (None without trials)."""
    if trials <= 0:
        return None
    p = successes / trials
    z2 = z * z
    centre = p + z2 / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    scale = 1 + z2 / trials
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def rate_and_interval(successes: int, trials: int) -> tuple[float | None, list[float] | None]:
    """A rate and its 95% interval as summaries give them: rounded, None without trials."""
    interval = wilson(successes, trials)
    if interval is None:
        return None, None
    return round(successes / trials, DIGITS), [round(v, DIGITS) for v in interval]


def percent_with_interval(rate: float | None, interval: list[float] | None) -> str:
    """A rate and its interval as tables show them: ``45.2% (44.9-45.5)``; ``-`` for none."""
    if rate is None or interval is None:
        return "-"
    lo, hi = interval
    return f"{100 * rate:.1f}% ({100 * lo:.1f}-{100 * hi:.1f})"
