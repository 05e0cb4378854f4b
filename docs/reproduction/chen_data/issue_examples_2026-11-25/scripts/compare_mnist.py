"""Old run (d) tables (parsed from chen.md) vs the 25 Nov rerun (from the checkpoint); markdown out."""
import pickle, re, sys
import numpy as np
import pandas as pd
from robustclf.experiments import chen

text = open("/work/main/docs/reproduction/chen.md").read()
sec = text[text.index("**(d) Second run"):text.index("**60,000-row spot check.**")]

def parse(block):
    out = {}
    for line in block.splitlines():
        if line.startswith("| ") and not line.startswith("| estimator") and not line.startswith("| model"):
            cells = [c.strip().strip("*") for c in line.strip("|").split("|")]
            name = re.sub(r",.*", "", cells[0])
            out[name] = [float(c) for c in cells[1:]]
    return out

i1 = sec.index("Paper's protocol"); i2 = sec.index("User's protocol"); i3 = sec.index("Test error at 50 %")
old_paper, old_user = parse(sec[i1:i2]), parse(sec[i2:i3])
done = pickle.loads(open("/tmp/chen25/mnist_points.pkl", "rb").read())
names = ["Hinge-L2 (LinearSVC)", "LogisticRegression", "MCF-Quadratic", "MCF-Logistic",
         "Dropout-SVM (bound)", "Dropout-SVM (gaussian)", "Dropout-Logistic (bound)",
         "Dropout-Logistic (gaussian)"]
tasks = chen._mnist_tasks(False)
complete = [n for n in names if all(t in done for t in tasks if t[0] == n)]
levels = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
rows = [(n, q, c, d["fit_seconds"], d["predict_seconds"], d["val"], d["test"])
        for (n, q, c), d in done.items() if n in complete]
points = pd.DataFrame(rows, columns=chen.POINT_COLUMNS)
for per_level, old, title in [(True, old_paper, "paper's protocol"), (False, old_user, "user's protocol")]:
    sel = chen.select_per_level(points, levels, per_level=per_level, repeats=3)
    print(f"\n{title}: new (old run (d) in brackets where the 3-decimal value differs)\n")
    print("| estimator \\ deleted | " + " | ".join(f"{l:g}" for l in levels) + " |")
    print("|---" * (len(levels) + 1) + "|")
    for n in complete:
        part = sel[sel.estimator == n]
        m = part.groupby("level")["error"].mean()
        cells = []
        for j, l in enumerate(levels):
            new = f"{m[l]:.3f}"; o = f"{old[n][j]:.3f}"
            cells.append(new if new == o else f"{new} ({o})")
        chosen = ""
        if not per_level:
            r = part.iloc[0]; chosen = f", q {r.q:g}, c {r.C:g}" if n not in chen.UNCORRUPTED else f", c {r.C:g}"
        print(f"| {n}{chosen} | " + " | ".join(cells) + " |")
    if per_level:
        print("\nchosen (q, c) per level over draws:")
        for n in complete:
            part = sel[sel.estimator == n]
            print(n, {l: sorted(set(zip(part[part.level == l].q, part[part.level == l].C))) for l in levels})
print("\nwarnings per estimator (fits with a ConvergenceWarning / 25 or 5):")
for n in complete:
    ws = [(k, d["warnings"]) for k, d in done.items() if k[0] == n]
    print(n, sum(1 for _, w in ws if w), "/", len(ws), " fit s median %.1f max %.1f" % (
        np.median([done[k]["fit_seconds"] for k, _ in ws]), max(done[k]["fit_seconds"] for k, _ in ws)))
print("\n50 % deletion, every grid point (mean of 3 draws):")
for n in complete:
    for q in sorted({k[1] for k in done if k[0] == n}):
        vals = [done[(n, q, c)]["test"][15:18].mean() for c in [0.001, 0.01, 0.1, 1.0, 10.0]]
        print(f"| {n}, q {q:g} | " + " | ".join(f"{v:.3f}" for v in vals) + " |")
