"""
Training on a dask array: the same model, chunk by chunk
========================================================

The dropout objective is a sum over rows, so its value, gradient and Hessian are sums over row
chunks. Given a :class:`dask.array.Array`, :class:`~robustclf.DropoutLogisticRegression` fits
by passes over the chunks where they live: each task returns sums of size ``n_features + 1``
(and Hessian blocks), the rows never travel, and the optimum is the one the in-memory fit
reaches on the same rows. Predictions and corruptions of a dask array are lazy and run chunk by
chunk too.

This example builds a dask array from numpy chunks and runs it on dask's threaded scheduler.
The same code runs on a ``dask.distributed`` cluster (``Client(LocalCluster(...))``) or on a
store larger than memory (``da.from_zarr``); see :doc:`/scaling` for that setting and its
measurements.
"""

# %%
# The data, in memory and as a dask array of 12 chunks
# ----------------------------------------------------
# 60,000 training rows and 20,000 test rows of a generated classification problem with 40
# features. The dask arrays are views of the same numpy arrays, cut into chunks of 5,000 rows
# (training) and 2,500 rows (test); each chunk holds every column, which is what the blockwise
# fit expects.
import time

import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification

from robustclf import DropoutLogisticRegression
from robustclf.corruption import RandomDeletion

X, y = make_classification(n_samples=80_000, n_features=40, n_informative=20, n_redundant=10,
                           random_state=0)
X_train, y_train, X_test, y_test = X[:60_000], y[:60_000], X[60_000:], y[60_000:]

X_train_dask = da.from_array(X_train, chunks=(5_000, 40))
y_train_dask = da.from_array(y_train, chunks=5_000)
X_test_dask = da.from_array(X_test, chunks=(2_500, 40))
y_test_dask = da.from_array(y_test, chunks=2_500)
print(X_train_dask)

# %%
# Fit on the dask array and on the numpy array
# --------------------------------------------
# The estimator and its parameters are the same; only the input differs. On a dask array the
# fit runs the blockwise Newton solver (exact Hessian blocks summed over the chunks, for up to
# 2,048 features; L-BFGS beyond), which stops on the same measure of optimality as the
# in-memory solver: the relative gradient norm at most ``tol``.
dask.config.set(scheduler="threads")  # dask's default for arrays, made explicit

start = time.perf_counter()
model_dask = DropoutLogisticRegression().fit(X_train_dask, y_train_dask)
seconds_dask = time.perf_counter() - start

start = time.perf_counter()
model_memory = DropoutLogisticRegression().fit(X_train, y_train)
seconds_memory = time.perf_counter() - start

for name, model, seconds in [("dask", model_dask, seconds_dask),
                             ("in memory", model_memory, seconds_memory)]:
    print(f"{name:9s}: {seconds:.2f} s, solver {model.solver_!r}, {model.n_iter_[0]} Newton "
          f"steps, relative gradient norm {model.optimality_[0]:.1e}")

# %%
# The two fits agree
# ------------------
# Both stop within ``tol=1e-6`` of optimality, so their coefficients agree to about that
# relative precision (not to the last digit: the two solvers take different steps).
coef_gap = np.abs(model_dask.coef_ - model_memory.coef_).max() / np.abs(model_memory.coef_).max()
print(f"largest coefficient difference, relative to the largest coefficient: {coef_gap:.1e}")
print(f"intercepts: {model_dask.intercept_[0]:.6f} (dask), "
      f"{model_memory.intercept_[0]:.6f} (in memory)")

# %%
# Predictions are lazy
# --------------------
# ``predict`` on a dask array returns a dask array: nothing is computed until it is asked for,
# and then each chunk is predicted where it lives. The same holds for a corruption:
# :class:`~robustclf.corruption.RandomDeletion` on a dask array returns a lazy dask array
# (one random stream per chunk), here with 30 % of every test row's features deleted (NaN,
# which the model reads as an absent feature, contributing nothing).
labels = model_dask.predict(X_test_dask)
print(type(labels).__name__, labels)
same = (labels.compute() == model_memory.predict(X_test)).mean()
print(f"test predictions equal to the in-memory model's: {same:.2%}")

X_test_deleted = RandomDeletion(fraction=0.3).corrupt(X_test_dask, random_state=0)
print(X_test_deleted)

# %%
# The test error of every chunk, clean and with 30 % of the features deleted: one
# ``dask.compute`` call evaluates all the lazy per-chunk means in one pass.
wrong_clean = model_dask.predict(X_test_dask) != y_test_dask
wrong_deleted = model_dask.predict(X_test_deleted) != y_test_dask
n_chunks = wrong_clean.numblocks[0]
error_clean, error_deleted = dask.compute(
    [wrong_clean.blocks[i].mean() for i in range(n_chunks)],
    [wrong_deleted.blocks[i].mean() for i in range(n_chunks)],
)
print(f"test error: clean {np.mean(error_clean):.3f}, 30 % deleted {np.mean(error_deleted):.3f}")

# %%
# Figure: the coefficients of both fits, and the error of each test chunk
# -----------------------------------------------------------------------
fig, (ax_coef, ax_err) = plt.subplots(1, 2, figsize=(11, 4.5))
c_mem, c_dask = model_memory.coef_.ravel(), model_dask.coef_.ravel()
ax_coef.scatter(c_mem, c_dask, s=18, label="one coefficient")
lims = [min(c_mem.min(), c_dask.min()) * 1.1, max(c_mem.max(), c_dask.max()) * 1.1]
ax_coef.plot(lims, lims, color="gray", lw=1, ls="--", label="equal")
ax_coef.set_xlabel("coefficient, fitted in memory (numpy)")
ax_coef.set_ylabel("coefficient, fitted on the dask array")
ax_coef.set_title(f"40 coefficients; largest relative difference {coef_gap:.0e}", fontsize=10)
ax_coef.legend(loc="upper left")

chunk_ids = np.arange(n_chunks)
ax_err.bar(chunk_ids - 0.2, error_clean, width=0.4, label="clean")
ax_err.bar(chunk_ids + 0.2, error_deleted, width=0.4, label="30 % of features deleted")
ax_err.set_xticks(chunk_ids)
ax_err.set_xlabel("test chunk (2,500 rows each)")
ax_err.set_ylabel("test error")
ax_err.set_title("dask-trained model, error per chunk (computed lazily)", fontsize=10)
ax_err.set_ylim(0, 1.35 * max(error_deleted))
ax_err.legend(loc="upper left", ncols=2)
fig.tight_layout()

# %%
# The coefficients lie on the diagonal and the predictions are the in-memory model's. On one
# machine with data that fit in memory the numpy fit is the faster one (a dask fit schedules
# tasks for every pass); the dask fit is for data that do not fit, or that already live on a
# cluster. There, chunk sizes decide the memory of each worker (:doc:`/scaling`, *Memory
# behaviour*). ``DropoutSVC`` and ``MCFClassifier`` train on dask the same way.
