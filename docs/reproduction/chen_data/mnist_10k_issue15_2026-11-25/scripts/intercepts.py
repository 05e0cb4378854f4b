"""Why the bias matters under raw-zero deletion: intercepts and where predictions go at 90 %.

Refits the free-bias SVM (c = 0.01) and LinearSVC (c = 0.001), the points both choose at
50-90 % deletion, on the run's 10,000 training rows; on the first deletion draw of the test
rows reports the share of predictions that go to the class with the largest intercept.
"""
import numpy as np

from robustclf.experiments import chen
from robustclf.experiments._chen_common import make_estimator

chen.MNIST_FULL_TRAIN = 10_000
X, y, val_sets, test_sets, levels, sizes = chen._mnist_setup(False, 0, None)
for name, c in [("Hinge-L2 (SVC, free bias)", 0.01), ("Hinge-L2 (LinearSVC)", 0.001),
                ("Hinge-L2 (SVC, free bias)", 0.001)]:
    m = make_estimator(name, 0.0, c).fit(X, y)
    b = m.intercept_
    top = int(np.argmax(b))
    print(f"{name} c={c}: intercepts {np.round(b, 2).tolist()}, |w| mean "
          f"{np.abs(m.coef_).mean():.4f}")
    for j, lvl in enumerate(levels):
        if lvl in (0.0, 0.5, 0.7, 0.9):
            Xt, yt = test_sets[j * 3]
            p = m.predict(Xt)
            share = np.bincount(p, minlength=10) / p.size
            print(f"  level {lvl}: error {np.mean(p != yt):.3f}, share predicted as class {top} "
                  f"(largest intercept) {np.mean(p == top):.3f} (true share "
                  f"{np.mean(yt == top):.3f}); largest share {share.max():.3f} "
                  f"(class {share.argmax()})", flush=True)
