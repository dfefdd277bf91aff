"""
Select features from a Mulan file
=================================

Mulan stores a multi-label data set as an ARFF file (features and labels as attributes)
plus an XML file naming the labels. :func:`skmlfs.datasets.load` reads the pair (dense or
sparse ARFF; it finds ``name.xml`` next to ``name.arff``) into a
:class:`~skmlfs.datasets.MultiLabelDataset`.

So that this example runs anywhere, it first writes a small Mulan file from the synthetic
generator; with a real data set (``emotions.arff``, ``enron.arff``, ...) start at
``load``.
"""

# %%
# Write a small Mulan data set (ARFF + XML)
# -----------------------------------------
import tempfile
from pathlib import Path

from skmlfs.datasets import format_stats, load, make_multilabel_discrete

gen = make_multilabel_discrete(n_samples=300, n_features=40, n_labels=5, random_state=0)
folder = Path(tempfile.mkdtemp())
lines = ["@relation synthetic", ""]
for name, cats in zip(gen.feature_names, gen.categories, strict=True):
    lines.append(f"@attribute {name} {{{','.join(cats)}}}")
for label in gen.label_names:
    lines.append(f"@attribute {label} {{0,1}}")
lines += ["", "@data"]
for x, y in zip(gen.X.astype(int), gen.Y, strict=True):
    lines.append(",".join(map(str, [*x, *y])))
(folder / "synthetic.arff").write_text("\n".join(lines) + "\n")
(folder / "synthetic.xml").write_text(
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<labels xmlns="http://mulan.sourceforge.net/labels">\n'
    + "".join(f'  <label name="{label}"></label>\n' for label in gen.label_names)
    + "</labels>\n"
)

# %%
# Load it and look at its statistics
# ----------------------------------
# ``format_stats`` prints the columns of the papers' data set tables: patterns |W|,
# features |F|, labels |L|, label cardinality and density, distinct label sets.
ds = load(folder / "synthetic.arff")
print(format_stats(ds))

# %%
# Select features with SCLS
# -------------------------
# SCLS (Lee & Kim 2017) adds one feature at a time: the one whose dependency on the
# labels, minus its scaled redundancy with the features already chosen, is largest.
# By default it keeps ⌈√|W|⌉ features (18 here).
from skmlfs.selection import SCLS

sel = SCLS().fit(ds.X, ds.Y)
for rank, (f, score) in enumerate(zip(sel.selection_order_, sel.step_scores_, strict=True), 1):
    print(f"{rank:2d}. {ds.feature_names[f]:<10s} criterion {score:.3f} bits")

# %%
# The names tell the truth of the generator: ``inf_*`` features drive the labels,
# ``red_*`` are noisy copies of them, ``noise_*`` are noise. SCLS takes every informative
# feature first; the noisy copies come late or not at all, because once their original is
# chosen they add almost nothing (the redundancy term of the criterion).
roles = [ds.feature_names[f].split("_")[0] for f in sel.selection_order_]
print({role: roles.count(role) for role in ("inf", "red", "noise")})

X_small = sel.transform(ds.X)
print("reduced data:", X_small.shape)
