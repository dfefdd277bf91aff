"""
Selection curves: quality versus number of features
===================================================

How good is the first ``m`` features of a ranking, for every ``m``? One ranking per
split serves every budget: greedy filters select incrementally, so the best ``m``
features are the first ``m`` of the best ``M``. :func:`skmlfs.experiments.evaluate` does
exactly that over repeated holdout splits, and :func:`skmlfs.plots.metric_curves` draws
the result.
"""

# %%
from skmlfs.datasets import make_multilabel_discrete
from skmlfs.experiments import evaluate
from skmlfs.model_selection import holdout_splits
from skmlfs.plots import metric_curves

ds = make_multilabel_discrete(n_samples=400, n_features=120, n_labels=6, n_informative=12,
                              n_redundant=6, random_state=0)
splits = holdout_splits(ds.X.shape[0], repeats=3, test_size=0.2, random_state=0)
results = evaluate(
    ds, ["scls", "ami", "mdmr"], "mlnb", splits,
    n_features_to_select=[1, 2, 4, 6, 8, 10, 12, 15, 20, 30, 45, 60],
    metrics=["hamming_loss"], progress=False,
)
print(results.head())

# %%
# Mean and standard deviation over the splits, one row per (method, budget).
curve = (results.groupby(["method", "k"])["hamming_loss"].agg(["mean", "std"])
         .reset_index().rename(columns={"k": "x"}))
print(curve.pivot(index="x", columns="method", values="mean").round(4))

# %%
# ``metric_curves`` draws on a canvas of its own (it leaves pyplot's state alone, so it is
# safe in scripts and workers) and saves a PNG; here the file is shown with pyplot.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

png = Path(tempfile.mkdtemp()) / "curves.png"
metric_curves(curve, "number of selected features", "Hamming loss (MLNB)", png,
              title="SCLS, AMI and MDMR on synthetic data")
fig, ax = plt.subplots(figsize=(6.0, 4.0), dpi=150)
ax.imshow(plt.imread(png))
ax.set_axis_off()
fig.tight_layout(pad=0)
