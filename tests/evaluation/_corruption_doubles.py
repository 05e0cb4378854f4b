"""Test doubles shared by the evaluation tests."""

from robustclf.corruption import Corruption


class ZeroColumns(Corruption):
    """Deterministic: set the first ``n`` columns to zero (``n=0`` is the identity)."""

    level_params = ("n",)

    def __init__(self, n=0):
        self.n = n

    def _corrupt(self, X, y, model, rng):
        X[:, : self.n] = 0.0
        return X
