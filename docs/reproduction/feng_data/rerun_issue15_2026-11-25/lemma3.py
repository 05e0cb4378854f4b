"""Lemma 3 of Feng et al. (2014): the printed constant, the right one, and the printed bounds.

For x ~ N(0, sigma_x^2 I), P(y = 1) = sigmoid(<beta*, x> + v), v ~ N(0, sigma_e^2), Stein's lemma
gives E y<beta*, x> = (sigma_x^2 / 2) E sech^2(g / 2), g ~ N(0, sigma_x^2 + sigma_e^2); the
paper prints E sech^2(g / 2). Checked by Monte Carlo (4e6 draws). Also: what the corrected eta
predicts for RoLR's direction error at lambda = 0 in §6 (n = 1000, p = 20, sigma_e = 0.5):
the untrimmed estimator is sum_i y_i x_i, whose component along beta* is about eta and whose
p - 1 orthogonal components have variance 1 / n, so the error is about
2 sin(atan(sqrt((p - 1) / n) / eta) / 2).

Run: python lemma3.py   (a few seconds)
"""

import numpy as np
from scipy import integrate
from scipy.stats import norm


def e_sech2(var):
    s = np.sqrt(var)
    return integrate.quad(lambda g: np.exp(-2 * np.logaddexp(g / 2, -g / 2)) * 4
                          * norm.pdf(g, scale=s), -np.inf, np.inf)[0]


def monte_carlo(sx, se, n=4_000_000, seed=0):
    rng = np.random.default_rng(seed)
    u, v = sx * rng.standard_normal(n), se * rng.standard_normal(n)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-(u + v))), 1, -1)
    return (y * u).mean(), (y * u).std() / np.sqrt(n)


def sech2(t):
    return 1 / np.cosh(t) ** 2


print("sigma_x sigma_e | Monte Carlo | printed E sech2 | right (sx^2/2) E sech2 | phi+ | phi- |"
      " printed in [phi+, phi-] | right in [phi+, phi-]")
for sx, se in [(1, 0), (1, 0.5), (1, 1), (2, 0), (0.5, 0), (3, 0.5), (10, 0)]:
    printed = e_sech2(sx**2 + se**2)
    right = sx**2 / 2 * printed
    lo = sx**2 / 3 * sech2((1 + se**2) / 2)
    hi = sx**2 / 3 + sx**2 / 6 * sech2((1 + se**2) / 2)
    m, e = monte_carlo(sx, se)
    print(f"{sx:>4} {se:>4} | {m:.4f} ± {e:.4f} | {printed:.4f} | {right:.4f} | {lo:.4f} | "
          f"{hi:.4f} | {lo <= printed <= hi} | {lo <= right <= hi}")

n, p = 1000, 20
for name, eta in [("right", 0.5 * e_sech2(1.25)), ("printed", e_sech2(1.25)),
                  ("largest possible (sigma_x^2 / 2)", 0.5)]:
    error = 2 * np.sin(np.arctan(np.sqrt((p - 1) / n) / eta) / 2)
    print(f"RoLR error at lambda = 0 predicted with eta {name} = {eta:.4f}: {error:.3f}")
