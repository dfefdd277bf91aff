"""
ReliefF-ML weights in ML-kNN
============================

ReliefF-ML (Reyes, Morell & Ventura 2013) learns one weight per feature from the
neighbours of sampled patterns: a feature gains weight when it differs between patterns
with different label sets and loses weight when it differs between patterns with the
same label set. The paper uses the weights inside the distance of lazy learners (a
weighted HEOM distance), not only to cut features. Here the weights go into ML-kNN.
"""

# %%
import numpy as np

from skmlfs.datasets import make_multilabel_discrete
from skmlfs.learners import MLkNN
from skmlfs.metrics import hamming_loss, ranking_loss
from skmlfs.model_selection import holdout_splits
from skmlfs.selection import ReliefFML

ds = make_multilabel_discrete(n_samples=500, n_features=60, n_labels=5, n_informative=10,
                              n_redundant=0, random_state=3)
((train, test),) = holdout_splits(ds.X.shape[0], repeats=1, test_size=0.25, random_state=0)
Xtr, Ytr, Xte, Yte = ds.X[train], ds.Y[train], ds.X[test], ds.Y[test]
nominal = np.ones(ds.X.shape[1], dtype=bool)  # every feature is a nominal code here

relief = ReliefFML(categorical_features=nominal, random_state=0).fit(Xtr, Ytr)
w = relief.weights_
informative = np.array([n.startswith("inf") for n in ds.feature_names])
print(f"mean weight of informative features {w[informative].mean():.4f}, "
      f"of noise features {w[~informative].mean():.4f}")

# %%
# ML-kNN with the plain and with the weighted HEOM distance. Negative ReliefF weights
# are clipped to zero: a feature that separates patterns with the same labels should not
# count at all.
for name, weights in [("unweighted", None), ("ReliefF-ML weights", np.clip(w, 0, None))]:
    model = MLkNN(k=10, categorical_features=nominal, feature_weights=weights).fit(Xtr, Ytr)
    print(f"{name:<20s} Hamming loss {hamming_loss(Yte, model.predict(Xte)):.4f}  "
          f"ranking loss {ranking_loss(Yte, model.predict_proba(Xte)):.4f}")

# %%
import matplotlib.pyplot as plt

order = np.argsort(-w)
fig, ax = plt.subplots(figsize=(6.4, 3.2))
ax.bar(np.arange(w.size), w[order], color=np.where(informative[order], "C0", "C7"))
ax.set_xlabel("features, by decreasing weight (blue: informative)")
ax.set_ylabel("ReliefF-ML weight")
fig.tight_layout()
