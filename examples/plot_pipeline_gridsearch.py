"""
A Pipeline with GridSearchCV
============================

The selectors are scikit-learn ``SelectorMixin`` estimators and the learners are
multi-label classifiers, so both go into a :class:`~sklearn.pipeline.Pipeline` and the
number of features can be tuned by cross-validation like any other hyper-parameter.
The selection is then fitted on the training folds only.
"""

# %%
import numpy as np
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline

from skmlfs.datasets import make_multilabel_discrete
from skmlfs.learners import MLNB
from skmlfs.metrics import hamming_loss
from skmlfs.selection import SCLS

ds = make_multilabel_discrete(n_samples=400, n_features=60, n_labels=5, random_state=1)
pipe = Pipeline([("select", SCLS()), ("learn", MLNB())])

# %%
# Hamming loss is a loss: ``greater_is_better=False`` makes the scorer its negative.
search = GridSearchCV(
    pipe,
    {"select__n_features_to_select": [2, 5, 10, 20, 40]},
    scoring=make_scorer(hamming_loss, greater_is_better=False),
    cv=KFold(4, shuffle=True, random_state=0),
)
search.fit(ds.X, ds.Y)

for k, score in zip(search.cv_results_["param_select__n_features_to_select"],
                    search.cv_results_["mean_test_score"], strict=True):
    print(f"{k:3d} features: Hamming loss {-score:.4f}")
print("best:", search.best_params_)

# %%
# The refitted pipeline selects on all the data with the best budget.
best = search.best_estimator_
chosen = best.named_steps["select"].get_support(indices=True)
print("chosen:", [ds.feature_names[j] for j in chosen])
print("fraction informative:", np.mean([ds.feature_names[j].startswith("inf") for j in chosen]))
