import time, warnings, numpy as np
from sklearn.exceptions import ConvergenceWarning
from robustclf.datasets import load_mnist
from robustclf.linear import DropoutSVC
Xa, Xt, ya, yt = load_mnist(scale=True, return_X_y=True)
idx = np.random.default_rng(0).permutation(Xa.shape[0])[:5000]
tight = np.load('/tmp/chen25/coef_new_mnist5k_q0.9_tight.npz')
for kw in [{}, dict(solver="irls")] :
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        t = time.perf_counter(); est = DropoutSVC(q=0.9, **kw).fit(Xa[idx], ya[idx]); ft = time.perf_counter() - t
    p = est.predict(Xt)
    th = np.c_[est.coef_, est.intercept_]; tt = np.c_[tight['coef'], tight['intercept']]
    rel = np.linalg.norm(th - tt, axis=1) / np.linalg.norm(tt, axis=1)
    print(kw, f"fit {ft:.1f}s err {np.mean(p != yt):.4f} n_iter {est.n_iter_} max rel coef diff to tight {rel.max():.2e} "
          f"pred diff vs tight {(p != tight['pred']).sum()}", [str(x.message) for x in w if issubclass(x.category, ConvergenceWarning)], flush=True)
