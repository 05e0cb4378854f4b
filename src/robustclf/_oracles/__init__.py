"""Independent reference solves of the library's objectives, for tests and benchmarks.

Each module here re-solves one family of the library's training problems with a different,
general-purpose solver (cvxpy with a conic solver, scipy's HiGHS LP/MILP, scipy.optimize at
tight tolerance, or a plain-numpy algorithm unrelated to the library's), so that the default fit
of every estimator can be checked against it: objective within 1e-6 relative and identical test
predictions (issue 14). Nothing here is used by the estimators themselves; cvxpy is imported
lazily and only where a conic solve is the honest tool.

Modules
-------
dropout      marginalised dropout objectives (Chen et al. 2014) and MCF
rolr         robust logistic regression (Feng et al. 2014)
deletion     Dekel & Shamir's LP / Perceptron objectives and FDROP
missing      geometric-margin SVM (Chechik et al. 2007) and the imputers' EM
worst_case   the deleting adversary's exact per-row 0/1 knapsack
"""
