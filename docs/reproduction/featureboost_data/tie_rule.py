"""How much FeatureBoost's reproduction depends on the tie rule of the hard vote (issue 15).

Run: ``python docs/reproduction/featureboost_data/tie_rule.py [--trials 20] [--learners DT]``.

Replays the first ``--trials`` trials of the full protocol of ``robustclf reproduce
featureboost-threshold`` and ``featureboost-votes`` (seed 0, 20 experts, 500 statistical
samples): the same data, the same fit seeds and the same corrupted test matrices as
:mod:`robustclf.experiments.featureboost` (its random streams are consumed in the same order;
only the FeatureBoost models are fitted). Each fitted model predicts every corrupted test
matrix twice from the same normalised vote: ties to the first class (``argmax``, the rule
before issue 15) and ties to the last class (Table 1's ``>=``, the rule now). Prints, per
data set, learner, method and corruption level, the share of tied test rows and the mean
error under both rules with the mean paired difference.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from robustclf.corruption import MarginalResampling
from robustclf.datasets import load_votes
from robustclf.ensemble._voting import seeded_clone, vote_winner
from robustclf.experiments.featureboost import (
    base_learners,
    meta_learners,
    threshold_protocol,
)

_MAX_SEED = np.iinfo(np.int32).max
N_EXPERTS, N_SAMPLES = 20, 500


def _threshold():
    return threshold_protocol(fast=False)


def _votes():
    X_all, y_all = load_votes(return_X_y=True)
    X_all = np.where(np.isnan(X_all), 0.5, X_all)

    def make_data(seed):
        order = np.random.default_rng(seed).permutation(X_all.shape[0])
        return X_all[order[:100]], y_all[order[:100]], X_all[order[100:]], y_all[order[100:]]

    corruptions = {"features": (lambda f, X: MarginalResampling(fraction=f, reference=X),
                                [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8])}
    return make_data, corruptions, None


def _trial(dataset, seed, data, corruptions, groups, learners):
    """``robustclf.experiments.featureboost._trial``'s random streams, FeatureBoost only."""
    X, y, X_test, y_test = data
    rng = np.random.default_rng(seed)
    rows = []
    for learner, base in base_learners().items():
        methods = meta_learners(learner, base, n_experts=N_EXPERTS, n_samples=N_SAMPLES,
                                groups=groups)
        fit_seeds = rng.integers(0, _MAX_SEED, size=len(methods))
        fitted = {}
        for (method, est), s in zip(methods.items(), fit_seeds, strict=True):
            if learner in learners and method.startswith("FeatureBoost"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    fitted[method] = seeded_clone(est, int(s)).fit(X, y)
        for kind, (make, levels) in corruptions.items():
            level_seeds = rng.integers(0, _MAX_SEED, size=len(levels))
            for level, s in zip(levels, level_seeds, strict=True):
                Xc = make(level, X).corrupt(X_test, random_state=int(s))
                for method, model in fitted.items():
                    votes = model._vote(model._check_predict_input(Xc))
                    first = model.classes_[vote_winner(votes, "first")]
                    last = model.classes_[vote_winner(votes, "last")]
                    tied = np.sort(votes, axis=1)[:, -2] >= votes.max(axis=1) - 1e-10
                    rows.append((dataset, learner, method, kind, level, tied.mean(),
                                 np.mean(first != y_test), np.mean(last != y_test)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--learners", nargs="+", default=["DT"])
    args = parser.parse_args()
    rows = []
    for dataset, setup in (("THRESHOLD", _threshold), ("VOTES", _votes)):
        make_data, corruptions, groups = setup()
        seeds = np.random.default_rng(0).integers(0, _MAX_SEED, size=(100, 2))
        for t in range(args.trials):
            rows += _trial(dataset, int(seeds[t, 1]), make_data(int(seeds[t, 0])),
                           corruptions, groups, args.learners)
    frame = pd.DataFrame(rows, columns=["data", "learner", "method", "kind", "level", "tied",
                                        "error_first", "error_last"])
    frame["diff"] = frame["error_last"] - frame["error_first"]
    table = frame.groupby(["data", "learner", "method", "kind", "level"]).agg(
        tied=("tied", "mean"), error_first=("error_first", "mean"),
        error_last=("error_last", "mean"), diff=("diff", "mean"),
        diff_se=("diff", lambda d: d.std(ddof=1) / np.sqrt(d.size)))
    with pd.option_context("display.width", 160, "display.max_rows", 200):
        print(f"{args.trials} trials of the full protocol (seed 0); tied = share of test rows "
              f"with an exact tie; diff = error(ties last) - error(ties first), mean +- SE")
        print(table.round(4).to_string())


if __name__ == "__main__":
    main()
