"""
Running a paper's experiment from a TOML file
=============================================

The ``experiments/*.toml`` files of the repository describe each paper's protocol:
datasets, splits, feature budgets, selectors, learners and metrics (see
:doc:`/experiment_file`). ``mlfs benchmark file.toml`` runs one, resumably, into an
SQLite store, and ``mlfs report`` turns the store into tables, statistical tests and
figures. The same is available from Python; here on a small experiment with generated
data sets (the paper files name real ones, read from ``$MLFS_DATASETS``).
"""

# %%
import tempfile
from pathlib import Path

from skmlfs.experiments import ResultStore, load_experiment, run_experiment, summarize

folder = Path(tempfile.mkdtemp())
toml = folder / "small_paper.toml"
toml.write_text('''
name = "small_paper"
description = "SCLS against AMI and MDMR with MLNB, the SCLS paper's protocol in miniature"
seed = 0
n_features_to_select = "ceil_sqrt"  # the SCLS paper's budget
metrics = ["hamming_loss", "ranking_loss", "normalized_coverage"]
selectors = ["scls", "ami", "mdmr", "all"]
learners = ["mlnb"]

[protocol]
kind = "holdout"
repeats = 3
test_size = 0.2

[report]
control = "scls"

[[datasets]]
name = "synthetic_a"
generator = "skmlfs.datasets:make_multilabel_discrete"
params = { n_samples = 300, n_features = 60, n_labels = 5, random_state = 0 }

[[datasets]]
name = "synthetic_b"
generator = "skmlfs.datasets:make_multilabel_discrete"
params = { n_samples = 300, n_features = 80, n_labels = 6, random_state = 1 }
''')

spec = load_experiment(toml)
summary = run_experiment(spec, folder / "small_paper.db", progress=False, verbose=False)
print(summary)

# %%
# Running it again computes nothing: every cell is already in the store.
again = run_experiment(spec, folder / "small_paper.db", progress=False, verbose=False)
print(again)

# %%
# Mean ± standard deviation over the splits, per dataset and method.
frame = ResultStore(folder / "small_paper.db").to_frame()
print(summarize(frame, metrics=["hamming_loss", "ranking_loss"]).round(4))

# %%
# ``write_report`` (``mlfs report``) writes the Markdown/LaTeX/CSV tables, Friedman and
# post-hoc tests and the figures of the whole store.
from skmlfs.experiments.report import write_report

files = write_report(folder / "small_paper.db", folder / "report", formats=("md",))
print(sorted(p.name for p in files)[:8])
print((folder / "report" / "README.md").read_text()[:1500])
